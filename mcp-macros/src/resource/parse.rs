//! From the attribute and the function's tokens to a [`ResourceFn`].

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use syn::meta::ParseNestedMeta;
use syn::{Lit, LitInt};

use crate::common::attrs::{Slot, string, unknown_key};
use crate::common::describe::{Describe, string_list};
use crate::common::errors::Errors;
use crate::common::naming::{Naming, signature};
use crate::common::policy::Policy;
use crate::common::resolve::plan;

use super::model::{AnnotationsSpec, CacheSpec, ResourceFn, Template};
use super::template;

const RESOURCE_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "mime_type",
    "icons",
    "meta",
    "annotations",
    "size",
    "cache",
    "scopes",
    "crate",
];
const CACHE_KEYS: &[&str] = &["ttl_ms", "scope"];
const ANNOTATION_KEYS: &[&str] = &["audience", "priority", "last_modified"];
const PARAM_KEYS: &[&str] = &["complete", "ask", "key"];

/// Reads the attribute (the URI first, then keys) and the function. Without a URI the model
/// has an empty one, marked missing, so the checks skip what depends on it.
pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> ResourceFn {
    let mut uri = None;
    let mut naming = Naming::default();
    let mut mime_type = Slot::default();
    let mut describe = Describe::default();
    let mut annotations = Slot::default();
    let mut size = Slot::default();
    let mut cache = Slot::default();
    let mut policy = Policy::default();
    let parser = |input: ParseStream<'_>| -> syn::Result<()> {
        let lit: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the resource's URI first, e.g. `#[mcp::resource(\"db://{table}/schema\")]`",
            )
        })?;
        uri = Some(lit);
        if input.is_empty() {
            return Ok(());
        }
        input.parse::<Token![,]>()?;
        let keys = syn::meta::parser(|meta| {
            if naming.accept(&meta, errors)?
                || describe.accept(&meta, errors)?
                || policy.accept_scopes(&meta, errors)?
            {
                return Ok(());
            }
            if meta.path.is_ident("mime_type") {
                let lit = string(&meta)?;
                mime_type.set(&meta, lit.value(), errors);
            } else if meta.path.is_ident("annotations") {
                let spec = parse_annotations(&meta, errors)?;
                annotations.set(&meta, spec, errors);
            } else if meta.path.is_ident("cache") {
                let spec = parse_cache(&meta, errors)?;
                cache.set(&meta, spec, errors);
            } else if meta.path.is_ident("size") {
                let lit: LitInt = meta.value()?.parse()?;
                let bytes = lit.base10_parse::<u64>().map_err(|_| {
                    syn::Error::new(lit.span(), "expected the size in bytes, e.g. `size = 1024`")
                })?;
                size.set(&meta, (bytes, lit), errors);
            } else {
                return Err(unknown_key(&meta, RESOURCE_KEYS));
            }
            Ok(())
        });
        keys.parse2(input.parse::<TokenStream>()?)
    };
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let (uri, template) = match uri {
        None => (LitStr::new("", Span::call_site()), Template::Missing),
        Some(uri) => {
            let template = match template::variables(&uri.value()) {
                Ok(variables) => Template::Variables(variables),
                Err(reason) => Template::Invalid(reason),
            };
            (uri, template)
        }
    };
    let (params, ret) = signature(&mut item, PARAM_KEYS, errors);
    ResourceFn {
        name: naming
            .name
            .get()
            .map_or_else(|| item.sig.ident.to_string(), LitStr::value),
        description: naming.description(&item.attrs),
        title: naming.title.get().cloned(),
        paths: naming.paths(),
        mime_type: mime_type.into_inner(),
        describe,
        annotations: annotations.into_inner(),
        size: size.into_inner(),
        cache: cache.into_inner(),
        policy,
        uri,
        template,
        plan: plan(&params),
        params,
        ret,
        item,
    }
}

/// `annotations(audience = ["user"], priority = 0.5, last_modified = "…")`.
fn parse_annotations(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<AnnotationsSpec> {
    let mut audience = Slot::default();
    let mut priority = Slot::default();
    let mut last_modified = Slot::default();
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("audience") {
            let list = string_list(&inner)?;
            audience.set(&inner, list, errors);
        } else if inner.path.is_ident("priority") {
            let lit: Lit = inner.value()?.parse()?;
            let value = match &lit {
                Lit::Float(f) => f.base10_parse::<f64>().ok(),
                Lit::Int(i) => i.base10_parse::<f64>().ok(),
                _ => None,
            };
            let value = value.ok_or_else(|| {
                syn::Error::new(
                    lit.span(),
                    "expected a number from 0 to 1, e.g. `priority = 0.8`",
                )
            })?;
            priority.set(&inner, (value, lit.span()), errors);
        } else if inner.path.is_ident("last_modified") {
            let lit = string(&inner)?;
            last_modified.set(&inner, lit, errors);
        } else {
            return Err(unknown_key(&inner, ANNOTATION_KEYS));
        }
        Ok(())
    })?;
    Ok(AnnotationsSpec {
        audience: audience.into_inner(),
        priority: priority.into_inner(),
        last_modified: last_modified.into_inner(),
    })
}

/// `cache(ttl_ms = 60_000, scope = "public")`.
fn parse_cache(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<CacheSpec> {
    let mut ttl_ms = Slot::default();
    let mut scope = Slot::default();
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("ttl_ms") {
            let lit: LitInt = inner.value()?.parse()?;
            let value = lit.base10_parse::<u64>().map_err(|_| {
                syn::Error::new(
                    lit.span(),
                    "expected how long clients may cache a read, in milliseconds, e.g. \
                     `ttl_ms = 60_000`",
                )
            })?;
            ttl_ms.set(&inner, value, errors);
        } else if inner.path.is_ident("scope") {
            let lit = string(&inner)?;
            scope.set(&inner, lit, errors);
        } else {
            return Err(unknown_key(&inner, CACHE_KEYS));
        }
        Ok(())
    })?;
    Ok(CacheSpec {
        span: meta.path.span(),
        ttl_ms: ttl_ms.into_inner(),
        scope: scope.into_inner(),
    })
}
