//! Checks every annotated function shares: it is a plain, non-generic `async fn` with
//! named, owned parameters.

use syn::spanned::Spanned;
use syn::{FnArg, Signature, Type};

use crate::common::errors::Errors;
use crate::common::params::{Param, ParamKind};
use crate::common::types::input_required_span;

/// `what` is the macro's noun: `tool`, `prompt`, `resource`.
pub fn check_signature(sig: &Signature, params: &[Param], what: &str, errors: &mut Errors) {
    if sig.asyncness.is_none() {
        errors.at(
            sig.fn_token,
            format!("`#[mcp::{what}]` needs an `async fn`: add `async` before `fn`"),
        );
    }
    if let Some(token) = &sig.constness {
        errors.at(token, format!("a {what} cannot be a `const fn`"));
    }
    if let Some(token) = &sig.unsafety {
        errors.at(
            token,
            format!("a {what} cannot be `unsafe`: clients call it with any arguments"),
        );
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, format!("a {what} cannot have an `extern` ABI"));
    }
    let generic = format!("a {what} cannot be generic: its schema is fixed when it is compiled");
    if !sig.generics.params.is_empty() {
        errors.at(&sig.generics, &generic);
    } else if let Some(where_clause) = &sig.generics.where_clause {
        errors.at(where_clause, &generic);
    }
    if let Some(variadic) = &sig.variadic {
        errors.at(variadic, format!("a {what} cannot be variadic"));
    }
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            errors.at(
                receiver,
                format!(
                    "`#[mcp::{what}]` goes on free functions, not methods: take shared state as \
                     a parameter instead of `self`"
                ),
            );
        }
    }
    for param in params {
        if let (ParamKind::Argument { .. }, Type::Reference(reference)) = (&param.kind, &param.ty) {
            errors.at(
                reference,
                "arguments are decoded into owned values: use an owned type here \
                 (`String` for `&str`, `Vec<T>` for `&[T]`)",
            );
        }
    }
}

/// A Resolve parameter means the runtime asks the client; a return type that asks as well would
/// give the client two conversations to run at once.
pub fn check_resolve(params: &[Param], ret: &Type, errors: &mut Errors) {
    let resolve: Vec<_> = params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Resolve { .. }))
        .collect();
    let Some(first) = resolve.first() else {
        return;
    };
    if let Some(span) = input_required_span(ret) {
        errors.push(syn::Error::new(
            span,
            format!(
                "this function asks the client through its Resolve parameter `{}`, so it cannot \
                 also return `InputRequiredResult`: return the final result only",
                first.ident
            ),
        ));
        errors.push(syn::Error::new(
            first.ty.span(),
            "the Resolve parameter is here",
        ));
    }
}
