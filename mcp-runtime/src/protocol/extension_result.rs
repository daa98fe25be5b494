//! A result whose shape an extension defines: the answer of an extension's own method, or an
//! extension's `resultType` in place of a core method's result (the tasks extension's
//! `CreateTaskResult` on `tools/call`).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::jsonrpc::JsonObject;
use super::meta::{ResultMeta, ResultType};

/// A result an extension defines: its members as JSON, and its `resultType`.
///
/// The runtime owns `resultType` and `_meta["io.modelcontextprotocol/serverInfo"]`, as on every
/// result: a `resultType` among the members is dropped, and a `_meta` object is kept and
/// given the server's identity. A value other than `complete` goes out only where an
/// extension of the server declared it for the method and the client declared that extension
/// on the request (see `Extension::result_type` in the server module).
///
/// ```
/// use mcp::protocol::{ExtensionResult, ResultType};
///
/// let body = serde_json::json!({"taskId": "t-1", "status": "working", "resultType": "ignored"});
/// let task = ExtensionResult::new("task", body.as_object().cloned().unwrap_or_default());
/// assert_eq!(task.result_type(), &ResultType::Other("task".into()));
/// assert_eq!(task.body()["taskId"], "t-1");
/// assert!(task.body().get("resultType").is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionResult {
    result_type: ResultType,
    body: JsonObject,
    pub(super) meta: Option<ResultMeta>,
    /// Whether the wire carries `resultType` (2026-07-28); set when the runtime fills it.
    pub(super) typed: bool,
}

impl ExtensionResult {
    /// A result of type `result_type` with these members.
    pub fn new(result_type: impl Into<String>, body: JsonObject) -> Self {
        let result_type = match result_type.into().as_str() {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            other => ResultType::Other(other.to_owned()),
        };
        Self::of_type(result_type, body)
    }

    /// A final result (`resultType: "complete"`) with these members: what an extension's own
    /// method answers with.
    pub fn complete(body: JsonObject) -> Self {
        Self::of_type(ResultType::Complete, body)
    }

    fn of_type(result_type: ResultType, mut body: JsonObject) -> Self {
        body.remove("resultType");
        let meta = match body.remove("_meta") {
            Some(Value::Object(extra)) => Some(ResultMeta {
                server_info: None,
                extra,
            }),
            _ => None,
        };
        Self {
            result_type,
            body,
            meta,
            typed: false,
        }
    }

    /// Its `resultType`.
    pub fn result_type(&self) -> &ResultType {
        &self.result_type
    }

    /// Its members, without `resultType` and `_meta`.
    pub fn body(&self) -> &JsonObject {
        &self.body
    }
}

impl Serialize for ExtensionResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        if self.typed {
            map.serialize_entry("resultType", &self.result_type)?;
        }
        for (key, value) in &self.body {
            map.serialize_entry(key, value)?;
        }
        if let Some(meta) = self.meta.as_ref().filter(|m| !m.is_empty()) {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::*;
    use crate::protocol::{
        CacheHint, Frozen, Generation, Implementation, ResultFields, WireResult,
    };

    fn on(generation: Generation, mut result: ExtensionResult) -> Value {
        let fields = ResultFields {
            generation,
            server_info: Frozen::new(Implementation::new("s", "1")),
            cache: CacheHint::default(),
        };
        result.fill(&fields);
        serde_json::to_value(&result).expect("serializes")
    }

    #[test]
    fn the_runtime_writes_the_type_and_the_server_into_the_extensions_members() {
        let body = json!({
            "taskId": "t-1",
            "resultType": "complete",
            "_meta": {"com.example/trace": "x", "io.modelcontextprotocol/serverInfo": "forged"},
        });
        let task = ExtensionResult::new("task", body.as_object().cloned().unwrap_or_default());
        assert_eq!(
            on(Generation::V2026_07_28, task.clone()),
            json!({
                "resultType": "task",
                "taskId": "t-1",
                "_meta": {
                    "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"},
                    "com.example/trace": "x",
                },
            })
        );
        // 2025-11-25 has neither; the handler's own `_meta` stays.
        assert_eq!(
            on(Generation::V2025_11_25, task),
            json!({"taskId": "t-1", "_meta": {
                "com.example/trace": "x", "io.modelcontextprotocol/serverInfo": "forged"
            }})
        );
        let done = ExtensionResult::complete(JsonObject::new());
        assert_eq!(
            on(Generation::V2026_07_28, done)["resultType"],
            json!("complete")
        );
        assert_eq!(
            ExtensionResult::new("input_required", JsonObject::new()).result_type(),
            &ResultType::InputRequired
        );
    }
}
