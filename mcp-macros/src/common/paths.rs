//! The one place that spells the runtime's path: everything generated goes through [`Paths`].
//!
//! Generated code roots at `::mcp::__private`, the facade's hidden module that re-exports what
//! it uses (serde, schemars, the runtime's helper traits). A crate that depends on `mcp` under
//! another name, or re-exports it, says where it is with `crate = "path"`; then everything roots
//! at `path::__private`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{LitStr, Path};

/// Where the runtime is, as the user's crate sees it.
#[derive(Clone)]
pub struct Paths {
    /// `::mcp`, or the path given with `crate = "…"`.
    root: Path,
}

impl Default for Paths {
    fn default() -> Self {
        Self {
            root: syn::parse_quote!(::mcp),
        }
    }
}

impl Paths {
    /// The paths for `crate = "…"`: a plain path (`my_deps::mcp`, `::renamed`), spanned at the
    /// string so it resolves where the user wrote it.
    pub fn from_crate_attr(lit: &LitStr) -> syn::Result<Self> {
        let root: Path = lit.parse().map_err(|_| {
            syn::Error::new(
                lit.span(),
                "expected the path the `mcp` crate is reachable at, e.g. `crate = \"my_deps::mcp\"`",
            )
        })?;
        if let Some(segment) = root.segments.iter().find(|s| !s.arguments.is_none()) {
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "`{}` has generic arguments; give the plain path of the `mcp` crate",
                    segment.ident
                ),
            ));
        }
        Ok(Self { root })
    }

    /// `<root>::__private`, the hidden module generated code names everything through.
    pub fn private(&self) -> TokenStream {
        let root = &self.root;
        quote!(#root::__private)
    }

    /// [`private`](Self::private) with every token at `span`, for a call whose every part
    /// should point at the user's expression when its argument does not fit.
    pub fn private_at(&self, span: proc_macro2::Span) -> TokenStream {
        fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
            tokens
                .into_iter()
                .map(|mut tree| {
                    if let proc_macro2::TokenTree::Group(group) = &tree {
                        let mut inner = proc_macro2::Group::new(
                            group.delimiter(),
                            respan(group.stream(), span),
                        );
                        inner.set_span(span);
                        tree = proc_macro2::TokenTree::Group(inner);
                    } else {
                        tree.set_span(span);
                    }
                    tree
                })
                .collect()
        }
        respan(self.private(), span)
    }

    /// The same path to schemars as a string, for `#[schemars(crate = "…")]`.
    pub fn schemars_crate(&self) -> String {
        let leading = if self.root.leading_colon.is_some() {
            "::"
        } else {
            ""
        };
        let segments: Vec<String> = self
            .root
            .segments
            .iter()
            .map(|s| s.ident.to_token_stream().to_string())
            .collect();
        format!("{leading}{}::__private::schemars", segments.join("::"))
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// Every macro's expansion, with `crate = "…"` set, names the runtime only through the
    /// given path: nothing is left spelled `::mcp`.
    #[test]
    fn the_crate_path_reaches_everything_generated() {
        let expansions = [
            crate::tool::expand(
                quote!(
                    crate = "my::facade",
                    read_only,
                    icons = ["https://a.example/i.png"],
                    meta = m()
                ),
                quote! {
                    async fn provision(
                        name: String,
                        #[mcp(default)] replicas: u8,
                        #[mcp(rename = "zone", header = "Zone")] region: String,
                        ctx: Context,
                        #[mcp(ask = format!("{name}?"))] sure: Elicit<Sure>,
                        #[mcp(ask = request())] summary: Sample,
                        roots: ListRoots,
                    ) -> String { String::new() }
                },
            ),
            crate::prompt::expand(
                quote!(
                    crate = "my::facade",
                    icons = [icon(src = "https://a.example/i.png")]
                ),
                quote! {
                    async fn brief(
                        #[mcp(complete = topics, title = "Topic")] topic: String,
                        #[mcp(rename = "t")] other: String,
                        s: State<X>,
                    ) -> String { topic }
                },
            ),
            crate::resource::expand(
                quote!(
                    "db://{table}",
                    crate = "my::facade",
                    cache(ttl_ms = 1, scope = "public")
                ),
                quote!(
                    async fn rows(
                        #[mcp(complete = tables)] table: String,
                        ctx: Context,
                        sure: Elicit<Sure>,
                    ) -> String {
                        table
                    }
                ),
            ),
            crate::resource::expand(
                quote!(
                    "docs://readme",
                    crate = "my::facade",
                    annotations(audience = ["user"], priority = 0.5),
                    size = 1,
                    meta = m()
                ),
                quote!(
                    async fn readme(s: State<X>) -> String {
                        String::new()
                    }
                ),
            ),
            crate::elicitation::expand(quote! {
                /// Sure?
                #[elicitation(crate = "my::facade")]
                struct Sure { ok: bool, #[elicitation(title = "Tier")] tier: Tier }
            }),
            crate::elicitation::expand(quote! {
                #[elicitation(crate = "my::facade")]
                enum Tier { Basic }
            }),
        ];
        for expansion in expansions {
            let text = expansion.to_string();
            assert!(!text.contains("compile_error"), "{text}");
            assert!(text.contains("my :: facade :: __private"), "{text}");
            assert!(!text.contains(":: mcp ::"), "{text}");
            assert!(!text.contains("\"::mcp"), "{text}");
        }
    }

    /// The placeholders emitted next to errors use the path too.
    #[test]
    fn placeholders_use_the_crate_path() {
        let text = crate::tool::expand(
            quote!(crate = "my::facade", nmae = "x"),
            quote!(
                async fn ping() -> String {
                    String::new()
                }
            ),
        )
        .to_string();
        assert!(text.contains("compile_error"), "{text}");
        assert!(
            text.contains("my :: facade :: __private :: ToolDef"),
            "{text}"
        );
        assert!(!text.contains(":: mcp ::"), "{text}");
    }

    #[test]
    fn a_crate_path_with_generics_is_refused() {
        let lit: syn::LitStr = syn::parse_quote!("my::facade<T>");
        assert!(super::Paths::from_crate_attr(&lit).is_err());
        let lit: syn::LitStr = syn::parse_quote!("not a path");
        assert!(super::Paths::from_crate_attr(&lit).is_err());
    }
}
