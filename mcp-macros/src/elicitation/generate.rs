//! Code for a checked [`Model`]: `Elicitation` for a form, `ElicitationEnum` and
//! `ElicitationField` for a choice.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::common::docs::Docs;
use crate::common::paths::private;

use super::model::{Choice, Form, Model};

pub fn generate(model: &Model) -> TokenStream {
    match model {
        Model::Form(form) => generate_form(form),
        Model::Choice(choice) => generate_choice(choice),
    }
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

fn generate_form(form: &Form) -> TokenStream {
    let p = private();
    let ident = &form.ident;
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
        let format = option_str(field.format.as_deref());
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

fn generate_choice(choice: &Choice) -> TokenStream {
    let p = private();
    let ident = &choice.ident;
    let choices = choice.variants.iter().map(|v| {
        let value = &v.value;
        let title = option_str(v.title.as_deref());
        quote!(#p::EnumChoice { value: #value, title: #title })
    });
    quote! {
        #[automatically_derived]
        impl #p::ElicitationEnum for #ident {
            const CHOICES: &'static [#p::EnumChoice] = &[#(#choices),*];
        }

        #[automatically_derived]
        impl #p::ElicitationField for #ident {
            fn field_schema(info: #p::FieldInfo) -> #p::serde_json::Value {
                #p::enum_schema::<Self>(info)
            }
        }
    }
}
