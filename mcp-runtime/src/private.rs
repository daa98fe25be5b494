//! What macro-generated code names, all through `::mcp::__private`. Not a public API: it may
//! change in any release.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::boxed::BoxFuture;
pub use crate::protocol::{
    CallToolParams, CallToolResult, GetPromptParams, GetPromptResult, McpError, Outcome,
    ReadResourceParams, ReadResourceResult,
};
pub use crate::resolve::macro_support::*;
pub use crate::resolve::{
    Elicitation, ElicitationEnum, ElicitationField, EnumChoice, FieldInfo, enum_schema, form_schema,
};
pub use crate::server::macro_support::*;
pub use crate::server::{
    Context, IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome, PromptEntry, ResourceEntry,
    StateKey, ToolEntry,
};
