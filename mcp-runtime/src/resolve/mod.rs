//! Asking the client for what a function needs.
//!
//! A Resolve parameter (`Elicit<T>`, `Elicited<T>`, `ElicitUrl`, `Sample`, `ListRoots`) is filled by asking
//! the client. The runtime asks every question whose inputs are known in one round,
//! a dependent question in the next, records each answer in the sealed `requestState` pinned
//! to the exact question, and runs the function once everything is known.

mod answers;
mod elicitation;
mod forms;
mod ledger;
mod rounds;
mod validate;

pub use answers::{Elicit, ElicitUrl, Elicited, ListRoots, Sample, UrlQuestion};
// The building blocks of a form, public for a hand-written `Elicitation` too.
pub use elicitation::{
    Elicitation, ElicitationEnum, ElicitationField, EnumChoice, FieldInfo, enum_schema, form_schema,
};

/// What macro-generated code names (through `crate::__private`), and nothing else does.
pub(crate) mod macro_support {
    pub use super::answers::FromElicitation;
    pub use super::rounds::{CallBack, Halt, Rounds};
}
