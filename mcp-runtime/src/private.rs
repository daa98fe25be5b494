//! What macro-generated code names, all through `::mcp::__private`, and what the fuzz targets
//! reach (`fuzzing`). Not a public API: it may change in any release.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::boxed::BoxFuture;
pub use crate::protocol::{
    CacheHint, CacheScope, CallToolParams, CallToolResult, CompleteParams, CompleteResult,
    GetPromptParams, GetPromptResult, McpError, Outcome, ReadResourceParams, ReadResourceResult,
    Role,
};
pub use crate::resolve::macro_support::*;
pub use crate::resolve::{
    Elicitation, ElicitationEnum, ElicitationField, EnumChoice, FieldInfo, enum_schema, form_schema,
};
pub use crate::server::macro_support::*;
pub use crate::server::{
    Context, IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome, PromptEntry, RateLimit,
    ResourceEntry, StateKey, TaskSupport, ToolEntry,
};

/// The decoders of network bytes that `fuzz/` drives directly, and the encoder one of them
/// inverts; none of them is public API.
pub mod fuzzing {
    #[cfg(feature = "http")]
    pub use crate::server::preread::{ParamsVerdict, read_both_ways, walk_agrees};
    pub use crate::server::registry::uri_template::percent_decode;
    #[cfg(feature = "http")]
    pub use crate::transport::http::headers::decode_value;
    #[cfg(feature = "http")]
    pub use crate::transport::http_client::request::header_value;
    pub use crate::transport::line_framer::LineFramer;
}
