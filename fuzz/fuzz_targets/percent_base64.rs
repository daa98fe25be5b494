//! The decoders of text a request carries outside its JSON: routing-header values
//! (`decode_value`: plain visible ASCII, or UTF-8 as `=?base64?…?=`, between optional spaces
//! and tabs) and the percent-encoded variables of a resource URI (`percent_decode`).
//!
//! Besides "never panics": a decoded header reads back from what the client's encoder
//! (`header_value`) makes of it, and only canonical base64 decodes, so a value has one
//! encoding; any value the client sends decodes to itself. `percent_decode` takes `%` only
//! followed by two ASCII hex digits and agrees with a reference decoder on every input; text
//! percent-encoded here decodes back.

#![no_main]

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::__private::fuzzing::{decode_value, header_value, percent_decode};

#[derive(Arbitrary, Debug)]
enum Input {
    /// A header value's bytes as they arrive.
    HeaderBytes(Vec<u8>),
    /// The base64 of `bytes` with the character at `at` replaced by `with` (printable ASCII),
    /// inside the markers: near-valid, so the decoder's checks are reached often.
    Base64Header {
        framing: u8,
        bytes: Vec<u8>,
        at: u16,
        with: u8,
    },
    /// A value the client puts in a header.
    Sent(String),
    /// A URI variable as it arrives.
    Percent(String),
    /// A value percent-encoded here, in upper- or lower-case hex.
    Encoded { value: String, lower: bool },
}

const FRAMING: [&str; 4] = ["", " ", "\t", " \t "];

fn check_header(raw: &[u8]) {
    let Some(value) = decode_value(raw) else {
        return;
    };
    let text = std::str::from_utf8(raw)
        .expect("a readable header is UTF-8")
        .trim_matches([' ', '\t']);
    assert!(
        text.bytes().all(|b| (b' '..=b'~').contains(&b)),
        "{text:?} is not visible ASCII"
    );
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        Some(encoded) => assert_eq!(STANDARD.encode(value.as_bytes()), encoded, "non-canonical"),
        None => assert_eq!(value, text),
    }
    check_sent(&value);
}

fn check_sent(value: &str) {
    let header = header_value(value);
    assert_eq!(
        decode_value(header.as_bytes()).as_deref(),
        Some(value),
        "sent as {header:?}"
    );
}

/// Decodes `%XX` escapes, written apart from the runtime's decoder.
fn reference_decode(raw: &str) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut rest = raw.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        rest = tail;
        if first != b'%' {
            out.push(first);
            continue;
        }
        let [high, low, tail @ ..] = rest else {
            return None;
        };
        let digit = |b: u8| char::from(b).to_digit(16);
        out.push(u8::try_from(digit(*high)? * 16 + digit(*low)?).ok()?);
        rest = tail;
    }
    String::from_utf8(out).ok()
}

fn check_percent(raw: &str) {
    let decoded = percent_decode(raw);
    if decoded.is_some() {
        let bytes = raw.as_bytes();
        for (at, _) in raw.match_indices('%') {
            let escape = bytes.get(at + 1..at + 3);
            assert!(
                escape.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)),
                "accepted {raw:?}: % at {at} is not followed by two hex digits"
            );
        }
    }
    assert_eq!(decoded, reference_decode(raw), "{raw:?}");
}

fn percent_encode(value: &str, lower: bool) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ if lower => format!("%{b:02x}"),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fuzz_target!(|input: Input| {
    match input {
        Input::HeaderBytes(raw) => check_header(&raw),
        Input::Base64Header {
            framing,
            bytes,
            at,
            with,
        } => {
            let mut inner = STANDARD.encode(bytes).into_bytes();
            if !inner.is_empty() {
                let at = usize::from(at) % inner.len();
                inner[at] = b' ' + with % 95;
            }
            let pad = FRAMING[usize::from(framing) % FRAMING.len()];
            let mut raw = format!("{pad}=?base64?").into_bytes();
            raw.extend_from_slice(&inner);
            raw.extend_from_slice(format!("?={pad}").as_bytes());
            check_header(&raw);
        }
        Input::Sent(value) => check_sent(&value),
        Input::Percent(raw) => check_percent(&raw),
        Input::Encoded { value, lower } => {
            let encoded = percent_encode(&value, lower);
            assert_eq!(percent_decode(&encoded).as_deref(), Some(value.as_str()));
            check_percent(&encoded);
        }
    }
});
