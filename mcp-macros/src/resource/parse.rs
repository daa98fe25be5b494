//! From the attribute and the function's tokens to a [`ResourceFn`].

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{LitStr, Token};

use crate::common::attrs::{Slot, string, unknown_key};
use crate::common::errors::Errors;
use crate::common::naming::{Naming, signature};
use crate::common::resolve::plan;

use super::model::{ResourceFn, Template};
use super::template;

const RESOURCE_KEYS: &[&str] = &["name", "title", "description", "mime_type", "crate"];
const PARAM_KEYS: &[&str] = &["ask", "key"];

/// Reads the attribute (the URI first, then keys) and the function. Without a URI the model
/// has an empty one, marked missing, so the checks skip what depends on it.
pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> ResourceFn {
    let mut uri = None;
    let mut naming = Naming::default();
    let mut mime_type = Slot::default();
    let parser = |input: ParseStream<'_>| -> syn::Result<()> {
        let lit: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the resource's URI first, e.g. `#[mcp::resource(\"db://{table}/schema\")]`",
            )
        })?;
        uri = Some(lit);
        if input.is_empty() {
            return Ok(());
        }
        input.parse::<Token![,]>()?;
        let keys = syn::meta::parser(|meta| {
            if naming.accept(&meta, errors)? {
                return Ok(());
            }
            if meta.path.is_ident("mime_type") {
                let lit = string(&meta)?;
                mime_type.set(&meta, lit.value(), errors);
                Ok(())
            } else {
                Err(unknown_key(&meta, RESOURCE_KEYS))
            }
        });
        keys.parse2(input.parse::<TokenStream>()?)
    };
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let (uri, template) = match uri {
        None => (LitStr::new("", Span::call_site()), Template::Missing),
        Some(uri) => {
            let template = match template::variables(&uri.value()) {
                Ok(variables) => Template::Variables(variables),
                Err(reason) => Template::Invalid(reason),
            };
            (uri, template)
        }
    };
    let (params, ret) = signature(&mut item, PARAM_KEYS, errors);
    ResourceFn {
        name: naming
            .name
            .get()
            .map_or_else(|| item.sig.ident.to_string(), LitStr::value),
        description: naming.description(&item.attrs),
        title: naming.title.get().cloned(),
        paths: naming.paths(),
        mime_type: mime_type.into_inner(),
        uri,
        template,
        plan: plan(&params),
        params,
        ret,
        item,
    }
}
