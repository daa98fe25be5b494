//! What macro-generated code names, all through `::mcp::__private`. Not a public API: it may
//! change in any release.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::protocol::{
    CallToolParams, CallToolResult, GetPromptParams, GetPromptResult, JsonObject, McpError,
    Outcome, ReadResourceParams, ReadResourceResult,
};
pub use crate::resolve::{
    CallBack, Elicitation, ElicitationEnum, ElicitationField, EnumChoice, FieldInfo,
    FromElicitation, Halt, Rounds, enum_schema, form_schema,
};
pub use crate::server::app::guards::{
    BoxNotSend, BoxSend, FutureMustBeSend, ResolvedPromptReturn, ResolvedResourceReturn,
    ResolvedToolReturn, SendCheckSkipped, SendGate, SendProbe, StaticResourceReturn,
};
pub use crate::server::app::params::{
    DefaultArgument, Injected, ParamError, PromptParam, ResourceParam, StaticResourceParam,
    ToolArgument, ToolParam, ToolParamSchema, compact, count_some, keep_arguments,
};
pub use crate::server::app::{
    FromTemplateVar, IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome, PromptArgumentInfo,
    PromptArgumentType, PromptDef, PromptEntry, PromptInfo, ResourceDef, ResourceEntry,
    ResourceInfo, TemplateVars, ToolDef, ToolEntry, ToolInfo, input_schema, take_arg, take_arg_or,
};
pub use crate::server::{BoxFuture, FromAppState, RequestContext, StateKey};
