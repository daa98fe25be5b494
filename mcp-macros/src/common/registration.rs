//! What `#[mcp::tool]`, `#[mcp::prompt]` and `#[mcp::resource]` generate alike: the hidden
//! twin type `mcp::tools![f]` names, the placeholder registration emitted next to errors, the
//! call wrapper and its `Send` checks, and the entry and exit of every expansion.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::common::errors::Errors;
use crate::common::params::Param;
use crate::common::paths::Paths;

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

/// The annotated item as a function; anything else is reported (and then emitted unchanged by
/// the caller's fallback).
pub fn parse_fn(item: TokenStream, kind: &Kind, errors: &mut Errors) -> Option<ItemFn> {
    match syn::parse2(item) {
        Ok(item) => Some(item),
        Err(e) => {
            let message = format!("`#[mcp::{}]` goes on an `async fn`", kind.noun);
            errors.at_span(e.span(), message);
            None
        }
    }
}

/// Every expansion ends here: the generated code, or the errors next to a fallback (the item
/// and placeholders) so nothing cascades from a missing item.
pub fn finish(
    errors: Errors,
    generate: impl FnOnce() -> TokenStream,
    fallback: impl FnOnce() -> TokenStream,
) -> TokenStream {
    match errors.finish() {
        Ok(()) => generate(),
        Err(error) => {
            let compile_errors = error.to_compile_error();
            let fallback = fallback();
            quote!(#compile_errors #fallback)
        }
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
/// (the crate does not compile), so `mcp::tools![f]` still resolves and reports nothing more.
/// A method gets neither: items cannot be declared in an `impl`.
pub fn fallback(item: &ItemFn, kind: &Kind, label: &str, paths: &Paths) -> TokenStream {
    if item.sig.receiver().is_some() {
        return quote!(#item);
    }
    let p = paths.private();
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

/// When the wrapper attaches the round's answers and state to the context (an `Arc` per call,
/// so only for functions that read them or ask).
pub enum Round {
    Never,
    Always,
    /// When this constant expression (over the parameters' types) is true.
    If(TokenStream),
}

impl Round {
    /// `Round::If(a || b || …)` over `conditions`, `Never` when there are none.
    pub fn any(conditions: Vec<TokenStream>) -> Self {
        if conditions.is_empty() {
            Round::Never
        } else {
            Round::If(quote!(#(#conditions)||*))
        }
    }
}

/// A handler wrapper: `fn __mcp_call(inputs) -> BoxFuture<output>` boxing `async fn __mcp_run`,
/// whose body attaches the round, runs `prelude`, binds every parameter (`bindings`, one per
/// parameter; Resolve ones are empty and filled by `resolution`), runs `before_call`, calls the
/// function and converts what it returns (`outcome`, with `__mcp_returned` in scope).
pub struct Handler<'a> {
    pub item: &'a ItemFn,
    pub params: &'a [Param],
    pub paths: &'a Paths,
    /// The wrapper's parameters after the context: `(name, type)`.
    pub inputs: Vec<(Ident, TokenStream)>,
    /// What the wrapper's future yields.
    pub output: TokenStream,
    pub round: Round,
    pub prelude: TokenStream,
    pub bindings: Vec<TokenStream>,
    pub resolution: Option<TokenStream>,
    /// Runs with every parameter known, just before the function is called (empty for most);
    /// `__mcp_context` is the context, with the round attached when there is one.
    pub before_call: TokenStream,
    pub outcome: TokenStream,
}

impl Handler<'_> {
    pub fn generate(self) -> TokenStream {
        let p = self.paths.private();
        let ident = &self.item.sig.ident;
        let input_names: Vec<&Ident> = self.inputs.iter().map(|(name, _)| name).collect();
        let inputs = self.inputs.iter().map(|(name, ty)| quote!(#name: #ty));
        let inputs = quote!(__mcp_context: #p::Context, #(#inputs),*);
        let output = &self.output;
        let round = attach_round(&self.round);
        let prelude = &self.prelude;
        let bindings = &self.bindings;
        let resolution = &self.resolution;
        let before_call = &self.before_call;
        let outcome = &self.outcome;
        let call_args = self.params.iter().map(|param| &param.ident);
        let send_checks = send_checks(self.item, self.params, input_names.len() + 1, self.paths);
        quote! {
            fn __mcp_call(#inputs) -> #p::BoxFuture<#output> {
                let __mcp_future = __mcp_run(__mcp_context, #(#input_names),*);
                // `__mcp_run`'s future is boxed as it is when it is `Send`; when it is not, the
                // checks below report why at the user's tokens, and this still compiles so that
                // is the only error.
                #[allow(unused_imports)]
                use #p::{BoxNotSend as _, BoxSend as _};
                (&&#p::SendProbe::of(&__mcp_future)).boxed(__mcp_future)
            }

            #[allow(clippy::let_unit_value)]
            async fn __mcp_run(#inputs) -> #output {
                // Named before the parameters are bound, which may shadow it (`fn team(team: …)`).
                let __mcp_function = #ident;
                #round
                #prelude
                #(#bindings)*
                #resolution
                #before_call
                let __mcp_returned = __mcp_function(#(#call_args),*).await;
                #outcome
            }

            #send_checks
        }
    }
}

/// Attaches the round's answers and state to the context, as `round` says (a condition is a
/// constant, so the branch folds away).
fn attach_round(round: &Round) -> TokenStream {
    let attach = quote! {
        __mcp_context.with_round(__mcp_params.input_responses, __mcp_params.request_state)
    };
    match round {
        Round::Never => quote!(),
        Round::Always => quote!(let __mcp_context = #attach;),
        Round::If(condition) => quote! {
            #[allow(clippy::overly_complex_bool_expr, clippy::nonminimal_bool)]
            let __mcp_context = if #condition { #attach } else { __mcp_context };
        },
    }
}

/// One generated check per concern, never called, each reporting at the user's tokens why a
/// call's future would not be `Send` (which the server needs, to run calls on any thread): a
/// parameter type that is not `Send`; else the function's own future (a value held across an
/// `.await`); else, as a backstop, the wrapper's. A later check runs only when the earlier ones
/// hold (`SendGate`), so one cause is one error. `wrapper_inputs` is how many parameters
/// `__mcp_run` takes.
fn send_checks(
    item: &ItemFn,
    params: &[Param],
    wrapper_inputs: usize,
    paths: &Paths,
) -> TokenStream {
    let p = paths.private();
    let ident = &item.sig.ident;
    let types: Vec<&syn::Type> = params.iter().map(|param| &param.ty).collect();
    let each_param = types.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            {
                fn parameter_must_be_send<T: ::core::marker::Send>() {}
                parameter_must_be_send::<#ty>();
            }
        }
    });
    let diverge = |n: usize| (0..n).map(|_| quote!(::core::panic!()));
    let user_args = diverge(params.len());
    let wrapper_args = diverge(wrapper_inputs);
    quote_spanned! {ident.span()=>
        #[allow(dead_code, unreachable_code, unused_variables, clippy::diverging_sub_expression)]
        fn __mcp_check_send() {
            #[allow(unused_imports)]
            use #p::{FutureMustBeSend as _, SendCheckSkipped as _};
            #(#each_param)*
            let __mcp_future = #ident(#(#user_args),*);
            (&&#p::SendGate::<(#(#types,)*)>::new()).future_must_be_send(&__mcp_future);
            let __mcp_wrapper = __mcp_run(#(#wrapper_args),*);
            (&&#p::SendGate::<(#(#types,)*)>::after(&__mcp_future))
                .future_must_be_send(&__mcp_wrapper);
        }
    }
}

/// The `&'static [fn() -> StateKey]` of a function's shared-state parameters, from one
/// `Option<fn() -> StateKey>` per parameter (`None` for those that need none): checked when the
/// server is built, so a missing `.state(…)` is an error at startup, not on the first call.
pub fn state_requirements<'a>(
    params: impl IntoIterator<Item = &'a Param>,
    state_of: impl Fn(&Param) -> TokenStream,
    paths: &Paths,
) -> (TokenStream, TokenStream) {
    let p = paths.private();
    // A parameter with `#[mcp(default | rename | header)]` is an argument, which needs no state.
    let states: Vec<TokenStream> = params
        .into_iter()
        .map(|param| match param.attrs.marks_argument() {
            true => quote!(::core::option::Option::None),
            false => state_of(param),
        })
        .collect();
    if states.is_empty() {
        return (quote!(), quote!(&[]));
    }
    let n = states.len();
    let items = quote! {
        const __MCP_STATES: [::core::option::Option<fn() -> #p::StateKey>; #n] = [#(#states),*];
        const __MCP_REQUIRES: [fn() -> #p::StateKey; #p::count_some(&__MCP_STATES)] =
            #p::compact(&__MCP_STATES, #p::StateKey::of::<()>);
    };
    (items, quote!(&__MCP_REQUIRES))
}

/// The wrappers of the parameters' completion functions (`#[mcp(complete = f)]`), each passing
/// its function through `Completer`, spanned at it, so a function of the wrong shape is reported
/// at `complete = …`; and the `&[ArgumentCompletion]` listing them by wire name.
pub fn completions<'a>(
    params: impl IntoIterator<Item = &'a Param>,
    paths: &Paths,
) -> (TokenStream, TokenStream) {
    let p = paths.private();
    let mut wrappers = Vec::new();
    let mut entries = Vec::new();
    for (index, param) in params.into_iter().enumerate() {
        let Some(complete) = param.attrs.complete.get() else {
            continue;
        };
        let wrapper = format_ident!("__mcp_complete_{index}");
        let at = paths.private_at(complete.span());
        let run = quote_spanned!(complete.span()=> #at::run_completer(#complete, ctx, params));
        wrappers.push(quote! {
            fn #wrapper(
                ctx: #p::Context,
                params: #p::CompleteParams,
            ) -> #p::BoxFuture<::core::result::Result<#p::CompleteResult, #p::McpError>> {
                #run
            }
        });
        let argument = param.wire_name();
        entries.push(quote!(#p::ArgumentCompletion { argument: #argument, complete: #wrapper }));
    }
    (quote!(#(#wrappers)*), quote!(&[#(#entries),*]))
}

/// `<T as Trait>::item` for a parameter of type `T`, spanned at the type, so an unmet bound is
/// reported at the parameter.
pub fn through_trait(
    paths: &Paths,
    param_trait: &str,
    param: &Param,
    item: TokenStream,
) -> TokenStream {
    let p = paths.private();
    let ty = &param.ty;
    let param_trait = Ident::new(param_trait, ty.span());
    quote_spanned!(ty.span()=> <#ty as #p::#param_trait>::#item)
}
