//! What `#[mcp::tool]`, `#[mcp::prompt]` and `#[mcp::resource]` generate alike: the hidden
//! twin type `mcp::tools![f]` names, the placeholder registration emitted next to errors, and
//! the entry and exit of every expansion.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;

use crate::common::errors::Errors;
use crate::common::params::{Param, ParamKind, state_binding};
use crate::common::paths::private;

/// One kind of registrable function.
pub struct Kind {
    /// `tool`, `prompt`, `resource`.
    pub noun: &'static str,
    /// The listing macro: `tools`, `prompts`, `resources`.
    pub list: &'static str,
    /// The trait the twin implements: `ToolDef`, …
    pub def: &'static str,
    /// What the trait returns: `ToolEntry`, …
    pub entry: &'static str,
}

pub const TOOL: Kind = Kind {
    noun: "tool",
    list: "tools",
    def: "ToolDef",
    entry: "ToolEntry",
};

pub const PROMPT: Kind = Kind {
    noun: "prompt",
    list: "prompts",
    def: "PromptDef",
    entry: "PromptEntry",
};

pub const RESOURCE: Kind = Kind {
    noun: "resource",
    list: "resources",
    def: "ResourceDef",
    entry: "ResourceEntry",
};

impl Kind {
    fn def_path(&self) -> (Ident, Ident) {
        (
            format_ident!("{}", self.def),
            format_ident!("{}", self.entry),
        )
    }
}

/// The annotated item as a function, or the tokens to emit instead (an error, and the item left
/// as it was).
pub fn parse_fn(item: TokenStream, kind: &Kind) -> Result<ItemFn, TokenStream> {
    syn::parse2(item.clone()).map_err(|e| {
        let message = format!("`#[mcp::{}]` goes on an `async fn`", kind.noun);
        let error = syn::Error::new(e.span(), message).to_compile_error();
        quote!(#error #item)
    })
}

/// Every expansion ends here: the generated code, or the errors next to a placeholder so
/// nothing cascades from a missing item.
pub fn finish(
    errors: &Errors,
    generate: impl FnOnce() -> TokenStream,
    fallback: impl FnOnce() -> TokenStream,
) -> TokenStream {
    if errors.is_empty() {
        generate()
    } else {
        let compile_errors = errors.to_compile_errors();
        let fallback = fallback();
        quote!(#compile_errors #fallback)
    }
}

/// A unit-like type named like the function, in the type namespace (so it does not clash with
/// the function, which is in the value namespace).
pub fn twin(item: &ItemFn, kind: &Kind, label: &str) -> TokenStream {
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let doc = format!(
        "The MCP {} `{label}`; register it with `mcp::{}![{ident}]`.",
        kind.noun, kind.list
    );
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}
    }
}

/// For a function with errors: the function and its twin with a registration that never runs
/// (the crate does not compile). A method gets neither: items cannot be declared in an `impl`.
pub fn fallback(item: &ItemFn, kind: &Kind, label: &str) -> TokenStream {
    if item.sig.receiver().is_some() {
        return quote!(#item);
    }
    let p = private();
    let ident = &item.sig.ident;
    let twin = twin(item, kind, label);
    let (def, entry) = kind.def_path();
    quote! {
        #item
        #twin
        impl #p::#def for #ident {
            fn entry() -> #p::#entry {
                ::core::unreachable!()
            }
        }
    }
}

/// The body of a handler wrapper, the same for every kind: attach the round when the function
/// reads it or asks, run `prelude`, bind every parameter (each argument with `argument`; the
/// context and shared state alike for all kinds), resolve what must be asked, call the function
/// and convert what it returns (`outcome`, with `__mcp_returned` in scope). Spanned at the
/// function's name, so a future that is not `Send` is reported there.
pub fn call_body(
    item: &ItemFn,
    params: &[Param],
    prelude: TokenStream,
    argument: impl Fn(&Param) -> TokenStream,
    resolution: Option<TokenStream>,
    outcome: TokenStream,
) -> TokenStream {
    let takes_context = params.iter().any(|p| matches!(p.kind, ParamKind::Context));
    let round = attach_round(takes_context || resolution.is_some());
    let bindings = params.iter().map(|param| match &param.kind {
        ParamKind::Argument { .. } => argument(param),
        // A cheap handle clone: the context stays usable for later bindings.
        ParamKind::Context => {
            let ident = &param.ident;
            quote!(let #ident = ::core::clone::Clone::clone(&__mcp_context);)
        }
        ParamKind::State => state_binding(param),
        // Filled by the resolution block.
        ParamKind::Resolve { .. } => quote!(),
    });
    let ident = &item.sig.ident;
    let call_args = params.iter().map(|param| &param.ident);
    quote_spanned! {ident.span()=>
        ::std::boxed::Box::pin(async move {
            #round
            #prelude
            #(#bindings)*
            #resolution
            let __mcp_returned = #ident(#(#call_args),*).await;
            #outcome
        })
    }
}

/// Attaches the round's answers and state to the context, for functions that read them or ask.
fn attach_round(needed: bool) -> Option<TokenStream> {
    needed.then(|| {
        quote! {
            let __mcp_context = __mcp_context.with_round(
                __mcp_params.input_responses,
                __mcp_params.request_state,
            );
        }
    })
}
