//! The `WWW-Authenticate` header (RFC 9110 §11.6.1): one or more challenges, each a scheme
//! followed by a token68 or by `name=value` parameters whose values may be quoted strings.
//!
//! ```
//! use mcp::transport::http_client::challenge;
//!
//! let header = r#"Bearer error="insufficient_scope", scope="files:read files:write",
//!     resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#;
//! let challenges = challenge::parse(header);
//! let bearer = challenges.iter().find(|c| c.is_bearer()).unwrap();
//! assert_eq!(bearer.param("error"), Some("insufficient_scope"));
//! assert_eq!(bearer.param("scope"), Some("files:read files:write"));
//! ```

/// One challenge of a `WWW-Authenticate` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The authentication scheme as sent (compare it case-insensitively).
    pub scheme: String,
    /// A token68 in place of parameters (rare; e.g. `Negotiate`).
    pub token68: Option<String>,
    /// The parameters in order, names lowercased, quoted values unescaped.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// Whether this is a `Bearer` challenge.
    pub fn is_bearer(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("bearer")
    }

    /// Whether this is a `DPoP` challenge (RFC 9449 §7.1).
    pub fn is_dpop(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("dpop")
    }

    /// The first value of the parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Every challenge in `header`, in order. What cannot be read ends the parse: the challenges
/// before it are kept, so one malformed extension challenge does not hide a good `Bearer` one
/// in front of it.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut lexer = Lexer {
        rest: header.as_bytes(),
    };
    let mut challenges = Vec::new();
    loop {
        lexer.skip(|b| b == b',' || is_space(b));
        let Some(scheme) = lexer.token() else {
            return challenges;
        };
        let mut challenge = Challenge {
            scheme,
            token68: None,
            params: Vec::new(),
        };
        lexer.skip(is_space);
        challenge.token68 = lexer.token68();
        if challenge.token68.is_none() {
            while let Some((name, value)) = lexer.param() {
                challenge.params.push((name, value));
            }
        }
        challenges.push(challenge);
        if !lexer.at_separator() {
            return challenges;
        }
    }
}

struct Lexer<'h> {
    rest: &'h [u8],
}

impl<'h> Lexer<'h> {
    fn skip(&mut self, what: impl Fn(u8) -> bool) {
        while let [b, rest @ ..] = self.rest
            && what(*b)
        {
            self.rest = rest;
        }
    }

    fn take(&mut self, what: impl Fn(u8) -> bool) -> &'h [u8] {
        let end = self
            .rest
            .iter()
            .position(|b| !what(*b))
            .unwrap_or(self.rest.len());
        let (taken, rest) = self.rest.split_at(end);
        self.rest = rest;
        taken
    }

    fn token(&mut self) -> Option<String> {
        let token = self.take(is_tchar);
        (!token.is_empty()).then(|| String::from_utf8_lossy(token).into_owned())
    }

    /// A token68 right after the scheme: its characters, optional `=` padding, then the end of
    /// the challenge. Anything else (a parameter's `name=`) is left in place.
    fn token68(&mut self) -> Option<String> {
        let start = self.rest;
        let body = self.take(is_token68_char);
        let padding = self.take(|b| b == b'=');
        let mut after = Lexer { rest: self.rest };
        after.skip(is_space);
        let ends = after.rest.is_empty() || after.rest[0] == b',';
        // `name=value` also starts with token characters and `=`; a token68 is followed by
        // nothing but the end of the challenge.
        if body.is_empty() || !ends {
            self.rest = start;
            return None;
        }
        let mut value = String::from_utf8_lossy(body).into_owned();
        value.push_str(&"=".repeat(padding.len()));
        self.rest = after.rest;
        Some(value)
    }

    /// `name = value` (a token or a quoted string), and the comma after it; `None` when what
    /// follows is not a parameter (the next challenge's scheme, or the end).
    fn param(&mut self) -> Option<(String, String)> {
        let start = self.rest;
        self.skip(|b| b == b',' || is_space(b));
        let name = self.token();
        self.skip(is_space);
        let (Some(name), [b'=', rest @ ..]) = (name, self.rest) else {
            self.rest = start;
            return None;
        };
        self.rest = rest;
        self.skip(is_space);
        let value = match self.rest {
            [b'"', rest @ ..] => {
                self.rest = rest;
                self.quoted()?
            }
            _ => String::from_utf8_lossy(self.take(is_tchar)).into_owned(),
        };
        self.skip(is_space);
        Some((name.to_ascii_lowercase(), value))
    }

    /// The rest of a quoted string whose opening quote was read; `\x` stands for `x`.
    fn quoted(&mut self) -> Option<String> {
        let mut value = Vec::new();
        loop {
            match self.rest {
                [b'"', rest @ ..] => {
                    self.rest = rest;
                    return Some(String::from_utf8_lossy(&value).into_owned());
                }
                [b'\\', escaped, rest @ ..] => {
                    value.push(*escaped);
                    self.rest = rest;
                }
                [b, rest @ ..] => {
                    value.push(*b);
                    self.rest = rest;
                }
                // An unterminated string: nothing after it can be trusted.
                [] => return None,
            }
        }
    }

    /// Whether another challenge may follow: the end of one is a comma (or the end).
    fn at_separator(&mut self) -> bool {
        self.skip(is_space);
        matches!(self.rest, [b',', ..])
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r' || b == b'\n'
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}
