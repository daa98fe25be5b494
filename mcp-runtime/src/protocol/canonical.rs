//! Compact JSON exactly as Python's `json.dumps(value, separators=(",", ":"))` writes it.
//!
//! The claims envelope, the arguments digest and the principal string must be byte-identical
//! to what the Python SDK produces, or a Rust and a Python server sharing a key would reject each
//! other's tokens. That means: ASCII-only output (`\uXXXX` escapes, lowercase hex, surrogate
//! pairs), Python's float `repr`, and, for the arguments digest only, keys sorted by code point.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

/// Appends `value` as compact, ASCII-only JSON. With `sort_keys`, object keys are written in
/// code-point order at every depth; otherwise in the map's iteration order.
pub(crate) fn write_value(out: &mut String, value: &Value, sort_keys: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, sort_keys);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map, sort_keys),
    }
}

pub(crate) fn write_object(out: &mut String, map: &Map<String, Value>, sort_keys: bool) {
    // Rust orders `str` by UTF-8 bytes, which is code-point order, as Python sorts. serde_json's
    // map iterates in that order already unless some crate in the build turns on its
    // `preserve_order` feature, so the entries are collected and sorted only when they are not.
    if !sort_keys || map.keys().is_sorted() {
        write_entries(out, map.iter(), sort_keys);
    } else {
        write_entries(out, sorted(map.iter()).into_iter(), sort_keys);
    }
}

fn sorted<'a>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
) -> Vec<(&'a String, &'a Value)> {
    let mut entries: Vec<_> = entries.collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

fn write_entries<'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    sort_keys: bool,
) {
    out.push('{');
    for (i, (key, item)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, key);
        out.push(':');
        write_value(out, item, sort_keys);
    }
    out.push('}');
}

/// A JSON string with Python's `ensure_ascii=True` escaping.
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut rest = s;
    // Most text is printable ASCII: copy such runs whole, escape the rest char by char.
    while !rest.is_empty() {
        let plain = plain_prefix(rest.as_bytes());
        out.push_str(&rest[..plain]);
        rest = &rest[plain..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
        rest = &rest[c.len_utf8()..];
    }
    out.push('"');
}

/// Whether `text` is already what [`write_value`] with sorted keys writes for the value it
/// holds, so that it can be digested as it stands: compact, each object's keys in code-point
/// order and once each, strings of printable ASCII with nothing escaped, integers in their
/// shortest form (floats are written as Python does, so any is refused). A conservative check
/// for text serde_json reads: `false` says only that it must be decoded and written again.
pub(crate) fn is_canonical(text: &str) -> bool {
    let mut scan = Scan {
        bytes: text.as_bytes(),
        at: 0,
    };
    scan.value(0) && scan.at == text.len()
}

/// How deep [`is_canonical`] follows nesting before it leaves the text to the decoder.
const CANONICAL_DEPTH: usize = 32;

/// A cursor over text that [`is_canonical`] reads.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn value(&mut self, depth: usize) -> bool {
        match self.bytes.get(self.at) {
            Some(b'{') => depth < CANONICAL_DEPTH && self.object(depth + 1),
            Some(b'[') => depth < CANONICAL_DEPTH && self.array(depth + 1),
            Some(b'"') => self.string().is_some(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.integer(),
            _ => false,
        }
    }

    fn object(&mut self, depth: usize) -> bool {
        self.at += 1;
        if self.eat(b'}') {
            return true;
        }
        let mut previous: Option<&[u8]> = None;
        loop {
            let Some(key) = self.string() else {
                return false;
            };
            // Bytes order printable ASCII as code points do; a key twice is refused too.
            if previous.is_some_and(|previous| previous >= key) {
                return false;
            }
            previous = Some(key);
            if !(self.eat(b':') && self.value(depth)) {
                return false;
            }
            if self.eat(b'}') {
                return true;
            }
            if !self.eat(b',') {
                return false;
            }
        }
    }

    fn array(&mut self, depth: usize) -> bool {
        self.at += 1;
        if self.eat(b']') {
            return true;
        }
        loop {
            if !self.value(depth) {
                return false;
            }
            if self.eat(b']') {
                return true;
            }
            if !self.eat(b',') {
                return false;
            }
        }
    }

    /// A string with nothing to escape: its contents.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let run = plain_prefix(&self.bytes[start..]);
        self.at += run;
        // The run ends at the closing quote, or at a byte that is escaped or not ASCII.
        self.eat(b'"').then(|| &self.bytes[start..start + run])
    }

    fn integer(&mut self) -> bool {
        let negative = self.eat(b'-');
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let shortest = match &self.bytes[start..self.at] {
            [] => false,
            // serde_json reads `-0` as the float -0.0.
            [b'0'] => !negative,
            [b'0', ..] => false,
            // Within i64 whatever the digits.
            digits => digits.len() <= 18,
        };
        shortest && !matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E'))
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        let found = self.bytes[self.at..].starts_with(word);
        if found {
            self.at += word.len();
        }
        found
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }
}

/// The length of the leading run of bytes that need no escaping (printable ASCII other than
/// `"` and `\\`), checked eight bytes at a time.
pub(super) fn plain_prefix(bytes: &[u8]) -> usize {
    use swar::{HIGHS, ONES, below};
    // Control characters, DEL and non-ASCII, quotes, backslashes.
    swar::leading_run(bytes, |x| {
        below(x, 0x20)
            | (x & HIGHS)
            | below(x ^ (ONES * 0x7f), 1)
            | below(x ^ (ONES * u64::from(b'"')), 1)
            | below(x ^ (ONES * u64::from(b'\\')), 1)
    })
}

/// Eight bytes at a time: what finds the end of a plain run in a JSON string, for writing one
/// and for reading one.
pub(crate) mod swar {
    pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
    pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;

    /// Sets the high bit of the bytes of `x` below `n` (n <= 128), and maybe of bytes above a
    /// marked one: a false mark needs a borrow from a lower byte, so the lowest mark is exact.
    pub(crate) fn below(x: u64, n: u8) -> u64 {
        x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS
    }

    /// The length of the leading run of `bytes` in which `marks` (over eight bytes read
    /// little-endian, its lowest mark exact) marks nothing; text shorter than eight bytes is
    /// padded with spaces, which `marks` must not mark.
    pub(crate) fn leading_run(bytes: &[u8], marks: impl Fn(u64) -> u64) -> usize {
        let first_mark = |mark: u64| (mark.trailing_zeros() / 8) as usize;
        let mut chunks = bytes.chunks_exact(8);
        let mut done = 0;
        for chunk in &mut chunks {
            let mark = marks(word(chunk));
            if mark != 0 {
                return done + first_mark(mark);
            }
            done += 8;
        }
        let tail = chunks.remainder();
        if tail.is_empty() {
            return done;
        }
        // The last eight bytes, some of them read already and unmarked, so the lowest mark
        // is in the tail. Copying the tail into a padded word instead costs a stalled load
        // (the copy's narrow stores do not forward to the word's wide load): a third of the
        // time of writing a 200-byte string.
        if let Some(last) = bytes.len().checked_sub(8) {
            let mark = marks(word(&bytes[last..]));
            return if mark != 0 {
                last + first_mark(mark)
            } else {
                bytes.len()
            };
        }
        // Shorter than a word: assembled in a register, for the same reason.
        let padded = tail
            .iter()
            .enumerate()
            .fold(ONES * u64::from(b' '), |w, (i, &b)| {
                (w & !(0xff << (8 * i))) | (u64::from(b) << (8 * i))
            });
        let mark = marks(padded);
        if mark != 0 {
            first_mark(mark)
        } else {
            tail.len()
        }
    }

    /// Eight bytes read little-endian (`bytes` is eight long).
    fn word(bytes: &[u8]) -> u64 {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        u64::from_le_bytes(word)
    }
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        write_float(out, f);
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in positional notation when
/// the decimal exponent is in `-4..16`, scientific (`1e+16`, `1.5e-05`) otherwise, and always
/// with a fractional part in positional notation (`2.0`).
pub(crate) fn write_float(out: &mut String, f: f64) {
    if !f.is_finite() {
        // JSON cannot carry these; serde_json never produces them.
        out.push_str("null");
        return;
    }
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Python's decpt: the value is 0.DIGITS × 10^decpt.
    let decpt = exponent + 1;
    if negative {
        out.push('-');
    }
    if (-3..=16).contains(&decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', decpt.unsigned_abs() as usize));
            out.push_str(&digits);
        } else {
            let point = decpt as usize;
            if digits.len() <= point {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dumps(v: &Value, sort: bool) -> String {
        let mut s = String::new();
        write_value(&mut s, v, sort);
        s
    }

    fn float(f: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, f);
        s
    }

    #[test]
    fn floats_follow_python_repr() {
        // Expected values are what CPython 3.11 prints for repr(x).
        let cases = [
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1796235646.978, "1796235646.978"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.25e-7, "1.25e-07"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
        ];
        for (value, expected) in cases {
            assert_eq!(float(value), expected, "repr({value:?})");
        }
    }

    #[test]
    fn strings_are_ascii_with_python_escapes() {
        let v = json!("a\"b\\c\n\t\u{1}\u{7f}é€😀");
        assert_eq!(
            dumps(&v, false),
            r#""a\"b\\c\n\t\u0001\u007f\u00e9\u20ac\ud83d\ude00""#
        );
    }

    #[test]
    fn the_plain_prefix_stops_at_the_first_byte_to_escape() {
        for text in [
            "",
            "abc",
            "abcdefghijklmnop",
            "0123456\"",
            "01234567\\x",
            "é",
            "abcdefgh\u{7f}",
            "abcdefghijk\n",
            "~~~~~~~~ ~~~~~~~~",
            "ab\"c",
            "a\u{1}",
            "\u{1f}~",
        ] {
            let expected = text
                .bytes()
                .position(|b| !(b' '..=b'~').contains(&b) || b == b'"' || b == b'\\')
                .unwrap_or(text.len());
            assert_eq!(plain_prefix(text.as_bytes()), expected, "{text:?}");
        }
        // Each kind of byte to escape at every place in and after the first word, with bytes
        // that need no escaping around it.
        for special in [0u8, 0x1f, b'"', b'\\', 0x7f, 0x80, 0xff] {
            for len in 1..20 {
                for at in 0..len {
                    let mut bytes = vec![b' '; len];
                    bytes[at] = special;
                    assert_eq!(plain_prefix(&bytes), at, "{special:#x} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn entries_not_in_order_are_sorted_by_code_point() {
        // serde_json's map is in order here; with `preserve_order` it keeps insertion order.
        let v = json!({"b": 1, "a": 2, "é": 3, "Z": 4});
        let map = v.as_object().expect("an object");
        let keys: Vec<&str> = sorted(map.iter().rev())
            .into_iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(keys, ["Z", "a", "b", "é"]);
    }

    #[test]
    fn sorted_keys_apply_at_every_depth() {
        let v = json!({"b": 1, "a": {"z": [true, null], "é": 2, "Z": 3.5}});
        assert_eq!(
            dumps(&v, true),
            r#"{"a":{"Z":3.5,"z":[true,null],"\u00e9":2},"b":1}"#
        );
    }

    /// Text `is_canonical` accepts is exactly what decoding it and writing it again gives.
    fn holds_as_written(text: &str) {
        if is_canonical(text) {
            let value: Value = serde_json::from_str(text).expect("canonical text is JSON");
            assert_eq!(dumps(&value, true), text, "accepted, yet written otherwise");
        }
    }

    #[test]
    fn canonical_text_is_accepted() {
        for text in [
            r#"{}"#,
            r#"{"name":"orders"}"#,
            r#"{"":0,"a":[],"b":{},"c":[1,-2,true,false,null,"x"]}"#,
            r#"{"A":1,"Z":{"a":{"b":[[{"c":"d e"}]]}},"a":-123456789012345678}"#,
            r#"[0,"",{"k":"v"}]"#,
        ] {
            assert!(is_canonical(text), "{text}");
            holds_as_written(text);
        }
    }

    #[test]
    fn text_written_otherwise_is_refused() {
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        for text in [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{ "a":1}"#,
            r#"{"a": 1}"#,
            r#"{"a":1} "#,
            r#"{"a":"\u0041"}"#,
            r#"{"a":"x\"y"}"#,
            r#"{"a":"é"}"#,
            r#"{"é":1}"#,
            r#"{"a":1.0}"#,
            r#"{"a":1e3}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":1234567890123456789}"#,
            r#"{"a":tru}"#,
            r#"{"a":1,}"#,
            r#"{"a"}"#,
            r#"{"a":1"#,
            "",
            &deep,
        ] {
            assert!(!is_canonical(text), "{text}");
        }
    }

    /// Random JSON texts, most of them not canonical in one way or another: none is accepted
    /// that decodes and writes otherwise, and every text written canonically is accepted.
    #[test]
    fn acceptance_agrees_with_writing_on_random_text() {
        use crate::test_rng::Rng;

        fn text(rng: &mut Rng, depth: u32, out: &mut String) {
            let pick = if depth > 3 {
                4 + rng.below(6)
            } else {
                rng.below(10)
            };
            let space = |rng: &mut Rng, out: &mut String| {
                if rng.below(12) == 0 {
                    out.push(' ');
                }
            };
            match pick {
                0..=2 => {
                    out.push('{');
                    let keys = ["", "a", "b", "B", "ab", "é", "a\\u0062", "z"];
                    for i in 0..rng.below(4) {
                        if i > 0 {
                            out.push(',');
                        }
                        space(rng, out);
                        let key = rng.pick(&keys);
                        write!(out, "\"{key}\":").expect("a String");
                        text(rng, depth + 1, out);
                    }
                    out.push('}');
                }
                3 => {
                    out.push('[');
                    for i in 0..rng.below(3) {
                        if i > 0 {
                            out.push(',');
                        }
                        text(rng, depth + 1, out);
                        space(rng, out);
                    }
                    out.push(']');
                }
                4 => {
                    let numbers = [
                        "0",
                        "-0",
                        "7",
                        "-12",
                        "1.5",
                        "2e3",
                        "10",
                        "123456789012345678",
                    ];
                    out.push_str(rng.pick::<&str>(&numbers));
                }
                5 => {
                    let strings = [
                        r#""""#,
                        r#""x y""#,
                        r#""\n""#,
                        r#""é""#,
                        r#""\u00e9""#,
                        r#""~""#,
                    ];
                    out.push_str(rng.pick::<&str>(&strings));
                }
                6 => out.push_str("true"),
                7 => out.push_str("false"),
                _ => out.push_str("null"),
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut accepted, mut rewritten) = (0, 0);
        for _ in 0..20_000 {
            let mut raw = String::new();
            text(&mut rng, 0, &mut raw);
            let Ok(value) = serde_json::from_str::<Value>(&raw) else {
                assert!(!is_canonical(&raw), "{raw}");
                continue;
            };
            holds_as_written(&raw);
            accepted += usize::from(is_canonical(&raw));
            let written = dumps(&value, true);
            if value_has_no_float_or_escape(&written) {
                assert!(is_canonical(&written), "{written}");
                rewritten += 1;
            }
        }
        // Both kinds are well represented, or the test says nothing.
        assert!(
            accepted > 2_000 && rewritten > 10_000,
            "{accepted} {rewritten}"
        );
    }

    /// Whether canonical text holds only what `is_canonical` accepts: no float, no escape.
    fn value_has_no_float_or_escape(written: &str) -> bool {
        fn plain(v: &Value) -> bool {
            let unescaped = |s: &str| plain_prefix(s.as_bytes()) == s.len();
            match v {
                Value::Number(n) => n.is_i64() || n.is_u64(),
                Value::String(s) => unescaped(s),
                Value::Array(items) => items.iter().all(plain),
                Value::Object(map) => map.iter().all(|(k, v)| unescaped(k) && plain(v)),
                _ => true,
            }
        }
        plain(&serde_json::from_str(written).expect("JSON"))
    }
}
