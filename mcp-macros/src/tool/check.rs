//! The rules a tool function must follow, checked on the model; every violation is reported,
//! each at the tokens to change.

use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::common::errors::Errors;
use crate::common::types::input_required_span;

use super::model::{ParamKind, ToolFn};

/// The longest tool name the protocol allows.
const MAX_NAME_LEN: usize = 128;

pub fn check(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if sig.asyncness.is_none() {
        errors.at(
            sig.fn_token,
            "`#[mcp::tool]` needs an `async fn`: add `async` before `fn`",
        );
    }
    if let Some(token) = &sig.constness {
        errors.at(token, "a tool cannot be a `const fn`");
    }
    if let Some(token) = &sig.unsafety {
        errors.at(
            token,
            "a tool cannot be `unsafe`: clients call it with any arguments",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, "a tool cannot have an `extern` ABI");
    }
    let generic = "a tool cannot be generic: its input schema is fixed when it is compiled";
    if !sig.generics.params.is_empty() {
        errors.at(&sig.generics, generic);
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.at(where_clause, generic);
    }
    if let Some(variadic) = &sig.variadic {
        errors.at(variadic, "a tool cannot be variadic");
    }
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            errors.at(
                receiver,
                "`#[mcp::tool]` goes on free functions, not methods: take shared state as a \
                 parameter instead of `self`",
            );
        }
    }
    for param in &tool.params {
        if let (ParamKind::Argument { .. }, Type::Reference(reference)) = (&param.kind, &param.ty) {
            errors.at(
                reference,
                "tool arguments are decoded into owned values: use an owned type here \
                 (`String` for `&str`, `Vec<T>` for `&[T]`)",
            );
        }
    }
    check_name(tool, errors);
    check_resolve(tool, errors);
}

fn check_name(tool: &ToolFn, errors: &mut Errors) {
    let (name, span) = &tool.name;
    let valid_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if name.is_empty() || name.len() > MAX_NAME_LEN || !valid_chars {
        errors.push(syn::Error::new(
            *span,
            format!(
                "`{name}` is not a valid tool name: use 1 to {MAX_NAME_LEN} characters from \
                 A-Z, a-z, 0-9, `_`, `-` and `.`"
            ),
        ));
    }
}

/// A Resolve parameter means the runtime asks the client; a return type that asks as well would
/// give the client two conversations to run at once.
fn check_resolve(tool: &ToolFn, errors: &mut Errors) {
    let resolve: Vec<_> = tool
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Resolve(_)))
        .collect();
    let Some(first) = resolve.first() else {
        return;
    };
    if let Some(span) = input_required_span(&tool.ret) {
        errors.push(syn::Error::new(
            span,
            format!(
                "this tool asks the client through its Resolve parameter `{}`, so it cannot \
                 also return `InputRequiredResult`: return the final result only",
                first.ident
            ),
        ));
        errors.push(syn::Error::new(
            first.ty.span(),
            "the Resolve parameter is here",
        ));
        return;
    }
    for param in resolve {
        if let ParamKind::Resolve(kind) = param.kind {
            errors.push(syn::Error::new(
                param.ty.span(),
                format!(
                    "Resolve parameters (here `{kind:?}`) are not available in this version of \
                     mcp yet; ask by hand with `Result<_, InputRequiredResult>`"
                ),
            ));
        }
    }
}
