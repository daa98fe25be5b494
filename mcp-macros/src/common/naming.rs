//! What every registrable function's attribute and signature share: `name`, `title` and
//! `description` keys, the parameters, and the declared return type.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, ItemFn, LitStr, ReturnType, Type};

use crate::common::attrs::string;
use crate::common::docs::Docs;
use crate::common::errors::Errors;
use crate::common::params::{Param, parse_param};

/// `name = "…"`, `title = "…"`, `description = "…"`.
#[derive(Default)]
pub struct Naming {
    pub name: Option<LitStr>,
    pub title: Option<String>,
    description: Option<String>,
}

impl Naming {
    /// Takes `meta` if it is one of these keys; `None` leaves it to the caller.
    pub fn accept(&mut self, meta: &ParseNestedMeta<'_>) -> Option<syn::Result<()>> {
        let slot = if meta.path.is_ident("name") {
            return Some(string(meta).map(|lit| self.name = Some(lit)));
        } else if meta.path.is_ident("title") {
            &mut self.title
        } else if meta.path.is_ident("description") {
            &mut self.description
        } else {
            return None;
        };
        Some(string(meta).map(|lit| *slot = Some(lit.value())))
    }

    /// The name and where it is written: the attribute's, else the function's.
    pub fn name_or(&self, ident: &syn::Ident) -> (String, proc_macro2::Span) {
        self.name.as_ref().map_or_else(
            || (ident.to_string(), ident.span()),
            |lit| (lit.value(), lit.span()),
        )
    }

    /// The description: the attribute's, else the doc comment.
    pub fn description(&self, attrs: &[Attribute]) -> Docs {
        match &self.description {
            Some(text) => Docs::Text(text.clone()),
            None => Docs::from_attrs(attrs),
        }
    }
}

/// The parameters (their consumed attributes stripped from `item`) and the return type (`()`
/// when none is declared).
pub fn signature(item: &mut ItemFn, keys: &[&str], errors: &mut Errors) -> (Vec<Param>, Type) {
    let params = item
        .sig
        .inputs
        .iter_mut()
        .filter_map(|input| parse_param(input, keys, errors))
        .collect();
    let ret = match &item.sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    (params, ret)
}
