//! Decoding a tool's arguments one parameter at a time, so a bad one is named in the error.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::{CallToolResult, JsonObject};

/// Takes argument `name` of tool `tool` out of `args`. A missing argument decodes from `null`,
/// so `Option` parameters are optional; anything else missing, or of the wrong shape, is a tool
/// error (`isError: true`) that names the argument, which the model can act on.
pub fn take_arg<T: DeserializeOwned>(
    args: &mut JsonObject,
    tool: &str,
    name: &str,
) -> Result<T, InvalidArgument> {
    match args.remove(name) {
        Some(value) => T::deserialize(value).map_err(|e| invalid(tool, name, &e)),
        None => T::deserialize(Value::Null).map_err(|_| {
            InvalidArgument(format!(
                "Invalid arguments for tool `{tool}`: missing required argument `{name}`"
            ))
        }),
    }
}

/// Like [`take_arg`], with a default for a missing or `null` argument.
pub fn take_arg_or<T: DeserializeOwned>(
    args: &mut JsonObject,
    tool: &str,
    name: &str,
    default: impl FnOnce() -> T,
) -> Result<T, InvalidArgument> {
    match args.remove(name) {
        None | Some(Value::Null) => Ok(default()),
        Some(value) => T::deserialize(value).map_err(|e| invalid(tool, name, &e)),
    }
}

fn invalid(tool: &str, name: &str, error: &serde_json::Error) -> InvalidArgument {
    InvalidArgument(format!(
        "Invalid arguments for tool `{tool}`: argument `{name}`: {error}"
    ))
}

/// An argument the client got wrong; the call answers with it as an `isError` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidArgument(String);

impl InvalidArgument {
    /// The tool result that tells the client (and its model) what to fix.
    pub fn into_result(self) -> CallToolResult {
        tracing::info!("refused a tool call: {}", self.0);
        CallToolResult::error(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    fn error_text(invalid: InvalidArgument) -> String {
        let result = invalid.into_result();
        assert_eq!(result.is_error, Some(true));
        serde_json::to_value(&result.content).expect("content")[0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    #[test]
    fn errors_name_the_argument() {
        let mut a = args(json!({"count": "three"}));
        let e = take_arg::<u32>(&mut a, "t", "count").expect_err("wrong type");
        assert_eq!(
            error_text(e),
            "Invalid arguments for tool `t`: argument `count`: invalid type: string \"three\", expected u32"
        );
        let e = take_arg::<String>(&mut a, "t", "name").expect_err("missing");
        assert_eq!(
            error_text(e),
            "Invalid arguments for tool `t`: missing required argument `name`"
        );
    }

    #[test]
    fn options_and_defaults_fill_in() {
        let mut a = args(json!({"n": null}));
        assert_eq!(take_arg::<Option<u8>>(&mut a, "t", "x").ok(), Some(None));
        assert_eq!(take_arg_or(&mut a, "t", "n", || 7u8).ok(), Some(7));
    }
}
