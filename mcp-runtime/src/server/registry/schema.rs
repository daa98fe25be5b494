//! JSON schemas for tool inputs and outputs, from schemars, shaped as MCP wants them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// The input schema of a tool whose arguments are the fields of `T`: a JSON Schema 2020-12
/// object, without the `$schema` and `title` noise schemars adds at the root.
pub fn input_schema<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = tidy(schema.to_value());
    if let Value::Object(map) = &mut value {
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    value
}

/// The schema of a tool's structured content.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    /// The `outputSchema` the tool advertises (always an object schema).
    pub schema: Value,
    /// Whether the value was not an object and is sent wrapped as `{"result": …}`.
    pub wrapped: bool,
}

/// The output schema of structured content of type `T`; a `T` whose schema is not an object is
/// wrapped as the required `result` property.
pub fn output_schema<T: JsonSchema>() -> OutputSchema {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let value = tidy(schema.to_value());
    if is_object_schema(&value) {
        return OutputSchema {
            schema: value,
            wrapped: false,
        };
    }
    let mut inner = match value {
        Value::Object(inner) => inner,
        other => Map::from_iter([("const".to_owned(), other)]),
    };
    // Definitions stay at the root so `$ref`s keep resolving.
    let defs = inner.remove("$defs");
    let mut wrapped = json!({
        "type": "object",
        "properties": {"result": Value::Object(inner)},
        "required": ["result"],
    });
    if let (Some(defs), Value::Object(map)) = (defs, &mut wrapped) {
        map.insert("$defs".into(), defs);
    }
    OutputSchema {
        schema: wrapped,
        wrapped: true,
    }
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::String("object".into()))
}

fn tidy(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
    }
    value
}
