//! A server's extensions once checked: what discovery advertises, which extension serves each
//! method, which owns each extra `resultType`. Built once by `build`, read on every request
//! that no core handler serves.

use std::collections::HashMap;
use std::sync::Arc;

use crate::name_map::NameMap;
use crate::protocol::{JsonObject, ResultType, methods};

use super::{Extension, MethodHandler, id};
use crate::server::{BuildError, TaskReader};

/// The methods whose handlers answer with an [`ExtendedOutcome`](super::ExtendedOutcome), and
/// so may answer with an extension's result.
const ANSWERING: &[&str] = methods::MULTI_ROUND;

/// A server's extensions, checked.
#[derive(Default)]
pub(crate) struct Extensions {
    /// `capabilities.extensions`: each id with its settings.
    advertised: JsonObject,
    methods: NameMap<Served>,
    /// Each extra `resultType` value with its extension and the methods it may answer.
    result_types: NameMap<(Arc<str>, Vec<String>)>,
    /// Method → the params field its requests are routed by. Apart from `methods` so that it
    /// stays empty on a server no extension of which routes, where a lookup returns before
    /// hashing the method name: core requests pay nothing for it.
    routing: NameMap<String>,
    /// How listens read the tasks they ask for: the tasks extension's.
    task_reader: Option<TaskReader>,
}

/// An extension method as dispatch finds it.
pub(crate) struct Served {
    pub extension: Arc<str>,
    pub requires_declaration: bool,
    pub handler: MethodHandler,
}

impl Extensions {
    /// Checks `registered` (ids, settings, names, and that nothing is claimed twice) and
    /// indexes it.
    pub fn new(registered: Vec<Extension>) -> Result<Self, BuildError> {
        let mut extensions = Self::default();
        let mut positions: HashMap<String, usize> = HashMap::new();
        for (position, extension) in registered.into_iter().enumerate() {
            let Extension {
                id,
                settings,
                methods,
                result_types,
                routes,
                task_reader,
            } = extension;
            let invalid = |reason: String| BuildError::InvalidExtension {
                id: id.clone(),
                reason,
            };
            id::check(&id).map_err(invalid)?;
            if let Some(first) = positions.insert(id.clone(), position + 1) {
                return Err(BuildError::Duplicate {
                    kind: "extension",
                    name: id,
                    first,
                    second: position + 1,
                });
            }
            let serde_json::Value::Object(settings) = settings else {
                return Err(invalid(format!(
                    "its settings must be a JSON object, not `{settings}`"
                )));
            };
            let owner: Arc<str> = id.as_str().into();
            for method in methods {
                extensions.add_method(&owner, method)?;
            }
            for claim in result_types {
                extensions.add_result_type(&owner, claim.value, claim.methods)?;
            }
            for route in routes {
                extensions.add_route(&owner, route)?;
            }
            // Only the tasks runtime registers one, with the one tasks extension.
            if extensions.task_reader.is_none() {
                extensions.task_reader = task_reader;
            }
            extensions.advertised.insert(id, settings.into());
        }
        Ok(extensions)
    }

    fn add_method(&mut self, owner: &Arc<str>, method: super::Method) -> Result<(), BuildError> {
        let name = method.name;
        if name.is_empty() || name.starts_with("notifications/") {
            return Err(BuildError::InvalidExtension {
                id: owner.to_string(),
                reason: format!("`{name}` cannot be a request method's name"),
            });
        }
        let holder = if methods::CORE.contains(&name.as_str()) {
            Some("the core protocol".to_owned())
        } else {
            self.methods
                .get(&name)
                .map(|served| format!("extension `{}`", served.extension))
        };
        if let Some(holder) = holder {
            return Err(conflict(owner, "method", name, holder));
        }
        let served = Served {
            extension: owner.clone(),
            requires_declaration: method.requires_declaration,
            handler: method.handler,
        };
        self.methods.insert(name, served);
        Ok(())
    }

    /// Takes a routing field for a method `owner` serves (its methods are added already).
    fn add_route(&mut self, owner: &Arc<str>, route: super::Route) -> Result<(), BuildError> {
        let super::Route { method, field } = route;
        let invalid = |reason: String| BuildError::InvalidExtension {
            id: owner.to_string(),
            reason,
        };
        // `_meta` is never a string, and `requestState` is the server's own sealed token:
        // neither names what a request is about.
        if matches!(field.as_str(), "" | "_meta" | "requestState") {
            return Err(invalid(format!(
                "`{field}` cannot be the routing field of `{method}`"
            )));
        }
        let serves = self
            .methods
            .get(&method)
            .is_some_and(|served| served.extension == *owner);
        if !serves {
            return Err(invalid(format!(
                "it names routing field `{field}` for `{method}`, which it does not serve"
            )));
        }
        if let Some(first) = self.routing.get(&method) {
            return Err(invalid(format!(
                "it names two routing fields for `{method}`: `{first}` and `{field}`"
            )));
        }
        self.routing.insert(method, field);
        Ok(())
    }

    fn add_result_type(
        &mut self,
        owner: &Arc<str>,
        value: String,
        on: Vec<String>,
    ) -> Result<(), BuildError> {
        if value.is_empty() {
            return Err(BuildError::InvalidExtension {
                id: owner.to_string(),
                reason: "an empty resultType".to_owned(),
            });
        }
        if let Some(method) = on.iter().find(|m| !ANSWERING.contains(&m.as_str())) {
            return Err(BuildError::InvalidExtension {
                id: owner.to_string(),
                reason: format!(
                    "resultType `{value}` is declared for `{method}`, but only {} answer with \
                     an extension's result",
                    ANSWERING.join(", ")
                ),
            });
        }
        let holder = match value.as_str() {
            "complete" | "input_required" => Some("the core protocol".to_owned()),
            _ => self
                .result_types
                .get(&value)
                .map(|(holder, _)| format!("extension `{holder}`")),
        };
        if let Some(holder) = holder {
            return Err(conflict(owner, "resultType", value, holder));
        }
        self.result_types.insert(value, (owner.clone(), on));
        Ok(())
    }

    /// What discovery advertises under `capabilities.extensions` (`None`: no extensions).
    pub fn advertised(&self) -> Option<JsonObject> {
        (!self.advertised.is_empty()).then(|| self.advertised.clone())
    }

    /// Whether the server has extension `id`.
    pub fn has(&self, id: &str) -> bool {
        self.advertised.contains_key(id)
    }

    /// How a listen reads the tasks it asks for; `None` on a server without tasks.
    pub fn task_reader(&self) -> Option<&TaskReader> {
        self.task_reader.as_ref()
    }

    /// The extension method `name`, if one serves it.
    pub fn method(&self, name: &str) -> Option<&Served> {
        self.methods.get(name)
    }

    /// The methods it serves.
    pub fn method_names(&self) -> impl Iterator<Item = &str> {
        self.methods.keys().map(String::as_str)
    }

    /// The params field requests for `method` are routed by, if an extension names one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub fn routing_param(&self, method: &str) -> Option<&str> {
        self.routing.get(method).map(String::as_str)
    }

    /// The extension that may answer `method` with `result_type`, if one may.
    pub fn owner_of(&self, result_type: &ResultType, method: &str) -> Option<&str> {
        let ResultType::Other(value) = result_type else {
            return None;
        };
        let (owner, on) = self.result_types.get(value)?;
        on.iter().any(|m| m == method).then_some(&**owner)
    }
}

fn conflict(owner: &Arc<str>, what: &'static str, name: String, holder: String) -> BuildError {
    BuildError::ExtensionConflict {
        extension: owner.to_string(),
        what,
        name,
        holder,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::McpError;

    fn echo(id: &str, method: &str) -> Extension {
        Extension::new(id).method(method, |_ctx, _params: serde_json::Value| async {
            Ok::<_, McpError>(json!({}))
        })
    }

    fn refusal(extensions: Vec<Extension>) -> String {
        match Extensions::new(extensions) {
            Ok(_) => panic!("built"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn methods_are_indexed_and_ids_advertised_with_their_settings() {
        let built = Extensions::new(vec![
            echo("com.example/echo", "echo/say").settings(json!({"loud": true})),
            Extension::new("com.example/ui"),
        ])
        .expect("builds");
        let served = built.method("echo/say").expect("served");
        assert_eq!(&*served.extension, "com.example/echo");
        assert!(served.requires_declaration);
        assert!(built.method("echo/shout").is_none());
        let advertised = built.advertised().expect("two extensions");
        assert_eq!(
            serde_json::Value::Object(advertised),
            json!({"com.example/echo": {"loud": true}, "com.example/ui": {}})
        );
        assert!(built.has("com.example/ui") && !built.has("com.example/other"));
        assert!(
            Extensions::new(Vec::new())
                .expect("none")
                .advertised()
                .is_none()
        );
    }

    #[test]
    fn an_id_twice_a_bad_id_or_settings_that_are_no_object_are_refused() {
        let twice = refusal(vec![
            Extension::new("com.example/echo"),
            Extension::new("com.example/ui"),
            Extension::new("com.example/echo"),
        ]);
        assert_eq!(
            twice,
            "two extensions are named `com.example/echo` (registrations #1 and #3); extension \
             names must be unique"
        );
        let bad = refusal(vec![Extension::new("echo")]);
        assert!(
            bad.starts_with("extension `echo` cannot be registered"),
            "{bad}"
        );
        let settings = refusal(vec![
            Extension::new("com.example/echo").settings(json!([1])),
        ]);
        assert!(
            settings.contains("must be a JSON object, not `[1]`"),
            "{settings}"
        );
    }

    #[test]
    fn a_method_of_the_core_or_of_another_extension_is_refused_naming_both() {
        let core = refusal(vec![echo("com.example/echo", "tools/call")]);
        assert_eq!(
            core,
            "extension `com.example/echo` cannot take the method `tools/call`: the core \
             protocol has it"
        );
        let other = refusal(vec![
            echo("com.example/a", "shared/method"),
            echo("com.example/b", "shared/method"),
        ]);
        assert_eq!(
            other,
            "extension `com.example/b` cannot take the method `shared/method`: extension \
             `com.example/a` has it"
        );
        let notification = refusal(vec![echo("com.example/a", "notifications/a")]);
        assert!(
            notification.contains("cannot be a request method's name"),
            "{notification}"
        );
    }

    #[test]
    fn a_routing_field_is_indexed_for_a_method_of_its_own_extension_only() {
        let built = Extensions::new(vec![
            echo("com.example/jobs", "jobs/get").routing_param("jobs/get", "jobId"),
            echo("com.example/other", "other/get"),
        ])
        .expect("builds");
        assert_eq!(built.routing_param("jobs/get"), Some("jobId"));
        assert_eq!(built.routing_param("other/get"), None);
        assert_eq!(built.routing_param(methods::TOOLS_CALL), None);

        let unserved = refusal(vec![
            echo("com.example/jobs", "jobs/get").routing_param("jobs/cancel", "jobId"),
        ]);
        assert_eq!(
            unserved,
            "extension `com.example/jobs` cannot be registered: it names routing field `jobId` \
             for `jobs/cancel`, which it does not serve"
        );
        // Another extension's method is not this one's to route.
        let foreign = refusal(vec![
            echo("com.example/other", "other/get"),
            Extension::new("com.example/jobs").routing_param("other/get", "id"),
        ]);
        assert!(
            foreign.starts_with("extension `com.example/jobs` cannot be registered")
                && foreign.ends_with("which it does not serve"),
            "{foreign}"
        );
        let twice = refusal(vec![
            echo("com.example/jobs", "jobs/get")
                .routing_param("jobs/get", "jobId")
                .routing_param("jobs/get", "id"),
        ]);
        assert!(
            twice.ends_with("it names two routing fields for `jobs/get`: `jobId` and `id`"),
            "{twice}"
        );
        for field in ["", "_meta", "requestState"] {
            let refused = refusal(vec![
                echo("com.example/jobs", "jobs/get").routing_param("jobs/get", field),
            ]);
            assert!(
                refused.ends_with(&format!(
                    "`{field}` cannot be the routing field of `jobs/get`"
                )),
                "{refused}"
            );
        }
    }

    #[test]
    fn result_types_belong_to_one_extension_and_to_the_answering_methods() {
        let built = Extensions::new(vec![
            Extension::new("com.example/jobs").result_type("job", [methods::TOOLS_CALL]),
        ])
        .expect("builds");
        let job = ResultType::Other("job".into());
        assert_eq!(
            built.owner_of(&job, methods::TOOLS_CALL),
            Some("com.example/jobs")
        );
        assert_eq!(built.owner_of(&job, methods::PROMPTS_GET), None);
        assert_eq!(
            built.owner_of(&ResultType::Complete, methods::TOOLS_CALL),
            None
        );
        let core = refusal(vec![
            Extension::new("com.example/jobs").result_type("complete", [methods::TOOLS_CALL]),
        ]);
        assert!(
            core.ends_with("the resultType `complete`: the core protocol has it"),
            "{core}"
        );
        let twice = refusal(vec![
            Extension::new("com.example/a").result_type("job", [methods::TOOLS_CALL]),
            Extension::new("com.example/b").result_type("job", [methods::PROMPTS_GET]),
        ]);
        assert!(
            twice.ends_with("extension `com.example/a` has it"),
            "{twice}"
        );
        let elsewhere = refusal(vec![
            Extension::new("com.example/a").result_type("job", [methods::TOOLS_LIST]),
        ]);
        assert!(
            elsewhere.contains("declared for `tools/list`"),
            "{elsewhere}"
        );
    }
}
