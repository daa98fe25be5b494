//! `Mcp-Param-{Name}` headers: tool arguments whose schema property carries `x-mcp-header`
//! are mirrored into headers, so intermediaries can route on them without parsing bodies.
//! The mappings are learnt from the `tools/list` answers that pass through the transport, and
//! tools with invalid annotations are dropped from those answers, as the spec requires of
//! HTTP clients.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Per tool: argument name → header suffix.
pub(crate) type ParamHeaders = HashMap<String, Vec<(String, String)>>;

/// Reads the annotations of a `tools/list` answer into `known`, and returns the answer without
/// the tools whose annotations are invalid (or `None` to pass it on unchanged).
pub(crate) fn learn(answer: &str, known: &mut ParamHeaders) -> Option<String> {
    let mut message: Value = serde_json::from_str(answer).ok()?;
    let tools = message
        .get_mut("result")?
        .get_mut("tools")?
        .as_array_mut()?;
    let before = tools.len();
    tools.retain(|tool| {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        match annotations(tool) {
            Some(headers) => {
                known.insert(name.to_owned(), headers);
                true
            }
            None => {
                tracing::warn!(
                    tool = name,
                    "dropping a tool with invalid x-mcp-header annotations"
                );
                false
            }
        }
    });
    (tools.len() != before).then(|| message.to_string())
}

/// The tool's mappings, or `None` when an annotation is invalid: not a non-empty HTTP token,
/// a duplicate ignoring case, or on a property that is not a string, integer or boolean.
fn annotations(tool: &Value) -> Option<Vec<(String, String)>> {
    let empty = Map::new();
    let properties = tool
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut headers: Vec<(String, String)> = Vec::new();
    for (argument, schema) in properties {
        let Some(annotation) = schema.get("x-mcp-header") else {
            continue;
        };
        let header = annotation.as_str()?;
        let is_token = !header.is_empty()
            && header
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        let typed = matches!(
            schema.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        );
        let duplicate = headers.iter().any(|(_, h)| h.eq_ignore_ascii_case(header));
        if !is_token || !typed || duplicate {
            return None;
        }
        headers.push((argument.clone(), header.to_owned()));
    }
    // Annotations nested below the top level are not reachable; a tool that has them is
    // invalid too.
    let nested = properties
        .values()
        .any(|schema| contains_annotation(schema, true));
    (!nested).then_some(headers)
}

fn contains_annotation(schema: &Value, top: bool) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| {
            (key == "x-mcp-header" && !top) || contains_annotation(value, false)
        }),
        Value::Array(items) => items.iter().any(|v| contains_annotation(v, false)),
        _ => false,
    }
}

/// The header value of an argument: strings as they are, integers in decimal, booleans as
/// `true`/`false`; `None` for absent, null, or other types.
pub(crate) fn value(argument: &Value) -> Option<String> {
    match argument {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_annotations_are_learnt_and_invalid_tools_dropped() {
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "ok", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
                "plain": {"type": "string"}}}},
            {"name": "float", "inputSchema": {"type": "object", "properties": {
                "x": {"type": "number", "x-mcp-header": "X"}}}},
            {"name": "dup", "inputSchema": {"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Same"},
                "b": {"type": "string", "x-mcp-header": "same"}}}},
            {"name": "space", "inputSchema": {"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Has Space"}}}},
            {"name": "nested", "inputSchema": {"type": "object", "properties": {
                "o": {"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "Deep"}}}}}},
        ]}});
        let mut known = ParamHeaders::new();
        let rewritten = learn(&answer.to_string(), &mut known).expect("rewritten");
        let tools: Value = serde_json::from_str(&rewritten).expect("json");
        let names: Vec<&str> = tools["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["ok"]);
        let mut ok = known["ok"].clone();
        ok.sort();
        assert_eq!(
            ok,
            [
                ("count".to_owned(), "Count".to_owned()),
                ("region".to_owned(), "Region".to_owned())
            ]
        );
    }

    #[test]
    fn values_follow_the_encoding_rules() {
        assert_eq!(value(&json!("eu")), Some("eu".into()));
        assert_eq!(value(&json!(42)), Some("42".into()));
        assert_eq!(value(&json!(true)), Some("true".into()));
        assert_eq!(value(&json!(1.5)), None);
        assert_eq!(value(&Value::Null), None);
    }
}
