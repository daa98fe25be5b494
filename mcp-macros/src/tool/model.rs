//! A tool function as the checks and the generator see it.

use proc_macro2::Span;
use syn::{ItemFn, LitStr, Type};

use crate::common::describe::Describe;
use crate::common::docs::Docs;
use crate::common::params::Param;
use crate::common::paths::Paths;
use crate::common::policy::Policy;
use crate::common::resolve::Plan;

/// `#[mcp::tool]` on an `async fn`.
pub struct ToolFn {
    /// The function as written, minus the attributes the macro consumed from its parameters.
    pub item: ItemFn,
    /// The name clients call it by, and where it came from.
    pub name: (String, Span),
    pub title: Option<String>,
    pub description: Docs,
    /// `icons` and `meta`.
    pub describe: Describe,
    /// `scopes`, `timeout` and `rate_limit`.
    pub policy: Policy,
    pub hints: Hints,
    /// `task = "…"` and `ask_before_task`.
    pub tasks: Tasks,
    pub params: Vec<Param>,
    /// The order its Resolve parameters are asked in.
    pub plan: Plan,
    /// The declared return type (`()` when there is none).
    pub ret: Type,
    /// Where generated code finds the runtime.
    pub paths: Paths,
}

/// The annotations of `tools/list`.
#[derive(Default)]
pub struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// The tasks extension's settings.
#[derive(Default)]
pub struct Tasks {
    /// `task = "…"` as written.
    pub task: Option<LitStr>,
    /// Where `ask_before_task` is written, when it is set (`ask_before_task = false` is not).
    pub ask_before_task: Option<Span>,
}

impl Tasks {
    /// What `task` says: `Forbidden` when it is absent, `None` when its value names nothing
    /// (which the checks report).
    pub fn support(&self) -> Option<TaskSupport> {
        match &self.task {
            None => Some(TaskSupport::Forbidden),
            Some(lit) => TaskSupport::from_value(&lit.value()),
        }
    }
}

/// Whether the tool may run as a task: the runtime's `TaskSupport`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

impl TaskSupport {
    /// The values `task = "…"` accepts, as the errors list them.
    pub const VALUES: &[&str] = &["optional", "required", "forbidden"];

    fn from_value(value: &str) -> Option<Self> {
        match value {
            "optional" => Some(Self::Optional),
            "required" => Some(Self::Required),
            "forbidden" => Some(Self::Forbidden),
            _ => None,
        }
    }

    /// The runtime variant's name.
    pub fn variant(self) -> &'static str {
        match self {
            Self::Forbidden => "Forbidden",
            Self::Optional => "Optional",
            Self::Required => "Required",
        }
    }
}
