//! The OAuth 2.0 Protected Resource Metadata document (RFC 9728) and where it is published.

use serde::{Deserialize, Serialize};

/// The well-known path of the metadata document (RFC 9728 §3).
pub const WELL_KNOWN_PATH: &str = "/.well-known/oauth-protected-resource";

/// What a protected MCP endpoint tells clients about itself, so they can find the
/// authorization server to get a token from (RFC 9728 §2).
///
/// [`ResourceServer`](super::ResourceServer) builds it; the HTTP transport serves it.
///
/// ```
/// use mcp::auth::ProtectedResourceMetadata;
///
/// let document: ProtectedResourceMetadata = serde_json::from_str(r#"{
///     "resource": "https://mcp.example.com/mcp",
///     "authorization_servers": ["https://auth.example.com"],
///     "bearer_methods_supported": ["header"]
/// }"#)?;
/// assert_eq!(document.authorization_servers, ["https://auth.example.com"]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The canonical URL of the MCP endpoint; tokens must be issued for it (its audience).
    pub resource: String,
    /// Issuer identifiers of the authorization servers that issue tokens for it.
    pub authorization_servers: Vec<String>,
    /// The scopes clients may request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How the token is presented: only `header` (`Authorization: Bearer …`), since OAuth 2.1
    /// forbids tokens in query strings.
    #[serde(default)]
    pub bearer_methods_supported: Vec<String>,
    /// A human-readable name of the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A page with documentation for developers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// The algorithms DPoP proofs may be signed with, when the resource takes DPoP-bound
    /// tokens (RFC 9728 §2, RFC 9449).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dpop_signing_alg_values_supported: Vec<String>,
    /// Whether every token must be DPoP-bound: bearer tokens are refused (RFC 9728 §2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound_access_tokens_required: bool,
}

/// Why a resource URL cannot identify a protected resource.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the resource URL {url:?} {problem}")]
pub struct InvalidResourceUrl {
    url: String,
    problem: &'static str,
}

/// A canonical resource URL, split into the parts the metadata location is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceUrl {
    /// `scheme://authority`.
    pub origin: String,
    /// `host[:port]`.
    pub authority: String,
    /// The path, empty for the root.
    pub path: String,
}

impl ResourceUrl {
    /// Accepts an absolute `http` or `https` URL without a query or fragment (RFC 8707 §2:
    /// a resource indicator has no fragment and should have no query).
    pub fn parse(url: &str) -> Result<Self, InvalidResourceUrl> {
        let fail = |problem| InvalidResourceUrl {
            url: url.to_owned(),
            problem,
        };
        // The URL goes into a quoted `WWW-Authenticate` parameter and an HTTP header value.
        if !url
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        {
            return Err(fail(
                "must be printable ASCII without quotes or backslashes",
            ));
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(fail("must be absolute (https://host/path)"));
        };
        if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
            return Err(fail("must use https (or http for local development)"));
        }
        if rest.contains(['?', '#']) {
            return Err(fail("must have no query or fragment"));
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() || authority.contains('@') {
            return Err(fail("must name a host (and no user)"));
        }
        // Checked so that two spellings of the URL can always be compared (DPoP's `htu`).
        if !port_is_valid(authority) {
            return Err(fail("must have a numeric port, if any"));
        }
        if !percent_escapes_are_valid(url) {
            return Err(fail("must have two hex digits after every %"));
        }
        Ok(Self {
            origin: format!("{}://{authority}", scheme.to_ascii_lowercase()),
            authority: authority.to_owned(),
            path: if path == "/" { "" } else { path }.to_owned(),
        })
    }

    /// Where the metadata of this resource lives, relative to its origin: the well-known
    /// prefix inserted before the resource's path (RFC 9728 §3.1).
    pub fn metadata_path(&self) -> String {
        format!("{WELL_KNOWN_PATH}{}", self.path)
    }

    /// The absolute URL of the metadata, for `WWW-Authenticate: Bearer resource_metadata=…`.
    pub fn metadata_url(&self) -> String {
        format!("{}{}", self.origin, self.metadata_path())
    }
}

/// Whether the port of `host[:port]` (or `[v6]:port`), if any, is a number up to 65535.
fn port_is_valid(authority: &str) -> bool {
    let after_host = match authority.rfind(']') {
        Some(end) => &authority[end + 1..],
        None => authority.rfind(':').map_or("", |colon| &authority[colon..]),
    };
    match after_host.strip_prefix(':') {
        // An empty port means the scheme's default (RFC 3986 §3.2.3).
        Some(port) => port.is_empty() || port.parse::<u16>().is_ok(),
        None => after_host.is_empty(),
    }
}

fn percent_escapes_are_valid(url: &str) -> bool {
    let bytes = url.as_bytes();
    bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_location_inserts_the_well_known_prefix_before_the_path() {
        let url = ResourceUrl::parse("https://mcp.example.com/mcp").expect("valid");
        assert_eq!(url.authority, "mcp.example.com");
        assert_eq!(
            url.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        for valid in [
            "https://[::1]:8443/mcp",
            "https://mcp.example.com:/mcp",
            "https://mcp.example.com/a%2Fb",
        ] {
            assert!(ResourceUrl::parse(valid).is_ok(), "{valid}");
        }
        let root = ResourceUrl::parse("http://127.0.0.1:8000/").expect("valid");
        assert_eq!(
            root.metadata_url(),
            "http://127.0.0.1:8000/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn urls_that_cannot_name_a_resource_are_refused() {
        for bad in [
            "mcp.example.com/mcp",
            "ftp://mcp.example.com/mcp",
            "https://mcp.example.com/mcp?tenant=1",
            "https://mcp.example.com/mcp#top",
            "https:///mcp",
            "https://user@mcp.example.com/mcp",
            "https://mcp.example.com/a b",
            "https://mcp.example.com/\"",
            "https://mcp.example.com:http/mcp",
            "https://mcp.example.com:70000/mcp",
            "https://[::1]x/mcp",
            "https://mcp.example.com/%zz",
            "https://mcp.example.com/100%",
        ] {
            assert!(ResourceUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
