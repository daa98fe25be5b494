//! What every `TaskStore` must do, written once and run against each store. Each check takes
//! two handles on one store, `a` and `b`, standing for two instances of an application: the
//! same store twice in one process, two `RedisTaskStore`s on one Redis for a fleet. The
//! runner is always `a` (tasks run where they were created); clients come through either.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use mcp::protocol::{ElicitParams, InputRequest, InputRequests, InputResponses, McpError};
use mcp::tasks::{
    Refusal, TASK_ID_LEN, TaskLimits, TaskRecord, TaskState, TaskStatus, TaskStore, TaskStoreError,
    TaskWatch,
};
use serde_json::{Map, Value, json};

/// Every wait is bounded by this; generous for a loaded machine.
const DEADLINE: Duration = Duration::from_secs(10);
const HOUR: Duration = Duration::from_secs(3600);

/// The limits of the stores given to [`limits_refuse_with_specific_errors`].
pub fn small_limits() -> TaskLimits {
    let mut limits = TaskLimits::default();
    limits.per_owner = 2;
    limits.total = 3;
    limits.max_ttl = Duration::from_secs(60);
    limits
}

fn ok<T>(result: Result<T, TaskStoreError>, what: &str) -> T {
    result.unwrap_or_else(|e| panic!("{what}: {e} ({e:?})"))
}

fn question(text: &str) -> InputRequest {
    InputRequest::Elicit(ElicitParams::form(
        text,
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
    ))
}

fn questions(keys: &[(&str, &str)]) -> TaskState {
    TaskState::InputRequired(
        keys.iter()
            .map(|(key, text)| ((*key).to_owned(), question(text)))
            .collect::<InputRequests>(),
    )
}

fn answers(keys: &[&str]) -> InputResponses {
    let mut answers = InputResponses::new();
    for key in keys {
        answers.insert(
            *key,
            json!({"action": "accept", "content": {"ok": true, "key": key}}),
        );
    }
    answers
}

fn result(text: &str) -> Map<String, Value> {
    let result = json!({"content": [{"type": "text", "text": text}], "isError": false,
                        "structuredContent": {"big": u64::MAX, "empty": [], "nested": {}}});
    result.as_object().cloned().unwrap_or_default()
}

async fn create(store: &dyn TaskStore, owner: &str) -> TaskRecord {
    ok(store.create(owner, HOUR, None).await, "create")
}

async fn get(store: &dyn TaskStore, id: &str, owner: &str) -> TaskRecord {
    ok(store.get(id, owner).await, "get").unwrap_or_else(|| panic!("task {id} not found"))
}

async fn advance(store: &dyn TaskStore, id: &str, state: TaskState) -> TaskRecord {
    ok(store.advance(id, state, None).await, "advance")
}

async fn woken(watch: &TaskWatch, within: Duration) -> bool {
    tokio::time::timeout(within, watch.changed()).await.is_ok()
}

/// Waits until `b` reaches `a`'s runner: a store that wakes runners through a subscription
/// wakes every watch when it subscribes, so the checks that count wake-ups start after that.
async fn subscribed(a: &dyn TaskStore, b: &dyn TaskStore) {
    let task = create(a, "probe").await;
    let watch = a.watch(&task.task_id);
    ok(b.cancel(&task.task_id, "probe").await, "cancel");
    assert!(
        woken(&watch, DEADLINE).await,
        "the runner never heard a cancel"
    );
    advance(a, &task.task_id, TaskState::Cancelled).await;
}

pub async fn a_created_task_is_found_through_either_handle_by_its_owner_only(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    let poll = Some(Duration::from_millis(1500));
    let task = ok(
        a.create("alice", Duration::from_secs(90), poll).await,
        "create",
    );
    assert_eq!(task.status(), TaskStatus::Working);
    assert_eq!(task.owner, "alice");
    assert_eq!(task.created_at, task.last_updated_at);
    assert_eq!(task.ttl, Duration::from_secs(90));
    assert_eq!(task.poll_interval, poll);
    assert_eq!(task.status_message, None);
    assert!(!task.cancel_requested);
    for store in [a, b] {
        assert_eq!(get(store, &task.task_id, "alice").await, task);
        assert_eq!(ok(store.get(&task.task_id, "mallory").await, "get"), None);
        assert_eq!(ok(store.get(&task.task_id, "").await, "get"), None);
        assert_eq!(
            ok(store.get(&task.task_id[1..], "alice").await, "get"),
            None
        );
        let unknown = "A".repeat(TASK_ID_LEN);
        assert_eq!(ok(store.get(&unknown, "alice").await, "get"), None);
        assert_eq!(ok(store.get("../task:*", "alice").await, "get"), None);
    }
    let without_poll = ok(b.create("alice", HOUR, None).await, "create");
    assert_eq!(
        get(a, &without_poll.task_id, "alice").await.poll_interval,
        None
    );
}

pub async fn ids_are_unguessable_and_distinct(a: &dyn TaskStore, b: &dyn TaskStore) {
    let mut ids = Vec::new();
    for i in 0..300 {
        let store = if i % 2 == 0 { a } else { b };
        ids.push(create(store, &format!("owner-{}", i % 7)).await.task_id);
    }
    let distinct: HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "a repeated id");
    for id in &ids {
        assert_eq!(id.len(), TASK_ID_LEN, "{id}");
        assert!(
            id.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'),
            "{id}"
        );
    }
    // Random base64url takes about 63 of its 64 characters at every position over 300 ids;
    // a counter, a clock or a hash of either leaves most positions nearly fixed.
    for position in 0..TASK_ID_LEN {
        let seen: HashSet<u8> = ids.iter().map(|id| id.as_bytes()[position]).collect();
        assert!(
            seen.len() >= 40,
            "position {position}: only {} characters",
            seen.len()
        );
    }
}

pub async fn each_transition_moves_last_updated_forward_and_keeps_what_it_carries(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    let task = create(a, "alice").await;
    let id = task.task_id.as_str();
    let mut last = task.last_updated_at;
    let steps = [
        (
            questions(&[("region", "Region?")]),
            Some("waiting for a region"),
        ),
        (TaskState::Working, Some("provisioning")),
        (TaskState::Working, None),
        (questions(&[("sure", "Sure?"), ("size", "Size?")]), None),
        (TaskState::Completed(result("done")), Some("all done")),
    ];
    for (state, message) in steps {
        let moved = ok(
            a.advance(id, state.clone(), message.map(str::to_owned))
                .await,
            "advance",
        );
        assert_eq!(moved.state, state);
        assert_eq!(moved.status_message.as_deref(), message);
        assert_eq!(moved.created_at, task.created_at);
        assert!(
            moved.last_updated_at > last,
            "{:?} after {last:?}",
            moved.last_updated_at
        );
        last = moved.last_updated_at;
        assert_eq!(get(b, id, "alice").await, moved, "as b reads it");
    }
    let failed = create(a, "alice").await;
    let error = McpError::internal("rate limited").with_data(json!({"retryAfter": 3}));
    let moved = advance(a, &failed.task_id, TaskState::Failed(error.clone())).await;
    assert_eq!(moved.state, TaskState::Failed(error));
    assert!(moved.last_updated_at > failed.last_updated_at);
    assert_eq!(get(b, &failed.task_id, "alice").await, moved);
}

pub async fn terminal_states_are_final(a: &dyn TaskStore, b: &dyn TaskStore) {
    let ends = [
        TaskState::Completed(result("done")),
        TaskState::Failed(McpError::internal("boom")),
        TaskState::Cancelled,
    ];
    for end in ends {
        let task = create(a, "alice").await;
        let id = task.task_id.as_str();
        let ended = advance(a, id, end.clone()).await;
        let status = end.status();
        let attempts = [
            TaskState::Working,
            questions(&[("q", "Again?")]),
            TaskState::Completed(result("again")),
            TaskState::Failed(McpError::internal("again")),
            TaskState::Cancelled,
        ];
        for attempt in attempts {
            let refused = a.advance(id, attempt.clone(), Some("late".into())).await;
            assert!(
                matches!(refused, Err(TaskStoreError::Finished(s)) if s == status),
                "{status} then {:?}: {refused:?}",
                attempt.status()
            );
        }
        assert!(matches!(
            a.take_inbox(id).await,
            Err(TaskStoreError::Finished(s)) if s == status
        ));
        assert_eq!(get(b, id, "alice").await, ended, "unchanged");
        let cancelled = ok(b.cancel(id, "alice").await, "cancel");
        assert_eq!(cancelled, ended, "a cancel leaves a finished task as it is");
        let late = ok(b.update(id, "alice", answers(&["q"])).await, "update");
        assert_eq!(late.refused, [("q".to_owned(), Refusal::NotOutstanding)]);
    }
}

pub async fn answers_are_taken_once_each_and_only_for_outstanding_keys(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    let task = create(a, "alice").await;
    let id = task.task_id.as_str();
    assert!(ok(a.take_inbox(id).await, "inbox").responses.is_empty());
    let asked = advance(
        a,
        id,
        questions(&[("region", "Region?"), ("size", "Size?")]),
    )
    .await;

    let first = ok(
        b.update(id, "alice", answers(&["region", "zone"])).await,
        "update",
    );
    assert_eq!(first.accepted, ["region"]);
    assert_eq!(
        first.refused,
        [("zone".to_owned(), Refusal::NotOutstanding)]
    );
    let partly = get(a, id, "alice").await;
    assert_eq!(
        partly.state,
        questions(&[("size", "Size?")]),
        "only size is outstanding"
    );
    assert_eq!(
        partly.last_updated_at, asked.last_updated_at,
        "still input_required"
    );

    let again = ok(a.update(id, "alice", answers(&["region"])).await, "update");
    assert!(again.accepted.is_empty());
    assert_eq!(
        again.refused,
        [("region".to_owned(), Refusal::AlreadyAnswered)]
    );
    assert!(matches!(
        b.update(id, "mallory", answers(&["size"])).await,
        Err(TaskStoreError::NotFound)
    ));
    assert!(matches!(
        b.update(&"A".repeat(TASK_ID_LEN), "alice", answers(&["size"]))
            .await,
        Err(TaskStoreError::NotFound)
    ));

    let last = ok(b.update(id, "alice", answers(&["size"])).await, "update");
    assert_eq!(last.accepted, ["size"]);
    let working = get(b, id, "alice").await;
    assert_eq!(working.state, TaskState::Working, "nothing is outstanding");
    assert!(working.last_updated_at > asked.last_updated_at);

    let inbox = ok(a.take_inbox(id).await, "inbox");
    assert_eq!(inbox.responses, answers(&["region", "size"]));
    assert!(!inbox.cancel_requested);
    assert!(
        ok(a.take_inbox(id).await, "inbox").responses.is_empty(),
        "handed out once"
    );
    let empty = ok(b.update(id, "alice", InputResponses::new()).await, "update");
    assert_eq!(empty, Default::default());
}

pub async fn a_key_names_one_request_over_the_task_life(a: &dyn TaskStore, b: &dyn TaskStore) {
    let task = create(a, "alice").await;
    let id = task.task_id.as_str();
    advance(a, id, questions(&[("region", "Region?")])).await;
    // The same request again, still unanswered, beside a new one: fine.
    advance(
        a,
        id,
        questions(&[("region", "Region?"), ("size", "Size?")]),
    )
    .await;
    assert!(matches!(
        a.advance(id, questions(&[("region", "Which region?")]), None).await,
        Err(TaskStoreError::KeyReused(key)) if key == "region"
    ));
    assert!(matches!(
        a.advance(id, TaskState::InputRequired(InputRequests::new()), None)
            .await,
        Err(TaskStoreError::NoInputRequests)
    ));
    ok(b.update(id, "alice", answers(&["region"])).await, "update");
    assert!(matches!(
        a.advance(id, questions(&[("region", "Region?")]), None).await,
        Err(TaskStoreError::KeyReused(key)) if key == "region"
    ));
    // A refused transition changed nothing: size is still outstanding.
    assert_eq!(
        get(b, id, "alice").await.state,
        questions(&[("size", "Size?")])
    );
    // Moving on supersedes the questions left: their answers are no longer taken.
    advance(a, id, TaskState::Working).await;
    let late = ok(b.update(id, "alice", answers(&["size"])).await, "update");
    assert_eq!(late.refused, [("size".to_owned(), Refusal::NotOutstanding)]);
    let inbox = ok(a.take_inbox(id).await, "inbox");
    assert!(inbox.responses.get("region").is_some(), "{inbox:?}");
    assert!(inbox.responses.get("size").is_none(), "{inbox:?}");
}

pub async fn a_cancel_through_either_handle_is_recorded_and_wakes_the_runner(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    subscribed(a, b).await;
    let task = create(a, "alice").await;
    let id = task.task_id.as_str();
    let watch = a.watch(id);
    assert!(matches!(
        b.cancel(id, "mallory").await,
        Err(TaskStoreError::NotFound)
    ));
    assert!(
        !woken(&watch, Duration::from_millis(200)).await,
        "woken by a stranger"
    );
    let asked = ok(b.cancel(id, "alice").await, "cancel");
    assert!(asked.cancel_requested);
    assert_eq!(
        asked.status(),
        TaskStatus::Working,
        "the runner ends it, not the cancel"
    );
    assert_eq!(asked.last_updated_at, task.last_updated_at);
    assert!(woken(&watch, DEADLINE).await, "the runner was not woken");
    let inbox = ok(a.take_inbox(id).await, "inbox");
    assert!(inbox.cancel_requested);
    let ended = ok(
        a.advance(id, TaskState::Cancelled, Some("stopped".into()))
            .await,
        "advance",
    );
    assert_eq!(get(b, id, "alice").await, ended);
    assert_eq!(ended.status(), TaskStatus::Cancelled);
}

pub async fn an_update_through_either_handle_wakes_the_runner(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    subscribed(a, b).await;
    let task = create(a, "alice").await;
    let id = task.task_id.as_str();
    let watch = a.watch(id);
    let other = create(a, "alice").await;
    let other_watch = a.watch(&other.task_id);
    advance(
        a,
        id,
        questions(&[("region", "Region?"), ("size", "Size?")]),
    )
    .await;
    assert!(
        !woken(&watch, Duration::from_millis(200)).await,
        "woken by its own question"
    );

    let refused = ok(b.update(id, "alice", answers(&["zone"])).await, "update");
    assert!(refused.accepted.is_empty());
    assert!(
        !woken(&watch, Duration::from_millis(200)).await,
        "woken for nothing"
    );

    for (store, key) in [(b, "region"), (a, "size")] {
        ok(store.update(id, "alice", answers(&[key])).await, "update");
        assert!(
            woken(&watch, DEADLINE).await,
            "not woken by the answer to {key}"
        );
        let inbox = ok(a.take_inbox(id).await, "inbox");
        assert!(inbox.responses.get(key).is_some(), "{key}: {inbox:?}");
    }
    assert!(
        !woken(&other_watch, Duration::from_millis(200)).await,
        "another task's runner"
    );
}

pub async fn of_two_answers_to_one_key_at_once_exactly_one_is_taken(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    for round in 0..30 {
        let task = create(a, "alice").await;
        let id = task.task_id.as_str();
        advance(a, id, questions(&[("k", "Which?")])).await;
        let (from_a, from_b) = tokio::join!(
            a.update(id, "alice", answers(&["k"])),
            b.update(id, "alice", answers(&["k"])),
        );
        let taken = [ok(from_a, "update"), ok(from_b, "update")]
            .iter()
            .map(|outcome| outcome.accepted.len())
            .sum::<usize>();
        assert_eq!(taken, 1, "round {round}");
        assert_eq!(ok(a.take_inbox(id).await, "inbox").responses.0.len(), 1);
    }
}

pub async fn a_finished_task_is_gone_after_its_ttl_and_a_running_one_stays(
    a: &dyn TaskStore,
    b: &dyn TaskStore,
) {
    let ttl = Duration::from_millis(400);
    let finished = ok(a.create("alice", ttl, None).await, "create");
    let running = ok(a.create("alice", ttl, None).await, "create");
    let asking = ok(a.create("alice", ttl, None).await, "create");
    advance(a, &asking.task_id, questions(&[("q", "Q?")])).await;
    ok(
        b.update(&asking.task_id, "alice", answers(&["q"])).await,
        "update",
    );
    advance(a, &finished.task_id, TaskState::Completed(result("done"))).await;
    let done_at = Instant::now();
    assert!(
        ok(b.get(&finished.task_id, "alice").await, "get").is_some(),
        "kept for its ttl"
    );
    loop {
        let found = ok(b.get(&finished.task_id, "alice").await, "get");
        if found.is_none() {
            break;
        }
        assert!(
            done_at.elapsed() < DEADLINE,
            "still there {DEADLINE:?} after it finished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        done_at.elapsed() >= ttl - Duration::from_millis(50),
        "gone before its ttl"
    );
    tokio::time::sleep(ttl).await;
    for task in [&running, &asking] {
        let kept = get(b, &task.task_id, "alice").await;
        assert!(!kept.status().is_terminal());
    }
    assert_eq!(
        ok(a.take_inbox(&asking.task_id).await, "inbox")
            .responses
            .0
            .len(),
        1
    );
    assert!(matches!(
        a.advance(&finished.task_id, TaskState::Working, None).await,
        Err(TaskStoreError::NotFound)
    ));
}

/// Expects stores made with [`small_limits`].
pub async fn limits_refuse_with_specific_errors(a: &dyn TaskStore, b: &dyn TaskStore) {
    let capped = create(a, "alice").await;
    assert_eq!(
        capped.ttl,
        Duration::from_secs(60),
        "the ttl is cut to max_ttl"
    );
    let brief = ok(b.create("alice", Duration::ZERO, None).await, "create");
    assert!(matches!(
        a.create("alice", HOUR, None).await,
        Err(TaskStoreError::OwnerLimit { limit: 2 })
    ));
    create(b, "bob").await;
    assert!(matches!(
        a.create("carol", HOUR, None).await,
        Err(TaskStoreError::StoreFull { limit: 3 })
    ));
    // A finished task holds its place until its ttl is up: with a ttl of 0, not at all...
    advance(a, &brief.task_id, TaskState::Cancelled).await;
    create(a, "carol").await;
    assert!(matches!(
        b.create("dave", HOUR, None).await,
        Err(TaskStoreError::StoreFull { limit: 3 })
    ));
    // ...with one of a minute, for that minute.
    advance(a, &capped.task_id, TaskState::Cancelled).await;
    assert!(matches!(
        b.create("dave", HOUR, None).await,
        Err(TaskStoreError::StoreFull { limit: 3 })
    ));
}

/// Expects stores made with [`small_limits`]: the unauthenticated callers of a server without
/// auth share the empty owner, which only the total bounds.
pub async fn the_empty_owner_is_bounded_by_the_total_only(a: &dyn TaskStore, b: &dyn TaskStore) {
    for store in [a, b, a] {
        create(store, "").await;
    }
    assert!(matches!(
        b.create("", HOUR, None).await,
        Err(TaskStoreError::StoreFull { limit: 3 })
    ));
}

pub async fn renewing_reports_the_tasks_no_longer_held(a: &dyn TaskStore, _b: &dyn TaskStore) {
    let running = create(a, "alice").await.task_id;
    let ended = create(a, "alice").await.task_id;
    advance(a, &ended, TaskState::Completed(result("done"))).await;
    let unknown = "A".repeat(TASK_ID_LEN);
    let ids = [
        running.clone(),
        ended.clone(),
        unknown.clone(),
        "../x".to_owned(),
    ];
    let mut lost = ok(a.renew(&ids).await, "renew");
    lost.sort();
    let mut expected = vec![ended, unknown, "../x".to_owned()];
    expected.sort();
    assert_eq!(lost, expected);
    assert!(ok(a.renew(&[running]).await, "renew").is_empty());
}
