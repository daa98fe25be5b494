//! Which mounted server answers a request, and the request as that server must see it.

use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Map, Value};

use crate::protocol::{McpError, methods};
use crate::server::Server;

use super::Prefix;

/// A request for a mounted server: the server, the params renamed for it, and how to
/// rename its answer back.
pub(in crate::server) struct Target {
    pub server: Server,
    /// `None`: the params go as they came.
    pub params: Option<Box<RawValue>>,
    /// The prefix whose URIs a `resources/read` answer's contents carry back, if any.
    contents: Option<Prefix>,
}

impl Target {
    /// The child's response line as the parent's client must read it.
    pub fn finish(&self, line: String) -> String {
        let Some(prefix) = &self.contents else {
            return line;
        };
        let Ok(mut response) = serde_json::from_str::<Value>(&line) else {
            return line;
        };
        let contents = response
            .pointer_mut("/result/contents")
            .and_then(Value::as_array_mut);
        for content in contents.into_iter().flatten() {
            if let Some(Value::String(uri)) = content.get_mut("uri") {
                *uri = prefix.uri(uri);
            }
        }
        response.to_string()
    }
}

impl Server {
    /// The mounted server a request belongs to, if any: a tool, prompt, resource or template
    /// it has (and the parent does not), or an extension method only it serves.
    pub(in crate::server) fn mount_target(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Option<Target> {
        if self.mounts().is_empty() {
            return None;
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
        Some(Target {
            server: mount.server.clone(),
            params: Some(to_raw_value(&params).ok()?),
            contents,
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
