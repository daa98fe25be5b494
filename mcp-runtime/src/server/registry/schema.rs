//! JSON schemas for tool inputs and outputs, from schemars, shaped as MCP wants them: plain
//! JSON Schema 2020-12 that clients take without warnings.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value, json};

/// The input schema of a tool whose arguments are the fields of `T`: a JSON Schema 2020-12
/// object, without the `$schema` and `title` noise schemars adds at the root.
pub fn input_schema<T: JsonSchema>() -> Value {
    let schema =
        generator(SchemaSettings::draft2020_12().for_deserialize()).into_root_schema_for::<T>();
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
    let schema =
        generator(SchemaSettings::draft2020_12().for_serialize()).into_root_schema_for::<T>();
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

/// The generator of every tool schema: schemars' settings, made [`Plain`].
fn generator(settings: SchemaSettings) -> SchemaGenerator {
    settings.with_transform(Plain).into_generator()
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

/// The transform every generated schema goes through: the plainest JSON Schema 2020-12 that
/// clients accept without a warning.
///
/// - A `format` outside the ones both JSON Schema 2020-12 defines and common validators know is
///   dropped: schemars' `uint32`, `int64`, `double`… make the TypeScript SDK's Ajv print
///   `unknown format … ignored` on every call. An integer format becomes the bounds it stood
///   for, as `minimum`/`maximum`, never tighter than the Rust type accepts.
/// - A property absent from `required` loses its `null` alternative: leaving it out says the
///   same, and `type: [T, "null"]` draws portability warnings. The runtime still takes an
///   explicit `null` for such an argument as absent.
/// - A `type` array that remains (a required `Option` in an output, an `Option` item) becomes
///   `anyOf` branches of one type each, the spelling every client maps.
#[derive(Debug, Clone, Copy, Default)]
struct Plain;

/// Formats JSON Schema 2020-12 defines, less `idn-email`, `idn-hostname`, `iri` and
/// `iri-reference`, which the TypeScript SDK's `ajv-formats` does not know (so it would warn).
const PLAIN_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords that describe rather than constrain; they stay on the outside of a split union.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$id",
    "$anchor",
    "$defs",
    "x-mcp-header",
];

impl Transform for Plain {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut() {
            plain_format(object);
            optional_properties_without_null(object);
            split_type_union(object);
        }
        transform_subschemas(self, schema);
    }
}

/// Drops a non-standard `format`, putting an integer format's range in its place.
fn plain_format(schema: &mut Map<String, Value>) {
    let Some(format) = schema.get("format").and_then(Value::as_str) else {
        return;
    };
    if PLAIN_FORMATS.contains(&format) {
        return;
    }
    let (minimum, maximum) = integer_range(format);
    schema.remove("format");
    // A bound the user set (`#[schemars(range(…))]`) is tighter and wins.
    if let Some(minimum) = minimum {
        schema.entry("minimum").or_insert(minimum);
    }
    if let Some(maximum) = maximum {
        schema.entry("maximum").or_insert(maximum);
    }
}

/// The range of schemars' integer format `format`. A 128-bit bound has no exact JSON number
/// every client reads, so it is left out (looser, never tighter).
fn integer_range(format: &str) -> (Option<Value>, Option<Value>) {
    fn signed(min: i64, max: i64) -> (Option<Value>, Option<Value>) {
        (Some(min.into()), Some(max.into()))
    }
    fn unsigned(max: u64) -> (Option<Value>, Option<Value>) {
        (Some(0.into()), Some(max.into()))
    }
    match format {
        "int8" => signed(i8::MIN.into(), i8::MAX.into()),
        "int16" => signed(i16::MIN.into(), i16::MAX.into()),
        "int32" => signed(i32::MIN.into(), i32::MAX.into()),
        "int64" => signed(i64::MIN, i64::MAX),
        "int" => (Some(isize::MIN.into()), Some(isize::MAX.into())),
        "uint8" => unsigned(u8::MAX.into()),
        "uint16" => unsigned(u16::MAX.into()),
        "uint32" => unsigned(u32::MAX.into()),
        "uint64" => unsigned(u64::MAX),
        "uint" => (Some(0.into()), Some(usize::MAX.into())),
        "uint128" => (Some(0.into()), None),
        _ => (None, None),
    }
}

/// Removes the `null` alternative of every property the schema does not require.
fn optional_properties_without_null(schema: &mut Map<String, Value>) {
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        if let Value::Object(property) = property {
            without_null(property);
        }
    }
}

/// `schema` without the values `null`: out of a `type` array, an `enum`, a `null` branch of
/// `anyOf`/`oneOf`, and a `null` default.
fn without_null(schema: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            schema.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if schema.get("default").is_some_and(Value::is_null) {
        schema.remove("default");
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get_mut(keyword) else {
            continue;
        };
        branches.retain(|branch| !is_null_schema(branch));
        if branches.len() != 1 {
            continue;
        }
        // One branch left: it is the schema, merged into the annotations around it.
        if let Some(Value::Object(branch)) = branches.pop() {
            schema.remove(keyword);
            for (key, value) in branch {
                schema.entry(key).or_insert(value);
            }
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    match schema.as_object() {
        Some(object) => object.len() == 1 && object.get("type") == Some(&Value::from("null")),
        None => false,
    }
}

/// Rewrites `type: [A, B, …]` as `anyOf` branches `{type: A, …}`, each carrying the keywords
/// that apply to its type; annotations stay outside.
fn split_type_union(schema: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = schema.get("type") else {
        return;
    };
    let types: Vec<String> = types
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if let [only] = types.as_slice() {
        schema.insert("type".into(), only.as_str().into());
        return;
    }
    schema.remove("type");
    let moved: Vec<String> = schema
        .keys()
        .filter(|key| !ANNOTATIONS.contains(&key.as_str()))
        .cloned()
        .collect();
    let mut constraints = Map::new();
    for key in moved {
        if let Some(value) = schema.remove(&key) {
            constraints.insert(key, value);
        }
    }
    let branches: Vec<Value> = types
        .iter()
        .map(|ty| {
            let mut branch = Map::from_iter([("type".to_owned(), Value::from(ty.as_str()))]);
            for (key, value) in &constraints {
                if applies_to(key, ty) {
                    branch.insert(key.clone(), value.clone());
                }
            }
            Value::Object(branch)
        })
        .collect();
    // Keywords of no listed type (`enum`, `const`, `$ref`, …) constrain every branch alike.
    for (key, value) in constraints {
        if !types.iter().any(|ty| applies_to(&key, ty)) {
            schema.insert(key, value);
        }
    }
    let union = Value::Array(branches);
    match schema.get_mut("anyOf") {
        // An `anyOf` already there is kept, and the union joins it under `allOf`.
        Some(existing) => {
            let existing = existing.take();
            schema.remove("anyOf");
            schema.insert(
                "allOf".into(),
                json!([{"anyOf": existing}, {"anyOf": union}]),
            );
        }
        None => {
            schema.insert("anyOf".into(), union);
        }
    }
}

/// Whether validation keyword `key` constrains instances of JSON type `ty`.
fn applies_to(key: &str, ty: &str) -> bool {
    const NUMBER: &[&str] = &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ];
    const STRING: &[&str] = &[
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    ];
    const ARRAY: &[&str] = &[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "unevaluatedItems",
    ];
    const OBJECT: &[&str] = &[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "unevaluatedProperties",
        "dependentRequired",
        "dependentSchemas",
    ];
    let keywords = match ty {
        "integer" | "number" => NUMBER,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => return false,
    };
    keywords.contains(&key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Numbers {
        a: u8,
        b: u16,
        c: u32,
        d: u64,
        e: usize,
        f: i8,
        g: i32,
        h: i64,
        i: f32,
        j: f64,
        k: u128,
        #[schemars(range(min = 1, max = 10))]
        bounded: u32,
    }

    #[test]
    fn integer_formats_become_exact_bounds() {
        let schema = input_schema::<Numbers>();
        let properties = &schema["properties"];
        let bounds = |name: &str| {
            let p = &properties[name];
            assert_eq!(p.get("format"), None, "{name}: {p}");
            (p.get("minimum").cloned(), p.get("maximum").cloned())
        };
        assert_eq!(bounds("a"), (Some(json!(0)), Some(json!(255))));
        assert_eq!(bounds("b"), (Some(json!(0)), Some(json!(65535))));
        assert_eq!(bounds("c"), (Some(json!(0)), Some(json!(4_294_967_295u32))));
        assert_eq!(bounds("d"), (Some(json!(0)), Some(json!(u64::MAX))));
        assert_eq!(bounds("e"), (Some(json!(0)), Some(json!(usize::MAX))));
        assert_eq!(bounds("f"), (Some(json!(-128)), Some(json!(127))));
        assert_eq!(bounds("g"), (Some(json!(i32::MIN)), Some(json!(i32::MAX))));
        assert_eq!(bounds("h"), (Some(json!(i64::MIN)), Some(json!(i64::MAX))));
        assert_eq!(bounds("i"), (None, None));
        assert_eq!(bounds("j"), (None, None));
        // No exact JSON number for u128::MAX: only the lower bound.
        assert_eq!(bounds("k"), (Some(json!(0)), None));
        // The user's own range is tighter than the type's and stays.
        assert_eq!(bounds("bounded"), (Some(json!(1)), Some(json!(10))));
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Formats {
        #[schemars(email)]
        email: String,
        #[schemars(url)]
        url: String,
        #[schemars(extend("format" = "date-time"))]
        when: String,
        #[schemars(extend("format" = "idn-email"))]
        unknown_to_ajv: String,
        address: std::net::IpAddr,
    }

    #[test]
    fn standard_formats_stay_and_others_go() {
        let schema = input_schema::<Formats>();
        let format = |name: &str| schema["properties"][name].get("format").cloned();
        assert_eq!(format("email"), Some(json!("email")));
        assert_eq!(format("url"), Some(json!("uri")));
        assert_eq!(format("when"), Some(json!("date-time")));
        assert_eq!(format("unknown_to_ajv"), None);
        assert_eq!(format("address"), None);
        assert_eq!(schema["properties"]["address"]["type"], "string");
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Inner {
        /// How often.
        every: Option<u32>,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Optional {
        /// Maybe a number.
        count: Option<u8>,
        inner: Option<Inner>,
        slots: Vec<Option<u16>>,
    }

    #[test]
    fn optional_arguments_carry_no_null_and_nested_types_are_plain_too() {
        let schema = input_schema::<Optional>();
        assert_eq!(schema["required"], json!(["slots"]));
        assert_eq!(
            schema["properties"]["count"],
            json!({"description": "Maybe a number.", "type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(
            schema["properties"]["inner"],
            json!({"$ref": "#/$defs/Inner"})
        );
        assert_eq!(
            schema["$defs"]["Inner"]["properties"]["every"],
            json!({"description": "How often.", "type": "integer", "minimum": 0, "maximum": 4_294_967_295u32})
        );
        // An item may be null; the union is spelled as one-type branches.
        assert_eq!(
            schema["properties"]["slots"]["items"],
            json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 65535}, {"type": "null"}]})
        );
    }

    #[allow(dead_code)]
    #[derive(serde::Serialize, JsonSchema)]
    struct Report {
        /// Always sent, sometimes null.
        note: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<u32>,
    }

    #[test]
    fn outputs_keep_the_nulls_they_send() {
        let schema = output_schema::<Report>().schema;
        assert_eq!(schema["required"], json!(["note"]));
        assert_eq!(
            schema["properties"]["note"],
            json!({"description": "Always sent, sometimes null.", "anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(
            schema["properties"]["extra"],
            json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295u32})
        );
        let validator = jsonschema::validator_for(&schema).expect("a valid schema");
        for report in [
            Report {
                note: None,
                extra: None,
            },
            Report {
                note: Some("n".into()),
                extra: Some(7),
            },
        ] {
            let value = serde_json::to_value(&report).expect("JSON");
            assert!(validator.is_valid(&value), "{value} against {schema}");
        }
        let wrapped = output_schema::<Option<u64>>().schema;
        assert_eq!(
            wrapped["properties"]["result"],
            json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": u64::MAX}, {"type": "null"}]})
        );
    }

    #[test]
    fn a_union_of_several_types_splits_its_keywords_by_type() {
        let mut schema = Schema::try_from(json!({
            "description": "d",
            "type": ["string", "integer", "null"],
            "maxLength": 3,
            "minimum": 1,
            "enum": ["a", 1, null],
        }))
        .expect("schema");
        Plain.transform(&mut schema);
        assert_eq!(
            schema.to_value(),
            json!({
                "description": "d",
                "anyOf": [
                    {"type": "string", "maxLength": 3},
                    {"type": "integer", "minimum": 1},
                    {"type": "null"},
                ],
                "enum": ["a", 1, null],
            })
        );
    }
}
