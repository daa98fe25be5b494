//! The rules a tool function must follow, checked on the model; every violation is reported,
//! each at the tokens to change.

use crate::common::check;
use crate::common::errors::Errors;

use super::model::ToolFn;

/// The longest tool name the protocol allows.
const MAX_NAME_LEN: usize = 128;

pub fn check(tool: &ToolFn, errors: &mut Errors) {
    check::signature(&tool.item.sig, "tool", errors);
    check_name(tool, errors);
    tool.describe.check(errors);
    check::params(&tool.params, errors);
    check::unique_names(&tool.params, errors);
    check::resolve_return(&tool.params, &tool.ret, errors);
    check::cycles(&tool.params, &tool.plan, errors);
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
