//! The 2026-07-28 routing headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`): intermediaries route on them without reading the body, so a header that
//! disagrees with the body would let a request be routed as one thing and executed as another.

use std::borrow::Cow;

use axum::http::header::{AsHeaderName, HeaderName};
use axum::http::{HeaderMap, HeaderValue, header};
use base64::Engine as _;
use serde_json::Value;

use crate::protocol::McpError;

// Parsed once, not on every lookup.
pub(super) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(super) const METHOD: HeaderName = HeaderName::from_static("mcp-method");
pub(super) const NAME: HeaderName = HeaderName::from_static("mcp-name");
pub(super) const PARAM_PREFIX: &str = "mcp-param-";
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// Decodes a header value: surrounding whitespace is framing, `=?base64?…?=` carries values that
/// are not plain ASCII. `None` when the value is unreadable.
pub fn decode_value(raw: &[u8]) -> Option<Cow<'_, str>> {
    decode_text(std::str::from_utf8(raw).ok()?)
}

/// [`decode_value`] of a header as it arrived. `to_str` admits only visible ASCII and tabs,
/// and checks that itself, so the bytes need no second check as UTF-8.
fn decode_header(value: &HeaderValue) -> Option<Cow<'_, str>> {
    decode_text(value.to_str().ok()?)
}

fn decode_text(text: &str) -> Option<Cow<'_, str>> {
    let text = text.trim_matches(|c| c == ' ' || c == '\t');
    if !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return None;
    }
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(text)),
    }
}

/// The value of a header the server decides on, or `Err` when it is sent more than once:
/// an intermediary may act on one copy and the server on another, so neither is taken.
pub(super) fn single(
    headers: &HeaderMap,
    name: impl AsHeaderName,
) -> Result<Option<&HeaderValue>, Repeated> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    match values.next() {
        Some(_) => Err(Repeated),
        None => Ok(first),
    }
}

/// A header the server decides on was sent more than once.
#[derive(Debug)]
pub(super) struct Repeated;

/// How often a request sent one header, and its value when once.
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum Seen<'h> {
    #[default]
    Absent,
    Once(&'h HeaderValue),
    Repeated,
}

impl<'h> Seen<'h> {
    /// As [`single`] reads the header.
    pub fn single(self) -> Result<Option<&'h HeaderValue>, Repeated> {
        match self {
            Seen::Absent => Ok(None),
            Seen::Once(value) => Ok(Some(value)),
            Seen::Repeated => Err(Repeated),
        }
    }

    fn add(&mut self, value: &'h HeaderValue) {
        *self = match self {
            Seen::Absent => Seen::Once(value),
            _ => Seen::Repeated,
        };
    }
}

/// The headers a POST to the endpoint is decided on, found in one pass over the request's
/// headers, and the headers themselves for the rest. Looked up one by one, each lookup hashes
/// its name and probes the map: together they cost more than the pass, which compares names
/// (the standard ones by their tag).
#[derive(Debug)]
pub(super) struct Decisive<'h> {
    /// Every header of the request, these included.
    pub all: &'h HeaderMap,
    pub host: Seen<'h>,
    pub origin: Seen<'h>,
    pub content_type: Seen<'h>,
    pub accept: Seen<'h>,
    pub protocol_version: Seen<'h>,
    pub method: Seen<'h>,
    pub name: Seen<'h>,
}

impl<'h> Decisive<'h> {
    pub fn of(headers: &'h HeaderMap) -> Self {
        let mut found = Self {
            all: headers,
            host: Seen::Absent,
            origin: Seen::Absent,
            content_type: Seen::Absent,
            accept: Seen::Absent,
            protocol_version: Seen::Absent,
            method: Seen::Absent,
            name: Seen::Absent,
        };
        for (name, value) in headers {
            let slot = if *name == header::HOST {
                &mut found.host
            } else if *name == header::CONTENT_TYPE {
                &mut found.content_type
            } else if *name == header::ACCEPT {
                &mut found.accept
            } else if *name == header::ORIGIN {
                &mut found.origin
            } else if *name == METHOD {
                &mut found.method
            } else if *name == NAME {
                &mut found.name
            } else if *name == PROTOCOL_VERSION {
                &mut found.protocol_version
            } else {
                continue;
            };
            slot.add(value);
        }
        found
    }

    /// [`accepts`], looking the map up only for an `Accept` header sent on several lines.
    pub fn accepts(&self, media: &str) -> bool {
        match self.accept {
            Seen::Absent => true,
            Seen::Once(line) => admits(std::iter::once(line), media),
            Seen::Repeated => accepts(self.all, media),
        }
    }
}

/// Reads one header, decoded. `Ok(None)` when absent; `Err` when present but unreadable, or
/// sent more than once.
pub(super) fn header<'h>(
    headers: &'h HeaderMap,
    name: impl AsHeaderName + std::fmt::Display + Copy,
) -> Result<Option<Cow<'h, str>>, McpError> {
    decoded(single(headers, name), name)
}

/// [`header`] of a header [`Decisive`] found.
fn decisive<'h>(seen: Seen<'h>, name: &HeaderName) -> Result<Option<Cow<'h, str>>, McpError> {
    decoded(seen.single(), name)
}

fn decoded<'h>(
    value: Result<Option<&'h HeaderValue>, Repeated>,
    name: impl std::fmt::Display,
) -> Result<Option<Cow<'h, str>>, McpError> {
    let value = value
        .map_err(|Repeated| McpError::header_mismatch(format!("Header {name} is sent twice")))?;
    match value {
        None => Ok(None),
        Some(v) => decode_header(v)
            .map(Some)
            .ok_or_else(|| McpError::header_mismatch(format!("Header {name} is not readable"))),
    }
}

/// What the body says, for comparison with the headers.
pub(super) struct BodyFacts<'a> {
    pub method: &'a str,
    pub protocol_version: &'a str,
    /// For methods that name a target (`params.name` of tools/call and prompts/get,
    /// `params.uri` of resources/read, the routing field of an extension's method): that
    /// value, if the body has one as a string.
    pub name: Option<Option<&'a str>>,
}

/// Checks the routing headers of a 2026-07-28 request against its body.
pub(super) fn check_routing(sent: &Decisive<'_>, body: &BodyFacts<'_>) -> Result<(), McpError> {
    let version = decisive(sent.protocol_version, &PROTOCOL_VERSION)?
        .ok_or_else(|| McpError::header_mismatch("Missing MCP-Protocol-Version header"))?;
    if version != body.protocol_version {
        return Err(McpError::header_mismatch(format!(
            "MCP-Protocol-Version header {version:?} does not match _meta protocol version {:?}",
            body.protocol_version
        )));
    }
    let method = decisive(sent.method, &METHOD)?
        .ok_or_else(|| McpError::header_mismatch("Missing Mcp-Method header"))?;
    if method != body.method {
        return Err(McpError::header_mismatch(format!(
            "Mcp-Method header {method:?} does not match the body method {:?}",
            body.method
        )));
    }
    if let Some(expected) = body.name {
        let name = decisive(sent.name, &NAME)?
            .ok_or_else(|| McpError::header_mismatch("Missing Mcp-Name header"))?;
        if expected != Some(name.as_ref()) {
            return Err(McpError::header_mismatch(format!(
                "Mcp-Name header {name:?} does not match the body"
            )));
        }
    }
    Ok(())
}

/// Checks `Mcp-Param-*` headers against the arguments of a tool whose input schema marks
/// properties with `x-mcp-header`.
pub(super) fn check_params(
    headers: &HeaderMap,
    bindings: &[(String, String)],
    arguments: Option<&Value>,
) -> Result<(), McpError> {
    for (property, header_name) in bindings {
        let full = format!("{PARAM_PREFIX}{}", header_name.to_ascii_lowercase());
        let value = arguments
            .and_then(|a| a.get(property))
            .filter(|v| !v.is_null());
        let sent = header(headers, full.as_str())?;
        match (value, sent) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(McpError::header_mismatch(format!(
                    "Mcp-Param-{header_name} sent without a {property} argument"
                )));
            }
            (Some(_), None) => {
                return Err(McpError::header_mismatch(format!(
                    "Missing Mcp-Param-{header_name} header for argument {property}"
                )));
            }
            (Some(v), Some(sent)) => {
                if !same_value(v, &sent) {
                    return Err(McpError::header_mismatch(format!(
                        "Mcp-Param-{header_name} header does not match argument {property}"
                    )));
                }
            }
        }
    }
    Ok(())
}

fn same_value(body: &Value, header: &str) -> bool {
    match body {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        // Integers compare numerically so `007` and `7` agree.
        Value::Number(n) => match (n.as_i64(), header.parse::<i64>()) {
            (Some(a), Ok(b)) => a == b,
            _ => match (n.as_u64(), header.parse::<u64>()) {
                (Some(a), Ok(b)) => a == b,
                _ => false,
            },
        },
        _ => false,
    }
}

/// Whether the `Accept` header admits `media` (a missing header admits everything). Several
/// `Accept` lines are one list (RFC 9110 §5.3).
pub(super) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let mut lines = headers.get_all(header::ACCEPT).iter().peekable();
    lines.peek().is_none() || admits(lines, media)
}

fn admits<'a>(lines: impl Iterator<Item = &'a HeaderValue>, media: &str) -> bool {
    let media = media.as_bytes();
    let kind = media.split(|&b| b == b'/').next().unwrap_or(media);
    // A line that is not visible ASCII is skipped whole. Bytes, not `str`: splitting and
    // trimming text cost a thousand instructions on every request for a one-line header.
    lines
        .filter(|line| line.to_str().is_ok())
        .flat_map(|line| line.as_bytes().split(|&b| b == b','))
        .any(|item| {
            let range = item.split(|&b| b == b';').next().unwrap_or(item);
            let range = range.trim_ascii();
            range.eq_ignore_ascii_case(media)
                || range == b"*/*"
                || range
                    .strip_suffix(b"/*")
                    .is_some_and(|k| k.eq_ignore_ascii_case(kind))
        })
}

/// The `(property, header name)` pairs an input schema marks with `x-mcp-header`.
pub(super) fn header_bindings(input_schema: &Value) -> Vec<(String, String)> {
    input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter_map(|(name, schema)| {
                    let header = schema.get("x-mcp-header")?.as_str()?;
                    Some((name.clone(), header.to_owned()))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_plain_trimmed_and_base64_values() {
        assert_eq!(
            decode_value(b"  tools/call ").as_deref(),
            Some("tools/call")
        );
        assert_eq!(
            decode_value(b"=?base64?5pel5pys6Kqe?=").as_deref(),
            Some("日本語")
        );
        assert_eq!(decode_value(b"=?base64?!!!?="), None);
        assert_eq!(decode_value(b"a\x01b"), None);
        assert_eq!(decode_value(b"\t x y\t ").as_deref(), Some("x y"));
        assert_eq!(decode_value(b" \t ").as_deref(), Some(""));
        assert_eq!(decode_value(b"").as_deref(), Some(""));
        assert_eq!(decode_value("é".as_bytes()), None);
        assert_eq!(decode_value(b"a\x7f"), None);
        assert_eq!(decode_value(b"\xff"), None);
    }

    #[test]
    fn a_header_decodes_as_its_bytes_do() {
        // Every byte a header value may hold (control characters and DEL may not).
        let values: [&[u8]; 13] = [
            b"tools/call",
            b"  tools/call \t",
            b"a\tb",
            b"\t",
            b"",
            b"=?base64?5pel5pys6Kqe?=",
            b" =?base64?5pel5pys6Kqe?= ",
            b"=?base64?!!!?=",
            b"=?base64?/w==?=",
            "é".as_bytes(),
            b"\xff",
            b"x\x80y",
            b"\"quoted\", {x}",
        ];
        for raw in values {
            let value = HeaderValue::from_bytes(raw).expect("a header value");
            assert_eq!(decode_header(&value), decode_value(raw), "{raw:?}");
        }
        assert_eq!(decode_header(&HeaderValue::from_static("a\tb")), None);
    }

    /// Whether two readings of a header are the same: absent, repeated, or the same value.
    fn same(seen: Seen<'_>, looked_up: Result<Option<&HeaderValue>, Repeated>) -> bool {
        match (seen.single(), looked_up) {
            (Ok(a), Ok(b)) => a == b,
            (Err(Repeated), Err(Repeated)) => true,
            _ => false,
        }
    }

    #[test]
    fn one_pass_finds_what_lookups_find() {
        let names = [
            "host",
            "origin",
            "content-type",
            "accept",
            "mcp-protocol-version",
            "mcp-method",
            "mcp-name",
            "mcp-param-region",
            "mcp-session-id",
            "x-other",
        ];
        let mut rng = crate::test_rng::Rng(0x4ea_d0e5);
        for _ in 0..2_000 {
            let mut headers = HeaderMap::new();
            for i in 0..rng.below(12) {
                let name = HeaderName::from_static(rng.pick::<&str>(&names));
                headers.append(name, HeaderValue::from(i));
            }
            let sent = Decisive::of(&headers);
            let pairs = [
                (sent.host, header::HOST),
                (sent.origin, header::ORIGIN),
                (sent.content_type, header::CONTENT_TYPE),
                (sent.accept, header::ACCEPT),
                (sent.protocol_version, PROTOCOL_VERSION),
                (sent.method, METHOD),
                (sent.name, NAME),
            ];
            for (seen, name) in pairs {
                assert!(same(seen, single(&headers, &name)), "{name} in {headers:?}");
            }
        }
    }

    #[test]
    fn accept_lists_admit_as_rfc_9110_reads_them() {
        let admits = |lines: &[&[u8]], media: &str| {
            let mut headers = HeaderMap::new();
            for line in lines {
                headers.append(
                    header::ACCEPT,
                    HeaderValue::from_bytes(line).expect("a header value"),
                );
            }
            let admitted = accepts(&headers, media);
            assert_eq!(Decisive::of(&headers).accepts(media), admitted, "{lines:?}");
            admitted
        };
        const JSON: &str = "application/json";
        const SSE: &str = "text/event-stream";
        assert!(admits(&[], JSON), "no Accept admits everything");
        for (lines, json, sse) in [
            (
                &[&b"application/json, text/event-stream"[..]][..],
                true,
                true,
            ),
            (&[b"text/event-stream"], false, true),
            (&[b"Application/JSON;q=0.9"], true, false),
            (&[b" \t application/json ;q=1 , text/html"], true, false),
            (&[b"*/*"], true, true),
            (&[b"text/*;q=0.5"], false, true),
            (&[b"TEXT/*"], false, true),
            (&[b"application/*, image/png"], true, false),
            (&[b"text/html", b"application/json"], true, false),
            (&[b"", b","], false, false),
            (&[b"application/jsonx", b"text/event-stream2"], false, false),
            (&[b"*/json"], false, false),
            // A line that is not visible ASCII counts for nothing, the others still do.
            (
                &[b"application/json \xff", b"text/event-stream"],
                false,
                true,
            ),
        ] {
            let shown = format!("{lines:?}");
            assert_eq!(admits(lines, JSON), json, "{shown} admits {JSON}");
            assert_eq!(admits(lines, SSE), sse, "{shown} admits {SSE}");
        }
    }

    #[test]
    fn integers_compare_numerically() {
        assert!(same_value(&serde_json::json!(7), "007"));
        assert!(!same_value(&serde_json::json!(7), "8"));
        assert!(same_value(&serde_json::json!(true), "true"));
    }
}
