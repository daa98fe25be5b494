//! The reader's side of listening: which open listen each change notification belongs to.
//!
//! A 2026-07-28 listen's notifications carry its request id in
//! `_meta["io.modelcontextprotocol/subscriptionId"]` and go to that listen alone, never to
//! [`Client::notifications`](super::Client::notifications), even once it is gone. A 2025-11-25
//! session's carry nothing and go to every session listen that watches what changed, or, when
//! none does, on to the application's notifications.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{
    McpError, RawNotification, RequestId, SubscriptionFilter, TaskNotification, keys,
    notification_methods,
};
use crate::push::Change;

use super::backlog::{Backlog, End};
use super::connection::{LISTEN_ID_PREFIX, cancel_line, lock, send_detached};
use super::listen::ListenLost;

/// How a 2026-07-28 listen opened.
#[derive(Debug)]
pub(super) enum Opening {
    /// With what the server will send.
    Acknowledged(SubscriptionFilter),
    /// Not at all.
    Refused(McpError),
}

/// The open listens of a connection.
#[derive(Default)]
pub(super) struct ListenRoutes(Mutex<Routes>);

#[derive(Default)]
struct Routes {
    by_id: HashMap<RequestId, Route>,
    /// The connection ended: no listen opens any more.
    closed: bool,
}

struct Route {
    backlog: Arc<Backlog>,
    kind: Kind,
}

enum Kind {
    /// A `subscriptions/listen` request.
    Stream {
        /// Where the acknowledgement goes, until it came.
        opening: Option<oneshot::Sender<Opening>>,
        /// What the server acknowledged.
        granted: SubscriptionFilter,
    },
    /// What a 2025-11-25 session listen watches.
    Session(SubscriptionFilter),
}

impl ListenRoutes {
    /// Routes the notifications of the listen request `id` to a new backlog; `None` once the
    /// connection ended.
    pub fn open_stream(&self, id: RequestId) -> Option<(Arc<Backlog>, oneshot::Receiver<Opening>)> {
        let (opened, opening) = oneshot::channel();
        let backlog = self.insert(
            id,
            Kind::Stream {
                opening: Some(opened),
                granted: SubscriptionFilter::default(),
            },
        )?;
        Some((backlog, opening))
    }

    /// Routes the session's notifications that `watching` covers to a new backlog, under
    /// `id`; `None` once the connection ended.
    pub fn open_session(
        &self,
        id: RequestId,
        watching: SubscriptionFilter,
    ) -> Option<Arc<Backlog>> {
        self.insert(id, Kind::Session(watching))
    }

    fn insert(&self, id: RequestId, kind: Kind) -> Option<Arc<Backlog>> {
        let mut routes = lock(&self.0);
        if routes.closed {
            return None;
        }
        let backlog = Arc::new(Backlog::default());
        let route = Route {
            backlog: backlog.clone(),
            kind,
        };
        routes.by_id.insert(id, route);
        Some(backlog)
    }

    /// Forgets the listen `id`; whether it was still open.
    pub fn remove(&self, id: &RequestId) -> bool {
        let route = lock(&self.0).by_id.remove(id);
        route.is_some_and(|r| !r.backlog.ended())
    }

    /// Takes `note` if it belongs to listening, or gives it back. A listen that overflows is
    /// ended, and the server told to stop it over `outgoing`.
    pub fn deliver(
        &self,
        note: RawNotification,
        outgoing: &mpsc::Sender<String>,
    ) -> Option<RawNotification> {
        let method = note.method.as_str();
        let listening = matches!(
            method,
            notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED
                | notification_methods::CANCELLED
                | notification_methods::TOOLS_LIST_CHANGED
                | notification_methods::PROMPTS_LIST_CHANGED
                | notification_methods::RESOURCES_LIST_CHANGED
                | notification_methods::RESOURCES_UPDATED
                | notification_methods::TASKS
        );
        if !listening {
            return Some(note);
        }
        let params = parse(note.params.as_deref());
        if method == notification_methods::CANCELLED {
            return self.cancelled(&params).then_some(note);
        }
        let tag = params
            .get("_meta")
            .and_then(|meta| meta.get(keys::SUBSCRIPTION_ID))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        if method == notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED {
            if let Some(id) = tag {
                self.acknowledge(&id, &params);
            }
            return None;
        }
        let Some(change) = change_of(method, params) else {
            tracing::debug!(%method, "a change notification without its uri or task");
            return Some(note);
        };
        match tag {
            Some(id) => {
                self.deliver_tagged(&id, change, outgoing);
                None
            }
            None => (!self.deliver_to_session(&change)).then_some(note),
        }
    }

    fn acknowledge(&self, id: &RequestId, params: &Value) {
        let granted: SubscriptionFilter = params
            .get("notifications")
            .and_then(|f| serde_json::from_value(f.clone()).ok())
            .unwrap_or_default();
        let mut routes = lock(&self.0);
        let Some(Route {
            kind:
                Kind::Stream {
                    opening: opening @ Some(_),
                    granted: kept,
                },
            ..
        }) = routes.by_id.get_mut(id)
        else {
            return;
        };
        *kept = granted.clone();
        if let Some(opened) = opening.take() {
            let _ = opened.send(Opening::Acknowledged(granted));
        }
    }

    fn deliver_tagged(&self, id: &RequestId, change: Change, outgoing: &mpsc::Sender<String>) {
        let routes = lock(&self.0);
        let Some(Route {
            backlog,
            kind:
                Kind::Stream {
                    opening: None,
                    granted,
                },
        }) = routes.by_id.get(id)
        else {
            // A listen that ended (or was never acknowledged): its news has no reader.
            return;
        };
        // The server must not send what was not granted; a server that does is not believed.
        if !granted_covers(granted, &change) {
            tracing::debug!(%id, ?change, "a listen heard of something it was not granted");
            return;
        }
        if !backlog.push(change) {
            tracing::warn!(%id, "a listen fell behind: nobody read it; ending it");
            send_detached(
                outgoing,
                cancel_line(id.clone(), "Nobody read the subscription"),
            );
        }
    }

    /// Hands a session's change to every session listen that watches it; whether one did.
    fn deliver_to_session(&self, change: &Change) -> bool {
        let routes = lock(&self.0);
        let mut taken = false;
        for route in routes.by_id.values() {
            if let Kind::Session(watching) = &route.kind
                && watches(watching, change)
            {
                taken = true;
                if !route.backlog.push(change.clone()) {
                    tracing::warn!("a listen fell behind: nobody read it; ending it");
                }
            }
        }
        taken
    }

    /// A server's `notifications/cancelled` ends a listen on stdio (after its result, or
    /// instead of one); whether it was about something else.
    fn cancelled(&self, params: &Value) -> bool {
        let Some(id) = params
            .get("requestId")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
        else {
            return true;
        };
        if !is_listen_id(&id) {
            return true;
        }
        if let Some(route) = lock(&self.0).by_id.get(&id) {
            route.backlog.end(End::Closed);
        }
        false
    }

    /// Ends the listen `id` with the response to its request; whether `id` is a listen's.
    pub fn finish(&self, id: &RequestId, outcome: Result<Box<RawValue>, McpError>) -> bool {
        if !is_listen_id(id) {
            return false;
        }
        let mut routes = lock(&self.0);
        let Some(route) = routes.by_id.get_mut(id) else {
            return true;
        };
        let opening = match &mut route.kind {
            Kind::Stream { opening, .. } => opening.take(),
            Kind::Session(_) => None,
        };
        let end = match (outcome, opening) {
            // Closed before it was acknowledged: it opens already over.
            (Ok(_), Some(opened)) => {
                let _ = opened.send(Opening::Acknowledged(SubscriptionFilter::default()));
                End::Closed
            }
            (Ok(_), None) => End::Closed,
            (Err(error), Some(opened)) => {
                let _ = opened.send(Opening::Refused(error.clone()));
                End::Lost(ListenLost::Failed(error))
            }
            (Err(error), None) => End::Lost(ListenLost::Failed(error)),
        };
        route.backlog.end(end);
        true
    }

    /// The connection ended: every listen is lost, and no other opens.
    pub fn close(&self) {
        let mut routes = lock(&self.0);
        routes.closed = true;
        for route in routes.by_id.values_mut() {
            if let Kind::Stream { opening, .. } = &mut route.kind {
                // Dropped, the sender tells the waiting `listen` the connection closed.
                opening.take();
            }
            route.backlog.end(End::Lost(ListenLost::Disconnected));
        }
    }
}

fn is_listen_id(id: &RequestId) -> bool {
    matches!(id, RequestId::String(s) if s.starts_with(LISTEN_ID_PREFIX))
}

fn parse(params: Option<&RawValue>) -> Value {
    params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or(Value::Null)
}

/// The change a notification tells of; `None` for a `resources/updated` without its URI, or
/// a `notifications/tasks` without a task.
fn change_of(method: &str, params: Value) -> Option<Change> {
    Some(match method {
        notification_methods::TOOLS_LIST_CHANGED => Change::ToolsListChanged,
        notification_methods::PROMPTS_LIST_CHANGED => Change::PromptsListChanged,
        notification_methods::RESOURCES_LIST_CHANGED => Change::ResourcesListChanged,
        notification_methods::TASKS => match params {
            Value::Object(params) => Change::Task(TaskNotification::from_params(params).ok()?),
            _ => return None,
        },
        _ => Change::ResourceUpdated {
            uri: params.get("uri")?.as_str()?.to_owned(),
        },
    })
}

/// Whether a listen the server granted `granted` may carry `change`. An update of any URI
/// counts once some URI was granted: the spec lets it name a sub-resource of one.
fn granted_covers(granted: &SubscriptionFilter, change: &Change) -> bool {
    match change {
        Change::ResourceUpdated { .. } => granted
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| !uris.is_empty()),
        Change::TaskStatus { task_id } => granted_task(granted, task_id),
        Change::Task(task) => granted_task(granted, task.task_id()),
        _ => lists_cover(granted, change),
    }
}

fn granted_task(granted: &SubscriptionFilter, task_id: &str) -> bool {
    granted.task_ids.iter().flatten().any(|id| id == task_id)
}

/// Whether a session listen watching `watching` takes `change`: the lists it watches, and
/// updates of a URI it watches or of one below it (a sub-resource, as the spec allows).
fn watches(watching: &SubscriptionFilter, change: &Change) -> bool {
    match change {
        Change::ResourceUpdated { uri } => watching
            .resource_subscriptions
            .iter()
            .flatten()
            .any(|watched| within(uri, watched)),
        // A 2025-11-25 session has no tasks.
        Change::TaskStatus { .. } | Change::Task(_) => false,
        _ => lists_cover(watching, change),
    }
}

/// Whether `uri` is `watched` or a path, query or fragment below it (`file:///a/b` is within
/// `file:///a`, `file:///ab` is not).
fn within(uri: &str, watched: &str) -> bool {
    let Some(rest) = uri.strip_prefix(watched) else {
        return false;
    };
    rest.is_empty() || watched.ends_with('/') || rest.starts_with(['/', '?', '#'])
}

fn lists_cover(filter: &SubscriptionFilter, change: &Change) -> bool {
    let asked = match change {
        Change::ToolsListChanged => filter.tools_list_changed,
        Change::PromptsListChanged => filter.prompts_list_changed,
        Change::ResourcesListChanged => filter.resources_list_changed,
        Change::ResourceUpdated { .. } | Change::TaskStatus { .. } | Change::Task(_) => None,
    };
    asked == Some(true)
}
