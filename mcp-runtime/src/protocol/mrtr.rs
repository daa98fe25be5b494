//! Multi round-trip requests: `InputRequiredResult`, the questions it carries, and the
//! answers the client sends back on its retry.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::capabilities::{ClientCapabilities, ElicitationCapability, SamplingCapability};
use super::elicitation::{ElicitParams, ElicitResult};
use super::error::McpError;
use super::meta::{ResultMeta, ResultType};
use super::roots::ListRootsResult;
use super::sampling::{CreateMessageParams, CreateMessageResult};

/// Method names of the requests a server may embed in `inputRequests`.
pub mod method {
    /// Ask the user.
    pub const ELICIT: &str = "elicitation/create";
    /// Ask the client's LLM.
    pub const CREATE_MESSAGE: &str = "sampling/createMessage";
    /// Ask for the client's roots.
    pub const LIST_ROOTS: &str = "roots/list";
}

/// One question for the client: a bare `{method, params}` object (no `jsonrpc`, no `id`).
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitParams),
    /// `sampling/createMessage`.
    CreateMessage(Box<CreateMessageParams>),
    /// `roots/list`.
    ListRoots,
}

impl InputRequest {
    /// The method name on the wire.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => method::ELICIT,
            InputRequest::CreateMessage(_) => method::CREATE_MESSAGE,
            InputRequest::ListRoots => method::LIST_ROOTS,
        }
    }

    /// The client capabilities this question needs that `declared` lacks; `None` when it may
    /// be asked.
    pub fn missing_capability(&self, declared: &ClientCapabilities) -> Option<ClientCapabilities> {
        let mut need = ClientCapabilities::default();
        match self {
            InputRequest::Elicit(ElicitParams::Form { .. })
                if !declared.supports_form_elicitation() =>
            {
                need.elicitation = Some(ElicitationCapability {
                    form: Some(Default::default()),
                    url: None,
                });
            }
            InputRequest::Elicit(ElicitParams::Url { .. })
                if !declared.supports_url_elicitation() =>
            {
                need.elicitation = Some(ElicitationCapability {
                    form: None,
                    url: Some(Default::default()),
                });
            }
            InputRequest::CreateMessage(p) if !declared.supports_sampling() => {
                need.sampling = Some(SamplingCapability {
                    context: None,
                    tools: p.uses_tools().then(Default::default),
                });
            }
            InputRequest::CreateMessage(p)
                if p.uses_tools() && !declared.supports_sampling_tools() =>
            {
                need.sampling = Some(SamplingCapability {
                    context: None,
                    tools: Some(Default::default()),
                });
            }
            InputRequest::ListRoots if !declared.supports_roots() => {
                need.roots = Some(Default::default());
            }
            _ => return None,
        }
        Some(need)
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("method", self.method())?;
        match self {
            InputRequest::Elicit(p) => map.serialize_entry("params", p)?,
            InputRequest::CreateMessage(p) => map.serialize_entry("params", p)?,
            InputRequest::ListRoots => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // `id` is tolerated (a spec example carries one) and ignored.
        #[derive(Deserialize)]
        struct Wire {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let wire = Wire::deserialize(d)?;
        let params = |p: Option<Value>| p.ok_or_else(|| D::Error::missing_field("params"));
        match wire.method.as_str() {
            method::ELICIT => serde_json::from_value(params(wire.params)?)
                .map(InputRequest::Elicit)
                .map_err(D::Error::custom),
            method::CREATE_MESSAGE => serde_json::from_value(params(wire.params)?)
                .map(|p| InputRequest::CreateMessage(Box::new(p)))
                .map_err(D::Error::custom),
            method::LIST_ROOTS => Ok(InputRequest::ListRoots),
            other => Err(D::Error::unknown_variant(
                other,
                &[method::ELICIT, method::CREATE_MESSAGE, method::LIST_ROOTS],
            )),
        }
    }
}

/// Questions keyed by names the server picks.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answers, keyed like the questions they answer.
///
/// The answer types share no tag, so each is decoded by the method that was asked under its
/// key: [`elicit`](Self::elicit), [`sampling`](Self::sampling), [`roots`](Self::roots).
///
/// ```
/// use mcp::protocol::{ElicitAction, InputResponses};
/// let answers: InputResponses =
///     serde_json::from_str(r#"{"region":{"action":"accept","content":{"region":"eu-west-1"}}}"#).unwrap();
/// let region = answers.elicit("region").unwrap().unwrap();
/// assert_eq!(region.action, ElicitAction::Accept);
/// assert!(answers.elicit("missing").is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InputResponses(pub BTreeMap<String, Value>);

impl InputResponses {
    /// No answers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an answer.
    pub fn insert(&mut self, key: impl Into<String>, answer: impl Serialize) -> &mut Self {
        match serde_json::to_value(answer) {
            Ok(v) => {
                self.0.insert(key.into(), v);
            }
            Err(e) => tracing::error!(error = %e, "an input response did not serialize"),
        }
        self
    }

    /// The raw answer under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// Whether there are no answers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The answer to the elicitation asked under `key`: `None` if absent, -32602 if malformed.
    pub fn elicit(&self, key: &str) -> Option<Result<ElicitResult, McpError>> {
        self.decode(key)
    }

    /// The answer to the sampling request asked under `key`.
    pub fn sampling(&self, key: &str) -> Option<Result<CreateMessageResult, McpError>> {
        self.decode(key)
    }

    /// The answer to the roots request asked under `key`.
    pub fn roots(&self, key: &str) -> Option<Result<ListRootsResult, McpError>> {
        self.decode(key)
    }

    fn decode<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<Result<T, McpError>> {
        self.0.get(key).map(|v| {
            T::deserialize(v).map_err(|e| {
                McpError::invalid_params(format!("Malformed input response {key:?}: {e}"))
            })
        })
    }
}

/// "I need more before I can finish": questions for the client and/or opaque state to echo.
///
/// ```
/// use mcp::protocol::{ElicitParams, InputRequest, InputRequiredResult};
/// let ask = InputRequiredResult::new()
///     .ask("region", InputRequest::Elicit(ElicitParams::form(
///         "Which region?",
///         serde_json::json!({"type":"object","properties":{"region":{"type":"string"}}}),
///     )))
///     .with_state("awaiting-region");
/// assert!(ask.validate().is_ok());
/// assert!(InputRequiredResult::new().validate().is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `input_required` on the wire; filled in by the runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The questions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// State the client must echo on its retry, byte for byte.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMeta>,
}

impl InputRequiredResult {
    /// An empty result; add questions with [`ask`](Self::ask) or state with
    /// [`with_state`](Self::with_state).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a question under `key`.
    pub fn ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.input_requests
            .get_or_insert_with(BTreeMap::new)
            .insert(key.into(), request);
        self
    }

    /// Sets the state the client must echo.
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// The questions (empty when there are none).
    pub fn requests(&self) -> impl Iterator<Item = (&str, &InputRequest)> {
        self.input_requests
            .iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v))
    }

    /// At least one question or a state, as the spec requires of a server.
    pub fn validate(&self) -> Result<(), McpError> {
        let has_requests = self.input_requests.as_ref().is_some_and(|r| !r.is_empty());
        if has_requests || self.request_state.is_some() {
            Ok(())
        } else {
            Err(McpError::internal(
                "An InputRequiredResult needs inputRequests or requestState",
            ))
        }
    }

    /// Every capability the questions need that `declared` lacks, merged; `None` when all may
    /// be asked.
    pub fn missing_capabilities(
        &self,
        declared: &ClientCapabilities,
    ) -> Option<ClientCapabilities> {
        let mut missing: Option<ClientCapabilities> = None;
        for (_, request) in self.requests() {
            if let Some(need) = request.missing_capability(declared) {
                let m = missing.get_or_insert_with(Default::default);
                merge_capabilities(m, need);
            }
        }
        missing
    }
}

fn merge_capabilities(into: &mut ClientCapabilities, from: ClientCapabilities) {
    if let Some(e) = from.elicitation {
        let slot = into.elicitation.get_or_insert_with(Default::default);
        slot.form = slot.form.take().or(e.form);
        slot.url = slot.url.take().or(e.url);
    }
    if let Some(s) = from.sampling {
        let slot = into.sampling.get_or_insert_with(Default::default);
        slot.tools = slot.tools.take().or(s.tools);
    }
    if from.roots.is_some() {
        into.roots = from.roots;
    }
}

/// What a handler of `tools/call`, `prompts/get` or `resources/read` returns: the final result,
/// or a request for input. No other handler can return the second (the types forbid it).
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    /// Done.
    Complete(T),
    /// Ask the client, then retry.
    InputRequired(InputRequiredResult),
}

impl<T> From<InputRequiredResult> for Outcome<T> {
    fn from(r: InputRequiredResult) -> Self {
        Outcome::InputRequired(r)
    }
}

impl From<super::tools::CallToolResult> for Outcome<super::tools::CallToolResult> {
    fn from(r: super::tools::CallToolResult) -> Self {
        Outcome::Complete(r)
    }
}

impl From<super::prompts::GetPromptResult> for Outcome<super::prompts::GetPromptResult> {
    fn from(r: super::prompts::GetPromptResult) -> Self {
        Outcome::Complete(r)
    }
}

impl From<super::resources::ReadResourceResult> for Outcome<super::resources::ReadResourceResult> {
    fn from(r: super::resources::ReadResourceResult) -> Self {
        Outcome::Complete(r)
    }
}

impl<T: Serialize> Serialize for Outcome<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Complete(t) => t.serialize(s),
            Outcome::InputRequired(r) => r.serialize(s),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Outcome<T> {
    /// `resultType: "input_required"` selects the second arm; absent or `complete`, the first.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match value.get("resultType").and_then(Value::as_str) {
            Some("input_required") => serde_json::from_value(value)
                .map(Outcome::InputRequired)
                .map_err(D::Error::custom),
            None | Some("complete") => serde_json::from_value(value)
                .map(Outcome::Complete)
                .map_err(D::Error::custom),
            Some(other) => Err(D::Error::custom(format!(
                "unrecognised resultType {other:?}"
            ))),
        }
    }
}
