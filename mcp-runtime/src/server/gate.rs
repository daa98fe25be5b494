//! The generation gate: decides, per request, which wire it travels on and with what
//! capabilities, before any handler runs.

use std::sync::{Arc, LazyLock};

use crate::protocol::{
    ClientCapabilities, Generation, Implementation, JsonObject, LoggingLevel, McpError,
    ProgressToken, RequestMeta, is_modern, keys, methods,
};

use super::connection::{Connection, LegacySession};
use super::preread::Layout;

/// What the gate admitted: the wire a request travels on and what its client declared, for the
/// request's [`Context`](super::Context).
#[derive(Debug, Clone)]
pub(super) struct Admitted {
    pub generation: Generation,
    /// What the client declared: the request's own `_meta` (2026-07-28), or its session's
    /// declarations beside the request's other `_meta` keys (2025-11-25). Shared, not copied:
    /// a client sends the same `_meta` on every request, and a thread keeps the last one it
    /// read (`meta_cache`). Its `logLevel` and `progressToken` are not read from here.
    declared: Arc<RequestMeta>,
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
}

impl Admitted {
    /// What a 2025-11-25 session's client declared, for what it sends outside a request (a
    /// notification a hook runs for).
    pub(super) fn of_session(session: LegacySession) -> Self {
        Self::legacy(Some(session), &RequestMeta::default())
    }

    /// A 2025-11-25 request: what its session declared (nothing before `initialize`), with
    /// the other keys of the request's `_meta`.
    fn legacy(session: Option<LegacySession>, meta: &RequestMeta) -> Self {
        let (protocol_version, client_capabilities, client_info, log_level) = match session {
            Some(s) => (
                s.protocol_version,
                s.capabilities,
                Some(s.client_info),
                s.log_level,
            ),
            None => Default::default(),
        };
        Self {
            generation: Generation::V2025_11_25,
            declared: Arc::new(RequestMeta {
                protocol_version: Some(protocol_version),
                client_capabilities: Some(client_capabilities),
                client_info,
                log_level: None,
                progress_token: None,
                extra: meta.extra.clone(),
            }),
            log_level,
            progress_token: meta.progress_token.clone(),
        }
    }

    pub fn protocol_version(&self) -> &str {
        self.declared
            .protocol_version
            .as_deref()
            .unwrap_or_default()
    }

    pub fn client_capabilities(&self) -> &ClientCapabilities {
        static NONE: LazyLock<ClientCapabilities> = LazyLock::new(ClientCapabilities::default);
        // Always declared: `admit` refuses a modern request without, and sets a legacy one's.
        self.declared.client_capabilities.as_ref().unwrap_or(&NONE)
    }

    pub fn client_info(&self) -> Option<&Implementation> {
        self.declared.client_info.as_ref()
    }

    /// The other `_meta` keys.
    pub fn meta(&self) -> &JsonObject {
        &self.declared.extra
    }
}

/// What the gate reads from a request's params (with the one reader in `preread`): its
/// `_meta` and its `requestState`. A transport that has read them already (to route the
/// request) hands them over as a [`Preparsed`], so the params are not read for them twice.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GateInput {
    pub meta: Option<Arc<RequestMeta>>,
    pub request_state: StateField,
    /// Where the members the handler's params are decoded from lie.
    pub layout: Layout,
}

/// What stands in a request's `requestState` position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum StateField {
    /// Nothing, or `null`.
    #[default]
    Absent,
    /// A string: a token to open.
    Token(String),
    /// Anything else (another type, the member twice): never a valid token, whatever the
    /// server's settings, so it gets the fixed rejection.
    NotAToken,
}

/// The gate's input, read by a transport ahead of dispatch (see `preread`); handed over with
/// the request in its [`Exchange`](super::Exchange), opaque to the transport.
#[derive(Debug, Clone)]
pub(crate) struct Preparsed(Box<GateInput>);

impl Preparsed {
    /// Boxed at once: the futures that carry it while routing stay small.
    #[cfg(feature = "http")]
    pub(super) fn new(input: Box<GateInput>) -> Self {
        Self(input)
    }

    #[cfg(feature = "http")]
    pub(super) fn input(&self) -> &GateInput {
        &self.0
    }

    pub(super) fn into_input(self) -> GateInput {
        *self.0
    }
}

/// Admits a request or says why not; the raw `requestState` comes back beside what was
/// admitted, for the state boundary to open.
pub(super) fn admit(
    method: &str,
    input: GateInput,
    conn: &Connection,
) -> Result<(Admitted, StateField), McpError> {
    let meta = input.meta.unwrap_or_default();
    if let Some(version) = &meta.protocol_version {
        if !is_modern(version) {
            return Err(McpError::unsupported_version(version));
        }
        if meta.client_capabilities.is_none() {
            return Err(McpError::invalid_params(format!(
                "Missing _meta[\"{}\"]",
                keys::CLIENT_CAPABILITIES
            )));
        }
        if methods::LEGACY_ONLY.contains(&method) {
            return Err(McpError::method_not_found(method));
        }
        let admitted = Admitted {
            generation: Generation::V2026_07_28,
            log_level: meta.log_level,
            progress_token: meta.progress_token.clone(),
            declared: meta,
        };
        return Ok((admitted, input.request_state));
    }
    let session = conn.legacy_session();
    // 2025-11-25 lets either side ping at any time, before `initialize` too.
    if method == methods::INITIALIZE || method == methods::PING || session.is_some() {
        return Ok((Admitted::legacy(session, &meta), input.request_state));
    }
    Err(McpError::invalid_params(format!(
        "Missing _meta[\"{}\"]: a 2026-07-28 request carries its protocol version and client \
         capabilities; a 2025-11-25 client must call initialize first",
        keys::PROTOCOL_VERSION
    )))
}
