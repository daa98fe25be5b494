//! From the derive input to a [`Model`], with every mistake reported at its tokens.

use syn::{Attribute, Data, DeriveInput, Fields, Lit, LitStr};

use crate::common::attrs::{string, unknown_key};
use crate::common::docs::Docs;
use crate::common::errors::Errors;

use super::model::{Choice, Field, Form, Model, Variant};
use super::rename;

const FORM_KEYS: &[&str] = &["message"];
const FIELD_KEYS: &[&str] = &["title", "default", "format"];
const VARIANT_KEYS: &[&str] = &["title"];
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

pub fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<Model> {
    if !input.generics.params.is_empty() {
        errors.at(
            &input.generics,
            "an elicitation type cannot be generic: its schema is fixed when it is compiled",
        );
    }
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(Model::Form(form(input, named, errors))),
            other => {
                errors.at(
                    other,
                    "an elicitation form needs named fields: each field is one question of the form",
                );
                None
            }
        },
        Data::Enum(data) => {
            let rule = serde_rename_all(&input.attrs, errors);
            let variants = data
                .variants
                .iter()
                .filter_map(|v| {
                    if !matches!(v.fields, Fields::Unit) {
                        errors.at(
                            &v.fields,
                            "a choice has no data: use a fieldless enum (each variant is one option)",
                        );
                        return None;
                    }
                    let mut title = None;
                    for attr in v.attrs.iter().filter(|a| a.path().is_ident("elicitation")) {
                        let result = attr.parse_nested_meta(|meta| {
                            if meta.path.is_ident("title") {
                                title = Some(string(&meta)?.value());
                                Ok(())
                            } else {
                                Err(unknown_key(&meta, VARIANT_KEYS))
                            }
                        });
                        if let Err(e) = result {
                            errors.push(e);
                        }
                    }
                    let title = title.or_else(|| match Docs::from_attrs(&v.attrs) {
                        Docs::Text(text) if !text.is_empty() => Some(text),
                        _ => None,
                    });
                    let name = v.ident.to_string();
                    let value = serde_rename(&v.attrs, errors)
                        .or_else(|| rule.as_deref().and_then(|r| rename::variant(&name, r)))
                        .unwrap_or(name);
                    Some(Variant { value, title })
                })
                .collect::<Vec<_>>();
            if data.variants.is_empty() {
                errors.at(&input.ident, "a choice needs at least one variant");
            }
            Some(Model::Choice(Choice {
                ident: input.ident.clone(),
                variants,
            }))
        }
        Data::Union(data) => {
            errors.at(data.union_token, "a union cannot be an elicitation form");
            None
        }
    }
}

fn form(input: &DeriveInput, named: &syn::FieldsNamed, errors: &mut Errors) -> Form {
    let mut message = None;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("elicitation"))
    {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("message") {
                message = Some(string(&meta)?.value());
                Ok(())
            } else {
                Err(unknown_key(&meta, FORM_KEYS))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    let message = match message {
        Some(text) => Docs::Text(text),
        None => Docs::from_attrs(&input.attrs),
    };
    if matches!(&message, Docs::None) || matches!(&message, Docs::Text(t) if t.is_empty()) {
        errors.at(
            &input.ident,
            "the form needs a question: write it as the struct's doc comment, or as \
             `#[elicitation(message = \"…\")]`",
        );
    }
    let rule = serde_rename_all(&input.attrs, errors);
    let fields = named
        .named
        .iter()
        .filter_map(|f| {
            let ident = f.ident.as_ref()?;
            let raw = ident.to_string();
            let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
            let name = serde_rename(&f.attrs, errors)
                .or_else(|| rule.as_deref().and_then(|r| rename::field(&raw, r)))
                .unwrap_or(raw);
            let mut title = None;
            let mut default = None;
            let mut format = None;
            for attr in f.attrs.iter().filter(|a| a.path().is_ident("elicitation")) {
                let result = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("title") {
                        title = Some(string(&meta)?.value());
                    } else if meta.path.is_ident("default") {
                        default = Some(meta.value()?.parse::<Lit>()?);
                    } else if meta.path.is_ident("format") {
                        let lit = string(&meta)?;
                        if !FORMATS.contains(&lit.value().as_str()) {
                            return Err(syn::Error::new(
                                lit.span(),
                                format!("unknown format; expected one of: {}", FORMATS.join(", ")),
                            ));
                        }
                        format = Some(lit.value());
                    } else {
                        return Err(unknown_key(&meta, FIELD_KEYS));
                    }
                    Ok(())
                });
                if let Err(e) = result {
                    errors.push(e);
                }
            }
            Some(Field {
                name,
                ty: f.ty.clone(),
                title,
                description: Docs::from_attrs(&f.attrs),
                default,
                format,
            })
        })
        .collect();
    Form {
        ident: input.ident.clone(),
        message,
        fields,
    }
}

/// `#[serde(rename = "…")]` among `attrs`.
fn serde_rename(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    serde_key(attrs, "rename", errors).map(|lit| lit.value())
}

/// `#[serde(rename_all = "…")]` among `attrs`. serde itself reports a rule it does not know.
fn serde_rename_all(attrs: &[Attribute], errors: &mut Errors) -> Option<String> {
    let rule = serde_key(attrs, "rename_all", errors)?.value();
    rename::RULES.contains(&rule.as_str()).then_some(rule)
}

fn serde_key(attrs: &[Attribute], key: &str, errors: &mut Errors) -> Option<LitStr> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // Other serde keys are serde's business; only read the one asked for.
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
