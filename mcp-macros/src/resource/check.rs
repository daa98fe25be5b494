//! The rules a resource function follows: a static URI never asks; a template's variables each
//! have the parameter of the same name. What a parameter that is no variable may be (shared
//! state; also the request context on a template) is its type's trait's business, in the
//! generated code.

use crate::common::check;
use crate::common::errors::Errors;
use crate::common::params::ParamKind;
use crate::common::types::input_required_span;

use super::model::{ResourceFn, Template};

pub fn check(resource: &ResourceFn, errors: &mut Errors) {
    check::signature(&resource.item.sig, "resource", errors);
    check::params(&resource.params, errors);
    check::unique_names(&resource.params, errors);
    check::cycles(&resource.params, &resource.plan, errors);
    match &resource.template {
        Template::Missing => return,
        Template::Invalid(reason) => {
            errors.at(&resource.uri, format!("invalid URI template: {reason}"));
            return;
        }
        Template::Variables(_) => {}
    }
    if resource.is_static() {
        check_static(resource, errors);
    } else {
        check_template(resource, errors);
        check::resolve_return(&resource.params, &resource.ret, errors);
    }
}

fn check_static(resource: &ResourceFn, errors: &mut Errors) {
    let uri = resource.uri.value();
    for param in resource.params.iter().filter(|p| p.is_resolve()) {
        errors.at(
            &param.ty,
            format!(
                "a static resource cannot ask the client: only resource templates may \
                 (`{uri}` has no `{{variables}}`)"
            ),
        );
    }
    if let Some(span) = input_required_span(&resource.ret) {
        errors.at_span(
            span,
            format!(
                "a static resource cannot return `InputRequiredResult`: only resource templates \
                 may ask the client (`{uri}` has no `{{variables}}`)"
            ),
        );
    }
}

fn check_template(resource: &ResourceFn, errors: &mut Errors) {
    for variable in resource.variables() {
        let bound = resource
            .params
            .iter()
            .any(|p| p.kind == ParamKind::Extract && &p.wire_name() == variable);
        if !bound {
            errors.at(
                &resource.uri,
                format!(
                    "the template variable `{variable}` has no parameter: add `{variable}: \
                     String` to the function"
                ),
            );
        }
    }
}
