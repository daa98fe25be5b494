//! Finding who issues tokens for a server: its Protected Resource Metadata (RFC 9728), then
//! the authorization server's metadata (RFC 8414, or OpenID Connect Discovery), each at the
//! locations the MCP specification lists, in its order.
//!
//! ```
//! use mcp::client::auth::discovery;
//! use mcp::client::auth::Url;
//!
//! let server = Url::parse("https://mcp.example.com/tools/mcp")?;
//! let prm: Vec<String> = discovery::protected_resource_metadata_urls(&server)
//!     .iter().map(|u| u.to_string()).collect();
//! assert_eq!(prm, [
//!     "https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp",
//!     "https://mcp.example.com/.well-known/oauth-protected-resource",
//! ]);
//! # Ok::<(), url::ParseError>(())
//! ```

use serde::{Deserialize, Serialize};
use url::Url;

pub use crate::auth::ProtectedResourceMetadata;

use super::AuthError;
use super::http::get_json;
use crate::transport::http_client::stack::HttpStack;

/// What an authorization server says about itself (RFC 8414 §2), as far as this client uses
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; it must be the one the document was looked up for.
    pub issuer: String,
    /// Where the user authorizes the client.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens are exchanged for tokens.
    #[serde(default)]
    pub token_endpoint: Option<String>,
    /// Where clients register themselves (RFC 7591), if they may.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The scopes clients may request.
    #[serde(default)]
    pub scopes_supported: Vec<String>,
    /// How clients may authenticate to the token endpoint; absent means
    /// `client_secret_basic` only.
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// The PKCE methods; without `S256` the client does not proceed.
    #[serde(default)]
    pub code_challenge_methods_supported: Vec<String>,
    /// Whether authorization responses carry `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// Whether a URL may serve as `client_id`, naming the client's metadata document.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// The algorithms the server takes DPoP proofs in (RFC 9449 §5.1); absent or empty
    /// means it does not do DPoP.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Vec<String>,
}

impl AuthorizationServerMetadata {
    /// Whether the server lists `method` among its token endpoint authentication methods.
    pub(crate) fn supports_auth(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// Whether the server takes DPoP proofs signed with `algorithm`.
    pub(crate) fn supports_dpop(&self, algorithm: &str) -> bool {
        self.dpop_signing_alg_values_supported
            .iter()
            .any(|a| a == algorithm)
    }
}

const PROTECTED_RESOURCE: &str = "/.well-known/oauth-protected-resource";
const AUTHORIZATION_SERVER: &str = "/.well-known/oauth-authorization-server";
const OPENID_CONFIGURATION: &str = "/.well-known/openid-configuration";

/// Where the Protected Resource Metadata of `server` may be, when no challenge said: the
/// well-known location with the server's path inserted, then the root one.
pub fn protected_resource_metadata_urls(server: &Url) -> Vec<Url> {
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(at_path(server, &format!("{PROTECTED_RESOURCE}{path}")));
    }
    urls.push(at_path(server, PROTECTED_RESOURCE));
    urls
}

/// Where the metadata of the authorization server `issuer` may be, in the order the MCP
/// specification tries them: for an issuer with a path, OAuth then OpenID with the path
/// inserted, then OpenID with it appended; for one without, OAuth then OpenID at the root.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            at_path(issuer, AUTHORIZATION_SERVER),
            at_path(issuer, OPENID_CONFIGURATION),
        ];
    }
    vec![
        at_path(issuer, &format!("{AUTHORIZATION_SERVER}{path}")),
        at_path(issuer, &format!("{OPENID_CONFIGURATION}{path}")),
        at_path(issuer, &format!("{path}{OPENID_CONFIGURATION}")),
    ]
}

/// Whether the metadata's `resource` may stand for `server`: the same origin, and a path that
/// is the server's or one of its ancestors (a root document speaks for the whole host).
pub fn resource_matches(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    let same_origin = resource.scheme() == server.scheme()
        && resource.host_str() == server.host_str()
        && resource.port_or_known_default() == server.port_or_known_default();
    let ancestor = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    let within = path == ancestor
        || path
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with('/'));
    same_origin && within && resource.query().is_none() && resource.fragment().is_none()
}

fn at_path(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// The Protected Resource Metadata of `server`: from `hinted` (a challenge's
/// `resource_metadata`) if it serves one, else from the well-known locations. A document whose
/// `resource` is not this server's is refused, not skipped: it is the server's own answer.
pub(crate) async fn protected_resource(
    stack: &HttpStack,
    server: &Url,
    hinted: Option<&str>,
) -> Result<ProtectedResourceMetadata, AuthError> {
    let hinted = hinted.and_then(|h| server.join(h).ok());
    let mut tried = Vec::new();
    for url in hinted
        .into_iter()
        .chain(protected_resource_metadata_urls(server))
    {
        match get_json::<ProtectedResourceMetadata>(stack, &url).await {
            Ok(Some(metadata)) => {
                if !resource_matches(&metadata.resource, server) {
                    return Err(AuthError::ResourceMismatch {
                        resource: metadata.resource,
                        server: server.to_string(),
                    });
                }
                return Ok(metadata);
            }
            Ok(None) => tried.push(url.to_string()),
            Err(e) => tried.push(format!("{url} ({e})")),
        }
    }
    Err(AuthError::NoResourceMetadata { tried })
}

/// The metadata of the authorization server `issuer`. The first document found must name
/// `issuer` exactly; one that names another is refused (RFC 8414 §3.3), since its endpoints
/// could be anyone's.
pub(crate) async fn authorization_server(
    stack: &HttpStack,
    issuer: &str,
) -> Result<AuthorizationServerMetadata, AuthError> {
    let url = Url::parse(issuer).map_err(|e| AuthError::InvalidUrl {
        url: issuer.to_owned(),
        reason: e.to_string(),
    })?;
    let mut tried = Vec::new();
    for location in authorization_server_metadata_urls(&url) {
        match get_json::<AuthorizationServerMetadata>(stack, &location).await {
            Ok(Some(metadata)) if metadata.issuer == issuer => return Ok(metadata),
            Ok(Some(metadata)) => {
                return Err(AuthError::IssuerMismatch {
                    expected: issuer.to_owned(),
                    found: metadata.issuer,
                });
            }
            Ok(None) => tried.push(location.to_string()),
            Err(e) => tried.push(format!("{location} ({e})")),
        }
    }
    Err(AuthError::NoServerMetadata {
        issuer: issuer.to_owned(),
        tried,
    })
}
