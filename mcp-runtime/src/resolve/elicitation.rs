//! Form questions from Rust types: the schema a client renders, restricted to what the protocol
//! allows in a form (flat objects of strings, numbers, integers, booleans, single- and
//! multi-select enums).

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// A form the user fills in: a flat struct deriving `mcp::Elicitation`.
///
/// Derive it with `#[derive(mcp::Elicitation)]`; by hand it looks like this:
///
/// ```
/// use mcp::resolve::{Elicitation, ElicitationField, FieldInfo, form_schema};
///
/// #[derive(serde::Deserialize)]
/// struct Region {
///     region: String,
/// }
///
/// impl Elicitation for Region {
///     const MESSAGE: &'static str = "Which region?";
///     fn requested_schema() -> serde_json::Value {
///         form_schema(&[("region", String::field_schema(FieldInfo::default()), true)])
///     }
/// }
///
/// let schema = Region::requested_schema();
/// assert_eq!(schema["properties"]["region"]["type"], "string");
/// assert_eq!(schema["required"][0], "region");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "not a form",
    note = "derive it: `#[derive(serde::Deserialize, mcp::Elicitation)]` on a struct with named fields"
)]
pub trait Elicitation: DeserializeOwned {
    /// What the user is asked (the struct's doc comment, or `#[elicitation(message = "…")]`).
    const MESSAGE: &'static str;

    /// The `requestedSchema` of the form.
    fn requested_schema() -> Value;
}

/// `content` with every field it leaves out given the `default` its schema declares, copied only
/// then: clients may omit a defaulted field (the TypeScript SDK does), and the form promised it
/// would still have one.
pub(crate) fn fill_defaults<'c>(
    content: &'c Map<String, Value>,
    schema: &Value,
) -> Cow<'c, Map<String, Value>> {
    let mut content = Cow::Borrowed(content);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return content;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.to_mut().insert(name.clone(), default.clone());
        }
    }
    content
}

/// Assembles `{"type":"object","properties":{…},"required":[…]}`.
pub fn form_schema(fields: &[(&str, Value, bool)]) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|(name, schema, _)| ((*name).to_owned(), schema.clone()))
        .collect();
    let required: Vec<Value> = fields
        .iter()
        .filter(|(_, _, required)| *required)
        .map(|(name, _, _)| Value::String((*name).to_owned()))
        .collect();
    let mut form = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        form["required"] = Value::Array(required);
    }
    form
}

/// What a field's attributes and doc comment add to its schema.
#[derive(Debug, Clone, Default)]
pub struct FieldInfo {
    /// `title`.
    pub title: Option<&'static str>,
    /// `description` (the doc comment).
    pub description: Option<&'static str>,
    /// `default`.
    pub default: Option<Value>,
    /// `format` of a string (`email`, `uri`, `date`, `date-time`).
    pub format: Option<&'static str>,
}

impl FieldInfo {
    fn apply(self, mut schema: Value) -> Value {
        if let Some(title) = self.title {
            schema["title"] = title.into();
        }
        if let Some(description) = self.description {
            schema["description"] = description.into();
        }
        if let Some(default) = self.default {
            schema["default"] = default;
        }
        if let Some(format) = self.format {
            schema["format"] = format.into();
        }
        schema
    }
}

/// A type that can be one field of a form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "forms are flat",
    note = "a form field is a `String`, an integer, a float, a `bool`, a fieldless enum deriving \
            `mcp::Elicitation`, a `Vec` of such an enum (multi-select), or an `Option` of these"
)]
pub trait ElicitationField {
    /// Whether the user must fill it in.
    const REQUIRED: bool = true;

    /// Its schema.
    fn field_schema(info: FieldInfo) -> Value;
}

/// A fieldless enum deriving `mcp::Elicitation`: a choice among its variants.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an enum of choices",
    label = "a multi-select field is a `Vec` of a fieldless enum",
    note = "derive `mcp::Elicitation` on a fieldless enum and use `Vec<ThatEnum>`"
)]
pub trait ElicitationEnum {
    /// The choices, in declaration order.
    const CHOICES: &'static [EnumChoice];
}

/// One choice of an [`ElicitationEnum`].
#[derive(Debug, Clone, Copy)]
pub struct EnumChoice {
    /// The value sent back (the variant's serde name).
    pub value: &'static str,
    /// A display label (the variant's doc comment).
    pub title: Option<&'static str>,
}

/// The single-select schema of `E` (titled when any choice has a title).
pub fn enum_schema<E: ElicitationEnum>(info: FieldInfo) -> Value {
    let schema = if E::CHOICES.iter().any(|c| c.title.is_some()) {
        let options: Vec<Value> = E::CHOICES
            .iter()
            .map(|c| json!({"const": c.value, "title": c.title.unwrap_or(c.value)}))
            .collect();
        json!({"type": "string", "oneOf": options})
    } else {
        let values: Vec<&str> = E::CHOICES.iter().map(|c| c.value).collect();
        json!({"type": "string", "enum": values})
    };
    info.apply(schema)
}

impl ElicitationField for String {
    fn field_schema(info: FieldInfo) -> Value {
        info.apply(json!({"type": "string"}))
    }
}

impl ElicitationField for bool {
    fn field_schema(info: FieldInfo) -> Value {
        info.apply(json!({"type": "boolean"}))
    }
}

macro_rules! integer_fields {
    ($($ty:ty),*) => {$(
        impl ElicitationField for $ty {
            fn field_schema(info: FieldInfo) -> Value {
                info.apply(json!({"type": "integer", "minimum": <$ty>::MIN, "maximum": <$ty>::MAX}))
            }
        }
    )*};
}

integer_fields!(i8, i16, i32, i64, u8, u16, u32, u64);

impl ElicitationField for f32 {
    fn field_schema(info: FieldInfo) -> Value {
        info.apply(json!({"type": "number"}))
    }
}

impl ElicitationField for f64 {
    fn field_schema(info: FieldInfo) -> Value {
        info.apply(json!({"type": "number"}))
    }
}

impl<T: ElicitationField> ElicitationField for Option<T> {
    const REQUIRED: bool = false;

    fn field_schema(info: FieldInfo) -> Value {
        T::field_schema(info)
    }
}

impl<E: ElicitationEnum> ElicitationField for Vec<E> {
    fn field_schema(info: FieldInfo) -> Value {
        let items = if E::CHOICES.iter().any(|c| c.title.is_some()) {
            let options: Vec<Value> = E::CHOICES
                .iter()
                .map(|c| json!({"const": c.value, "title": c.title.unwrap_or(c.value)}))
                .collect();
            json!({"anyOf": options})
        } else {
            let values: Vec<&str> = E::CHOICES.iter().map(|c| c.value).collect();
            json!({"type": "string", "enum": values})
        };
        info.apply(json!({"type": "array", "items": items}))
    }
}
