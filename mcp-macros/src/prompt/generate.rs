//! Code for a checked [`PromptFn`]: the function as written, its hidden twin type, and the
//! twin's registration. Each parameter that is not a Resolve parameter goes through its type's
//! `PromptParam` (an argument, the request context, shared state); a renamed one must be an
//! argument and goes through `PromptArgumentType`. Both traits carry a marker type parameter that
//! tells their impls apart, left for the compiler to infer (`PromptParam<_>`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::docs::Docs;
use crate::common::params::{Param, ParamKind};
use crate::common::registration::{self, Handler, PROMPT, Round, completions, state_requirements};
use crate::common::resolve::resolution;

use super::model::PromptFn;

pub fn generate(prompt: &PromptFn) -> TokenStream {
    let p = prompt.paths.private();
    let item = &prompt.item;
    let ident = &item.sig.ident;
    let twin = registration::twin(&prompt.item, &PROMPT, &prompt.name.0);
    let name = &prompt.name.0;
    let title = match &prompt.title {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let description = prompt.description.to_option_tokens();
    let ret = &prompt.ret;
    let extract: Vec<&Param> = prompt
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Extract)
        .collect();
    let arguments = extract.iter().map(|param| {
        let ty = &param.ty;
        let wire_name = param.wire_name();
        let docs = Docs::from_attrs(&param.docs).to_option_tokens();
        let title = match param.attrs.title.get() {
            Some(title) => quote!(::core::option::Option::Some(#title)),
            None => quote!(::core::option::Option::None),
        };
        let info = |required: TokenStream| {
            quote! {
                ::core::option::Option::Some(#p::PromptArgumentInfo {
                    name: #wire_name,
                    title: #title,
                    description: #docs,
                    required: #required,
                })
            }
        };
        if param.attrs.marks_argument() {
            info(quote_spanned!(ty.span()=> <#ty as #p::PromptArgumentType<_>>::REQUIRED))
        } else {
            let listed = info(quote!(required));
            let argument = via_param(prompt, param, quote!(ARGUMENT));
            quote! {
                match #argument {
                    ::core::option::Option::Some(required) => #listed,
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            }
        }
    });
    let count = extract.len();
    let (state_items, requires) = state_requirements(
        extract.iter().copied(),
        |param| via_param(prompt, param, quote!(STATE)),
        &prompt.paths,
    );
    let halt = quote!(::core::result::Result::Err(#p::McpError::internal(__mcp_halt.0)));
    let subject = format!("prompt `{}`", prompt.name.0);
    let resolution = resolution(&prompt.params, &prompt.plan, &subject, &halt, &prompt.paths);
    let returns = if resolution.is_some() {
        quote_spanned!(ret.span()=> #p::ResolvedPromptReturn)
    } else {
        quote_spanned!(ret.span()=> #p::IntoPromptOutcome)
    };
    let into_outcome = quote_spanned!(ret.span()=>
        <#ret as #returns>::into_prompt_outcome(__mcp_returned, #name)
    );
    let round = if resolution.is_some() {
        Round::Always
    } else {
        Round::any(
            extract
                .iter()
                .filter(|param| !param.attrs.marks_argument())
                .map(|param| via_param(prompt, param, quote!(ROUND)))
                .collect(),
        )
    };
    let prelude = quote! {
        #[allow(unused_mut, unused_variables)]
        let mut __mcp_arguments = __mcp_params.arguments.unwrap_or_default();
    };
    let bindings = prompt
        .params
        .iter()
        .map(|param| {
            if param.kind != ParamKind::Extract {
                return quote!();
            }
            let (ident, ty) = (&param.ident, &param.ty);
            let wire_name = param.wire_name();
            let value = if param.attrs.marks_argument() {
                quote_spanned! {ty.span()=>
                    <#ty as #p::PromptArgumentType<_>>::take(&mut __mcp_arguments, #name, #wire_name)
                }
            } else {
                quote_spanned! {ty.span()=>
                    <#ty as #p::PromptParam<_>>::from_call(
                        &__mcp_context, &mut __mcp_arguments, #name, #wire_name,
                    )
                }
            };
            quote!(let #ident: #ty = #value?;)
        })
        .collect();
    let icons = prompt.describe.icons_tokens(&prompt.paths);
    let (completers, completions) = completions(&prompt.params, &prompt.paths);
    let entry = prompt.describe.with_meta(
        quote! {
            #p::PromptEntry::new(
                #p::PromptInfo {
                    name: #name,
                    title: #title,
                    description: #description,
                    arguments: &__MCP_ARGUMENTS,
                    icons: #icons,
                    completions: #completions,
                    requires: #requires,
                },
                __mcp_call,
            )
        },
        &prompt.paths,
    );
    let entry = prompt.policy.apply(entry, &prompt.paths);
    let handler = Handler {
        item,
        params: &prompt.params,
        paths: &prompt.paths,
        inputs: vec![(format_ident!("__mcp_params"), quote!(#p::GetPromptParams))],
        output: quote!(::core::result::Result<#p::Outcome<#p::GetPromptResult>, #p::McpError>),
        round,
        prelude,
        bindings,
        resolution,
        before_call: quote!(),
        outcome: into_outcome,
    }
    .generate();
    quote! {
        #item
        #twin
        const _: () = {
            const __MCP_ALL_ARGUMENTS: [::core::option::Option<#p::PromptArgumentInfo>; #count] =
                [#(#arguments),*];
            const __MCP_ARGUMENTS: [#p::PromptArgumentInfo; #p::count_some(&__MCP_ALL_ARGUMENTS)] =
                #p::compact(
                    &__MCP_ALL_ARGUMENTS,
                    #p::PromptArgumentInfo {
                        name: "",
                        title: ::core::option::Option::None,
                        description: ::core::option::Option::None,
                        required: false,
                    },
                );
            #state_items
            #completers

            #[automatically_derived]
            impl #p::PromptDef for #ident {
                fn entry() -> #p::PromptEntry {
                    #entry
                }
            }

            #handler
        };
    }
}

pub fn fallback(prompt: &PromptFn) -> TokenStream {
    registration::fallback(&prompt.item, &PROMPT, &prompt.name.0, &prompt.paths)
}

/// `<T as PromptParam<_>>::ITEM`, spanned at the parameter's type.
fn via_param(prompt: &PromptFn, param: &Param, item: TokenStream) -> TokenStream {
    let p = prompt.paths.private();
    let ty = &param.ty;
    quote_spanned!(ty.span()=> <#ty as #p::PromptParam<_>>::#item)
}
