//! A request's `_meta`, parsed once per distinct text and thread.
//!
//! On the 2026-07-28 wire every request carries the client's protocol version, capabilities
//! and self-description in `_meta`, and a client sends the same text each time. Parsing it
//! was a seventh of an echo's instructions, so each thread keeps the last `_meta` it parsed
//! beside its exact text: a request whose `_meta` is byte for byte that text shares the
//! parsed value. Parsing is a pure function of the text, so that is the value parsing would
//! have given. One entry per thread, of a bounded size: a client that varies its `_meta`
//! (a `progressToken`, a `traceparent`) costs a comparison and two copies of its text more.

use std::cell::RefCell;
use std::sync::Arc;

use crate::protocol::RequestMeta;

/// The longest `_meta` text kept: a usual one is about 250 bytes.
const MAX_KEPT: usize = 1024;

thread_local! {
    static LAST: RefCell<Option<(Box<str>, Arc<RequestMeta>)>> = const { RefCell::new(None) };
}

/// `_meta` read from its JSON text as it is read in place, one level inside the params
/// (`null` is `None`).
pub(super) fn parse(text: &str) -> Result<Option<Arc<RequestMeta>>, serde_json::Error> {
    if text.len() > MAX_KEPT {
        return read(text);
    }
    let hit = LAST.with_borrow(|last| match last {
        Some((kept, meta)) if **kept == *text => Some(Arc::clone(meta)),
        _ => None,
    });
    if hit.is_some() {
        return Ok(hit);
    }
    let meta = read(text)?;
    if let Some(meta) = &meta {
        LAST.set(Some((text.into(), Arc::clone(meta))));
    }
    Ok(meta)
}

/// The `_meta` kept, when `ahead` (text that is valid JSON, from where a `_meta` value starts)
/// starts with its text: that text's length and its value. Only an object is kept, and an
/// object's text ends at its own closing brace, so valid text that starts with it holds
/// that very value, whatever follows.
pub(super) fn kept_at_start(ahead: &str) -> Option<(usize, Arc<RequestMeta>)> {
    LAST.with_borrow(|last| match last {
        Some((kept, meta)) if kept.starts_with('{') && ahead.starts_with(&**kept) => {
            Some((kept.len(), Arc::clone(meta)))
        }
        _ => None,
    })
}

/// Reads `_meta` inside a one-element array, so that serde_json's limit on nesting (128
/// levels) counts the level the params object adds in place: a text nested one level too
/// deeply is refused alike either way.
fn read(text: &str) -> Result<Option<Arc<RequestMeta>>, serde_json::Error> {
    let [meta] = serde_json::from_str::<[Option<RequestMeta>; 1]>(&format!("[{text}]"))?;
    Ok(meta.map(Arc::new))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept() -> Option<String> {
        LAST.with_borrow(|last| last.as_ref().map(|(text, _)| text.to_string()))
    }

    #[test]
    fn a_text_seen_last_reads_as_it_parses_and_another_replaces_it() {
        let first = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"traceparent":"00-a"}"#;
        let second =
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7}"#;
        for text in [first, first, second, first] {
            let expected: Option<RequestMeta> = serde_json::from_str(text).expect("valid");
            assert_eq!(
                parse(text).expect("valid").as_deref(),
                expected.as_ref(),
                "{text}"
            );
            assert_eq!(kept().as_deref(), Some(text));
        }
        let again = |text| parse(text).expect("valid").expect("a _meta");
        assert!(Arc::ptr_eq(&again(first), &again(first)), "parsed once");
    }

    #[test]
    fn what_is_not_kept_is_still_read() {
        LAST.set(None);
        assert_eq!(parse("null").expect("null"), None);
        assert_eq!(kept(), None);
        let long = format!(r#"{{"x":"{}"}}"#, "a".repeat(MAX_KEPT));
        let meta = parse(&long).expect("valid").expect("a _meta");
        assert_eq!(meta.extra["x"].as_str().map(str::len), Some(MAX_KEPT));
        assert_eq!(kept(), None);
        assert!(parse(r#"{"progressToken":[]}"#).is_err());
        assert_eq!(kept(), None);
    }

    #[test]
    fn the_kept_text_is_recognised_at_the_start_of_what_follows_and_only_there() {
        let text = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let kept_meta = parse(text).expect("valid").expect("a _meta");
        let (len, meta) =
            kept_at_start(&format!(r#"{text},"name":"echo"}}"#)).expect("starts with it");
        assert_eq!(len, text.len());
        assert!(Arc::ptr_eq(&meta, &kept_meta));
        for other in [
            r#"{"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"name":"echo"}"#,
            r#" {"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-2"#,
        ] {
            assert!(kept_at_start(other).is_none(), "{other}");
        }
        LAST.set(None);
        assert!(kept_at_start(&format!("{text}}}")).is_none());
    }
}
