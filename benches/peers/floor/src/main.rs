//! The floor of the load benchmark: what serving `echo(text)` and `provision(name)` costs with
//! no MCP framework at all, on the axum, serde_json and tokio of the rmcp peer. One POST route,
//! `http://127.0.0.1:PORT/mcp`: the body is parsed into a typed request, the reply is a typed
//! JSON-RPC answer. No headers are read, nothing is sealed: `provision`'s `requestState` is the
//! plain string `provision-v1`. It is the physical limit a framework is measured against, not an
//! MCP server.
//!
//! ```sh
//! cargo run --release -- --port 8003
//! ```

use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The whole of the state a `provision` exchange carries from round 1 to round 2.
const STATE: &str = "provision-v1";

const PARSE_ERROR: i32 = -32700;
const METHOD_NOT_FOUND: i32 = -32601;
const INVALID_PARAMS: i32 = -32602;

#[derive(Deserialize)]
struct Request {
    jsonrpc: String,
    id: Value,
    method: String,
    params: Params,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params {
    name: String,
    arguments: Value,
    input_responses: Option<Value>,
    request_state: Option<String>,
}

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RpcError>,
}

/// A `tools/call` result: the tool's answer, or its question.
#[derive(Serialize)]
#[serde(untagged)]
enum Outcome {
    Done(CallToolResult),
    Ask(InputRequiredResult),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult {
    result_type: &'static str,
    content: [TextContent; 1],
    is_error: bool,
}

#[derive(Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputRequiredResult {
    result_type: &'static str,
    input_requests: InputRequests,
    request_state: &'static str,
}

#[derive(Serialize)]
struct InputRequests {
    region: ElicitRequest,
}

#[derive(Serialize)]
struct ElicitRequest {
    method: &'static str,
    params: ElicitParams,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ElicitParams {
    mode: &'static str,
    message: String,
    requested_schema: FormSchema,
}

#[derive(Serialize)]
struct FormSchema {
    #[serde(rename = "type")]
    kind: &'static str,
    properties: FormProperties,
    required: [&'static str; 1],
}

#[derive(Serialize)]
struct FormProperties {
    region: StringProperty,
}

#[derive(Serialize)]
struct StringProperty {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct RpcError {
    code: i32,
    message: &'static str,
}

fn text(text: String) -> Result<Outcome, RpcError> {
    Ok(Outcome::Done(CallToolResult {
        result_type: "complete",
        content: [TextContent { kind: "text", text }],
        is_error: false,
    }))
}

fn error(code: i32, message: &'static str) -> Result<Outcome, RpcError> {
    Err(RpcError { code, message })
}

fn ask_region(name: &str) -> Result<Outcome, RpcError> {
    Ok(Outcome::Ask(InputRequiredResult {
        result_type: "input_required",
        input_requests: InputRequests {
            region: ElicitRequest {
                method: "elicitation/create",
                params: ElicitParams {
                    mode: "form",
                    message: format!("Which region should '{name}' live in?"),
                    requested_schema: FormSchema {
                        kind: "object",
                        properties: FormProperties {
                            region: StringProperty { kind: "string" },
                        },
                        required: ["region"],
                    },
                },
            },
        },
        request_state: STATE,
    }))
}

fn string_at<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key)?.as_str()
}

/// The tools. Kept out of line so that `scripts/profile.sh` can tell the handler from the
/// transport around it.
#[inline(never)]
fn call(params: Params) -> Result<Outcome, RpcError> {
    match params.name.as_str() {
        "echo" => match string_at(&params.arguments, "text") {
            Some(echoed) => text(echoed.to_owned()),
            None => error(INVALID_PARAMS, "echo needs a string `text`"),
        },
        "provision" => {
            let Some(name) = string_at(&params.arguments, "name") else {
                return error(INVALID_PARAMS, "provision needs a string `name`");
            };
            match params.request_state.as_deref() {
                None => ask_region(name),
                Some(STATE) => {
                    let region = params
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("region")?.get("content"))
                        .and_then(|content| string_at(content, "region"));
                    match region {
                        Some(region) => text(format!("Provisioned '{name}' in {region}.")),
                        None => ask_region(name),
                    }
                }
                Some(_) => error(INVALID_PARAMS, "Invalid or expired requestState"),
            }
        }
        _ => error(INVALID_PARAMS, "unknown tool"),
    }
}

fn json(status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn answer(status: StatusCode, id: &Value, outcome: Result<Outcome, RpcError>) -> Response {
    let (result, error) = match outcome {
        Ok(result) => (Some(result), None),
        Err(error) => (None, Some(error)),
    };
    let reply = Reply {
        jsonrpc: "2.0",
        id,
        result,
        error,
    };
    match serde_json::to_vec(&reply) {
        Ok(body) => json(status, body),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn mcp(body: Bytes) -> Response {
    let request: Request = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(_) => {
            let outcome = error(PARSE_ERROR, "not a tools/call request");
            return answer(StatusCode::BAD_REQUEST, &Value::Null, outcome);
        }
    };
    let outcome = if request.jsonrpc != "2.0" || request.method != "tools/call" {
        error(METHOD_NOT_FOUND, "only tools/call is served")
    } else {
        call(request.params)
    };
    answer(StatusCode::OK, &request.id, outcome)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--port", port] => port.parse()?,
        _ => return Err("usage: floor-peer --port PORT".into()),
    };
    let app = axum::Router::new().route("/mcp", axum::routing::post(mcp));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
