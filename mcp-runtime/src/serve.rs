//! The one obvious way to run a server: `serve_stdio` and `serve_http` on [`McpServer`] and on
//! the low-level [`Server`], and `serve_in_memory` for tests and embedding. They sit above both
//! the server and the transports, and only join the two.

use crate::error::Error;
use crate::server::{BuildError, McpServer, Server};
use crate::transport::{Duplex, memory, stdio};

impl Server {
    /// Serves MCP over this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(&self) {
        self.serve(stdio::process(self.max_message_size())).await;
    }

    /// Serves MCP over Streamable HTTP at `http://addr/mcp` (the path, hosts, authorization and
    /// limits as the server was built with) until Ctrl-C or SIGTERM; then it stops accepting,
    /// and in-flight requests finish first, for up to the grace period (30 s unless set).
    /// Once listening it logs the endpoint at INFO (`serving MCP endpoint=http://…`), with the
    /// port the system chose when `addr` asks for port 0.
    ///
    /// To mount the endpoint in an axum application, or to serve on a listener and a shutdown
    /// signal of your own, use [`HttpTransport`](crate::transport::http::HttpTransport).
    #[cfg(feature = "http")]
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> Result<(), Error> {
        use crate::transport::http::{DEFAULT_GRACE_PERIOD, HttpTransport, shutdown_signal};
        // Installed before listening: a supervisor may signal as soon as the port is open.
        let signal = shutdown_signal();
        let listener = listen(addr).await?;
        if let Ok(bound) = listener.local_addr() {
            let path = &self.http_settings().path;
            tracing::info!(endpoint = %format!("http://{bound}{path}"), "serving MCP");
        }
        let mut transport = HttpTransport::new(self.clone());
        if self.http_settings().grace_period.is_none() {
            transport = transport.grace_period(DEFAULT_GRACE_PERIOD);
        }
        transport.serve(listener, signal).await?;
        Ok(())
    }

    /// Starts serving on an in-memory connection and returns the client's end (for tests and
    /// embedding); connect a [`Client`](crate::client::Client) to it. Needs a Tokio runtime.
    pub fn serve_in_memory(&self) -> Duplex {
        let (client_end, server_end) = memory::pair();
        let server = self.clone();
        tokio::spawn(async move { server.serve(server_end).await });
        client_end
    }
}

impl McpServer {
    /// Builds the server and serves it over this process's stdin and stdout until stdin
    /// closes.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp::Error> {
    /// mcp::server::McpServer::new("notes").serve_stdio().await
    /// # }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let server = self.build()?;
        #[cfg(feature = "http")]
        if server.http_settings().auth.is_some() {
            tracing::warn!(
                "bearer-token authorization applies to HTTP only; stdio is served without it"
            );
        }
        server.serve_stdio().await;
        Ok(())
    }

    /// Builds the server and serves it over Streamable HTTP at `http://addr/mcp` until Ctrl-C
    /// or SIGTERM (see [`Server::serve_http`]).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp::Error> {
    /// mcp::server::McpServer::new("notes")
    ///     .allowed_hosts(["notes.example.com"])
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> Result<(), Error> {
        self.build()?.serve_http(addr).await
    }

    /// Builds the server and starts it on an in-memory connection; returns the client's end
    /// (for tests and embedding). Needs a Tokio runtime.
    ///
    /// ```
    /// use mcp::client::Client;
    /// use mcp::protocol::Implementation;
    /// use mcp::server::McpServer;
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp::Error> {
    /// let client = Client::builder(Implementation::new("test", "1.0.0"))
    ///     .connect(McpServer::new("notes").serve_in_memory()?);
    /// assert_eq!(client.discover().await?.supported_versions, ["2026-07-28"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn serve_in_memory(self) -> Result<Duplex, BuildError> {
        Ok(self.build()?.serve_in_memory())
    }
}

/// Binds the first address `addr` resolves to that can be bound; the error names the address
/// (a port in use says which).
#[cfg(feature = "http")]
async fn listen(addr: impl tokio::net::ToSocketAddrs) -> Result<tokio::net::TcpListener, Error> {
    let mut last = None;
    for candidate in tokio::net::lookup_host(addr).await? {
        match tokio::net::TcpListener::bind(candidate).await {
            Ok(listener) => return Ok(listener),
            Err(source) => last = Some((candidate, source)),
        }
    }
    Err(match last {
        Some((addr, source)) => Error::Listen {
            addr: addr.to_string(),
            source,
        },
        None => Error::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the address resolves to nothing to listen on",
        )),
    })
}
