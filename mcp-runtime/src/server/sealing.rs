//! Where the state boundary meets routing: a multi-round request's `requestState` is opened
//! before its handler runs and sealed after it returns, bound to the request it belongs to.

use serde_json::value::RawValue;

use crate::identity::Identity;
use crate::protocol::canonical::write_str;
use crate::protocol::{CallToolParams, GetPromptParams, McpError, ReadResourceParams};
use crate::state::{InvalidRequestState, RequestBinding};

use super::Server;
use super::gate::StateField;

/// The params of a method that may take several rounds (`tools/call`, `prompts/get`,
/// `resources/read`): what their state is bound to, and the plaintext `requestState` slot the
/// handler reads.
pub(super) trait MultiRoundParams {
    fn binding(&self, method: &str) -> RequestBinding;
    fn set_request_state(&mut self, state: Option<String>);
}

impl MultiRoundParams for CallToolParams {
    fn binding(&self, method: &str) -> RequestBinding {
        RequestBinding::with_object(method, &*self.name, self.arguments.as_ref())
    }
    fn set_request_state(&mut self, state: Option<String>) {
        self.request_state = state;
    }
}

impl MultiRoundParams for GetPromptParams {
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
    fn binding(&self, method: &str) -> RequestBinding {
        // Resources have no arguments; the URI is the whole request.
        RequestBinding::new(method, &*self.uri, None)
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
}
