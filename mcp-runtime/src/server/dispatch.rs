//! From an admitted request to its response line: routing, the handler call, the checks on
//! what it returned, and the envelope of the negotiated generation.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::auth::Identity;
use crate::protocol::{
    CallToolParams, DiscoverResult, EmptyResult, Generation, GetPromptParams, InitializeParams,
    InitializeResult, InputRequiredResult, LoggingLevel, MODERN_VERSIONS, McpError, Outcome,
    RawRequest, ReadResourceParams, RequestId, SubscribeParams, WireResult, decode_params,
    error_line, methods, negotiate_legacy, result_line,
};
use crate::state::canonical::write_str;
use crate::state::{InvalidRequestState, RequestBinding};

use super::Server;
use super::context::{ContextParts, NotificationSink, RequestContext};
use super::gate::{Admitted, Head, admit};
use super::handlers::Handler;
use super::session::{Connection, LegacySession};

/// What a transport hands the dispatcher along with a request.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The connection (or HTTP session) it arrived on.
    pub connection: Arc<Connection>,
    /// Where its notifications go.
    pub sink: NotificationSink,
    /// Fires when the client cancels it.
    pub cancellation: CancellationToken,
    /// The verified caller, if the transport authenticates.
    pub identity: Option<Arc<Identity>>,
    /// The params' `_meta` and `requestState`, when the transport has read them already.
    pub(crate) head: Option<Box<Head>>,
}

impl Exchange {
    /// An exchange with no verified caller.
    pub fn new(
        connection: Arc<Connection>,
        sink: NotificationSink,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            connection,
            sink,
            cancellation,
            identity: None,
            head: None,
        }
    }

    /// The verified caller the request comes from.
    pub fn with_identity(mut self, identity: Option<Arc<Identity>>) -> Self {
        self.identity = identity;
        self
    }

    /// Hands over the head of the params, read by the transport.
    pub(crate) fn with_head(mut self, head: Option<Box<Head>>) -> Self {
        self.head = head;
        self
    }
}

/// A carrier method's params: what its state is bound to, and the plaintext `requestState`
/// slot the handler reads.
trait Carrier {
    fn binding(&self, method: &str) -> RequestBinding;
    fn set_request_state(&mut self, state: Option<String>);
}

impl Carrier for CallToolParams {
    fn binding(&self, method: &str) -> RequestBinding {
        RequestBinding::with_object(method, &*self.name, self.arguments.as_ref())
    }
    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

impl Carrier for GetPromptParams {
    fn binding(&self, method: &str) -> RequestBinding {
        RequestBinding::with_arguments(method, &*self.name, |json| {
            let Some(arguments) = self.arguments.as_ref().filter(|a| !a.is_empty()) else {
                return false;
            };
            // A BTreeMap iterates in code-point order: already the canonical key order.
            json.push('{');
            for (i, (key, value)) in arguments.iter().enumerate() {
                if i > 0 {
                    json.push(',');
                }
                write_str(json, key);
                json.push(':');
                write_str(json, value);
            }
            json.push('}');
            true
        })
    }
    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

impl Carrier for ReadResourceParams {
    fn binding(&self, method: &str) -> RequestBinding {
        // Resources have no arguments; the URI is the whole request.
        RequestBinding::new(method, &*self.uri, None)
    }
    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

/// A response line, and the error code when it answers with an error: an HTTP transport maps
/// the code to a status without reading the line again.
#[derive(Debug)]
pub(crate) struct Reply {
    pub line: String,
    pub error_code: Option<i32>,
}

impl Reply {
    /// The line answering request `id` with `outcome`.
    pub(crate) fn new(id: &RequestId, outcome: Result<String, McpError>) -> Self {
        match outcome {
            Ok(line) => Reply {
                line,
                error_code: None,
            },
            Err(error) => Reply {
                line: error_line(Some(id), &error),
                error_code: Some(error.code),
            },
        }
    }
}

impl Server {
    /// Answers one request. Returns the response line (a result or an error).
    pub async fn handle_request(&self, request: RawRequest, exchange: Exchange) -> String {
        let id = request.id.clone();
        Reply::new(&id, self.dispatch(request, exchange).await).line
    }

    pub(crate) async fn dispatch(
        &self,
        request: RawRequest,
        mut exchange: Exchange,
    ) -> Result<String, McpError> {
        let RawRequest { id, method, params } = request;
        if method.starts_with("notifications/") {
            return Err(McpError::invalid_request(format!(
                "{method} is a notification and must not carry an id"
            )));
        }
        let params = params.as_deref();
        let head = match exchange.head.take() {
            Some(head) => *head,
            None => Head::read(params)?,
        };
        let admitted = admit(&method, head, &exchange.connection)?;
        let generation = admitted.generation;
        let (ctx, state) = self.context(&id, admitted, &exchange);
        let h = &self.inner.handlers;
        match method.as_str() {
            methods::INITIALIZE => self.initialize(&id, params, &exchange.connection),
            methods::PING if generation == Generation::Legacy => {
                Ok(self.respond(&id, generation, EmptyResult::default()))
            }
            methods::SET_LEVEL if generation == Generation::Legacy => {
                #[derive(serde::Deserialize)]
                struct SetLevel {
                    level: LoggingLevel,
                }
                let p: SetLevel = decode_params(params)?;
                exchange.connection.set_log_level(p.level);
                Ok(self.respond(&id, generation, EmptyResult::default()))
            }
            methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE
                if generation == Generation::Legacy && self.subscribable() =>
            {
                let p: SubscribeParams = decode_params(params)?;
                let subscribe = method == methods::RESOURCES_SUBSCRIBE;
                exchange.connection.set_subscribed(&p.uri, subscribe);
                Ok(self.respond(&id, generation, EmptyResult::default()))
            }
            methods::DISCOVER if generation == Generation::Modern => {
                Ok(self.respond(&id, generation, self.discover()))
            }
            methods::TOOLS_LIST => {
                self.simple(&id, ctx, params, h.list_tools.as_ref(), &method)
                    .await
            }
            methods::PROMPTS_LIST => {
                self.simple(&id, ctx, params, h.list_prompts.as_ref(), &method)
                    .await
            }
            methods::RESOURCES_LIST => {
                self.simple(&id, ctx, params, h.list_resources.as_ref(), &method)
                    .await
            }
            methods::RESOURCE_TEMPLATES_LIST => {
                let handler = h.list_resource_templates.as_ref();
                self.simple(&id, ctx, params, handler, &method).await
            }
            methods::COMPLETE => {
                self.simple(&id, ctx, params, h.complete.as_ref(), &method)
                    .await
            }
            methods::TOOLS_CALL => {
                let handler = h.call_tool.as_ref();
                self.multi_round(&id, ctx, params, state, handler, &method)
                    .await
            }
            methods::PROMPTS_GET => {
                let handler = h.get_prompt.as_ref();
                self.multi_round(&id, ctx, params, state, handler, &method)
                    .await
            }
            methods::RESOURCES_READ => {
                let handler = h.read_resource.as_ref();
                self.multi_round(&id, ctx, params, state, handler, &method)
                    .await
            }
            _ => Err(McpError::method_not_found(&method)),
        }
    }

    /// The handler's context, and the raw `requestState` it does not carry (the runtime opens
    /// that first).
    fn context(
        &self,
        id: &RequestId,
        admitted: Admitted,
        exchange: &Exchange,
    ) -> (RequestContext, Option<Value>) {
        let ctx = RequestContext::new(ContextParts {
            id: id.clone(),
            generation: admitted.generation,
            protocol_version: admitted.protocol_version,
            client_capabilities: admitted.client_capabilities,
            client_info: admitted.client_info,
            log_level: admitted.log_level,
            progress_token: admitted.progress_token,
            meta: admitted.meta,
            identity: exchange.identity.clone(),
            cancellation: exchange.cancellation.clone(),
            sink: exchange.sink.clone(),
            connection: exchange.connection.clone(),
            app_state: self.inner.app_state.clone(),
        });
        (ctx, admitted.request_state)
    }

    /// A method whose handler returns a plain result.
    async fn simple<P, R>(
        &self,
        id: &RequestId,
        ctx: RequestContext,
        params: Option<&RawValue>,
        handler: Option<&Handler<P, R>>,
        method: &str,
    ) -> Result<String, McpError>
    where
        P: DeserializeOwned,
        R: WireResult,
    {
        let handler = handler.ok_or_else(|| McpError::method_not_found(method))?;
        let params: P = decode_params(params)?;
        let generation = ctx.generation();
        let result = handler(ctx, params).await?;
        Ok(self.respond(id, generation, result))
    }

    /// `tools/call`, `prompts/get`, `resources/read`: the state goes in opened and comes out
    /// sealed, and the handler may ask for input.
    async fn multi_round<P, R>(
        &self,
        id: &RequestId,
        ctx: RequestContext,
        params: Option<&RawValue>,
        state: Option<Value>,
        handler: Option<&Handler<P, Outcome<R>>>,
        method: &str,
    ) -> Result<String, McpError>
    where
        P: DeserializeOwned + Carrier,
        R: WireResult,
    {
        let handler = handler.ok_or_else(|| McpError::method_not_found(method))?;
        let identity = ctx.identity_handle();
        let identity = identity.as_deref();
        let mut decoded: P = match decode_params(params) {
            Ok(decoded) => decoded,
            Err(error) => {
                return Err(self.state_error_first(state, method, params, identity, error));
            }
        };
        // Digested only when there is state to open or seal, and at most once.
        let mut binding = None;
        let plaintext = self.open_state(
            state,
            || &*binding.insert(decoded.binding(method)),
            identity,
        )?;
        decoded.set_request_state(plaintext);
        let generation = ctx.generation();
        // A second handle on the context (not a copy of the capabilities): checking the
        // questions against them is the exception, and futures this size are moved about.
        let asker = ctx.clone();
        match handler(ctx, decoded).await? {
            Outcome::Complete(result) => Ok(self.respond(id, generation, result)),
            Outcome::InputRequired(ask) => {
                let capabilities = asker.client_capabilities();
                let mut ask = self.check_input_required(ask, generation, capabilities)?;
                if let Some(plaintext) = ask.request_state.take() {
                    // A first round has not needed the binding yet; the handler owns the
                    // decoded params now, so they are read again (only when state is sealed).
                    let binding = match binding {
                        Some(binding) => binding,
                        None => decode_params::<P>(params)?.binding(method),
                    };
                    let sealed = self.seal_state(plaintext, &binding, method, identity)?;
                    ask.request_state = Some(sealed);
                }
                Ok(self.respond(id, generation, ask))
            }
        }
    }

    /// The inbound `requestState` as the handler will see it. Without a boundary it passes
    /// through; with one it must open, or the request ends in the fixed rejection.
    fn open_state<'b>(
        &self,
        state: Option<Value>,
        binding: impl FnOnce() -> &'b RequestBinding,
        identity: Option<&Identity>,
    ) -> Result<Option<String>, McpError> {
        let token = match state {
            None | Some(Value::Null) => return Ok(None),
            Some(token) => token,
        };
        let Some(boundary) = &self.inner.state else {
            return match token {
                Value::String(s) => Ok(Some(s)),
                _ => Err(McpError::invalid_params("requestState must be a string")),
            };
        };
        let binding = binding();
        let method = binding.method();
        boundary
            .open(&token, binding, identity)
            .map(Some)
            .map_err(|rejected| {
                tracing::warn!(
                    method,
                    reason = rejected.reason(),
                    "requestState rejected on {method}: {}",
                    rejected.reason()
                );
                McpError::from(rejected)
            })
    }

    /// The error for params that do not decode: a `requestState` that does not open is
    /// reported first, with the fixed rejection, so bad params never tell a forger more.
    fn state_error_first(
        &self,
        state: Option<Value>,
        method: &str,
        params: Option<&RawValue>,
        identity: Option<&Identity>,
        params_error: McpError,
    ) -> McpError {
        let Some(binding) = RequestBinding::from_raw_params(method, params) else {
            return match state {
                Some(token) if !token.is_null() && self.inner.state.is_some() => {
                    InvalidRequestState::new("request binding").into()
                }
                _ => params_error,
            };
        };
        match self.open_state(state, || &binding, identity) {
            Ok(_) => params_error,
            Err(state_error) => state_error,
        }
    }

    /// Seals a handler's outbound state for this request (passes it through without a
    /// boundary).
    fn seal_state(
        &self,
        plaintext: String,
        binding: &RequestBinding,
        method: &str,
        identity: Option<&Identity>,
    ) -> Result<String, McpError> {
        let Some(boundary) = &self.inner.state else {
            return Ok(plaintext);
        };
        boundary
            .seal(&plaintext, binding, identity)
            .map_err(|error| {
                tracing::error!(method, %error, "sealing requestState failed");
                McpError::from(error)
            })
    }

    fn check_input_required(
        &self,
        ask: InputRequiredResult,
        generation: Generation,
        capabilities: &crate::protocol::ClientCapabilities,
    ) -> Result<InputRequiredResult, McpError> {
        if generation == Generation::Legacy {
            tracing::warn!("a handler asked for input in a 2025-11-25 session; answering -32603");
            return Err(McpError::internal(
                "This request needs input from the client, which a 2025-11-25 session cannot \
                 carry as an InputRequiredResult",
            ));
        }
        ask.validate()?;
        if let Some(missing) = ask.missing_capabilities(capabilities) {
            return Err(McpError::missing_capability(
                "This request needs client capabilities it did not declare",
                &missing,
            ));
        }
        Ok(ask)
    }

    fn respond<R: WireResult>(
        &self,
        id: &RequestId,
        generation: Generation,
        mut result: R,
    ) -> String {
        result.stamp(self.stamp(generation));
        result_line(id, &result)
    }

    /// 2025-11-25 sessions may subscribe to resources whenever the server has any. (On
    /// 2026-07-28 the same wish goes through `subscriptions/listen`, which is not served yet,
    /// so `discover` does not advertise it.)
    fn subscribable(&self) -> bool {
        self.inner.handlers.read_resource.is_some()
    }

    fn discover(&self) -> DiscoverResult {
        DiscoverResult {
            result_type: None,
            supported_versions: MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: self.inner.capabilities.clone(),
            instructions: self.inner.instructions.clone(),
            meta: None,
            ttl_ms: None,
            cache_scope: None,
        }
    }

    fn initialize(
        &self,
        id: &RequestId,
        params: Option<&RawValue>,
        connection: &Connection,
    ) -> Result<String, McpError> {
        let p: InitializeParams = decode_params(params)?;
        let version = negotiate_legacy(&p.protocol_version);
        let opened = connection.open_legacy(LegacySession {
            protocol_version: version.to_owned(),
            capabilities: p.capabilities,
            client_info: p.client_info,
            log_level: None,
            initialized: false,
        });
        if !opened {
            return Err(McpError::invalid_request(
                "The session is already initialized",
            ));
        }
        let mut capabilities = self.inner.capabilities.clone();
        if self.subscribable()
            && let Some(resources) = capabilities.resources.as_mut()
        {
            resources.subscribe = Some(true);
        }
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities,
            server_info: (*self.inner.info).clone(),
            instructions: self.inner.instructions.clone(),
            meta: None,
        };
        Ok(result_line(id, &result))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn decoded_params_bind_as_their_json_does() {
        let args = json!({"zeta": "1", "alpha": "x\"y", "é": "ü"});
        let prompt: GetPromptParams =
            serde_json::from_value(json!({"name": "p", "arguments": args})).expect("params");
        assert_eq!(
            prompt.binding("prompts/get"),
            RequestBinding::new("prompts/get", "p", Some(&args))
        );
        let bare: GetPromptParams =
            serde_json::from_value(json!({"name": "p", "arguments": {}})).expect("params");
        assert_eq!(
            bare.binding("prompts/get"),
            RequestBinding::new("prompts/get", "p", None)
        );
        let call: CallToolParams =
            serde_json::from_value(json!({"name": "t", "arguments": {"b": [2], "a": 1.5}}))
                .expect("params");
        assert_eq!(
            call.binding("tools/call"),
            RequestBinding::new("tools/call", "t", Some(&json!({"a": 1.5, "b": [2]})))
        );
        let read: ReadResourceParams =
            serde_json::from_value(json!({"uri": "x://y"})).expect("params");
        assert_eq!(
            read.binding("resources/read"),
            RequestBinding::new("resources/read", "x://y", None)
        );
    }
}
