//! One message, one POST: the headers its revision wants, then the answer (JSON, an SSE stream,
//! or nothing) handed to the client as incoming lines.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::protocol::{keys, methods};
use crate::transport::Frame;

use super::sse::SseParser;
use super::{Endpoint, lock};

const SESSION_HEADER: &str = "mcp-session-id";

/// POSTs `message`; a request whose POST fails gets a JSON-RPC error as its answer, so the
/// client never waits for a response that cannot come.
pub(crate) async fn post(endpoint: &Endpoint, message: String, incoming: &mpsc::Sender<Frame>) {
    let parsed: Value = serde_json::from_str(&message).unwrap_or(Value::Null);
    if let Err(reason) = exchange(endpoint, message, &parsed, incoming).await {
        let is_request = parsed.get("method").is_some() && parsed.get("id").is_some();
        if is_request {
            let error = json!({"jsonrpc": "2.0", "id": parsed["id"], "error": {
                "code": -32603, "message": format!("HTTP transport: {reason}")}});
            let _ = incoming.send(Ok(error.to_string())).await;
        } else {
            tracing::warn!(%reason, "a message could not be delivered over HTTP");
        }
    }
}

async fn exchange(
    endpoint: &Endpoint,
    message: String,
    parsed: &Value,
    incoming: &mpsc::Sender<Frame>,
) -> Result<(), String> {
    let stream = TcpStream::connect(&endpoint.authority)
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", endpoint.authority))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);

    let method = parsed.get("method").and_then(Value::as_str);
    let params = parsed.get("params");
    let path = endpoint
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let mut request = Request::post(path)
        .header(HOST, &endpoint.authority)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream");
    let modern_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(keys::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    if let Some(version) = modern_version {
        request = request.header("mcp-protocol-version", header_value(version));
        if let Some(method) = method {
            request = request.header("mcp-method", header_value(method));
            let name = match method {
                methods::TOOLS_CALL | methods::PROMPTS_GET => params.and_then(|p| p.get("name")),
                methods::RESOURCES_READ => params.and_then(|p| p.get("uri")),
                _ => None,
            };
            if let Some(name) = name.and_then(Value::as_str) {
                request = request.header("mcp-name", header_value(name));
            }
        }
    } else {
        if let Some(session) = lock(&endpoint.session).clone() {
            request = request.header(SESSION_HEADER, header_value(&session));
        }
        if let Some(version) = lock(&endpoint.legacy_version).clone() {
            request = request.header("mcp-protocol-version", header_value(&version));
        }
    }
    let request = request
        .body(Full::new(Bytes::from(message)))
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;

    let status = response.status();
    if method == Some(methods::INITIALIZE)
        && let Some(session) = response.headers().get(SESSION_HEADER)
        && let Ok(session) = session.to_str()
    {
        *lock(&endpoint.session) = Some(session.to_owned());
    }
    let is_sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let mut body = response.into_body();
    if is_sse {
        let mut parser = SseParser::default();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| e.to_string())?;
            if let Some(bytes) = frame.data_ref() {
                for event in parser.feed(bytes) {
                    note_version(endpoint, method, &event);
                    if incoming.send(Ok(event)).await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
        return Ok(());
    }
    let bytes = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    let is_json_rpc = serde_json::from_str::<Value>(&text)
        .ok()
        .is_some_and(|v| v.get("jsonrpc").is_some());
    if is_json_rpc {
        note_version(endpoint, method, &text);
        let _ = incoming.send(Ok(text)).await;
        return Ok(());
    }
    if status.is_success() {
        // 202 for a notification or a response: nothing comes back.
        return Ok(());
    }
    Err(format!("the server answered HTTP {status}"))
}

/// After `initialize`, later requests of the session carry the negotiated revision.
fn note_version(endpoint: &Endpoint, method: Option<&str>, answer: &str) {
    if method != Some(methods::INITIALIZE) {
        return;
    }
    let version = serde_json::from_str::<Value>(answer).ok().and_then(|v| {
        v.get("result")?
            .get("protocolVersion")?
            .as_str()
            .map(str::to_owned)
    });
    if let Some(version) = version {
        *lock(&endpoint.legacy_version) = Some(version);
    }
}

/// Plain ASCII as is; anything else as `=?base64?…?=`, which servers decode.
fn header_value(value: &str) -> HeaderValue {
    let plain = value.bytes().all(|b| (b' '..=b'~').contains(&b)) && value.trim() == value;
    let encoded = if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(value))
    };
    HeaderValue::from_str(&encoded).unwrap_or_else(|_| HeaderValue::from_static(""))
}
