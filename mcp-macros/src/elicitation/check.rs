//! The rules an elicitation type follows, checked on the model: a form asks a question, its
//! fields have distinct names and known formats; a choice has fieldless variants with distinct
//! values. Whether a field's type fits in a form is its `ElicitationField` impl's business.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use syn::{Fields, Ident};

use crate::common::docs::Docs;
use crate::common::errors::Errors;

use super::model::{Body, Choice, Elicitation, Form};

const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

pub fn check(model: &Elicitation, errors: &mut Errors) {
    if !model.generics.params.is_empty() {
        errors.at(
            &model.generics,
            "an elicitation type cannot be generic: its schema is fixed when it is compiled",
        );
    }
    match &model.body {
        Body::Form(form) => check_form(model, form, errors),
        Body::Choice(choice) => check_choice(model, choice, errors),
        Body::Other => {}
    }
}

fn check_form(model: &Elicitation, form: &Form, errors: &mut Errors) {
    if matches!(&form.message, Docs::None) || matches!(&form.message, Docs::Text(t) if t.is_empty())
    {
        errors.at(
            &model.ident,
            "the form needs a question: write it as the struct's doc comment, or as \
             `#[elicitation(message = \"…\")]`",
        );
    }
    let mut names = BTreeMap::new();
    for field in &form.fields {
        if let Some(format) = &field.format
            && !FORMATS.contains(&format.value().as_str())
        {
            errors.at(
                format,
                format!("unknown format; expected one of: {}", FORMATS.join(", ")),
            );
        }
        if let Some(first) = first_with(&mut names, &field.name, &field.ident) {
            errors.at_span(
                field.name_span,
                format!(
                    "`{first}` and `{}` are both named `{}` in the form (after serde renames); \
                     give one another name with `#[serde(rename = \"…\")]`",
                    field.ident, field.name
                ),
            );
        }
    }
}

fn check_choice(model: &Elicitation, choice: &Choice, errors: &mut Errors) {
    if choice.variants.is_empty() {
        errors.at(&model.ident, "a choice needs at least one variant");
    }
    let mut values = BTreeMap::new();
    for variant in &choice.variants {
        if !matches!(variant.fields, Fields::Unit) {
            errors.at(
                &variant.fields,
                "a choice has no data: use a fieldless enum (each variant is one option)",
            );
        }
        if let Some(first) = first_with(&mut values, &variant.value, &variant.ident) {
            errors.at_span(
                variant.value_span,
                format!(
                    "`{first}` and `{}` are both the value `{}` (after serde renames); give \
                     one another with `#[serde(rename = \"…\")]`",
                    variant.ident, variant.value
                ),
            );
        }
    }
}

/// The item that already has `name`, or `None` after recording `ident` as its first.
fn first_with<'a>(
    seen: &mut BTreeMap<&'a str, &'a Ident>,
    name: &'a str,
    ident: &'a Ident,
) -> Option<&'a Ident> {
    match seen.entry(name) {
        Entry::Occupied(first) => Some(first.get()),
        Entry::Vacant(slot) => {
            slot.insert(ident);
            None
        }
    }
}
