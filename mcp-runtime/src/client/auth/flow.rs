//! The authorization code grant with PKCE (S256), `state` and the RFC 8707 `resource`, the
//! checks on the redirect (RFC 9207 `iss`), the client credentials grant, and refreshing, on
//! the `oauth2` crate; each token request authenticated as the registration says and, with a
//! DPoP key, carrying a proof.

use std::sync::Arc;

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse as _, TokenUrl,
};
use url::Url;

use super::AuthError;
use super::assertion::JWT_BEARER;
use super::authorize::Authorize;
use super::discovery::AuthorizationServerMetadata;
use super::dpop::{DpopKey, is_dpop_token_type};
use super::http::{ExchangeFailed, OAuthHttp};
use super::tokens::{Grant, Registration, TokenEndpointAuth, Tokens};
use crate::transport::http_client::stack::HttpStack;

/// What one authorization asks for.
pub(crate) struct Request<'a> {
    /// The connections the token requests go out on.
    pub http: &'a HttpStack,
    pub metadata: &'a AuthorizationServerMetadata,
    pub registration: &'a Registration,
    /// The resource indicator, exactly as the server's metadata published it.
    pub resource: &'a str,
    pub scopes: &'a [String],
    /// The key the tokens are to be bound to, when the server does DPoP.
    pub dpop: Option<&'a Arc<DpopKey>>,
}

/// Runs the authorization code grant: the user's step through `authorize`, the checks on the
/// redirect, then the code exchange.
pub(crate) async fn authorize_code(
    request: Request<'_>,
    authorize: &dyn Authorize,
) -> Result<Tokens, AuthError> {
    let metadata = request.metadata;
    if !metadata
        .code_challenge_methods_supported
        .iter()
        .any(|m| m == "S256")
    {
        return Err(AuthError::PkceUnsupported {
            issuer: metadata.issuer.clone(),
        });
    }
    let authorization_endpoint = endpoint(metadata.authorization_endpoint.as_deref(), metadata)?;
    let token_endpoint = endpoint(metadata.token_endpoint.as_deref(), metadata)?;
    let redirect = RedirectUrl::new(authorize.redirect_uri().to_owned()).map_err(|e| {
        AuthError::InvalidUrl {
            url: authorize.redirect_uri().to_owned(),
            reason: e.to_string(),
        }
    })?;
    let client = with_credentials(
        BasicClient::new(ClientId::new(
            request.registration.credentials.client_id.clone(),
        )),
        request.registration,
    )
    .set_auth_uri(AuthUrl::from_url(authorization_endpoint))
    .set_token_uri(TokenUrl::from_url(token_endpoint))
    .set_redirect_uri(redirect);

    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, state) = client
        .authorize_url(CsrfToken::new_random)
        .add_scopes(request.scopes.iter().cloned().map(Scope::new))
        .add_extra_param("resource", request.resource)
        .set_pkce_challenge(challenge)
        .url();
    let response = authorize.authorize(&url).await?;
    if response.state.as_deref() != Some(state.secret().as_str()) {
        return Err(AuthError::StateMismatch);
    }
    check_issuer(metadata, response.iss.as_deref())?;

    let mut exchange = client
        .exchange_code(AuthorizationCode::new(response.code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", request.resource);
    for (name, value) in assertion(request.registration, &metadata.issuer)? {
        exchange = exchange.add_extra_param(name, value);
    }
    let tokens = exchange
        .request_async(&OAuthHttp {
            stack: request.http.clone(),
            dpop: request.dpop.cloned(),
        })
        .await
        .map_err(token_error)?;
    Ok(tokens_of(tokens, request.dpop))
}

/// Runs the client credentials grant (RFC 6749 §4.4): no user, the client asks for itself.
pub(crate) async fn client_credentials(request: Request<'_>) -> Result<Tokens, AuthError> {
    let metadata = request.metadata;
    let token_endpoint = endpoint(metadata.token_endpoint.as_deref(), metadata)?;
    let client = with_credentials(
        BasicClient::new(ClientId::new(
            request.registration.credentials.client_id.clone(),
        )),
        request.registration,
    )
    .set_token_uri(TokenUrl::from_url(token_endpoint));
    let mut exchange = client
        .exchange_client_credentials()
        .add_scopes(request.scopes.iter().cloned().map(Scope::new))
        .add_extra_param("resource", request.resource);
    for (name, value) in assertion(request.registration, &metadata.issuer)? {
        exchange = exchange.add_extra_param(name, value);
    }
    let tokens = exchange
        .request_async(&OAuthHttp {
            stack: request.http.clone(),
            dpop: request.dpop.cloned(),
        })
        .await
        .map_err(token_error)?;
    Ok(tokens_of(tokens, request.dpop))
}

/// RFC 9207: an `iss` that is there must be the issuer, compared as strings (no URL
/// normalization); a server that advertises `iss` must send it.
fn check_issuer(
    metadata: &AuthorizationServerMetadata,
    iss: Option<&str>,
) -> Result<(), AuthError> {
    match iss {
        Some(iss) if iss == metadata.issuer => Ok(()),
        Some(iss) => Err(AuthError::IssuerMismatch {
            expected: metadata.issuer.clone(),
            found: iss.to_owned(),
        }),
        None if metadata.authorization_response_iss_parameter_supported => {
            Err(AuthError::MissingIssuer {
                issuer: metadata.issuer.clone(),
            })
        }
        None => Ok(()),
    }
}

/// Exchanges `grant`'s refresh token for new tokens, authenticating as `registration`, with
/// a proof of `dpop` if given.
pub(crate) async fn refresh(
    http: &HttpStack,
    grant: &Grant,
    refresh_token: &str,
    registration: &Registration,
    dpop: Option<&Arc<DpopKey>>,
) -> Result<Tokens, AuthError> {
    let url = Url::parse(&grant.token_endpoint).map_err(|e| AuthError::InvalidUrl {
        url: grant.token_endpoint.clone(),
        reason: e.to_string(),
    })?;
    let client = with_credentials(
        BasicClient::new(ClientId::new(registration.credentials.client_id.clone())),
        registration,
    )
    .set_token_uri(TokenUrl::from_url(url));
    let refresh_token = RefreshToken::new(refresh_token.to_owned());
    let mut exchange = client
        .exchange_refresh_token(&refresh_token)
        .add_extra_param("resource", grant.resource.as_str());
    for (name, value) in assertion(registration, &grant.issuer)? {
        exchange = exchange.add_extra_param(name, value);
    }
    let tokens = exchange
        .request_async(&OAuthHttp {
            stack: http.clone(),
            dpop: dpop.cloned(),
        })
        .await
        .map_err(token_error)?;
    Ok(tokens_of(tokens, dpop))
}

/// The form parameters of `private_key_jwt`: a fresh assertion for each request, addressed
/// to `issuer`. Other methods have none.
fn assertion(
    registration: &Registration,
    issuer: &str,
) -> Result<Vec<(&'static str, String)>, AuthError> {
    if registration.auth != TokenEndpointAuth::PrivateKeyJwt {
        return Ok(Vec::new());
    }
    let credentials = &registration.credentials;
    let key = credentials
        .signing_key
        .as_ref()
        .ok_or_else(|| AuthError::InvalidKey {
            reason: format!(
                "the registration of {} says private_key_jwt, but no key was configured",
                credentials.client_id
            ),
        })?;
    Ok(vec![
        ("client_assertion_type", JWT_BEARER.to_owned()),
        (
            "client_assertion",
            key.assertion(&credentials.client_id, issuer)?,
        ),
    ])
}

/// The client authenticates as its registration says: a public client (`none`) sends its
/// identifier only, even if it holds a secret; `private_key_jwt` sends it beside the
/// assertion.
fn with_credentials<A, D, I, R, T>(
    client: oauth2::Client<
        BasicErrorResponse,
        BasicTokenResponse,
        oauth2::basic::BasicTokenIntrospectionResponse,
        oauth2::StandardRevocableToken,
        oauth2::basic::BasicRevocationErrorResponse,
        A,
        D,
        I,
        R,
        T,
    >,
    registration: &Registration,
) -> oauth2::Client<
    BasicErrorResponse,
    BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    A,
    D,
    I,
    R,
    T,
>
where
    A: oauth2::EndpointState,
    D: oauth2::EndpointState,
    I: oauth2::EndpointState,
    R: oauth2::EndpointState,
    T: oauth2::EndpointState,
{
    let secret = registration.credentials.client_secret.clone();
    match (registration.auth, secret) {
        (TokenEndpointAuth::ClientSecretBasic, Some(secret)) => client
            .set_client_secret(ClientSecret::new(secret))
            .set_auth_type(AuthType::BasicAuth),
        (TokenEndpointAuth::ClientSecretPost, Some(secret)) => client
            .set_client_secret(ClientSecret::new(secret))
            .set_auth_type(AuthType::RequestBody),
        _ => client.set_auth_type(AuthType::RequestBody),
    }
}

fn endpoint(url: Option<&str>, metadata: &AuthorizationServerMetadata) -> Result<Url, AuthError> {
    let url = url.ok_or_else(|| AuthError::IncompleteMetadata {
        issuer: metadata.issuer.clone(),
    })?;
    Url::parse(url).map_err(|e| AuthError::InvalidUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    })
}

/// The tokens of a response; bound to `dpop`'s key when the server says so (`token_type:
/// DPoP`), which it can only have done for a request that carried a proof.
fn tokens_of(response: BasicTokenResponse, dpop: Option<&Arc<DpopKey>>) -> Tokens {
    let scope = response.scopes().map(|scopes| {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    });
    let tokens = Tokens::new(
        response.access_token().secret().clone(),
        response.refresh_token().map(|t| t.secret().clone()),
        response.expires_in(),
        scope,
    );
    match dpop {
        Some(key) if is_dpop_token_type(response.token_type().as_ref()) => {
            tokens.bound_to(key.thumbprint())
        }
        _ => tokens,
    }
}

fn token_error(error: RequestTokenError<ExchangeFailed, BasicErrorResponse>) -> AuthError {
    match error {
        RequestTokenError::ServerResponse(response) => AuthError::TokenRefused {
            error: response.error().to_string(),
            description: response.error_description().cloned(),
        },
        RequestTokenError::Request(e) => AuthError::TokenExchange {
            reason: e.to_string(),
        },
        RequestTokenError::Parse(e, _) => AuthError::TokenExchange {
            reason: format!("unreadable token response: {e}"),
        },
        RequestTokenError::Other(reason) => AuthError::TokenExchange { reason },
    }
}
