//! The rules a resource function follows: a static URI takes nothing and never asks; a
//! template's variables and the function's parameters match one to one.

use crate::common::errors::Errors;
use crate::common::params::ParamKind;
use crate::common::signature::{check_resolve, check_signature};
use crate::common::types::input_required_span;

use super::model::ResourceFn;

pub fn check(resource: &ResourceFn, errors: &mut Errors) {
    check_signature(&resource.item.sig, &resource.params, "resource", errors);
    if !resource.template_valid {
        return;
    }
    if resource.is_static() {
        check_static(resource, errors);
    } else {
        check_template(resource, errors);
        check_resolve(&resource.params, &resource.ret, errors);
    }
}

fn check_static(resource: &ResourceFn, errors: &mut Errors) {
    let uri = resource.uri.value();
    for param in &resource.params {
        let message = match param.kind {
            ParamKind::State => continue,
            ParamKind::Context => format!(
                "a static resource cannot take the request context: `{uri}` names no request \
                 to read it for; use a template (`…/{{name}}`) if it depends on the request"
            ),
            ParamKind::Resolve { .. } => format!(
                "a static resource cannot ask the client: only resource templates may \
                 (`{uri}` has no `{{variables}}`)"
            ),
            ParamKind::Argument { .. } => format!(
                "`{}` is not a variable of `{uri}`: a static resource takes no parameters",
                param.ident
            ),
        };
        errors.at(&param.ty, message);
    }
    if let Some(span) = input_required_span(&resource.ret) {
        errors.push(syn::Error::new(
            span,
            format!(
                "a static resource cannot return `InputRequiredResult`: only resource templates \
                 may ask the client (`{uri}` has no `{{variables}}`)"
            ),
        ));
    }
}

fn check_template(resource: &ResourceFn, errors: &mut Errors) {
    let uri = resource.uri.value();
    for variable in &resource.variables {
        let bound = resource.params.iter().any(
            |p| matches!(&p.kind, ParamKind::Argument { wire_name, .. } if wire_name == variable),
        );
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
    for param in &resource.params {
        if let ParamKind::Argument { wire_name, .. } = &param.kind
            && !resource.variables.contains(wire_name)
        {
            errors.at(
                &param.ident,
                format!(
                    "`{}` is neither a variable of `{uri}` nor the request context",
                    param.ident
                ),
            );
        }
    }
}
