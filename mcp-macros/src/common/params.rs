//! Parameters of an annotated function as the model holds them: what fills each one, and the
//! `#[mcp(…)]` keys written on it. Parsing only records what is written; whether it makes sense
//! is for the checks (`common/check.rs`), and what a parameter is beyond the syntax (an argument,
//! the request context, shared state) is for its type's trait in the generated code.

use proc_macro2::Span;
use syn::{Attribute, Expr, FnArg, Ident, LitStr, Pat, Type};

use crate::common::attrs::{Slot, string, unknown_key};
use crate::common::errors::Errors;
use crate::common::types::{ResolveKind, resolve_kind};

/// One parameter of the function.
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    /// Its doc comments, carried to the schema or the argument listing.
    pub docs: Vec<Attribute>,
    pub attrs: ParamAttrs,
    pub kind: ParamKind,
}

/// What fills a parameter.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// Filled through its type's trait (`ToolParam`, `PromptParam`, `ResourceParam`): an
    /// argument from the client, or the request context or shared state from the runtime.
    /// Which one is the type's business, so a user's own `Context` type is an argument.
    Extract,
    /// Asked of the client by the runtime (`Elicit<T>`, `Elicited<T>`, `ElicitUrl`, `Sample`, `ListRoots`).
    Resolve(ResolveKind),
}

/// The `#[mcp(…)]` keys of a parameter, as written.
#[derive(Default)]
pub struct ParamAttrs {
    /// `default` (`None` inside) or `default = expr`.
    pub default: Slot<Option<Box<Expr>>>,
    pub rename: Slot<LitStr>,
    pub header: Slot<LitStr>,
    pub ask: Slot<Box<Expr>>,
    pub key: Slot<LitStr>,
    /// A prompt argument's display name.
    pub title: Slot<LitStr>,
    /// The function completing a prompt argument or template variable.
    pub complete: Slot<Box<Expr>>,
}

impl ParamAttrs {
    /// Whether a key that only makes sense on an argument is set: such a parameter must be an
    /// argument, whatever its type's name.
    pub fn marks_argument(&self) -> bool {
        self.default.get().is_some()
            || self.rename.get().is_some()
            || self.header.get().is_some()
            || self.title.get().is_some()
            || self.complete.get().is_some()
    }
}

impl Param {
    /// The name the client knows it by: `rename`, else the identifier without `r#`.
    pub fn wire_name(&self) -> String {
        self.attrs
            .rename
            .get()
            .map_or_else(|| unraw(&self.ident), LitStr::value)
    }

    /// Where the wire name is written.
    pub fn wire_name_span(&self) -> Span {
        self.attrs
            .rename
            .get()
            .map_or_else(|| self.ident.span(), LitStr::span)
    }

    /// The input key a Resolve parameter is asked under: `key`, else the identifier.
    pub fn resolve_key(&self) -> String {
        self.attrs
            .key
            .get()
            .map_or_else(|| unraw(&self.ident), LitStr::value)
    }

    /// Where the Resolve key is written.
    pub fn resolve_key_span(&self) -> Span {
        self.attrs
            .key
            .get()
            .map_or_else(|| self.ident.span(), LitStr::span)
    }

    pub fn is_resolve(&self) -> bool {
        matches!(self.kind, ParamKind::Resolve(_))
    }
}

/// The identifier as the wire names it: without `r#`, and without the leading underscores that
/// only tell rustc a variable is unused (rustc suggests adding one, which must not rename the
/// argument).
fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    let text = text.strip_prefix("r#").unwrap_or(&text);
    match text.trim_start_matches('_') {
        "" => text.to_owned(),
        bare => bare.to_owned(),
    }
}

/// One parameter; strips the attributes it consumes (doc comments are not allowed on
/// parameters once the macro is done, and `#[mcp]` is ours). `keys` are the `#[mcp(…)]` keys this
/// macro knows.
pub fn parse_param(input: &mut FnArg, keys: &[&str], errors: &mut Errors) -> Option<Param> {
    let FnArg::Typed(typed) = input else {
        // Receivers are reported by the checks.
        return None;
    };
    let ident = match &*typed.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            errors.at(
                other,
                "use a plain identifier here: the parameter's name is its name on the wire",
            );
            return None;
        }
    };
    let ty: Type = (*typed.ty).clone();
    let docs: Vec<_> = typed
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .cloned()
        .collect();
    let mut attrs = ParamAttrs::default();
    for attr in typed.attrs.iter().filter(|a| a.path().is_ident("mcp")) {
        let result = attr.parse_nested_meta(|meta| {
            let known = |key: &str| meta.path.is_ident(key) && keys.contains(&key);
            if known("default") {
                let value = if meta.input.peek(syn::Token![=]) {
                    Some(Box::new(meta.value()?.parse()?))
                } else {
                    None
                };
                attrs.default.set(&meta, value, errors);
            } else if known("rename") {
                let lit = string(&meta)?;
                attrs.rename.set(&meta, lit, errors);
            } else if known("ask") {
                let expr = Box::new(meta.value()?.parse::<Expr>()?);
                attrs.ask.set(&meta, expr, errors);
            } else if known("key") {
                let lit = string(&meta)?;
                attrs.key.set(&meta, lit, errors);
            } else if known("header") {
                let lit = string(&meta)?;
                attrs.header.set(&meta, lit, errors);
            } else if known("complete") {
                let expr = Box::new(meta.value()?.parse::<Expr>()?);
                attrs.complete.set(&meta, expr, errors);
            } else if known("title") {
                let lit = string(&meta)?;
                attrs.title.set(&meta, lit, errors);
            } else {
                return Err(unknown_key(&meta, keys));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    typed
        .attrs
        .retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("mcp"));
    let kind = resolve_kind(&ty).map_or(ParamKind::Extract, ParamKind::Resolve);
    Some(Param {
        ident,
        ty,
        docs,
        attrs,
        kind,
    })
}
