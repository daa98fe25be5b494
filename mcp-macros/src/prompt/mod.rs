//! `#[mcp::prompt]`: parse → check → generate.

mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;
use quote::quote;

use crate::common::errors::Errors;
use crate::common::signature::{check_resolve, check_signature};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let error = syn::Error::new(e.span(), "`#[mcp::prompt]` goes on an `async fn`");
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::default();
    let prompt = parse::parse(attr, item, &mut errors);
    check_signature(&prompt.item.sig, &prompt.params, "prompt", &mut errors);
    check_resolve(&prompt.params, &prompt.ret, &mut errors);
    if prompt.name.0.is_empty() {
        errors.push(syn::Error::new(
            prompt.name.1,
            "a prompt name cannot be empty",
        ));
    }
    let plan = crate::common::resolve::plan(&prompt.params, &mut errors);
    if errors.is_empty() {
        generate::generate(&prompt, &plan)
    } else {
        let compile_errors = errors.to_compile_errors();
        let fallback = generate::fallback(&prompt);
        quote!(#compile_errors #fallback)
    }
}
