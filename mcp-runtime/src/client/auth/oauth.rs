//! [`OAuth`]: the credentials of one protected server, obtained when the server asks for
//! them, refreshed before they expire, and kept in a [`TokenStore`].

use std::sync::Arc;
use std::time::Duration;

use url::Url;

use crate::BoxError;
use crate::transport::http_client::challenge::{self, Challenge};
use crate::transport::http_client::{Authorization, AuthorizationFuture, Refusal, RefusalKind};

use super::AuthError;
use super::authorize::Authorize;
use super::discovery::{self, AuthorizationServerMetadata};
use super::flow;
use super::registration::{self, ClientProfile};
use super::store::{MemoryTokenStore, TokenStore};
use super::tokens::{ClientCredentials, Grant};

/// How long before its expiry an access token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// The scope that asks for a refresh token (OpenID Connect, SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// An OAuth 2.1 client for one protected MCP server; hand it to
/// [`connect_with_auth`](crate::transport::http_client::connect_with_auth).
///
/// When the server answers `401`, it discovers the authorization server, identifies the
/// client there, takes the user through authorization (an [`Authorize`]) and exchanges the
/// code; on `403 insufficient_scope` it authorizes again for the scopes asked for plus those
/// held. The grant is kept in its [`TokenStore`], and requests wait while one of them obtains
/// or refreshes it, so concurrent requests share one authorization.
pub struct OAuth {
    authorize: Box<dyn Authorize>,
    profile: ClientProfile,
    offline_access: bool,
    store: Arc<dyn TokenStore>,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Whether the store was read (once, at the first request).
    loaded: bool,
    grant: Option<Grant>,
}

/// Configures an [`OAuth`].
pub struct OAuthBuilder {
    authorize: Box<dyn Authorize>,
    profile: ClientProfile,
    offline_access: bool,
    store: Arc<dyn TokenStore>,
}

impl OAuth {
    /// An OAuth client whose user authorizes through `authorize`.
    pub fn builder(authorize: impl Authorize) -> OAuthBuilder {
        OAuthBuilder {
            authorize: Box::new(authorize),
            profile: ClientProfile {
                name: "mcp-client".to_owned(),
                pre_registered: None,
                metadata_document: None,
            },
            offline_access: true,
            store: Arc::new(MemoryTokenStore::new()),
        }
    }

    /// The access token for `server`, refreshed first when it is about to expire.
    async fn token(&self, server: &str) -> Option<String> {
        let mut state = self.state.lock().await;
        self.load(&mut state, server).await;
        let grant = state.grant.as_ref()?;
        let refresh_token = grant.tokens.refresh_token();
        if grant.tokens.expires_within(REFRESH_MARGIN)
            && let Some(refresh_token) = refresh_token
        {
            match flow::refresh(
                &grant.token_endpoint,
                &grant.registration,
                refresh_token,
                &grant.resource,
            )
            .await
            {
                Ok(tokens) => {
                    let mut renewed = grant.clone();
                    renewed.tokens = tokens.keep_refresh_token(&grant.tokens);
                    self.keep(&mut state, server, renewed).await;
                }
                // The old token goes out; the server's 401 then starts a new authorization.
                Err(e) => tracing::warn!(error = %e, "refreshing the access token failed"),
            }
        }
        state
            .grant
            .as_ref()
            .map(|g| g.tokens.access_token().to_owned())
    }

    async fn refused(&self, server: &str, refusal: Refusal<'_>) -> Result<(), AuthError> {
        let mut state = self.state.lock().await;
        self.load(&mut state, server).await;
        let current = state.grant.as_ref().map(|g| g.tokens.access_token());
        if current != refusal.presented {
            // Another request renewed the token while this one was refused: try that one.
            return Ok(());
        }
        let challenge = refusal
            .www_authenticate
            .map(challenge::parse)
            .unwrap_or_default()
            .into_iter()
            .find(Challenge::is_bearer);
        let param = |name| challenge.as_ref().and_then(|c| c.param(name));
        let server_url = Url::parse(server).map_err(|e| AuthError::InvalidUrl {
            url: server.to_owned(),
            reason: e.to_string(),
        })?;
        let resource =
            discovery::protected_resource(&server_url, param("resource_metadata")).await?;
        let issuer = resource
            .authorization_servers
            .first()
            .ok_or(AuthError::NoAuthorizationServer)?
            .clone();
        // Same server as before: its grant's scopes are kept (a step-up adds to them), and
        // its registration and refresh token are still good.
        let previous = state.grant.as_ref().filter(|g| g.issuer == issuer);
        let asked: Vec<String> = match param("scope") {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => resource.scopes_supported.clone(),
        };
        let mut scopes = previous.map(|g| g.scopes.clone()).unwrap_or_default();
        for scope in asked {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        if let Some(previous) = previous
            && refusal.kind == RefusalKind::Unauthorized
            && refusal.earlier == 0
            && scopes == previous.scopes
            && let Some(refresh_token) = previous.tokens.refresh_token()
        {
            let refreshed = flow::refresh(
                &previous.token_endpoint,
                &previous.registration,
                refresh_token,
                &previous.resource,
            )
            .await;
            match refreshed {
                Ok(tokens) => {
                    let mut renewed = previous.clone();
                    renewed.tokens = tokens.keep_refresh_token(&previous.tokens);
                    self.keep(&mut state, server, renewed).await;
                    return Ok(());
                }
                Err(e) => tracing::info!(error = %e, "refresh refused; authorizing again"),
            }
        }
        let metadata = discovery::authorization_server(&issuer).await?;
        let registration = match state.grant.as_ref().filter(|g| g.issuer == issuer) {
            Some(grant) => grant.registration.clone(),
            // A new authorization server: credentials from another one are never reused.
            None => {
                registration::identify(&self.profile, &metadata, self.authorize.redirect_uri())
                    .await?
            }
        };
        let requested = self.with_offline_access(&metadata, &scopes);
        let tokens = flow::authorize_code(
            flow::Request {
                metadata: &metadata,
                registration: &registration,
                resource: &resource.resource,
                scopes: &requested,
            },
            self.authorize.as_ref(),
        )
        .await?;
        let token_endpoint =
            metadata
                .token_endpoint
                .clone()
                .ok_or_else(|| AuthError::IncompleteMetadata {
                    issuer: issuer.clone(),
                })?;
        let grant = Grant {
            issuer,
            token_endpoint,
            resource: resource.resource,
            registration,
            scopes,
            tokens,
        };
        self.keep(&mut state, server, grant).await;
        Ok(())
    }

    /// `scopes`, plus `offline_access` when the server offers refresh tokens that way and the
    /// request names scopes at all (an empty request leaves the choice to the server).
    fn with_offline_access(
        &self,
        metadata: &AuthorizationServerMetadata,
        scopes: &[String],
    ) -> Vec<String> {
        let mut requested = scopes.to_vec();
        let offered = metadata
            .scopes_supported
            .iter()
            .any(|s| s == OFFLINE_ACCESS);
        if self.offline_access
            && offered
            && !requested.is_empty()
            && !requested.iter().any(|s| s == OFFLINE_ACCESS)
        {
            requested.push(OFFLINE_ACCESS.to_owned());
        }
        requested
    }

    async fn load(&self, state: &mut State, server: &str) {
        if state.loaded {
            return;
        }
        state.loaded = true;
        match self.store.load(server).await {
            Ok(grant) => state.grant = grant,
            Err(e) => tracing::warn!(error = %e, "reading the token store failed"),
        }
    }

    async fn keep(&self, state: &mut State, server: &str, grant: Grant) {
        // A store that cannot save costs a new authorization after a restart, not this run.
        if let Err(e) = self.store.save(server, &grant).await {
            tracing::warn!(error = %e, "saving to the token store failed");
        }
        state.grant = Some(grant);
    }
}

impl Authorization for OAuth {
    fn token<'a>(&'a self, endpoint: &'a str) -> AuthorizationFuture<'a, Option<String>> {
        Box::pin(OAuth::token(self, endpoint))
    }

    fn refused<'a>(
        &'a self,
        endpoint: &'a str,
        refusal: Refusal<'a>,
    ) -> AuthorizationFuture<'a, Result<(), BoxError>> {
        Box::pin(async move {
            OAuth::refused(self, endpoint, refusal)
                .await
                .map_err(BoxError::from)
        })
    }
}

impl OAuthBuilder {
    /// The name the client registers under (default `mcp-client`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.profile.name = name.into();
        self
    }

    /// Credentials registered with an authorization server beforehand: used with `issuer`
    /// (or with any, if `None`) instead of registering.
    pub fn pre_registered(
        mut self,
        issuer: Option<String>,
        credentials: ClientCredentials,
    ) -> Self {
        self.profile.pre_registered = Some((issuer, credentials));
        self
    }

    /// The HTTPS URL of the client's metadata document, used as its `client_id` with
    /// authorization servers that accept one (`client_id_metadata_document_supported`).
    pub fn client_metadata_document(mut self, url: impl Into<String>) -> Self {
        self.profile.metadata_document = Some(url.into());
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) where the authorization server
    /// offers it (default: yes).
    pub fn offline_access(mut self, ask: bool) -> Self {
        self.offline_access = ask;
        self
    }

    /// Where grants are kept (default: in memory, for this run only).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The configured client.
    pub fn build(self) -> OAuth {
        OAuth {
            authorize: self.authorize,
            profile: self.profile,
            offline_access: self.offline_access,
            store: self.store,
            state: tokio::sync::Mutex::default(),
        }
    }
}
