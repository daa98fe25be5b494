//! [`McpRequest`]: one admitted request as a middleware layer sees it.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::identity::Identity;
use crate::protocol::{Generation, McpError, RequestId, methods};
use crate::server::Server;
use crate::server::answer::Exchange;
use crate::server::context::Context;
use crate::server::gate::StateField;
use crate::server::preread::Layout;
use crate::server::route::Read;

/// One MCP request on its way through the middleware: decoded, admitted by the generation
/// gate, its caller verified, its handler not yet run.
///
/// ```
/// use mcp::server::McpRequest;
///
/// // An audit line, as a `tower::util::MapRequestLayer` might write it.
/// fn audit(request: &McpRequest) -> String {
///     let caller = request.identity().and_then(|i| i.subject.as_deref()).unwrap_or("anonymous");
///     format!("{} {} by {caller}", request.method(), request.target().unwrap_or("-"))
/// }
/// # let _ = audit;
/// ```
pub struct McpRequest {
    id: RequestId,
    method: String,
    target: Option<String>,
    params: Option<Box<RawValue>>,
    identity: Option<Arc<Identity>>,
    pending: Pending,
}

/// What the dispatch behind the layers needs and no layer may touch.
pub(in crate::server) struct Pending {
    pub server: Server,
    pub exchange: Exchange,
    pub ctx: Context,
    pub state: StateField,
}

impl McpRequest {
    pub(in crate::server) fn new(
        id: RequestId,
        method: String,
        params: Option<Box<RawValue>>,
        pending: Pending,
    ) -> Self {
        let target = target_of(&method, params.as_deref());
        let identity = pending.ctx.identity_handle();
        Self {
            id,
            method,
            target,
            params,
            identity,
            pending,
        }
    }

    /// The JSON-RPC method (`tools/call`, `resources/read`, …).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// What the request is about: the tool's name on `tools/call`, the prompt's on
    /// `prompts/get`, the URI on `resources/read`; `None` for every other method, and when
    /// the params do not say (the handler then answers with the error).
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// The JSON-RPC id (each round of a multi-round call has a new one).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The verified caller, when the transport authenticates (HTTP with `auth`).
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_deref()
    }

    /// The protocol revision the request travels on (`2026-07-28`, `2025-11-25`, …).
    pub fn protocol_version(&self) -> &str {
        self.pending.ctx.protocol_version()
    }

    /// The wire: stateless 2026-07-28, or a 2025-11-25 session.
    pub fn generation(&self) -> Generation {
        self.pending.ctx.generation()
    }

    /// The params as the client sent them (`_meta` included).
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// Runs the request's handler: what the innermost service does.
    pub(crate) async fn dispatch(self) -> Result<String, McpError> {
        let Self {
            id,
            method,
            params,
            pending,
            ..
        } = self;
        let Pending {
            server,
            exchange,
            ctx,
            state,
        } = pending;
        server
            .routed(
                &id,
                &method,
                Read {
                    params: params.as_deref(),
                    state,
                    layout: Layout::default(),
                },
                exchange,
                ctx,
            )
            .await
    }
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("target", &self.target)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// The tool or prompt name, or the resource URI, of the three methods that name one.
fn target_of(method: &str, params: Option<&RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named<'a> {
        #[serde(borrow, default)]
        name: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        uri: Option<Cow<'a, str>>,
    }
    let named = || serde_json::from_str::<Named<'_>>(params?.get()).ok();
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => named()?.name.map(Cow::into_owned),
        methods::RESOURCES_READ => named()?.uri.map(Cow::into_owned),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).expect("JSON")
    }

    #[test]
    fn the_target_is_the_name_or_uri_of_the_methods_that_have_one() {
        let call = raw(r#"{"name":"add","arguments":{"name":"not this"}}"#);
        assert_eq!(
            target_of(methods::TOOLS_CALL, Some(&call)).as_deref(),
            Some("add")
        );
        let read = raw(r#"{"uri":"notes://1","_meta":{}}"#);
        assert_eq!(
            target_of(methods::RESOURCES_READ, Some(&read)).as_deref(),
            Some("notes://1")
        );
        assert_eq!(target_of(methods::TOOLS_LIST, Some(&call)), None);
        assert_eq!(target_of(methods::TOOLS_CALL, Some(&raw("[1]"))), None);
        assert_eq!(target_of(methods::TOOLS_CALL, None), None);
    }
}
