//! What macro-generated code names, all through `::mcp::__private`. Not a public API: it may
//! change in any release.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::protocol::{CallToolParams, CallToolResult, JsonObject, McpError, Outcome};
pub use crate::server::app::{
    IntoToolOutcome, ToolDef, ToolEntry, ToolInfo, input_schema, take_arg, take_arg_or,
};
pub use crate::server::{BoxFuture, RequestContext};

/// Fails to compile (with `message`) when a tool whose parameters ask the client also declares
/// a return type that can carry an `InputRequiredResult`; evaluated on the real type, so type
/// aliases do not hide it.
pub const fn assert_cannot_ask<T: IntoToolOutcome>() {
    assert!(
        !T::CAN_ASK,
        "a tool with Resolve parameters must not also return InputRequiredResult: \
         the runtime asks for the parameters; remove the InputRequiredResult from the return type"
    );
}

pub use crate::protocol::{
    GetPromptParams, GetPromptResult, ReadResourceParams, ReadResourceResult,
};
pub use crate::server::app::{
    FromTemplateVar, IntoPromptOutcome, IntoResourceOutcome, PromptArgumentInfo,
    PromptArgumentType, PromptDef, PromptEntry, PromptInfo, ResourceDef, ResourceEntry,
    ResourceInfo, TemplateVars,
};

pub use crate::resolve::{
    Elicitation, ElicitationEnum, ElicitationField, EnumChoice, FieldInfo, enum_schema, form_schema,
};
