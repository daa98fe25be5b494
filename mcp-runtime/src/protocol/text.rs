//! Strings read in place from a message.

use std::borrow::Cow;
use std::ops::Deref;

use serde::Deserialize;

/// A JSON string borrowed from the input when it has no escapes, owned when it has.
///
/// Why not `Option<Cow<str>>` with `#[serde(borrow)]`: serde borrows only a `Cow` that is the
/// field itself, so inside an `Option` it allocates every time. Inside this newtype it is the
/// field, and the option around the newtype keeps it borrowed.
#[derive(Debug, Deserialize)]
pub(crate) struct Text<'a>(#[serde(borrow)] pub Cow<'a, str>);

impl Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        text: Option<Text<'a>>,
    }

    #[test]
    fn a_plain_string_is_borrowed_and_an_escaped_one_owned() {
        let plain: Probe<'_> = serde_json::from_str(r#"{"text":"tools/call"}"#).expect("json");
        assert!(matches!(
            plain.text,
            Some(Text(Cow::Borrowed("tools/call")))
        ));
        let escaped: Probe<'_> = serde_json::from_str(r#"{"text":"a\"b"}"#).expect("json");
        match escaped.text {
            Some(Text(Cow::Owned(s))) => assert_eq!(s, "a\"b"),
            other => panic!("expected an owned string, got {other:?}"),
        }
    }
}
