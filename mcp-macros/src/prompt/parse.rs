//! From the attribute and the function's tokens to a [`PromptFn`].

use proc_macro2::TokenStream;
use syn::ReturnType;
use syn::parse::Parser;

use crate::common::attrs::{string, unknown_key};
use crate::common::docs::Docs;
use crate::common::errors::Errors;
use crate::common::params::parse_param;

use super::model::PromptFn;

const PROMPT_KEYS: &[&str] = &["name", "title", "description"];
const PARAM_KEYS: &[&str] = &["rename", "ask", "key"];

pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> PromptFn {
    let mut name = (item.sig.ident.to_string(), item.sig.ident.span());
    let mut title = None;
    let mut description = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("name") {
            let lit = string(&meta)?;
            name = (lit.value(), lit.span());
        } else if meta.path.is_ident("title") {
            title = Some(string(&meta)?.value());
        } else if meta.path.is_ident("description") {
            description = Some(string(&meta)?.value());
        } else {
            return Err(unknown_key(&meta, PROMPT_KEYS));
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
    PromptFn {
        item,
        name,
        title,
        description,
        params,
        ret,
    }
}
