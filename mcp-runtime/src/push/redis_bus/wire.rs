//! What a change looks like on the Redis channel: the change's own JSON with the publishing
//! bus's `origin` beside `kind`, e.g. `{"kind":"resource_updated","uri":"board://messages",
//! "origin":"3f9c0a51d2e47b86"}`, or for a task's new status only its id,
//! `{"kind":"task_status","task_id":"…","origin":"…"}` (each instance reads the task itself).

use serde::{Deserialize, Serialize};

use crate::push::Change;

#[derive(Serialize)]
struct Outgoing<'a> {
    #[serde(flatten)]
    change: &'a Change,
    origin: &'a str,
}

/// A change read from the channel.
#[derive(Debug, PartialEq, Eq, Deserialize)]
pub(super) struct Incoming {
    #[serde(flatten)]
    pub change: Change,
    /// Absent when something other than a `RedisBus` published the change (an operator's
    /// `redis-cli PUBLISH`): every instance delivers it.
    #[serde(default)]
    pub origin: Option<String>,
}

pub(super) fn encode(change: &Change, origin: &str) -> serde_json::Result<String> {
    serde_json::to_string(&Outgoing { change, origin })
}

pub(super) fn decode(payload: &[u8]) -> serde_json::Result<Incoming> {
    serde_json::from_slice(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_travels_with_its_origin_beside_its_kind() {
        let change = Change::ResourceUpdated {
            uri: "x://1".into(),
        };
        let json = encode(&change, "ab12").ok();
        assert_eq!(
            json.as_deref(),
            Some(r#"{"kind":"resource_updated","uri":"x://1","origin":"ab12"}"#)
        );
        let back = json.as_deref().map(|j| decode(j.as_bytes()).ok());
        assert_eq!(
            back,
            Some(Some(Incoming {
                change,
                origin: Some("ab12".into())
            }))
        );
    }

    #[test]
    fn a_task_status_travels_as_its_id_alone() {
        let change = Change::TaskStatus {
            task_id: "Zt9x".into(),
        };
        let json = encode(&change, "ab12").ok();
        assert_eq!(
            json.as_deref(),
            Some(r#"{"kind":"task_status","task_id":"Zt9x","origin":"ab12"}"#)
        );
        let back = json.and_then(|j| decode(j.as_bytes()).ok());
        assert_eq!(
            back,
            Some(Incoming {
                change,
                origin: Some("ab12".into())
            })
        );
    }

    #[test]
    fn every_kind_round_trips() {
        let task = serde_json::json!({
            "taskId": "t", "status": "completed", "createdAt": "2026-12-04T10:00:00.000Z",
            "lastUpdatedAt": "2026-12-04T10:00:01.000Z", "ttlMs": 1000,
            "result": {"content": [], "origin": "not the bus's"},
        });
        let task = task.as_object().cloned().unwrap_or_default();
        let task = crate::protocol::TaskNotification::from_params(task).ok();
        assert!(task.is_some(), "a task");
        for change in [
            Change::ToolsListChanged,
            Change::PromptsListChanged,
            Change::ResourcesListChanged,
            Change::ResourceUpdated { uri: "a".into() },
            Change::TaskStatus {
                task_id: "t".into(),
            },
        ]
        .into_iter()
        .chain(task.map(Change::Task))
        {
            let decoded = encode(&change, "o")
                .ok()
                .and_then(|j| decode(j.as_bytes()).ok());
            assert_eq!(decoded.map(|d| d.change), Some(change));
        }
    }

    #[test]
    fn a_bare_change_has_no_origin() {
        assert_eq!(
            decode(br#"{"kind":"tools_list_changed"}"#).ok(),
            Some(Incoming {
                change: Change::ToolsListChanged,
                origin: None
            })
        );
    }

    #[test]
    fn what_is_not_a_change_is_an_error() {
        for garbage in [
            &b"not json"[..],
            br#"{"kind":"nope"}"#,
            br#"{"kind":"resource_updated"}"#,
            br#"{"kind":"task_status"}"#,
            br#"{"kind":"task","taskId":"t"}"#,
            br#"{"origin":"x"}"#,
            b"\xff\xfe",
            b"",
        ] {
            assert!(
                decode(garbage).is_err(),
                "{:?}",
                String::from_utf8_lossy(garbage)
            );
        }
    }
}
