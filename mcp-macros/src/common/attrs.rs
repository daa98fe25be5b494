//! `key = value` lists inside macro attributes: every unknown key named, every key at most once.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{LitBool, LitStr};

use crate::common::errors::Errors;
use crate::common::paths::Paths;

/// The error for a key that is not one of `valid`.
pub fn unknown_key(meta: &ParseNestedMeta<'_>, valid: &[&str]) -> syn::Error {
    let key = meta
        .path
        .get_ident()
        .map_or_else(|| "this".to_owned(), |i| format!("`{i}`"));
    if valid.is_empty() {
        return meta.error(format!("unknown attribute {key}; none are accepted here"));
    }
    meta.error(format!(
        "unknown attribute {key}; expected one of: {}",
        valid.join(", ")
    ))
}

/// `key = "text"`.
pub fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse()
}

/// `key` alone (true) or `key = true|false`.
pub fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let lit: LitBool = meta.value()?.parse()?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

/// The value of one attribute key and where the key was written. A key given twice is an error
/// at its second occurrence (the first value stays), never a silent last-one-wins.
pub struct Slot<T> {
    value: Option<(Span, T)>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self { value: None }
    }
}

impl<T> Slot<T> {
    /// Records `value` for the key `meta` names, or reports that the key is already set.
    pub fn set(&mut self, meta: &ParseNestedMeta<'_>, value: T, errors: &mut Errors) {
        let span = meta.path.span();
        if self.value.is_some() {
            let key = meta
                .path
                .get_ident()
                .map_or_else(|| "this key".to_owned(), |i| format!("`{i}`"));
            errors.at_span(span, format!("{key} is set more than once; keep one"));
        } else {
            self.value = Some((span, value));
        }
    }

    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(_, v)| v)
    }

    /// Where the key was written.
    pub fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(span, _)| *span)
    }

    pub fn into_inner(self) -> Option<T> {
        self.value.map(|(_, v)| v)
    }
}

/// Reads `crate = "path"` into `slot`; `Ok(false)` when `meta` is another key.
pub fn crate_path(
    meta: &ParseNestedMeta<'_>,
    slot: &mut Slot<Paths>,
    errors: &mut Errors,
) -> syn::Result<bool> {
    if !meta.path.is_ident("crate") {
        return Ok(false);
    }
    let lit = string(meta)?;
    match Paths::from_crate_attr(&lit) {
        Ok(paths) => slot.set(meta, paths, errors),
        Err(e) => errors.push(e),
    }
    Ok(true)
}
