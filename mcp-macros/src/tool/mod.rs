//! `#[mcp::tool]`: parse → model → check → generate.

mod check;
mod generate;
mod model;
mod parse;

use proc_macro2::TokenStream;

use crate::common::errors::Errors;
use crate::common::registration::{TOOL, finish, parse_fn};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    let Some(function) = parse_fn(item.clone(), &TOOL, &mut errors) else {
        return finish(errors, TokenStream::new, || item);
    };
    let tool = parse::parse(attr, function, &mut errors);
    check::check(&tool, &mut errors);
    finish(
        errors,
        || generate::generate(&tool),
        || generate::fallback(&tool),
    )
}

#[cfg(test)]
mod tests {
    use quote::quote;

    const ENTER: &str = "__mcp_context . enter_task_body () . await ;";

    /// The expansion of a tool with a Resolve parameter, as text.
    fn expand(attr: proc_macro2::TokenStream) -> String {
        let item = quote! {
            async fn deploy(env: String, confirm: Elicit<Confirm>) -> String {
                format!("{env} {}", confirm.ok)
            }
        };
        super::expand(attr, item).to_string()
    }

    #[test]
    fn a_tool_that_asks_before_its_task_enters_the_body_once_everything_is_answered() {
        let expanded = expand(quote!(task = "optional", ask_before_task));
        assert!(expanded.contains("task : :: mcp :: __private :: TaskSupport :: Optional"));
        assert!(expanded.contains("ask_before_task : true"));
        let resolved = expanded
            .find("let (confirm ,) = loop")
            .expect("the resolution");
        let entered = expanded.find(ENTER).expect("the hook");
        let called = expanded
            .find("let __mcp_returned = __mcp_function (env , confirm)")
            .expect("the call");
        assert!(resolved < entered && entered < called, "{expanded}");
        assert_eq!(expanded.matches(ENTER).count(), 1);
    }

    #[test]
    fn other_tools_never_enter_a_task_body() {
        for attr in [quote!(), quote!(task = "required")] {
            let expanded = expand(attr);
            assert!(!expanded.contains("enter_task_body"), "{expanded}");
            assert!(expanded.contains("ask_before_task : false"));
        }
    }
}
