//! The one place that spells the runtime's path: everything generated goes through it.

use proc_macro2::TokenStream;
use quote::quote;

/// `::mcp::__private`, the hidden module of the facade that re-exports what generated code uses.
pub fn private() -> TokenStream {
    quote!(::mcp::__private)
}

/// The same path as a string, for `#[schemars(crate = "…")]`.
pub const SCHEMARS_CRATE: &str = "::mcp::__private::schemars";
