//! The rules a tool function must follow, checked on the model; every violation is reported,
//! each at the tokens to change.

use crate::common::check;
use crate::common::errors::Errors;

use super::model::{TaskSupport, ToolFn};

/// The longest tool name the protocol allows.
const MAX_NAME_LEN: usize = 128;

pub fn check(tool: &ToolFn, errors: &mut Errors) {
    check::signature(&tool.item.sig, "tool", errors);
    check_name(tool, errors);
    tool.describe.check(errors);
    tool.policy.check(errors);
    check::params(&tool.params, errors);
    check::unique_names(&tool.params, errors);
    check::resolve_return(&tool.params, &tool.ret, errors);
    check::cycles(&tool.params, &tool.plan, errors);
    check_tasks(tool, errors);
}

fn check_name(tool: &ToolFn, errors: &mut Errors) {
    let (name, span) = &tool.name;
    let valid_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if name.is_empty() || name.len() > MAX_NAME_LEN || !valid_chars {
        errors.at_span(
            *span,
            format!(
                "`{name}` is not a valid tool name: use 1 to {MAX_NAME_LEN} characters from \
                 A-Z, a-z, 0-9, `_`, `-` and `.`"
            ),
        );
    }
}

/// `task = "…"` names a value the runtime knows; `ask_before_task` goes with a tool that may run
/// as a task and has something to ask.
fn check_tasks(tool: &ToolFn, errors: &mut Errors) {
    let tasks = &tool.tasks;
    let support = tasks.support();
    if let (Some(lit), None) = (&tasks.task, support) {
        let values: Vec<String> = TaskSupport::VALUES
            .iter()
            .map(|value| format!("\"{value}\""))
            .collect();
        errors.at(
            lit,
            format!(
                "unknown `task` value {:?}; expected one of: {}",
                lit.value(),
                values.join(", ")
            ),
        );
    }
    let Some(span) = tasks.ask_before_task else {
        return;
    };
    // An unknown `task` value is reported above; whether it allows tasks is not known.
    if support == Some(TaskSupport::Forbidden) {
        errors.at_span(
            span,
            "`ask_before_task` needs `task = \"optional\"` or `task = \"required\"`: it says \
             when a task asks its questions, and this tool never runs as a task",
        );
        if let Some(lit) = &tasks.task {
            errors.at(lit, "the tool is kept out of tasks here");
        }
    }
    if !tool.params.iter().any(|param| param.is_resolve()) {
        errors.at_span(
            span,
            "`ask_before_task` has nothing to ask before the task: this tool has no Resolve \
             parameters (`Elicit<T>`, `Elicited<T>`, `ElicitUrl`, `Sample`, `ListRoots`); \
             remove it",
        );
    }
}
