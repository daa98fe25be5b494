//! What a tool function may return, and how each becomes a `tools/call` answer.

use std::any::Any;
use std::borrow::Cow;
use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;

use crate::protocol::{CallToolResult, ContentBlock, InputRequiredResult, McpError, Outcome};

use super::schema::{self, OutputSchema};

/// A value a `#[mcp::tool]` function can return.
///
/// Text-like values become one text block; [`CallToolResult`] passes through; [`Json`] adds
/// structured content and an output schema; `Result<T, E>` with `E: Display` turns an `Err`
/// into a result with `isError: true` (the model sees the message and can correct itself),
/// except an `Err(McpError)`, which answers the request with that JSON-RPC error;
/// `Result<T, InputRequiredResult>` (or [`Outcome`]) lets the function ask the client itself.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this return type is not a tool result",
    note = "return text (`String`, `&'static str`), `mcp::Json<T>`, `CallToolResult`, content \
            blocks, or a `Result` of these whose error is `Display` or `InputRequiredResult`",
    note = "`mcp::Json<T>` needs `T` to derive `serde::Serialize` and `schemars::JsonSchema` \
            (schemars 1.x, `schemars = \"1\"` in Cargo.toml; a 0.8 derive implements another \
            trait and does not count)"
)]
pub trait IntoToolOutcome {
    /// Whether this type can carry an `InputRequiredResult`. A tool whose parameters ask the
    /// client (Resolve parameters) must not also ask by hand; the macros check this constant,
    /// so the rule holds through type aliases.
    const CAN_ASK: bool = false;

    /// The JSON schema of the structured content, when there is one.
    fn output_schema() -> Option<OutputSchema> {
        None
    }

    /// The answer.
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError>;
}

impl IntoToolOutcome for CallToolResult {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoToolOutcome for InputRequiredResult {
    const CAN_ASK: bool = true;

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::InputRequired(self))
    }
}

impl IntoToolOutcome for Outcome<CallToolResult> {
    const CAN_ASK: bool = true;

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(self)
    }
}

impl IntoToolOutcome for ContentBlock {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(CallToolResult::new(vec![self])))
    }
}

impl IntoToolOutcome for Vec<ContentBlock> {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(CallToolResult::new(self)))
    }
}

impl IntoToolOutcome for () {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(CallToolResult::new(Vec::new())))
    }
}

macro_rules! text_outcomes {
    ($($ty:ty),*) => {$(
        impl IntoToolOutcome for $ty {
            fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
                Ok(Outcome::Complete(CallToolResult::text(self.to_string())))
            }
        }
    )*};
}

text_outcomes!(
    String,
    &'static str,
    Cow<'static, str>,
    bool,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64
);

impl<T: IntoToolOutcome, E: Display + 'static> IntoToolOutcome for Result<T, E> {
    const CAN_ASK: bool = T::CAN_ASK;

    fn output_schema() -> Option<OutputSchema> {
        T::output_schema()
    }

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        match self {
            Ok(value) => value.into_tool_outcome(),
            Err(error) => {
                // An `McpError` is a protocol error the tool chose (its code and data matter);
                // every other error is for the model to read.
                if let Some(protocol) = (&error as &dyn Any).downcast_ref::<McpError>() {
                    return Err(protocol.clone());
                }
                Ok(Outcome::Complete(CallToolResult::error(error.to_string())))
            }
        }
    }
}

impl<T: IntoToolOutcome> IntoToolOutcome for Result<T, InputRequiredResult> {
    const CAN_ASK: bool = true;

    fn output_schema() -> Option<OutputSchema> {
        T::output_schema()
    }

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        match self {
            Ok(value) => value.into_tool_outcome(),
            Err(ask) => Ok(Outcome::InputRequired(ask)),
        }
    }
}

/// Structured output: the value goes out as `structuredContent` (and as JSON text for clients
/// that only read content), and the tool advertises `T`'s schema as its `outputSchema`.
///
/// A `T` whose schema is not an object is wrapped as `{"result": …}`, as the protocol wants
/// structured content to be an object.
///
/// ```
/// use mcp::server::{IntoToolOutcome, Json};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Forecast { celsius: f64 }
///
/// let schema = <Json<Forecast> as IntoToolOutcome>::output_schema().unwrap();
/// assert!(!schema.wrapped);
/// assert_eq!(schema.schema["properties"]["celsius"]["type"], "number");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

// Not recommended, so a `T` without `JsonSchema` or `Serialize` is reported as this trait's
// sentence (whose note names schemars 1.x) rather than as schemars' bare trait bound.
#[diagnostic::do_not_recommend]
impl<T: Serialize + JsonSchema> IntoToolOutcome for Json<T> {
    fn output_schema() -> Option<OutputSchema> {
        Some(schema::output_schema::<T>())
    }

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        let value = match serde_json::to_value(&self.0) {
            Ok(value) => value,
            Err(error) => {
                tracing::error!(%error, "a tool's structured output did not serialize");
                return Ok(Outcome::Complete(CallToolResult::error(
                    "The tool produced output that could not be serialized",
                )));
            }
        };
        let mut result = CallToolResult::text(value.to_string());
        result.structured_content = Some(value);
        Ok(Outcome::Complete(result))
    }
}
