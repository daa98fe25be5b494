//! From the derive input to an [`Elicitation`] model: what is written, with syntax mistakes (an
//! unknown key, a key given twice, a value of the wrong kind, a shape that is no form or choice)
//! reported at their tokens.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, Data, DeriveInput, Fields, Lit, LitStr};

use crate::common::attrs::{Slot, crate_path, string, unknown_key};
use crate::common::docs::Docs;
use crate::common::errors::Errors;
use crate::common::paths::Paths;

use super::model::{Body, Choice, Elicitation, Field, Form, Variant};
use super::rename;

const FORM_KEYS: &[&str] = &["message", "crate"];
const CHOICE_KEYS: &[&str] = &["crate"];
const FIELD_KEYS: &[&str] = &["title", "default", "format"];
const VARIANT_KEYS: &[&str] = &["title"];

pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Elicitation {
    let mut paths = Slot::<Paths>::default();
    let mut message = Slot::<String>::default();
    let container_keys = match &input.data {
        Data::Struct(_) => FORM_KEYS,
        _ => CHOICE_KEYS,
    };
    each_key(&input.attrs, errors, |meta, errors| {
        if crate_path(meta, &mut paths, errors)? {
            Ok(())
        } else if meta.path.is_ident("message") && container_keys.contains(&"message") {
            let lit = string(meta)?;
            message.set(meta, lit.value(), errors);
            Ok(())
        } else {
            Err(unknown_key(meta, container_keys))
        }
    });
    let body = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Body::Form(form(input, message, named, errors)),
            other => {
                errors.at(
                    other,
                    "an elicitation form needs named fields: each field is one question of the form",
                );
                Body::Other
            }
        },
        Data::Enum(data) => {
            let rule = serde_rename_all(&input.attrs, errors);
            let variants = data
                .variants
                .iter()
                .map(|v| {
                    let mut title = Slot::<String>::default();
                    each_key(&v.attrs, errors, |meta, errors| {
                        if meta.path.is_ident("title") {
                            let lit = string(meta)?;
                            title.set(meta, lit.value(), errors);
                            Ok(())
                        } else {
                            Err(unknown_key(meta, VARIANT_KEYS))
                        }
                    });
                    let title = title
                        .into_inner()
                        .or_else(|| match Docs::from_attrs(&v.attrs) {
                            Docs::Text(text) if !text.is_empty() => Some(text),
                            _ => None,
                        });
                    let name = v.ident.to_string();
                    let (value, value_span) = match serde_rename(&v.attrs, errors) {
                        Some(lit) => (lit.value(), lit.span()),
                        None => (
                            rule.as_deref()
                                .and_then(|r| rename::variant(&name, r))
                                .unwrap_or(name),
                            v.ident.span(),
                        ),
                    };
                    Variant {
                        ident: v.ident.clone(),
                        value,
                        value_span,
                        title,
                        fields: v.fields.clone(),
                    }
                })
                .collect();
            Body::Choice(Choice { variants })
        }
        Data::Union(data) => {
            errors.at(data.union_token, "a union cannot be an elicitation form");
            Body::Other
        }
    };
    Elicitation {
        ident: input.ident.clone(),
        generics: input.generics.clone(),
        paths: paths.into_inner().unwrap_or_default(),
        body,
    }
}

/// Runs `key` on every key of every `#[elicitation(…)]` among `attrs`.
fn each_key(
    attrs: &[Attribute],
    errors: &mut Errors,
    mut key: impl FnMut(&ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("elicitation")) {
        let result = attr.parse_nested_meta(|meta| key(&meta, errors));
        if let Err(e) = result {
            errors.push(e);
        }
    }
}

fn form(
    input: &DeriveInput,
    message: Slot<String>,
    named: &syn::FieldsNamed,
    errors: &mut Errors,
) -> Form {
    let message = match message.into_inner() {
        Some(text) => Docs::Text(text),
        None => Docs::from_attrs(&input.attrs),
    };
    let rule = serde_rename_all(&input.attrs, errors);
    let fields = named
        .named
        .iter()
        .filter_map(|f| {
            let ident = f.ident.as_ref()?;
            let raw = ident.to_string();
            let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
            let (name, name_span) = match serde_rename(&f.attrs, errors) {
                Some(lit) => (lit.value(), lit.span()),
                None => (
                    rule.as_deref()
                        .and_then(|r| rename::field(&raw, r))
                        .unwrap_or(raw),
                    ident.span(),
                ),
            };
            let mut title = Slot::<String>::default();
            let mut default = Slot::<Lit>::default();
            let mut format = Slot::<LitStr>::default();
            each_key(&f.attrs, errors, |meta, errors| {
                if meta.path.is_ident("title") {
                    let lit = string(meta)?;
                    title.set(meta, lit.value(), errors);
                } else if meta.path.is_ident("default") {
                    let lit = meta.value()?.parse::<Lit>()?;
                    default.set(meta, lit, errors);
                } else if meta.path.is_ident("format") {
                    let lit = string(meta)?;
                    format.set(meta, lit, errors);
                } else {
                    return Err(unknown_key(meta, FIELD_KEYS));
                }
                Ok(())
            });
            Some(Field {
                ident: ident.clone(),
                name,
                name_span,
                ty: f.ty.clone(),
                title: title.into_inner(),
                description: Docs::from_attrs(&f.attrs),
                default: default.into_inner(),
                format: format.into_inner(),
            })
        })
        .collect();
    Form { message, fields }
}

/// `#[serde(rename = "…")]` among `attrs`.
fn serde_rename(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    serde_key(attrs, "rename", errors)
}

/// `#[serde(rename_all = "…")]` among `attrs`. serde itself reports a rule it does not know.
fn serde_rename_all(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    let rule = serde_key(attrs, "rename_all", errors)?.value();
    rename::RULES.contains(&rule.as_str()).then_some(rule)
}

fn serde_key(attrs: &[Attribute], key: &str, errors: &mut Errors) -> Option<LitStr> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // Other serde keys, and a key given twice, are serde's business: it reports them.
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(key) && meta.input.peek(syn::Token![=]) {
                found = Some(string(&meta)?);
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|_| Ok(()));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    found
}
