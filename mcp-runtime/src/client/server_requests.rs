//! Answering a 2025-11-25 server's own requests (the back-channel: `elicitation/create`,
//! `sampling/createMessage`, `roots/list`, and `ping`) with the handlers that also answer 2026-07-28
//! `inputRequests`.

use serde_json::Value;

use crate::protocol::{
    EmptyResult, InputRequest, McpError, RawRequest, error_line, input_methods, methods,
    result_line,
};

use super::callbacks::Callbacks;

/// The response line for a server→client request, from the registered handlers.
pub(super) async fn answer_server_request(callbacks: &Callbacks, request: RawRequest) -> String {
    let params: Value = request
        .params
        .as_deref()
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or(Value::Null);
    let question = match request.method.as_str() {
        input_methods::ELICIT => serde_json::from_value(params).map(InputRequest::Elicit),
        input_methods::CREATE_MESSAGE => {
            serde_json::from_value(params).map(|p| InputRequest::CreateMessage(Box::new(p)))
        }
        input_methods::LIST_ROOTS => Ok(InputRequest::ListRoots),
        // 2025-11-25 lets a server ping its client at any time.
        methods::PING => return result_line(&request.id, &EmptyResult::default()),
        other => {
            return error_line(Some(&request.id), &McpError::method_not_found(other));
        }
    };
    let answer = match question {
        Ok(question) => callbacks.answer(question).await,
        Err(e) => Err(McpError::invalid_params(format!("Invalid params: {e}"))),
    };
    match answer {
        Ok(result) => result_line(&request.id, &result),
        Err(error) => error_line(Some(&request.id), &error),
    }
}
