//! The layers a server was given, stacked around its dispatch.

use std::task::{Context, Poll};

use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

use crate::boxed::{BoxError, BoxFuture};
use crate::protocol::McpError;

use super::errors::into_mcp_error;
use super::{McpRequest, McpResponse};

/// The service a middleware layer wraps: every layer added before it around the server's
/// dispatch, boxed.
///
/// Its error is a [`BoxError`], as tower's own layers produce. On the wire an error a layer
/// returns becomes a JSON-RPC error: an [`McpError`] as it is; tower's timeout `Elapsed` as
/// `-32001` "Request timed out"; tower's load-shed `Overloaded` as `-32005` "Server
/// overloaded; try again later" (over HTTP, status `503` with `Retry-After`); anything else as `-32603` (the cause goes to the log).
pub type McpService = BoxCloneSyncService<McpRequest, McpResponse, BoxError>;

/// The layered service, present only when a layer was added.
#[derive(Clone)]
pub(crate) struct Stack(McpService);

impl Stack {
    /// `layer` around `inner` (or around the dispatch when this is the first layer).
    pub(crate) fn wrap<L, S>(inner: Option<Stack>, layer: L) -> Stack
    where
        L: Layer<McpService, Service = S>,
        S: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        let inner = inner.map_or_else(|| BoxCloneSyncService::new(Dispatch), |stack| stack.0);
        Stack(BoxCloneSyncService::new(
            layer.layer(inner).map_err(Into::into),
        ))
    }

    /// Runs `request` through the layers to its handler and back.
    pub(crate) async fn call(&self, request: McpRequest) -> Result<String, McpError> {
        let method = request.method().to_owned();
        match self.0.clone().oneshot(request).await {
            Ok(response) => response.into_outcome(),
            Err(error) => Err(into_mcp_error(error, &method)),
        }
    }
}

impl std::fmt::Debug for Stack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stack(..)")
    }
}

/// The innermost service: the request's handler.
#[derive(Debug, Clone, Copy)]
struct Dispatch;

impl Service<McpRequest> for Dispatch {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        Box::pin(async move { Ok(McpResponse::new(request.dispatch().await)) })
    }
}
