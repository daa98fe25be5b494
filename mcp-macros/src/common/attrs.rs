//! `key = value` lists inside macro attributes, with every unknown key named.

use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitStr};

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
