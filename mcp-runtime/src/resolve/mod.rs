//! Asking the client for what a function needs: the form questions derived from
//! `#[derive(mcp::Elicitation)]` types.

mod elicitation;

pub use elicitation::{
    Elicitation, ElicitationEnum, ElicitationField, EnumChoice, FieldInfo, enum_schema, form_schema,
};
