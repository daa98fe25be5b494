//! From the attribute and the function's tokens to a [`ResourceFn`].

use proc_macro2::TokenStream;
use syn::parse::{ParseStream, Parser};
use syn::{LitStr, Token};

use crate::common::attrs::{string, unknown_key};
use crate::common::errors::Errors;
use crate::common::naming::{Naming, signature};

use super::model::ResourceFn;
use super::template;

const RESOURCE_KEYS: &[&str] = &["name", "title", "description", "mime_type"];
const PARAM_KEYS: &[&str] = &["ask", "key"];

/// `None` when the attribute does not even start with the URI.
pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> Option<ResourceFn> {
    let mut uri = None;
    let mut naming = Naming::default();
    let mut mime_type = None;
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
            if let Some(taken) = naming.accept(&meta) {
                return taken;
            }
            if meta.path.is_ident("mime_type") {
                mime_type = Some(string(&meta)?.value());
            } else {
                return Err(unknown_key(&meta, RESOURCE_KEYS));
            }
            Ok(())
        });
        keys.parse2(input.parse::<TokenStream>()?)
    };
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let uri = uri?;
    let (variables, template_valid) = match template::variables(&uri.value()) {
        Ok(variables) => (variables, true),
        Err(reason) => {
            errors.at(&uri, format!("invalid URI template: {reason}"));
            (Vec::new(), false)
        }
    };
    let description = naming.description(&item.attrs);
    let title = naming.title;
    let name = naming.name.map(|lit| lit.value());
    let (params, ret) = signature(&mut item, PARAM_KEYS, errors);
    Some(ResourceFn {
        name: name.unwrap_or_else(|| item.sig.ident.to_string()),
        item,
        uri,
        variables,
        template_valid,
        title,
        description,
        mime_type,
        params,
        ret,
    })
}
