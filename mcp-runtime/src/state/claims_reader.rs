//! Reading an opened token's claims envelope: a JSON reader for exactly the claims of version 1.
//!
//! Written by hand rather than derived with serde because it runs on every inbound token and
//! the derived reader was a third of the cost of opening one (BENCHMARKS.md, "Sealing"). It
//! reads RFC 8259 JSON and nothing looser: one object, optional whitespace around its tokens,
//! string escapes checked (a lone surrogate is refused), numbers by the JSON grammar and finite.
//! Of that object it takes only what a version-1 envelope holds:
//!
//! - members `v`, `iat`, `exp` (numbers) and `s` (a string) are required;
//! - `m`, `t`, `a`, `aud`, `p` are strings, or `null` or absent, which read alike;
//! - any other member, a member given twice, or a value of another type refuses the envelope.
//!
//! The state `s` is left where it lies, so opening a token does not copy it into a new buffer:
//! [`StateText::into_string`] turns the envelope's own buffer into the state.

use std::borrow::Cow;
use std::ops::Range;

/// The claims of an envelope as read; none of them is checked yet.
pub(super) struct Claims<'a> {
    pub v: f64,
    pub iat: f64,
    pub exp: f64,
    pub m: Option<Cow<'a, str>>,
    pub t: Option<Cow<'a, str>>,
    pub a: Option<Cow<'a, str>>,
    pub aud: Option<Cow<'a, str>>,
    pub p: Option<Cow<'a, str>>,
    pub s: StateText,
}

/// Where the state string lies in the envelope, between its quotes and still escaped.
pub(super) struct StateText {
    span: Range<usize>,
    escaped: bool,
}

impl StateText {
    /// The state, made in the buffer of the `envelope` it was read from; `None` only if that
    /// is not the envelope it was read from.
    pub(super) fn into_string(self, mut envelope: Vec<u8>) -> Option<String> {
        let len = if self.escaped {
            unescape_within(&mut envelope, self.span, 0)?
        } else {
            envelope.get(self.span.clone())?;
            envelope.copy_within(self.span.clone(), 0);
            self.span.len()
        };
        envelope.truncate(len);
        String::from_utf8(envelope).ok()
    }
}

/// Reads the envelope `text`, or `None` if it is not one.
pub(super) fn read(text: &str) -> Option<Claims<'_>> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    reader.object()
}

/// A string token: its content's span, and whether that holds escapes.
struct JsonStr {
    span: Range<usize>,
    escaped: bool,
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

/// The members an envelope may have, each one bit of the set already read.
const V: u16 = 1;
const IAT: u16 = 1 << 1;
const EXP: u16 = 1 << 2;
const M: u16 = 1 << 3;
const T: u16 = 1 << 4;
const A: u16 = 1 << 5;
const S: u16 = 1 << 6;
const AUD: u16 = 1 << 7;
const P: u16 = 1 << 8;

impl<'a> Reader<'a> {
    fn object(&mut self) -> Option<Claims<'a>> {
        let (mut v, mut iat, mut exp, mut s) = (None, None, None, None);
        let (mut m, mut t, mut a, mut aud, mut p) = (None, None, None, None, None);
        let mut seen = 0u16;
        self.skip_whitespace();
        self.eat(b'{')?;
        self.skip_whitespace();
        if !self.eat_if(b'}') {
            loop {
                let member = self.key()?;
                if seen & member != 0 {
                    return None;
                }
                seen |= member;
                self.skip_whitespace();
                self.eat(b':')?;
                self.skip_whitespace();
                match member {
                    V => v = Some(self.number()?),
                    IAT => iat = Some(self.number()?),
                    EXP => exp = Some(self.number()?),
                    S => {
                        let JsonStr { span, escaped } = self.string()?;
                        s = Some(StateText { span, escaped });
                    }
                    M => m = self.nullable_text()?,
                    T => t = self.nullable_text()?,
                    A => a = self.nullable_text()?,
                    AUD => aud = self.nullable_text()?,
                    _ => p = self.nullable_text()?,
                }
                self.skip_whitespace();
                if self.eat_if(b'}') {
                    break;
                }
                self.eat(b',')?;
                self.skip_whitespace();
            }
        }
        self.skip_whitespace();
        if self.at != self.bytes.len() {
            return None;
        }
        Some(Claims {
            v: v?,
            iat: iat?,
            exp: exp?,
            m,
            t,
            a,
            aud,
            p,
            s: s?,
        })
    }

    /// The member a key names; `None` for a key no envelope has.
    fn key(&mut self) -> Option<u16> {
        // Keys as every writer spells them, without escapes, are matched in place.
        let (member, len) = match self.bytes.get(self.at..)? {
            [b'"', b'v', b'"', ..] => (V, 3),
            [b'"', b'm', b'"', ..] => (M, 3),
            [b'"', b't', b'"', ..] => (T, 3),
            [b'"', b'a', b'"', ..] => (A, 3),
            [b'"', b's', b'"', ..] => (S, 3),
            [b'"', b'p', b'"', ..] => (P, 3),
            [b'"', b'i', b'a', b't', b'"', ..] => (IAT, 5),
            [b'"', b'e', b'x', b'p', b'"', ..] => (EXP, 5),
            [b'"', b'a', b'u', b'd', b'"', ..] => (AUD, 5),
            _ => {
                let key = self.string()?;
                return match &*self.text_of(&key)? {
                    "v" => Some(V),
                    "iat" => Some(IAT),
                    "exp" => Some(EXP),
                    "m" => Some(M),
                    "t" => Some(T),
                    "a" => Some(A),
                    "s" => Some(S),
                    "aud" => Some(AUD),
                    "p" => Some(P),
                    _ => None,
                };
            }
        };
        self.at += len;
        Some(member)
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn eat_if(&mut self, byte: u8) -> bool {
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.eat_if(byte).then_some(())
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - start
    }

    /// A JSON number (`-? int frac? exp?`, no leading zeros), read as the nearest finite `f64`.
    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        self.eat_if(b'-');
        match self.bytes.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.eat_if(b'.') && self.digits() == 0 {
            return None;
        }
        if self.eat_if(b'e') || self.eat_if(b'E') {
            if !self.eat_if(b'+') {
                self.eat_if(b'-');
            }
            if self.digits() == 0 {
                return None;
            }
        }
        let number: f64 = self.text.get(start..self.at)?.parse().ok()?;
        number.is_finite().then_some(number)
    }

    /// A string, or `null` as `None`; `None` outside when it is neither.
    fn nullable_text(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.bytes[self.at..].starts_with(b"null") {
            self.at += "null".len();
            return Some(None);
        }
        let string = self.string()?;
        Some(Some(self.text_of(&string)?))
    }

    /// A string token; its escapes are checked, not yet decoded.
    fn string(&mut self) -> Option<JsonStr> {
        self.eat(b'"')?;
        let start = self.at;
        let mut escaped = false;
        loop {
            self.at += plain_len(&self.bytes[self.at..]);
            match *self.bytes.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(JsonStr {
                        span: start..self.at - 1,
                        escaped,
                    });
                }
                b'\\' => {
                    escaped = true;
                    let (_, used) = escape(&self.bytes[self.at + 1..])?;
                    self.at += 1 + used;
                }
                // A control character, which JSON strings must escape.
                _ => return None,
            }
        }
    }

    fn text_of(&self, string: &JsonStr) -> Option<Cow<'a, str>> {
        let raw = self.text.get(string.span.clone())?;
        if !string.escaped {
            return Some(Cow::Borrowed(raw));
        }
        let mut owned = raw.as_bytes().to_vec();
        let len = unescape_within(&mut owned, 0..raw.len(), 0)?;
        owned.truncate(len);
        String::from_utf8(owned).ok().map(Cow::Owned)
    }
}

/// The length of the leading run of bytes a JSON string holds as they are (anything but `"`,
/// `\\` and control characters), checked eight bytes at a time.
fn plain_len(bytes: &[u8]) -> usize {
    use crate::protocol::canonical::swar::{self, ONES, below};
    swar::leading_run(bytes, |x| {
        below(x, 0x20)
            | below(x ^ (ONES * u64::from(b'"')), 1)
            | below(x ^ (ONES * u64::from(b'\\')), 1)
    })
}

/// The character an escape stands for and how many bytes after its backslash it spans, or
/// `None` if it is not a JSON escape (a lone or reversed surrogate is not).
fn escape(after: &[u8]) -> Option<(char, usize)> {
    let simple = match *after.first()? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(after.get(1..5)?)?;
            return match unit {
                0xD800..=0xDBFF => {
                    let low = match after.get(5..11)? {
                        [b'\\', b'u', rest @ ..] => hex4(rest)?,
                        _ => return None,
                    };
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    Some((char::from_u32(code)?, 11))
                }
                _ => Some((char::from_u32(unit)?, 5)),
            };
        }
        _ => return None,
    };
    Some((simple, 1))
}

fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0, |value, &digit| {
        Some((value << 4) | char::from(digit).to_digit(16)?)
    })
}

/// Decodes the escaped string content at `from` in `buf`, writing it from `to` (at most
/// `from.start`, so nothing is overwritten before it is read); returns the end of what it wrote.
fn unescape_within(buf: &mut [u8], from: Range<usize>, to: usize) -> Option<usize> {
    let (mut read, end, mut write) = (from.start, from.end, to);
    if write > read || end > buf.len() {
        return None;
    }
    while read < end {
        let run = buf[read..end]
            .iter()
            .position(|&b| b == b'\\')
            .unwrap_or(end - read);
        buf.copy_within(read..read + run, write);
        read += run;
        write += run;
        if read == end {
            break;
        }
        let (decoded, used) = escape(buf.get(read + 1..end)?)?;
        read += 1 + used;
        // An escape spans at least as many bytes as the character's UTF-8.
        let mut utf8 = [0u8; 4];
        let utf8 = decoded.encode_utf8(&mut utf8).as_bytes();
        buf[write..write + utf8.len()].copy_from_slice(utf8);
        write += utf8.len();
    }
    Some(write)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENUINE: &str = r#"{"v":1,"iat":1000.5,"exp":1600.5,"m":"tools/call","t":"deploy","a":"RBNvo1WzZ4oRRq0W9-hkng","s":"plain","aud":"svc","p":"c2FsdA"}"#;

    fn state(text: &str) -> Option<String> {
        read(text)?.s.into_string(text.as_bytes().to_vec())
    }

    #[test]
    fn the_plain_run_stops_at_the_first_byte_a_string_must_escape() {
        for special in [0u8, 0x1f, b'"', b'\\'] {
            for len in 1..20 {
                for at in 0..len {
                    // Non-ASCII and DEL are held as they are; only `special` ends the run.
                    let mut bytes: Vec<u8> = (0..len).map(|i| [b'a', 0x7f, 0xc3][i % 3]).collect();
                    bytes[at] = special;
                    assert_eq!(plain_len(&bytes), at, "{special:#x} at {at} of {len}");
                }
            }
        }
        assert_eq!(plain_len(b"abc\x7f\xff"), 5);
        assert_eq!(plain_len(b""), 0);
    }

    #[test]
    fn a_genuine_envelope_reads_every_claim() {
        let claims = read(GENUINE).expect("an envelope");
        assert_eq!((claims.v, claims.iat, claims.exp), (1.0, 1000.5, 1600.5));
        assert_eq!(claims.m.as_deref(), Some("tools/call"));
        assert_eq!(claims.t.as_deref(), Some("deploy"));
        assert_eq!(claims.a.as_deref(), Some("RBNvo1WzZ4oRRq0W9-hkng"));
        assert_eq!(claims.aud.as_deref(), Some("svc"));
        assert_eq!(claims.p.as_deref(), Some("c2FsdA"));
        assert_eq!(state(GENUINE).as_deref(), Some("plain"));
    }

    #[test]
    fn members_in_any_order_with_whitespace_read_alike() {
        let text =
            " {\n\"s\" : \"plain\" ,\t\"exp\":1600.5,\"v\":1.0,\"iat\":1000.5e0, \"m\":null }\r\n";
        let claims = read(text).expect("an envelope");
        assert_eq!((claims.v, claims.iat, claims.exp), (1.0, 1000.5, 1600.5));
        assert!(claims.m.is_none() && claims.t.is_none() && claims.p.is_none());
        assert_eq!(state(text).as_deref(), Some("plain"));
    }

    #[test]
    fn escapes_decode_as_json_defines_them() {
        let text = r#"{"v":1,"iat":0,"exp":1,"s":"{\"k\":\"\u00e9\ud83d\ude00\\\/\b\f\n\r\t\u0000\"}","\u0074":"\u00e9"}"#;
        let expected = "{\"k\":\"\u{e9}\u{1f600}\\/\u{8}\u{c}\n\r\t\u{0}\"}";
        assert_eq!(state(text).as_deref(), Some(expected));
        assert_eq!(
            read(text).expect("an envelope").t.as_deref(),
            Some("\u{e9}")
        );
        let raw = "{\"v\":1,\"iat\":0,\"exp\":1,\"s\":\"caf\u{e9} \u{1f600}\"}";
        assert_eq!(state(raw).as_deref(), Some("caf\u{e9} \u{1f600}"));
    }

    /// What serde_json (the reader this one replaced) makes of `text`, for the cases both
    /// should refuse or read alike.
    fn serde_reads(text: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(text).is_ok()
    }

    #[test]
    fn text_that_is_not_json_is_refused() {
        let base = r#"{"v":1,"iat":0,"exp":1,"s":"x"}"#;
        assert!(read(base).is_some());
        for text in [
            r#"{"v":1,"iat":0,"exp":1,"s":"x"} x"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x"}}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x",}"#,
            r#"{"v":1,,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1 "iat":0,"exp":1,"s":"x"}"#,
            r#"{"v" 1,"iat":0,"exp":1,"s":"x"}"#,
            r#"{v:1,"iat":0,"exp":1,"s":"x"}"#,
            r#"{'v':1,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x\"}"#,
            r#"{"v":01,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":+1,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1.,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":.5,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1e,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1e+,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":-,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":NaN,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":Infinity,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1,"iat":0,"exp":1e999,"s":"x"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"\x"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"\u12"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"\u12G4"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"\ud800"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"\ud800\u0041"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"\udc00\ud800"}"#,
            "{\"v\":1,\"iat\":0,\"exp\":1,\"s\":\"tab\there\"}",
            "{\"v\":1,\"iat\":0,\"exp\":1,\"s\":\"nul\u{0}\"}",
            "\u{a0}{\"v\":1,\"iat\":0,\"exp\":1,\"s\":\"x\"}",
            "",
            "{",
        ] {
            assert!(read(text).is_none(), "{text}");
            assert!(!serde_reads(text), "serde_json reads {text}");
        }
    }

    #[test]
    fn json_that_is_not_an_envelope_is_refused() {
        for text in [
            "{}",
            r#"{"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1,"exp":1,"s":"x"}"#,
            r#"{"v":1,"iat":0,"s":"x"}"#,
            r#"{"v":1,"iat":0,"exp":1}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":null}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":1}"#,
            r#"{"v":"1","iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":true,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":null,"iat":0,"exp":1,"s":"x"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","m":1}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","aud":["svc"]}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","p":{}}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","t":nul}"#,
            // unknown and duplicate members, also when a key is spelled with escapes
            r#"{"v":1,"iat":0,"exp":1,"s":"x","x":0}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","x":"y"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","aux":null}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","V":1}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","s":"y"}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","\u0076":1}"#,
            r#"{"v":1,"iat":0,"exp":1,"s":"x","m":null,"m":"a"}"#,
            "[1]",
            "[1,0,1,\"x\"]",
            "1",
            "\"v\"",
        ] {
            assert!(read(text).is_none(), "{text}");
        }
    }
}
