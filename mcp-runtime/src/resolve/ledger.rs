//! The answers of a call so far, carried between rounds in the (sealed) `requestState`.
//!
//! `{"v":1,"answers":{key:{"q":digest,"r":response}},"asked":{key:digest}}`: each answer is
//! pinned to the digest of the question exactly as it was rendered, and `asked` lists the
//! questions of the round just sent, so a fresh answer counts only for the question it answers.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::protocol::InputRequest;
use crate::protocol::canonical::{write_str, write_value};

use super::forms::Form;

const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Ledger {
    v: u32,
    #[serde(default)]
    pub answers: BTreeMap<String, Entry>,
    #[serde(default)]
    pub asked: BTreeMap<String, String>,
}

/// One recorded answer and the question it answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub q: String,
    pub r: Value,
}

impl Default for Ledger {
    fn default() -> Self {
        Self {
            v: VERSION,
            answers: BTreeMap::new(),
            asked: BTreeMap::new(),
        }
    }
}

impl Ledger {
    /// The ledger in a round's plaintext state; anything unreadable means no progress yet.
    pub fn decode(state: Option<&str>) -> Self {
        state
            .and_then(|s| serde_json::from_str::<Ledger>(s).ok())
            .filter(|l| l.v == VERSION)
            .unwrap_or_default()
    }

    pub fn encode(&self) -> String {
        // Serialising maps of strings and JSON values cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// `base64url(SHA-256(sorted-key JSON of the request as sent)[..16])`: the same question, in
/// the same words, with the same schema, has the same digest on every instance and build.
pub(crate) fn question_digest(request: &InputRequest) -> String {
    let value = serde_json::to_value(request).unwrap_or(Value::Null);
    let mut json = String::new();
    write_value(&mut json, &value, true);
    digest(&json)
}

/// [`question_digest`] of the form question `message` with `form`'s schema, without building
/// the request: the same sorted-key JSON, with the schema's part written once per form type.
pub(crate) fn form_digest(message: &str, form: &Form) -> String {
    let mut json = String::with_capacity(96 + message.len() + form.canonical.len());
    json.push_str(r#"{"method":"elicitation/create","params":{"message":"#);
    write_str(&mut json, message);
    json.push_str(r#","mode":"form","requestedSchema":"#);
    json.push_str(&form.canonical);
    json.push_str("}}");
    digest(&json)
}

fn digest(json: &str) -> String {
    URL_SAFE_NO_PAD.encode(&Sha256::digest(json.as_bytes())[..16])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ElicitParams;

    #[test]
    fn a_form_digest_is_the_digest_of_the_question_as_sent() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "enum": ["eu-west-1", "us-east-1"], "title": "Région"},
                "count": {"type": "integer", "minimum": 0, "maximum": 9, "default": 1}
            },
            "required": ["region"]
        });
        let form = Form::new(schema.clone());
        // Twice over, so the remembered digest is checked on a repeat and on a change.
        for message in [
            "Which region?",
            "Which region?",
            "Put \"orders\" in\nwhich région? ✓ \u{1F600}",
            "",
            "Which region?",
        ] {
            let request = InputRequest::Elicit(ElicitParams::form(message, schema.clone()));
            assert_eq!(
                form_digest(message, &form),
                question_digest(&request),
                "{message:?}"
            );
            assert_eq!(
                form.question_digest(message),
                question_digest(&request),
                "{message:?}"
            );
        }
        let other = InputRequest::Elicit(ElicitParams::form("Which region??", schema));
        assert_ne!(form_digest("Which region?", &form), question_digest(&other));
    }
}
