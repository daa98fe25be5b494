//! The wire: JSON-RPC 2.0 and every MCP type of revisions 2026-07-28 and 2025-11-25.
//!
//! Results carry `resultType`, `_meta` and cache hints as `Option`s that handlers leave empty;
//! the runtime fills them for 2026-07-28 and strips them for 2025-11-25 ([`WireResult`]).

pub(crate) mod canonical;
mod capabilities;
mod completion;
mod content;
mod elicitation;
mod error;
mod extension_result;
mod frozen;
mod jsonrpc;
mod lifecycle;
mod listen;
pub(crate) mod members;
mod meta;
pub mod methods;
mod mrtr;
mod notifications;
mod pagination;
mod prompts;
mod resources;
mod result_fields;
mod result_json;
mod roots;
mod sampling;
mod tasks;
mod text;
mod tools;
mod version;

pub(crate) use text::Text;

pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use error::{INVALID_REQUEST_STATE_MESSAGE, McpError, code};
pub use extension_result::ExtensionResult;
pub use frozen::Frozen;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use listen::{ListenParams, ListenResult, SubscriptionFilter};
pub use meta::*;
pub use mrtr::{InputRequest, InputRequests, InputRequiredResult, InputResponses, Outcome};
pub use notifications::{CancelledParams, LoggingMessageParams, ProgressParams};
pub use pagination::*;
pub use prompts::*;
pub use resources::*;
pub use result_fields::{ResultFields, WireResult};
pub use roots::*;
pub use sampling::*;
pub use tasks::{
    DetailedTask, TASK_RESULT_TYPE, TASKS_EXTENSION, Task, TaskIdParams, TaskNotification,
    TaskStatus, UpdateTaskParams,
};
pub use tools::*;
pub use version::*;

/// Method names of the input requests (`elicitation/create`, …).
pub mod input_methods {
    pub use super::mrtr::method::*;
}

/// Method names of notifications.
pub mod notification_methods {
    pub use super::notifications::method::*;
}
