//! [`ResourceServer`]: what an MCP endpoint needs to act as an OAuth 2.1 resource server.

use std::fmt;
use std::sync::Arc;

use super::metadata::{InvalidResourceUrl, ProtectedResourceMetadata, ResourceUrl};
use super::{AuthError, Identity, TokenVerifier};

/// An MCP endpoint's authorization: which tokens it accepts, which scopes every request needs,
/// and the RFC 9728 metadata that tells clients where to get a token.
///
/// Give it to [`HttpTransport::auth`](crate::transport::http::HttpTransport::auth) or
/// [`McpServer::auth`](crate::server::McpServer::auth). Every request to the endpoint then needs
/// `Authorization: Bearer <token>`:
///
/// - no token: `401` with `WWW-Authenticate: Bearer resource_metadata="…"`;
/// - a token the verifier rejects: `401` with `error="invalid_token"`;
/// - a token without a required scope: `403` with `error="insufficient_scope"`;
/// - a verifier that cannot decide (its key server is down): `503`.
///
/// The metadata document is served without a token at `/.well-known/oauth-protected-resource`
/// and at the form with the endpoint's path appended (`…/oauth-protected-resource/mcp`).
/// Handlers read the verified caller with `Context::identity`, and every sealed `requestState`
/// is bound to its client id, issuer and subject.
///
/// ```
/// use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
///
/// let auth = ResourceServer::new(
///     "https://mcp.example.com/mcp",
///     "https://auth.example.com",
///     verify_fn(|token: String| async move {
///         // Ask the authorization server (token introspection, RFC 7662)…
///         Err::<Identity, _>(AuthError::invalid(format!("unknown token of {} bytes", token.len())))
///     }),
/// )?
/// .require_scopes(["mcp:tools"])
/// .resource_name("Example MCP server");
/// assert_eq!(
///     auth.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// # Ok::<(), mcp::auth::InvalidResourceUrl>(())
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    verifier: Arc<dyn TokenVerifier>,
    url: ResourceUrl,
    metadata: ProtectedResourceMetadata,
    required_scopes: Vec<String>,
}

/// Why a request was not let through, for the transport to answer in its own terms.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// No bearer token.
    Missing,
    /// The token was rejected.
    Invalid,
    /// The token lacks required scopes.
    InsufficientScope,
    /// The verifier could not decide.
    Unavailable,
}

impl ResourceServer {
    /// Protects the MCP endpoint at `resource` (its canonical URL, as clients use it) with
    /// tokens that `authorization_server` issues and `verifier` checks.
    ///
    /// The verifier must check that a token was issued for `resource` (RFC 8707 audience): a
    /// token minted for another server must not be accepted here.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Result<Self, InvalidResourceUrl> {
        let resource = resource.into();
        let url = ResourceUrl::parse(&resource)?;
        Ok(Self {
            verifier: Arc::new(verifier),
            url,
            metadata: ProtectedResourceMetadata {
                resource,
                authorization_servers: vec![authorization_server.into()],
                scopes_supported: Vec::new(),
                bearer_methods_supported: vec!["header".to_owned()],
                resource_name: None,
                resource_documentation: None,
            },
            required_scopes: Vec::new(),
        })
    }

    /// The common case: JWT access tokens that `issuer` signs with `key`, accepted only when
    /// their `iss` is `issuer` and their `aud` includes `resource`.
    ///
    /// ```
    /// use mcp::auth::{JwtKey, ResourceServer};
    ///
    /// let key = JwtKey::hmac(b"a-shared-secret-of-at-least-32-bytes!")?;
    /// let auth = ResourceServer::jwt("https://mcp.example.com/mcp", "https://auth.example.com", key)?;
    /// assert_eq!(auth.metadata().authorization_servers, ["https://auth.example.com"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "jwt")]
    pub fn jwt(
        resource: impl Into<String>,
        issuer: impl Into<String>,
        key: super::JwtKey,
    ) -> Result<Self, InvalidResourceUrl> {
        let resource = resource.into();
        let issuer = issuer.into();
        let verifier = super::JwtVerifier::new(key, issuer.clone(), resource.clone());
        Self::new(resource, issuer, verifier)
    }

    /// Lists another authorization server in the metadata.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.metadata.authorization_servers.push(issuer.into());
        self
    }

    /// Scopes every request needs; a token without all of them gets `403 insufficient_scope`.
    /// They are also advertised in the metadata and in the `401` challenge, so clients ask for
    /// them up front.
    pub fn require_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for scope in scopes.into_iter().map(Into::into) {
            self.advertise(&scope);
            self.required_scopes.push(scope);
        }
        self
    }

    /// Scopes advertised in the metadata (`scopes_supported`) besides the required ones.
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for scope in scopes.into_iter().map(Into::into) {
            self.advertise(&scope);
        }
        self
    }

    /// A human-readable name of the resource, for consent screens (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.metadata.resource_name = Some(name.into());
        self
    }

    /// A documentation page for developers (`resource_documentation`).
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.metadata.resource_documentation = Some(url.into());
        self
    }

    /// The RFC 9728 document served at the well-known paths.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.metadata
    }

    /// The absolute URL of the metadata document: the well-known prefix inserted before the
    /// resource's path (RFC 9728 §3.1), as sent in `WWW-Authenticate`.
    pub fn metadata_url(&self) -> String {
        self.url.metadata_url()
    }

    /// The scopes every request needs.
    pub fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    pub(crate) fn resource_url(&self) -> &ResourceUrl {
        &self.url
    }

    fn advertise(&mut self, scope: &str) {
        if !self.metadata.scopes_supported.iter().any(|s| s == scope) {
            self.metadata.scopes_supported.push(scope.to_owned());
        }
    }

    /// Verifies the bearer token of a request (`None`: the request had none) and checks the
    /// required scopes. Reasons are logged here; the caller only learns the kind of refusal.
    pub(crate) async fn authenticate(&self, token: Option<&str>) -> Result<Identity, Refusal> {
        let Some(token) = token else {
            tracing::debug!("refused a request without a bearer token");
            return Err(Refusal::Missing);
        };
        let identity = match self.verifier.verify(token).await {
            Ok(identity) => identity,
            Err(AuthError::Invalid(reason)) => {
                tracing::info!(%reason, "refused an invalid bearer token");
                return Err(Refusal::Invalid);
            }
            Err(AuthError::Unavailable(cause)) => {
                tracing::error!(error = %cause, "cannot verify bearer tokens");
                return Err(Refusal::Unavailable);
            }
        };
        let missing: Vec<&str> = self
            .required_scopes
            .iter()
            .filter(|required| !identity.scopes.contains(required))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            tracing::info!(
                subject = identity.subject.as_deref().unwrap_or_default(),
                ?missing,
                "refused a token without the required scopes"
            );
            return Err(Refusal::InsufficientScope);
        }
        Ok(identity)
    }
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("metadata", &self.metadata)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::verify_fn;

    fn server() -> ResourceServer {
        let verifier = verify_fn(|token: String| async move {
            match token.as_str() {
                "reader" => Ok(Identity {
                    scopes: vec!["read".into()],
                    ..Identity::default()
                }),
                "writer" => Ok(Identity {
                    scopes: vec!["read".into(), "write".into()],
                    ..Identity::default()
                }),
                "outage" => Err(AuthError::unavailable("the key server is down")),
                _ => Err(AuthError::invalid("unknown")),
            }
        });
        ResourceServer::new(
            "https://mcp.example.com/mcp",
            "https://as.example.com",
            verifier,
        )
        .expect("valid URL")
        .scopes_supported(["read", "admin"])
        .require_scopes(["read", "write"])
    }

    #[tokio::test]
    async fn each_kind_of_refusal_is_told_apart() {
        let server = server();
        assert!(matches!(
            server.authenticate(None).await,
            Err(Refusal::Missing)
        ));
        assert!(matches!(
            server.authenticate(Some("forged")).await,
            Err(Refusal::Invalid)
        ));
        assert!(matches!(
            server.authenticate(Some("reader")).await,
            Err(Refusal::InsufficientScope)
        ));
        assert!(matches!(
            server.authenticate(Some("outage")).await,
            Err(Refusal::Unavailable)
        ));
        assert!(server.authenticate(Some("writer")).await.is_ok());
    }

    #[test]
    fn required_scopes_are_advertised_once() {
        assert_eq!(
            server().metadata().scopes_supported,
            ["read", "admin", "write"]
        );
    }
}
