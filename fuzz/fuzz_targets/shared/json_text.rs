//! Writing JSON text by hand, for targets that build near-valid documents.

use std::fmt::Write as _;

/// `s` as a JSON string; with `escape_all`, every UTF-16 unit as a `\u` escape (a reader must
/// take both spellings alike).
pub fn write_string(out: &mut String, s: &str, escape_all: bool) {
    if !escape_all {
        out.push_str(&serde_json::to_string(s).expect("strings serialize"));
        return;
    }
    out.push('"');
    for unit in s.encode_utf16() {
        let _ = write!(out, "\\u{unit:04x}");
    }
    out.push('"');
}
