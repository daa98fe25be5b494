//! Resolve parameters: the order they are asked in, and the code that asks them.
//!
//! A parameter's `ask` expression may use other parameters by name (arguments, the context,
//! other Resolve parameters). Those it names among the Resolve parameters are its
//! dependencies: it is asked in the round after they are all answered, and every question whose
//! dependencies are known goes out in the same round. A cycle is a compile error (reported by
//! the checks from [`Plan::stuck`]).

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::params::{Param, ParamKind};
use crate::common::paths::Paths;
use crate::common::types::ResolveKind;

/// The Resolve parameters in an order where each comes after its dependencies, with those
/// dependencies (as indices into the parameter list).
#[derive(Default)]
pub struct Plan {
    pub steps: Vec<(usize, Vec<usize>)>,
    /// Parameters that can never be asked (a cycle), with what each waits for.
    pub stuck: Vec<(usize, Vec<usize>)>,
}

/// Orders the Resolve parameters of `params`.
pub fn plan(params: &[Param]) -> Plan {
    let resolve: Vec<usize> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_resolve())
        .map(|(i, _)| i)
        .collect();
    let deps: Vec<(usize, Vec<usize>)> = resolve
        .iter()
        .map(|&i| {
            let named = params[i]
                .attrs
                .ask
                .get()
                .map(|ask| names_used(ask.to_token_stream()))
                .unwrap_or_default();
            let on: Vec<usize> = resolve
                .iter()
                .copied()
                .filter(|&j| named.contains(&params[j].ident.to_string()))
                .collect();
            (i, on)
        })
        .collect();
    let mut steps = Vec::new();
    let mut placed: Vec<usize> = Vec::new();
    let mut pending = deps;
    while !pending.is_empty() {
        let (ready, waiting): (Vec<_>, Vec<_>) = pending
            .into_iter()
            .partition(|(_, on)| on.iter().all(|d| placed.contains(d)));
        if ready.is_empty() {
            return Plan {
                steps,
                stuck: waiting,
            };
        }
        placed.extend(ready.iter().map(|(i, _)| *i));
        steps.extend(ready);
        pending = waiting;
    }
    Plan {
        steps,
        stuck: Vec::new(),
    }
}

/// Every identifier in `tokens`, including `{name}` captures inside string literals (format
/// strings), which is how an `ask` expression names the parameters it uses.
fn names_used(tokens: TokenStream) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                names.insert(ident.to_string());
            }
            TokenTree::Group(group) => names.extend(names_used(group.stream())),
            TokenTree::Literal(literal) => {
                let text = literal.to_string();
                let mut rest = text.as_str();
                while let Some(open) = rest.find('{') {
                    rest = &rest[open + 1..];
                    if rest.starts_with('{') {
                        rest = &rest[1..];
                        continue;
                    }
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        names.insert(name);
                    }
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
    names
}

/// Code that fills every Resolve parameter or stops the call; `None` for a function without
/// Resolve parameters. It expects `__mcp_context` (with the round attached) in scope, and the
/// other parameters already bound. On a `Halt`, it returns `halt` with `__mcp_halt` in scope;
/// when a 2026-07-28 round has questions, it returns them as an `InputRequiredResult`.
pub fn resolution(
    params: &[Param],
    plan: &Plan,
    subject: &str,
    halt: &TokenStream,
    paths: &Paths,
) -> Option<TokenStream> {
    if plan.steps.is_empty() {
        return None;
    }
    let p = paths.private();
    let ask = quote!(::core::result::Result::Ok(#p::Outcome::InputRequired(
        __mcp_rounds.finish()
    )));
    let mut steps = Vec::new();
    for (index, on) in &plan.steps {
        let param = &params[*index];
        let ParamKind::Resolve(kind) = param.kind else {
            continue;
        };
        let ident = &param.ident;
        let ty = &param.ty;
        let key = param.resolve_key();
        let question = param.attrs.ask.get();
        let call = match kind {
            ResolveKind::Elicit | ResolveKind::Elicited => {
                let message = match question {
                    Some(expr) => quote!(#expr),
                    None => quote_spanned! {ty.span()=>
                        <<#ty as #p::FromElicitation>::Form as #p::Elicitation>::MESSAGE
                    },
                };
                quote_spanned!(ty.span()=> __mcp_rounds.elicit::<#ty>(#key, #message))
            }
            ResolveKind::Sample => {
                let request = question.map(|e| quote!(#e)).unwrap_or_default();
                quote!(__mcp_rounds.sample(#key, #request))
            }
            ResolveKind::ElicitUrl => {
                let request = question.map(|e| quote!(#e)).unwrap_or_default();
                quote!(__mcp_rounds.elicit_url(#key, #request))
            }
            ResolveKind::ListRoots => quote!(__mcp_rounds.list_roots(#key)),
        };
        let asked = quote! {
            match #call {
                ::core::result::Result::Ok(answer) => answer,
                ::core::result::Result::Err(__mcp_halt) => return #halt,
            }
        };
        let deps: Vec<&Ident> = on.iter().map(|&d| &params[d].ident).collect();
        let step = if deps.is_empty() {
            quote!(let #ident: ::core::option::Option<#ty> = #asked;)
        } else {
            quote! {
                let #ident: ::core::option::Option<#ty> = match (#(&#deps,)*) {
                    (#(::core::option::Option::Some(#deps),)*) => #asked,
                    #[allow(unreachable_patterns)]
                    _ => ::core::option::Option::None,
                };
            }
        };
        steps.push(step);
    }
    let resolved: Vec<&Ident> = plan.steps.iter().map(|(i, _)| &params[*i].ident).collect();
    // A 2026-07-28 round returns its questions; a 2025-11-25 session asks them over the
    // back-channel and goes round again in the same call.
    Some(quote! {
        let mut __mcp_rounds = #p::Rounds::open(&__mcp_context, #subject);
        let (#(#resolved,)*) = loop {
            #(#steps)*
            if let (#(::core::option::Option::Some(#resolved),)*) = (#(#resolved,)*) {
                break (#(#resolved,)*);
            }
            match __mcp_rounds.call_back(&__mcp_context).await {
                ::core::result::Result::Ok(()) => {}
                ::core::result::Result::Err(#p::CallBack::Ask) => return #ask,
                ::core::result::Result::Err(#p::CallBack::Halt(__mcp_halt)) => return #halt,
                ::core::result::Result::Err(#p::CallBack::Failed(error)) => {
                    return ::core::result::Result::Err(error);
                }
            }
        };
    })
}
