//! What the macros write about a tool, prompt or resource besides its name and arguments:
//! icons (fixed at compile time) and `_meta` (an expression evaluated at registration).

use serde_json::Value;

use crate::protocol::{Icon, JsonObject};

/// An icon as `icons = [...]` writes it (checked by the macro: an `https:`/`http:` URL or a
/// `data:` URI, sizes `WxH` or `any`, theme `light` or `dark`).
#[derive(Debug, Clone, Copy)]
pub struct IconInfo {
    /// Where the image is.
    pub src: &'static str,
    /// Its MIME type, when the source's is missing or generic.
    pub mime_type: Option<&'static str>,
    /// The sizes it can be shown at.
    pub sizes: &'static [&'static str],
    /// The background it is drawn for.
    pub theme: Option<&'static str>,
}

impl IconInfo {
    fn to_icon(self) -> Icon {
        Icon {
            src: self.src.to_owned(),
            mime_type: self.mime_type.map(str::to_owned),
            sizes: (!self.sizes.is_empty())
                .then(|| self.sizes.iter().map(|s| (*s).to_owned()).collect()),
            theme: self.theme.map(str::to_owned),
        }
    }
}

/// The listing's `icons`: `None` when there are none, so the field is left out.
pub(crate) fn icons(infos: &[IconInfo]) -> Option<Vec<Icon>> {
    (!infos.is_empty()).then(|| infos.iter().map(|i| i.to_icon()).collect())
}

/// A value `meta = …` may give: a JSON object, as a `serde_json::Value` (`json!({…})`) or a
/// `serde_json::Map`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `_meta` of a tool, prompt or resource",
    label = "not a JSON object",
    note = "give a JSON object: `serde_json::json!({{\"key\": \"value\"}})` or a \
            `serde_json::Map<String, serde_json::Value>`"
)]
pub trait IntoMeta {
    /// The object, or what it is instead (reported by `McpServer::build`).
    fn into_meta(self) -> Result<JsonObject, String>;
}

#[diagnostic::do_not_recommend]
impl IntoMeta for JsonObject {
    fn into_meta(self) -> Result<JsonObject, String> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl IntoMeta for Value {
    fn into_meta(self) -> Result<JsonObject, String> {
        let kind = match self {
            Value::Object(object) => return Ok(object),
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
        };
        Err(format!("its `meta` is {kind}, not a JSON object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meta_must_be_an_object() {
        assert_eq!(
            json!({"a": 1}).into_meta().map(Value::Object),
            Ok(json!({"a": 1}))
        );
        assert_eq!(
            json!([1]).into_meta(),
            Err("its `meta` is an array, not a JSON object".to_owned())
        );
    }

    #[test]
    fn icons_leave_out_what_is_not_given() {
        assert_eq!(icons(&[]), None);
        let listed = icons(&[IconInfo {
            src: "https://example.com/a.png",
            mime_type: None,
            sizes: &[],
            theme: Some("dark"),
        }]);
        assert_eq!(
            serde_json::to_value(listed).ok(),
            Some(json!([{"src": "https://example.com/a.png", "theme": "dark"}]))
        );
    }
}
