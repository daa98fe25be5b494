//! The TCP connection under each HTTP connection, opened directly or through an HTTP proxy:
//! for `https://` a `CONNECT` tunnel (TLS then runs end to end inside it), for `http://` a
//! connection to the proxy itself, over which the requests go in absolute form.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper::Uri;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tower_service::Service;

pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Opens TCP connections, through the proxy `proxies` picks for a destination, if any.
#[derive(Clone, Debug)]
pub(super) struct ProxyRoute {
    tcp: HttpConnector,
    proxies: Arc<Matcher>,
}

impl ProxyRoute {
    pub(super) fn new(proxies: Arc<Matcher>) -> Self {
        let mut tcp = HttpConnector::new();
        // TLS sits above and asks for `https://` destinations too.
        tcp.enforce_http(false);
        // Requests are small and answered at once: no waiting for more to fill a segment.
        tcp.set_nodelay(true);
        Self { tcp, proxies }
    }
}

impl Service<Uri> for ProxyRoute {
    type Response = RoutedStream;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<RoutedStream, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.tcp.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, destination: Uri) -> Self::Future {
        let mut tcp = self.tcp.clone();
        let proxy = self.proxies.intercept(&destination);
        Box::pin(async move {
            let Some(proxy) = proxy else {
                let io = tcp.call(destination).await?;
                return Ok(RoutedStream {
                    io,
                    to_proxy: false,
                });
            };
            let proxy_uri = proxy.uri().clone();
            // An `https://` or SOCKS proxy from the environment: we speak only plain HTTP to a
            // proxy, and sending it a tunnel request in the clear would be worse than failing.
            if proxy_uri.scheme_str() != Some("http") {
                return Err(format!("the proxy {proxy_uri} is not an http:// proxy").into());
            }
            if destination.scheme_str() == Some("https") {
                let mut tunnel = Tunnel::new(proxy_uri.clone(), tcp);
                if let Some(credentials) = proxy.basic_auth() {
                    tunnel = tunnel.with_auth(credentials.clone());
                }
                poll_fn(|cx| tunnel.poll_ready(cx)).await?;
                let io = tunnel
                    .call(destination)
                    .await
                    .map_err(|e| format!("through the proxy {proxy_uri}: {}", chain(&e)))?;
                return Ok(RoutedStream {
                    io,
                    to_proxy: false,
                });
            }
            let io = tcp
                .call(proxy_uri.clone())
                .await
                .map_err(|e| format!("to the proxy {proxy_uri}: {}", chain(&e)))?;
            Ok(RoutedStream { io, to_proxy: true })
        })
    }
}

/// An error and its causes, on one line.
pub(super) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(": ");
        text.push_str(&error.to_string());
        cause = error.source();
    }
    text
}

/// A TCP connection that knows whether it ends at a proxy, which makes the client send its
/// requests in absolute form.
#[derive(Debug)]
pub(super) struct RoutedStream {
    io: TokioIo<TcpStream>,
    to_proxy: bool,
}

impl Connection for RoutedStream {
    fn connected(&self) -> Connected {
        self.io.connected().proxy(self.to_proxy)
    }
}

impl Read for RoutedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl Write for RoutedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }
}
