//! `#[mcp::resource("uri")]`: parse → check → generate.

mod check;
mod generate;
mod model;
mod parse;
mod template;

use proc_macro2::TokenStream;
use quote::quote;

use crate::common::errors::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let error = syn::Error::new(e.span(), "`#[mcp::resource]` goes on an `async fn`");
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::default();
    let Some(resource) = parse::parse(attr, item.clone(), &mut errors) else {
        let compile_errors = errors.to_compile_errors();
        return quote!(#compile_errors #item);
    };
    check::check(&resource, &mut errors);
    let plan = crate::common::resolve::plan(&resource.params, &mut errors);
    if errors.is_empty() {
        generate::generate(&resource, &plan)
    } else {
        let compile_errors = errors.to_compile_errors();
        let fallback = generate::fallback(&resource);
        quote!(#compile_errors #fallback)
    }
}
