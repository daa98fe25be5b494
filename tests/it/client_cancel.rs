//! A call the client gives up on is cancelled on the server: dropping the call's future or its
//! timeout firing sends `notifications/cancelled` (in memory, and in a 2025-11-25 HTTP session),
//! and on the 2026-07-28 HTTP wire closes the request's response stream instead (over HTTP/2,
//! resets it). Either way the server cancels the tool (it drops the handler's future).

use std::time::Duration;

use mcp::client::{Client, ClientBuilder, ClientError};
use mcp::protocol::Implementation;
use mcp::{Context, McpServer};
use tokio::sync::mpsc;

/// What the `wait` tool tells the test.
struct Probe {
    started: mpsc::UnboundedSender<()>,
    cancelled: mpsc::UnboundedSender<()>,
}

/// Reports when dropped: the server drops a cancelled handler's future.
struct OnDrop(mpsc::UnboundedSender<()>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// Waits until the call is cancelled.
#[mcp::tool]
async fn wait(ctx: Context) -> &'static str {
    let Some(probe) = ctx.state::<Probe>() else {
        return "no probe";
    };
    let _ended = OnDrop(probe.cancelled.clone());
    let _ = probe.started.send(());
    ctx.cancelled().await;
    "cancelled"
}

struct Signals {
    started: mpsc::UnboundedReceiver<()>,
    cancelled: mpsc::UnboundedReceiver<()>,
}

fn server() -> (mcp::server::Server, Signals) {
    let (started_tx, started) = mpsc::unbounded_channel();
    let (cancelled_tx, cancelled) = mpsc::unbounded_channel();
    let server = McpServer::new("cancel-test")
        .tools(mcp::tools![wait])
        .state(Probe {
            started: started_tx,
            cancelled: cancelled_tx,
        })
        .build()
        .expect("valid server");
    (server, Signals { started, cancelled })
}

fn builder() -> ClientBuilder {
    Client::builder(Implementation::new("cancel-client", "1"))
}

const PATIENCE: Duration = Duration::from_secs(10);

/// Starts `wait`, drops the call once the tool runs, and expects the tool to see the
/// cancellation.
async fn dropping_the_call_cancels_it(client: &Client, signals: &mut Signals) {
    let call = client.call_tool("wait", None);
    tokio::select! {
        outcome = call => panic!("the call cannot finish before it is cancelled: {outcome:?}"),
        started = signals.started.recv() => started.expect("the tool started"),
    }
    // The call's future is gone: the server must hear about it.
    tokio::time::timeout(PATIENCE, signals.cancelled.recv())
        .await
        .expect("the tool saw the cancellation")
        .expect("the probe is alive");
}

/// The same, with the client's call timeout giving up.
async fn a_timeout_cancels_the_call(client: &Client, signals: &mut Signals) {
    let outcome = client.call_tool("wait", None).await;
    assert!(
        matches!(outcome, Err(ClientError::Timeout(_))),
        "{outcome:?}"
    );
    signals.started.recv().await.expect("the tool started");
    tokio::time::timeout(PATIENCE, signals.cancelled.recv())
        .await
        .expect("the tool saw the cancellation")
        .expect("the probe is alive");
}

#[tokio::test]
async fn a_dropped_call_is_cancelled_in_memory_2026() {
    let (server, mut signals) = server();
    let client = builder().connect(server.serve_in_memory());
    dropping_the_call_cancels_it(&client, &mut signals).await;
}

#[tokio::test]
async fn a_dropped_call_is_cancelled_in_memory_2025() {
    let (server, mut signals) = server();
    let client = builder().connect(server.serve_in_memory());
    client.initialize().await.expect("a session");
    dropping_the_call_cancels_it(&client, &mut signals).await;
}

#[tokio::test]
async fn a_timed_out_call_is_cancelled_in_memory() {
    let (server, mut signals) = server();
    let client = builder()
        .call_timeout(Duration::from_millis(200))
        .connect(server.serve_in_memory());
    a_timeout_cancels_the_call(&client, &mut signals).await;
}

#[cfg(feature = "http")]
mod http {
    use std::time::Duration;

    use mcp::transport::http_client;
    use tokio_util::sync::DropGuard;

    use super::{Signals, a_timeout_cancels_the_call, builder, dropping_the_call_cancels_it};

    async fn start() -> (String, Signals, DropGuard) {
        let (server, signals) = super::server();
        let (url, stop) = crate::support::http::serve(server).await;
        (url, signals, stop)
    }

    #[tokio::test]
    async fn a_dropped_call_closes_its_stream_over_http_2026() {
        let (url, mut signals, _stop) = start().await;
        let client = builder().connect(http_client::connect(&url).expect("a URL"));
        dropping_the_call_cancels_it(&client, &mut signals).await;
    }

    #[tokio::test]
    async fn a_timed_out_call_closes_its_stream_over_http_2026() {
        let (url, mut signals, _stop) = start().await;
        let client = builder()
            .call_timeout(Duration::from_millis(300))
            .connect(http_client::connect(&url).expect("a URL"));
        a_timeout_cancels_the_call(&client, &mut signals).await;
    }

    #[tokio::test]
    async fn a_dropped_call_is_cancelled_in_an_http_session_2025() {
        let (url, mut signals, _stop) = start().await;
        let client = builder().connect(http_client::connect(&url).expect("a URL"));
        client.initialize().await.expect("a session");
        dropping_the_call_cancels_it(&client, &mut signals).await;
    }
}

/// Over HTTP/2 the POSTs share one connection, so closing a request's response stream is a
/// reset of that stream alone, which the server must take for the cancellation as well.
#[cfg(feature = "tls")]
mod https {
    use mcp::transport::http_client::Builder;

    use super::{builder, dropping_the_call_cancels_it};
    use crate::support::tls::{self, TestCa};

    #[tokio::test]
    async fn a_dropped_call_resets_its_stream_over_http2_2026() {
        let (server, mut signals) = super::server();
        let ca = TestCa::new("cancel CA");
        let served = tls::serve(server, Some(ca.server_config(&[b"h2"]))).await;
        let duplex = Builder::new(&served.url)
            .no_proxy()
            .add_root_certificate_pem(ca.pem.as_bytes())
            .expect("a CA")
            .connect()
            .expect("connects");
        let client = builder().connect(duplex);
        dropping_the_call_cancels_it(&client, &mut signals).await;
        let versions = served.versions();
        assert!(
            versions
                .iter()
                .all(|v| *v == mcp::transport::http::axum::http::Version::HTTP_2),
            "{versions:?}"
        );
    }
}
