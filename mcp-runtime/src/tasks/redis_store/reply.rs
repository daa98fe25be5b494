//! Reading the scripts' replies: a tag first (`ok`, `notfound`, `finished`, …), then what the
//! tag carries; a task as the flat field list of its hash and of its questions.

use std::time::Duration;

use redis::{FromRedisValue, Value};

use crate::protocol::{InputRequest, InputRequests, InputResponses};
use crate::tasks::{
    Inbox, Refusal, TaskRecord, TaskState, TaskStatus, TaskStoreError, Timestamp, UpdateOutcome,
    result_of_json,
};

fn corrupt(what: impl std::fmt::Display) -> TaskStoreError {
    TaskStoreError::Corrupt(what.to_string())
}

fn decode<T: FromRedisValue>(value: Value, what: &str) -> Result<T, TaskStoreError> {
    redis::from_redis_value(value).map_err(|e| corrupt(format!("{what}: {e}")))
}

/// A reply split into its tag and the rest.
pub(super) struct Reply {
    pub tag: String,
    rest: std::vec::IntoIter<Value>,
}

impl Reply {
    pub fn new(value: Value) -> Result<Self, TaskStoreError> {
        let mut parts: std::vec::IntoIter<Value> =
            decode::<Vec<Value>>(value, "a reply")?.into_iter();
        let tag = decode(parts.next().unwrap_or(Value::Nil), "a reply's tag")?;
        Ok(Self { tag, rest: parts })
    }

    fn next<T: FromRedisValue>(&mut self, what: &str) -> Result<T, TaskStoreError> {
        decode(self.rest.next().unwrap_or(Value::Nil), what)
    }

    /// The error the tags other than the expected one stand for.
    pub fn refusal(mut self) -> TaskStoreError {
        match self.tag.as_str() {
            "notfound" => TaskStoreError::NotFound,
            "finished" => match self.next::<String>("a status") {
                Ok(status) => match TaskStatus::from_wire(&status) {
                    Some(status) => TaskStoreError::Finished(status),
                    None => corrupt(format!("status {status:?}")),
                },
                Err(e) => e,
            },
            "reused" => match self.next::<String>("a key") {
                Ok(key) => TaskStoreError::KeyReused(key),
                Err(e) => e,
            },
            other => corrupt(format!("a reply tagged {other:?}")),
        }
    }

    /// An `ok` reply's task.
    pub fn record(mut self, task_id: &str) -> Result<TaskRecord, TaskStoreError> {
        if self.tag != "ok" {
            return Err(self.refusal());
        }
        let fields: Vec<String> = self.next("a task's fields")?;
        let questions: Vec<String> = self.next("a task's questions")?;
        record(task_id, &fields, &questions)
    }

    /// An `ok` reply's verdicts, one for each key of `keys`, in order.
    pub fn outcome(mut self, keys: Vec<String>) -> Result<UpdateOutcome, TaskStoreError> {
        if self.tag != "ok" {
            return Err(self.refusal());
        }
        let verdicts: Vec<String> = self.next("the verdicts")?;
        if verdicts.len() != keys.len() {
            return Err(corrupt(format!(
                "{} verdicts for {} answers",
                verdicts.len(),
                keys.len()
            )));
        }
        let mut outcome = UpdateOutcome::default();
        for (key, verdict) in keys.into_iter().zip(verdicts) {
            match verdict.as_str() {
                "accepted" => outcome.accepted.push(key),
                "answered" => outcome.refused.push((key, Refusal::AlreadyAnswered)),
                "not_outstanding" => outcome.refused.push((key, Refusal::NotOutstanding)),
                other => return Err(corrupt(format!("verdict {other:?}"))),
            }
        }
        Ok(outcome)
    }

    /// An `inbox` reply's answers and cancel flag.
    pub fn inbox(mut self) -> Result<Inbox, TaskStoreError> {
        if self.tag != "inbox" {
            return Err(self.refusal());
        }
        let cancel: String = self.next("the cancel flag")?;
        let answers: Vec<String> = self.next("the answers")?;
        let mut responses = InputResponses::new();
        for (key, answer) in pairs(&answers)? {
            let answer = serde_json::from_str(answer)
                .map_err(|e| corrupt(format!("answer {key:?}: {e}")))?;
            responses.0.insert(key.to_owned(), answer);
        }
        Ok(Inbox {
            responses,
            cancel_requested: cancel == "1",
        })
    }

    /// A renewal's reply: the tasks the runner no longer holds.
    pub fn lost(mut self) -> Result<Vec<String>, TaskStoreError> {
        if self.tag != "renewed" {
            return Err(self.refusal());
        }
        self.next("the tasks no longer held")
    }

    /// A sweep's reply: how many leases it looked at, and the tasks it failed.
    pub fn swept(mut self) -> Result<(usize, Vec<String>), TaskStoreError> {
        if self.tag != "swept" {
            return Err(self.refusal());
        }
        let looked = self.next("the count of leases looked at")?;
        let failed = self.next("the failed tasks")?;
        Ok((looked, failed))
    }
}

fn pairs(flat: &[String]) -> Result<impl Iterator<Item = (&str, &str)>, TaskStoreError> {
    if !flat.len().is_multiple_of(2) {
        return Err(corrupt("a hash with an odd number of fields and values"));
    }
    Ok(flat
        .chunks_exact(2)
        .map(|pair| (pair[0].as_str(), pair[1].as_str())))
}

fn record(
    task_id: &str,
    fields: &[String],
    questions: &[String],
) -> Result<TaskRecord, TaskStoreError> {
    let mut owner = None;
    let mut status = None;
    let (mut created, mut updated, mut ttl, mut poll) = (None, None, None, None);
    let (mut message, mut result, mut error, mut cancel) = (None, None, None, false);
    for (field, value) in pairs(fields)? {
        match field {
            "owner" => owner = Some(value),
            "status" => status = TaskStatus::from_wire(value),
            "created" => created = Some(millis(field, value)?),
            "updated" => updated = Some(millis(field, value)?),
            "ttl" => ttl = Some(millis(field, value)?),
            "poll" => poll = Some(millis(field, value)?),
            "message" => message = Some(value.to_owned()),
            "result" => result = Some(value),
            "error" => error = Some(value),
            "cancel" => cancel = value == "1",
            // The runner's id: the store's business, not the record's.
            _ => {}
        }
    }
    let missing = |name: &str| corrupt(format!("task {task_id} has no {name}"));
    let state = match status.ok_or_else(|| missing("status"))? {
        TaskStatus::Working => TaskState::Working,
        TaskStatus::InputRequired => {
            let mut requests = InputRequests::new();
            for (key, request) in pairs(questions)? {
                let request: InputRequest = serde_json::from_str(request)
                    .map_err(|e| corrupt(format!("input request {key:?}: {e}")))?;
                requests.insert(key.to_owned(), request);
            }
            TaskState::InputRequired(requests)
        }
        TaskStatus::Completed => {
            TaskState::Completed(result_of_json(result.ok_or_else(|| missing("result"))?)?)
        }
        TaskStatus::Failed => TaskState::Failed(
            serde_json::from_str(error.ok_or_else(|| missing("error"))?)
                .map_err(|e| corrupt(format!("error: {e}")))?,
        ),
        TaskStatus::Cancelled => TaskState::Cancelled,
    };
    Ok(TaskRecord {
        task_id: task_id.to_owned(),
        owner: owner.ok_or_else(|| missing("owner"))?.to_owned(),
        state,
        status_message: message,
        created_at: Timestamp::from_unix_millis(created.ok_or_else(|| missing("created"))?),
        last_updated_at: Timestamp::from_unix_millis(updated.ok_or_else(|| missing("updated"))?),
        ttl: Duration::from_millis(ttl.ok_or_else(|| missing("ttl"))?),
        poll_interval: poll.map(Duration::from_millis),
        cancel_requested: cancel,
    })
}

fn millis(field: &str, value: &str) -> Result<u64, TaskStoreError> {
    value
        .parse()
        .map_err(|_| corrupt(format!("{field} {value:?} is not a count of milliseconds")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_record_reads_back_with_every_field() {
        let fields = strings(&[
            "owner",
            "alice",
            "status",
            "completed",
            "created",
            "1000",
            "updated",
            "1001",
            "ttl",
            "60000",
            "poll",
            "500",
            "runner",
            "r1",
            "message",
            "done",
            "cancel",
            "1",
            "result",
            r#"{"content":[],"isError":true}"#,
        ]);
        let record = record("t", &fields, &[]);
        let Ok(record) = record else {
            panic!("{record:?}")
        };
        assert_eq!(record.owner, "alice");
        assert_eq!(record.last_updated_at, Timestamp::from_unix_millis(1001));
        assert_eq!(record.poll_interval, Some(Duration::from_millis(500)));
        assert_eq!(record.status_message.as_deref(), Some("done"));
        assert!(record.cancel_requested);
        let TaskState::Completed(result) = record.state else {
            panic!("{:?}", record.state)
        };
        assert_eq!(result.get("isError"), Some(&serde_json::Value::Bool(true)));
    }

    #[test]
    fn what_the_store_never_writes_is_corrupt_not_a_panic() {
        let base = ["owner", "a", "created", "1", "updated", "1", "ttl", "1"];
        let cases: [&[&str]; 6] = [
            &["status", "sleeping"],
            &["status", "completed"],
            &["status", "failed", "error", "{"],
            &["status", "working", "ttl", "-5"],
            &["status"],
            &["status", "input_required"],
        ];
        for extra in cases {
            let mut fields = strings(&base);
            fields.extend(strings(extra));
            let questions = strings(&["q", "not json"]);
            let read = record("t", &fields, &questions);
            assert!(
                matches!(read, Err(TaskStoreError::Corrupt(_))),
                "{extra:?}: {read:?}"
            );
        }
    }
}
