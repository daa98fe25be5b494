//! From the attribute and the function's tokens to a [`PromptFn`].

use proc_macro2::TokenStream;
use syn::parse::Parser;

use crate::common::attrs::unknown_key;
use crate::common::describe::Describe;
use crate::common::errors::Errors;
use crate::common::naming::{Naming, signature};
use crate::common::policy::Policy;
use crate::common::resolve::plan;

use super::model::PromptFn;

const PROMPT_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "icons",
    "meta",
    "scopes",
    "crate",
];
const PARAM_KEYS: &[&str] = &["rename", "title", "complete", "ask", "key"];

pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> PromptFn {
    let mut naming = Naming::default();
    let mut describe = Describe::default();
    let mut policy = Policy::default();
    let parser = syn::meta::parser(|meta| {
        if naming.accept(&meta, errors)?
            || describe.accept(&meta, errors)?
            || policy.accept_scopes(&meta, errors)?
        {
            Ok(())
        } else {
            Err(unknown_key(&meta, PROMPT_KEYS))
        }
    });
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let (params, ret) = signature(&mut item, PARAM_KEYS, errors);
    PromptFn {
        name: naming.name_or(&item.sig.ident),
        description: naming.description(&item.attrs),
        title: naming.title.get().cloned(),
        paths: naming.paths(),
        describe,
        policy,
        plan: plan(&params),
        params,
        ret,
        item,
    }
}
