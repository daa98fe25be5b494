//! What the client answers when a server asks: one handler per kind of question, used for
//! 2026-07-28 `inputRequests` and for 2025-11-25 server→client requests alike.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::boxed::BoxFuture;
use crate::protocol::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    ElicitationCapability, InputRequest, ListRootsResult, McpError, RootsCapability,
    SamplingCapability, code,
};

type Handler<P, R> = Arc<dyn Fn(P) -> BoxFuture<Result<R, McpError>> + Send + Sync>;

/// The registered handlers.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub elicit: Option<Handler<ElicitParams, ElicitResult>>,
    pub sample: Option<Handler<CreateMessageParams, CreateMessageResult>>,
    /// The sampling handler runs tool loops (`tools` and `toolChoice` in its requests).
    pub sample_tools: bool,
    pub roots: Option<Handler<(), ListRootsResult>>,
}

pub(crate) fn boxed<P, R, F, Fut>(f: F) -> Handler<P, R>
where
    F: Fn(P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, McpError>> + Send + 'static,
{
    Arc::new(move |p| Box::pin(f(p)))
}

impl Callbacks {
    /// Adds the capabilities these handlers let the client declare to `capabilities`, keeping
    /// every part the application declared by hand (a hand-set `elicitation: {form: {}}` stays
    /// form-only, a hand-set `sampling.context` stays).
    pub fn declare(&self, capabilities: &mut ClientCapabilities) {
        if self.elicit.is_some() && capabilities.elicitation.is_none() {
            capabilities.elicitation = Some(ElicitationCapability {
                form: Some(Default::default()),
                url: Some(Default::default()),
            });
        }
        if self.sample.is_some() {
            let sampling = capabilities
                .sampling
                .get_or_insert_with(SamplingCapability::default);
            if self.sample_tools && sampling.tools.is_none() {
                sampling.tools = Some(Default::default());
            }
        }
        if self.roots.is_some() && capabilities.roots.is_none() {
            capabilities.roots = Some(RootsCapability::default());
        }
    }

    /// Answers one question, as the JSON the server expects back.
    pub async fn answer(&self, request: InputRequest) -> Result<Value, McpError> {
        let unsupported =
            |what: &str| McpError::new(code::INVALID_REQUEST, format!("{what} not supported"));
        let answer = match request {
            InputRequest::Elicit(params) => {
                let handler = self
                    .elicit
                    .clone()
                    .ok_or_else(|| unsupported("Elicitation"))?;
                serde_json::to_value(handler(params).await?)
            }
            InputRequest::CreateMessage(params) => {
                let handler = self.sample.clone().ok_or_else(|| unsupported("Sampling"))?;
                serde_json::to_value(handler(*params).await?)
            }
            InputRequest::ListRoots => {
                let handler = self
                    .roots
                    .clone()
                    .ok_or_else(|| unsupported("List roots"))?;
                serde_json::to_value(handler(()).await?)
            }
        };
        answer.map_err(|e| McpError::internal(format!("could not encode the answer: {e}")))
    }
}
