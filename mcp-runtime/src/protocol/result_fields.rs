//! What the runtime adds to every result before it goes out, per generation:
//! `resultType`, `_meta.serverInfo` and the cache hints in 2026-07-28; none of them in 2025-11-25.

use serde::Serialize;

use super::completion::CompleteResult;
use super::extension_result::ExtensionResult;
use super::frozen::Frozen;
use super::lifecycle::{DiscoverResult, EmptyResult, Implementation};
use super::listen::ListenResult;
use super::meta::{CacheHint, ResultMeta, ResultType};
use super::mrtr::InputRequiredResult;
use super::prompts::{GetPromptResult, ListPromptsResult};
use super::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use super::tools::{CallToolResult, ListToolsResult};
use super::version::Generation;

/// What the runtime fills in on every result of one wire.
#[derive(Debug, Clone)]
pub struct ResultFields {
    /// The wire the response goes out on.
    pub generation: Generation,
    /// Our name and version (`_meta["io.modelcontextprotocol/serverInfo"]`).
    pub server_info: Frozen<Implementation>,
    /// Cache hints for cacheable results that set none themselves.
    pub cache: CacheHint,
}

/// A result type the runtime can put on the wire.
pub trait WireResult: Serialize + Send + 'static {
    /// Fills in (2026-07-28) or strips (2025-11-25) the fields the runtime owns.
    fn fill(&mut self, fields: &ResultFields);

    /// Whether this is a tool's own failure (`isError`), which the wire carries as a success.
    fn is_tool_error(&self) -> bool {
        false
    }

    /// Appends the JSON of the result to `out`: what its `Serialize` writes, which a type the
    /// runtime sends on every call writes faster.
    #[doc(hidden)]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

fn fill_meta(meta: &mut Option<ResultMeta>, fields: &ResultFields) {
    if fields.generation == Generation::V2026_07_28 {
        meta.get_or_insert_with(ResultMeta::default).server_info = Some(fields.server_info.clone());
    } else if meta.as_ref().is_some_and(ResultMeta::is_empty) {
        *meta = None;
    }
}

fn fill_type(result_type: &mut Option<ResultType>, fields: &ResultFields, value: ResultType) {
    *result_type = (fields.generation == Generation::V2026_07_28).then_some(value);
}

macro_rules! plain_results {
    ($($ty:ty),*) => {$(
        impl WireResult for $ty {
            fn fill(&mut self, fields: &ResultFields) {
                fill_type(&mut self.result_type, fields, ResultType::Complete);
                fill_meta(&mut self.meta, fields);
            }
        }
    )*};
}

macro_rules! cacheable_results {
    ($($ty:ty),*) => {$(
        impl WireResult for $ty {
            fn fill(&mut self, fields: &ResultFields) {
                fill_type(&mut self.result_type, fields, ResultType::Complete);
                fill_meta(&mut self.meta, fields);
                if fields.generation == Generation::V2026_07_28 {
                    self.ttl_ms.get_or_insert(fields.cache.ttl_ms);
                    self.cache_scope.get_or_insert(fields.cache.scope);
                } else {
                    self.ttl_ms = None;
                    self.cache_scope = None;
                }
            }
        }
    )*};
}

plain_results!(GetPromptResult, CompleteResult, EmptyResult, ListenResult);
impl WireResult for CallToolResult {
    fn fill(&mut self, fields: &ResultFields) {
        fill_type(&mut self.result_type, fields, ResultType::Complete);
        fill_meta(&mut self.meta, fields);
    }

    fn is_tool_error(&self) -> bool {
        self.is_error == Some(true)
    }

    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        super::result_json::write_call_tool_result(self, out)
    }
}

cacheable_results!(
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    DiscoverResult
);

impl WireResult for InputRequiredResult {
    fn fill(&mut self, fields: &ResultFields) {
        fill_type(&mut self.result_type, fields, ResultType::InputRequired);
        fill_meta(&mut self.meta, fields);
    }

    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        super::result_json::write_input_required_result(self, out)
    }
}

impl WireResult for ExtensionResult {
    fn fill(&mut self, fields: &ResultFields) {
        self.typed = fields.generation == Generation::V2026_07_28;
        fill_meta(&mut self.meta, fields);
    }
}

impl WireResult for super::lifecycle::InitializeResult {
    fn fill(&mut self, _: &ResultFields) {}
}
