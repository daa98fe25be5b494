//! From the attribute and the function's tokens to a [`ToolFn`].

use proc_macro2::TokenStream;
use syn::parse::Parser;

use crate::common::attrs::{flag, unknown_key};
use crate::common::errors::Errors;
use crate::common::naming::{Naming, signature};

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
const PARAM_KEYS: &[&str] = &["default", "rename", "header", "ask", "key"];

/// Reads the attribute arguments and the function. Mistakes go to `errors`; the model is as
/// complete as the input allows, so checks and generation can still run.
pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> ToolFn {
    let mut naming = Naming::default();
    let mut hints = Hints::default();
    let parser = syn::meta::parser(|meta| {
        if let Some(taken) = naming.accept(&meta) {
            return taken;
        }
        let slot = if meta.path.is_ident("read_only") {
            &mut hints.read_only
        } else if meta.path.is_ident("destructive") {
            &mut hints.destructive
        } else if meta.path.is_ident("idempotent") {
            &mut hints.idempotent
        } else if meta.path.is_ident("open_world") {
            &mut hints.open_world
        } else {
            return Err(unknown_key(&meta, TOOL_KEYS));
        };
        *slot = Some(flag(&meta)?);
        Ok(())
    });
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let name = naming.name_or(&item.sig.ident);
    let description = naming.description(&item.attrs);
    let title = naming.title;
    let (params, ret) = signature(&mut item, PARAM_KEYS, errors);
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
