//! Recognising, by their syntax, the types whose handling the macro itself writes: Resolve
//! parameters (their questions and order are generated code) and return types that name
//! `InputRequiredResult` (for an error that points at both places).
//!
//! Recognition is by the last path segment, so `mcp::Elicit<T>` and a `use`d `Elicit<T>` both
//! work. A type alias hides a type from this pass; where that matters the generated code routes
//! the type through a trait that sees through aliases. The request context and shared state are
//! not recognised here at all: their types' traits decide, in the generated code.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

/// A parameter the runtime resolves by asking the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolveKind {
    /// `Elicit<T>`: a form question the user must accept.
    Elicit,
    /// `Elicited<T>`: a form question whose decline the function handles.
    Elicited,
    /// `ElicitUrl`: an out-of-band step at a URL the user must accept.
    ElicitUrl,
    /// `Sample`: the client's LLM.
    Sample,
    /// `ListRoots`: the client's roots.
    ListRoots,
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// `Elicit<T>`, `Elicited<T>`, `ElicitUrl`, `Sample` or `ListRoots`.
pub fn resolve_kind(ty: &Type) -> Option<ResolveKind> {
    let segment = last_segment(ty)?;
    match (&segment.ident, &segment.arguments) {
        (i, PathArguments::AngleBracketed(_)) if i == "Elicit" => Some(ResolveKind::Elicit),
        (i, PathArguments::AngleBracketed(_)) if i == "Elicited" => Some(ResolveKind::Elicited),
        (i, PathArguments::None) if i == "ElicitUrl" => Some(ResolveKind::ElicitUrl),
        (i, PathArguments::None) if i == "Sample" => Some(ResolveKind::Sample),
        (i, PathArguments::None) if i == "ListRoots" => Some(ResolveKind::ListRoots),
        _ => None,
    }
}

/// Where a type can carry an `InputRequiredResult` (it names `InputRequiredResult` or
/// `Outcome`, at any depth), as seen in the syntax.
pub fn input_required_span(ty: &Type) -> Option<Span> {
    let segment = last_segment(ty)?;
    if segment.ident == "InputRequiredResult" || segment.ident == "Outcome" {
        return Some(ty.span());
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(inner) => input_required_span(inner),
        _ => None,
    })
}
