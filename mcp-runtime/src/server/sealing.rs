//! Where the state boundary meets routing: a multi-round request's `requestState` is opened
//! before its handler runs and sealed after it returns, bound to the request it belongs to.

use serde_json::value::RawValue;

use crate::identity::Identity;
use crate::protocol::canonical::write_str;
use crate::protocol::{CallToolParams, GetPromptParams, McpError, ReadResourceParams};
use crate::state::{InvalidRequestState, RequestBinding};

use super::Server;
use super::gate::StateField;
use super::preread::{Pieces, plain_string};

/// The params of a method that may take several rounds (`tools/call`, `prompts/get`,
/// `resources/read`): what their state is bound to, and the plaintext `requestState` slot the
/// handler reads.
pub(super) trait MultiRoundParams: Sized {
    fn binding(&self, method: &str) -> RequestBinding;
    fn set_request_state(&mut self, state: Option<String>);
    /// The params decoded from their members alone, each once; `None` for the whole params'
    /// decoding to judge (and word the error): a member missing or that does not decode.
    fn from_pieces(pieces: &Pieces<'_>) -> Option<Self>;
    /// The text of the members the binding is made of: the one that names what the request
    /// is for (`name`, or `uri` for a resource), and the arguments, if the method binds any.
    fn bound_pieces<'a>(pieces: &Pieces<'a>) -> (Option<&'a str>, Option<&'a str>);
    /// The binding, decoding only the members it is made of (not the answers).
    fn binding_of(pieces: &Pieces<'_>, method: &str) -> Option<RequestBinding> {
        if let Some(binding) = Self::binding_of_text(pieces, method) {
            return Some(binding);
        }
        let unanswered = Pieces {
            input_responses: None,
            ..*pieces
        };
        Self::from_pieces(&unanswered).map(|params| params.binding(method))
    }
    /// The binding read off the members' text with nothing decoded, when their text is what
    /// decoding and writing them again would give: a target with nothing escaped, arguments in
    /// canonical form. Only for params that decode.
    fn binding_of_text(pieces: &Pieces<'_>, method: &str) -> Option<RequestBinding> {
        let (target, arguments) = Self::bound_pieces(pieces);
        RequestBinding::of_canonical_text(method, plain_string(target?)?, arguments)
    }
}

impl MultiRoundParams for CallToolParams {
    fn bound_pieces<'a>(pieces: &Pieces<'a>) -> (Option<&'a str>, Option<&'a str>) {
        (pieces.name, pieces.arguments)
    }
    fn binding(&self, method: &str) -> RequestBinding {
        RequestBinding::with_object(method, &*self.name, self.arguments.as_ref())
    }
    fn from_pieces(pieces: &Pieces<'_>) -> Option<Self> {
        Some(Self {
            name: Pieces::decode(pieces.name)??,
            arguments: Pieces::decode(pieces.arguments)?,
            input_responses: Pieces::decode(pieces.input_responses)?,
            request_state: None,
        })
    }
    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

impl MultiRoundParams for GetPromptParams {
    fn bound_pieces<'a>(pieces: &Pieces<'a>) -> (Option<&'a str>, Option<&'a str>) {
        (pieces.name, pieces.arguments)
    }
    fn from_pieces(pieces: &Pieces<'_>) -> Option<Self> {
        Some(Self {
            name: Pieces::decode(pieces.name)??,
            arguments: Pieces::decode(pieces.arguments)?,
            input_responses: Pieces::decode(pieces.input_responses)?,
            request_state: None,
        })
    }
    fn binding(&self, method: &str) -> RequestBinding {
        RequestBinding::with_arguments(method, &*self.name, |json| {
            let Some(arguments) = self.arguments.as_ref().filter(|a| !a.is_empty()) else {
                return false;
            };
            // A BTreeMap iterates in code-point order: already the canonical key order.
            json.push('{');
            for (i, (key, value)) in arguments.iter().enumerate() {
                if i > 0 {
                    json.push(',');
                }
                write_str(json, key);
                json.push(':');
                write_str(json, value);
            }
            json.push('}');
            true
        })
    }
    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

impl MultiRoundParams for ReadResourceParams {
    fn bound_pieces<'a>(pieces: &Pieces<'a>) -> (Option<&'a str>, Option<&'a str>) {
        // Resources have no arguments; the URI is the whole request.
        (pieces.uri, None)
    }
    fn binding(&self, method: &str) -> RequestBinding {
        // Resources have no arguments; the URI is the whole request.
        RequestBinding::new(method, &*self.uri, None)
    }
    fn from_pieces(pieces: &Pieces<'_>) -> Option<Self> {
        Some(Self {
            uri: Pieces::decode(pieces.uri)??,
            input_responses: Pieces::decode(pieces.input_responses)?,
            request_state: None,
        })
    }

    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

/// Why a `requestState` that is not one string is rejected, in the log.
const NOT_A_TOKEN: &str = "non-string requestState";

/// The fixed rejection, logged once with the cause the client is not told.
fn rejection(method: &str, rejected: InvalidRequestState) -> McpError {
    tracing::warn!(
        method,
        reason = rejected.reason(),
        "requestState rejected on {method}: {}",
        rejected.reason()
    );
    rejected.into()
}

impl Server {
    /// The inbound `requestState` as the handler will see it. Without a boundary a token
    /// passes through; with one it must open. Anything that is not a token, and a token that
    /// does not open, ends the request in the fixed rejection.
    pub(super) fn open_state<'b>(
        &self,
        state: StateField,
        binding: impl FnOnce() -> &'b RequestBinding,
        identity: Option<&Identity>,
    ) -> Result<Option<String>, McpError> {
        let token = match state {
            StateField::Absent => return Ok(None),
            StateField::NotAToken => None,
            StateField::Token(token) => Some(token),
        };
        let (binding, rejected) = match (token, &self.inner.state) {
            (Some(token), None) => return Ok(Some(token)),
            (Some(token), Some(boundary)) => {
                let binding = binding();
                let opened = boundary.open(&serde_json::Value::String(token), binding, identity);
                match opened {
                    Ok(plaintext) => return Ok(Some(plaintext)),
                    Err(rejected) => (binding, rejected),
                }
            }
            (None, _) => (binding(), InvalidRequestState::new(NOT_A_TOKEN)),
        };
        Err(rejection(binding.method(), rejected))
    }

    /// The error for params that do not decode: a `requestState` that does not open is
    /// reported first, with the fixed rejection, so bad params never tell a forger more.
    pub(super) fn state_error_first(
        &self,
        state: StateField,
        method: &str,
        params: Option<&RawValue>,
        identity: Option<&Identity>,
        params_error: McpError,
    ) -> McpError {
        let Some(binding) = RequestBinding::from_raw_params(method, params) else {
            return match state {
                StateField::Absent => params_error,
                StateField::NotAToken => rejection(method, InvalidRequestState::new(NOT_A_TOKEN)),
                StateField::Token(_) if self.inner.state.is_some() => {
                    rejection(method, InvalidRequestState::new("request binding"))
                }
                StateField::Token(_) => params_error,
            };
        };
        match self.open_state(state, || &binding, identity) {
            Ok(_) => params_error,
            Err(state_error) => state_error,
        }
    }

    /// Seals a handler's outbound state for this request (passes it through without a
    /// boundary).
    pub(super) fn seal_state(
        &self,
        plaintext: String,
        binding: &RequestBinding,
        method: &str,
        identity: Option<&Identity>,
    ) -> Result<String, McpError> {
        let Some(boundary) = &self.inner.state else {
            return Ok(plaintext);
        };
        boundary
            .seal(&plaintext, binding, identity)
            .map_err(|error| {
                tracing::error!(method, %error, "sealing requestState failed");
                McpError::from(error)
            })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::gate::GateInput;
    use super::*;

    #[test]
    fn decoded_params_bind_as_their_json_does() {
        let args = json!({"zeta": "1", "alpha": "x\"y", "é": "ü"});
        let prompt: GetPromptParams =
            serde_json::from_value(json!({"name": "p", "arguments": args})).expect("params");
        assert_eq!(
            prompt.binding("prompts/get"),
            RequestBinding::new("prompts/get", "p", Some(&args))
        );
        let bare: GetPromptParams =
            serde_json::from_value(json!({"name": "p", "arguments": {}})).expect("params");
        assert_eq!(
            bare.binding("prompts/get"),
            RequestBinding::new("prompts/get", "p", None)
        );
        let call: CallToolParams =
            serde_json::from_value(json!({"name": "t", "arguments": {"b": [2], "a": 1.5}}))
                .expect("params");
        assert_eq!(
            call.binding("tools/call"),
            RequestBinding::new("tools/call", "t", Some(&json!({"a": 1.5, "b": [2]})))
        );
        let read: ReadResourceParams =
            serde_json::from_value(json!({"uri": "x://y"})).expect("params");
        assert_eq!(
            read.binding("resources/read"),
            RequestBinding::new("resources/read", "x://y", None)
        );
    }

    /// Params decoded from the members the gate found are the params decoded whole, or not
    /// decoded at all (so the whole decoding words the error), and bind alike.
    fn decodes_as_a_whole<P>(method: &str, params: &str)
    where
        P: MultiRoundParams + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        let raw = RawValue::from_string(params.to_owned()).expect("raw");
        let Ok(input) = GateInput::read(Some(&raw)) else {
            return;
        };
        // No layout: the whole params are decoded, as before there was one.
        let Some(pieces) = input.layout.pieces(Some(&raw)) else {
            return;
        };
        let whole = crate::protocol::decode_params::<P>(Some(&raw));
        match (P::from_pieces(&pieces), &whole) {
            (Some(from_pieces), Ok(whole)) => assert_eq!(&from_pieces, whole, "{params}"),
            (Some(from_pieces), Err(e)) => {
                panic!("{params}: {from_pieces:?} from the members, {e:?} whole")
            }
            (None, _) => {}
        }
        if let Ok(whole) = whole {
            assert_eq!(
                P::binding_of(&pieces, method),
                Some(whole.binding(method)),
                "{params}"
            );
            if let Some(of_text) = P::binding_of_text(&pieces, method) {
                assert_eq!(of_text, whole.binding(method), "{params}");
            }
        }
    }

    #[test]
    fn canonical_members_bind_from_their_text_and_others_after_decoding() {
        let pieces = |params: &'static str| {
            let raw = RawValue::from_string(params.to_owned()).expect("raw");
            let input = GateInput::read(Some(&raw)).expect("readable");
            let pieces = input.layout.pieces(Some(&raw)).expect("a layout");
            (
                CallToolParams::binding_of_text(&pieces, "tools/call"),
                crate::protocol::decode_params::<CallToolParams>(Some(&raw))
                    .expect("params")
                    .binding("tools/call"),
            )
        };
        for canonical in [
            r#"{"name":"provision","arguments":{"name":"orders","size":3}}"#,
            r#"{"arguments":{},"name":"t"}"#,
            r#"{"name":"t","arguments":null}"#,
            r#"{"name":"t"}"#,
        ] {
            let (of_text, decoded) = pieces(canonical);
            assert_eq!(of_text, Some(decoded), "{canonical}");
        }
        for other in [
            r#"{"name":"provision","arguments":{"size":3,"name":"orders"}}"#,
            r#"{"name":"t","arguments":{"a": 1}}"#,
            r#"{"name":"t","arguments":{"a":1.5}}"#,
            r#"{"name":"t\u0041","arguments":{}}"#,
        ] {
            let (of_text, _) = pieces(other);
            assert_eq!(of_text, None, "{other}");
        }
    }

    #[test]
    fn params_decoded_from_their_members_are_the_params_decoded_whole() {
        const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        for params in [
            format!(r#"{{"name":"t","arguments":{{"b":[2],"a":"x"}},{META}}}"#),
            format!(r#"{{{META},"requestState":"v1.abc","name":"t"}}"#),
            r#"{"name":"t","arguments":{"a":1},"inputResponses":{"r":{"action":"decline"}}}"#
                .to_owned(),
            r#"{"name":"t\u0041","arguments":{"k":"v"},"other":[1,{"x":2}]}"#.to_owned(),
            r#"{"name":"t","arguments":{"b":"2","a":"1"}}"#.to_owned(),
            r#"{"name":"t","arguments":{"a":"1","b":{"c":[-3,true]}}}"#.to_owned(),
            r#"{"name":"t","arguments":null,"inputResponses":null}"#.to_owned(),
            r#"{"name":"t","inputResponses":{},"inputResponses":{"r":{}}}"#.to_owned(),
            r#"{"name":7}"#.to_owned(),
            r#"{"arguments":{}}"#.to_owned(),
            r#"{"name":"t","arguments":[1]}"#.to_owned(),
            r#"{"name":"t","arguments":{"a":"1"},"inputResponses":[]}"#.to_owned(),
            r#"{"uri":"x://y","inputResponses":{"r":{"action":"accept","content":{}}}}"#.to_owned(),
            r#"{"uri":1}"#.to_owned(),
        ] {
            decodes_as_a_whole::<CallToolParams>("tools/call", &params);
            decodes_as_a_whole::<GetPromptParams>("prompts/get", &params);
            decodes_as_a_whole::<ReadResourceParams>("resources/read", &params);
        }
    }

    #[test]
    fn a_layout_is_used_only_on_the_text_it_was_read_from() {
        let params = r#"{"name":"t","arguments":{"a":1}}"#;
        let raw = RawValue::from_string(params.to_owned()).expect("raw");
        let input = GateInput::read(Some(&raw)).expect("readable");
        let twin = RawValue::from_string(params.to_owned()).expect("raw");
        assert!(input.layout.pieces(Some(&twin)).is_none());
        assert!(input.layout.pieces(None).is_none());
        let pieces = input.layout.pieces(Some(&raw)).expect("its own text");
        assert_eq!(pieces.arguments, Some(r#"{"a":1}"#));
        // Twice is for the typed decoding to refuse: no layout then.
        let twice = RawValue::from_string(r#"{"inputResponses":{},"inputResponses":{}}"#.into())
            .expect("raw");
        let input = GateInput::read(Some(&twice)).expect("readable");
        assert!(input.layout.pieces(Some(&twice)).is_none());
    }
}
