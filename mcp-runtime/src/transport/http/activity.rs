//! What one connection is doing, as its timeouts and the connection cap see it: waiting for a
//! request, reading a request's head, or carrying a request; and whether the server has told
//! it to close.
//!
//! hyper's own header timeout cannot serve here: it restarts whenever a kept-alive connection
//! goes idle, so it would also be the keep-alive timeout, and nothing would tell an idle
//! connection from a busy one to choose which to close when room is needed.

use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;
use std::time::Duration;

use tokio::time::Instant;

/// How long a connection may take over the parts of an exchange that are the client's.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timeouts {
    /// To send a request's head: from the connection's start for the first request, from its
    /// first byte for later ones.
    pub header_read: Duration,
    /// To start the next request after a response.
    pub keep_alive: Duration,
    /// To take response bytes the server is waiting to write (the socket's buffers full).
    pub write: Duration,
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request in progress and no byte of the next one.
    Waiting {
        deadline: Deadline,
        /// Accepted and never used: the first head's timeout is already running.
        fresh: bool,
    },
    /// Part of a request head has arrived.
    ReadingHead { deadline: Deadline },
    /// Requests whose responses have not been sent in full.
    Busy { requests: usize },
}

/// When a phase times out (`At(None)`: a timeout too long to add), or `Unset` until the first
/// look at the connection since the phase began. That look follows within the same poll of the
/// connection's task, so the deadline is late by no more than that; and a phase over before
/// anyone looks, as is reading a head that arrives whole, never reads the clock.
#[derive(Debug, Clone, Copy)]
enum Deadline {
    Unset,
    At(Option<Instant>),
}

impl Deadline {
    /// The deadline, set `timeout` after `look` if it was unset.
    fn set(&mut self, look: &mut Look<'_>, timeout: Duration) -> Option<Instant> {
        let at = match *self {
            Deadline::At(at) => at,
            Deadline::Unset => look.now().checked_add(timeout),
        };
        *self = Deadline::At(at);
        at
    }
}

/// One look at a connection ([`Activity::next`]): the time, read from the clock only if the
/// look needs it.
#[derive(Debug)]
pub(super) struct Look<'w> {
    now: Option<Instant>,
    /// Whether a deadline may have passed. The connection's task keeps an alarm set no later
    /// than the deadline in force, so until it goes off none has.
    may_have_passed: bool,
    /// The task to wake when an order comes. Changes of phase need no waking: they happen
    /// while the task polls the connection, and it looks after that.
    waker: Option<&'w Waker>,
}

impl<'w> Look<'w> {
    /// A look by the connection's task, whose alarm has gone off or not.
    pub fn by_task(alarm_went_off: bool, waker: &'w Waker) -> Self {
        Self {
            now: None,
            may_have_passed: alarm_went_off,
            waker: Some(waker),
        }
    }

    /// A look at `now`, when any deadline may have passed.
    #[cfg(test)]
    pub fn at(now: Instant) -> Self {
        Self {
            now: Some(now),
            may_have_passed: true,
            waker: None,
        }
    }

    fn now(&mut self) -> Instant {
        *self.now.get_or_insert_with(Instant::now)
    }

    /// Serve until `deadline`, or close for `reason` once it has passed.
    fn until(&mut self, deadline: Option<Instant>, reason: &'static str) -> Next {
        match deadline {
            Some(at) if self.may_have_passed && self.now() >= at => Next::Close(reason),
            deadline => Next::Serve(deadline),
        }
    }
}

/// What the server asked of a connection; a later order only ever raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Order {
    Serve,
    /// Shutting down: close once no request is in progress. A request head being read may
    /// still arrive (a balancer may be sending it) within its timeout.
    CloseWhenIdle,
    /// Room is needed for a new connection: close unless a request is in progress.
    MakeRoom,
}

/// Why a connection is closed when the server stops.
pub(super) const SHUTTING_DOWN: &str = "shutting down";
/// Why an idle keep-alive connection is closed.
pub(super) const IDLE_PAST_KEEP_ALIVE: &str = "idle past the keep-alive timeout";

/// What the connection's task does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// Keep serving; look again at this instant, if any.
    Serve(Option<Instant>),
    /// Take no further request: finish the one in progress, then close.
    FinishThenClose,
    /// Close now, for this reason (nothing is in progress).
    Close(&'static str),
}

/// One connection's activity, shared by its socket (bytes arriving), its service (requests
/// starting and ending), its task and the table of connections.
#[derive(Debug)]
pub(super) struct Activity {
    timeouts: Timeouts,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// When the connection last had no request in progress (or was accepted).
    idle_since: Instant,
    order: Order,
    /// The connection's task, woken by an order.
    waker: Option<Waker>,
}

impl Activity {
    /// A connection accepted at `now`.
    pub fn new(timeouts: Timeouts, now: Instant) -> Self {
        let phase = Phase::Waiting {
            deadline: Deadline::At(now.checked_add(timeouts.header_read)),
            fresh: true,
        };
        Self {
            timeouts,
            state: Mutex::new(State {
                phase,
                idle_since: now,
                order: Order::Serve,
                waker: None,
            }),
        }
    }

    /// The timeouts it runs under.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// The socket read something.
    pub fn bytes_arrived(&self) {
        let mut state = self.lock();
        if let Phase::Waiting { deadline, fresh } = state.phase {
            let deadline = if fresh { deadline } else { Deadline::Unset };
            state.phase = Phase::ReadingHead { deadline };
        }
    }

    /// A request's head has been read; the connection is busy until the guard drops with the
    /// response body.
    pub fn request_started(self: &Arc<Self>) -> InProgress {
        let mut state = self.lock();
        state.phase = match state.phase {
            Phase::Busy { requests } => Phase::Busy {
                requests: requests + 1,
            },
            Phase::Waiting { .. } | Phase::ReadingHead { .. } => Phase::Busy { requests: 1 },
        };
        InProgress(self.clone())
    }

    fn request_ended(&self) {
        let mut state = self.lock();
        if let Phase::Busy { requests } = state.phase {
            state.phase = if requests > 1 {
                Phase::Busy {
                    requests: requests - 1,
                }
            } else {
                // `idle_since` is set with the deadline.
                Phase::Waiting {
                    deadline: Deadline::Unset,
                    fresh: false,
                }
            };
        }
    }

    /// What the connection's task does next.
    pub fn next(&self, look: &mut Look<'_>) -> Next {
        let mut state = self.lock();
        if let Some(waker) = look.waker
            && !state.waker.as_ref().is_some_and(|w| w.will_wake(waker))
        {
            state.waker = Some(waker.clone());
        }
        match (state.phase, state.order) {
            (Phase::Busy { .. }, Order::Serve) => Next::Serve(None),
            (Phase::Busy { .. }, _) => Next::FinishThenClose,
            (Phase::Waiting { .. }, Order::CloseWhenIdle) => Next::Close(SHUTTING_DOWN),
            (Phase::Waiting { .. } | Phase::ReadingHead { .. }, Order::MakeRoom) => {
                Next::Close("room needed for a new connection")
            }
            (
                Phase::Waiting {
                    mut deadline,
                    fresh,
                },
                _,
            ) => {
                if let Deadline::Unset = deadline {
                    state.idle_since = look.now();
                }
                let at = deadline.set(look, self.timeouts.keep_alive);
                state.phase = Phase::Waiting { deadline, fresh };
                look.until(
                    at,
                    if fresh {
                        "no request head within the header read timeout"
                    } else {
                        IDLE_PAST_KEEP_ALIVE
                    },
                )
            }
            (Phase::ReadingHead { mut deadline }, _) => {
                let at = deadline.set(look, self.timeouts.header_read);
                state.phase = Phase::ReadingHead { deadline };
                look.until(
                    at,
                    "no complete request head within the header read timeout",
                )
            }
        }
    }

    /// Since when the connection has had no request in progress; `None` while it has one, or
    /// once it was told to make room (it is closing already).
    pub fn idle_since(&self) -> Option<Instant> {
        let state = self.lock();
        match (state.phase, state.order) {
            (Phase::Busy { .. }, _) | (_, Order::MakeRoom) => None,
            // Idle since just now: no look has set the time yet.
            (
                Phase::Waiting {
                    deadline: Deadline::Unset,
                    ..
                },
                _,
            ) => Some(Instant::now()),
            _ => Some(state.idle_since),
        }
    }

    /// Gives the connection an order, and wakes its task to act on it.
    pub fn order(&self, order: Order) {
        let mut state = self.lock();
        if order > state.order {
            state.order = order;
            if let Some(waker) = &state.waker {
                waker.wake_by_ref();
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every critical section is a few assignments that cannot panic halfway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A request in progress on a connection, until dropped with its response body.
#[derive(Debug)]
pub(super) struct InProgress(Arc<Activity>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

/// The defaults, for the tests of this module and of the table of connections.
#[cfg(test)]
pub(super) const TEST_TIMEOUTS: Timeouts = Timeouts {
    header_read: Duration::from_secs(10),
    keep_alive: Duration::from_secs(90),
    write: Duration::from_secs(30),
};

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUTS: Timeouts = TEST_TIMEOUTS;

    #[tokio::test(start_paused = true)]
    async fn the_first_head_is_timed_from_the_connection_start_and_later_ones_from_their_first_byte()
     {
        let start = Instant::now();
        let activity = Arc::new(Activity::new(TIMEOUTS, start));
        let first_deadline = start + TIMEOUTS.header_read;
        assert_eq!(
            activity.next(&mut Look::at(start)),
            Next::Serve(Some(first_deadline))
        );
        tokio::time::advance(Duration::from_secs(4)).await;
        activity.bytes_arrived();
        assert_eq!(
            activity.next(&mut Look::at(Instant::now())),
            Next::Serve(Some(first_deadline))
        );
        assert!(matches!(
            activity.next(&mut Look::at(first_deadline)),
            Next::Close(_)
        ));

        let request = activity.request_started();
        assert_eq!(
            activity.next(&mut Look::at(first_deadline)),
            Next::Serve(None)
        );
        drop(request);
        let idle = Instant::now();
        assert_eq!(
            activity.next(&mut Look::at(idle)),
            Next::Serve(Some(idle + TIMEOUTS.keep_alive))
        );
        tokio::time::advance(Duration::from_secs(60)).await;
        activity.bytes_arrived();
        let head_deadline = Instant::now() + TIMEOUTS.header_read;
        assert_eq!(
            activity.next(&mut Look::at(Instant::now())),
            Next::Serve(Some(head_deadline))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn until_the_alarm_goes_off_no_deadline_has_passed() {
        let activity = Activity::new(TIMEOUTS, Instant::now());
        tokio::time::advance(TIMEOUTS.header_read * 2).await;
        assert!(matches!(
            activity.next(&mut Look::by_task(false, Waker::noop())),
            Next::Serve(Some(_))
        ));
        assert!(matches!(
            activity.next(&mut Look::by_task(true, Waker::noop())),
            Next::Close(_)
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn a_phase_is_timed_from_the_first_look_after_it_began() {
        let activity = Arc::new(Activity::new(TIMEOUTS, Instant::now()));
        drop(activity.request_started());
        tokio::time::advance(Duration::from_secs(5)).await;
        let look = Instant::now();
        assert_eq!(
            activity.next(&mut Look::by_task(false, Waker::noop())),
            Next::Serve(Some(look + TIMEOUTS.keep_alive))
        );
        assert_eq!(activity.idle_since(), Some(look));
        tokio::time::advance(Duration::from_secs(5)).await;
        activity.bytes_arrived();
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(
            activity.next(&mut Look::by_task(false, Waker::noop())),
            Next::Serve(Some(Instant::now() + TIMEOUTS.header_read))
        );
    }

    #[test]
    fn an_order_wakes_the_task_that_looked_last() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::task::Wake;

        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let activity = Activity::new(TIMEOUTS, Instant::now());
        activity.order(Order::CloseWhenIdle);
        assert_eq!(count.0.load(Ordering::SeqCst), 0, "no task has looked");
        let waker = Waker::from(count.clone());
        assert!(matches!(
            activity.next(&mut Look::by_task(false, &waker)),
            Next::Close(_)
        ));
        activity.order(Order::MakeRoom);
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        // An order no higher than the one given wakes nobody.
        activity.order(Order::CloseWhenIdle);
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_busy_connection_finishes_its_request_whatever_it_is_told() {
        let activity = Arc::new(Activity::new(TIMEOUTS, Instant::now()));
        let request = activity.request_started();
        assert!(activity.idle_since().is_none());
        activity.order(Order::MakeRoom);
        assert_eq!(
            activity.next(&mut Look::at(Instant::now())),
            Next::FinishThenClose
        );
        drop(request);
        assert!(matches!(
            activity.next(&mut Look::at(Instant::now())),
            Next::Close(_)
        ));
    }

    #[test]
    fn at_shutdown_a_head_being_read_may_still_arrive() {
        let activity = Activity::new(TIMEOUTS, Instant::now());
        activity.order(Order::CloseWhenIdle);
        assert!(matches!(
            activity.next(&mut Look::at(Instant::now())),
            Next::Close(_)
        ));
        let reading = Activity::new(TIMEOUTS, Instant::now());
        reading.bytes_arrived();
        reading.order(Order::CloseWhenIdle);
        assert!(matches!(
            reading.next(&mut Look::at(Instant::now())),
            Next::Serve(Some(_))
        ));
        // Making room overrides it.
        reading.order(Order::MakeRoom);
        assert!(matches!(
            reading.next(&mut Look::at(Instant::now())),
            Next::Close(_)
        ));
    }

    #[test]
    fn a_duration_too_long_to_add_means_no_deadline() {
        let timeouts = Timeouts {
            header_read: Duration::MAX,
            keep_alive: Duration::MAX,
            write: Duration::MAX,
        };
        let activity = Activity::new(timeouts, Instant::now());
        assert_eq!(
            activity.next(&mut Look::at(Instant::now())),
            Next::Serve(None)
        );
    }
}
