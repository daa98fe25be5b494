//! The answers of a call so far, carried between rounds in the (sealed) `requestState`.
//!
//! Each answer is pinned to the digest of the question exactly as it was rendered, and `asked`
//! lists the questions of the round just sent, so a fresh answer counts only for the question
//! it answers.
//!
//! Written compactly, `L1` then one entry after another, lengths in decimal bytes:
//! `a{len}:{key}{digest}` for a question asked, `r{len}:{key}{digest}{len}:{response JSON}` for
//! an answer. The text sits in the token's claims as a JSON string: JSON of its own there would
//! have each of its quotes escaped on the way in and back out on the way out, which cost more
//! than the rest of the ledger. Tokens minted before (`{"v":1,"answers":{key:{"q":digest,
//! "r":response}},"asked":{key:digest}}`) are still read, until the last of them expires.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::protocol::InputRequest;
use crate::protocol::canonical::{write_str, write_value};
use crate::state::{SHORT_DIGEST_LEN, ShortDigest};

use super::forms::Form;

const VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
pub(crate) struct Ledger {
    v: u32,
    #[serde(default)]
    pub answers: BTreeMap<String, Entry>,
    #[serde(default)]
    pub asked: BTreeMap<String, QuestionDigest>,
}

/// One recorded answer and the question it answers.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Entry {
    pub q: QuestionDigest,
    pub r: Value,
}

/// What [`question_digest`] gives.
pub(crate) type QuestionDigest = ShortDigest;

impl Default for Ledger {
    fn default() -> Self {
        Self {
            v: VERSION,
            answers: BTreeMap::new(),
            asked: BTreeMap::new(),
        }
    }
}

/// What the compact form starts with.
const TAG: &str = "L1";

impl Ledger {
    /// The ledger in a round's plaintext state; anything unreadable means no progress yet.
    pub fn decode(state: Option<&str>) -> Self {
        let Some(state) = state else {
            return Self::default();
        };
        let read = match state.strip_prefix(TAG) {
            Some(entries) => Self::read(entries),
            None => serde_json::from_str::<Ledger>(state)
                .ok()
                .filter(|l| l.v == VERSION),
        };
        read.unwrap_or_default()
    }

    pub fn encode(&self) -> String {
        let mut out =
            String::with_capacity(TAG.len() + 32 * (self.asked.len() + self.answers.len()));
        out.push_str(TAG);
        for (key, digest) in &self.asked {
            out.push('a');
            write_text(&mut out, key);
            out.push_str(digest.as_str());
        }
        for (key, entry) in &self.answers {
            out.push('r');
            write_text(&mut out, key);
            out.push_str(entry.q.as_str());
            // Writing a JSON value to a string cannot fail.
            write_text(&mut out, &entry.r.to_string());
        }
        out
    }

    fn read(mut entries: &str) -> Option<Self> {
        let mut ledger = Self::default();
        while let Some(&kind) = entries.as_bytes().first() {
            // An entry's kind is one ASCII byte, so what follows starts at 1.
            let answered = match kind {
                b'a' => false,
                b'r' => true,
                _ => return None,
            };
            let (key, rest) = read_text(&entries[1..])?;
            let digest = QuestionDigest::read(rest.get(..SHORT_DIGEST_LEN)?)?;
            // The digest is ASCII: its end is a character's start.
            entries = &rest[SHORT_DIGEST_LEN..];
            if !answered {
                ledger.asked.insert(key.to_owned(), digest);
                continue;
            }
            let (json, rest) = read_text(entries)?;
            let response = serde_json::from_str(json).ok()?;
            ledger.answers.insert(
                key.to_owned(),
                Entry {
                    q: digest,
                    r: response,
                },
            );
            entries = rest;
        }
        Some(ledger)
    }
}

/// Appends `{len}:{text}`, its length in bytes.
fn write_text(out: &mut String, text: &str) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = write!(out, "{}:", text.len());
    out.push_str(text);
}

/// The text [`write_text`] wrote at the start of `from`, and what follows it.
fn read_text(from: &str) -> Option<(&str, &str)> {
    let (len, rest) = from.split_once(':')?;
    if len.is_empty() || len.len() > 10 || !len.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let len: usize = len.parse().ok()?;
    Some((rest.get(..len)?, rest.get(len..)?))
}

/// `base64url(SHA-256(sorted-key JSON of the request as sent)[..16])`: the same question, in
/// the same words, with the same schema, has the same digest on every instance and build.
pub(crate) fn question_digest(request: &InputRequest) -> QuestionDigest {
    let value = serde_json::to_value(request).unwrap_or(Value::Null);
    let mut json = String::new();
    write_value(&mut json, &value, true);
    ShortDigest::of(&json)
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
    ShortDigest::of(&json)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ElicitParams;

    fn ledger(
        asked: &[(&str, QuestionDigest)],
        answers: &[(&str, QuestionDigest, Value)],
    ) -> Ledger {
        let mut ledger = Ledger::default();
        for (key, digest) in asked {
            ledger.asked.insert((*key).to_owned(), *digest);
        }
        for (key, digest, response) in answers {
            let entry = Entry {
                q: *digest,
                r: response.clone(),
            };
            ledger.answers.insert((*key).to_owned(), entry);
        }
        ledger
    }

    /// The ledger as the maps it holds, to compare.
    fn contents(ledger: &Ledger) -> String {
        format!("{:?} {:?}", ledger.asked, ledger.answers)
    }

    #[test]
    fn a_ledger_reads_back_what_it_wrote() {
        let roots = question_digest(&InputRequest::ListRoots);
        let expected = ShortDigest::of(r#"{"method":"roots/list"}"#);
        assert_eq!(roots, expected);
        let expected = expected.as_str();
        let other = ShortDigest::of("another question");
        let cases = [
            ledger(&[], &[]),
            ledger(&[("region", roots)], &[]),
            ledger(
                &[("roots", roots), ("é \"quoted\" key:3:", other)],
                &[
                    (
                        "confirm",
                        other,
                        json!({"action": "accept", "content": {"ok": true}}),
                    ),
                    ("", roots, json!({"action": "decline", "note": "1:a\u{0}✓"})),
                    ("9", roots, json!(null)),
                ],
            ),
        ];
        for written in cases {
            let text = written.encode();
            assert!(text.starts_with(TAG), "{text}");
            assert_eq!(
                contents(&Ledger::decode(Some(&text))),
                contents(&written),
                "{text}"
            );
        }
        // The common case carries no quote for the claims to escape.
        let text = ledger(&[("region", roots)], &[]).encode();
        assert_eq!(text, format!("L1a6:region{expected}"));
    }

    #[test]
    fn a_ledger_in_the_earlier_json_form_is_still_read() {
        let roots = question_digest(&InputRequest::ListRoots);
        let text = format!(
            r#"{{"v":1,"answers":{{"confirm":{{"q":"{d}","r":{{"action":"decline"}}}}}},"asked":{{"roots":"{d}"}}}}"#,
            d = roots.as_str()
        );
        let read = Ledger::decode(Some(&text));
        assert_eq!(
            contents(&read),
            contents(&ledger(
                &[("roots", roots)],
                &[("confirm", roots, json!({"action": "decline"}))]
            ))
        );
        for bad in [&roots.as_str()[1..], &format!("{}+", &roots.as_str()[1..])] {
            let text = format!(r#"{{"v":1,"asked":{{"roots":"{bad}"}}}}"#);
            assert!(Ledger::decode(Some(&text)).asked.is_empty(), "{bad}");
        }
        assert!(
            Ledger::decode(Some(r#"{"v":2,"asked":{}}"#))
                .asked
                .is_empty()
        );
    }

    #[test]
    fn anything_else_reads_as_no_progress_and_never_panics() {
        let d = question_digest(&InputRequest::ListRoots);
        let d = d.as_str();
        let whole = format!("L1a1:k{d}r1:q{d}2:{{}}");
        assert_eq!(Ledger::decode(Some(&whole)).answers.len(), 1);
        let texts = vec![
            format!("L1x1:k{d}"),
            format!("L1a1:k{}", &d[1..]),
            format!("L1a1:k{}!", &d[1..]),
            format!("L1a9:k{d}"),
            format!("L1a:k{d}"),
            format!("L1a+1:k{d}"),
            format!("L1a99999999999:k{d}"),
            format!("L1r1:q{d}"),
            format!("L1r1:q{d}3:{{}}"),
            format!("L1r1:q{d}2:{{]"),
            format!("L1é1:k{d}"),
            format!("L1a1:é{d}"),
            "L2".to_owned(),
            "{".to_owned(),
            String::new(),
        ];
        for text in texts {
            let read = Ledger::decode(Some(&text));
            assert!(read.asked.is_empty() && read.answers.is_empty(), "{text:?}");
        }
        // Every cut of a whole ledger: only the one between its entries reads, as the first.
        let between = format!("L1a1:k{d}").len();
        for cut in 3..whole.len() {
            let read = Ledger::decode(Some(&whole[..cut]));
            let entries = read.asked.len() + read.answers.len();
            assert_eq!(entries, usize::from(cut == between), "{:?}", &whole[..cut]);
        }
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
