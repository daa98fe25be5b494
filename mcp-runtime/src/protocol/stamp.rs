//! What the runtime adds to every result before it goes out, per generation:
//! `resultType`, `_meta.serverInfo` and the cache hints in 2026-07-28; none of them in 2025-11-25.

use std::sync::Arc;

use serde::Serialize;

use super::completion::CompleteResult;
use super::lifecycle::{DiscoverResult, EmptyResult, Implementation};
use super::meta::{CacheHint, ResultMeta, ResultType};
use super::mrtr::InputRequiredResult;
use super::prompts::{GetPromptResult, ListPromptsResult};
use super::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use super::tools::{CallToolResult, ListToolsResult};
use super::version::Generation;

/// The envelope facts of one response.
#[derive(Debug, Clone)]
pub struct Stamp {
    /// The wire the response goes out on.
    pub generation: Generation,
    /// Our name and version (`_meta["io.modelcontextprotocol/serverInfo"]`).
    pub server_info: Arc<Implementation>,
    /// Cache hints for cacheable results that set none themselves.
    pub cache: CacheHint,
}

/// A result type the runtime can put on the wire.
pub trait WireResult: Serialize + Send + 'static {
    /// Adds (2026-07-28) or strips (2025-11-25) the envelope fields.
    fn stamp(&mut self, stamp: &Stamp);
}

fn stamp_meta(meta: &mut Option<ResultMeta>, stamp: &Stamp) {
    if stamp.generation == super::version::Generation::Modern {
        meta.get_or_insert_with(ResultMeta::default).server_info = Some(stamp.server_info.clone());
    } else if meta.as_ref().is_some_and(ResultMeta::is_empty) {
        *meta = None;
    }
}

fn stamp_type(result_type: &mut Option<ResultType>, stamp: &Stamp, value: ResultType) {
    *result_type = (stamp.generation == Generation::Modern).then_some(value);
}

macro_rules! plain_results {
    ($($ty:ty),*) => {$(
        impl WireResult for $ty {
            fn stamp(&mut self, stamp: &Stamp) {
                stamp_type(&mut self.result_type, stamp, ResultType::Complete);
                stamp_meta(&mut self.meta, stamp);
            }
        }
    )*};
}

macro_rules! cacheable_results {
    ($($ty:ty),*) => {$(
        impl WireResult for $ty {
            fn stamp(&mut self, stamp: &Stamp) {
                stamp_type(&mut self.result_type, stamp, ResultType::Complete);
                stamp_meta(&mut self.meta, stamp);
                if stamp.generation == Generation::Modern {
                    self.ttl_ms.get_or_insert(stamp.cache.ttl_ms);
                    self.cache_scope.get_or_insert(stamp.cache.scope);
                } else {
                    self.ttl_ms = None;
                    self.cache_scope = None;
                }
            }
        }
    )*};
}

plain_results!(CallToolResult, GetPromptResult, CompleteResult, EmptyResult);
cacheable_results!(
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    DiscoverResult
);

impl WireResult for InputRequiredResult {
    fn stamp(&mut self, stamp: &Stamp) {
        stamp_type(&mut self.result_type, stamp, ResultType::InputRequired);
        stamp_meta(&mut self.meta, stamp);
    }
}

impl WireResult for super::lifecycle::InitializeResult {
    fn stamp(&mut self, _: &Stamp) {}
}
