//! [`OAuth`]: the credentials of one protected server, obtained when the server asks for
//! them, refreshed before they expire, kept in a [`TokenStore`], and bound to a DPoP key
//! where the authorization server does DPoP.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use url::Url;

use hyper::{HeaderMap, Method};

use crate::BoxError;
use crate::transport::http_client::challenge;
use crate::transport::http_client::stack::HttpStack;
use crate::transport::http_client::{
    Authorization, AuthorizationFuture, Credentials, HttpConnections, Refusal, RefusalKind,
};

use super::AuthError;
use super::authorize::Authorize;
use super::discovery::{self, AuthorizationServerMetadata};
use super::dpop::{self, DpopKey};
use super::flow;
use super::http::connections;
use super::registration::{self, ClientProfile};
use super::store::{MemoryTokenStore, TokenStore};
use super::tokens::{ClientCredentials, Grant, Registration};

/// How long before its expiry an access token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// The scope that asks for a refresh token (OpenID Connect, SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// An OAuth 2.1 client for one protected MCP server; hand it to
/// [`Builder::auth`](crate::transport::http_client::Builder::auth).
///
/// When the server answers `401`, it discovers the authorization server, identifies the
/// client there and obtains a token: through the user, with the authorization code grant
/// ([`OAuth::builder`], the user's step an [`Authorize`]), or for the client itself, with the
/// client credentials grant ([`OAuth::client_credentials`]). On `403 insufficient_scope` it
/// authorizes again for the scopes asked for plus those held. The grant is kept in its
/// [`TokenStore`], and requests wait while one of them obtains or refreshes it, so concurrent
/// requests share one authorization.
///
/// Where the authorization server does DPoP (RFC 9449; its metadata lists `ES256` in
/// `dpop_signing_alg_values_supported`), tokens are bound to a key pair this `OAuth` makes
/// for itself, and every request carries a proof of it ([`OAuthBuilder::dpop`]).
pub struct OAuth {
    flow: Flow,
    profile: ClientProfile,
    offline_access: bool,
    store: Arc<dyn TokenStore>,
    /// The key tokens are bound to by DPoP: none when DPoP is off.
    dpop: Option<Arc<DpopKey>>,
    state: tokio::sync::Mutex<State>,
    /// The connections of the endpoint it serves, lent when that was connected.
    http: OnceLock<HttpStack>,
}

/// Who grants access.
enum Flow {
    /// A user, through the authorization code grant.
    User(Box<dyn Authorize>),
    /// The client itself, with the credentials it was registered with (RFC 6749 §4.4).
    Client,
}

#[derive(Default)]
struct State {
    /// Whether the store was read (once, at the first request).
    loaded: bool,
    grant: Option<Grant>,
}

/// Configures an [`OAuth`].
pub struct OAuthBuilder {
    flow: Flow,
    profile: ClientProfile,
    offline_access: bool,
    store: Arc<dyn TokenStore>,
    dpop: bool,
}

impl OAuth {
    /// An OAuth client whose user authorizes through `authorize`.
    pub fn builder(authorize: impl Authorize) -> OAuthBuilder {
        OAuthBuilder {
            flow: Flow::User(Box::new(authorize)),
            profile: ClientProfile {
                name: "mcp-client".to_owned(),
                pre_registered: None,
                metadata_document: None,
            },
            offline_access: true,
            store: Arc::new(MemoryTokenStore::new()),
            dpop: true,
        }
    }

    /// An OAuth client for a machine, with no user: it obtains tokens for itself with the
    /// client credentials grant, authenticating with `credentials` (a secret, sent
    /// `client_secret_basic` or `client_secret_post` as the server takes them, or a key for
    /// `private_key_jwt`), which it presents to whichever authorization server the MCP server
    /// names, unless [`pre_registered`](OAuthBuilder::pre_registered) ties them to one.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::auth::JwtAlgorithm;
    /// use mcp::client::Client;
    /// use mcp::client::auth::{ClientCredentials, OAuth};
    /// use mcp::protocol::Implementation;
    /// use mcp::transport::http_client;
    ///
    /// let pem = std::fs::read("agent-key.pem")?;
    /// let credentials = ClientCredentials::private_key_jwt("nightly-report", &pem, JwtAlgorithm::ES256)?;
    /// // or: ClientCredentials::confidential("nightly-report", secret)
    /// let oauth = OAuth::client_credentials(credentials).build();
    /// let duplex = http_client::Builder::new("http://127.0.0.1:8000/mcp").auth(oauth).connect()?;
    /// let client = Client::builder(Implementation::new("nightly-report", "1.0.0")).connect(duplex);
    /// client.list_tools(None).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn client_credentials(credentials: ClientCredentials) -> OAuthBuilder {
        OAuthBuilder {
            flow: Flow::Client,
            profile: ClientProfile {
                name: "mcp-client".to_owned(),
                pre_registered: Some((None, credentials)),
                metadata_document: None,
            },
            offline_access: false,
            store: Arc::new(MemoryTokenStore::new()),
            dpop: true,
        }
    }

    /// The credentials for `method url` on `server`: its access token, refreshed first when
    /// it is about to expire, with a DPoP proof for this request if the token is bound.
    async fn credentials(&self, server: &str, method: &Method, url: &str) -> Option<Credentials> {
        let mut state = self.state.lock().await;
        self.load(&mut state, server).await;
        let grant = state.grant.as_ref()?;
        let refresh_token = grant.tokens.refresh_token();
        if grant.tokens.expires_within(REFRESH_MARGIN)
            && let Some(refresh_token) = refresh_token
        {
            let registration = self.registration_of(grant);
            let refreshed = match connections(&self.http) {
                Ok(http) => {
                    flow::refresh(
                        http,
                        grant,
                        refresh_token,
                        &registration,
                        self.dpop_of(grant),
                    )
                    .await
                }
                Err(e) => Err(e),
            };
            match refreshed {
                Ok(tokens) => {
                    let mut renewed = grant.clone();
                    renewed.tokens = tokens.keep_refresh_token(&grant.tokens);
                    self.keep(&mut state, server, renewed).await;
                }
                // The old token goes out; the server's 401 then starts a new authorization.
                Err(e) => tracing::warn!(error = %e, "refreshing the access token failed"),
            }
        }
        let grant = state.grant.as_ref()?;
        let token = self.presentable(grant)?;
        let Some(key) = self.dpop_of(grant) else {
            return Some(Credentials::bearer(token));
        };
        match key.proof(method.as_str(), url, Some(token)) {
            Ok(proof) => Some(Credentials::dpop(token, proof)),
            Err(e) => {
                tracing::warn!(error = %e, "making a DPoP proof failed");
                None
            }
        }
    }

    /// The grant's access token, if this client can present it: one bound to another key (a
    /// previous run's, read from the store) cannot be.
    fn presentable<'g>(&self, grant: &'g Grant) -> Option<&'g str> {
        let token = grant.tokens.access_token();
        match grant.tokens.dpop_jkt() {
            None => Some(token),
            Some(jkt) => self
                .dpop
                .as_ref()
                .filter(|key| key.thumbprint() == jkt)
                .map(|_| token),
        }
    }

    /// The key for `grant`'s requests: DPoP-bound grants are refreshed and presented with a
    /// proof, bearer ones without.
    fn dpop_of(&self, grant: &Grant) -> Option<&Arc<DpopKey>> {
        grant.tokens.dpop_jkt().and(self.dpop.as_ref())
    }

    /// A grant's registration, with the signing key of the configured credentials when it is
    /// theirs: keys never go to the store.
    fn registration_of(&self, grant: &Grant) -> Registration {
        let mut registration = grant.registration.clone();
        if let Some((_, configured)) = &self.profile.pre_registered
            && configured.client_id == registration.credentials.client_id
            && registration.credentials.signing_key.is_none()
        {
            registration.credentials.signing_key = configured.signing_key.clone();
        }
        registration
    }

    async fn refused(&self, server: &str, refusal: Refusal<'_>) -> Result<(), AuthError> {
        let mut state = self.state.lock().await;
        self.load(&mut state, server).await;
        let current = match &state.grant {
            Some(grant) => self.presentable(grant),
            None => None,
        };
        if current != refusal.presented {
            // Another request renewed the token while this one was refused: try that one.
            return Ok(());
        }
        let challenge = refusal
            .www_authenticate
            .map(challenge::parse)
            .unwrap_or_default()
            .into_iter()
            .find(|c| c.is_bearer() || c.is_dpop());
        let param = |name| challenge.as_ref().and_then(|c| c.param(name));
        let server_url = Url::parse(server).map_err(|e| AuthError::InvalidUrl {
            url: server.to_owned(),
            reason: e.to_string(),
        })?;
        let http = connections(&self.http)?;
        let resource =
            discovery::protected_resource(http, &server_url, param("resource_metadata")).await?;
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
            let registration = self.registration_of(previous);
            let refreshed = flow::refresh(
                http,
                previous,
                refresh_token,
                &registration,
                self.dpop_of(previous),
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
        let metadata = discovery::authorization_server(http, &issuer).await?;
        let dpop = match &self.dpop {
            Some(key) if metadata.supports_dpop(dpop::ALGORITHM) => Some(key),
            _ => None,
        };
        let (registration, tokens) = match &self.flow {
            Flow::User(authorize) => {
                let registration = match previous {
                    Some(grant) => self.registration_of(grant),
                    // A new authorization server: credentials from another one are never
                    // reused.
                    None => {
                        registration::identify(
                            http,
                            &self.profile,
                            &metadata,
                            authorize.redirect_uri(),
                        )
                        .await?
                    }
                };
                let requested = self.with_offline_access(&metadata, &scopes);
                let request = flow::Request {
                    http,
                    metadata: &metadata,
                    registration: &registration,
                    resource: &resource.resource,
                    scopes: &requested,
                    dpop,
                };
                let tokens = flow::authorize_code(request, authorize.as_ref()).await?;
                (registration, tokens)
            }
            Flow::Client => {
                let registration = registration::pre_registered(&self.profile, &metadata)
                    .ok_or_else(|| AuthError::NoClientIdentity {
                        issuer: issuer.clone(),
                    })?;
                let request = flow::Request {
                    http,
                    metadata: &metadata,
                    registration: &registration,
                    resource: &resource.resource,
                    scopes: &scopes,
                    dpop,
                };
                let tokens = flow::client_credentials(request).await?;
                (registration, tokens)
            }
        };
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
    fn credentials<'a>(
        &'a self,
        endpoint: &'a str,
        method: &'a Method,
        url: &'a str,
    ) -> AuthorizationFuture<'a, Option<Credentials>> {
        Box::pin(OAuth::credentials(self, endpoint, method, url))
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

    fn answered(&self, endpoint: &str, headers: &HeaderMap) {
        if let Some(key) = &self.dpop {
            key.observe(endpoint, headers);
        }
    }

    fn attach(&self, connections: &HttpConnections) {
        // The first connection's: an OAuth serves the one endpoint it was built for.
        let _ = self.http.set(connections.0.clone());
        if let Flow::User(authorize) = &self.flow {
            authorize.attach(connections);
        }
    }
}

impl OAuthBuilder {
    /// The name the client registers under (default `mcp-client`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.profile.name = name.into();
        self
    }

    /// Credentials registered with an authorization server beforehand: used with `issuer`
    /// (or with any, if `None`) instead of registering. For
    /// [`client_credentials`](OAuth::client_credentials), these replace the credentials given
    /// there.
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

    /// Whether to bind tokens to a key of the client's own with DPoP (RFC 9449) where the
    /// authorization server offers it (default: yes). The key pair (P-256) is made by
    /// [`build`](Self::build) and lives as long as the [`OAuth`]: a DPoP-bound token a
    /// [`FileTokenStore`](super::FileTokenStore) kept from an earlier run is not presented,
    /// its refresh token is tried instead.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp::client::auth::{HeadlessAuthorize, OAuth};
    /// use mcp::transport::http_client;
    ///
    /// // DPoP is on by default: requests go out as `Authorization: DPoP …` with a `DPoP`
    /// // proof whenever the authorization server issued a DPoP-bound token.
    /// let oauth = OAuth::builder(HeadlessAuthorize::new("http://127.0.0.1:8976/callback")).build();
    /// // Plain bearer tokens, even where DPoP is offered:
    /// let bearer_only = OAuth::builder(HeadlessAuthorize::new("http://127.0.0.1:8976/callback"))
    ///     .dpop(false)
    ///     .build();
    /// let duplex = http_client::Builder::new("http://127.0.0.1:8000/mcp").auth(oauth).connect()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn dpop(mut self, use_it: bool) -> Self {
        self.dpop = use_it;
        self
    }

    /// The configured client.
    pub fn build(self) -> OAuth {
        let dpop = if self.dpop {
            DpopKey::generate()
                .map(Arc::new)
                .inspect_err(|e| tracing::warn!(error = %e, "no DPoP key; bearer tokens only"))
                .ok()
        } else {
            None
        };
        OAuth {
            flow: self.flow,
            profile: self.profile,
            offline_access: self.offline_access,
            store: self.store,
            dpop,
            state: tokio::sync::Mutex::default(),
            http: OnceLock::new(),
        }
    }
}
