//! `#[mcp::tool]`: parse → check → generate.

mod check;
mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;
use quote::quote;

use crate::common::errors::Errors;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            // Not a function: say so and leave the item as it was.
            let error = syn::Error::new(e.span(), "`#[mcp::tool]` goes on an `async fn`");
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::default();
    let tool = parse::parse(attr, item, &mut errors);
    check::check(&tool, &mut errors);
    let plan = crate::common::resolve::plan(&tool.params, &mut errors);
    if errors.is_empty() {
        generate::generate(&tool, &plan)
    } else {
        let compile_errors = errors.to_compile_errors();
        let fallback = generate::fallback(&tool);
        quote!(#compile_errors #fallback)
    }
}
