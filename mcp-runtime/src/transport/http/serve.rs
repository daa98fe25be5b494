//! Running the endpoint on a listener of its own: graceful shutdown with a drain for load
//! balancers and a bound on in-flight requests, and the signals a supervisor sends.

use std::future::Future;

use axum::http::StatusCode;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{HttpTransport, drain, respond};

impl HttpTransport {
    /// Serves on `listener` until `shutdown` completes, then stops accepting, lets idle
    /// connections [`drain`](Self::drain) and in-flight requests finish (within the
    /// [`grace_period`](Self::grace_period), if set).
    ///
    /// `McpServer::serve_http` is this with a listener bound to an address and
    /// [`shutdown_signal`] (and a grace period of [`DEFAULT_GRACE_PERIOD`](super::DEFAULT_GRACE_PERIOD)
    /// unless set); call it yourself for another listener or another way to stop.
    ///
    /// ```no_run
    /// # use mcp::{server::McpServer, transport::http::HttpTransport};
    /// # async fn run() -> Result<(), mcp::Error> {
    /// let server = McpServer::new("demo").build()?;
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let stop = tokio_util::sync::CancellationToken::new();
    /// HttpTransport::new(server)
    ///     .serve(listener, stop.clone().cancelled_owned())
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve<F>(self, listener: TcpListener, shutdown: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let closing = self.streams_closing.clone();
        let (grace, drain) = (self.settings.grace_period, self.settings.drain);
        // Its own token: an application cancelling `close_streams_on` only ends streams.
        let stop = CancellationToken::new();
        let listener = drain::DrainingListener::new(listener, stop.clone());
        let open = listener.open_connections();
        // axum's own graceful shutdown closes idle connections, so it starts after the drain.
        let drained = {
            let stop = stop.clone();
            async move {
                shutdown.await;
                closing.cancel();
                stop.cancel();
                let _ = tokio::time::timeout(drain, open.all_closed()).await;
            }
        };
        // The whole router is ours here, so unknown paths get a 404 that also says when the
        // connection closes. (`into_router` leaves the fallback to the application it merges
        // into: axum refuses to merge two routers that both have one.)
        let not_found = {
            let closing = self.streams_closing.clone();
            move || {
                let response = respond::empty(StatusCode::NOT_FOUND);
                std::future::ready(drain::close_when_stopping(&closing, response))
            }
        };
        let router = self.into_router().fallback(not_found);
        let serving = axum::serve(listener, router).with_graceful_shutdown(drained);
        let Some(grace) = grace else {
            return serving.await;
        };
        let deadline = async move {
            stop.cancelled().await;
            tokio::time::sleep(grace).await;
        };
        tokio::select! {
            result = serving => result,
            () = deadline => {
                tracing::warn!(?grace, "the grace period ended with requests still in flight");
                Ok(())
            }
        }
    }
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM: what process supervisors send. The
/// handlers are installed when this is called, not when the future is first polled, so a signal
/// that arrives while the server is still starting is not lost (nor fatal).
#[cfg(unix)]
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    let install = |kind: SignalKind, name: &'static str| {
        signal(kind)
            .inspect_err(|e| tracing::error!(error = %e, "cannot listen for {name}"))
            .ok()
    };
    let terminate = install(SignalKind::terminate(), "SIGTERM");
    let interrupt = install(SignalKind::interrupt(), "SIGINT");
    async move {
        let wait = |signal: Option<Signal>| async move {
            match signal {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = wait(interrupt) => {}
            () = wait(terminate) => {}
        }
    }
}

/// Completes on Ctrl-C.
#[cfg(not(unix))]
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    }
}
