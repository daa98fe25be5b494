//! Running the endpoint on a listener of its own: each connection served with its timeouts and
//! under the connection cap, graceful shutdown with a drain for load balancers and a bound on
//! in-flight requests, and the signals a supervisor sends.

use std::future::Future;

use axum::http::StatusCode;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::accept::Acceptor;
use super::activity::Timeouts;
use super::connections::Connections;
use super::{HttpTransport, drain, respond, tcp_connection};

impl HttpTransport {
    /// Serves on `listener` until `shutdown` completes, then stops accepting, lets idle
    /// connections [`drain`](Self::drain) and in-flight requests finish (within the
    /// [`grace_period`](Self::grace_period), if set).
    ///
    /// Each connection is held to the [`header_read_timeout`](Self::header_read_timeout) and
    /// the [`keep_alive_timeout`](Self::keep_alive_timeout), and at most
    /// [`max_connections`](Self::max_connections) are open at once.
    ///
    /// `McpServer::serve_http` is this with a listener bound to an address and
    /// [`shutdown_signal`] (and a grace period of [`DEFAULT_GRACE_PERIOD`](super::DEFAULT_GRACE_PERIOD)
    /// unless set); call it yourself for another listener or another way to stop.
    ///
    /// ```no_run
    /// use mcp::{server::McpServer, transport::http::{HttpTransport, shutdown_signal}};
    /// # async fn run() -> Result<(), mcp::Error> {
    /// let server = McpServer::new("demo").build()?;
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// HttpTransport::new(server)
    ///     .header_read_timeout(std::time::Duration::from_secs(5))
    ///     .max_connections(10_000)
    ///     .serve(listener, shutdown_signal())
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve<F>(self, listener: TcpListener, shutdown: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let settings = &self.settings;
        let (grace, drain) = (settings.grace_period, settings.drain);
        let timeouts = Timeouts {
            header_read: settings.header_read_timeout,
            keep_alive: settings.keep_alive_timeout,
            write: settings.write_timeout,
        };
        let connections = Connections::new(settings.max_connections, timeouts);
        // Its own token: an application cancelling `close_streams_on` only ends streams.
        let stop = CancellationToken::new();
        let mut acceptor = Acceptor::new(listener, stop.clone(), connections.clone());
        let signalled = {
            let (closing, stop) = (self.streams_closing.clone(), stop.clone());
            async move {
                shutdown.await;
                closing.cancel();
                stop.cancel();
            }
        };
        // The whole router is ours here, so unknown paths get a 404 that also says when the
        // connection closes. (`into_router` leaves the fallback to the application it merges
        // into: axum refuses to merge two routers that both have one.)
        let not_found = {
            let closing = self.streams_closing.clone();
            move || {
                let response =
                    respond::refused(StatusCode::NOT_FOUND, "no MCP endpoint at this path");
                std::future::ready(drain::close_when_stopping(&closing, response))
            }
        };
        let (router, endpoint) = self.into_parts();
        let router = router.fallback(not_found);
        let serving = async move {
            // Dropped when the grace period ends, aborting what is still running.
            let mut tasks = JoinSet::new();
            tokio::pin!(signalled);
            let mut signal_seen = false;
            loop {
                tokio::select! {
                    accepted = acceptor.next() => {
                        let Some(stream) = accepted else { break };
                        match connections.admit() {
                            Some(registration) => {
                                let (router, endpoint) = (router.clone(), endpoint.clone());
                                tasks.spawn(tcp_connection::serve(
                                    stream,
                                    registration,
                                    router,
                                    endpoint,
                                ));
                            }
                            None => tracing::debug!("refused a connection: every one is busy"),
                        }
                    }
                    () = &mut signalled, if !signal_seen => signal_seen = true,
                    Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                }
            }
            // Idle connections are left to their peers for the drain period, then closed
            // while requests in progress finish.
            let _ = tokio::time::timeout(drain, connections.all_closed()).await;
            connections.close_when_idle();
            while tasks.join_next().await.is_some() {}
        };
        let Some(grace) = grace else {
            serving.await;
            return Ok(());
        };
        let deadline = async move {
            stop.cancelled().await;
            tokio::time::sleep(grace).await;
        };
        tokio::select! {
            () = serving => {}
            () = deadline => {
                tracing::warn!(?grace, "the grace period ended with requests still in flight");
            }
        }
        Ok(())
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
