//! An elicitation type as the generator sees it.

use syn::{Ident, Lit, Type};

use crate::common::docs::Docs;

pub enum Model {
    /// A struct with named fields: a form.
    Form(Form),
    /// A fieldless enum: a choice.
    Choice(Choice),
}

pub struct Form {
    pub ident: Ident,
    /// The question (the doc comment, or `message = "…"`).
    pub message: Docs,
    pub fields: Vec<Field>,
}

pub struct Field {
    /// The name on the wire (after serde renames).
    pub name: String,
    pub ty: Type,
    pub title: Option<String>,
    pub description: Docs,
    pub default: Option<Lit>,
    pub format: Option<String>,
}

pub struct Choice {
    pub ident: Ident,
    pub variants: Vec<Variant>,
}

pub struct Variant {
    /// The value on the wire (after serde renames).
    pub value: String,
    /// A display label (`title = "…"`, else the doc comment).
    pub title: Option<String>,
}
