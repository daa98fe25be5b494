//! Where a transport hands a request to the server and gets its answer back: the request's
//! surroundings ([`Exchange`]), cancellation, and the response line ([`Reply`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use pin_project_lite::pin_project;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::identity::Identity;
use crate::panics::catch_panics;
use crate::protocol::{
    McpError, RawNotification, RawRequest, RequestId, error_line, notification_methods,
};

use super::Server;
use super::connection::Connection;
use super::context::Context;
use super::gate::{Admitted, Preparsed};
use super::sink::NotificationSink;

/// What a transport hands the server along with a request.
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
    /// The params as the gate reads them, when the transport has read them already.
    pub(crate) preparsed: Option<Preparsed>,
    /// Whether the server can send the client requests while this one runs (false for a
    /// 2025-11-25 HTTP POST whose client takes no event stream).
    pub(crate) back_channel: bool,
    /// Fires when the server is shutting down gracefully: a listen ends with its final result.
    pub(crate) closing: Option<Arc<CancellationToken>>,
    /// The server asking itself (the HTTP transport learning its tools' header bindings):
    /// no client's request, so no middleware sees or counts it.
    pub(crate) internal: bool,
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
            preparsed: None,
            back_channel: true,
            closing: None,
            internal: false,
        }
    }

    /// Marks the exchange as the server's own request of itself.
    #[cfg(feature = "http")]
    pub(crate) fn internal(mut self) -> Self {
        self.internal = true;
        self
    }

    /// Ends the listens of this exchange gracefully when `closing` fires.
    #[cfg(feature = "http")]
    pub(crate) fn closing_on(mut self, closing: Arc<CancellationToken>) -> Self {
        self.closing = Some(closing);
        self
    }

    /// Marks the exchange as one that cannot carry requests to the client.
    #[cfg(feature = "http")]
    pub(crate) fn without_back_channel(mut self) -> Self {
        self.back_channel = false;
        self
    }

    /// The verified caller the request comes from.
    pub fn with_identity(mut self, identity: Option<Arc<Identity>>) -> Self {
        self.identity = identity;
        self
    }

    /// Hands over the params as the transport read them while routing the request.
    #[cfg(feature = "http")]
    pub(crate) fn with_preparsed(mut self, preparsed: Option<Preparsed>) -> Self {
        self.preparsed = preparsed;
        self
    }
}

/// The answer to a request: its response line, and the error code when it answers with an
/// error, so an HTTP transport maps the code to a status without reading the line again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    line: String,
    error_code: Option<i32>,
    /// The scopes an `insufficient_scope` error names: over HTTP, the step-up challenge's.
    required_scopes: Option<Vec<String>>,
}

impl Reply {
    /// The line answering request `id` with `outcome` (a result line, or the error).
    pub(crate) fn new(id: &RequestId, outcome: Result<String, McpError>) -> Self {
        match outcome {
            Ok(line) => Self {
                line,
                error_code: None,
                required_scopes: None,
            },
            Err(error) => Self::error(Some(id), &error),
        }
    }

    /// The line answering request `id` (or no request at all) with `error`.
    pub(crate) fn error(id: Option<&RequestId>, error: &McpError) -> Self {
        Self {
            line: error_line(id, error),
            error_code: Some(error.code),
            required_scopes: error
                .required_scopes()
                .map(|scopes| scopes.into_iter().map(str::to_owned).collect()),
        }
    }

    /// The JSON-RPC response, one line of JSON.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// The JSON-RPC response, owned.
    pub fn into_line(self) -> String {
        self.line
    }

    /// The scopes the caller's token lacks, when the response refuses it for them.
    #[cfg(feature = "http")]
    pub(crate) fn take_required_scopes(&mut self) -> Option<Vec<String>> {
        self.required_scopes.take()
    }

    /// The JSON-RPC error code, when the response is an error.
    pub fn error_code(&self) -> Option<i32> {
        self.error_code
    }
}

impl Server {
    /// Answers one request unless the client cancels it first: `None` means the client gave up
    /// on it and must hear nothing more about it.
    pub async fn answer(&self, request: RawRequest, exchange: Exchange) -> Option<Reply> {
        self.clone().answer_holding(request, exchange, None).await
    }

    /// [`answer`](Self::answer) on an owned handle (a future a transport can box or spawn),
    /// holding the transport's `held` bookkeeping until the request is done.
    ///
    /// No `async` layer of its own: each would keep its own copy of the request and exchange
    /// inside the future, and this future is moved and boxed per request.
    pub(crate) fn answer_holding(
        self,
        request: RawRequest,
        exchange: Exchange,
        held: Option<Box<dyn Send>>,
    ) -> impl Future<Output = Option<Reply>> + use<> {
        let token = exchange.cancellation.clone();
        UnlessCancelled::new(token, self.route(request, exchange, held))
    }
}

pin_project! {
    /// `work`'s output, or `None` when `token` fires first. Cancellation wins a tie: a
    /// cancelled request is never answered, and one cancelled before it starts is never
    /// polled.
    ///
    /// The token is looked at before and after each poll of `work`, and waited on only while
    /// `work` is pending: most requests finish on their first poll, and registering a waiter
    /// with the token, then removing it, would cost them more than the rest of this race; the
    /// waiter is boxed when first needed, so the others carry no room for it. A future of its
    /// own rather than an `async fn`, which would hold `work` twice (as its argument and
    /// pinned).
    struct UnlessCancelled<F> {
        #[pin]
        work: F,
        token: CancellationToken,
        waiter: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    }
}

impl<F: Future> UnlessCancelled<F> {
    fn new(token: CancellationToken, work: F) -> Self {
        Self {
            work,
            token,
            waiter: None,
        }
    }
}

impl<F: Future> Future for UnlessCancelled<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if this.token.is_cancelled() {
            return Poll::Ready(None);
        }
        if let Poll::Ready(output) = this.work.poll(cx) {
            return Poll::Ready((!this.token.is_cancelled()).then_some(output));
        }
        let token = this.token;
        let waiter = this
            .waiter
            .get_or_insert_with(|| Box::pin(token.clone().cancelled_owned()));
        waiter.as_mut().poll(cx).map(|()| None)
    }
}

impl Server {
    /// A notification from the client besides the ones the transport acts on itself
    /// (`cancelled`, `initialized`): runs the hook registered for it, if any, in a task of its
    /// own, so a hook that asks the client something does not stop the transport from reading
    /// the answer.
    pub(crate) fn notified(&self, notification: &RawNotification, exchange: Exchange) {
        let method = notification.method.as_str();
        let hook = match method {
            notification_methods::ROOTS_LIST_CHANGED => self.inner.roots_list_changed.clone(),
            _ => None,
        };
        let Some(hook) = hook else {
            tracing::debug!(method, "ignored a notification");
            return;
        };
        // Only a 2025-11-25 session has roots that change; the 2026-07-28 wire has no such
        // notification.
        let Some(session) = exchange.connection.legacy_session() else {
            tracing::debug!(
                method,
                "ignored a notification outside a 2025-11-25 session"
            );
            return;
        };
        if !exchange.connection.roots_hook.start() {
            return;
        }
        let server = self.clone();
        let id = RequestId::String(method.to_owned());
        tokio::spawn(async move {
            loop {
                // As it is now: the client may have changed its log level since.
                let session = exchange
                    .connection
                    .legacy_session()
                    .unwrap_or_else(|| session.clone());
                let admitted = Admitted::of_session(session);
                let ctx = Context::new(id.clone(), admitted, &exchange, &server);
                if catch_panics(hook(ctx)).await.is_err() {
                    tracing::error!("the roots/list_changed hook panicked");
                }
                if !exchange.connection.roots_hook.again() {
                    break;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::future::{pending, poll_fn, ready};
    use std::time::Duration;

    use super::*;

    async fn race<F: Future>(token: &CancellationToken, work: F) -> Option<F::Output> {
        UnlessCancelled::new(token.clone(), work).await
    }

    // Not with `otel`: the traced path's future takes 3,728 bytes, its span's setup held
    // across the request (work still to do).
    #[cfg(not(feature = "otel"))]
    #[test]
    fn a_request_future_takes_under_a_kibibyte() {
        use crate::protocol::Implementation;
        // The future every request boxes: at 1 KiB and over, glibc serves it through its
        // large-chunk path (and consolidates its fast bins) on every request. An `async fn`
        // layer in routing, which keeps its arguments twice, or a large rare path awaited
        // inline, shows here first.
        let server = Server::builder(Implementation::new("sized", "1"))
            .build()
            .expect("builds");
        let exchange = Exchange::new(
            Arc::new(Connection::new()),
            NotificationSink::discard(),
            CancellationToken::new(),
        );
        let request = RawRequest {
            id: RequestId::Number(1),
            method: "ping".to_owned(),
            params: None,
        };
        let answering = catch_panics(server.answer_holding(request, exchange, None));
        let size = std::mem::size_of_val(&answering);
        assert!(size < 1000, "a request's future takes {size} bytes");
    }

    #[tokio::test]
    async fn work_that_finishes_is_answered() {
        let token = CancellationToken::new();
        assert_eq!(race(&token, ready(7)).await, Some(7));
        let later = async {
            tokio::task::yield_now().await;
            8
        };
        assert_eq!(race(&token, later).await, Some(8));
    }

    #[tokio::test]
    async fn a_token_cancelled_before_the_work_starts_wins() {
        let token = CancellationToken::new();
        token.cancel();
        let polled = std::cell::Cell::new(false);
        let work = poll_fn(|_| {
            polled.set(true);
            Poll::Ready(1)
        });
        assert_eq!(race(&token, work).await, None);
        assert!(
            !polled.get(),
            "the work ran for a request already cancelled"
        );
    }

    #[tokio::test]
    async fn cancelling_during_the_work_wins_a_tie() {
        let token = CancellationToken::new();
        let work = poll_fn(|_| {
            token.cancel();
            Poll::Ready(1)
        });
        assert_eq!(race(&token, work).await, None);
    }

    #[tokio::test]
    async fn pending_work_ends_when_the_token_fires() {
        let token = CancellationToken::new();
        let canceller = {
            let token = token.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                token.cancel();
            })
        };
        // The timer is looked at first: a wait that only a later wake-up ends fails.
        let answer = tokio::select! {
            biased;
            () = tokio::time::sleep(Duration::from_secs(10)) => None,
            answer = race(&token, pending::<()>()) => Some(answer),
        };
        assert_eq!(answer, Some(None), "the wait did not wake on cancellation");
        canceller.await.expect("the canceller ran");
    }
}
