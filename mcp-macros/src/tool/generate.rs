//! Code for a checked [`ToolFn`]: the function as written, a hidden twin type named like it
//! (in the type namespace, so `mcp::tools![f]` finds it), and the twin's registration.
//!
//! Each parameter that is not a Resolve parameter goes through its type's `ToolParam`: an
//! argument is decoded from the call and described in the input schema, the request context
//! and shared state are filled by the runtime and left out of the schema. A parameter with
//! `#[mcp(default | rename | header)]` must be an argument and goes through `ToolArgument` (or
//! `DefaultArgument`), whose error says so.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::params::{Param, ParamKind};
use crate::common::registration::{self, Handler, Round, TOOL, state_requirements, through_trait};
use crate::common::resolve::resolution;

use super::model::{TaskSupport, ToolFn};

/// Everything, for a tool without errors.
pub fn generate(tool: &ToolFn) -> TokenStream {
    let p = tool.paths.private();
    let item = &tool.item;
    let twin = registration::twin(&tool.item, &TOOL, &tool.name.0);
    let ident = &tool.item.sig.ident;
    let ret = &tool.ret;
    let schemars_crate = tool.paths.schemars_crate();
    let extract: Vec<(usize, &Param)> = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| param.kind == ParamKind::Extract)
        .collect();
    let (schema_params, schema_fields, default_fns) = schema_fields(tool, &extract);
    let keep_arguments = keep_arguments(tool, &extract);
    let transform = keep_arguments
        .as_ref()
        .map(|_| quote!(#[schemars(transform = __mcp_keep_arguments)]));
    let (state_items, requires) = state_requirements(
        extract.iter().map(|(_, param)| *param),
        |param| via_param(tool, param, quote!(STATE)),
        &tool.paths,
    );
    let info = info(tool, &requires);
    // With Resolve parameters the return type also must not ask; the trait says so, through
    // type aliases too.
    let returns = if tool.plan.steps.is_empty() {
        quote_spanned!(ret.span()=> #p::IntoToolOutcome)
    } else {
        quote_spanned!(ret.span()=> #p::ResolvedToolReturn)
    };
    let output_schema = quote_spanned!(ret.span()=> <#ret as #returns>::output_schema);
    let into_outcome = quote_spanned!(ret.span()=>
        <#ret as #returns>::into_tool_outcome(__mcp_returned)
    );
    let halt = quote!(::core::result::Result::Ok(#p::Outcome::Complete(
        #p::CallToolResult::error(__mcp_halt.0)
    )));
    let subject = format!("tool `{}`", tool.name.0);
    let resolution = resolution(&tool.params, &tool.plan, &subject, &halt, &tool.paths);
    let round = if resolution.is_some() {
        Round::Always
    } else {
        Round::any(
            extract
                .iter()
                .filter(|(_, param)| !param.attrs.marks_argument())
                .map(|(_, param)| via_param(tool, param, quote!(ROUND)))
                .collect(),
        )
    };
    let prelude = quote! {
        #[allow(unused_mut, unused_variables)]
        let mut __mcp_arguments = __mcp_params.arguments.unwrap_or_default();
    };
    let handler = Handler {
        item,
        params: &tool.params,
        paths: &tool.paths,
        inputs: vec![(format_ident!("__mcp_params"), quote!(#p::CallToolParams))],
        output: quote!(::core::result::Result<#p::Outcome<#p::CallToolResult>, #p::McpError>),
        round,
        prelude,
        bindings: tool
            .params
            .iter()
            .enumerate()
            .map(|(index, param)| binding(tool, index, param))
            .collect(),
        resolution,
        before_call: before_call(tool),
        outcome: into_outcome,
    }
    .generate();
    let arguments_type = arguments_type(tool, &extract);
    let entry = tool.describe.with_meta(
        quote! {
            #p::ToolEntry::new(
                #info,
                #p::input_schema::<#arguments_type>,
                #output_schema,
                __mcp_call,
            )
        },
        &tool.paths,
    );
    let entry = tool.policy.apply(entry, &tool.paths);
    quote! {
        #item
        #twin
        const _: () = {
            #[derive(#p::schemars::JsonSchema)]
            #[schemars(crate = #schemars_crate)]
            #transform
            #[allow(dead_code, non_camel_case_types, non_snake_case)]
            struct __McpToolArguments<#(#schema_params),*> {
                #(#schema_fields)*
            }
            #(#default_fns)*
            #keep_arguments
            #state_items

            #[automatically_derived]
            impl #p::ToolDef for #ident {
                fn entry() -> #p::ToolEntry {
                    #entry
                }
            }

            #handler
        };
    }
}

pub fn fallback(tool: &ToolFn) -> TokenStream {
    registration::fallback(&tool.item, &TOOL, &tool.name.0, &tool.paths)
}

/// `<T as ToolParam>::ITEM`, spanned at the parameter's type so a type that is no tool parameter
/// is reported there (once: every use is the same error at the same tokens).
fn via_param(tool: &ToolFn, param: &Param, item: TokenStream) -> TokenStream {
    through_trait(&tool.paths, "ToolParam", param, item)
}

fn info(tool: &ToolFn, requires: &TokenStream) -> TokenStream {
    let p = tool.paths.private();
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
    let icons = tool.describe.icons_tokens(&tool.paths);
    // A `task` value that names nothing is a compile error; nothing is generated for it.
    let task = format_ident!(
        "{}",
        tool.tasks
            .support()
            .unwrap_or(TaskSupport::Forbidden)
            .variant()
    );
    let ask_before_task = tool.tasks.ask_before_task.is_some();
    quote! {
        #p::ToolInfo {
            name: #name,
            title: #title,
            description: #description,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            icons: #icons,
            requires: #requires,
            task: #p::TaskSupport::#task,
            ask_before_task: #ask_before_task,
        }
    }
}

/// For a tool that asks before its task: the point where every Resolve parameter is answered
/// and the body is about to run, where the tasks runtime makes the task.
fn before_call(tool: &ToolFn) -> TokenStream {
    if tool.tasks.ask_before_task.is_some() {
        quote!(__mcp_context.enter_task_body().await;)
    } else {
        quote!()
    }
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// The schema struct's type parameters and fields (one per parameter that may be an argument,
/// with its doc comments), and the functions that give missing arguments their `default`
/// values (for the schema and the call alike). The struct is generic, so it is well-formed
/// whatever its parameters' types: [`arguments_type`] fills each field with the parameter's
/// `ToolParamSchema::Schema` (the argument's type, or a placeholder that [`keep_arguments`]
/// removes) where it is used, and a type that is no argument is reported there, once. Fields
/// are named by position: wire names are any strings, and two that differ only in punctuation
/// (`a-b`, `a_b`) are still two arguments.
fn schema_fields(
    tool: &ToolFn,
    extract: &[(usize, &Param)],
) -> (Vec<Ident>, Vec<TokenStream>, Vec<TokenStream>) {
    let p = tool.paths.private();
    let mut params = Vec::new();
    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    for (index, param) in extract {
        let wire_name = param.wire_name();
        let header_attr = param
            .attrs
            .header
            .get()
            .map(|name| quote!(#[schemars(extend("x-mcp-header" = #name))]));
        let field = format_ident!("__mcp_arg{index}");
        let field_ty = format_ident!("__McpArg{index}");
        let ty = &param.ty;
        let default_attr = param.attrs.default.get().map(|default| {
            let function = default_fn(*index);
            let path = function.to_string();
            // `DefaultArgument` asks for `Serialize` itself; a value given here must be shown
            // in the schema all the same.
            let value = match default {
                Some(expr) => {
                    let shown = quote_spanned!(ty.span()=> #p::shown_in_schema::<#ty>);
                    quote!(#shown(#expr))
                }
                None => quote_spanned!(ty.span()=> <#ty as #p::DefaultArgument>::default_value()),
            };
            default_fns.push(quote!(fn #function() -> #ty { #value }));
            quote!(#[schemars(default = #path)])
        });
        let docs = &param.docs;
        fields.push(quote! {
            #(#docs)*
            #[schemars(rename = #wire_name)]
            #default_attr
            #header_attr
            #field: #field_ty,
        });
        params.push(field_ty);
    }
    (params, fields, default_fns)
}

/// The function giving the default of the parameter at `index`.
fn default_fn(index: usize) -> Ident {
    format_ident!("__mcp_arg{index}_default")
}

/// `__McpToolArguments<…>` with each parameter's `ToolParamSchema::Schema`, spanned at its type.
fn arguments_type(tool: &ToolFn, extract: &[(usize, &Param)]) -> TokenStream {
    let p = tool.paths.private();
    let schemas = extract.iter().map(|(_, param)| {
        let ty = &param.ty;
        quote_spanned!(ty.span()=> <#ty as #p::ToolParamSchema>::Schema)
    });
    quote!(__McpToolArguments<#(#schemas),*>)
}

/// The schema transform that drops the properties of parameters the runtime fills; `None` when
/// every candidate is an argument by its attributes.
fn keep_arguments(tool: &ToolFn, extract: &[(usize, &Param)]) -> Option<TokenStream> {
    let p = tool.paths.private();
    if extract
        .iter()
        .all(|(_, param)| param.attrs.marks_argument())
    {
        return None;
    }
    let entries = extract.iter().map(|(_, param)| {
        let wire_name = param.wire_name();
        let argument = if param.attrs.marks_argument() {
            quote!(true)
        } else {
            via_param(tool, param, quote!(ARGUMENT))
        };
        quote!((#wire_name, #argument))
    });
    Some(quote! {
        fn __mcp_keep_arguments(schema: &mut #p::schemars::Schema) {
            #p::keep_arguments(schema, &[#(#entries),*]);
        }
    })
}

/// The `let` binding of one parameter (empty for a Resolve parameter): decoded from the call's
/// arguments or filled by the runtime; a bad argument answers with an error result naming it.
fn binding(tool: &ToolFn, index: usize, param: &Param) -> TokenStream {
    if param.kind != ParamKind::Extract {
        return quote!();
    }
    let p = tool.paths.private();
    let tool_name = &tool.name.0;
    let ident = &param.ident;
    let ty = &param.ty;
    let wire_name = param.wire_name();
    let value = if !param.attrs.marks_argument() {
        quote_spanned! {ty.span()=>
            <#ty as #p::ToolParam>::from_call(
                &__mcp_context, &mut __mcp_arguments, #tool_name, #wire_name,
            )
        }
    } else {
        match param.attrs.default.get() {
            None => quote_spanned! {ty.span()=>
                <#ty as #p::ToolArgument>::take(&mut __mcp_arguments, #tool_name, #wire_name)
            },
            Some(None) => quote_spanned! {ty.span()=>
                <#ty as #p::DefaultArgument>::take_or_default(
                    &mut __mcp_arguments, #tool_name, #wire_name,
                )
            },
            Some(Some(_)) => {
                let default = default_fn(index);
                quote_spanned! {ty.span()=>
                    <#ty as #p::ToolArgument>::take_or(
                        &mut __mcp_arguments, #tool_name, #wire_name, #default,
                    )
                }
            }
        }
    };
    quote! {
        let #ident: #ty = match #value {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(error) => return error.into_tool_answer(),
        };
    }
}
