//! The resumable GET stream of a 2025-11-25 session over Streamable HTTP: numbered events, a
//! reconnection with `Last-Event-ID` that gets exactly what it missed and then what comes next,
//! what a client hears when it was away for longer than the server keeps, the ids it refuses,
//! the end of the recording with the session, and our own client carried across a cut stream.

#![cfg(feature = "http")]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::McpServer;
use mcp::client::Client;
use mcp::protocol::{Implementation, RawNotification, SubscriptionFilter};
use mcp::push::{Change, LOCAL_BUS_CAPACITY};
use mcp::server::Server;
use mcp::transport::http::{HttpTransport, REPLAY_BUFFER};
use mcp::transport::http_client;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::support::http::{Reply, post, request};

const BOARD: &str = "board://messages";

/// Says hello.
#[mcp::tool]
async fn hello() -> &'static str {
    "hello"
}

/// The posts so far.
#[mcp::resource("board://messages")]
async fn messages() -> String {
    String::new()
}

/// Tools and resources (so tools and resources list changes), and a roots hook that asks the
/// client for its roots: a message that belongs to no request.
fn board() -> Server {
    McpServer::new("board")
        .tools(mcp::tools![hello])
        .resources(mcp::resources![messages])
        .on_roots_list_changed(|ctx| async move {
            let _: Result<Value, _> = ctx.request_client("roots/list", &json!({})).await;
        })
        .build()
        .expect("valid")
}

struct Served {
    addr: SocketAddr,
    _stop: DropGuard,
}

async fn serve(server: &Server, configure: impl FnOnce(HttpTransport) -> HttpTransport) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop = CancellationToken::new();
    let transport = configure(HttpTransport::new(server.clone()));
    tokio::spawn(transport.serve(listener, stop.clone().cancelled_owned()));
    Served {
        addr,
        _stop: stop.drop_guard(),
    }
}

/// Opens a session at `version`, subscribed to the board.
async fn session(addr: SocketAddr, version: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": version, "capabilities": {"roots": {}},
                                 "clientInfo": {"name": "c", "version": "1"}}});
    let reply = post(addr, init.to_string()).send().await;
    let session = reply
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                           "params": {"uri": BOARD}});
    let reply = in_session(addr, &session, subscribe).await;
    assert!(reply.json()["result"].is_object(), "{:?}", reply.json());
    session
}

async fn in_session(addr: SocketAddr, session: &str, message: Value) -> Reply {
    post(addr, message.to_string())
        .header("mcp-session-id", session)
        .send()
        .await
}

/// One SSE event: the fields the tests look at.
#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    message: Option<Value>,
}

impl Event {
    /// The number in a `get-N` id.
    fn number(&self) -> u64 {
        let id = self.id.as_deref().expect("an id");
        id.strip_prefix("get-")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not a GET-stream id: {id:?}"))
    }

    fn method(&self) -> &str {
        self.message
            .as_ref()
            .and_then(|m| m["method"].as_str())
            .unwrap_or_default()
    }
}

/// A session's GET stream, read event by event (the chunked body undone, the SSE fields kept).
struct Stream {
    socket: TcpStream,
    /// Received, still chunked.
    raw: Vec<u8>,
    /// Received and unchunked, not yet read as events.
    body: Vec<u8>,
    ended: bool,
}

impl Stream {
    /// Opens the GET stream of `session`, resuming after `last` if given.
    async fn open(addr: SocketAddr, session: &str, last: Option<&str>) -> Self {
        let mut get = request(addr, "GET")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session);
        if let Some(last) = last {
            get = get.header("last-event-id", last);
        }
        let mut stream = Self {
            socket: get.open().await,
            raw: Vec::new(),
            body: Vec::new(),
            ended: false,
        };
        while find(&stream.raw, b"\r\n\r\n").is_none() {
            assert!(stream.read().await, "no response head");
        }
        let head_end = find(&stream.raw, b"\r\n\r\n").unwrap_or_default() + 4;
        let head = String::from_utf8_lossy(&stream.raw[..head_end]).into_owned();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        stream.raw.drain(..head_end);
        stream
    }

    /// The next event, or `None` once the response has ended.
    async fn next(&mut self) -> Option<Event> {
        loop {
            self.unchunk();
            if let Some(end) = find(&self.body, b"\n\n") {
                let block = String::from_utf8_lossy(&self.body[..end]).into_owned();
                self.body.drain(..end + 2);
                if let Some(event) = parse_event(&block) {
                    return Some(event);
                }
                continue;
            }
            if self.ended || !self.read().await {
                return None;
            }
        }
    }

    /// The next `n` events.
    async fn take(&mut self, n: usize) -> Vec<Event> {
        let mut events = Vec::new();
        for _ in 0..n {
            events.push(self.next().await.expect("another event"));
        }
        events
    }

    async fn read(&mut self) -> bool {
        let mut buf = [0u8; 16384];
        let n = tokio::time::timeout(Duration::from_secs(5), self.socket.read(&mut buf))
            .await
            .expect("more of the stream within 5 s")
            .unwrap_or(0);
        self.raw.extend_from_slice(&buf[..n]);
        n > 0
    }

    fn unchunk(&mut self) {
        while let Some(line_end) = find(&self.raw, b"\r\n") {
            let size = std::str::from_utf8(&self.raw[..line_end])
                .ok()
                .and_then(|s| usize::from_str_radix(s.trim(), 16).ok())
                .expect("a chunk size");
            if size == 0 {
                self.ended = true;
                return;
            }
            let start = line_end + 2;
            if self.raw.len() < start + size + 2 {
                return;
            }
            self.body.extend_from_slice(&self.raw[start..start + size]);
            self.raw.drain(..start + size + 2);
        }
    }
}

/// An event's fields; `None` for a comment (keep-alive).
fn parse_event(block: &str) -> Option<Event> {
    let mut event = Event {
        id: None,
        retry: None,
        message: None,
    };
    let mut any = false;
    for line in block.lines() {
        if let Some(id) = line.strip_prefix("id: ") {
            event.id = Some(id.to_owned());
        } else if let Some(retry) = line.strip_prefix("retry: ") {
            event.retry = Some(retry.parse().expect("a retry in ms"));
        } else if let Some(data) = line.strip_prefix("data:") {
            let data = data.trim_start();
            if !data.is_empty() {
                event.message = Some(serde_json::from_str(data).expect("JSON data"));
            }
        } else {
            continue;
        }
        any = true;
    }
    any.then_some(event)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn listeners(server: &Server, n: usize) {
    for _ in 0..500 {
        if server.push_stats().listeners == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} listeners, not {n}", server.push_stats().listeners);
}

fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

fn board_updated() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
           "params": {"uri": BOARD}})
}

#[tokio::test]
async fn every_event_of_the_get_stream_is_numbered_in_order() {
    let server = board();
    let served = serve(&server, |t| t).await;
    let session = session(served.addr, "2025-11-25").await;
    let mut stream = Stream::open(served.addr, &session, None).await;
    let opening = stream.next().await.expect("the opening event");
    assert_eq!(opening.message, None, "a place to resume from, no message");
    assert_eq!(opening.retry, Some(500));
    let handle = server.handle();
    handle.notify(Change::ToolsListChanged);
    handle.resource_updated(BOARD);
    let pushed = stream.take(2).await;
    let roots_changed = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    assert_eq!(
        in_session(served.addr, &session, roots_changed)
            .await
            .status,
        202
    );
    let asked = stream.next().await.expect("the hook's question");
    assert_eq!(
        pushed.iter().map(|e| e.message.clone()).collect::<Vec<_>>(),
        [
            Some(notification("notifications/tools/list_changed")),
            Some(board_updated())
        ]
    );
    assert_eq!(asked.method(), "roots/list");
    let numbers: Vec<u64> = [&opening, &pushed[0], &pushed[1], &asked]
        .iter()
        .map(|e| e.number())
        .collect();
    assert!(numbers.is_sorted(), "{numbers:?}");
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
}

#[tokio::test]
async fn a_client_that_reconnects_gets_exactly_what_it_missed_then_what_comes_next() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server, |t| t).await;
    let session = session(served.addr, "2025-11-25").await;
    let mut first = Stream::open(served.addr, &session, None).await;
    first.next().await.expect("the opening event");
    handle.notify(Change::ToolsListChanged);
    let last = first.next().await.expect("a change").id.expect("an id");
    drop(first);

    // While it is away: an update of what it subscribes to, a list change, and a question
    // from a hook.
    handle.resource_updated(BOARD);
    handle.notify(Change::ToolsListChanged);
    let roots_changed = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    assert_eq!(
        in_session(served.addr, &session, roots_changed)
            .await
            .status,
        202
    );
    // Each reconnection resumes after the same event: by the second, all three are surely
    // recorded, so it shows the replay on its own (the first may see some arrive live).
    let mut probe = Stream::open(served.addr, &session, Some(&last)).await;
    let seen = probe.take(3).await;
    let mut methods: Vec<&str> = seen.iter().map(Event::method).collect();
    methods.sort_unstable();
    assert_eq!(
        methods,
        [
            "notifications/resources/updated",
            "notifications/tools/list_changed",
            "roots/list"
        ]
    );
    let mut resumed = Stream::open(served.addr, &session, Some(&last)).await;
    assert_eq!(
        resumed.take(3).await,
        seen,
        "the same events, in the same order"
    );
    assert!(seen.iter().all(|e| e.number() > 1), "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].number() < w[1].number()));

    handle.notify(Change::ResourcesListChanged);
    let live = resumed.next().await.expect("what comes next");
    assert_eq!(
        live.message,
        Some(notification("notifications/resources/list_changed")),
        "nothing twice, nothing in between"
    );
    assert!(live.number() > seen[2].number());
}

#[tokio::test]
async fn a_client_away_for_longer_than_is_kept_hears_what_may_have_changed_then_what_is_kept() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server, |t| t).await;
    let away = session(served.addr, "2025-11-25").await;
    let mut first = Stream::open(served.addr, &away, None).await;
    let place = first.next().await.expect("the opening event");
    drop(first);
    // Another session's stream paces the changes: each is out before the next is made, so the
    // away session's recording never falls behind the server (which would also say "may
    // have changed").
    let watcher_session = session(served.addr, "2025-11-25").await;
    let mut watcher = Stream::open(served.addr, &watcher_session, None).await;
    watcher.next().await.expect("the opening event");
    let made = REPLAY_BUFFER as u64 + 3;
    for _ in 0..made {
        handle.notify(Change::ToolsListChanged);
        watcher.next().await.expect("the change");
    }
    let newest = format!("get-{}", place.number() + made);
    let mut probe = Stream::open(served.addr, &away, place.id.as_deref()).await;
    while probe.next().await.expect("up to the newest").id.as_deref() != Some(newest.as_str()) {}

    let mut resumed = Stream::open(served.addr, &away, place.id.as_deref()).await;
    let told = resumed.take(3).await;
    assert_eq!(
        told,
        [
            "notifications/tools/list_changed",
            "notifications/resources/list_changed"
        ]
        .map(|m| Event {
            id: None,
            retry: None,
            message: Some(notification(m)),
        })
        .into_iter()
        .chain([Event {
            id: None,
            retry: None,
            message: Some(board_updated()),
        }])
        .collect::<Vec<_>>(),
        "every list it hears about and every resource it subscribes to, without ids"
    );
    let kept = resumed.take(REPLAY_BUFFER).await;
    let numbers: Vec<u64> = kept.iter().map(Event::number).collect();
    let expected: Vec<u64> = (place.number() + 4..=place.number() + made).collect();
    assert_eq!(numbers, expected, "the latest, in order");
    assert!(
        kept.iter()
            .all(|e| e.method() == "notifications/tools/list_changed")
    );
    handle.resource_updated(BOARD);
    let live = resumed.next().await.expect("what comes next");
    assert_eq!(
        (live.number(), live.message),
        (place.number() + made + 1, Some(board_updated()))
    );
}

#[tokio::test]
async fn a_session_whose_changes_were_lost_on_the_way_is_told_what_may_have_changed() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server, |t| t).await;
    let session = session(served.addr, "2025-11-25").await;
    let mut stream = Stream::open(served.addr, &session, None).await;
    stream.next().await.expect("the opening event");
    // More changes at once than the bus keeps for a reader that has not run: this instance
    // falls behind it.
    for _ in 0..LOCAL_BUS_CAPACITY + 10 {
        handle.notify(Change::ToolsListChanged);
    }
    // Nothing else updates the board: only the notice of what may have changed, recorded
    // (so numbered) for the session.
    loop {
        let event = stream.next().await.expect("events up to the notice");
        if event.id.is_some() && event.message == Some(board_updated()) {
            break;
        }
    }
}

#[tokio::test]
async fn a_last_event_id_of_no_event_of_the_session_is_refused_and_a_valid_one_takes_over() {
    let server = board();
    let served = serve(&server, |t| t).await;
    let session = session(served.addr, "2025-11-25").await;
    let mut open = Stream::open(served.addr, &session, None).await;
    let place = open.next().await.expect("the opening event");
    let get = |last: Option<String>| {
        let get = request(served.addr, "GET")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session);
        match last {
            Some(last) => get.header("last-event-id", &last),
            None => get,
        }
    };
    for wrong in [
        format!("get-{}", place.number() + 1),
        "nonsense".to_owned(),
        format!("req-{}", place.number()),
    ] {
        let refused = get(Some(wrong.clone())).send().await;
        assert_eq!(refused.status, 400, "{wrong}: {refused:?}");
        assert_eq!(refused.error_code(), -32600);
        assert!(
            refused.json()["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("Last-Event-ID")),
            "{refused:?}"
        );
    }
    assert_eq!(get(None).send().await.status, 409, "one stream at a time");
    let mut resumed = Stream::open(served.addr, &session, place.id.as_deref()).await;
    assert_eq!(
        open.next().await,
        None,
        "the stream it took over from ended"
    );
    server.handle().notify(Change::ToolsListChanged);
    assert_eq!(
        resumed.next().await.and_then(|e| e.message),
        Some(notification("notifications/tools/list_changed"))
    );
}

#[tokio::test]
async fn a_session_that_never_opens_its_stream_records_nothing_and_one_that_ends_stops() {
    let server = board();
    let closing = CancellationToken::new();
    let served = serve(&server, |t| t.close_streams_on(closing.clone())).await;
    let quiet = session(served.addr, "2025-11-25").await;
    let deleted = session(served.addr, "2025-11-25").await;
    let shut = session(served.addr, "2025-11-25").await;
    let refused = request(served.addr, "GET")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &quiet)
        .header("last-event-id", "get-1")
        .send()
        .await;
    assert_eq!(
        refused.status, 400,
        "a session without a stream sent nothing"
    );
    assert_eq!(server.push_stats().listeners, 0);
    for session in [&deleted, &shut] {
        drop(Stream::open(served.addr, session, None).await);
    }
    listeners(&server, 2).await;
    let reply = request(served.addr, "DELETE")
        .header("mcp-session-id", &deleted)
        .send()
        .await;
    assert_eq!(reply.status, 200);
    listeners(&server, 1).await;
    // Shutdown begins: no stream is served from now on, so nothing is recorded for one.
    closing.cancel();
    listeners(&server, 0).await;
}

#[tokio::test]
async fn an_expired_session_stops_recording() {
    let server = board();
    let served = serve(&server, |t| {
        t.session_idle_timeout(Duration::from_millis(100))
    })
    .await;
    let expiring = session(served.addr, "2025-11-25").await;
    drop(Stream::open(served.addr, &expiring, None).await);
    listeners(&server, 1).await;
    // Expired sessions are swept when another opens.
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        session(served.addr, "2025-11-25").await;
        if server.push_stats().listeners == 0 {
            return;
        }
    }
    panic!("the expired session still records");
}

#[tokio::test]
async fn a_session_of_an_earlier_revision_gets_numbered_events_but_no_opening_event() {
    let server = board();
    let served = serve(&server, |t| t).await;
    let session = session(served.addr, "2025-06-18").await;
    let mut stream = Stream::open(served.addr, &session, None).await;
    listeners(&server, 1).await;
    server.handle().notify(Change::ToolsListChanged);
    let first = stream.next().await.expect("the change");
    assert_eq!(
        first.message,
        Some(notification("notifications/tools/list_changed")),
        "its clients would take a message-less event for a broken message"
    );
    assert!(first.id.is_some());
}

/// A loopback proxy in front of a server that cuts the GET streams through it when told, as a
/// failing network would, and holds new GETs back until let through.
struct Cutter {
    addr: SocketAddr,
    gets: Arc<Mutex<Vec<AbortHandle>>>,
    open: watch::Sender<bool>,
    _accepting: DropGuard,
}

impl Cutter {
    async fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let gets = Arc::new(Mutex::new(Vec::new()));
        let (open, gate) = watch::channel(true);
        let stop = CancellationToken::new();
        let accepting = {
            let (gets, stop) = (gets.clone(), stop.clone());
            async move {
                loop {
                    let accepted = tokio::select! {
                        () = stop.cancelled() => return,
                        accepted = listener.accept() => accepted,
                    };
                    let Ok((client, _)) = accepted else {
                        continue;
                    };
                    tokio::spawn(relay(client, upstream, gate.clone(), gets.clone()));
                }
            }
        };
        tokio::spawn(accepting);
        Self {
            addr,
            gets,
            open,
            _accepting: stop.drop_guard(),
        }
    }

    /// Cuts every GET stream open now, and holds the next ones back.
    fn cut(&self) {
        self.open.send_replace(false);
        for get in self.gets.lock().expect("not poisoned").drain(..) {
            get.abort();
        }
    }

    fn let_through(&self) {
        self.open.send_replace(true);
    }
}

async fn relay(
    mut client: TcpStream,
    upstream: SocketAddr,
    mut gate: watch::Receiver<bool>,
    gets: Arc<Mutex<Vec<AbortHandle>>>,
) {
    let mut start = [0u8; 4];
    if client.read_exact(&mut start).await.is_err() {
        return;
    }
    let is_get = &start == b"GET ";
    if is_get && gate.wait_for(|open| *open).await.is_err() {
        return;
    }
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    if server.write_all(&start).await.is_err() {
        return;
    }
    let piping = tokio::spawn(async move {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    });
    if is_get {
        gets.lock()
            .expect("not poisoned")
            .push(piping.abort_handle());
    }
}

async fn next_method(notifications: &mut mpsc::Receiver<RawNotification>) -> String {
    tokio::time::timeout(Duration::from_secs(10), notifications.recv())
        .await
        .expect("a notification within 10 s")
        .expect("the client is alive")
        .method
}

#[tokio::test]
async fn our_client_hears_what_was_pushed_while_its_get_stream_was_cut() {
    let server = board();
    let handle = server.handle();
    let served = serve(&server, |t| t).await;
    let cutter = Cutter::start(served.addr).await;
    let url = format!("http://{}/mcp", cutter.addr);
    let client = Client::builder(Implementation::new("resume-test", "1"))
        .connect(http_client::connect(&url).expect("a valid URL"));
    let mut notifications = client.notifications().expect("the receiver");
    client.initialize().await.expect("a session");
    listeners(&server, 1).await;
    handle.notify(Change::ResourcesListChanged);
    assert_eq!(
        next_method(&mut notifications).await,
        "notifications/resources/list_changed"
    );

    cutter.cut();
    handle.notify(Change::ToolsListChanged);
    cutter.let_through();
    assert_eq!(
        next_method(&mut notifications).await,
        "notifications/tools/list_changed",
        "sent again on the stream the client resumed"
    );
}

#[tokio::test]
async fn a_listen_in_a_session_returns_once_the_stream_that_carries_its_changes_is_open() {
    let server = board();
    // GETs wait at the server until let through, as behind a slow network or server.
    let (held, gate) = watch::channel(false);
    let router = HttpTransport::new(server.clone())
        .into_router()
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let mut gate = gate.clone();
                async move {
                    if request.method() == axum::http::Method::GET {
                        let _ = gate.wait_for(|open| *open).await;
                    }
                    next.run(request).await
                }
            },
        ));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, router).await });

    let client = Client::builder(Implementation::new("listen-test", "1"))
        .connect(http_client::connect(&url).expect("a valid URL"));
    client.initialize().await.expect("a session");
    let listening = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .listen(SubscriptionFilter::new().tools_changed())
                .await
        })
    };
    // Longer than the second the client's other messages wait for the stream.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !listening.is_finished(),
        "a change made now would have nowhere to go"
    );
    held.send_replace(true);
    let mut listen = listening.await.expect("joined").expect("a listen");
    server.handle().notify(Change::ToolsListChanged);
    let heard = tokio::time::timeout(Duration::from_secs(10), listen.next()).await;
    assert_eq!(
        heard.expect("within 10 s"),
        Some(Ok(Change::ToolsListChanged))
    );
}
