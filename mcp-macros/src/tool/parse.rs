//! From the attribute and the function's tokens to a [`ToolFn`].

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::{FnArg, Pat, ReturnType, Type};

use crate::common::attrs::{flag, string, unknown_key};
use crate::common::docs::Docs;
use crate::common::errors::Errors;
use crate::common::types::{is_context, resolve_kind};

use super::model::{ArgDefault, Hints, Param, ParamKind, ToolFn};

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
];
const PARAM_KEYS: &[&str] = &["default", "rename"];

/// Reads the attribute arguments and the function. Mistakes go to `errors`; the model is as
/// complete as the input allows, so checks and generation can still run.
pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> ToolFn {
    let mut name = (item.sig.ident.to_string(), item.sig.ident.span());
    let mut title = None;
    let mut description = None;
    let mut hints = Hints::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("name") {
            let lit = string(&meta)?;
            name = (lit.value(), lit.span());
        } else if meta.path.is_ident("title") {
            title = Some(string(&meta)?.value());
        } else if meta.path.is_ident("description") {
            description = Some(string(&meta)?.value());
        } else if meta.path.is_ident("read_only") {
            hints.read_only = Some(flag(&meta)?);
        } else if meta.path.is_ident("destructive") {
            hints.destructive = Some(flag(&meta)?);
        } else if meta.path.is_ident("idempotent") {
            hints.idempotent = Some(flag(&meta)?);
        } else if meta.path.is_ident("open_world") {
            hints.open_world = Some(flag(&meta)?);
        } else {
            return Err(unknown_key(&meta, TOOL_KEYS));
        }
        Ok(())
    });
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let description = match description {
        Some(text) => Docs::Text(text),
        None => Docs::from_attrs(&item.attrs),
    };
    let params = item
        .sig
        .inputs
        .iter_mut()
        .filter_map(|input| param(input, errors))
        .collect();
    let ret = match &item.sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    ToolFn {
        item,
        name,
        title,
        description,
        hints,
        params,
        ret,
    }
}

/// One parameter; strips the attributes it consumes (doc comments are not allowed on
/// parameters once the macro is done, and `#[mcp]` is ours).
fn param(input: &mut FnArg, errors: &mut Errors) -> Option<Param> {
    let FnArg::Typed(typed) = input else {
        // Receivers are reported by the checks.
        return None;
    };
    let ident = match &*typed.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            errors.at(
                other,
                "use a plain identifier here: a tool parameter's name is its argument's name",
            );
            return None;
        }
    };
    let ty: Type = (*typed.ty).clone();
    let docs: Vec<_> = typed
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .cloned()
        .collect();
    let mut default = None;
    let mut rename = None;
    for attr in typed.attrs.iter().filter(|a| a.path().is_ident("mcp")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") {
                default = Some(if meta.input.peek(syn::Token![=]) {
                    ArgDefault::Expr(Box::new(meta.value()?.parse()?))
                } else {
                    ArgDefault::Trait
                });
            } else if meta.path.is_ident("rename") {
                rename = Some(string(&meta)?.value());
            } else {
                return Err(unknown_key(&meta, PARAM_KEYS));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    let consumed_mcp = typed.attrs.iter().any(|a| a.path().is_ident("mcp"));
    typed
        .attrs
        .retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("mcp"));
    let kind = if is_context(&ty) {
        if consumed_mcp {
            errors.at(&ty, "`#[mcp(..)]` does not apply to the request context");
        }
        ParamKind::Context
    } else if let Some(kind) = resolve_kind(&ty) {
        ParamKind::Resolve(kind)
    } else {
        let ident_text = ident.to_string();
        let wire_name = rename.unwrap_or_else(|| {
            ident_text
                .strip_prefix("r#")
                .unwrap_or(&ident_text)
                .to_owned()
        });
        ParamKind::Argument {
            wire_name,
            docs,
            default,
        }
    };
    Some(Param { ident, ty, kind })
}
