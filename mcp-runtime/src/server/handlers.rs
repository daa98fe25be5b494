//! Handler storage: one type-erased async function per method.

use std::any::Any;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;

use crate::protocol::McpError;

use super::context::RequestContext;

/// A boxed future that can move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A registered handler: params in, result or JSON-RPC error out.
pub(crate) type Handler<P, R> =
    Arc<dyn Fn(RequestContext, P) -> BoxFuture<Result<R, McpError>> + Send + Sync>;

/// Erases a user's async closure into a [`Handler`], converting its output.
///
/// A handler that panics answers its request with a bare `-32603` and the server keeps
/// serving: a bug in one tool must not lose the request or take down the connection.
pub(crate) fn erase<P, O, R, F, Fut>(f: F) -> Handler<P, R>
where
    P: Send + 'static,
    R: 'static,
    O: Into<R> + 'static,
    F: Fn(RequestContext, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, McpError>> + Send + 'static,
{
    Arc::new(move |ctx, params| {
        let fut = match catch_unwind(AssertUnwindSafe(|| f(ctx, params))) {
            Ok(fut) => fut,
            Err(panic) => {
                let error = panicked(panic);
                return Box::pin(async move { Err(error) });
            }
        };
        Box::pin(async move {
            match catch_panics(fut).await {
                Ok(out) => out.map(Into::into),
                Err(panic) => Err(panicked(panic)),
            }
        })
    })
}

/// Runs `fut`, turning a panic in any of its polls into `Err` with the panic's payload.
pub(crate) async fn catch_panics<F: Future>(fut: F) -> Result<F::Output, Box<dyn Any + Send>> {
    let mut fut = pin!(fut);
    poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic)),
        },
    )
    .await
}

fn panicked(panic: Box<dyn Any + Send>) -> McpError {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string panic payload");
    tracing::error!(panic = message, "a handler panicked; answering -32603");
    McpError::internal("Internal error")
}
