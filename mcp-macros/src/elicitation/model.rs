//! An elicitation type as the checks and the generator see it.

use proc_macro2::Span;
use syn::{Fields, Generics, Ident, Lit, LitStr, Type};

use crate::common::docs::Docs;
use crate::common::paths::Paths;

pub struct Elicitation {
    pub ident: Ident,
    pub generics: Generics,
    /// Where generated code finds the runtime.
    pub paths: Paths,
    pub body: Body,
}

pub enum Body {
    /// A struct with named fields: a form.
    Form(Form),
    /// An enum: a choice (its variants must be fieldless).
    Choice(Choice),
    /// A shape that is neither (already reported).
    Other,
}

pub struct Form {
    /// The question (the doc comment, or `message = "…"`).
    pub message: Docs,
    pub fields: Vec<Field>,
}

pub struct Field {
    pub ident: Ident,
    /// The name on the wire (after serde renames), and where it comes from.
    pub name: String,
    pub name_span: Span,
    pub ty: Type,
    pub title: Option<String>,
    pub description: Docs,
    pub default: Option<Lit>,
    /// `format = "…"` as written.
    pub format: Option<LitStr>,
}

pub struct Choice {
    pub variants: Vec<Variant>,
}

pub struct Variant {
    pub ident: Ident,
    /// The value on the wire (after serde renames), and where it comes from.
    pub value: String,
    pub value_span: Span,
    /// A display label (`title = "…"`, else the doc comment).
    pub title: Option<String>,
    /// Its fields, which a choice may not have.
    pub fields: Fields,
}
