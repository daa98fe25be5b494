//! Serving one accepted connection: HTTP/1.1 with keep-alive on hyper, watched so that its
//! header and keep-alive timeouts hold and it closes when told to (to make room, or once idle
//! at shutdown).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::{TowerToHyperService, TowerToHyperServiceFuture};
use pin_project_lite::pin_project;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

use super::activity::{Activity, IDLE_PAST_KEEP_ALIVE, InProgress, Look, Next, SHUTTING_DOWN};
use super::connections::Registration;
use super::endpoint::{Endpoint, Shared, post_direct};
use super::guarded_body::Guarded;

type Http<F> = http1::Connection<TokioIo<Watched>, Counting<F>>;

/// The most a connection buffers from its socket. hyper's default (~400 KiB) would let each of
/// thousands of connections uploading at once hold that much besides the body budget: with
/// 200 uploads of 4 MiB, 64 KiB took the peak from about 155 MB to 115 MB.
const READ_BUFFER: usize = 64 << 10;

/// The largest request head: `431` past it. The read buffer alone bounds a head only to about
/// twice its size (hyper checks it between reads), and a head this large is already absurd.
const MAX_HEAD: usize = 64 << 10;

/// Serves `router` on `stream` until the client leaves, a timeout passes, or the connection is
/// told to close; a POST to the endpoint goes to it directly.
pub(super) async fn serve(
    stream: TcpStream,
    registration: Registration,
    router: Router,
    endpoint: Endpoint,
) {
    let activity = registration.activity().clone();
    let io = TokioIo::new(Watched {
        stream,
        write_timeout: activity.timeouts().write,
        activity: activity.clone(),
        stalled: None,
    });
    let service = Counting {
        router: TowerToHyperService::new(router),
        endpoint,
        post: post_direct,
        activity: activity.clone(),
    };
    let connection = http1::Builder::new()
        // Ours in `Activity` instead; hyper's would need a timer and close idle keep-alive
        // connections after the same time.
        .header_read_timeout(None)
        .max_buf_size(READ_BUFFER)
        .max_header_size(MAX_HEAD)
        .serve_connection(io, service);
    let driven = Driven {
        connection,
        alarm: tokio::time::sleep_until(Instant::now()),
        activity,
        finishing: false,
    };
    match driven.await {
        Ok(()) => {}
        Err(Closed::Told(reason)) if routine(reason) => {
            tracing::debug!(reason, "closed a connection");
        }
        Err(Closed::Told(reason)) => tracing::info!(reason, "cut off a connection: {reason}"),
        Err(Closed::Failed(error)) if write_stalled(&error) => {
            tracing::info!(%error, "cut off a connection: {error}");
        }
        Err(Closed::Failed(error)) => tracing::debug!(%error, "a connection failed"),
    }
}

/// Closes that are part of a connection's normal life, not something done to a client.
fn routine(reason: &str) -> bool {
    matches!(reason, SHUTTING_DOWN | IDLE_PAST_KEEP_ALIVE)
}

/// Whether the client stopped taking response bytes (the write timeout of [`Watched`]).
fn write_stalled(error: &hyper::Error) -> bool {
    std::error::Error::source(error)
        .and_then(|source| source.downcast_ref::<io::Error>())
        .is_some_and(|io| io.kind() == io::ErrorKind::TimedOut)
}

enum Closed {
    Told(&'static str),
    Failed(hyper::Error),
}

pin_project! {
    /// The hyper connection, polled until it ends or its [`Activity`] says to close it.
    struct Driven<F: Future<Output = Response<Body>>> {
        #[pin]
        connection: Http<F>,
        #[pin]
        alarm: Sleep,
        activity: Arc<Activity>,
        finishing: bool,
    }
}

impl<F: Future<Output = Response<Body>>> Future for Driven<F> {
    type Output = Result<(), Closed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            if let Poll::Ready(ended) = this.connection.as_mut().poll(cx) {
                return Poll::Ready(ended.map_err(Closed::Failed));
            }
            // Polling the connection is what moves its phase, so this is up to date.
            let alarm_went_off = this.alarm.is_elapsed();
            let mut look = Look::by_task(alarm_went_off, cx.waker());
            match this.activity.next(&mut look) {
                // Dropping the connection closes the socket.
                Next::Close(reason) => return Poll::Ready(Err(Closed::Told(reason))),
                Next::FinishThenClose if !*this.finishing => {
                    *this.finishing = true;
                    this.connection.as_mut().graceful_shutdown();
                }
                Next::FinishThenClose | Next::Serve(None) => return Poll::Pending,
                Next::Serve(Some(deadline)) => {
                    // Set earlier, never later, until it goes off: every request moves the
                    // deadline on, and resetting a timer per request costs more than the
                    // alarm going off early now and then (the look then sets it anew).
                    if deadline < this.alarm.deadline() || alarm_went_off {
                        this.alarm.as_mut().reset(deadline);
                    }
                    ready!(this.alarm.as_mut().poll(cx));
                    // The deadline has passed: the next look closes the connection.
                }
            }
        }
    }
}

/// The service hyper calls: the endpoint for a POST to it (`post`), else the router; each
/// request counted on the connection until its response body is done. Generic over the POST
/// handler's future, whose type has no name to write.
struct Counting<F> {
    router: TowerToHyperService<Router>,
    endpoint: Endpoint,
    post: fn(Arc<Shared>, Request<Incoming>) -> F,
    activity: Arc<Activity>,
}

impl<F: Future<Output = Response<Body>>> hyper::service::Service<Request<Incoming>>
    for Counting<F>
{
    type Response = Response<Guarded<InProgress>>;
    type Error = Infallible;
    type Future = Counted<F>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let in_progress = Some(self.activity.request_started());
        // Not boxed: hyper keeps the future in a slot of its own for the connection's life.
        let response = if self.endpoint.takes(&request) {
            Routed::Endpoint {
                response: (self.post)(self.endpoint.shared.clone(), request),
            }
        } else {
            Routed::Router {
                response: self.router.call(request),
            }
        };
        Counted {
            response,
            in_progress,
        }
    }
}

pin_project! {
    #[project = RoutedProjection]
    enum Routed<F> {
        Endpoint { #[pin] response: F },
        Router { #[pin] response: TowerToHyperServiceFuture<Router, Request<Incoming>> },
    }
}

pin_project! {
    struct Counted<F> {
        #[pin]
        response: Routed<F>,
        in_progress: Option<InProgress>,
    }
}

impl<F: Future<Output = Response<Body>>> Future for Counted<F> {
    type Output = Result<Response<Guarded<InProgress>>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.response.project() {
            RoutedProjection::Endpoint { response } => ready!(response.poll(cx)),
            RoutedProjection::Router { response } => ready!(response.poll(cx))?,
        };
        let in_progress = this.in_progress.take();
        Poll::Ready(Ok(response.map(|body| Guarded::new(body, in_progress))))
    }
}

/// The socket, telling the connection's activity when bytes arrive, and failing a write that
/// makes no progress for the write timeout (the client stopped reading).
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    write_timeout: Duration,
    /// Armed while a write waits for room in the socket's buffers.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Watched {
    fn watch_write<T>(
        &mut self,
        cx: &mut Context<'_>,
        written: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if written.is_ready() {
            self.stalled = None;
            return written;
        }
        let timeout = self.write_timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        ready!(stalled.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client took no response bytes within the write timeout",
        )))
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.bytes_arrived();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.watch_write(cx, written)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.stream).poll_flush(cx);
        self.watch_write(cx, flushed)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.watch_write(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
