//! From the attribute and the function's tokens to a [`ToolFn`].

use proc_macro2::TokenStream;
use syn::ReturnType;
use syn::parse::Parser;

use crate::common::attrs::{flag, string, unknown_key};
use crate::common::docs::Docs;
use crate::common::errors::Errors;
use crate::common::params::parse_param;

use super::model::{Hints, ToolFn};

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
];
const PARAM_KEYS: &[&str] = &["default", "rename", "ask", "key"];

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
        .filter_map(|input| parse_param(input, PARAM_KEYS, errors))
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
