//! What an authorization leaves the client with: its identity at one authorization server and
//! the tokens that server issued. Secrets never show in `Debug` output.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::assertion::AssertionKey;

/// A client identifier and, for a confidential client, its secret or the private key it signs
/// assertions with, as an authorization server issued or registered them (pre-registered, or
/// from dynamic registration).
#[derive(Clone, Serialize, Deserialize)]
pub struct ClientCredentials {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, if the client has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The key of `private_key_jwt`: never written to a token store, so a registration read
    /// back from one takes it from the configured credentials.
    #[serde(skip)]
    pub(crate) signing_key: Option<AssertionKey>,
}

impl ClientCredentials {
    /// A public client: an identifier without a secret.
    pub fn public(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            signing_key: None,
        }
    }

    /// A confidential client with a secret (`client_secret_basic` or `client_secret_post`,
    /// whichever the authorization server takes, Basic first).
    pub fn confidential(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: Some(client_secret.into()),
            signing_key: None,
        }
    }

    /// A confidential client that authenticates with `private_key_jwt` (RFC 7523 §2.2): each
    /// token request carries a JWT assertion signed with the PEM private key `pem` (PKCS#8,
    /// SEC1 or PKCS#1) under `algorithm`, whose public key the authorization server holds.
    /// The assertion's `iss` and `sub` are `client_id`, its `aud` the server's issuer.
    ///
    /// ```no_run
    /// use mcp::auth::JwtAlgorithm;
    /// use mcp::client::auth::ClientCredentials;
    ///
    /// let pem = std::fs::read("agent-key.pem")?;
    /// let credentials = ClientCredentials::private_key_jwt("my-agent", &pem, JwtAlgorithm::ES256)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`AuthError::InvalidKey`](super::AuthError::InvalidKey) when `pem` is not a private key
    /// of `algorithm`'s kind, or `algorithm` is symmetric (HMAC).
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        pem: impl AsRef<[u8]>,
        algorithm: crate::auth::JwtAlgorithm,
    ) -> Result<Self, super::AuthError> {
        Ok(Self {
            client_id: client_id.into(),
            client_secret: None,
            signing_key: Some(AssertionKey::from_pem(pem.as_ref(), algorithm)?),
        })
    }
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| REDACTED),
            )
            .field("signing_key", &self.signing_key.as_ref().map(|_| REDACTED))
            .finish()
    }
}

/// How the client authenticates itself to the token endpoint (RFC 7591 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenEndpointAuth {
    /// `client_secret_basic`: the identifier and secret in an `Authorization: Basic` header.
    ClientSecretBasic,
    /// `client_secret_post`: the identifier and secret in the form body.
    ClientSecretPost,
    /// `none`: a public client sends its identifier only.
    None,
    /// `private_key_jwt`: a JWT assertion signed with the client's private key (RFC 7523).
    PrivateKeyJwt,
}

impl TokenEndpointAuth {
    /// The method's name in metadata documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::None => "none",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        [
            Self::ClientSecretBasic,
            Self::ClientSecretPost,
            Self::None,
            Self::PrivateKeyJwt,
        ]
        .into_iter()
        .find(|m| m.as_str() == name)
    }
}

/// The client's identity at one authorization server.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Registration {
    /// The identifier (a URL for a Client ID Metadata Document) and secret.
    pub credentials: ClientCredentials,
    /// How the token endpoint is told who the client is.
    pub auth: TokenEndpointAuth,
}

/// An access token, the refresh token that may come with it, and when it expires.
#[derive(Clone, Serialize, Deserialize)]
pub struct Tokens {
    access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    /// Seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<u64>,
    /// The scope granted, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scope: Option<String>,
    /// For a DPoP-bound token (`token_type: DPoP`), the thumbprint of the key it is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dpop_jkt: Option<String>,
}

impl Tokens {
    /// Tokens from a token response: `expires_in` counts from now.
    pub fn new(
        access_token: String,
        refresh_token: Option<String>,
        expires_in: Option<Duration>,
        scope: Option<String>,
    ) -> Self {
        let expires_at = expires_in.map(|d| unix_now().saturating_add(d.as_secs()));
        Self {
            access_token,
            refresh_token,
            expires_at,
            scope,
            dpop_jkt: None,
        }
    }

    /// The same tokens, bound by DPoP to the key whose thumbprint is `jkt`.
    pub(crate) fn bound_to(mut self, jkt: &str) -> Self {
        self.dpop_jkt = Some(jkt.to_owned());
        self
    }

    /// For a DPoP-bound access token, the RFC 7638 thumbprint of the key it is bound to: it
    /// goes out as `Authorization: DPoP …` with a proof signed by that key, and only by the
    /// [`OAuth`](super::OAuth) that holds it.
    pub fn dpop_jkt(&self) -> Option<&str> {
        self.dpop_jkt.as_deref()
    }

    /// The access token, to present as `Authorization: Bearer …` (or `DPoP …`, see
    /// [`dpop_jkt`](Self::dpop_jkt)).
    pub fn access_token(&self) -> &str {
        &self.access_token
    }

    /// The refresh token, if the server issued one.
    pub fn refresh_token(&self) -> Option<&str> {
        self.refresh_token.as_deref()
    }

    /// When the access token expires, if the server said.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at.map(|s| UNIX_EPOCH + Duration::from_secs(s))
    }

    /// The scope the server granted, if it said.
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// Whether the access token expires within `margin` from now.
    pub(crate) fn expires_within(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| at <= unix_now().saturating_add(margin.as_secs()))
    }

    /// A refresh response may leave out the refresh token: the old one stays valid then
    /// (RFC 6749 §6).
    pub(crate) fn keep_refresh_token(mut self, previous: &Tokens) -> Self {
        if self.refresh_token.is_none() {
            self.refresh_token = previous.refresh_token.clone();
        }
        self
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &REDACTED)
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| REDACTED),
            )
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("dpop_jkt", &self.dpop_jkt)
            .finish()
    }
}

/// Everything a client keeps about one protected server: which authorization server granted
/// access, the client's identity there, the scopes it asked for, and the tokens.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Grant {
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// Its token endpoint, for refreshing without discovering it again.
    pub token_endpoint: String,
    /// The resource indicator (RFC 8707) the tokens were requested for, as the server's
    /// metadata published it.
    pub resource: String,
    /// The client's identity at `issuer`.
    pub registration: Registration,
    /// The scopes requested, so a step-up asks for them again along with the new ones.
    pub scopes: Vec<String>,
    /// The tokens.
    pub tokens: Tokens,
}

const REDACTED: &str = "[redacted]";

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
