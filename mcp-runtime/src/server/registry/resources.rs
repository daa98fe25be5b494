//! Resources as the macros describe them: static URIs and URI templates, the listing, and
//! return conversions.

use std::fmt::Display;
use std::str::FromStr;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::boxed::BoxFuture;
use crate::protocol::{
    Annotations, BlobResourceContents, CacheHint, InputRequiredResult, JsonObject, McpError,
    Outcome, ReadResourceParams, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    Role, TextResourceContents,
};
use crate::server::{Context, StateKey};

use super::completion::ArgumentCompletion;
use super::describe::{IconInfo, icons};
use super::uri_template::{TemplateError, UriTemplate};

/// A template's variables as matched in the requested URI.
pub type TemplateVars = Vec<(String, String)>;

/// What answers a `resources/read` of one resource (or template).
pub type ResourceCall = fn(
    Context,
    ReadResourceParams,
    TemplateVars,
) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>>;

/// The static description `#[mcp::resource]` writes.
#[derive(Debug, Clone, Copy)]
pub struct ResourceInfo {
    /// The URI, or the RFC 6570 template.
    pub uri: &'static str,
    /// A programmatic name.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// What it holds.
    pub description: Option<&'static str>,
    /// The MIME type of its contents.
    pub mime_type: Option<&'static str>,
    /// Hints for clients: audience, priority, last change.
    pub annotations: Option<ResourceAnnotationsInfo>,
    /// Its size in bytes (static resources only: a template names many).
    pub size: Option<u64>,
    /// Icons for display.
    pub icons: &'static [IconInfo],
    /// Cache hints of its reads, unless a read's answer sets its own.
    pub cache: Option<CacheHint>,
    /// Its template variables' own completion functions.
    pub completions: &'static [ArgumentCompletion],
    /// The shared state types its parameters take (checked when the server is built).
    pub requires: &'static [fn() -> StateKey],
}

/// `annotations(audience = [...], priority = …, last_modified = "…")` as the macro writes it.
#[derive(Debug, Clone, Copy)]
pub struct ResourceAnnotationsInfo {
    /// Who the contents are for.
    pub audience: Option<&'static [Role]>,
    /// Importance from 0 to 1.
    pub priority: Option<f64>,
    /// When it last changed (ISO 8601).
    pub last_modified: Option<&'static str>,
}

impl ResourceAnnotationsInfo {
    fn to_annotations(self) -> Annotations {
        Annotations {
            audience: self.audience.map(<[Role]>::to_vec),
            priority: self.priority,
            last_modified: self.last_modified.map(str::to_owned),
        }
    }
}

/// One registered resource or resource template.
#[derive(Clone)]
pub struct ResourceEntry {
    pub(crate) listing: Listing,
    pub(crate) template: UriTemplate,
    pub(crate) call: ResourceCall,
    pub(crate) cache: Option<CacheHint>,
    pub(crate) completions: &'static [ArgumentCompletion],
    pub(crate) requires: Vec<StateKey>,
    /// What a template's instance ([`ResourceEntry::at`]) reads its function with; empty
    /// otherwise.
    pub(crate) vars: TemplateVars,
    /// Scopes a caller's token must hold, every one, to read it.
    pub(crate) scopes: Arc<[String]>,
    /// Why it cannot be served, found when it was assembled; `McpServer::build` reports it.
    pub(crate) invalid: Option<String>,
}

/// Where a resource is listed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Listing {
    Static(Resource),
    Template(ResourceTemplate),
}

impl ResourceEntry {
    /// A resource written by hand rather than by `#[mcp::resource]`: its listing as given and
    /// the function that reads it.
    ///
    /// ```
    /// use mcp::BoxFuture;
    /// use mcp::protocol::{McpError, Outcome, ReadResourceParams, ReadResourceResult, Resource};
    /// use mcp::server::{Context, McpServer, ResourceEntry};
    ///
    /// fn motd(
    ///     _ctx: Context,
    ///     read: ReadResourceParams,
    ///     _vars: Vec<(String, String)>,
    /// ) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> {
    ///     let contents = mcp::ResourceContents::text(read.uri, "Welcome.");
    ///     Box::pin(async move { Ok(ReadResourceResult::new(vec![contents]).into()) })
    /// }
    ///
    /// let server = McpServer::new("board")
    ///     .resources([ResourceEntry::from_resource(Resource::new("board://motd", "motd"), motd)])
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), mcp::server::BuildError>(())
    /// ```
    pub fn from_resource(resource: Resource, call: ResourceCall) -> Self {
        let template = UriTemplate::literal(&resource.uri);
        Self::written(template, Listing::Static(resource), call)
    }

    /// A resource template written by hand: its listing as given and the function that reads
    /// the URIs it matches (with the variables each gives). Fails on a template the matcher
    /// cannot read.
    pub fn from_template(
        template: ResourceTemplate,
        call: ResourceCall,
    ) -> Result<Self, TemplateError> {
        let matcher = UriTemplate::parse(&template.uri_template)?;
        Ok(Self::written(matcher, Listing::Template(template), call))
    }

    /// An entry written by hand: no cache hint, completions or shared state of the macros'.
    fn written(template: UriTemplate, listing: Listing, call: ResourceCall) -> Self {
        Self {
            template,
            listing,
            call,
            cache: None,
            completions: &[],
            requires: Vec::new(),
            vars: Vec::new(),
            scopes: Arc::from([]),
            invalid: None,
        }
    }

    /// Assembles an entry; fails on a template the matcher cannot use (the macro has already
    /// checked it, so this only guards hand-written entries).
    #[doc(hidden)]
    pub fn new(info: ResourceInfo, call: ResourceCall) -> Result<Self, TemplateError> {
        let template = UriTemplate::parse(info.uri)?;
        let annotations = info
            .annotations
            .map(ResourceAnnotationsInfo::to_annotations);
        let listing = if template.is_static() {
            Listing::Static(Resource {
                title: info.title.map(str::to_owned),
                description: info.description.map(str::to_owned),
                mime_type: info.mime_type.map(str::to_owned),
                annotations,
                size: info.size,
                icons: icons(info.icons),
                ..Resource::new(info.uri, info.name)
            })
        } else {
            Listing::Template(ResourceTemplate {
                uri_template: info.uri.to_owned(),
                name: info.name.to_owned(),
                title: info.title.map(str::to_owned),
                description: info.description.map(str::to_owned),
                mime_type: info.mime_type.map(str::to_owned),
                annotations,
                icons: icons(info.icons),
                ..ResourceTemplate::default()
            })
        };
        Ok(Self {
            listing,
            template,
            call,
            cache: info.cache,
            completions: info.completions,
            requires: info.requires.iter().map(|key| key()).collect(),
            vars: Vec::new(),
            scopes: Arc::from([]),
            invalid: None,
        })
    }

    /// The resource a template names at one `uri`, as a static resource of its own: listed
    /// by `resources/list` under `uri` (with the template's name, title, description, MIME type,
    /// annotations, icons and `_meta`), subscribable, and read by the template's function with
    /// the variables `uri` gives. `None` when this entry is not a template or `uri` does not
    /// match it.
    ///
    /// This is how a URI known only at run time becomes a listed resource through a handle,
    /// with the template function's compile-time checks:
    ///
    /// ```
    /// use mcp::McpServer;
    ///
    /// /// One topic of the board.
    /// #[mcp::resource("board://topics/{topic}", mime_type = "text/plain")]
    /// async fn topic(topic: String) -> String {
    ///     format!("about {topic}")
    /// }
    ///
    /// let server = McpServer::new("board").build()?;
    /// let [template] = mcp::resources![topic];
    /// let rust = template.at("board://topics/rust").expect("the template matches");
    /// assert_eq!(rust.uri(), "board://topics/rust");
    /// server.handle().add_resources([rust])?;
    /// assert!(template.at("board://elsewhere").is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at(&self, uri: &str) -> Option<Self> {
        let Listing::Template(t) = &self.listing else {
            return None;
        };
        let vars = self.template.matches(uri)?;
        let resource = Resource {
            title: t.title.clone(),
            description: t.description.clone(),
            mime_type: t.mime_type.clone(),
            annotations: t.annotations.clone(),
            icons: t.icons.clone(),
            meta: t.meta.clone(),
            ..Resource::new(uri, t.name.clone())
        };
        Some(Self {
            listing: Listing::Static(resource),
            template: UriTemplate::literal(uri),
            // Its URI has no variables left to complete.
            completions: &[],
            vars,
            ..self.clone()
        })
    }

    /// Sets the listing's `_meta` from `meta = …` (or records why it cannot).
    #[doc(hidden)]
    pub fn with_meta(mut self, meta: Result<JsonObject, String>) -> Self {
        match meta {
            Ok(meta) => match &mut self.listing {
                Listing::Static(r) => r.meta = Some(meta),
                Listing::Template(t) => t.meta = Some(meta),
            },
            Err(reason) => self.invalid = Some(reason),
        }
        self
    }

    /// Reads only for callers whose access token holds every one of `scopes`
    /// (`#[mcp::resource("…", scopes = ["notes:read"])]`), added to any given before; the
    /// resource stays listed for everybody, and a template's instances ([`at`](Self::at))
    /// need the same. A caller without them gets `-32003` with the scopes in
    /// `data.requiredScopes`, over HTTP `403` with the step-up challenge. As for a tool: see
    /// [`ToolEntry::scopes`](super::ToolEntry::scopes).
    ///
    /// ```
    /// use mcp::protocol::Resource;
    /// use mcp::server::ResourceEntry;
    /// # use mcp::BoxFuture;
    /// # use mcp::protocol::{McpError, Outcome, ReadResourceParams, ReadResourceResult};
    /// # use mcp::server::Context;
    /// # fn salaries(_: Context, _: ReadResourceParams, _: Vec<(String, String)>)
    /// #     -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> { todo!() }
    ///
    /// let entry = ResourceEntry::from_resource(Resource::new("hr://salaries", "salaries"), salaries)
    ///     .scopes(["hr:read"]);
    /// assert_eq!(entry.required_scopes(), ["hr:read"]);
    /// ```
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let held = self.scopes.iter().cloned();
        self.scopes = held.chain(scopes.into_iter().map(Into::into)).collect();
        self
    }

    /// The scopes a caller must hold to read it.
    pub fn required_scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The URI or template it is registered under.
    pub fn uri(&self) -> &str {
        match &self.listing {
            Listing::Static(r) => &r.uri,
            Listing::Template(t) => &t.uri_template,
        }
    }
}

impl std::fmt::Debug for ResourceEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceEntry")
            .field("listing", &self.listing)
            .finish_non_exhaustive()
    }
}

/// Implemented by `#[mcp::resource]` for the function's hidden twin type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP resource",
    label = "not a resource",
    note = "annotate the function with `#[mcp::resource(\"uri\")]`"
)]
pub trait ResourceDef {
    /// The registration.
    fn entry() -> ResourceEntry;
}

/// A type a URI template variable parses into: any `FromStr` whose error is `Display` (`String`,
/// integers, …). A value that does not parse is `-32602` naming the variable.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a URI template variable",
    label = "template variables are parsed with `FromStr`",
    note = "use `String`, a number, or a type implementing `FromStr` with a `Display` error"
)]
pub trait FromTemplateVar: Sized {
    /// Parses variable `name` of `uri` from the matched `vars`.
    fn from_template_var(vars: &TemplateVars, name: &str, uri: &str) -> Result<Self, McpError>;
}

impl<T> FromTemplateVar for T
where
    T: FromStr,
    T::Err: Display,
{
    fn from_template_var(vars: &TemplateVars, name: &str, uri: &str) -> Result<Self, McpError> {
        let raw = vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| McpError::internal(format!("template variable `{name}` missing")))?;
        raw.parse().map_err(|e| {
            McpError::invalid_params(format!(
                "Invalid value for `{name}` in resource URI {uri}: {e}"
            ))
        })
    }
}

/// A value a `#[mcp::resource]` function can return: text (`String`, `&'static str`), bytes
/// (`Vec<u8>`, sent as a base64 blob), [`ResourceContents`], a list of them, a
/// [`ReadResourceResult`], or a `Result` of these whose error is `Display` (`-32603` naming the
/// URI) or `InputRequiredResult` (templates only).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    label = "this return type is not resource contents",
    note = "return text, `Vec<u8>`, `ResourceContents`, `ReadResourceResult`, or a `Result` of \
            these whose error is `Display` or `InputRequiredResult`"
)]
pub trait IntoResourceOutcome {
    /// Whether this type can carry an `InputRequiredResult`.
    const CAN_ASK: bool = false;

    /// The answer for a read of `uri`.
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError>;
}

fn complete(contents: Vec<ResourceContents>) -> Result<Outcome<ReadResourceResult>, McpError> {
    Ok(Outcome::Complete(ReadResourceResult::new(contents)))
}

impl IntoResourceOutcome for String {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        complete(vec![ResourceContents::Text(TextResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            text: self,
            meta: None,
        })])
    }
}

impl IntoResourceOutcome for &'static str {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        self.to_owned().into_resource_outcome(uri, mime_type)
    }
}

impl IntoResourceOutcome for Vec<u8> {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        complete(vec![ResourceContents::Blob(BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            blob: STANDARD.encode(self),
            meta: None,
        })])
    }
}

/// Values that already are contents (or the answer): the URI and MIME type are theirs.
macro_rules! ready_outcomes {
    ($($ty:ty => $can_ask:expr, |$value:ident| $outcome:expr;)*) => {$(
        impl IntoResourceOutcome for $ty {
            const CAN_ASK: bool = $can_ask;

            fn into_resource_outcome(
                self,
                _: &str,
                _: Option<&str>,
            ) -> Result<Outcome<ReadResourceResult>, McpError> {
                let $value = self;
                $outcome
            }
        }
    )*};
}

ready_outcomes! {
    ResourceContents => false, |contents| complete(vec![contents]);
    Vec<ResourceContents> => false, |contents| complete(contents);
    ReadResourceResult => false, |result| Ok(Outcome::Complete(result));
    Outcome<ReadResourceResult> => true, |outcome| Ok(outcome);
    InputRequiredResult => true, |ask| Ok(Outcome::InputRequired(ask));
}

impl<T: IntoResourceOutcome, E: Display> IntoResourceOutcome for Result<T, E> {
    const CAN_ASK: bool = T::CAN_ASK;

    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        match self {
            Ok(value) => value.into_resource_outcome(uri, mime_type),
            Err(error) => Err(
                McpError::internal(format!("Error reading resource {uri}: {error}"))
                    .with_data(serde_json::json!({ "uri": uri })),
            ),
        }
    }
}

impl<T: IntoResourceOutcome> IntoResourceOutcome for Result<T, InputRequiredResult> {
    const CAN_ASK: bool = true;

    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        match self {
            Ok(value) => value.into_resource_outcome(uri, mime_type),
            Err(ask) => Ok(Outcome::InputRequired(ask)),
        }
    }
}
