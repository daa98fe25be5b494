//! A test server with a few tools, driven line by line over the stdio framing.

use std::time::Duration;

use mcp_runtime::protocol::{
    CallToolResult, ElicitParams, Implementation, InputRequest, InputRequiredResult, LoggingLevel,
    McpError, Outcome, Tool,
};
use mcp_runtime::server::Server;
use mcp_runtime::transport::stdio;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// `_meta` of a 2026-07-28 request with these client capabilities.
pub fn modern(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// Five tools: `echo`, `ask` (elicits), `ask_url`, `sample`, `wait` (never finishes unless
/// cancelled), plus fillers so listing pages.
pub fn test_server(page_size: usize, max_message_size: usize) -> Server {
    let schema = json!({"type": "object"});
    let tools = ["echo", "ask", "ask_url", "sample", "wait"]
        .into_iter()
        .map(|name| Tool::new(name, schema.clone()))
        .collect();
    Server::builder(Implementation::new("test-server", "1.0.0"))
        .page_size(page_size)
        .max_message_size(max_message_size)
        .list_tools(tools)
        .on_call_tool(|ctx, call| async move {
            let args = call.arguments.unwrap_or_default();
            let outcome: Outcome<CallToolResult> = match call.name.as_str() {
                "echo" => {
                    ctx.progress(0.5, Some(1.0), Some("halfway".into())).await;
                    ctx.log(LoggingLevel::Info, Some("echo"), json!("echoing"))
                        .await;
                    let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                    CallToolResult::text(text).into()
                }
                "ask" => InputRequiredResult::new()
                    .ask(
                        "q",
                        InputRequest::Elicit(ElicitParams::form(
                            "Sure?",
                            json!({"type":"object","properties":{"ok":{"type":"boolean"}}}),
                        )),
                    )
                    .into(),
                "ask_url" => InputRequiredResult::new()
                    .ask(
                        "login",
                        InputRequest::Elicit(ElicitParams::url("Sign in", "https://example.com")),
                    )
                    .into(),
                "sample" => InputRequiredResult::new()
                    .ask(
                        "s",
                        InputRequest::CreateMessage(Box::new(
                            mcp_runtime::protocol::CreateMessageParams::prompt("hi", 10),
                        )),
                    )
                    .ask("r", InputRequest::ListRoots)
                    .into(),
                "empty_ask" => InputRequiredResult::new().into(),
                "wait" => {
                    ctx.cancelled().await;
                    CallToolResult::text("cancelled").into()
                }
                other => return Err(McpError::invalid_params(format!("Unknown tool: {other}"))),
            };
            Ok(outcome)
        })
        .build()
        .expect("the server builds")
}

/// One end of a stdio-framed connection to a [`test_server`].
pub struct Wire {
    writer: WriteHalf<DuplexStream>,
    reader: BufReader<ReadHalf<DuplexStream>>,
    next_probe: i64,
}

impl Wire {
    /// Starts a test server (page size 2) and connects to it.
    pub fn start(max_message_size: usize) -> Self {
        Self::with_server(test_server(2, max_message_size))
    }

    /// Connects to `server` over an in-process byte pipe.
    pub fn with_server(server: Server) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (their_read, their_write) = tokio::io::split(theirs);
        let duplex = stdio::duplex(their_read, their_write, server.max_message_size());
        tokio::spawn(async move { server.serve(duplex).await });
        let (read, writer) = tokio::io::split(ours);
        Self {
            writer,
            reader: BufReader::new(read),
            next_probe: 1_000_000,
        }
    }

    /// Writes one message and a newline.
    pub async fn send(&mut self, message: Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    /// Writes bytes as they are.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.expect("write");
        if !bytes.ends_with(b"\n") {
            self.writer.write_all(b"\n").await.expect("write");
        }
        self.writer.flush().await.expect("flush");
    }

    /// The next message from the server (fails the test after 5 s of silence).
    pub async fn recv(&mut self) -> Value {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(5), self.reader.read_line(&mut line))
            .await
            .expect("the server answered in time")
            .expect("read");
        assert!(read > 0, "the server closed the connection");
        serde_json::from_str(&line).expect("the server wrote JSON")
    }

    /// Sends a request and returns the response (skipping notifications).
    pub async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await;
        loop {
            let message = self.recv().await;
            if message.get("method").is_none() {
                assert_eq!(message["id"], id, "answer to another request: {message}");
                return message;
            }
        }
    }

    /// Proves the server still answers: the very next line out answers a fresh request.
    pub async fn assert_still_serving(&mut self) {
        self.next_probe += 1;
        let id = self.next_probe;
        self.send(json!({"jsonrpc":"2.0","id":id,"method":"server/discover",
            "params":{"_meta":modern(json!({}))}}))
            .await;
        let reply = self.recv().await;
        assert_eq!(reply["id"], id, "unexpected message: {reply}");
        assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    }
}
