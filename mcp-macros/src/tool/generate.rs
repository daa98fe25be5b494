//! Code for a checked [`ToolFn`]: the function as written, a hidden twin type named like it
//! (in the type namespace, so `mcp::tools![f]` finds it), and the twin's registration.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::paths::{SCHEMARS_CRATE, private};
use crate::common::registration::{self, TOOL};

use crate::common::params::{ArgDefault, Param, ParamKind, state_requirements};
use crate::common::resolve::{Plan, resolving};

use super::model::ToolFn;

/// Everything, for a tool without errors.
pub fn generate(tool: &ToolFn, plan: &Plan) -> TokenStream {
    let p = private();
    let item = &tool.item;
    let twin = registration::twin(&tool.item, &TOOL, &tool.name.0);
    let ident = &tool.item.sig.ident;
    let ret = &tool.ret;
    let info = info(tool);
    let (schema_fields, default_fns) = schema_fields(tool);
    let output_schema = quote_spanned!(ret.span()=>
        <#ret as #p::IntoToolOutcome>::output_schema
    );
    let into_outcome = quote_spanned!(ret.span()=>
        <#ret as #p::IntoToolOutcome>::into_tool_outcome(__mcp_returned)
    );
    let halt = quote!(::core::result::Result::Ok(#p::Outcome::Complete(
        #p::CallToolResult::error(__mcp_halt.0)
    )));
    let subject = format!("tool `{}`", tool.name.0);
    let resolving = resolving(&tool.params, plan, &subject, ret, "IntoToolOutcome", &halt);
    let (resolution, guard) = resolving.unzip();
    let prelude = quote! {
        #[allow(unused_mut, unused_variables)]
        let mut __mcp_arguments = __mcp_params.arguments.unwrap_or_default();
    };
    let call_body = registration::call_body(
        item,
        &tool.params,
        prelude,
        |param| argument_binding(tool, param),
        resolution,
        into_outcome,
    );
    quote! {
        #item
        #twin
        const _: () = {
            #guard

            #[derive(#p::schemars::JsonSchema)]
            #[schemars(crate = #SCHEMARS_CRATE)]
            #[allow(dead_code, non_camel_case_types, non_snake_case)]
            struct __McpToolArguments {
                #(#schema_fields)*
            }
            #(#default_fns)*

            #[automatically_derived]
            impl #p::ToolDef for #ident {
                fn entry() -> #p::ToolEntry {
                    #p::ToolEntry::new(
                        #info,
                        #p::input_schema::<__McpToolArguments>,
                        #output_schema,
                        __mcp_call,
                    )
                }
            }

            fn __mcp_call(
                __mcp_context: #p::RequestContext,
                __mcp_params: #p::CallToolParams,
            ) -> #p::BoxFuture<
                ::core::result::Result<#p::Outcome<#p::CallToolResult>, #p::McpError>,
            > {
                #call_body
            }
        };
    }
}

pub fn fallback(tool: &ToolFn) -> TokenStream {
    registration::fallback(&tool.item, &TOOL, &tool.name.0)
}

fn info(tool: &ToolFn) -> TokenStream {
    let p = private();
    let name = &tool.name.0;
    let title = option_str(tool.title.as_deref());
    let description = tool.description.to_option_tokens();
    let hint = |h: Option<bool>| match h {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    let read_only = hint(tool.hints.read_only);
    let destructive = hint(tool.hints.destructive);
    let idempotent = hint(tool.hints.idempotent);
    let open_world = hint(tool.hints.open_world);
    let requires = state_requirements(&tool.params);
    quote! {
        #p::ToolInfo {
            name: #name,
            title: #title,
            description: #description,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            requires: #requires,
        }
    }
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// The schema struct's fields (one per argument, with its doc comments), and the functions
/// that give the schema its `default` values.
fn schema_fields(tool: &ToolFn) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    for param in &tool.params {
        let ParamKind::Argument {
            wire_name,
            docs,
            default,
            header,
        } = &param.kind
        else {
            continue;
        };
        let header_attr = header
            .as_ref()
            .map(|name| quote!(#[schemars(extend("x-mcp-header" = #name))]));
        let field = format_ident!("{}", wire_name_ident(wire_name));
        let ty = &param.ty;
        let default_attr = match default {
            None => quote!(),
            Some(ArgDefault::Trait) => quote!(#[schemars(default)]),
            Some(ArgDefault::Expr(expr)) => {
                let function = format_ident!("{}_default", wire_name_ident(wire_name));
                let path = function.to_string();
                default_fns.push(quote!(fn #function() -> #ty { #expr }));
                quote!(#[schemars(default = #path)])
            }
        };
        fields.push(quote! {
            #(#docs)*
            #[schemars(rename = #wire_name)]
            #default_attr
            #header_attr
            #field: #ty,
        });
    }
    (fields, default_fns)
}

/// A field name for the schema struct; the wire name is set by `rename`, so any valid
/// identifier works.
fn wire_name_ident(wire_name: &str) -> String {
    let cleaned: String = wire_name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("__mcp_{cleaned}")
}

/// The `let` binding of one argument: taken from the call's arguments, or the call answers
/// with an error result naming it.
fn argument_binding(tool: &ToolFn, param: &Param) -> TokenStream {
    let p = private();
    let tool_name = &tool.name.0;
    let ident = &param.ident;
    let ty = &param.ty;
    let ParamKind::Argument {
        wire_name, default, ..
    } = &param.kind
    else {
        return quote!();
    };
    let take = match default {
        None => quote_spanned!(ty.span()=>
            #p::take_arg::<#ty>(&mut __mcp_arguments, #tool_name, #wire_name)
        ),
        Some(ArgDefault::Trait) => quote_spanned!(ty.span()=>
            #p::take_arg_or::<#ty>(
                &mut __mcp_arguments, #tool_name, #wire_name,
                ::core::default::Default::default,
            )
        ),
        Some(ArgDefault::Expr(expr)) => quote_spanned!(ty.span()=>
            #p::take_arg_or::<#ty>(
                &mut __mcp_arguments, #tool_name, #wire_name, || #expr,
            )
        ),
    };
    quote! {
        let #ident: #ty = match #take {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(invalid) => {
                return ::core::result::Result::Ok(
                    #p::Outcome::Complete(invalid.into_result()),
                );
            }
        };
    }
}
