//! What each side can do: client capabilities (declared per request in 2026-07-28, once at
//! `initialize` in 2025-11-25) and server capabilities (advertised by discovery or `initialize`).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::jsonrpc::JsonObject;

/// The capabilities a client declares.
///
/// ```
/// use mcp::protocol::ClientCapabilities;
/// let caps: ClientCapabilities = serde_json::from_str(r#"{"elicitation":{}}"#).unwrap();
/// assert!(caps.supports_form_elicitation());
/// assert!(!caps.supports_url_elicitation());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// The client answers `roots/list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client answers `sampling/createMessage`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client answers `elicitation/create`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Extensions the client supports, keyed by extension id, each with its settings object
    /// (`{}` for none). A value that is not an object does not decode.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "extension_settings"
    )]
    pub extensions: Option<JsonObject>,
    /// The 2025-11-25 experimental tasks capability (ignored by this runtime).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<JsonObject>,
}

impl ClientCapabilities {
    /// Form-mode elicitation: declared as `elicitation: {}` or with `form`.
    pub fn supports_form_elicitation(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// URL-mode elicitation: declared with `elicitation.url`.
    pub fn supports_url_elicitation(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// `sampling/createMessage`.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Sampling with `tools` / `toolChoice`.
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// `roots/list`.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Declares extension `id` with no settings (`extensions: {id: {}}`), as a
    /// `requiredCapabilities` value names a missing extension.
    ///
    /// ```
    /// use mcp::protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_extension("io.modelcontextprotocol/tasks");
    /// assert_eq!(
    ///     serde_json::to_value(&caps)?,
    ///     serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    /// );
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn with_extension(mut self, id: impl Into<String>) -> Self {
        self.extensions
            .get_or_insert_with(JsonObject::new)
            .insert(id.into(), JsonObject::new().into());
        self
    }
}

/// The spec types each extension's settings as an object; one that is not cannot be read as
/// a declaration, so it is refused where it is decoded rather than misread by a handler.
fn extension_settings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<JsonObject>, D::Error> {
    let extensions = Option::<JsonObject>::deserialize(d)?;
    if let Some((id, _)) = extensions.iter().flatten().find(|(_, v)| !v.is_object()) {
        return Err(D::Error::custom(format_args!(
            "the settings of extension `{id}` are not an object"
        )));
    }
    Ok(extensions)
}

/// `roots` capability. `listChanged` exists only in 2025-11-25.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// 2025-11-25 only: the client notifies root changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `sampling` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// `includeContext` values other than `none` are honoured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Tool use inside sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// `elicitation` capability; `{}` alone means form mode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

/// The capabilities a server advertises.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Log notifications (deprecated in 2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// `completion/complete`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Prompts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// Resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Extensions the server supports, keyed by extension id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// A capability whose only option is change notification.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server notifies when the list changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Per-resource update notifications.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when the list changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ClientCapabilities;

    #[test]
    fn extension_settings_must_be_objects() {
        let declared: ClientCapabilities =
            serde_json::from_value(json!({"extensions": {"com.example/echo": {"loud": true}}}))
                .expect("an object of objects");
        let echo = declared.extensions.as_ref().map(|e| &e["com.example/echo"]);
        assert_eq!(echo, Some(&json!({"loud": true})));
        for bad in [
            json!({"extensions": {"com.example/echo": true}}),
            json!({"extensions": {"com.example/echo": {}, "com.example/other": []}}),
            json!({"extensions": ["com.example/echo"]}),
        ] {
            let error = serde_json::from_value::<ClientCapabilities>(bad.clone())
                .expect_err("not a declaration");
            assert!(
                bad["extensions"].is_array() || error.to_string().contains("not an object"),
                "{bad}: {error}"
            );
        }
        let none: ClientCapabilities =
            serde_json::from_value(json!({"extensions": null})).expect("null is no declaration");
        assert_eq!(none.extensions, None);
    }
}
