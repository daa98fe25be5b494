//! The generation gate: decides, per request, which wire it travels on and with what
//! capabilities, before any handler runs.

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
    pub protocol_version: String,
    pub client_capabilities: ClientCapabilities,
    pub client_info: Option<Implementation>,
    pub log_level: Option<LoggingLevel>,
    pub progress_token: Option<ProgressToken>,
    /// Other `_meta` keys.
    pub meta: JsonObject,
}

impl Admitted {
    /// What a 2025-11-25 session's client declared, for what it sends outside a request (a
    /// notification a hook runs for).
    pub(super) fn of_session(session: LegacySession) -> Self {
        Self {
            generation: Generation::V2025_11_25,
            protocol_version: session.protocol_version,
            client_capabilities: session.capabilities,
            client_info: Some(session.client_info),
            log_level: session.log_level,
            progress_token: None,
            meta: JsonObject::new(),
        }
    }
}

/// What the gate reads from a request's params (with the one reader in `preread`): its
/// `_meta` and its `requestState`. A transport that has read them already (to route the
/// request) hands them over as a [`Preparsed`], so the params are not read for them twice.
#[derive(Debug, Clone, Default)]
pub(super) struct GateInput {
    pub meta: Option<RequestMeta>,
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
    if let Some(version) = meta.protocol_version {
        if !is_modern(&version) {
            return Err(McpError::unsupported_version(&version));
        }
        let Some(client_capabilities) = meta.client_capabilities else {
            return Err(McpError::invalid_params(format!(
                "Missing _meta[\"{}\"]",
                keys::CLIENT_CAPABILITIES
            )));
        };
        if methods::LEGACY_ONLY.contains(&method) {
            return Err(McpError::method_not_found(method));
        }
        let admitted = Admitted {
            generation: Generation::V2026_07_28,
            protocol_version: version,
            client_capabilities,
            client_info: meta.client_info,
            log_level: meta.log_level,
            progress_token: meta.progress_token,
            meta: meta.extra,
        };
        return Ok((admitted, input.request_state));
    }
    let session = conn.legacy_session();
    // 2025-11-25 lets either side ping at any time, before `initialize` too.
    if method == methods::INITIALIZE || method == methods::PING || session.is_some() {
        let (protocol_version, client_capabilities, client_info, log_level) = match session {
            Some(s) => (
                s.protocol_version,
                s.capabilities,
                Some(s.client_info),
                s.log_level,
            ),
            None => Default::default(),
        };
        let admitted = Admitted {
            generation: Generation::V2025_11_25,
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token: meta.progress_token,
            meta: meta.extra,
        };
        return Ok((admitted, input.request_state));
    }
    Err(McpError::invalid_params(format!(
        "Missing _meta[\"{}\"]: a 2026-07-28 request carries its protocol version and client \
         capabilities; a 2025-11-25 client must call initialize first",
        keys::PROTOCOL_VERSION
    )))
}
