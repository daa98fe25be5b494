//! Who the client is at an authorization server, in the MCP specification's order:
//! credentials registered beforehand, else a Client ID Metadata Document (its URL as the
//! `client_id`) where the server accepts one, else Dynamic Client Registration (RFC 7591).

use serde::Deserialize;
use serde_json::json;
use url::Url;

use super::AuthError;
use super::discovery::AuthorizationServerMetadata;
use super::http::post_json;
use super::tokens::{ClientCredentials, Registration, TokenEndpointAuth};
use crate::transport::http_client::stack::HttpStack;

/// What the client says about itself wherever it introduces itself.
#[derive(Debug, Clone)]
pub(crate) struct ClientProfile {
    pub name: String,
    /// Credentials registered beforehand, and the issuer they belong to (any, if `None`).
    pub pre_registered: Option<(Option<String>, ClientCredentials)>,
    /// The URL of the client's metadata document.
    pub metadata_document: Option<String>,
}

/// The client's identity at the server `metadata` describes, registering if need be.
pub(crate) async fn identify(
    stack: &HttpStack,
    profile: &ClientProfile,
    metadata: &AuthorizationServerMetadata,
    redirect_uri: &str,
) -> Result<Registration, AuthError> {
    if let Some(registration) = pre_registered(profile, metadata) {
        return Ok(registration);
    }
    if let Some(document) = &profile.metadata_document
        && metadata.client_id_metadata_document_supported
    {
        return Ok(Registration {
            credentials: ClientCredentials::public(document),
            auth: TokenEndpointAuth::None,
        });
    }
    if let Some(endpoint) = &metadata.registration_endpoint {
        return register(stack, profile, metadata, endpoint, redirect_uri).await;
    }
    Err(AuthError::NoClientIdentity {
        issuer: metadata.issuer.clone(),
    })
}

/// The credentials registered beforehand with the server `metadata` describes, if any.
pub(crate) fn pre_registered(
    profile: &ClientProfile,
    metadata: &AuthorizationServerMetadata,
) -> Option<Registration> {
    let (issuer, credentials) = profile.pre_registered.as_ref()?;
    if issuer.as_ref().is_some_and(|i| *i != metadata.issuer) {
        return None;
    }
    Some(Registration {
        auth: auth_method(metadata, credentials),
        credentials: credentials.clone(),
    })
}

/// The method for credentials issued beforehand: with a key, `private_key_jwt`; with a
/// secret, the first of Basic and POST the server takes; with neither, `none`.
fn auth_method(
    metadata: &AuthorizationServerMetadata,
    credentials: &ClientCredentials,
) -> TokenEndpointAuth {
    if credentials.signing_key.is_some() {
        return TokenEndpointAuth::PrivateKeyJwt;
    }
    if credentials.client_secret.is_none() {
        return TokenEndpointAuth::None;
    }
    [
        TokenEndpointAuth::ClientSecretBasic,
        TokenEndpointAuth::ClientSecretPost,
    ]
    .into_iter()
    .find(|m| metadata.supports_auth(m.as_str()))
    .unwrap_or(TokenEndpointAuth::None)
}

/// What a registration endpoint answers (RFC 7591 §3.2.1), as far as it matters here.
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// Registers the client at `endpoint`, asking for the first token endpoint method the server
/// takes (a secret-based one where offered, else `none`) and for refresh tokens.
async fn register(
    stack: &HttpStack,
    profile: &ClientProfile,
    metadata: &AuthorizationServerMetadata,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<Registration, AuthError> {
    let url = Url::parse(endpoint).map_err(|e| AuthError::InvalidUrl {
        url: endpoint.to_owned(),
        reason: e.to_string(),
    })?;
    let requested = [
        TokenEndpointAuth::ClientSecretBasic,
        TokenEndpointAuth::ClientSecretPost,
        TokenEndpointAuth::None,
    ]
    .into_iter()
    .find(|m| metadata.supports_auth(m.as_str()))
    .unwrap_or(TokenEndpointAuth::ClientSecretBasic);
    let body = json!({
        "client_name": profile.name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": requested.as_str(),
        // An agent on the user's machine, redirected to a loopback address.
        "application_type": "native",
    });
    let response = post_json(stack, &url, &body).await?;
    if !response.status().is_success() {
        return Err(AuthError::Registration {
            reason: format!(
                "HTTP {}: {}",
                response.status(),
                String::from_utf8_lossy(response.body())
            ),
        });
    }
    let registered: Registered =
        serde_json::from_slice(response.body()).map_err(|e| AuthError::Registration {
            reason: e.to_string(),
        })?;
    // The server may grant another method than asked: what it says is what the token
    // endpoint expects.
    let auth = match registered.token_endpoint_auth_method.as_deref() {
        Some(name) => TokenEndpointAuth::parse(name).ok_or_else(|| AuthError::Registration {
            reason: format!("unsupported token endpoint auth method {name:?}"),
        })?,
        None => requested,
    };
    let credentials = match registered.client_secret {
        Some(secret) => ClientCredentials::confidential(registered.client_id, secret),
        None => ClientCredentials::public(registered.client_id),
    };
    Ok(Registration { credentials, auth })
}
