//! Handler storage: one type-erased async function per method.

use std::any::Any;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use pin_project_lite::pin_project;

use crate::boxed::BoxFuture;
use crate::panics::{CatchPanics, catch_panics};
use crate::protocol::McpError;

use super::context::Context;

/// A registered handler: params in, result or JSON-RPC error out.
pub(crate) type Handler<P, R> =
    Arc<dyn Fn(Context, P) -> BoxFuture<Result<R, McpError>> + Send + Sync>;

/// Erases a user's async closure into a [`Handler`], converting its output.
///
/// A handler that panics answers its request with a bare `-32603` and the server keeps
/// serving: a bug in one tool must not lose the request or take down the connection.
pub(crate) fn erase<P, O, R, F, Fut>(f: F) -> Handler<P, R>
where
    P: Send + 'static,
    R: 'static,
    O: Into<R> + 'static,
    F: Fn(Context, P) -> Fut + Send + Sync + 'static,
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
        Box::pin(Recovered {
            inner: catch_panics(fut),
            output: PhantomData,
        })
    })
}

pin_project! {
    /// A handler's future as [`erase`] stores it: its output converted, a panic made `-32603`.
    struct Recovered<F, R> {
        #[pin]
        inner: CatchPanics<F>,
        output: PhantomData<fn() -> R>,
    }
}

impl<F, O, R> Future for Recovered<F, R>
where
    F: Future<Output = Result<O, McpError>>,
    O: Into<R>,
{
    type Output = Result<R, McpError>;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        self.project().inner.poll(cx).map(|joined| match joined {
            Ok(out) => out.map(Into::into),
            Err(panic) => Err(panicked(panic)),
        })
    }
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
