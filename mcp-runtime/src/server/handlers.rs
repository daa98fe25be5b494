//! Handler storage: one type-erased async function per method.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::protocol::McpError;

use super::context::RequestContext;

/// A boxed future that can move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A registered handler: params in, result or JSON-RPC error out.
pub(crate) type Handler<P, R> =
    Arc<dyn Fn(RequestContext, P) -> BoxFuture<Result<R, McpError>> + Send + Sync>;

/// Erases a user's async closure into a [`Handler`], converting its output.
pub(crate) fn erase<P, O, R, F, Fut>(f: F) -> Handler<P, R>
where
    P: Send + 'static,
    R: 'static,
    O: Into<R> + 'static,
    F: Fn(RequestContext, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, McpError>> + Send + 'static,
{
    Arc::new(move |ctx, params| {
        let fut = f(ctx, params);
        Box::pin(async move { fut.await.map(Into::into) })
    })
}
