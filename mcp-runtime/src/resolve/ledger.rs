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
use crate::state::canonical::write_value;

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
    URL_SAFE_NO_PAD.encode(&Sha256::digest(json.as_bytes())[..16])
}
