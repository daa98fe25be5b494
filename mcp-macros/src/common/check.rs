//! The rules every registrable function follows, checked on the model: the signature, the
//! `#[mcp(…)]` keys on each parameter, names that must be unique, Resolve parameters. Each
//! violation is reported at the tokens to change; rules that need the types' traits (is this
//! parameter an argument, the context, shared state?) are left to the generated code.

use std::collections::BTreeMap;

use syn::spanned::Spanned;
use syn::{FnArg, Signature, Type};

use crate::common::errors::Errors;
use crate::common::params::{Param, ParamKind};
use crate::common::resolve::Plan;
use crate::common::types::{ResolveKind, input_required_span};

/// `what` is the macro's noun: `tool`, `prompt`, `resource`.
pub fn signature(sig: &Signature, what: &str, errors: &mut Errors) {
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
}

/// Each parameter's `#[mcp(…)]` keys fit what it is, and its type can be decoded.
pub fn params(params: &[Param], errors: &mut Errors) {
    for param in params {
        match param.kind {
            ParamKind::Resolve(kind) => resolve_param(param, kind, errors),
            ParamKind::Extract => extract_param(param, errors),
        }
    }
}

fn resolve_param(param: &Param, kind: ResolveKind, errors: &mut Errors) {
    let attrs = &param.attrs;
    if let Some(span) = attrs.default.span() {
        errors.at_span(
            span,
            "a Resolve parameter is asked of the client; it has no default",
        );
    }
    if let Some(rename) = attrs.rename.get() {
        errors.at(
            rename,
            "a Resolve parameter is not an argument: name its input key with `key = \"…\"`",
        );
    }
    if let Some(header) = attrs.header.get() {
        errors.at(
            header,
            "`header` belongs on an argument, not a Resolve parameter",
        );
    }
    if let Some(title) = attrs.title.get() {
        errors.at(
            title,
            "`title` belongs on an argument, not a Resolve parameter",
        );
    }
    if let Some(complete) = attrs.complete.get() {
        errors.at(
            complete,
            "`complete` belongs on an argument, not a Resolve parameter",
        );
    }
    match kind {
        ResolveKind::Sample if attrs.ask.get().is_none() => errors.at(
            &param.ty,
            "a `Sample` parameter needs the request to send: \
             `#[mcp(ask = CreateMessageParams::prompt(…, max_tokens))]`",
        ),
        ResolveKind::ElicitUrl if attrs.ask.get().is_none() => errors.at(
            &param.ty,
            "an `ElicitUrl` parameter needs the message and URL to send: \
             `#[mcp(ask = ElicitUrl::ask(\"…\", \"https://…\"))]`",
        ),
        ResolveKind::ListRoots => {
            if let Some(ask) = attrs.ask.get() {
                errors.at(ask, "`ListRoots` asks nothing to configure; remove `ask`");
            }
        }
        _ => {}
    }
}

fn extract_param(param: &Param, errors: &mut Errors) {
    let attrs = &param.attrs;
    if let Some(ask) = attrs.ask.get() {
        errors.at(
            ask,
            "`ask` belongs on a Resolve parameter (`Elicit<T>`, `Elicited<T>`, `ElicitUrl`, `Sample`)",
        );
    }
    if let Some(key) = attrs.key.get() {
        errors.at(
            key,
            "`key` belongs on a Resolve parameter; rename an argument with `rename`",
        );
    }
    if let Some(header) = attrs.header.get() {
        let name = header.value();
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            errors.at(
                header,
                "a header name is a non-empty HTTP token (letters, digits, `-`, `_`, …)",
            );
        }
    }
    if let Type::Reference(reference) = &param.ty {
        errors.at(
            reference,
            "arguments are decoded into owned values: use an owned type here \
             (`String` for `&str`, `Vec<T>` for `&[T]`)",
        );
    }
}

/// No two parameters share a name on the wire, no two Resolve parameters an input key, and no
/// two arguments a mirrored header. Each clash is reported at the second name.
pub fn unique_names(params: &[Param], errors: &mut Errors) {
    let mut wire: BTreeMap<String, &Param> = BTreeMap::new();
    let mut keys: BTreeMap<String, &Param> = BTreeMap::new();
    let mut headers: BTreeMap<String, (&syn::LitStr, &Param)> = BTreeMap::new();
    for param in params {
        match param.kind {
            ParamKind::Extract => {
                let name = param.wire_name();
                if let Some(first) = wire.get(&name) {
                    errors.at_span(
                        param.wire_name_span(),
                        format!(
                            "`{}` and `{}` are both named `{name}` on the wire; give one another \
                             name with `#[mcp(rename = \"…\")]`",
                            first.ident, param.ident
                        ),
                    );
                } else {
                    wire.insert(name, param);
                }
                if let Some(header) = param.attrs.header.get() {
                    // HTTP header names are case-insensitive: these would be one header.
                    let folded = header.value().to_ascii_lowercase();
                    if let Some((first, first_param)) = headers.get(&folded) {
                        errors.at(
                            header,
                            format!(
                                "`{}` and `{}` would both be sent as the header \
                                 `Mcp-Param-{}` (header names are case-insensitive); give each \
                                 argument its own",
                                first_param.ident,
                                param.ident,
                                first.value()
                            ),
                        );
                    } else {
                        headers.insert(folded, (header, param));
                    }
                }
            }
            ParamKind::Resolve(_) => {
                let key = param.resolve_key();
                if let Some(first) = keys.get(&key) {
                    errors.at_span(
                        param.resolve_key_span(),
                        format!(
                            "`{}` and `{}` are both asked under the input key `{key}`; give one \
                             another with `#[mcp(key = \"…\")]`",
                            first.ident, param.ident
                        ),
                    );
                } else {
                    keys.insert(key, param);
                }
            }
        }
    }
}

/// A Resolve parameter means the runtime asks the client; a return type that asks as well would
/// give the client two conversations to run at once. This catches what the syntax shows, at
/// both places; the generated code routes the return type through a trait that also sees
/// through type aliases.
pub fn resolve_return(params: &[Param], ret: &Type, errors: &mut Errors) {
    let Some(first) = params.iter().find(|p| p.is_resolve()) else {
        return;
    };
    if let Some(span) = input_required_span(ret) {
        errors.at_span(
            span,
            format!(
                "this function asks the client through its Resolve parameter `{}`, so it cannot \
                 also return `InputRequiredResult`: return the final result only",
                first.ident
            ),
        );
        errors.at_span(first.ty.span(), "the Resolve parameter is here");
    }
}

/// Resolve parameters whose questions depend on each other in a circle.
pub fn cycles(params: &[Param], plan: &Plan, errors: &mut Errors) {
    for (i, on) in &plan.stuck {
        let names: Vec<String> = on
            .iter()
            .map(|&d| format!("`{}`", params[d].ident))
            .collect();
        let param = &params[*i];
        let message = format!(
            "`{}` cannot be asked: its question depends, directly or through others, \
             on itself (it uses {})",
            param.ident,
            names.join(", ")
        );
        match param.attrs.ask.get() {
            Some(ask) => errors.at(ask, message),
            None => errors.at(&param.ident, message),
        }
    }
}
