//! What a 2025-11-25 session's GET stream carries, numbered and kept for a while, so a client
//! that lost the stream and reconnects with `Last-Event-ID` is sent what it missed.
//!
//! Events are numbered per session from 1 and their SSE ids are written `get-N`: ordered,
//! unique within the session, and recognisably the GET stream's, so that a `Last-Event-ID`
//! from any other stream (a request's, should those ever be numbered) is never taken for a
//! place in this one. Only the latest [`REPLAY_BUFFER`] events, and at most [`REPLAY_BYTES`]
//! of them, are kept; a reader whose place was dropped has missed something, and is told so
//! by [`Backlog::missed`].

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use axum::body::Bytes;
use tokio::sync::watch;

use super::sse;

/// How many of its latest GET-stream events a 2025-11-25 session keeps for a client that
/// reconnects with `Last-Event-ID`.
pub const REPLAY_BUFFER: usize = 256;

/// How many bytes those events may take at most, per session (the newest is kept whatever
/// its size: an open stream must still carry it).
pub const REPLAY_BYTES: usize = 64 * 1024;

const ID_PREFIX: &str = "get-";

/// The SSE id of event `n`.
pub(super) fn event_id(n: u64) -> String {
    format!("{ID_PREFIX}{n}")
}

/// The event number of an id [`event_id`] wrote; `None` for anything else.
pub(super) fn parse_event_id(id: &str) -> Option<u64> {
    let n = id.strip_prefix(ID_PREFIX)?.parse().ok()?;
    // Only the exact spelling: `get-07` or `get-+7` was never sent.
    (event_id(n) == id).then_some(n)
}

/// A session's numbered, bounded record of its GET stream's events.
#[derive(Debug)]
pub(super) struct Outbox {
    kept: Mutex<Kept>,
    /// The number of the newest event recorded; readers wait on it for more.
    newest: watch::Sender<u64>,
}

#[derive(Debug)]
struct Kept {
    /// Oldest first; numbers strictly increase.
    events: VecDeque<(u64, Bytes)>,
    bytes: usize,
    /// The number the next event gets. Numbering starts at 1, so 0 stands before every event.
    next: u64,
    /// The number of the newest event dropped to make room (0 while none was).
    dropped_through: u64,
}

/// What a reader at some place in the stream has not been given yet.
#[derive(Debug)]
pub(super) struct Backlog {
    /// Events after its place were dropped before it was given them.
    pub missed: bool,
    /// The kept events after its place, oldest first, framed with their ids.
    pub frames: Vec<Bytes>,
    /// Its place once it has been given all this.
    pub through: u64,
}

impl Outbox {
    pub fn new() -> Self {
        Self {
            kept: Mutex::new(Kept {
                events: VecDeque::new(),
                bytes: 0,
                next: 1,
                dropped_through: 0,
            }),
            newest: watch::Sender::new(0),
        }
    }

    /// Numbers `line` and keeps it, dropping the oldest events beyond the bounds, and wakes
    /// the readers.
    pub fn record(&self, line: &str) {
        let mut kept = self.lock();
        let n = kept.next;
        kept.next += 1;
        let frame = sse::event_with_id(&event_id(n), line);
        kept.bytes += frame.len();
        kept.events.push_back((n, frame));
        while kept.events.len() > REPLAY_BUFFER
            || (kept.bytes > REPLAY_BYTES && kept.events.len() > 1)
        {
            let Some((dropped, frame)) = kept.events.pop_front() else {
                break;
            };
            kept.bytes -= frame.len();
            kept.dropped_through = dropped;
        }
        drop(kept);
        self.newest.send_replace(n);
    }

    /// A number of its own for a place in the stream that is no event (where a fresh stream
    /// starts): every event recorded before it is behind it, every later one after it.
    pub fn mark(&self) -> u64 {
        let mut kept = self.lock();
        let n = kept.next;
        kept.next += 1;
        n
    }

    /// Whether a client may hold place `n`: a number already given out, or 0.
    pub fn issued(&self, n: u64) -> bool {
        n < self.lock().next
    }

    /// What a reader at place `after` has not been given yet.
    pub fn backlog(&self, after: u64) -> Backlog {
        let kept = self.lock();
        let first_new = kept.events.partition_point(|(n, _)| *n <= after);
        let frames = kept
            .events
            .range(first_new..)
            .map(|(_, frame)| frame.clone())
            .collect();
        let newest = kept.events.back().map_or(kept.dropped_through, |(n, _)| *n);
        Backlog {
            missed: kept.dropped_through > after,
            frames,
            through: after.max(newest),
        }
    }

    /// Changes whenever an event is recorded.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.newest.subscribe()
    }

    fn lock(&self) -> MutexGuard<'_, Kept> {
        // Every critical section leaves the record whole before anything can panic.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(frames: &[Bytes]) -> Vec<String> {
        frames
            .iter()
            .map(|f| {
                let text = String::from_utf8_lossy(f);
                let first = text.lines().next().unwrap_or_default();
                first.strip_prefix("id: ").unwrap_or(first).to_owned()
            })
            .collect()
    }

    #[test]
    fn a_reader_gets_what_came_after_its_place_in_order() {
        let outbox = Outbox::new();
        outbox.record("{\"a\":1}");
        let place = outbox.mark();
        outbox.record("{\"b\":2}");
        outbox.record("{\"c\":3}");
        let backlog = outbox.backlog(place);
        assert!(!backlog.missed);
        assert_eq!(ids(&backlog.frames), ["get-3", "get-4"]);
        assert_eq!(
            String::from_utf8_lossy(&backlog.frames[0]),
            "id: get-3\nevent: message\ndata: {\"b\":2}\n\n"
        );
        assert_eq!(backlog.through, 4);
        let caught_up = outbox.backlog(backlog.through);
        assert!(caught_up.frames.is_empty() && !caught_up.missed);
        assert_eq!(caught_up.through, 4);
        assert_eq!(ids(&outbox.backlog(0).frames), ["get-1", "get-3", "get-4"]);
    }

    #[test]
    fn only_the_latest_events_are_kept_and_a_reader_behind_them_has_missed_some() {
        let outbox = Outbox::new();
        for _ in 0..REPLAY_BUFFER + 5 {
            outbox.record("{}");
        }
        let behind = outbox.backlog(3);
        assert!(behind.missed);
        assert_eq!(behind.frames.len(), REPLAY_BUFFER);
        assert_eq!(ids(&behind.frames)[0], "get-6");
        assert_eq!(behind.through, REPLAY_BUFFER as u64 + 5);
        let at_the_edge = outbox.backlog(5);
        assert!(!at_the_edge.missed, "nothing after 5 was dropped");
        assert_eq!(at_the_edge.frames.len(), REPLAY_BUFFER);
    }

    #[test]
    fn the_kept_bytes_are_bounded_but_the_newest_event_is_always_kept() {
        let outbox = Outbox::new();
        let line = format!("\"{}\"", "x".repeat(REPLAY_BYTES / 4));
        for _ in 0..8 {
            outbox.record(&line);
        }
        let kept = outbox.backlog(0);
        let bytes: usize = kept.frames.iter().map(Bytes::len).sum();
        assert!(bytes <= REPLAY_BYTES, "{bytes} bytes kept");
        assert_eq!(kept.frames.len(), 3);
        assert!(kept.missed);
        let huge = format!("\"{}\"", "x".repeat(REPLAY_BYTES));
        outbox.record(&huge);
        let kept = outbox.backlog(0);
        assert_eq!(ids(&kept.frames), ["get-9"]);
    }

    #[test]
    fn a_reader_is_woken_by_each_new_event() {
        let outbox = Outbox::new();
        let mut newest = outbox.watch();
        assert!(!newest.has_changed().unwrap_or(true));
        outbox.mark();
        assert!(!newest.has_changed().unwrap_or(true), "a mark is no event");
        outbox.record("{}");
        assert!(newest.has_changed().unwrap_or(false));
        assert_eq!(*newest.borrow_and_update(), 2);
    }

    #[test]
    fn only_numbers_given_out_are_places_a_client_may_hold() {
        let outbox = Outbox::new();
        assert!(outbox.issued(0));
        assert!(!outbox.issued(1));
        outbox.record("{}");
        outbox.mark();
        assert!(outbox.issued(2));
        assert!(!outbox.issued(3));
    }

    #[test]
    fn ids_are_read_back_only_as_written() {
        assert_eq!(parse_event_id(&event_id(42)), Some(42));
        for other in [
            "42", "get-", "get-07", "get-+7", "get--1", "req-7", "get-7 ", "GET-7",
        ] {
            assert_eq!(parse_event_id(other), None, "{other:?}");
        }
        assert_eq!(parse_event_id("get-18446744073709551616"), None);
    }
}
