//! Code for a checked [`Elicitation`]: `Elicitation` for a form, `ElicitationEnum` and
//! `ElicitationField` for a choice; on errors, placeholder impls of the same traits so uses of
//! the type (`Elicit<Form>`, a choice as a field) report nothing more.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::docs::Docs;
use crate::common::paths::Paths;

use super::model::{Body, Choice, Elicitation, Form};

pub fn generate(model: &Elicitation) -> TokenStream {
    match &model.body {
        Body::Form(form) => generate_form(model, form),
        Body::Choice(choice) => generate_choice(model, choice),
        // The checks reported the shape; `finish` never generates from it.
        Body::Other => quote!(),
    }
}

/// Placeholder impls for a type with errors. A generic type gets none: its impls would need
/// bounds the derive cannot know, and it is an error anyway.
pub fn fallback(model: &Elicitation) -> TokenStream {
    if !model.generics.params.is_empty() {
        return quote!();
    }
    let p = model.paths.private();
    let ident = &model.ident;
    match &model.body {
        Body::Form(_) => quote! {
            impl #p::Elicitation for #ident {
                const MESSAGE: &'static str = "";

                fn requested_schema() -> #p::serde_json::Value {
                    ::core::unreachable!()
                }
            }
        },
        Body::Choice(_) => choice_impls(&model.paths, ident, quote!(&[])),
        Body::Other => quote!(),
    }
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

fn generate_form(model: &Elicitation, form: &Form) -> TokenStream {
    let p = model.paths.private();
    let ident = &model.ident;
    let message = match &form.message {
        Docs::Text(text) => quote!(#text),
        Docs::Exprs(exprs) => quote!(::core::concat!(#(#exprs, "\n"),*)),
        Docs::None => quote!(""),
    };
    let fields = form.fields.iter().map(|field| {
        let name = &field.name;
        let ty = &field.ty;
        let title = option_str(field.title.as_deref());
        let description = field.description.to_option_tokens();
        let format = option_str(field.format.as_ref().map(|f| f.value()).as_deref());
        let default = match &field.default {
            Some(lit) => quote!(::core::option::Option::Some(#p::serde_json::json!(#lit))),
            None => quote!(::core::option::Option::None),
        };
        let has_default = field.default.is_some();
        quote_spanned! {ty.span()=>
            (
                #name,
                <#ty as #p::ElicitationField>::field_schema(#p::FieldInfo {
                    title: #title,
                    description: #description,
                    default: #default,
                    format: #format,
                }),
                <#ty as #p::ElicitationField>::REQUIRED && !#has_default,
            )
        }
    });
    quote! {
        #[automatically_derived]
        impl #p::Elicitation for #ident {
            const MESSAGE: &'static str = #message;

            fn requested_schema() -> #p::serde_json::Value {
                #p::form_schema(&[#(#fields),*])
            }
        }
    }
}

fn generate_choice(model: &Elicitation, choice: &Choice) -> TokenStream {
    let p = model.paths.private();
    let choices = choice.variants.iter().map(|v| {
        let value = &v.value;
        let title = option_str(v.title.as_deref());
        quote!(#p::EnumChoice { value: #value, title: #title })
    });
    choice_impls(&model.paths, &model.ident, quote!(&[#(#choices),*]))
}

fn choice_impls(paths: &Paths, ident: &syn::Ident, choices: TokenStream) -> TokenStream {
    let p = paths.private();
    quote! {
        #[automatically_derived]
        impl #p::ElicitationEnum for #ident {
            const CHOICES: &'static [#p::EnumChoice] = #choices;
        }

        #[automatically_derived]
        impl #p::ElicitationField for #ident {
            fn field_schema(info: #p::FieldInfo) -> #p::serde_json::Value {
                #p::enum_schema::<Self>(info)
            }
        }
    }
}
