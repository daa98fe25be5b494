//! 2026-07-28 `subscriptions/listen`: a request that stays open, acknowledges what it will
//! deliver, then carries each change it asked for until the client ends it (closing the
//! stream, or `notifications/cancelled` on stdio) or the server does (the listen fell behind,
//! or the server is shutting down), which it does with a final result. The tasks it asks for
//! are `listen_tasks`'s.

use std::collections::HashSet;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::protocol::{
    Generation, ListenParams, ListenResult, McpError, RequestId, SubscriptionFilter, decode_params,
    keys, notification_methods,
};
use crate::push::Change;

use super::Server;
use super::answer::Exchange;
use super::connection::MAX_SUBSCRIPTIONS;
use super::context::Context;
use super::fanout::{Interest, Lists};
use super::listen_tasks::{self, ListenedTasks};
use super::subscriptions::MAX_SUBSCRIBED_URI;

impl Server {
    pub(super) async fn listen(
        &self,
        id: &RequestId,
        params: Option<&RawValue>,
        exchange: &Exchange,
        ctx: Context,
    ) -> Result<String, McpError> {
        let mut p: ListenParams = decode_params(params)?;
        let reader = self.task_reader();
        let tasks = listen_tasks::asked(reader.as_ref(), &ctx, p.notifications.task_ids.take())?;
        let (mut granted, interest) = self.grant(p.notifications, &tasks)?;
        let _open = exchange.connection.open_listen()?;
        // Listening before acknowledging, and before the tasks are read: a change made once
        // the client holds the acknowledgement, or once a task was read, reaches it.
        let mut listener = self.listen_to_changes(interest);
        let (mut tasks, current) = ListenedTasks::grant(reader, ctx, tasks).await?;
        granted.task_ids = tasks.granted();
        let ack = json!({
            "jsonrpc": "2.0",
            "method": notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED,
            "params": {"notifications": granted, "_meta": {keys::SUBSCRIPTION_ID: id}},
        });
        exchange.sink.send(ack.to_string()).await;
        for task in current {
            if let Some(line) = tasks.line(task, id) {
                exchange.sink.send(line).await;
            }
        }
        let closing = exchange.closing.as_deref().cloned().unwrap_or_default();
        loop {
            tokio::select! {
                biased;
                () = closing.cancelled() => break,
                change = listener.next() => match change {
                    Some(change) => {
                        let line = match &change {
                            Change::TaskStatus { task_id } => tasks.changed(task_id, id).await,
                            Change::Task(task) => tasks.changed(task.task_id(), id).await,
                            change => change_line(change, Some(id)),
                        };
                        if let Some(line) = line {
                            exchange.sink.send(line).await;
                        }
                    }
                    // Fell behind: the client re-listens and re-reads what it cares about.
                    None => break,
                },
            }
        }
        let result = ListenResult::closing(id);
        Ok(self.result_line(id, Generation::V2026_07_28, result))
    }

    /// What of `asked` this server can ever deliver (the acknowledged subset, but for the
    /// tasks, granted once read), and the listener's interest in it, with the `tasks` asked.
    /// URIs of resources the server does not have are left out; too many URIs, or one too
    /// long, is an error.
    fn grant(
        &self,
        asked: SubscriptionFilter,
        tasks: &[String],
    ) -> Result<(SubscriptionFilter, Interest), McpError> {
        let announced = self.announced_lists();
        let lists = Lists {
            tools: asked.tools_list_changed == Some(true) && announced.tools,
            prompts: asked.prompts_list_changed == Some(true) && announced.prompts,
            resources: asked.resources_list_changed == Some(true) && announced.resources,
        };
        let asked_uris = asked.resource_subscriptions.unwrap_or_default();
        if asked_uris.len() > MAX_SUBSCRIPTIONS {
            return Err(McpError::invalid_params(format!(
                "A listen may name at most {MAX_SUBSCRIPTIONS} resources"
            )));
        }
        if asked_uris.iter().any(|u| u.len() > MAX_SUBSCRIBED_URI) {
            return Err(McpError::invalid_params(format!(
                "A resource URI is longer than the {MAX_SUBSCRIBED_URI} bytes a listen may name"
            )));
        }
        let mut uris = HashSet::new();
        let mut granted_uris = Vec::new();
        for uri in asked_uris {
            if self.subscribable() && self.resource_exists(&uri) && uris.insert(uri.clone()) {
                granted_uris.push(uri);
            }
        }
        let granted = SubscriptionFilter {
            tools_list_changed: lists.tools.then_some(true),
            prompts_list_changed: lists.prompts.then_some(true),
            resources_list_changed: lists.resources.then_some(true),
            resource_subscriptions: (!granted_uris.is_empty()).then_some(granted_uris),
            task_ids: None,
        };
        let tasks = tasks.iter().cloned().collect();
        Ok((granted, Interest::Listen { lists, uris, tasks }))
    }
}

/// The notification telling a client of `change`, on the listen `subscription` if any. `None`
/// for a task's change: only a listen granted the task tells of it, with the task it reads
/// (2025-11-25 sessions have no tasks).
pub(crate) fn change_line(change: &Change, subscription: Option<&RequestId>) -> Option<String> {
    let method = match change {
        Change::ToolsListChanged => notification_methods::TOOLS_LIST_CHANGED,
        Change::PromptsListChanged => notification_methods::PROMPTS_LIST_CHANGED,
        Change::ResourcesListChanged => notification_methods::RESOURCES_LIST_CHANGED,
        Change::ResourceUpdated { .. } => notification_methods::RESOURCES_UPDATED,
        Change::TaskStatus { .. } | Change::Task(_) => return None,
    };
    let mut params = serde_json::Map::new();
    if let Change::ResourceUpdated { uri } = change {
        params.insert("uri".to_owned(), Value::String(uri.clone()));
    }
    if let Some(id) = subscription {
        params.insert("_meta".to_owned(), json!({keys::SUBSCRIPTION_ID: id}));
    }
    let mut line = json!({"jsonrpc": "2.0", "method": method});
    if !params.is_empty() {
        line["params"] = Value::Object(params);
    }
    Some(line.to_string())
}
