//! Parameters of an annotated function: what fills each one, and the attributes on it.

use syn::{Attribute, Expr, FnArg, Ident, Pat, Type};

use crate::common::attrs::{string, unknown_key};
use crate::common::errors::Errors;
use crate::common::types::{ResolveKind, is_context, is_state, resolve_kind};

/// One parameter of the function.
pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub kind: ParamKind,
}

/// What fills a parameter.
pub enum ParamKind {
    /// An argument from the client, described in the input schema.
    Argument {
        /// Its name on the wire.
        wire_name: String,
        /// Its doc comments, carried to the schema.
        docs: Vec<Attribute>,
        /// Used when the client leaves it out.
        default: Option<ArgDefault>,
        /// `#[mcp(header = "…")]`: mirrored into the `Mcp-Param-{header}` HTTP header.
        header: Option<syn::LitStr>,
    },
    /// The request context.
    Context,
    /// Shared application state (`State<T>`).
    State,
    /// Asked of the client by the runtime.
    Resolve {
        kind: ResolveKind,
        /// `#[mcp(ask = …)]`: the question's message (a form) or request (sampling).
        ask: Option<Box<Expr>>,
        /// The input key it is asked under (the parameter's name, or `#[mcp(key = "…")]`).
        key: String,
    },
}

/// `#[mcp(default)]` or `#[mcp(default = expr)]`.
pub enum ArgDefault {
    Trait,
    Expr(Box<Expr>),
}

/// One parameter; strips the attributes it consumes (doc comments are not allowed on
/// parameters once the macro is done, and `#[mcp]` is ours).
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
    let mut default = None;
    let mut rename = None;
    let mut ask = None;
    let mut key = None;
    let mut header = None;
    for attr in typed.attrs.iter().filter(|a| a.path().is_ident("mcp")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") && keys.contains(&"default") {
                default = Some(if meta.input.peek(syn::Token![=]) {
                    ArgDefault::Expr(Box::new(meta.value()?.parse()?))
                } else {
                    ArgDefault::Trait
                });
            } else if meta.path.is_ident("rename") && keys.contains(&"rename") {
                rename = Some(string(&meta)?.value());
            } else if meta.path.is_ident("ask") && keys.contains(&"ask") {
                ask = Some(Box::new(meta.value()?.parse::<Expr>()?));
            } else if meta.path.is_ident("key") && keys.contains(&"key") {
                key = Some(string(&meta)?);
            } else if meta.path.is_ident("header") && keys.contains(&"header") {
                let lit = string(&meta)?;
                let token = !lit.value().is_empty()
                    && lit
                        .value()
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
                if !token {
                    return Err(syn::Error::new(
                        lit.span(),
                        "a header name is a non-empty HTTP token (letters, digits, `-`, `_`, …)",
                    ));
                }
                header = Some(lit);
            } else {
                return Err(unknown_key(&meta, keys));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    let consumed_mcp = typed.attrs.iter().any(|a| a.path().is_ident("mcp"));
    typed
        .attrs
        .retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("mcp"));
    let kind = if is_context(&ty) {
        if consumed_mcp {
            errors.at(&ty, "`#[mcp(..)]` does not apply to the request context");
        }
        ParamKind::Context
    } else if is_state(&ty) {
        if consumed_mcp {
            errors.at(&ty, "`#[mcp(..)]` does not apply to shared state");
        }
        ParamKind::State
    } else if let Some(kind) = resolve_kind(&ty) {
        if let Some(header) = &header {
            errors.at(
                header,
                "`header` belongs on an argument, not a Resolve parameter",
            );
        }
        if let Some(ArgDefault::Trait | ArgDefault::Expr(_)) = default {
            errors.at(
                &ty,
                "a Resolve parameter is asked of the client; it has no default",
            );
        }
        if rename.is_some() {
            errors.at(
                &ty,
                "a Resolve parameter is not an argument: name its input key with `key = \"…\"`",
            );
        }
        if kind == ResolveKind::Sample && ask.is_none() {
            errors.at(
                &ty,
                "a `Sample` parameter needs the request to send: \
                 `#[mcp(ask = CreateMessageParams::prompt(…, max_tokens))]`",
            );
        }
        if kind == ResolveKind::ListRoots && ask.is_some() {
            errors.at(&ty, "`ListRoots` asks nothing to configure; remove `ask`");
        }
        let key = key.map(|k| k.value()).unwrap_or_else(|| {
            let text = ident.to_string();
            text.strip_prefix("r#").unwrap_or(&text).to_owned()
        });
        ParamKind::Resolve { kind, ask, key }
    } else {
        if let Some(ask) = &ask {
            errors.at(
                ask,
                "`ask` belongs on a Resolve parameter (`Elicit<T>`, `Elicited<T>`, `Sample`)",
            );
        }
        if let Some(key) = &key {
            errors.at(
                key,
                "`key` belongs on a Resolve parameter; rename an argument with `rename`",
            );
        }
        let ident_text = ident.to_string();
        let wire_name = rename.unwrap_or_else(|| {
            ident_text
                .strip_prefix("r#")
                .unwrap_or(&ident_text)
                .to_owned()
        });
        ParamKind::Argument {
            wire_name,
            docs,
            default,
            header,
        }
    };
    Some(Param { ident, ty, kind })
}

/// `&[<T as FromAppState>::key, …]` for the shared-state parameters: checked when the server is
/// built, so a missing `.state(…)` is an error at startup, not on the first call.
pub fn state_requirements(params: &[Param]) -> proc_macro2::TokenStream {
    let p = crate::common::paths::private();
    let keys = params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::State))
        .map(|param| {
            let ty = &param.ty;
            quote::quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as #p::FromAppState>::key)
        });
    quote::quote!(&[#(#keys),*])
}

/// The binding of a shared-state parameter from `__mcp_context`.
pub fn state_binding(param: &Param) -> proc_macro2::TokenStream {
    let p = crate::common::paths::private();
    let ident = &param.ident;
    let ty = &param.ty;
    quote::quote_spanned! {syn::spanned::Spanned::span(ty)=>
        let #ident: #ty = match <#ty as #p::FromAppState>::from_state(__mcp_context.app_state()) {
            ::core::option::Option::Some(value) => value,
            ::core::option::Option::None => {
                return ::core::result::Result::Err(#p::McpError::internal(
                    "a shared state value is missing",
                ));
            }
        };
    }
}
