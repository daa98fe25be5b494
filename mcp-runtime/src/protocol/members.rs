//! The members of a JSON object found in text that is valid JSON already (a [`RawValue`]'s):
//! each one's key and value as they are written, without decoding or checking anything again.
//!
//! A request's params are read twice before dispatch: serde_json checks the whole message
//! while it splits off the envelope, then the reader before dispatch picks out the members it
//! needs. The second reading need not check again; it only has to find where each member
//! starts and ends. That means following strings (inside which brackets and commas are text)
//! and the nesting of brackets, and nothing else, so it runs over a string's bytes with
//! `memchr` instead of serde_json's checks byte by byte.

use serde_json::value::RawValue;

/// The text ended where valid JSON could not have: never, for a [`RawValue`]'s text, but the
/// caller reads the careful way rather than trust that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unreadable;

/// The members of an object, in the order written; see [`members`].
#[derive(Debug, Clone)]
pub(crate) struct Members<'a> {
    text: &'a str,
    at: usize,
    done: bool,
}

/// The members of `valid`, or `None` when it is not an object.
pub(crate) fn members(valid: &RawValue) -> Option<Members<'_>> {
    let text = valid.get();
    let at = skip_space(text.as_bytes(), 0);
    (text.as_bytes().get(at) == Some(&b'{')).then_some(Members {
        text,
        at: at + 1,
        done: false,
    })
}

impl<'a> Members<'a> {
    /// The next member's key, escapes left as written; the walk then stands at its value.
    pub fn next_key(&mut self) -> Option<Result<&'a str, Unreadable>> {
        if self.done {
            return None;
        }
        let key = self.key();
        // One error ends the walk: where it stopped says nothing about where a member starts.
        self.done = !matches!(key, Some(Ok(_)));
        key
    }

    /// The value of the member whose key was read last, stepped over.
    pub fn next_value(&mut self) -> Result<&'a str, Unreadable> {
        let end = value_end(self.text.as_bytes(), self.at);
        self.step_to(end)
    }

    /// The text from the value of the member whose key was read last to the end of the
    /// object, for a caller that may know how long the value is.
    pub fn ahead(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// Steps over the first `len` bytes [`ahead`](Self::ahead), which the caller knows to
    /// be the whole value, and returns them.
    pub fn step_over(&mut self, len: usize) -> Result<&'a str, Unreadable> {
        self.step_to(self.at.checked_add(len))
    }

    fn step_to(&mut self, end: Option<usize>) -> Result<&'a str, Unreadable> {
        match end.and_then(|end| Some((end, self.text.get(self.at..end)?))) {
            Some((end, value)) if !self.done => {
                self.at = end;
                Ok(value)
            }
            _ => {
                self.done = true;
                Err(Unreadable)
            }
        }
    }

    fn key(&mut self) -> Option<Result<&'a str, Unreadable>> {
        let bytes = self.text.as_bytes();
        let mut at = skip_space(bytes, self.at);
        if bytes.get(at) == Some(&b',') {
            at = skip_space(bytes, at + 1);
        }
        match bytes.get(at) {
            Some(b'}') => return None,
            Some(b'"') => {}
            _ => return Some(Err(Unreadable)),
        }
        let read = || -> Option<(&'a str, usize)> {
            let key_end = string_end(bytes, at + 1)?;
            let colon = skip_space(bytes, key_end + 1);
            (bytes.get(colon) == Some(&b':')).then_some(())?;
            Some((
                self.text.get(at + 1..key_end)?,
                skip_space(bytes, colon + 1),
            ))
        };
        Some(match read() {
            Some((key, value_at)) => {
                self.at = value_at;
                Ok(key)
            }
            None => Err(Unreadable),
        })
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The index of the quote that closes the string whose text starts at `at`.
fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        match bytes[at] {
            b'"' => return Some(at),
            // An escape is two bytes at least, and its second is never a quote that ends
            // the string (`\u` escapes are letters and digits after that).
            _ => at += 2,
        }
    }
}

/// The index just past the value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at + 1).map(|end| end + 1),
        b'{' | b'[' => {
            // Iterative, so no depth of nesting is too deep to step over.
            let mut depth = 1usize;
            let mut at = at + 1;
            loop {
                match bytes.get(at)? {
                    b'"' => at = string_end(bytes, at + 1)?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        // A number or a literal: it ends where the next token or space starts.
        _ => {
            let rest = bytes.get(at..)?;
            let len = rest
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(rest.len());
            (len > 0).then_some(at + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("valid JSON")
    }

    /// The next member's key and value text, as the reader before dispatch takes them.
    fn step<'a>(walk: &mut Members<'a>) -> Option<Result<(&'a str, &'a str), Unreadable>> {
        Some(match walk.next_key()? {
            Ok(key) => walk.next_value().map(|value| (key, value)),
            Err(e) => Err(e),
        })
    }

    fn walked(text: &str) -> Vec<(String, String)> {
        let value = raw(text);
        let mut walk = members(&value).expect("an object");
        std::iter::from_fn(|| step(&mut walk))
            .map(|m| {
                let (key, value) = m.expect("readable");
                (key.to_owned(), value.to_owned())
            })
            .collect()
    }

    /// What serde_json reads: each key unescaped, each value's text.
    fn read_by_serde(text: &str) -> Vec<(String, String)> {
        struct Entries(Vec<(String, String)>);
        impl<'de> serde::Deserialize<'de> for Entries {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = Entries;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Entries, A::Error> {
                        let mut out = Vec::new();
                        while let Some((k, v)) = map.next_entry::<String, &RawValue>()? {
                            out.push((k, v.get().to_owned()));
                        }
                        Ok(Entries(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        serde_json::from_str::<Entries>(text).expect("an object").0
    }

    #[test]
    fn members_are_found_past_what_looks_like_structure_inside_strings() {
        let text = r#" { "a" : "x\"}]," , "b\"c":[1,{"d":"]}"},[]] ,"e":-1.5e3, "f":true,"g":null,"h":{} } "#;
        assert_eq!(
            walked(text),
            [
                ("a", r#""x\"}],""#),
                (r#"b\"c"#, r#"[1,{"d":"]}"},[]]"#),
                ("e", "-1.5e3"),
                ("f", "true"),
                ("g", "null"),
                ("h", "{}"),
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert!(walked("{}").is_empty());
        assert!(walked(" { } ").is_empty());
        for not_an_object in ["[]", "1", "\"{}\"", "null"] {
            assert!(members(&raw(not_an_object)).is_none(), "{not_an_object}");
        }
    }

    #[test]
    fn nesting_of_any_depth_is_stepped_over() {
        let deep = format!(
            r#"{{"a":{}{},"b":"\\\\"}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let found = walked(&deep);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1], ("b".to_owned(), r#""\\\\""#.to_owned()));
    }

    #[test]
    fn text_that_is_not_json_ends_the_walk_with_an_error_not_a_panic() {
        // Never handed over as a RawValue; the walk must still stop cleanly on it.
        for text in [
            r#"{"a""#,
            r#"{"a":"#,
            r#"{"a":"x"#,
            r#"{"a":[1,"#,
            r#"{"a" 1}"#,
            r#"{1:2}"#,
            r#"{"a":1,,"b":2}"#,
            r#"{"a":"\"#,
        ] {
            let mut walk = Members {
                text,
                at: 1,
                done: false,
            };
            let ends = std::iter::from_fn(|| step(&mut walk))
                .take(4)
                .any(|m| m.is_err());
            assert!(ends, "{text}");
            assert!(step(&mut walk).is_none(), "{text}");
        }
    }

    /// Random objects, with spaces, escapes and nesting: the walk finds what serde_json reads,
    /// member for member (keys compared once unescaped).
    #[test]
    fn the_walk_agrees_with_serde_json_on_random_objects() {
        use crate::test_rng::Rng;

        const SPACES: [&str; 5] = ["", "", " ", "\n\t", "\r\n  "];
        const STRINGS: [&str; 8] = [
            "",
            "a",
            r#"\""#,
            r#"\\"#,
            r#"x\\\"y"#,
            r#"}],{["#,
            r#"\u0041\ud83d\ude00"#,
            "é",
        ];
        fn space(rng: &mut Rng, out: &mut String) {
            out.push_str(rng.pick::<&str>(&SPACES));
        }
        fn string(rng: &mut Rng, out: &mut String) {
            out.push('"');
            for _ in 0..rng.below(3) {
                out.push_str(rng.pick::<&str>(&STRINGS));
            }
            out.push('"');
        }
        fn value(rng: &mut Rng, depth: u32, out: &mut String) {
            let pick = if depth > 4 {
                2 + rng.below(4)
            } else {
                rng.below(6)
            };
            match pick {
                0 => object(rng, depth + 1, out),
                1 => {
                    out.push('[');
                    for i in 0..rng.below(4) {
                        if i > 0 {
                            out.push(',');
                        }
                        space(rng, out);
                        value(rng, depth + 1, out);
                        space(rng, out);
                    }
                    out.push(']');
                }
                2 | 3 => string(rng, out),
                4 => {
                    let numbers = ["0", "-0", "7", "-12.5", "2e3", "1E-2"];
                    out.push_str(rng.pick::<&str>(&numbers));
                }
                _ => out.push_str(rng.pick::<&str>(&["true", "false", "null"])),
            }
        }
        fn object(rng: &mut Rng, depth: u32, out: &mut String) {
            out.push('{');
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                }
                space(rng, out);
                string(rng, out);
                space(rng, out);
                out.push(':');
                space(rng, out);
                value(rng, depth, out);
                space(rng, out);
            }
            out.push('}');
        }
        let mut rng = Rng(0x5eed_0fc0_ffee);
        let mut members_seen = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            space(&mut rng, &mut text);
            object(&mut rng, 0, &mut text);
            space(&mut rng, &mut text);
            let unescaped: Vec<(String, String)> = walked(&text)
                .into_iter()
                .map(|(key, value)| {
                    let key: String = serde_json::from_str(&format!("\"{key}\"")).expect("a key");
                    (key, value)
                })
                .collect();
            members_seen += unescaped.len();
            assert_eq!(unescaped, read_by_serde(&text), "{text}");
        }
        assert!(
            members_seen > 20_000,
            "only {members_seen} members: the test ran short"
        );
    }
}
