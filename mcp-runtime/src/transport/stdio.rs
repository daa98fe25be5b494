//! Newline-delimited JSON over a byte stream: the process's stdin/stdout, a child's pipes,
//! or any `AsyncRead`/`AsyncWrite` pair (sockets reuse the same framing).

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::line_framer::LineFramer;
use super::{CHANNEL_CAPACITY, Duplex, FlushRequests, Flusher, Frame};
// Named only by the docs of `duplex`: the errors themselves come from the framer.
#[cfg(doc)]
use super::FrameError;

/// How many lines are read ahead of the server. Few: when the server stops taking requests
/// (too many in flight), the reader stops reading soon after, so a peer that writes without
/// reading is held up by the pipe rather than buffered.
const READ_AHEAD: usize = 16;

/// Frames `reader` and `writer` as one message per line. Lines longer than `max_message_size`
/// bytes are skipped and reported as [`FrameError::TooLong`].
///
/// A server serving this duplex ([`Server::serve`](crate::server::Server::serve)) returns
/// only once every reply is written to `writer` and flushed.
pub fn duplex<R, W>(reader: R, writer: W, max_message_size: usize) -> Duplex
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (in_tx, incoming) = mpsc::channel::<Frame>(READ_AHEAD);
    let (outgoing, out_rx) = mpsc::channel::<String>(CHANNEL_CAPACITY);
    let (flusher, flushes) = Flusher::new();
    tokio::spawn(read_lines(BufReader::new(reader), in_tx, max_message_size));
    tokio::spawn(write_lines(writer, out_rx, flushes));
    let duplex = Duplex::new(incoming, outgoing).written_by(flusher);
    #[cfg(feature = "otel")]
    let duplex = duplex.talking_to(crate::telemetry::ServerPeer::pipe());
    duplex
}

/// The process's own stdin and stdout.
pub fn process(max_message_size: usize) -> Duplex {
    duplex(tokio::io::stdin(), tokio::io::stdout(), max_message_size)
}

/// Starts `command` as an MCP server and connects to its stdin and stdout (its stderr is left
/// as configured). Keep the returned [`Child`](tokio::process::Child) to wait for or stop it;
/// it is killed when dropped.
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// use mcp::client::Client;
/// use mcp::protocol::Implementation;
/// use mcp::transport::stdio;
///
/// let (duplex, _child) = stdio::spawn(tokio::process::Command::new("my-mcp-server"))?;
/// let client = Client::builder(Implementation::new("me", "1.0.0")).connect(duplex);
/// # let _ = client;
/// # Ok(())
/// # }
/// ```
pub fn spawn(
    mut command: tokio::process::Command,
) -> std::io::Result<(Duplex, tokio::process::Child)> {
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let missing = || std::io::Error::other("the child's pipes were not captured");
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = child.stdout.take().ok_or_else(missing)?;
    Ok((
        duplex(stdout, stdin, crate::server::DEFAULT_MAX_MESSAGE_SIZE),
        child,
    ))
}

async fn read_lines<R: AsyncRead + Unpin>(
    mut reader: BufReader<R>,
    tx: mpsc::Sender<Frame>,
    limit: usize,
) {
    let mut framer = LineFramer::new(limit);
    loop {
        let chunk = match reader.fill_buf().await {
            Ok(chunk) => chunk,
            Err(e) => {
                tracing::debug!(error = %e, "input closed");
                return;
            }
        };
        if chunk.is_empty() {
            if let Some(frame) = framer.finish() {
                let _ = tx.send(frame).await;
            }
            return;
        }
        let taken = chunk.len();
        for frame in framer.push(chunk) {
            if tx.send(frame).await.is_err() {
                return;
            }
        }
        reader.consume(taken);
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::Receiver<String>,
    mut flushes: FlushRequests,
) {
    loop {
        // Lines first: a flush request is taken only when no line is waiting, so every line
        // sent before it has been written by then.
        let written = tokio::select! {
            biased;
            line = lines.recv() => match line {
                Some(first) => write_batch(&mut writer, Some(first), &mut lines).await,
                None => return,
            },
            Some(ack) = flushes.recv() => {
                let written = write_batch(&mut writer, None, &mut lines).await;
                let _ = ack.send(());
                written
            }
        };
        if let Err(e) = written {
            tracing::debug!(error = %e, "output closed");
            return;
        }
    }
}

/// Writes `first` and whatever else is ready as one write, and flushes.
async fn write_batch<W: AsyncWrite + Unpin>(
    writer: &mut W,
    first: Option<String>,
    lines: &mut mpsc::Receiver<String>,
) -> std::io::Result<()> {
    let mut batch = Vec::new();
    for line in first
        .into_iter()
        .chain(std::iter::from_fn(|| lines.try_recv().ok()))
    {
        batch.extend_from_slice(line.as_bytes());
        batch.push(b'\n');
    }
    writer.write_all(&batch).await?;
    writer.flush().await
}
