//! Code for a checked [`PromptFn`]: the function as written, its hidden twin type, and the
//! twin's registration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::docs::Docs;
use crate::common::params::{ParamKind, state_requirements};
use crate::common::paths::private;
use crate::common::registration::{self, PROMPT};
use crate::common::resolve::{Plan, resolving};

use super::model::PromptFn;

pub fn generate(prompt: &PromptFn, plan: &Plan) -> TokenStream {
    let p = private();
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
    let arguments = prompt.params.iter().filter_map(|param| {
        let ParamKind::Argument {
            wire_name, docs, ..
        } = &param.kind
        else {
            return None;
        };
        let ty = &param.ty;
        let docs = Docs::from_attrs(docs).to_option_tokens();
        Some(quote_spanned! {ty.span()=>
            #p::PromptArgumentInfo {
                name: #wire_name,
                description: #docs,
                required: <#ty as #p::PromptArgumentType>::REQUIRED,
            }
        })
    });
    let halt = quote!(::core::result::Result::Err(#p::McpError::internal(__mcp_halt.0)));
    let subject = format!("prompt `{}`", prompt.name.0);
    let resolving = resolving(
        &prompt.params,
        plan,
        &subject,
        ret,
        "IntoPromptOutcome",
        &halt,
    );
    let (resolution, ask_guard) = resolving.unzip();
    let requires = state_requirements(&prompt.params);
    let into_outcome = quote_spanned!(ret.span()=>
        <#ret as #p::IntoPromptOutcome>::into_prompt_outcome(__mcp_returned, #name)
    );
    let prelude = quote! {
        #[allow(unused_mut, unused_variables)]
        let mut __mcp_arguments = __mcp_params.arguments.unwrap_or_default();
    };
    let call_body = registration::call_body(
        item,
        &prompt.params,
        prelude,
        |param| {
            let (ident, ty) = (&param.ident, &param.ty);
            let ParamKind::Argument { wire_name, .. } = &param.kind else {
                return quote!();
            };
            quote_spanned! {ty.span()=>
                let #ident: #ty = <#ty as #p::PromptArgumentType>::take(
                    &mut __mcp_arguments, #name, #wire_name,
                )?;
            }
        },
        resolution,
        into_outcome,
    );
    quote! {
        #item
        #twin
        const _: () = {
            #ask_guard
            const __MCP_ARGUMENTS: &[#p::PromptArgumentInfo] = &[#(#arguments),*];

            #[automatically_derived]
            impl #p::PromptDef for #ident {
                fn entry() -> #p::PromptEntry {
                    #p::PromptEntry::new(
                        #p::PromptInfo {
                            name: #name,
                            title: #title,
                            description: #description,
                            arguments: __MCP_ARGUMENTS,
                            requires: #requires,
                        },
                        __mcp_call,
                    )
                }
            }

            fn __mcp_call(
                __mcp_context: #p::RequestContext,
                __mcp_params: #p::GetPromptParams,
            ) -> #p::BoxFuture<
                ::core::result::Result<#p::Outcome<#p::GetPromptResult>, #p::McpError>,
            > {
                #call_body
            }
        };
    }
}

pub fn fallback(prompt: &PromptFn) -> TokenStream {
    registration::fallback(&prompt.item, &PROMPT, &prompt.name.0)
}
