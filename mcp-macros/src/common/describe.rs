//! `icons = [...]` and `meta = …`, the keys every registrable function takes besides its
//! name: parsed into a model, checked (icons are literals, so their mistakes are compile errors
//! at the offending string), and generated as the runtime's `IconInfo` list and `_meta` call.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitStr, Token};

use crate::common::attrs::{Slot, string, unknown_key};
use crate::common::errors::Errors;
use crate::common::paths::Paths;

const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];

/// One icon: `"https://…"` or `icon(src = "…", mime_type = "…", sizes = [...], theme = "…")`.
pub struct IconSpec {
    pub src: LitStr,
    pub mime_type: Option<LitStr>,
    pub sizes: Vec<LitStr>,
    pub theme: Option<LitStr>,
}

/// `icons = [...]` and `meta = …`, as written.
#[derive(Default)]
pub struct Describe {
    pub icons: Slot<Vec<IconSpec>>,
    pub meta: Slot<Box<Expr>>,
}

impl Describe {
    /// Takes `meta` if it is `icons` or `meta` (`Ok(true)`); `Ok(false)` leaves it to the
    /// caller.
    pub fn accept(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<bool> {
        if meta.path.is_ident("icons") {
            let icons = icons(meta, errors)?;
            self.icons.set(meta, icons, errors);
        } else if meta.path.is_ident("meta") {
            let expr: Expr = meta.value()?.parse()?;
            self.meta.set(meta, Box::new(expr), errors);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// Reports every icon value clients could not use, at its string.
    pub fn check(&self, errors: &mut Errors) {
        for icon in self.icons.get().into_iter().flatten() {
            check_icon(icon, errors);
        }
    }

    /// `&[IconInfo { … }, …]`, a constant.
    pub fn icons_tokens(&self, paths: &Paths) -> TokenStream {
        let p = paths.private();
        let icons = self.icons.get().into_iter().flatten().map(|icon| {
            let src = &icon.src;
            let mime_type = option(icon.mime_type.as_ref());
            let sizes = &icon.sizes;
            let theme = option(icon.theme.as_ref());
            quote! {
                #p::IconInfo {
                    src: #src,
                    mime_type: #mime_type,
                    sizes: &[#(#sizes),*],
                    theme: #theme,
                }
            }
        });
        quote!(&[#(#icons),*])
    }

    /// `entry` with its `_meta` set, when `meta = …` is given; the expression goes through
    /// `IntoMeta`, spanned at it, so a value of the wrong type is reported there.
    pub fn with_meta(&self, entry: TokenStream, paths: &Paths) -> TokenStream {
        match self.meta.get() {
            None => entry,
            Some(expr) => {
                let p = paths.private_at(expr.span());
                let meta = quote_spanned!(expr.span()=> #p::IntoMeta::into_meta(#expr));
                quote!(#entry.with_meta(#meta))
            }
        }
    }
}

fn option(lit: Option<&LitStr>) -> TokenStream {
    match lit {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    }
}

/// `key = ["a", "b"]`.
pub fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    bracketed_strings(value, "a list of strings, e.g. `[\"48x48\", \"any\"]`")
}

pub fn bracketed_strings(input: ParseStream<'_>, expected: &str) -> syn::Result<Vec<LitStr>> {
    if !input.peek(syn::token::Bracket) {
        return Err(input.error(format!("expected {expected}")));
    }
    let content;
    syn::bracketed!(content in input);
    let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
    Ok(list.into_iter().collect())
}

const ICONS_EXPECTED: &str = "expected a list of icons: `icons = [\"https://example.com/icon.png\"]`, \
     each a URL or `icon(src = \"…\", mime_type = \"…\", sizes = [\"48x48\"], theme = \"dark\")`";

fn icons(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Vec<IconSpec>> {
    let value = meta.value()?;
    if !value.peek(syn::token::Bracket) {
        return Err(value.error(ICONS_EXPECTED));
    }
    let content;
    syn::bracketed!(content in value);
    let mut icons = Vec::new();
    while !content.is_empty() {
        if content.peek(LitStr) {
            icons.push(IconSpec {
                src: content.parse()?,
                mime_type: None,
                sizes: Vec::new(),
                theme: None,
            });
        } else if content.peek(Ident) && content.peek2(syn::token::Paren) {
            let ident: Ident = content.parse()?;
            if ident != "icon" {
                return Err(syn::Error::new(ident.span(), ICONS_EXPECTED));
            }
            let inner;
            syn::parenthesized!(inner in content);
            let tokens: TokenStream = inner.parse()?;
            if let Some(icon) = icon(ident.span(), tokens, errors)? {
                icons.push(icon);
            }
        } else {
            return Err(content.error(ICONS_EXPECTED));
        }
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(icons)
}

/// The keys inside `icon(…)`; `None` (reported) without a `src`.
fn icon(span: Span, tokens: TokenStream, errors: &mut Errors) -> syn::Result<Option<IconSpec>> {
    let mut src = Slot::default();
    let mut mime_type = Slot::default();
    let mut sizes = Slot::default();
    let mut theme = Slot::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("src") {
            let lit = string(&meta)?;
            src.set(&meta, lit, errors);
        } else if meta.path.is_ident("mime_type") {
            let lit = string(&meta)?;
            mime_type.set(&meta, lit, errors);
        } else if meta.path.is_ident("sizes") {
            let list = string_list(&meta)?;
            sizes.set(&meta, list, errors);
        } else if meta.path.is_ident("theme") {
            let lit = string(&meta)?;
            theme.set(&meta, lit, errors);
        } else {
            return Err(unknown_key(&meta, ICON_KEYS));
        }
        Ok(())
    });
    parser.parse2(tokens)?;
    let Some(src) = src.into_inner() else {
        errors.at_span(
            span,
            "`icon(…)` needs the image's URL: `src = \"https://…\"`",
        );
        return Ok(None);
    };
    Ok(Some(IconSpec {
        src,
        mime_type: mime_type.into_inner(),
        sizes: sizes.into_inner().unwrap_or_default(),
        theme: theme.into_inner(),
    }))
}

fn check_icon(icon: &IconSpec, errors: &mut Errors) {
    let src = icon.src.value();
    let web = ["https://", "http://"]
        .iter()
        .any(|scheme| src.len() > scheme.len() && src[..scheme.len()].eq_ignore_ascii_case(scheme));
    let data = src.starts_with("data:") && src.contains(',');
    if !(web || data) {
        errors.at(
            &icon.src,
            "an icon's `src` is an `https:` (or `http:`) URL or a `data:` URI",
        );
    }
    if let Some(mime_type) = &icon.mime_type {
        let value = mime_type.value();
        let valid = value
            .strip_prefix("image/")
            .is_some_and(|sub| !sub.is_empty() && !sub.contains(char::is_whitespace));
        if !valid {
            errors.at(
                mime_type,
                "an icon's `mime_type` is an image type, e.g. `image/png` or `image/svg+xml`",
            );
        }
    }
    for size in &icon.sizes {
        let value = size.value();
        let dimensions = value.split_once('x').is_some_and(|(w, h)| {
            [w, h]
                .iter()
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        if value != "any" && !dimensions {
            errors.at(
                size,
                "an icon size is `WIDTHxHEIGHT` in pixels (`48x48`) or `any`",
            );
        }
    }
    if let Some(theme) = &icon.theme
        && !matches!(theme.value().as_str(), "light" | "dark")
    {
        errors.at(theme, "an icon's `theme` is `\"light\"` or `\"dark\"`");
    }
}
