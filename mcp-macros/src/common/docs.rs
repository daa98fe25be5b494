//! Doc comments as descriptions.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// A description taken from doc comments.
pub enum Docs {
    /// No doc comment.
    None,
    /// Plain doc comments, joined and trimmed.
    Text(String),
    /// Doc attributes that are expressions (`#[doc = include_str!(…)]`), joined at compile
    /// time by `concat!`.
    Exprs(Vec<Expr>),
}

impl Docs {
    /// Reads the `#[doc]` attributes among `attrs`.
    pub fn from_attrs(attrs: &[Attribute]) -> Self {
        let mut lines = Vec::new();
        let mut exprs = Vec::new();
        let mut literal_only = true;
        for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
            let Meta::NameValue(nv) = &attr.meta else {
                continue;
            };
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                lines.push(s.value());
            } else {
                literal_only = false;
            }
            exprs.push(nv.value.clone());
        }
        if exprs.is_empty() {
            Docs::None
        } else if literal_only {
            Docs::Text(join(&lines))
        } else {
            Docs::Exprs(exprs)
        }
    }

    /// `Some("…")` / `Some(concat!(…))` / `None`, as an `Option<&'static str>` expression.
    pub fn to_option_tokens(&self) -> TokenStream {
        match self {
            Docs::None => quote!(::core::option::Option::None),
            Docs::Text(text) if text.is_empty() => quote!(::core::option::Option::None),
            Docs::Text(text) => quote!(::core::option::Option::Some(#text)),
            Docs::Exprs(exprs) => {
                quote!(::core::option::Option::Some(
                    ::core::concat!(#(#exprs, "\n"),*)
                ))
            }
        }
    }
}

/// Joins doc lines the way rustdoc shows them: the one space after `///` dropped, the whole
/// trimmed.
fn join(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}
