//! The rules a prompt function must follow, checked on the model.

use crate::common::check;
use crate::common::errors::Errors;

use super::model::PromptFn;

pub fn check(prompt: &PromptFn, errors: &mut Errors) {
    check::signature(&prompt.item.sig, "prompt", errors);
    if prompt.name.0.is_empty() {
        errors.at_span(prompt.name.1, "a prompt name cannot be empty");
    }
    prompt.describe.check(errors);
    prompt.policy.check(errors);
    check::params(&prompt.params, errors);
    check::unique_names(&prompt.params, errors);
    check::resolve_return(&prompt.params, &prompt.ret, errors);
    check::cycles(&prompt.params, &prompt.plan, errors);
}
