//! The GET stream of a 2025-11-25 session, resumable: what belongs to no request (what the
//! server pushes, and what hooks run outside any request send), numbered, and sent again to
//! a client that reconnects with `Last-Event-ID`.
//!
//! The session's first GET starts a task that, for the rest of the session, records each
//! change pushed to it in the session's [`Outbox`], whether a stream is open or not; a session
//! that never opens one records nothing, and its hooks' messages are dropped. An open stream
//! is a reader of that record: it sends what was recorded after its place, then each event as
//! it is recorded. Replay and live delivery are the same read of the same record, so a client
//! that resumes gets exactly what it missed, then what comes next, nothing twice.
//!
//! A reader whose place was dropped from the record (its client away or not reading for
//! longer than the record holds) cannot be given what it missed. It is told instead that
//! every list the session hears about and every resource it is subscribed to may have
//! changed, as a stdio session that falls behind is, then sent what is kept; its client reads
//! again what it cares about. Server requests among the lost events are lost for good.
//!
//! A GET with `Last-Event-ID` takes the place of a stream the server still thinks open: the
//! client says it lost that one, and a half-open connection would otherwise keep it out until
//! the server noticed. Without the header such a GET is refused (409). A `Last-Event-ID` that
//! names no place in this session's stream (malformed, another stream's, or never sent) is
//! refused (400) rather than served as a fresh stream: that would silently break the promise
//! that nothing is missed, and a client resuming a request's stream would wait on the
//! session's stream for an answer that never comes.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::protocol::V2025_11_25;
use crate::server::{Connection, Interest, Listener, Lists, Server, change_line, may_have_changed};

use super::headers::{self, LAST_EVENT_ID};
use super::outbox::{Outbox, event_id, parse_event_id};
use super::respond;
use super::sse;

/// A session's GET stream: its record, once started, and the stream open now.
#[derive(Debug, Default)]
pub(super) struct GetStream {
    /// Started by the session's first GET.
    recording: OnceLock<Recording>,
    open: Mutex<Option<OpenStream>>,
}

#[derive(Debug)]
struct Recording {
    outbox: Arc<Outbox>,
    /// The list changes the session hears about.
    lists: Lists,
}

#[derive(Debug)]
struct OpenStream {
    sender: mpsc::Sender<Bytes>,
    /// Cancelled when a resuming GET takes the stream's place (and when the session ends).
    replaced: CancellationToken,
}

/// Where a new stream starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// From now on.
    Fresh,
    /// After the event of this number, the last the client received.
    After(u64),
}

/// Why no stream was opened.
#[derive(Debug)]
pub(super) enum Refused {
    /// The session's stream is open and the client did not say it lost it.
    AlreadyOpen,
    /// The `Last-Event-ID` header names no place in this session's stream.
    BadLastEventId(String),
}

/// What a session's stream serves alongside.
pub(super) struct Owner<'a> {
    pub server: &'a Server,
    pub connection: &'a Arc<Connection>,
    /// Cancelled when the session ends.
    pub ended: &'a CancellationToken,
    /// Cancelled when the server starts shutting down.
    pub closing: &'a CancellationToken,
}

/// Where a GET asks its stream to start.
pub(super) fn start(headers: &HeaderMap) -> Result<Start, Refused> {
    let id = headers::header(headers, &LAST_EVENT_ID)
        .map_err(|error| Refused::BadLastEventId(error.message.into_owned()))?;
    let Some(id) = id else {
        return Ok(Start::Fresh);
    };
    parse_event_id(&id)
        .map(Start::After)
        .ok_or_else(no_such_event)
}

fn no_such_event() -> Refused {
    Refused::BadLastEventId(
        "Last-Event-ID names no event of this session's GET stream; \
         open the stream without it to start afresh"
            .to_owned(),
    )
}

impl GetStream {
    /// Whether a stream is open: its client has not gone, as far as the server knows.
    pub fn is_open(&self) -> bool {
        lock(&self.open)
            .as_ref()
            .is_some_and(|s| !s.sender.is_closed())
    }

    /// Records `line` for the stream. `false` when the session never opened one: then no
    /// client listens and the line is dropped.
    pub fn send(&self, line: &str) -> bool {
        self.recording
            .get()
            .map(|r| r.outbox.record(line))
            .is_some()
    }

    /// Opens the stream at `start`: the `200 text/event-stream` response.
    pub fn open(self: &Arc<Self>, owner: &Owner<'_>, start: Start) -> Result<Response, Refused> {
        if let Start::After(n) = start
            && !self.recording.get().is_some_and(|r| r.outbox.issued(n))
        {
            return Err(no_such_event());
        }
        let (tx, rx) = mpsc::channel(respond::STREAM_BUFFER);
        let replaced = owner.ended.child_token();
        {
            let mut open = lock(&self.open);
            if let Some(old) = open.as_ref().filter(|s| !s.sender.is_closed()) {
                if start == Start::Fresh {
                    return Err(Refused::AlreadyOpen);
                }
                tracing::debug!("a resuming GET took the place of the session's open stream");
                old.replaced.cancel();
            }
            *open = Some(OpenStream {
                sender: tx.clone(),
                replaced: replaced.clone(),
            });
        }
        let recording = self.recording.get_or_init(|| start_recording(owner));
        let (place, opening) = match start {
            Start::After(n) => (n, None),
            Start::Fresh => {
                let n = recording.outbox.mark();
                (
                    n,
                    resumable(owner.connection).then(|| sse::opening(&event_id(n))),
                )
            }
        };
        let writer = Writer {
            stream: self.clone(),
            outbox: recording.outbox.clone(),
            lists: recording.lists,
            connection: Arc::downgrade(owner.connection),
            tx,
            replaced,
            closing: owner.closing.clone(),
        };
        tokio::spawn(writer.run(place, opening));
        Ok(sse::response(rx))
    }
}

/// Whether the session's revision lets its stream open with an event that carries no
/// message; earlier clients would take it for a malformed message.
fn resumable(connection: &Connection) -> bool {
    connection
        .legacy_session()
        .is_some_and(|s| s.protocol_version.as_str() >= V2025_11_25)
}

/// Starts recording what the server pushes to the session, until the session ends.
fn start_recording(owner: &Owner<'_>) -> Recording {
    let outbox = Arc::new(Outbox::new());
    let lists = owner.server.announced_lists();
    let connection = Arc::downgrade(owner.connection);
    // Listening before the stream's response goes out: no change made after that is missed.
    let listener = owner.server.listen_to_changes(Interest::Session {
        lists,
        connection: connection.clone(),
    });
    let recorder = Recorder {
        server: owner.server.clone(),
        outbox: outbox.clone(),
        lists,
        connection,
        ended: owner.ended.clone(),
        closing: owner.closing.clone(),
    };
    tokio::spawn(recorder.run(listener));
    Recording { outbox, lists }
}

/// The task that records a session's changes.
struct Recorder {
    server: Server,
    outbox: Arc<Outbox>,
    lists: Lists,
    connection: Weak<Connection>,
    ended: CancellationToken,
    closing: CancellationToken,
}

impl Recorder {
    async fn run(self, mut listener: Listener) {
        loop {
            let change = tokio::select! {
                () = self.ended.cancelled() => return,
                // No stream is served from now on.
                () = self.closing.cancelled() => return,
                change = listener.next() => change,
            };
            if let Some(change) = change {
                if let Some(line) = change_line(&change, None) {
                    self.outbox.record(&line);
                }
                continue;
            }
            // Changes were lost on their way here (this instance fell behind its bus, or this
            // task behind its queue): the client hears what may have changed.
            listener = self.server.listen_to_changes(Interest::Session {
                lists: self.lists,
                connection: self.connection.clone(),
            });
            let Some(connection) = self.connection.upgrade() else {
                return;
            };
            for line in may_have_changed(self.lists, &connection)
                .iter()
                .filter_map(|change| change_line(change, None))
            {
                self.outbox.record(&line);
            }
        }
    }
}

/// One open stream: a reader of the session's record.
struct Writer {
    stream: Arc<GetStream>,
    outbox: Arc<Outbox>,
    lists: Lists,
    connection: Weak<Connection>,
    tx: mpsc::Sender<Bytes>,
    replaced: CancellationToken,
    closing: CancellationToken,
}

impl Writer {
    /// Sends `opening`, then what was recorded after `place`, then each event as it is
    /// recorded, until the client goes, another stream takes this one's place, the session
    /// ends or the server shuts down.
    async fn run(self, mut place: u64, opening: Option<Bytes>) {
        if let Some(opening) = opening
            && !self.send(opening).await
        {
            return;
        }
        let mut recorded = self.outbox.watch();
        loop {
            // Seen before the record is read: an event recorded after the read wakes the wait.
            recorded.borrow_and_update();
            let Some(caught_up) = self.catch_up(place).await else {
                return;
            };
            place = caught_up;
            let more = tokio::select! {
                biased;
                () = self.replaced.cancelled() => false,
                () = self.closing.cancelled() => false,
                () = self.tx.closed() => false,
                changed = recorded.changed() => changed.is_ok(),
                () = tokio::time::sleep(sse::KEEP_ALIVE) => self.send(sse::keep_alive()).await,
            };
            if !more {
                return;
            }
        }
    }

    /// Sends what was recorded after `place`; the new place, or `None` once the stream is
    /// over.
    async fn catch_up(&self, place: u64) -> Option<u64> {
        let backlog = self.outbox.backlog(place);
        if backlog.missed {
            let connection = self.connection.upgrade()?;
            for line in may_have_changed(self.lists, &connection)
                .iter()
                .filter_map(|change| change_line(change, None))
            {
                // Without an id: the client's place stays where it was until the kept events.
                if !self.send(sse::event(&line)).await {
                    return None;
                }
            }
        }
        for frame in backlog.frames {
            if !self.send(frame).await {
                return None;
            }
        }
        Some(backlog.through)
    }

    /// Sends `frame` unless the stream ends first; `false` once it has.
    async fn send(&self, frame: Bytes) -> bool {
        tokio::select! {
            biased;
            () = self.replaced.cancelled() => false,
            () = self.closing.cancelled() => false,
            sent = self.tx.send(frame) => sent.is_ok(),
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // The slot's sender would keep the response open after ours is gone; a newer stream
        // may hold the slot by now, so only our own is removed.
        let mut open = lock(&self.stream.open);
        if open
            .as_ref()
            .is_some_and(|s| s.sender.same_channel(&self.tx))
        {
            open.take();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section here is a single read or write, so a poisoned lock holds
    // consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
