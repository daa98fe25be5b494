//! Code for a checked [`ResourceFn`]: the function as written, its hidden twin type, and the
//! twin's registration. A parameter named like a template variable is parsed from the URI
//! (`FromTemplateVar`); any other that is not a Resolve parameter goes through its type's
//! `ResourceParam` (templates) or `StaticResourceParam` (static URIs).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;
use syn::spanned::Spanned;

use crate::common::params::{Param, ParamKind};
use crate::common::registration::{
    self, Handler, RESOURCE, Round, completions, state_requirements, through_trait,
};
use crate::common::resolve::resolution;

use super::model::ResourceFn;

pub fn generate(resource: &ResourceFn) -> TokenStream {
    let p = resource.paths.private();
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
    let icons = resource.describe.icons_tokens(&resource.paths);
    let annotations = annotations(resource);
    let size = match &resource.size {
        Some((bytes, _)) => quote!(::core::option::Option::Some(#bytes)),
        None => quote!(::core::option::Option::None),
    };
    let cache = match &resource.cache {
        Some(spec) => {
            let ttl_ms = spec.ttl_ms.unwrap_or_default();
            let scope = match spec.scope.as_ref().map(LitStr::value).as_deref() {
                Some("public") => quote!(#p::CacheScope::Public),
                _ => quote!(#p::CacheScope::Private),
            };
            quote!(::core::option::Option::Some(#p::CacheHint { ttl_ms: #ttl_ms, scope: #scope }))
        }
        None => quote!(::core::option::Option::None),
    };
    let (completers, completions) = completions(&resource.params, &resource.paths);
    let new_entry = resource.describe.with_meta(quote!(entry), &resource.paths);
    let new_entry = resource.policy.apply(new_entry, &resource.paths);
    let ret = &resource.ret;
    // The parameters the runtime fills, each through its type's trait.
    let injected: Vec<&Param> = resource
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Extract && !resource.is_variable(param))
        .collect();
    let (state_items, requires) = state_requirements(
        injected.iter().copied(),
        |param| via_param(resource, param, quote!(STATE)),
        &resource.paths,
    );
    let halt = quote!(::core::result::Result::Err(#p::McpError::internal(__mcp_halt.0)));
    let subject = format!("resource {}", resource.uri.value());
    let resolution = resolution(
        &resource.params,
        &resource.plan,
        &subject,
        &halt,
        &resource.paths,
    );
    // Through traits, so an alias of `Result<_, InputRequiredResult>` is caught too.
    let returns = if resource.is_static() {
        quote_spanned!(ret.span()=> #p::StaticResourceReturn)
    } else if resolution.is_some() {
        quote_spanned!(ret.span()=> #p::ResolvedResourceReturn)
    } else {
        quote_spanned!(ret.span()=> #p::IntoResourceOutcome)
    };
    let into_outcome = quote_spanned!(ret.span()=>
        <#ret as #returns>::into_resource_outcome(
            __mcp_returned, &__mcp_params.uri, #mime_type,
        )
    );
    let round = if resolution.is_some() {
        Round::Always
    } else if resource.is_static() {
        Round::Never
    } else {
        Round::any(
            injected
                .iter()
                .map(|param| via_param(resource, param, quote!(ROUND)))
                .collect(),
        )
    };
    let bindings = resource
        .params
        .iter()
        .map(|param| {
            if param.kind != ParamKind::Extract {
                return quote!();
            }
            let (ident, ty) = (&param.ident, &param.ty);
            let value = if resource.is_variable(param) {
                let variable = param.wire_name();
                quote_spanned! {ty.span()=>
                    <#ty as #p::FromTemplateVar>::from_template_var(
                        &__mcp_variables, #variable, &__mcp_params.uri,
                    )
                }
            } else {
                let from_call = via_param(resource, param, quote!(from_call));
                quote!(#from_call(&__mcp_context))
            };
            quote!(let #ident: #ty = #value?;)
        })
        .collect();
    let handler = Handler {
        item,
        params: &resource.params,
        paths: &resource.paths,
        inputs: vec![
            (
                format_ident!("__mcp_params"),
                quote!(#p::ReadResourceParams),
            ),
            (format_ident!("__mcp_variables"), quote!(#p::TemplateVars)),
        ],
        output: quote!(
            ::core::result::Result<#p::Outcome<#p::ReadResourceResult>, #p::McpError>
        ),
        round,
        prelude: quote!(),
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
            #state_items
            #completers

            #[automatically_derived]
            impl #p::ResourceDef for #ident {
                fn entry() -> #p::ResourceEntry {
                    let info = #p::ResourceInfo {
                        uri: #uri,
                        name: #name,
                        title: #title,
                        description: #description,
                        mime_type: #mime_type,
                        annotations: #annotations,
                        size: #size,
                        icons: #icons,
                        cache: #cache,
                        completions: #completions,
                        requires: #requires,
                    };
                    // The macro checked the template against the same grammar.
                    match #p::ResourceEntry::new(info, __mcp_call) {
                        ::core::result::Result::Ok(entry) => #new_entry,
                        ::core::result::Result::Err(error) => ::core::panic!("{}", error),
                    }
                }
            }

            #handler
        };
    }
}

pub fn fallback(resource: &ResourceFn) -> TokenStream {
    registration::fallback(
        &resource.item,
        &RESOURCE,
        &resource.uri.value(),
        &resource.paths,
    )
}

/// `<T as ResourceParam>::ITEM` (or `StaticResourceParam` for a static URI), spanned at the
/// parameter's type.
fn via_param(resource: &ResourceFn, param: &Param, item: TokenStream) -> TokenStream {
    let param_trait = match resource.is_static() {
        true => "StaticResourceParam",
        false => "ResourceParam",
    };
    through_trait(&resource.paths, param_trait, param, item)
}

/// `Option<ResourceAnnotationsInfo>`, a constant.
fn annotations(resource: &ResourceFn) -> TokenStream {
    let p = resource.paths.private();
    let none = quote!(::core::option::Option::None);
    let Some(spec) = &resource.annotations else {
        return none;
    };
    let audience = match &spec.audience {
        Some(roles) => {
            let roles = roles.iter().map(|role| match role.value().as_str() {
                "assistant" => quote!(#p::Role::Assistant),
                _ => quote!(#p::Role::User),
            });
            quote!(::core::option::Option::Some(&[#(#roles),*]))
        }
        None => none.clone(),
    };
    let priority = match spec.priority {
        Some((value, _)) => quote!(::core::option::Option::Some(#value)),
        None => none.clone(),
    };
    let last_modified = match &spec.last_modified {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => none,
    };
    quote! {
        ::core::option::Option::Some(#p::ResourceAnnotationsInfo {
            audience: #audience,
            priority: #priority,
            last_modified: #last_modified,
        })
    }
}
