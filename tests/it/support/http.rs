//! A test server on 127.0.0.1:0 and a minimal HTTP/1.1 client over raw sockets, so the tests
//! see exactly the bytes and statuses the server sends.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};
use mcp::protocol::{CallToolResult, Implementation, McpError, Outcome, Tool};
use mcp::server::Server;
use mcp::transport::http::HttpTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Sets its flag when dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Set when the `hang` tool's future is dropped (its request was cancelled).
#[derive(Clone, Default)]
pub struct Flags {
    pub hang_cancelled: Arc<AtomicBool>,
}

/// Tools: `echo` (text), `progress` (two progress notifications, then a result), `slow`
/// (answers after 300 ms), `hang` (one progress, then waits for cancellation), `needs_sampling`
/// (-32021 without sampling), `ask_back` (elicits over a 2025 session's back-channel), `regional` (argument `region` mirrored in `Mcp-Param-Region`).
pub fn test_server(flags: Flags) -> Server {
    let empty = json!({"type": "object", "properties": {}});
    let mut tools: Vec<Tool> = [
        "echo",
        "progress",
        "slow",
        "hang",
        "needs_sampling",
        "ask_back",
    ]
    .into_iter()
    .map(|name| Tool::new(name, empty.clone()).with_description(name))
    .collect();
    tools.push(Tool::new(
        "regional",
        json!({"type": "object",
               "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
    ));
    Server::builder(Implementation::new("http-test", "1.0.0"))
        .list_tools(tools)
        .on_call_tool(move |ctx, call| {
            let flags = flags.clone();
            async move {
                let outcome: Outcome<CallToolResult> = match call.name.as_str() {
                    "echo" => CallToolResult::text("echo").into(),
                    "progress" => {
                        ctx.progress(1.0, Some(2.0), None).await;
                        ctx.progress(2.0, Some(2.0), None).await;
                        CallToolResult::text("done").into()
                    }
                    "slow" => {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        CallToolResult::text("slow done").into()
                    }
                    "hang" => {
                        // The runtime drops a cancelled handler's future; the mark sees that.
                        let _mark = SetOnDrop(flags.hang_cancelled.clone());
                        ctx.progress(1.0, None, None).await;
                        std::future::pending::<()>().await;
                        CallToolResult::text("unreachable").into()
                    }
                    "needs_sampling" => {
                        if !ctx.client_capabilities().supports_sampling() {
                            let required = serde_json::from_value(json!({"sampling": {}}))
                                .map_err(|e| McpError::internal(e.to_string()))?;
                            return Err(McpError::missing_capability("needs sampling", &required));
                        }
                        CallToolResult::text("sampled").into()
                    }
                    "ask_back" => {
                        let schema = json!({"type": "object",
                            "properties": {"name": {"type": "string"}}});
                        let answer: Value = ctx
                            .request_client(
                                "elicitation/create",
                                &json!({"message": "Name?", "requestedSchema": schema}),
                            )
                            .await?;
                        let name = answer["content"]["name"].as_str().unwrap_or("nobody");
                        CallToolResult::text(format!("hello {name}")).into()
                    }
                    "regional" => {
                        let region = call
                            .arguments
                            .as_ref()
                            .and_then(|a| a.get("region"))
                            .and_then(Value::as_str)
                            .unwrap_or("none");
                        CallToolResult::text(region).into()
                    }
                    other => return Err(McpError::invalid_params(format!("Unknown tool {other}"))),
                };
                Ok(outcome)
            }
        })
        .build()
        .expect("the server builds")
}

/// Serves `server` over Streamable HTTP on a fresh loopback port: its endpoint's URL, and a
/// guard that stops it when dropped.
pub async fn serve(server: Server) -> (String, tokio_util::sync::DropGuard) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    let stop = CancellationToken::new();
    let shutdown = stop.clone().cancelled_owned();
    tokio::spawn(async move { HttpTransport::new(server).serve(listener, shutdown).await });
    (url, stop.drop_guard())
}

/// Serves `server` over Streamable HTTP on a fresh loopback port, behind bearer tokens that
/// are their callers' names (`Bearer alice` is the caller whose subject is `alice`; an empty
/// token is refused): its address, and a guard that stops it when dropped.
pub async fn serve_with_callers(server: Server) -> (SocketAddr, tokio_util::sync::DropGuard) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let verifier = verify_fn(|token: String| async move {
        match token.is_empty() {
            false => Ok(Identity {
                subject: Some(token),
                ..Identity::default()
            }),
            true => Err(AuthError::invalid("no caller named")),
        }
    });
    let resource = format!("http://{addr}/mcp");
    let auth = ResourceServer::new(resource, "https://auth.example.com", verifier)
        .expect("a resource URL");
    let transport = HttpTransport::new(server).auth(auth);
    let stop = CancellationToken::new();
    tokio::spawn(transport.serve(listener, stop.clone().cancelled_owned()));
    (addr, stop.drop_guard())
}

/// A running HTTP server.
pub struct Running {
    pub addr: SocketAddr,
    pub stop: CancellationToken,
    pub task: JoinHandle<std::io::Result<()>>,
    pub flags: Flags,
}

impl Running {
    /// The test server behind the default transport.
    pub async fn start() -> Self {
        Self::with(|t| t).await
    }

    /// The test server behind a transport adjusted by `configure`.
    pub async fn with(configure: impl FnOnce(HttpTransport) -> HttpTransport) -> Self {
        let flags = Flags::default();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let transport = configure(HttpTransport::new(test_server(flags.clone())));
        Self {
            flags,
            ..Self::on(listener, transport)
        }
    }

    /// `transport` serving on `listener`, bound by a test that needed its address first (for
    /// the resource URL of its authorization, say).
    pub fn on(listener: TcpListener, transport: HttpTransport) -> Self {
        let addr = listener.local_addr().expect("addr");
        let stop = CancellationToken::new();
        let task = tokio::spawn(transport.serve(listener, stop.clone().cancelled_owned()));
        Self {
            addr,
            stop,
            task,
            flags: Flags::default(),
        }
    }

    /// A request to `/mcp` with this server's Host and the given extra headers.
    pub fn post(&self, body: impl Into<Vec<u8>>) -> Request {
        post(self.addr, body)
    }

    pub fn method(&self, method: &str) -> Request {
        Request::new(self.addr, method, Vec::new())
    }
}

/// A `hang` call (one progress event, then nothing until the client leaves), read up to the
/// progress event so it is surely in progress.
pub async fn hanging_request(s: &Running, id: i64) -> TcpStream {
    let mut params = json!({"name": "hang", "_meta": meta(json!({}))});
    params["_meta"]["progressToken"] = json!(id);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let mut stream = s
        .post(body.to_string())
        .routing("tools/call", Some("hang"))
        .open()
        .await;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("notifications/progress") {
        let n = read_within(&mut stream, &mut buf, "the progress event").await;
        assert!(n > 0, "the stream ended early");
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&seen).starts_with("HTTP/1.1 200"));
    stream
}

/// A bodiless request with `method` (GET, DELETE) to a server at `addr`.
pub fn request(addr: SocketAddr, method: &str) -> Request {
    Request::new(addr, method, Vec::new())
}

/// A JSON POST to `/mcp` on `addr`.
pub fn post(addr: SocketAddr, body: impl Into<Vec<u8>>) -> Request {
    Request::new(addr, "POST", body.into())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

/// The `_meta` of a 2026-07-28 request.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A 2026-07-28 request body.
pub fn modern(id: i64, method: &str, mut params: Value) -> String {
    params["_meta"] = meta(json!({}));
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// An HTTP request being put together.
pub struct Request {
    addr: SocketAddr,
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    host_set: bool,
}

impl Request {
    fn new(addr: SocketAddr, method: &str, body: Vec<u8>) -> Self {
        Self {
            addr,
            method: method.to_owned(),
            path: "/mcp".to_owned(),
            headers: Vec::new(),
            body,
            host_set: false,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        if name.eq_ignore_ascii_case("host") {
            self.host_set = true;
        }
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Adds a header even if one of that name is already there (a header sent twice).
    pub fn also(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Another request target than `/mcp` (a path, with a query if any).
    pub fn path(mut self, path: &str) -> Self {
        self.path = path.to_owned();
        self
    }

    /// The 2026-07-28 routing headers for `method` (and `name` when given).
    pub fn routing(self, method: &str, name: Option<&str>) -> Self {
        let r = self
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        match name {
            Some(n) => r.header("mcp-name", n),
            None => r,
        }
    }

    fn head(&self) -> Vec<u8> {
        let mut head = format!("{} {} HTTP/1.1\r\n", self.method, self.path);
        if !self.host_set {
            head.push_str(&format!("host: {}\r\n", self.addr));
        }
        for (n, v) in &self.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            self.body.len()
        ));
        head.into_bytes()
    }

    /// Sends the request and reads the whole response.
    pub async fn send(self) -> Reply {
        let stream = self.open().await;
        read_reply(stream).await
    }

    /// Sends the request and returns the socket, for reading a stream bit by bit.
    pub async fn open(self) -> TcpStream {
        let mut stream = TcpStream::connect(self.addr).await.expect("connect");
        let head = self.head();
        stream.write_all(&head).await.expect("write head");
        // A server may answer (413) before it reads a large body; that is not a test failure.
        let _ = stream.write_all(&self.body).await;
        stream
    }
}

/// An `echo` request that leaves the connection open.
pub fn keep_alive_echo(addr: SocketAddr, id: i64) -> Vec<u8> {
    let body = modern(id, "tools/call", json!({"name": "echo"}));
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: echo\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one small response from a kept-alive connection (up to the end of its JSON body).
pub async fn read_one(stream: &mut TcpStream) -> String {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.ends_with(b"}") {
        let n = read_within(stream, &mut buf, "a response").await;
        assert!(n > 0, "closed early: {:?}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// A keep-alive connection that has been answered once and is left idle, with that answer.
pub async fn idle_connection(addr: SocketAddr) -> (TcpStream, String) {
    let mut idle = TcpStream::connect(addr).await.expect("connect");
    idle.write_all(&keep_alive_echo(addr, 1))
        .await
        .expect("send");
    let first = read_one(&mut idle).await;
    (idle, first)
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    /// The `data:` payloads of an SSE body, as JSON.
    pub fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).expect("event JSON"))
            .collect()
    }

    /// The JSON-RPC error code in the body.
    pub fn error_code(&self) -> i64 {
        self.json()["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error code in {:?}", self.body))
    }
}

/// Reads what the server has sent so far; fails with `what` if nothing comes within 5 s.
pub async fn read_within(stream: &mut TcpStream, buf: &mut [u8], what: &str) -> usize {
    tokio::time::timeout(Duration::from_secs(5), stream.read(buf))
        .await
        .expect(what)
        .expect("read")
}

/// Reads until the server closes the stream; fails with `what` if it stays open past 5 s.
pub async fn read_to_close(stream: &mut TcpStream, what: &str) -> Vec<u8> {
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest))
        .await
        .expect(what)
        .expect("read");
    rest
}

async fn read_reply(mut stream: TcpStream) -> Reply {
    let mut raw = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no complete response within 10 s");
    parse_reply(&raw)
}

/// Parses a response (head + body, possibly chunked) from raw bytes.
pub fn parse_reply(raw: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            out.push_str(rest.get(..size.min(rest.len())).unwrap_or(""));
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}
