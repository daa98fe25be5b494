//! Elicitation: asking the user, through the client, for a form or to visit a URL.

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::frozen::Frozen;
use super::jsonrpc::JsonObject;

/// What an `elicitation/create` asks.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitParams {
    /// A form: a flat object schema of primitive fields.
    Form {
        /// The question shown to the user.
        message: String,
        /// `{"type":"object","properties":{…},"required":[…]}`. Frozen: a form type's schema
        /// is built and written once, and sent with every question.
        requested_schema: Frozen<Value>,
    },
    /// An out-of-band interaction at a URL (consent to open it is the `accept`).
    Url {
        /// Why the user should open it.
        message: String,
        /// The URL.
        url: String,
        /// 2025-11-25: the server's id for this interaction, named again by its
        /// `notifications/elicitation/complete`. 2026-07-28 has no such id.
        elicitation_id: Option<String>,
    },
}

impl ElicitParams {
    /// A form question.
    pub fn form(message: impl Into<String>, requested_schema: impl Into<Frozen<Value>>) -> Self {
        ElicitParams::Form {
            message: message.into(),
            requested_schema: requested_schema.into(),
        }
    }

    /// A URL question (2026-07-28: without an `elicitationId`).
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitParams::Url {
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
        }
    }

    /// The `elicitationId` of a 2025-11-25 URL question.
    pub fn elicitation_id(&self) -> Option<&str> {
        match self {
            ElicitParams::Url { elicitation_id, .. } => elicitation_id.as_deref(),
            ElicitParams::Form { .. } => None,
        }
    }

    /// The question shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitParams::Form { message, .. } | ElicitParams::Url { message, .. } => message,
        }
    }
}

impl Serialize for ElicitParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        match self {
            ElicitParams::Form {
                message,
                requested_schema,
            } => {
                map.serialize_entry("mode", "form")?;
                map.serialize_entry("message", message)?;
                map.serialize_entry("requestedSchema", requested_schema)?;
            }
            ElicitParams::Url {
                message,
                url,
                elicitation_id,
            } => {
                map.serialize_entry("mode", "url")?;
                map.serialize_entry("message", message)?;
                map.serialize_entry("url", url)?;
                if let Some(id) = elicitation_id {
                    map.serialize_entry("elicitationId", id)?;
                }
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ElicitParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            mode: Option<String>,
            message: String,
            requested_schema: Option<Value>,
            url: Option<String>,
            elicitation_id: Option<String>,
        }
        let wire = Wire::deserialize(d)?;
        // A missing mode means form mode.
        match wire.mode.as_deref().unwrap_or("form") {
            "form" => Ok(ElicitParams::Form {
                message: wire.message,
                requested_schema: wire
                    .requested_schema
                    .ok_or_else(|| D::Error::missing_field("requestedSchema"))?
                    .into(),
            }),
            "url" => Ok(ElicitParams::Url {
                message: wire.message,
                url: wire.url.ok_or_else(|| D::Error::missing_field("url"))?,
                elicitation_id: wire.elicitation_id,
            }),
            other => Err(D::Error::unknown_variant(other, &["form", "url"])),
        }
    }
}

/// `notifications/elicitation/complete` params (2025-11-25): the out-of-band interaction of
/// a URL question is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteParams {
    /// The `elicitationId` of the URL question.
    pub elicitation_id: String,
}

/// The user's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or agreed to open the URL.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The answer to an `elicitation/create`.
///
/// ```
/// use mcp::protocol::{ElicitAction, ElicitResult};
/// let r: ElicitResult = serde_json::from_str(r#"{"action":"accept","content":{"region":"eu-west-1"}}"#).unwrap();
/// assert_eq!(r.action, ElicitAction::Accept);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form values, for an accepted form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

impl ElicitResult {
    /// An accepted form with these values.
    pub fn accept(content: JsonObject) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }

    /// An accepted URL question: the user agreed to go (no content).
    pub fn accept_url() -> Self {
        Self {
            action: ElicitAction::Accept,
            content: None,
        }
    }

    /// A declined question.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// A cancelled question.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}
