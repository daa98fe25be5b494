//! The answers of a call so far, carried between rounds in the (sealed) `requestState`.
//!
//! `{"v":1,"answers":{key:{"q":digest,"r":response}},"asked":{key:digest}}`: each answer is
//! pinned to the digest of the question exactly as it was rendered, and `asked` lists the
//! questions of the round just sent, so a fresh answer counts only for the question it answers.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
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
    pub asked: BTreeMap<String, QuestionDigest>,
}

/// One recorded answer and the question it answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub q: QuestionDigest,
    pub r: Value,
}

/// The length of a digest's text: 16 bytes in base64url.
const DIGEST_TEXT_LEN: usize = 22;

/// What [`question_digest`] gives: 22 characters of base64url, held inline since every round
/// computes, compares and records them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct QuestionDigest([u8; DIGEST_TEXT_LEN]);

impl QuestionDigest {
    fn as_str(&self) -> &str {
        // Only base64url, ASCII, gets in (`digest` and `visit_str`).
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl fmt::Debug for QuestionDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for QuestionDigest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for QuestionDigest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = QuestionDigest;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a question digest")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<QuestionDigest, E> {
                let bytes: [u8; DIGEST_TEXT_LEN] = text
                    .as_bytes()
                    .try_into()
                    .map_err(|_| E::invalid_length(text.len(), &self))?;
                if !bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
                {
                    return Err(E::invalid_value(de::Unexpected::Str(text), &self));
                }
                Ok(QuestionDigest(bytes))
            }
        }
        d.deserialize_str(Text)
    }
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
pub(crate) fn question_digest(request: &InputRequest) -> QuestionDigest {
    let value = serde_json::to_value(request).unwrap_or(Value::Null);
    let mut json = String::new();
    write_value(&mut json, &value, true);
    digest(&json)
}

/// [`question_digest`] of the form question `message` with `form`'s schema, without building
/// the request: the same sorted-key JSON, with the schema's part written once per form type.
pub(crate) fn form_digest(message: &str, form: &Form) -> QuestionDigest {
    let mut json = String::with_capacity(96 + message.len() + form.canonical.len());
    json.push_str(r#"{"method":"elicitation/create","params":{"message":"#);
    write_str(&mut json, message);
    json.push_str(r#","mode":"form","requestedSchema":"#);
    json.push_str(&form.canonical);
    json.push_str("}}");
    digest(&json)
}

fn digest(json: &str) -> QuestionDigest {
    let mut text = [0; DIGEST_TEXT_LEN];
    // 16 bytes take exactly the 22 characters there is room for.
    let _ = URL_SAFE_NO_PAD.encode_slice(&Sha256::digest(json.as_bytes())[..16], &mut text);
    QuestionDigest(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ElicitParams;

    #[test]
    fn a_ledger_reads_back_what_it_wrote_and_nothing_that_is_no_digest() {
        let digest = question_digest(&InputRequest::ListRoots);
        let expected = URL_SAFE_NO_PAD.encode(&Sha256::digest(br#"{"method":"roots/list"}"#)[..16]);
        assert_eq!(digest.as_str(), expected);
        assert_eq!(serde_json::to_value(digest).expect("json"), json!(expected));
        let mut ledger = Ledger::default();
        ledger.asked.insert("roots".to_owned(), digest);
        ledger.answers.insert(
            "region".to_owned(),
            Entry {
                q: digest,
                r: json!({"action": "decline"}),
            },
        );
        let read = Ledger::decode(Some(&ledger.encode()));
        assert_eq!(read.asked["roots"], digest);
        assert_eq!(read.answers["region"].q, digest);
        assert_eq!(read.answers["region"].r, json!({"action": "decline"}));

        let text = digest.as_str();
        for bad in [&text[1..], &format!("{text}A"), &format!("{}+", &text[1..])] {
            let state = format!(r#"{{"v":1,"asked":{{"roots":"{bad}"}}}}"#);
            assert!(Ledger::decode(Some(&state)).asked.is_empty(), "{bad}");
        }
        let state = format!(r#"{{"v":1,"asked":{{"roots":"{text}"}}}}"#);
        assert_eq!(Ledger::decode(Some(&state)).asked["roots"], digest);
    }

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
