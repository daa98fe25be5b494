//! RFC 6570 URI templates, as far as resource templates use them: literal text with simple
//! (`{var}`, one path segment, percent-decoded) and reserved (`{+var}`, may span `/`)
//! expressions.

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

/// A template that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template `{template}`: {reason}")]
pub struct TemplateError {
    template: String,
    reason: &'static str,
}

impl UriTemplate {
    /// Parses `template`.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let error = |reason| TemplateError {
            template: template.to_owned(),
            reason,
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| error("an expression is not closed"))?;
            let expression = &rest[open + 1..open + close];
            let (name, reserved) = match expression.strip_prefix('+') {
                Some(name) => (name, true),
                None => (expression, false),
            };
            let valid =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(error(
                    "only `{name}` and `{+name}` expressions are supported",
                ));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(error("two expressions need literal text between them"));
            }
            parts.push(Part::Var {
                name: name.to_owned(),
                reserved,
            });
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err(error("a `}` has no matching `{`"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(Self { parts })
    }

    /// A plain URI, taken as it is (braces and all): what a template's instance is read at.
    pub fn literal(uri: &str) -> Self {
        Self {
            parts: vec![Part::Literal(uri.to_owned())],
        }
    }

    /// The variables' names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Whether the template has no variables (a plain URI).
    pub fn is_static(&self) -> bool {
        self.variables().next().is_none()
    }

    /// The variables' values (percent-decoded) when `uri` matches the template.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut vars = Vec::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Var { name, reserved } => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    let stops = |c: char| matches!(c, '/' | '?' | '#');
                    if raw.is_empty() || (!reserved && raw.contains(stops)) {
                        return None;
                    }
                    let value = if *reserved {
                        raw.to_owned()
                    } else {
                        percent_decode(raw)?
                    };
                    vars.push((name.clone(), value));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

pub fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Checked first: `from_str_radix` also takes a sign, so `%+1` would decode.
            let hex = raw
                .get(i + 1..i + 3)
                .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_matched_variable_is_percent_decoded_and_spans_one_segment() {
        let template = UriTemplate::parse("db://{table}/schema").expect("a valid template");
        let vars = template
            .matches("db://orders%20v2/schema")
            .expect("it matches");
        assert_eq!(vars, vec![("table".to_owned(), "orders v2".to_owned())]);
        assert!(template.matches("db://a/b/schema").is_none());
    }

    use super::*;

    #[test]
    fn percent_is_followed_by_exactly_two_hex_digits() {
        assert_eq!(percent_decode("a%2Fb%2f").as_deref(), Some("a/b/"));
        assert_eq!(percent_decode("%e6%97%a5").as_deref(), Some("日"));
        // Found by the `percent_base64` fuzz target: a sign passed for a digit.
        for bad in [
            "%+1", "%+9#", "%-1", "% 1", "%1", "%", "%1g", "%日本", "%e6%97",
        ] {
            assert_eq!(percent_decode(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn parses_and_rejects() {
        assert!(UriTemplate::parse("file:///{+path}").is_ok());
        assert!(UriTemplate::parse("a://{x}{y}").is_err());
        assert!(UriTemplate::parse("a://{x").is_err());
        assert!(UriTemplate::parse("a://{?q}").is_err());
        assert!(UriTemplate::parse("a://x}").is_err());
        assert!(UriTemplate::parse("a://fixed").expect("static").is_static());
    }

    #[test]
    fn matches_segments_and_reserved_paths() {
        let t = UriTemplate::parse("deploy://{env}/confirm").expect("template");
        assert_eq!(
            t.matches("deploy://prod/confirm"),
            Some(vec![("env".into(), "prod".into())])
        );
        assert_eq!(t.matches("deploy:///confirm"), None);
        assert_eq!(t.matches("deploy://prod/confirm/x"), None);
        assert_eq!(t.matches("deploy://%zz/confirm"), None);
        assert_eq!(t.matches("deploy://%+1/confirm"), None);
        let files = UriTemplate::parse("file:///{+path}").expect("template");
        assert_eq!(
            files.matches("file:///etc/hosts"),
            Some(vec![("path".into(), "etc/hosts".into())])
        );
    }
}
