//! Code for a checked [`ResourceFn`]: the function as written, its hidden twin type, and the
//! twin's registration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::params::{ParamKind, state_requirements};
use crate::common::paths::private;
use crate::common::registration::{self, RESOURCE};
use crate::common::resolve::{Plan, resolving};

use super::model::ResourceFn;

pub fn generate(resource: &ResourceFn, plan: &Plan) -> TokenStream {
    let p = private();
    let item = &resource.item;
    let ident = &item.sig.ident;
    let twin = registration::twin(&resource.item, &RESOURCE, &resource.uri.value());
    let uri = &resource.uri;
    let name = &resource.name;
    let option = |value: &Option<String>| match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let title = option(&resource.title);
    let mime_type = option(&resource.mime_type);
    let description = resource.description.to_option_tokens();
    let ret = &resource.ret;
    let halt = quote!(::core::result::Result::Err(#p::McpError::internal(__mcp_halt.0)));
    let subject = format!("resource {}", resource.uri.value());
    let resolving = resolving(
        &resource.params,
        plan,
        &subject,
        ret,
        "IntoResourceOutcome",
        &halt,
    );
    let (resolution, ask_guard) = resolving.unzip();
    // Through the real type, so an alias of `Result<_, InputRequiredResult>` is caught too.
    let static_guard = resource.is_static().then(|| {
        quote_spanned! {ret.span()=>
            const _: () = ::core::assert!(
                !<#ret as #p::IntoResourceOutcome>::CAN_ASK,
                "a static resource must not return InputRequiredResult: only resource \
                 templates (URIs with {{variables}}) may ask the client",
            );
        }
    });
    let requires = state_requirements(&resource.params);
    let into_outcome = quote_spanned!(ret.span()=>
        <#ret as #p::IntoResourceOutcome>::into_resource_outcome(
            __mcp_returned, &__mcp_params.uri, #mime_type,
        )
    );
    let call_body = registration::call_body(
        item,
        &resource.params,
        quote!(),
        |param| {
            let (ident, ty) = (&param.ident, &param.ty);
            let ParamKind::Argument { wire_name, .. } = &param.kind else {
                return quote!();
            };
            quote_spanned! {ty.span()=>
                let #ident: #ty = <#ty as #p::FromTemplateVar>::from_template_var(
                    &__mcp_variables, #wire_name, &__mcp_params.uri,
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
            #static_guard

            #[automatically_derived]
            impl #p::ResourceDef for #ident {
                fn entry() -> #p::ResourceEntry {
                    let info = #p::ResourceInfo {
                        uri: #uri,
                        name: #name,
                        title: #title,
                        description: #description,
                        mime_type: #mime_type,
                        requires: #requires,
                    };
                    // The macro checked the template against the same grammar.
                    match #p::ResourceEntry::new(info, __mcp_call) {
                        ::core::result::Result::Ok(entry) => entry,
                        ::core::result::Result::Err(error) => ::core::panic!("{}", error),
                    }
                }
            }

            #[allow(unused_variables)]
            fn __mcp_call(
                __mcp_context: #p::RequestContext,
                __mcp_params: #p::ReadResourceParams,
                __mcp_variables: #p::TemplateVars,
            ) -> #p::BoxFuture<
                ::core::result::Result<#p::Outcome<#p::ReadResourceResult>, #p::McpError>,
            > {
                #call_body
            }
        };
    }
}

pub fn fallback(resource: &ResourceFn) -> TokenStream {
    registration::fallback(&resource.item, &RESOURCE, &resource.uri.value())
}
