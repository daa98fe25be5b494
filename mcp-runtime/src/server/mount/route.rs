//! Which mounted server answers a request, and the request as that server must see it.

use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Map, Value};

use crate::protocol::{McpError, methods};
use crate::server::Server;

use super::Prefix;
use super::tasks::TASK_METHODS;

/// A request for a mounted server: the server, the params renamed for it, and how to
/// rename its answer back.
pub(in crate::server) struct Target {
    pub server: Server,
    /// `None`: the params go as they came.
    pub params: Option<Box<RawValue>>,
    /// The prefix whose URIs a `resources/read` answer's contents carry back, if any.
    contents: Option<Prefix>,
    /// The prefix the task id an answer carries (a `CreateTaskResult`'s, `tasks/get`'s) is
    /// shown under, for a server that serves tasks.
    task_ids: Option<Prefix>,
}

impl Target {
    /// The child's response line as the parent's client must read it.
    pub fn finish(&self, line: String) -> String {
        // Most answers of a server with tasks are not tasks: those are passed on unparsed.
        let task_ids = self
            .task_ids
            .as_ref()
            .filter(|_| line.contains("\"taskId\""));
        if self.contents.is_none() && task_ids.is_none() {
            return line;
        }
        let Ok(mut response) = serde_json::from_str::<Value>(&line) else {
            return line;
        };
        if let Some(prefix) = &self.contents {
            let contents = response
                .pointer_mut("/result/contents")
                .and_then(Value::as_array_mut);
            for content in contents.into_iter().flatten() {
                if let Some(Value::String(uri)) = content.get_mut("uri") {
                    *uri = prefix.uri(uri);
                }
            }
        }
        if let Some(prefix) = task_ids
            && let Some(Value::String(id)) = response.pointer_mut("/result/taskId")
        {
            *id = prefix.task_id(id);
        }
        response.to_string()
    }
}

impl Server {
    /// The mounted server a request belongs to, if any: a tool, prompt, resource or template
    /// it has (and the parent does not), a task it made (by the id's prefix), or an extension
    /// method only it serves.
    pub(in crate::server) fn mount_target(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Option<Target> {
        if self.mounts().is_empty() {
            return None;
        }
        if TASK_METHODS.contains(&method) {
            return self.task_target(params);
        }
        if !methods::CORE.contains(&method) {
            if self.inner.extensions.method(method).is_some() {
                return None;
            }
            let mount = self.mounted_method(method)?;
            return Some(Target {
                server: mount.server.clone(),
                params: params.map(ToOwned::to_owned),
                contents: None,
                task_ids: None,
            });
        }
        let mut params: Map<String, Value> = serde_json::from_str(params?.get()).ok()?;
        let (mount, contents) = match method {
            methods::TOOLS_CALL => {
                let name = params.get_mut("name")?;
                if self.live()?.read().has_tool(name.as_str()?) {
                    return None;
                }
                let (mount, inner) = self.mounted_tool(name.as_str()?)?;
                *name = Value::String(inner.to_owned());
                (mount, None)
            }
            methods::PROMPTS_GET => {
                let name = params.get_mut("name")?;
                if self.live()?.read().has_prompt(name.as_str()?) {
                    return None;
                }
                let (mount, inner) = self.mounted_prompt(name.as_str()?)?;
                *name = Value::String(inner.to_owned());
                (mount, None)
            }
            methods::RESOURCES_READ => {
                if self
                    .live()?
                    .read()
                    .resource_exists(params.get("uri")?.as_str()?)
                {
                    return None;
                }
                let uri = params.get_mut("uri")?;
                let (mount, inner) = self.mounted_resource(uri.as_str()?)?;
                *uri = Value::String(inner.to_owned());
                (mount, Some(mount.prefix.clone()))
            }
            methods::COMPLETE => {
                let reference = params.get_mut("ref")?.as_object_mut()?;
                let kind = reference.get("type")?.as_str()?;
                let (field, mount, inner) = match kind {
                    "ref/prompt" => {
                        let name = reference.get("name")?.as_str()?;
                        let (mount, inner) = self.mounted_prompt(name)?;
                        ("name", mount, inner.to_owned())
                    }
                    "ref/resource" => {
                        let uri = reference.get("uri")?.as_str()?;
                        let (mount, inner) = self.mounted_template(uri)?;
                        ("uri", mount, inner.to_owned())
                    }
                    _ => return None,
                };
                reference.insert(field.to_owned(), Value::String(inner));
                (mount, None)
            }
            _ => return None,
        };
        let contents = contents.filter(|prefix| !prefix.as_str().is_empty());
        // A tool call may be answered with a task, named in its answer.
        let task_ids = (method == methods::TOOLS_CALL && mount.server.serves_tasks())
            .then(|| mount.prefix.clone());
        Some(Target {
            server: mount.server.clone(),
            params: Some(to_raw_value(&params).ok()?),
            contents,
            task_ids,
        })
    }

    /// `tasks/get`, `tasks/update` or `tasks/cancel` of a task a mounted server made: to that
    /// server, with the id it knows. Any other id is this server's own to answer.
    fn task_target(&self, params: Option<&RawValue>) -> Option<Target> {
        let mut params: Map<String, Value> = serde_json::from_str(params?.get()).ok()?;
        let task_id = params.get_mut("taskId")?;
        let (mount, inner) = self.task_owner(task_id.as_str()?)?;
        *task_id = Value::String(inner.to_owned());
        Some(Target {
            server: mount.server.clone(),
            params: Some(to_raw_value(&params).ok()?),
            contents: None,
            task_ids: Some(mount.prefix.clone()),
        })
    }

    /// Routes a request to the mounted server `target` names, as if it had come to it.
    pub(in crate::server) async fn forward(
        mut target: Target,
        id: &crate::protocol::RequestId,
        method: &str,
        exchange: crate::server::Exchange,
    ) -> Result<String, McpError> {
        let params = target.params.take();
        let routed = target.server.dispatch(id, method, params, exchange);
        // A mounted server may mount others: the recursion needs a boxed future.
        let line = Box::pin(routed).await?;
        Ok(target.finish(line))
    }
}
