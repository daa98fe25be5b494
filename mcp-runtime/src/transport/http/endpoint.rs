//! The axum handlers of the endpoint: the `Host`/`Origin` and access-token checks every
//! method passes, POST routed to the stateless wire or to a session, GET and DELETE for sessions, and
//! the RFC 9728 metadata document.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use tokio_util::sync::CancellationToken;

use crate::identity::Identity;
use crate::outlined::Outlined;
use crate::protocol::{Incoming, McpError, error_line, methods};
use crate::server::Server;

use super::auth_guard::{Admitted, AuthGuard};
use super::body::BodyRules;
use super::headers::Decisive;
use super::host_policy::HostPolicy;
use super::overload::{self, RequestSlots};
use super::respond::{self, StatusRules};
use super::sessions::{self, SessionTable};
use super::tool_headers::{self, ToolHeaders};
use super::{drain, stateless};

/// What every request handler shares.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) server: Server,
    pub(super) hosts: HostPolicy,
    /// Present when the endpoint requires access tokens.
    pub(super) auth: Option<AuthGuard>,
    pub(super) sessions: SessionTable,
    pub(super) tool_headers: ToolHeaders,
    /// Shared rather than cloned per request: a token's clone takes its lock.
    pub(super) streams_closing: Arc<CancellationToken>,
    pub(super) bodies: BodyRules,
    pub(super) requests: RequestSlots,
    /// The `subscriptions/listen` streams open at once.
    pub(super) listens: RequestSlots,
}

impl Shared {
    /// The verified caller (`None` when the endpoint takes no tokens), or the refusal.
    async fn authenticate(
        &self,
        method: &Method,
        headers: &HeaderMap,
    ) -> Result<Option<Admitted>, Response> {
        match &self.auth {
            Some(auth) => auth.authenticate(method, headers).await.map(Some),
            None => Ok(None),
        }
    }

    /// The headers `tool`'s input schema binds to its arguments.
    pub(super) fn header_bindings<'a>(
        &'a self,
        tool: &'a str,
    ) -> impl Future<Output = tool_headers::Bindings> + 'a {
        self.tool_headers.bindings(&self.server, tool)
    }

    /// Every response leaves through here: once shutdown has begun it says the connection
    /// closes after it.
    pub(super) fn finish(&self, response: Response) -> Response {
        drain::close_when_stopping(&self.streams_closing, response)
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.sessions.close_all();
    }
}

fn forbidden(uri: &Uri, sent: &Decisive<'_>, hosts: &HostPolicy) -> Option<Response> {
    let reason = hosts.check(uri, sent).err()?;
    tracing::warn!(%reason, "rejected a request (DNS-rebinding protection)");
    let error = McpError::invalid_request("Forbidden: Host or Origin not allowed");
    Some(respond::json_with_status(
        error_line(None, &error),
        StatusCode::FORBIDDEN,
    ))
}

/// The endpoint as [`HttpTransport::serve`](super::HttpTransport::serve) calls it for a POST to
/// its path, without the router: for a small request the router's matching, extractors and
/// boxed futures were about a tenth of an echo's instructions.
#[derive(Debug, Clone)]
pub(super) struct Endpoint {
    pub shared: Arc<Shared>,
    /// The endpoint's path, when it is one literal path.
    pub path: Option<Arc<str>>,
}

impl Endpoint {
    /// Whether `request` is one that the router would hand to [`on_post`].
    pub fn takes<B>(&self, request: &Request<B>) -> bool {
        request.method() == Method::POST
            && self
                .path
                .as_deref()
                .is_some_and(|path| request.uri().path() == path)
    }
}

/// [`on_post`] with the request as hyper gives it. The body goes in axum's box, as through the
/// router: a handler of hyper's body too would be a second copy of all the code it inlines.
pub(super) fn post_direct(
    shared: Arc<Shared>,
    request: Request<hyper::body::Incoming>,
) -> Outlined<impl Future<Output = Response>> {
    on_post(State(shared), request.map(Body::new))
}

/// The endpoint's POST handler, for the router and for [`post_direct`]: one copy of its code,
/// polled from both.
pub(super) fn on_post(
    State(shared): State<Arc<Shared>>,
    request: Request,
) -> Outlined<impl Future<Output = Response>> {
    // Split here rather than in `post`: an async fn keeps its arguments for its whole life, and
    // the request would stand beside its own parts (this future lives in each connection).
    let (parts, body) = request.into_parts();
    Outlined::new(post(shared, parts, body))
}

// Not an `async fn`: that would move its arguments into locals of its own and keep both
// copies for its whole life; an `async move` block holds what it captures once. The same goes
// for the other futures every POST builds, which hyper moves several times on their way in.
#[allow(clippy::manual_async_fn)]
fn post(shared: Arc<Shared>, parts: Parts, body: Body) -> impl Future<Output = Response> {
    async move {
        let sent = Decisive::of(&parts.headers);
        let guarded = guard(&shared, &parts.method, &parts.uri, &sent);
        let admitted = match guarded.await {
            Ok(admitted) => admitted,
            Err(refused) => return shared.finish(refused),
        };
        let identity = admitted.as_ref().map(|a| a.identity.clone());
        let response = post_response(&shared, &sent, identity, body).await;
        let response = match (&shared.auth, &admitted) {
            (Some(auth), Some(admitted)) => auth.step_up(response, &admitted.identity),
            _ => response,
        };
        shared.finish(answer(admitted.as_ref(), response))
    }
}

async fn post_response(
    shared: &Shared,
    sent: &Decisive<'_>,
    identity: Option<Arc<Identity>>,
    body: Body,
) -> Response {
    // A declared non-JSON body is refused; a missing Content-Type is tolerated because the
    // body is parsed as JSON either way and some minimal clients omit it.
    let Ok(content_type) = sent.content_type.single() else {
        let error = McpError::invalid_request("Content-Type is sent twice");
        return respond::error(None, &error, StatusRules::Stateless);
    };
    if let Some(content_type) = content_type {
        let is_json = content_type
            .to_str()
            .ok()
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return respond::refused(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the body is not declared as application/json",
            );
        }
    }
    // The spec has clients list both types; one that lists only one is still served (in that
    // form), and only a client that takes neither cannot be answered at all.
    let sse_allowed = sent.accepts("text/event-stream");
    if !sse_allowed && !sent.accepts("application/json") {
        return respond::refused(
            StatusCode::NOT_ACCEPTABLE,
            "Accept lists neither application/json nor text/event-stream",
        );
    }
    let body = match shared.bodies.read(body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let Ok(text) = std::str::from_utf8(&body.bytes) else {
        let error = McpError::parse_error("The body is not UTF-8");
        return respond::error(None, &error, StatusRules::Stateless);
    };
    let message = match Incoming::parse(text) {
        Ok(message) => message,
        Err(rejected) => {
            return respond::error(
                rejected.id.as_ref(),
                &rejected.error,
                StatusRules::Stateless,
            );
        }
    };
    // The message owns what it needs: the bytes, and their share of the budget, go.
    drop(body);
    let Incoming::Request(request) = &message else {
        return route(shared, sent, message, identity, sse_allowed).await;
    };
    let listen = request.method == methods::SUBSCRIPTIONS_LISTEN;
    if listen && !sse_allowed {
        let error = McpError::invalid_request(
            "subscriptions/listen streams its notifications: accept text/event-stream",
        );
        return respond::error(Some(&request.id), &error, StatusRules::Stateless);
    }
    // A listen stays open as long as the client listens: it has a bound of its own rather
    // than a place among the requests, which enough listens would take from them all.
    let (slots, full) = if listen {
        (&shared.listens, "Too many listens open; retry later")
    } else {
        (
            &shared.requests,
            "Too many requests in progress; retry later",
        )
    };
    let Some(slot) = slots.take() else {
        return overload::overloaded(Some(&request.id), full);
    };
    let response = route(shared, sent, message, identity, sse_allowed).await;
    overload::hold_until_sent(response, slot)
}

/// Serves a parsed message on the wire it belongs to.
#[allow(clippy::manual_async_fn)] // see `post`
fn route<'a>(
    shared: &'a Shared,
    sent: &'a Decisive<'_>,
    message: Incoming,
    identity: Option<Arc<Identity>>,
    sse_allowed: bool,
) -> impl Future<Output = Response> + 'a {
    async move {
        let classified = match stateless::classify(shared, sent, &message).await {
            Ok(classified) => classified,
            Err(error) => {
                let id = match &message {
                    Incoming::Request(r) => Some(&r.id),
                    _ => None,
                };
                return respond::error(id, &error, StatusRules::Stateless);
            }
        };
        // `_meta` wins over a session header: a 2026-07-28 client ignores sessions, and so do
        // we for its requests.
        if !classified.stateless && sessions::wants_session(sent.all, &message) {
            // Boxed: the largest of the futures here, it would otherwise set the size of every
            // request's future, on either wire.
            Box::pin(sessions::handle_post(
                shared,
                sent.all,
                message,
                identity,
                sse_allowed,
            ))
            .await
        } else {
            let job = stateless::Envelope {
                identity,
                preparsed: classified.preparsed,
                sse_allowed,
            };
            stateless::handle(shared, message, job).await
        }
    }
}

/// Any other method on the endpoint.
pub(super) async fn on_other_method(State(shared): State<Arc<Shared>>) -> Response {
    shared.finish(method_not_allowed("GET, HEAD, POST, DELETE"))
}

/// Any other method on a metadata document.
pub(super) async fn on_other_metadata_method(State(shared): State<Arc<Shared>>) -> Response {
    shared.finish(method_not_allowed("GET, HEAD"))
}

fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = respond::refused(
        StatusCode::METHOD_NOT_ALLOWED,
        "an HTTP method not served here",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

pub(super) async fn on_get(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    on_session(&shared, &method, &uri, &headers, sessions::handle_get).await
}

pub(super) async fn on_delete(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    on_session(&shared, &method, &uri, &headers, sessions::handle_delete).await
}

/// A session method (GET, DELETE) behind the same checks as every request.
async fn on_session(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    handle: fn(&Shared, &HeaderMap, Option<&Identity>) -> Response,
) -> Response {
    let response = match guard(shared, method, uri, &Decisive::of(headers)).await {
        Ok(admitted) => {
            let identity = admitted.as_ref().map(|a| &*a.identity);
            answer(admitted.as_ref(), handle(shared, headers, identity))
        }
        Err(refused) => refused,
    };
    shared.finish(response)
}

/// The `Host`/`Origin` rules, then the access token.
async fn guard(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    sent: &Decisive<'_>,
) -> Result<Option<Admitted>, Response> {
    if let Some(response) = forbidden(uri, sent, &shared.hosts) {
        return Err(response);
    }
    shared.authenticate(method, sent.all).await
}

/// `response` with what the answer to an admitted request carries (a fresh DPoP nonce).
fn answer(admitted: Option<&Admitted>, response: Response) -> Response {
    match admitted {
        Some(admitted) => admitted.answer(response),
        None => response,
    }
}

/// The RFC 9728 document; no token needed, but the `Host`/`Origin` rules hold as for the
/// endpoint itself.
pub(super) async fn on_metadata(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let sent = Decisive::of(&headers);
    let response = match (forbidden(&uri, &sent, &shared.hosts), &shared.auth) {
        (Some(refused), _) => refused,
        (None, Some(auth)) => auth.metadata(),
        // Only routed when there is a guard; a 404 is still the honest answer without one.
        (None, None) => respond::refused(StatusCode::NOT_FOUND, "no metadata without auth"),
    };
    shared.finish(response)
}
