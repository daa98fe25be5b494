//! The registry `#[mcp::tool]`, `#[mcp::prompt]` and `#[mcp::resource]` functions feed:
//! [`McpServer`], the entries the macros describe, and the conversions of what the functions
//! return. It turns them into a low-level [`Server`](super::Server): the listings (schemas
//! computed once), dispatch by name, structured-output wrapping, and sealed `requestState` on
//! by default.

mod args;
mod completion;
mod describe;
mod guards;
mod live;
mod mcp_server;
mod params;
mod policy;
mod prompts;
mod resources;
mod returns;
mod schema;
mod tables;
mod tools;
pub(crate) mod uri_template;

pub use completion::{CompleteCall, Completer, CompletionRequest, IntoCompletion};
pub(crate) use live::LiveTables;
pub use mcp_server::McpServer;
pub use policy::RateLimit;
pub use prompts::{IntoPromptOutcome, PromptCall, PromptEntry};
pub use resources::{IntoResourceOutcome, ResourceCall, ResourceEntry};
pub use returns::{IntoToolOutcome, Json};
pub(crate) use tables::{Tables, ToolRun, page};
pub use tools::{TaskSupport, ToolCall, ToolEntry};
pub(crate) use uri_template::UriTemplate;

/// What macro-generated code names (through `crate::__private`), and nothing else does.
pub(crate) mod macro_support {
    pub use super::completion::{ArgumentCompletion, run_completer};
    pub use super::describe::{IconInfo, IntoMeta};
    pub use super::guards::{
        BoxNotSend, BoxSend, FutureMustBeSend, ResolvedPromptReturn, ResolvedResourceReturn,
        ResolvedToolReturn, SendCheckSkipped, SendGate, SendProbe, StaticResourceReturn,
    };
    pub use super::params::{
        ArgumentSchema, DefaultArgument, Filled, Injected, ParamError, PromptArgument, PromptParam,
        ResourceParam, SchemaDefault, StaticResourceParam, ToolArgument, ToolParam,
        ToolParamSchema, compact, count_some, keep_arguments, shown_in_schema,
    };
    pub use super::prompts::{
        Optional, Parsed, PromptArgumentInfo, PromptArgumentType, PromptDef, PromptInfo,
    };
    pub use super::resources::{
        FromTemplateVar, ResourceAnnotationsInfo, ResourceDef, ResourceInfo, TemplateVars,
    };
    pub use super::schema::{OutputSchema, input_schema};
    pub use super::tools::{ToolDef, ToolInfo};
    pub use super::uri_template::TemplateError;
}
