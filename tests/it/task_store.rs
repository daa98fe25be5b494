//! The task stores: the conformance checks (`conformance`) against `MemoryTaskStore` (one
//! store, handled twice) and `RedisTaskStore` (two stores on one real `redis-server`, as two
//! instances of a fleet), then what only a fleet has: leases and sweeps, a Redis that goes
//! away, wake-ups lost on the way. Every wait is bounded, and polls rather than sleeps.

mod conformance;

use std::future::Future;
use std::time::{Duration, Instant};

use mcp::protocol::{ElicitParams, InputRequest, InputRequests, InputResponses, code};
use mcp::tasks::{
    MemoryTaskStore, RedisTaskStore, TaskLimits, TaskState, TaskStatus, TaskStore, TaskStoreError,
};
use serde_json::json;

use crate::support::log::CapturedLog;
use crate::support::redis::RedisServer;

/// Generous: reconnecting backs off up to 5 s, on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(20);

/// Taken by the tests that cut a store off Redis, so they run one at a time: one of them
/// reads what the stores log, and `tracing` caches whether a log line is wanted when the
/// line is first reached; another test's store reaching it on another thread at the moment
/// the reader starts capturing could leave it cached as unwanted.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn redis_store(url: &str, limits: TaskLimits) -> RedisTaskStore {
    RedisTaskStore::builder(url)
        .prefix("test:tasks:")
        .limits(limits)
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The limits a check's stores are made with: the default ones unless it names others.
macro_rules! limits {
    () => {
        mcp::tasks::TaskLimits::default()
    };
    ($limits:expr) => {
        $limits
    };
}

/// Runs each check against a memory store and against two Redis stores on a Redis of its own.
macro_rules! conformance {
    ($($check:ident $(with $limits:expr)?),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $check() {
                    let limits = limits!($($limits)?);
                    let store = mcp::tasks::MemoryTaskStore::with_limits(limits);
                    super::conformance::$check(&store, &store.clone()).await;
                }
            )*
        }
        mod redis {
            $(
                #[tokio::test]
                async fn $check() {
                    let Some(redis) = crate::support::redis::RedisServer::start() else {
                        return;
                    };
                    let limits = limits!($($limits)?);
                    let a = super::redis_store(&redis.url(), limits);
                    let b = super::redis_store(&redis.url(), limits);
                    super::conformance::$check(&a, &b).await;
                }
            )*
        }
    };
}

conformance! {
    a_created_task_is_found_through_either_handle_by_its_owner_only,
    ids_are_unguessable_and_distinct,
    each_transition_moves_last_updated_forward_and_keeps_what_it_carries,
    terminal_states_are_final,
    answers_are_taken_once_each_and_only_for_outstanding_keys,
    a_key_names_one_request_over_the_task_life,
    a_cancel_through_either_handle_is_recorded_and_wakes_the_runner,
    an_update_through_either_handle_wakes_the_runner,
    of_two_answers_to_one_key_at_once_exactly_one_is_taken,
    a_finished_task_is_gone_after_its_ttl_and_a_running_one_stays,
    limits_refuse_with_specific_errors with super::conformance::small_limits(),
    the_empty_owner_is_bounded_by_the_total_only with super::conformance::small_limits(),
    renewing_reports_the_tasks_no_longer_held,
}

fn leased(url: &str, lease: Duration) -> RedisTaskStore {
    RedisTaskStore::builder(url)
        .prefix("test:tasks:")
        .lease(lease)
        .timeout(Duration::from_millis(500))
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn ok<T>(result: Result<T, TaskStoreError>, what: &str) -> T {
    result.unwrap_or_else(|e| panic!("{what}: {e} ({e:?})"))
}

async fn status(store: &dyn TaskStore, id: &str) -> TaskStatus {
    ok(store.get(id, "alice").await, "get")
        .unwrap_or_else(|| panic!("task {id} not found"))
        .status()
}

fn ask(key: &str) -> TaskState {
    let question = InputRequest::Elicit(ElicitParams::form(
        "Sure?",
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
    ));
    TaskState::InputRequired(InputRequests::from([(key.to_owned(), question)]))
}

fn answer(key: &str) -> InputResponses {
    let mut answers = InputResponses::new();
    answers.insert(key, json!({"action": "accept", "content": {"ok": true}}));
    answers
}

/// What `operation` returns once the store reaches Redis again.
async fn back<T, F: Future<Output = Result<T, TaskStoreError>>>(operation: impl Fn() -> F) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        match operation().await {
            Ok(done) => return done,
            Err(TaskStoreError::Unavailable(_)) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("Redis is back, yet: {e}"),
        }
    }
}

#[tokio::test]
async fn a_runner_that_stops_renewing_has_its_tasks_failed_by_another_instances_sweep() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let lease = Duration::from_millis(600);
    let (a, b) = (leased(&redis.url(), lease), leased(&redis.url(), lease));
    let renewed = ok(
        a.create("alice", Duration::from_secs(60), None).await,
        "create",
    )
    .task_id;
    let abandoned = ok(
        a.create("alice", Duration::from_secs(60), None).await,
        "create",
    )
    .task_id;
    let watch = a.watch(&abandoned);

    // The runner renews one task three times a lease; the other instance sweeps all along.
    let started = Instant::now();
    let mut swept = Vec::new();
    while started.elapsed() < lease * 4 {
        assert!(ok(a.renew(std::slice::from_ref(&renewed)).await, "renew").is_empty());
        swept.extend(ok(b.sweep().await, "sweep"));
        if started.elapsed() < lease - Duration::from_millis(100) {
            assert!(
                swept.is_empty(),
                "swept before its lease ran out: {swept:?}"
            );
        }
        tokio::time::sleep(lease / 3).await;
    }
    assert_eq!(swept, std::slice::from_ref(&abandoned));
    assert_eq!(status(&a, &renewed).await, TaskStatus::Working);
    let failed = ok(b.get(&abandoned, "alice").await, "get").unwrap_or_else(|| panic!("gone"));
    let TaskState::Failed(error) = &failed.state else {
        panic!("{failed:?}")
    };
    assert_eq!(error.code, code::INTERNAL_ERROR);
    assert!(
        error.message.contains("runner stopped"),
        "{}",
        error.message
    );
    assert!(
        failed
            .status_message
            .as_deref()
            .is_some_and(|m| m.contains("lease"))
    );
    assert!(
        tokio::time::timeout(DEADLINE, watch.changed())
            .await
            .is_ok(),
        "the sweep wakes the runner, which may only have been cut off"
    );
    assert!(matches!(
        a.take_inbox(&abandoned).await,
        Err(TaskStoreError::Finished(TaskStatus::Failed))
    ));
    let abandoned = std::slice::from_ref(&abandoned);
    assert_eq!(ok(a.renew(abandoned).await, "renew"), abandoned);
    assert!(ok(b.sweep().await, "sweep").is_empty(), "failed once");

    // The runner dies: its last task goes the same way.
    drop(a);
    let died = Instant::now();
    let mut swept = Vec::new();
    while swept.is_empty() {
        assert!(died.elapsed() < DEADLINE, "never swept");
        tokio::time::sleep(lease / 3).await;
        swept = ok(b.sweep().await, "sweep");
    }
    assert_eq!(swept, std::slice::from_ref(&renewed));
    assert_eq!(status(&b, &renewed).await, TaskStatus::Failed);
}

#[tokio::test]
async fn a_finished_task_leaves_no_key_behind_once_its_ttl_is_up() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        redis_store(&redis.url(), TaskLimits::default()),
        redis_store(&redis.url(), TaskLimits::default()),
    );
    let id = ok(
        a.create("alice", Duration::from_millis(200), None).await,
        "create",
    )
    .task_id;
    let keys =
        ["", ":questions", ":keys", ":inbox"].map(|part| format!("test:tasks:task:{id}{part}"));
    let exists = |key: &str| {
        redis
            .command(&["EXISTS", key])
            .unwrap_or_else(|e| panic!("{e}"))
    };
    // Each key the task makes expires with it, from the moment it is made: a runner that
    // dies leaves nothing behind for good.
    let expiring = |key: &str| {
        assert_eq!(exists(key), ":1", "{key} while the task runs");
        let ttl = redis
            .command(&["PTTL", key])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!ttl.starts_with(":-"), "{key} would live forever: {ttl}");
    };
    expiring(&keys[0]);
    ok(a.advance(&id, ask("k"), None).await, "advance");
    expiring(&keys[1]);
    expiring(&keys[2]);
    ok(b.update(&id, "alice", answer("k")).await, "update");
    expiring(&keys[3]);
    ok(a.advance(&id, ask("other"), None).await, "advance");
    for key in &keys {
        expiring(key);
    }
    ok(a.advance(&id, TaskState::Cancelled, None).await, "advance");
    let deadline = Instant::now() + DEADLINE;
    while exists(&keys[0]) == ":1" {
        assert!(Instant::now() < deadline, "the task outlived its ttl");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for key in &keys {
        assert_eq!(exists(key), ":0", "{key}");
    }
    let lease = redis
        .command(&["ZSCORE", "test:tasks:leases", &id])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lease, "$-1", "no lease on a finished task");
}

#[tokio::test]
async fn a_wake_up_lost_while_the_runner_was_unsubscribed_is_made_up_for() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        redis_store(&redis.url(), TaskLimits::default()),
        redis_store(&redis.url(), TaskLimits::default()),
    );
    let id = ok(
        a.create("alice", Duration::from_secs(60), None).await,
        "create",
    )
    .task_id;
    ok(a.advance(&id, ask("k"), None).await, "advance");
    let channel = format!("{}wake:{}", a.prefix(), a.runner_id());
    let deadline = Instant::now() + DEADLINE;
    while redis.publish(&channel, "probe") == 0 {
        assert!(Instant::now() < deadline, "the runner never subscribed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let watch = a.watch(&id);
    // Wakes from the probes (the runner heard them) are spent first.
    while tokio::time::timeout(Duration::from_millis(200), watch.changed())
        .await
        .is_ok()
    {}

    // Cut the runner's subscription: it subscribes again after a back-off of at least 50 ms,
    // and the answer's wake-up is published to nobody meanwhile.
    let killed = redis
        .command(&["CLIENT", "KILL", "TYPE", "pubsub"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(killed.starts_with(':') && killed != ":0", "{killed}");
    assert_eq!(
        redis.publish(&channel, "probe"),
        0,
        "the runner still listens"
    );
    ok(b.update(&id, "alice", answer("k")).await, "update");
    assert!(
        tokio::time::timeout(DEADLINE, watch.changed())
            .await
            .is_ok(),
        "the runner never learned of the answer"
    );
    assert!(
        ok(a.take_inbox(&id).await, "inbox")
            .responses
            .get("k")
            .is_some()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn while_redis_is_away_operations_fail_within_the_timeout_and_work_again_once_it_is_back() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (log, _guard) = CapturedLog::start();
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let timeout = Duration::from_millis(500);
    let (a, b) = (
        leased(&redis.url(), Duration::from_secs(30)),
        leased(&redis.url(), Duration::from_secs(30)),
    );
    let id = ok(
        a.create("alice", Duration::from_secs(60), None).await,
        "create",
    )
    .task_id;
    assert_eq!(status(&b, &id).await, TaskStatus::Working);

    let stopped = redis.kill();
    let ids = [id.clone()];
    let started = Instant::now();
    for attempt in 0..3 {
        let outcomes = [
            a.create("alice", Duration::from_secs(60), None)
                .await
                .map(drop),
            b.get(&id, "alice").await.map(drop),
            b.update(&id, "alice", answer("k")).await.map(drop),
            b.cancel(&id, "alice").await.map(drop),
            a.advance(&id, TaskState::Working, None).await.map(drop),
            a.take_inbox(&id).await.map(drop),
            a.renew(&ids).await.map(drop),
            b.sweep().await.map(drop),
        ];
        for (n, outcome) in outcomes.into_iter().enumerate() {
            assert!(
                matches!(outcome, Err(TaskStoreError::Unavailable(_))),
                "attempt {attempt}, operation {n}: {outcome:?}"
            );
        }
    }
    // 24 operations, none waiting much past the timeout.
    assert!(started.elapsed() < timeout * 24, "{:?}", started.elapsed());

    let _redis = stopped.restart();
    // Each store finds Redis again at its next attempt, after its back-off.
    let task = back(|| b.create("alice", Duration::from_secs(60), None)).await;
    let found = back(|| a.get(&id, "alice")).await;
    // That Redis keeps nothing on disk: the first task went with it.
    assert!(found.is_none());
    let watch = b.watch(&task.task_id);
    ok(b.advance(&task.task_id, ask("k"), None).await, "advance");
    ok(
        a.update(&task.task_id, "alice", answer("k")).await,
        "update",
    );
    let deadline = Instant::now() + DEADLINE;
    loop {
        assert!(
            tokio::time::timeout(DEADLINE, watch.changed())
                .await
                .is_ok(),
            "the runner is not woken after the restart"
        );
        if ok(b.take_inbox(&task.task_id).await, "inbox")
            .responses
            .get("k")
            .is_some()
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the answer never reached the runner"
        );
    }

    // One outage per store, each logged once when it began and once when it ended (when
    // both its connections are back: a's subscription comes back on its own time).
    let lines = |level: &str, words: &str| {
        log.text()
            .lines()
            .filter(|l| l.contains(level) && l.contains(words))
            .count()
    };
    let deadline = Instant::now() + DEADLINE;
    while lines("INFO", "task store reconnected") < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let text = log.text();
    assert_eq!(lines("WARN", "task store lost Redis"), 2, "{text}");
    assert_eq!(lines("INFO", "task store reconnected"), 2, "{text}");
}

#[tokio::test]
async fn a_frozen_redis_fails_operations_within_the_timeout() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let a = leased(&redis.url(), Duration::from_secs(30));
    let id = ok(
        a.create("alice", Duration::from_secs(60), None).await,
        "create",
    )
    .task_id;
    redis.freeze();
    let started = Instant::now();
    let frozen = tokio::time::timeout(DEADLINE, a.get(&id, "alice")).await;
    let waited = started.elapsed();
    redis.thaw();
    let frozen = frozen.unwrap_or_else(|_| panic!("still waiting after {DEADLINE:?}"));
    assert!(
        matches!(frozen, Err(TaskStoreError::Unavailable(_))),
        "{frozen:?}"
    );
    assert!(waited < Duration::from_secs(2), "waited {waited:?}");
    // A store that has yet to connect: connecting and the first script together take no
    // longer than the timeout either.
    let fresh = leased(&redis.url(), Duration::from_secs(30));
    redis.freeze();
    let started = Instant::now();
    let frozen = tokio::time::timeout(DEADLINE, fresh.get(&id, "alice")).await;
    let waited = started.elapsed();
    redis.thaw();
    assert!(
        matches!(frozen, Ok(Err(TaskStoreError::Unavailable(_)))),
        "{frozen:?}"
    );
    assert!(waited < Duration::from_millis(800), "waited {waited:?}");
    let found = back(|| a.get(&id, "alice")).await;
    assert_eq!(found.map(|task| task.status()), Some(TaskStatus::Working));
}

#[tokio::test]
async fn memory_stores_have_no_lease_and_redis_stores_the_one_they_were_given() {
    assert_eq!(MemoryTaskStore::new().lease(), None);
    let store = leased("redis://127.0.0.1:1", Duration::from_millis(1));
    assert_eq!(
        store.lease(),
        Some(Duration::from_millis(100)),
        "at least 100 ms"
    );
}
