//! A client and a server in one process, joined by channels.

use tokio::sync::mpsc;

use super::{CHANNEL_CAPACITY, Duplex, Frame};

/// Two connected ends: give one to the server, the other to the client.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let (mut a, b) = mcp::transport::memory::pair();
/// b.outgoing.send("{}".to_owned()).await.unwrap();
/// assert_eq!(a.incoming.recv().await, Some(Ok("{}".to_owned())));
/// # }
/// ```
pub fn pair() -> (Duplex, Duplex) {
    let (a_tx, a_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    let (b_tx, b_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    (framed(b_rx, a_tx), framed(a_rx, b_tx))
}

fn framed(mut rx: mpsc::Receiver<String>, outgoing: mpsc::Sender<String>) -> Duplex {
    let (tx, incoming) = mpsc::channel::<Frame>(CHANNEL_CAPACITY);
    tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if tx.send(Ok(line)).await.is_err() {
                break;
            }
        }
    });
    let duplex = Duplex::new(incoming, outgoing);
    #[cfg(feature = "otel")]
    let duplex = duplex.talking_to(crate::telemetry::ServerPeer::pipe());
    duplex
}
