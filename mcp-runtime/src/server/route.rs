//! From an admitted request to its response line: routing by method, the handler call, the
//! checks on what it returned, and the envelope of the negotiated generation.

use std::future::{Future, ready};

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio_util::either::Either;

use crate::protocol::{
    ClientCapabilities, EmptyResult, Generation, InputRequiredResult, LoggingLevel, McpError,
    RawRequest, RequestId, WireResult, decode_params, methods, wire_result_line,
};

use super::Server;
use super::answer::{Exchange, Reply};
use super::context::Context;
use super::extension::ExtendedOutcome;
use super::gate::{GateInput, StateField, admit};
use super::handlers::Handler;
use super::middleware::{McpRequest, Pending, Stack};
use super::preread::{Layout, Pieces};
use super::refusal;
use super::sealing::MultiRoundParams;
use crate::boxed::BoxFuture;
use crate::state::RequestBinding;

impl Server {
    /// Routes a request to its handler: the reply, a response line or the error to answer
    /// with. Holds the transport's `held` until then.
    ///
    /// Not an `async fn` (see [`answer_holding`](Self::answer_holding)): the request is taken
    /// apart before the future is made, which holds its parts once.
    pub(super) fn route(
        self,
        request: RawRequest,
        exchange: Exchange,
        held: Option<Box<dyn Send>>,
    ) -> impl Future<Output = Reply> + use<> {
        let RawRequest { id, method, params } = request;
        async move {
            let _held = held;
            #[cfg(feature = "otel")]
            let outcome = self.traced_dispatch(&id, &method, params, exchange).await;
            #[cfg(not(feature = "otel"))]
            let outcome = self.dispatch(&id, &method, params, exchange).await;
            if let Err(error) = &outcome {
                refusal::rpc(Some(&method), error);
            }
            Reply::new(&id, outcome)
        }
    }

    /// A request through this server's layers, if it has any, to its handler (or to the
    /// mounted server it names).
    ///
    /// Not an `async fn`, nor [`routed`](Self::routed): an `async fn` keeps its arguments
    /// twice, as they came and as its body's own, in the future every request boxes.
    #[allow(clippy::manual_async_fn)] // see above
    pub(super) fn dispatch<'a>(
        &'a self,
        id: &'a RequestId,
        method: &'a str,
        params: Option<Box<RawValue>>,
        mut exchange: Exchange,
    ) -> impl Future<Output = Result<String, McpError>> + 'a {
        async move {
            // A listen is a stream open for as long as its client listens: a layer's timeout
            // would end it and a concurrency limit would be held by it.
            let layered =
                |_: &&Stack| !exchange.internal && method != methods::SUBSCRIPTIONS_LISTEN;
            match self.inner.middleware.as_ref().filter(layered) {
                None => {
                    let params = params.as_deref();
                    let (ctx, state, layout) =
                        self.admit_request(id, method, params, &mut exchange)?;
                    let read = Read {
                        params,
                        state,
                        layout,
                    };
                    self.routed(id, method, read, exchange, ctx).await
                }
                Some(stack) => {
                    // Boxed: twice the size of the way without layers, it would set the size
                    // of every request's future, which is boxed itself.
                    let layered = self.through_middleware(
                        stack,
                        id.clone(),
                        method.to_owned(),
                        params,
                        exchange,
                    );
                    Box::pin(layered).await
                }
            }
        }
    }

    /// A request through the server's middleware, which stands between its admission and its
    /// handler.
    async fn through_middleware(
        &self,
        stack: &Stack,
        id: RequestId,
        method: String,
        params: Option<Box<RawValue>>,
        mut exchange: Exchange,
    ) -> Result<String, McpError> {
        // A layer may hand on other params than these: their layout is not carried past it.
        let (ctx, state, _) = self.admit_request(&id, &method, params.as_deref(), &mut exchange)?;
        let pending = Pending {
            server: self.clone(),
            exchange,
            ctx,
            state,
        };
        stack
            .call(McpRequest::new(id, method, params, pending))
            .await
    }

    /// The gate's verdict on a request: its context, the `requestState` it carries, and where
    /// in `params` their members lie.
    fn admit_request(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<&RawValue>,
        exchange: &mut Exchange,
    ) -> Result<(Context, StateField, Layout), McpError> {
        if method.starts_with("notifications/") {
            return Err(McpError::invalid_request(format!(
                "{method} is a notification and must not carry an id"
            )));
        }
        let input = match exchange.preparsed.take() {
            Some(preparsed) => preparsed.into_input(),
            None => GateInput::read(params)?,
        };
        let layout = input.layout;
        let (admitted, state) = admit(method, input, &exchange.connection)?;
        Ok((
            Context::new(id.clone(), admitted, exchange, self),
            state,
            layout,
        ))
    }

    /// An admitted request, routed by method to its handler.
    #[allow(clippy::manual_async_fn)] // see `dispatch`
    pub(super) fn routed<'a>(
        &'a self,
        id: &'a RequestId,
        method: &'a str,
        read: Read<'a>,
        exchange: Exchange,
        ctx: Context,
    ) -> impl Future<Output = Result<String, McpError>> + 'a {
        async move {
            let params = read.params;
            // Past this server's own layers, so they see the requests of its mounted servers too.
            if let Some(target) = self.mount_target(method, params) {
                return Server::forward(target, id, method, exchange).await;
            }
            let generation = ctx.generation();
            let h = &self.inner.handlers;
            match method {
                methods::INITIALIZE => self.initialize(id, params, &exchange.connection),
                methods::PING if generation == Generation::V2025_11_25 => {
                    Ok(self.result_line(id, generation, EmptyResult::default()))
                }
                methods::SET_LEVEL if generation == Generation::V2025_11_25 => {
                    #[derive(serde::Deserialize)]
                    struct SetLevel {
                        level: LoggingLevel,
                    }
                    let p: SetLevel = decode_params(params)?;
                    exchange.connection.set_log_level(p.level);
                    Ok(self.result_line(id, generation, EmptyResult::default()))
                }
                methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE
                    if generation == Generation::V2025_11_25 && self.subscribable() =>
                {
                    self.set_subscription(method, params, &exchange.connection)?;
                    Ok(self.result_line(id, generation, EmptyResult::default()))
                }
                methods::SUBSCRIPTIONS_LISTEN if generation == Generation::V2026_07_28 => {
                    // Boxed: the largest state of all, which every request's future would carry
                    // room for (and be moved and boxed with) though one listen serves many.
                    Box::pin(self.listen(id, params, &exchange, ctx)).await
                }
                methods::DISCOVER if generation == Generation::V2026_07_28 => {
                    Ok(self.result_line(id, generation, self.discover()))
                }
                methods::TOOLS_LIST => {
                    self.single_round(id, ctx, params, h.list_tools.as_ref(), method)
                        .await
                }
                methods::PROMPTS_LIST => {
                    self.single_round(id, ctx, params, h.list_prompts.as_ref(), method)
                        .await
                }
                methods::RESOURCES_LIST => {
                    self.single_round(id, ctx, params, h.list_resources.as_ref(), method)
                        .await
                }
                methods::RESOURCE_TEMPLATES_LIST => {
                    let handler = h.list_resource_templates.as_ref();
                    self.single_round(id, ctx, params, handler, method).await
                }
                methods::COMPLETE => {
                    self.single_round(id, ctx, params, h.complete.as_ref(), method)
                        .await
                }
                methods::TOOLS_CALL => {
                    let handler = h.call_tool.as_ref();
                    self.multi_round(id, ctx, read, handler, method).await
                }
                methods::PROMPTS_GET => {
                    let handler = h.get_prompt.as_ref();
                    self.multi_round(id, ctx, read, handler, method).await
                }
                methods::RESOURCES_READ => {
                    let handler = h.read_resource.as_ref();
                    self.multi_round(id, ctx, read, handler, method).await
                }
                _ => {
                    if let Some(refusal) = self.unowned_task(method, params, &ctx) {
                        return Err(refusal);
                    }
                    self.extension_method(id, ctx, method, params).await
                }
            }
        }
    }

    /// A method whose handler returns a plain result.
    async fn single_round<P, R>(
        &self,
        id: &RequestId,
        ctx: Context,
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
        Ok(self.result_line(id, generation, result))
    }

    /// `tools/call`, `prompts/get`, `resources/read`: the state goes in opened and comes out
    /// sealed, and the handler may ask for input or answer with an extension's result.
    ///
    /// Not an `async fn`: everything before the handler runs when the future is made (it is
    /// awaited at once), so while the handler runs the future holds only what the answer needs.
    /// An `async fn` would keep its arguments and locals beside the handler's future, in the
    /// future every request boxes.
    fn multi_round<'a, P, R>(
        &'a self,
        id: &'a RequestId,
        ctx: Context,
        read: Read<'a>,
        handler: Option<&'a Handler<P, ExtendedOutcome<R>>>,
        method: &'a str,
    ) -> impl Future<Output = Result<String, McpError>> + 'a
    where
        P: DeserializeOwned + MultiRoundParams,
        R: WireResult,
    {
        match self.start_round(id, ctx, read, handler, method) {
            Ok(mut round) => Either::Left(async move {
                let outcome = round.handler.as_mut().await?;
                self.finish_round::<P, R>(round, outcome)
            }),
            Err(error) => Either::Right(ready(Err(error))),
        }
    }

    /// A multi-round request up to its handler: the params decoded, the state opened, the
    /// handler called.
    fn start_round<'a, P, R>(
        &self,
        id: &'a RequestId,
        ctx: Context,
        read: Read<'a>,
        handler: Option<&Handler<P, ExtendedOutcome<R>>>,
        method: &'a str,
    ) -> Result<Round<'a, R>, McpError>
    where
        P: DeserializeOwned + MultiRoundParams,
        R: WireResult,
    {
        let Read {
            params,
            state,
            layout,
        } = read;
        let handler = handler.ok_or_else(|| McpError::method_not_found(method))?;
        let identity = ctx.identity_handle();
        let pieces = layout.pieces(params);
        let from_pieces = pieces.as_ref().and_then(P::from_pieces);
        let mut decoded: P = match from_pieces.map_or_else(|| decode_params(params), Ok) {
            Ok(decoded) => decoded,
            Err(error) => {
                let identity = identity.as_deref();
                return Err(self.state_error_first(state, method, params, identity, error));
            }
        };
        // Digested only when there is state to open or seal, and at most once: from the
        // members' text when that is canonical already, else from the decoded params.
        let mut binding = None;
        let plaintext = self.open_state(
            state,
            || {
                let of_text = pieces.as_ref().and_then(|p| P::binding_of_text(p, method));
                &*binding.insert(of_text.unwrap_or_else(|| decoded.binding(method)))
            },
            identity.as_deref(),
        )?;
        decoded.set_request_state(plaintext);
        // A second handle on the context (not a copy of what the answer reads from it): futures
        // this size are moved about.
        let context = ctx.clone();
        Ok(Round {
            handler: handler(ctx, decoded),
            id,
            method,
            params,
            pieces,
            binding,
            context,
        })
    }

    /// The response line of a multi-round request whose handler has answered.
    fn finish_round<P, R>(
        &self,
        round: Round<'_, R>,
        outcome: ExtendedOutcome<R>,
    ) -> Result<String, McpError>
    where
        P: DeserializeOwned + MultiRoundParams,
        R: WireResult,
    {
        let Round {
            id,
            method,
            params,
            pieces,
            binding,
            context,
            ..
        } = round;
        let generation = context.generation();
        match outcome {
            ExtendedOutcome::Complete(result) => {
                #[cfg(feature = "otel")]
                if result.is_tool_error() {
                    crate::telemetry::note_tool_error();
                }
                Ok(self.result_line(id, generation, result))
            }
            ExtendedOutcome::Extension(result) => {
                let result = self.extension_answer(method, result, &context)?;
                Ok(self.result_line(id, generation, result))
            }
            ExtendedOutcome::InputRequired(ask) => {
                let capabilities = context.client_capabilities();
                let mut ask = check_input_required(ask, generation, capabilities)?;
                if let Some(plaintext) = ask.request_state.take() {
                    // A first round has not needed the binding yet; the handler owns the
                    // decoded params now, so the members it is made of are read again (only
                    // when state is sealed).
                    let binding = match binding {
                        Some(binding) => binding,
                        None => match pieces.as_ref().and_then(|p| P::binding_of(p, method)) {
                            Some(binding) => binding,
                            None => decode_params::<P>(params)?.binding(method),
                        },
                    };
                    let identity = context.identity_handle();
                    ask.request_state =
                        Some(self.seal_state(plaintext, &binding, method, identity.as_deref())?);
                }
                Ok(self.result_line(id, generation, ask))
            }
        }
    }

    /// The response line of `result`, with the fields the runtime fills for `generation`.
    pub(super) fn result_line<R: WireResult>(
        &self,
        id: &RequestId,
        generation: Generation,
        mut result: R,
    ) -> String {
        result.fill(self.result_fields(generation));
        wire_result_line(id, &result)
    }
}

/// A request's params as the gate read them: the `requestState` they carry, and where their
/// members lie (`Layout::default()` when not known, as past a middleware layer, which may hand
/// on other params).
pub(super) struct Read<'a> {
    pub params: Option<&'a RawValue>,
    pub state: StateField,
    pub layout: Layout,
}

/// A multi-round request while its handler runs: the handler's future, and what its answer
/// needs.
struct Round<'a, R> {
    handler: BoxFuture<Result<ExtendedOutcome<R>, McpError>>,
    id: &'a RequestId,
    method: &'a str,
    params: Option<&'a RawValue>,
    /// Where the members are, to make the binding from when the state is sealed again.
    pieces: Option<Pieces<'a>>,
    /// The binding, when opening the state needed it.
    binding: Option<RequestBinding>,
    /// A handle on the context the handler was given: the wire, the caller and the
    /// capabilities the answer is checked against.
    context: Context,
}

/// What a handler may ask of the client on this wire, with these declared capabilities.
fn check_input_required(
    ask: InputRequiredResult,
    generation: Generation,
    capabilities: &ClientCapabilities,
) -> Result<InputRequiredResult, McpError> {
    if generation == Generation::V2025_11_25 {
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
