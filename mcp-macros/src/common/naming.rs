//! What every registrable function's attribute and signature share: the `name`, `title`,
//! `description` and `crate` keys, the parameters, and the declared return type.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, FnArg, ItemFn, LitStr, Pat, ReturnType, Type};

use crate::common::attrs::{Slot, crate_path, string};
use crate::common::docs::Docs;
use crate::common::errors::Errors;
use crate::common::params::{Param, parse_param};
use crate::common::paths::Paths;

/// `name = "…"`, `title = "…"`, `description = "…"`, `crate = "…"`.
#[derive(Default)]
pub struct Naming {
    pub name: Slot<LitStr>,
    pub title: Slot<String>,
    description: Slot<String>,
    paths: Slot<Paths>,
}

impl Naming {
    /// Takes `meta` if it is one of these keys (`Ok(true)`); `Ok(false)` leaves it to the caller.
    pub fn accept(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<bool> {
        if meta.path.is_ident("name") {
            let lit = string(meta)?;
            self.name.set(meta, lit, errors);
        } else if meta.path.is_ident("title") {
            let lit = string(meta)?;
            self.title.set(meta, lit.value(), errors);
        } else if meta.path.is_ident("description") {
            let lit = string(meta)?;
            self.description.set(meta, lit.value(), errors);
        } else {
            return crate_path(meta, &mut self.paths, errors);
        }
        Ok(true)
    }

    /// The name and where it is written: the attribute's, else the function's.
    pub fn name_or(&self, ident: &syn::Ident) -> (String, proc_macro2::Span) {
        self.name.get().map_or_else(
            || (ident.to_string(), ident.span()),
            |lit| (lit.value(), lit.span()),
        )
    }

    /// The description: the attribute's, else the doc comment.
    pub fn description(&self, attrs: &[Attribute]) -> Docs {
        match self.description.get() {
            Some(text) => Docs::Text(text.clone()),
            None => Docs::from_attrs(attrs),
        }
    }

    /// Where generated code finds the runtime.
    pub fn paths(&self) -> Paths {
        self.paths.get().cloned().unwrap_or_default()
    }
}

/// Parameters that an `ask = …` expression reads are used even where the function body does
/// not read them, so rustc's "unused variable" would be false (and its fix, a leading
/// underscore, needless): they get `#[allow(unused_variables)]`.
fn allow_asked_only(item: &mut ItemFn, params: &[Param]) {
    let asks: Vec<TokenStream> = params
        .iter()
        .filter_map(|p| p.attrs.ask.get())
        .map(|ask| ask.to_token_stream())
        .collect();
    if asks.is_empty() {
        return;
    }
    for input in item.sig.inputs.iter_mut() {
        let FnArg::Typed(typed) = input else { continue };
        let Pat::Ident(pat) = &*typed.pat else {
            continue;
        };
        if asks.iter().any(|ask| mentions(ask.clone(), &pat.ident)) {
            typed
                .attrs
                .push(syn::parse_quote!(#[allow(unused_variables)]));
        }
    }
}

/// Whether `tokens` name `ident`, as a token or as an implicit capture in a format string
/// (`"{name}"`, `"{name:?}"`).
fn mentions(tokens: TokenStream, ident: &syn::Ident) -> bool {
    let name = ident.to_string();
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(i) => i == *ident,
        TokenTree::Group(g) => mentions(g.stream(), ident),
        TokenTree::Literal(lit) => {
            let text = lit.to_string();
            text.match_indices('{').any(|(at, _)| {
                let rest = &text[at + 1..];
                rest.strip_prefix(name.as_str())
                    .is_some_and(|after| after.starts_with('}') || after.starts_with(':'))
            })
        }
        TokenTree::Punct(_) => false,
    })
}

/// The parameters (their consumed attributes stripped from `item`) and the return type (`()`
/// when none is declared).
pub fn signature(item: &mut ItemFn, keys: &[&str], errors: &mut Errors) -> (Vec<Param>, Type) {
    let params: Vec<Param> = item
        .sig
        .inputs
        .iter_mut()
        .filter_map(|input| parse_param(input, keys, errors))
        .collect();
    allow_asked_only(item, &params);
    let ret = match &item.sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    (params, ret)
}
