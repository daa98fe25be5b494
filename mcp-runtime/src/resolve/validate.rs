//! Checking an accepted form against the schema it was asked with, before serde sees it: the
//! types, the choices and the required fields. The function never runs on an answer that does
//! not fit the question.

use serde_json::{Map, Value};

/// Whether `content` fits the form `schema` (as derived by `#[derive(mcp::Elicitation)]`).
pub fn fits(content: &Map<String, Value>, schema: &Value) -> bool {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let all_required = required.iter().all(|name| {
        name.as_str()
            .and_then(|name| content.get(name))
            .is_some_and(|v| !v.is_null())
    });
    all_required
        && content.iter().all(|(name, value)| {
            match properties.and_then(|p| p.get(name)) {
                // An optional field may be sent as null; fields the form never asked are ignored.
                Some(_) if value.is_null() => true,
                Some(field) => fits_field(value, field),
                None => true,
            }
        })
}

fn fits_field(value: &Value, field: &Value) -> bool {
    match field.get("type").and_then(Value::as_str) {
        Some("string") => value.as_str().is_some_and(|s| is_choice(s, field)),
        Some("boolean") => value.is_boolean(),
        Some("integer") => (value.is_i64() || value.is_u64()) && in_range(value.as_f64(), field),
        Some("number") => value.is_number() && in_range(value.as_f64(), field),
        Some("array") => value.as_array().is_some_and(|items| {
            let item_schema = field.get("items").unwrap_or(&Value::Null);
            items
                .iter()
                .all(|item| item.as_str().is_some_and(|s| is_choice(s, item_schema)))
        }),
        _ => false,
    }
}

/// For a schema listing choices (`enum`, or `oneOf`/`anyOf` of `const`s), whether `s` is one;
/// any string fits a schema without choices.
fn is_choice(s: &str, schema: &Value) -> bool {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().any(|v| v.as_str() == Some(s));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .any(|o| o.get("const").and_then(Value::as_str) == Some(s));
        }
    }
    true
}

fn in_range(value: Option<f64>, field: &Value) -> bool {
    let Some(v) = value else {
        return false;
    };
    let min = field.get("minimum").and_then(Value::as_f64);
    let max = field.get("maximum").and_then(Value::as_f64);
    min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "region": {"type": "string", "oneOf": [{"const": "eu", "title": "EU"}]},
            "size": {"type": "integer", "minimum": 0, "maximum": 255},
            "ok": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "note": {"type": "string"},
        }, "required": ["region", "ok"]})
    }

    fn fits_json(v: Value) -> bool {
        fits(v.as_object().expect("object"), &schema())
    }

    #[test]
    fn good_answers_fit() {
        assert!(fits_json(json!({"region": "eu", "ok": true})));
        assert!(fits_json(
            json!({"region": "eu", "ok": false, "size": 3, "tags": ["a", "b"],
            "note": "x", "extra": [1]})
        ));
        assert!(fits_json(json!({"region": "eu", "ok": true, "note": null})));
    }

    #[test]
    fn bad_answers_do_not() {
        assert!(!fits_json(json!({"ok": true})));
        assert!(!fits_json(json!({"region": "us", "ok": true})));
        assert!(!fits_json(json!({"region": "eu", "ok": "yes"})));
        assert!(!fits_json(json!({"region": "eu", "ok": true, "size": 256})));
        assert!(!fits_json(json!({"region": "eu", "ok": true, "size": 1.5})));
        assert!(!fits_json(
            json!({"region": "eu", "ok": true, "tags": ["c"]})
        ));
        assert!(!fits_json(json!({"region": null, "ok": true})));
    }
}
