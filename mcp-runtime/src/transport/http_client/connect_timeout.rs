//! The connect timeout: one bound on everything that opening a connection takes (TCP, a
//! proxy's tunnel, the TLS handshake), so a server that accepts and then says nothing is
//! given up on as surely as one that never accepts.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::Uri;
use tower_service::Service;

use super::routed::BoxError;

/// `C`, whose connections must open within `limit` (if set).
#[derive(Clone, Debug)]
pub(super) struct ConnectTimeout<C> {
    pub(super) inner: C,
    pub(super) limit: Option<Duration>,
}

impl<C> Service<Uri> for ConnectTimeout<C>
where
    C: Service<Uri>,
    C::Error: Into<BoxError>,
    C::Future: Send + 'static,
{
    type Response = C::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<C::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, destination: Uri) -> Self::Future {
        let connecting = self.inner.call(destination);
        let limit = self.limit;
        Box::pin(async move {
            let Some(limit) = limit else {
                return connecting.await.map_err(Into::into);
            };
            match tokio::time::timeout(limit, connecting).await {
                Ok(connected) => connected.map_err(Into::into),
                Err(_) => Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no connection within the connect timeout ({limit:?})"),
                )
                .into()),
            }
        })
    }
}
