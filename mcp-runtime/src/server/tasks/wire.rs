//! A stored task as the wire shows it.

use crate::protocol::{DetailedTask, JsonObject, Task};
use crate::tasks::TaskRecord;
use crate::tasks::TaskState;
use crate::tasks::limits::millis;

/// The members every view of the task has (a `CreateTaskResult`'s).
pub(super) fn task(record: &TaskRecord) -> Task {
    Task {
        task_id: record.task_id.clone(),
        status: record.status(),
        status_message: record.status_message.clone(),
        created_at: record.created_at.to_string(),
        last_updated_at: record.last_updated_at.to_string(),
        // The ttl is never zero (Tasks keeps it at a millisecond or more), and the spec
        // reads 0 as no time at all.
        ttl_ms: Some(millis(record.ttl).max(1)),
        poll_interval_ms: record.poll_interval.map(|p| millis(p).max(1)),
    }
}

/// What `tasks/get` shows: the task and what its status carries.
pub(super) fn detailed(record: TaskRecord) -> DetailedTask {
    let task = task(&record);
    let (mut input_requests, mut result, mut error) = (None, None, None);
    match record.state {
        TaskState::InputRequired(requests) => input_requests = Some(requests),
        TaskState::Completed(value) => result = Some(value),
        TaskState::Failed(failure) => error = Some(failure),
        TaskState::Working | TaskState::Cancelled => {}
    }
    DetailedTask {
        task,
        input_requests,
        result,
        error,
    }
}

/// `value`'s members, for an answer that must be an object (every JSON-RPC result is).
pub(super) fn members<T: serde::Serialize>(value: &T) -> Result<JsonObject, serde_json::Error> {
    match serde_json::to_value(value)? {
        serde_json::Value::Object(members) => Ok(members),
        _ => Err(serde::ser::Error::custom("not an object")),
    }
}
