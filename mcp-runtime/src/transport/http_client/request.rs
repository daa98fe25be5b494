//! One message, one POST: the headers its revision wants, then the answer (JSON, an SSE stream,
//! or nothing) handed to the client as incoming lines.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use hyper::{Request, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

use crate::protocol::{keys, methods};
use crate::transport::{Frame, RELATED, Standing};

use super::authorized;
use super::param_headers::{self, learn};
use super::sse::SseParser;
use super::{Endpoint, lock};

const SESSION_HEADER: &str = "mcp-session-id";

/// POSTs `message`; a request whose POST fails gets a JSON-RPC error as its answer, so the
/// client never waits for a response that cannot come.
pub(crate) async fn post(
    endpoint: Arc<Endpoint>,
    message: String,
    parsed: Value,
    incoming: &mpsc::Sender<Frame>,
) {
    if let Err(reason) = exchange(&endpoint, message, &parsed, incoming).await {
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
    endpoint: &Arc<Endpoint>,
    message: String,
    parsed: &Value,
    incoming: &mpsc::Sender<Frame>,
) -> Result<(), String> {
    let method = parsed.get("method").and_then(Value::as_str);
    let params = parsed.get("params");
    let mut request = Request::post(endpoint.uri.clone())
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
            if let Some(name) = routing_name(method, params) {
                request = request.header("mcp-name", header_value(name));
            }
            if method == methods::TOOLS_CALL {
                for (header, value) in tool_param_headers(endpoint, params) {
                    request = request.header(header, header_value(&value));
                }
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
    let response = authorized::send(endpoint, request).await?;

    let status = response.status();
    if method == Some(methods::INITIALIZE)
        && let Some(session) = response.headers().get(SESSION_HEADER)
        && let Ok(session) = session.to_str()
    {
        *lock(&endpoint.session) = Some(session.to_owned());
        // Messages the server sends outside any request arrive on a GET stream.
        endpoint.standing.send_replace(Standing::Opening);
        tokio::spawn(listen(endpoint.clone(), incoming.clone()));
    }
    let is_sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let body = response.into_body();
    if is_sse {
        let request_id = parsed.get("id").filter(|_| method.is_some()).cloned();
        let mut parser = SseParser::default();
        let answered = relay(
            body,
            &mut parser,
            endpoint,
            method,
            request_id.as_ref(),
            incoming,
        )
        .await?;
        if answered || request_id.is_none() {
            return Ok(());
        }
        // The stream ended before the answer: pick it up with a GET from the last event.
        let Some(last) = parser.last_event_id.clone() else {
            return Err("the server closed the stream before answering".into());
        };
        return resume(
            endpoint,
            last,
            parser.retry_ms,
            request_id.as_ref(),
            incoming,
        )
        .await;
    }
    // A server cannot make the client buffer more than one message may hold.
    let limit = crate::server::DEFAULT_MAX_MESSAGE_SIZE;
    let bytes = http_body_util::Limited::new(body, limit)
        .collect()
        .await
        .map_err(|e| format!("reading the response: {e}"))?
        .to_bytes();
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    let is_json_rpc = serde_json::from_str::<Value>(&text)
        .ok()
        .is_some_and(|v| v.get("jsonrpc").is_some());
    if is_json_rpc {
        let _ = incoming.send(Ok(received(endpoint, method, text))).await;
        return Ok(());
    }
    if status.is_success() {
        // 202 for a notification or a response: nothing comes back.
        return Ok(());
    }
    Err(format!("the server answered HTTP {status}"))
}

/// Passes a stream's events on; `true` once the answer to `request_id` went by.
async fn relay(
    mut body: hyper::body::Incoming,
    parser: &mut SseParser,
    endpoint: &Endpoint,
    method: Option<&str>,
    request_id: Option<&Value>,
    incoming: &mpsc::Sender<Frame>,
) -> Result<bool, String> {
    let mut answered = false;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            // A broken stream is resumed like a closed one.
            return Ok(answered);
        };
        let Some(bytes) = frame.data_ref() else {
            continue;
        };
        let events = parser
            .feed(bytes)
            .map_err(|e| format!("the server sent an event longer than {} bytes", e.limit))?;
        for event in events {
            let mut event = received(endpoint, method, event);
            if event.starts_with(RELATED) {
                tracing::debug!("dropped a server's event that poses as a tagged frame");
                continue;
            }
            if let Some(id) = request_id {
                let message = serde_json::from_str::<Value>(&event).ok();
                let speaks = message.as_ref().and_then(|m| m.get("method")).is_some();
                answered |= !speaks && message.is_some_and(|m| m.get("id") == Some(id));
                // A notification or request on a request's stream is about that request.
                if speaks {
                    event = format!("{RELATED}{id}\n{event}");
                }
            }
            if incoming.send(Ok(event)).await.is_err() {
                return Ok(true);
            }
        }
    }
    Ok(answered)
}

/// Resumes an interrupted response stream with `GET` and `Last-Event-ID`, after the delay the
/// server asked for (SEP-1699), until the answer to `request_id` arrives.
async fn resume(
    endpoint: &Arc<Endpoint>,
    mut last_id: String,
    retry_ms: Option<u64>,
    request_id: Option<&Value>,
    incoming: &mpsc::Sender<Frame>,
) -> Result<(), String> {
    const ATTEMPTS: u32 = 5;
    let mut delay = Duration::from_millis(retry_ms.unwrap_or(1000));
    for _ in 0..ATTEMPTS {
        tokio::time::sleep(delay).await;
        let response = get(endpoint, Some(&last_id)).await?;
        if !response.status().is_success() {
            return Err(format!(
                "resuming the stream failed: HTTP {}",
                response.status()
            ));
        }
        let mut parser = SseParser::default();
        let answered = relay(
            response.into_body(),
            &mut parser,
            endpoint,
            None,
            request_id,
            incoming,
        )
        .await?;
        if answered {
            return Ok(());
        }
        if let Some(id) = parser.last_event_id {
            last_id = id;
        }
        if let Some(ms) = parser.retry_ms {
            delay = Duration::from_millis(ms);
        }
    }
    Err("the server never delivered the answer".into())
}

/// Opens the session's GET stream (from `last_id`, if resuming).
async fn get(
    endpoint: &Endpoint,
    last_id: Option<&str>,
) -> Result<hyper::Response<hyper::body::Incoming>, String> {
    let mut request = Request::get(endpoint.uri.clone()).header(ACCEPT, "text/event-stream");
    if let Some(session) = lock(&endpoint.session).clone() {
        request = request.header(SESSION_HEADER, header_value(&session));
    }
    if let Some(version) = lock(&endpoint.legacy_version).clone() {
        request = request.header("mcp-protocol-version", header_value(&version));
    }
    if let Some(id) = last_id {
        request = request.header("last-event-id", header_value(id));
    }
    let request = request
        .body(Full::new(Bytes::new()))
        .map_err(|e| e.to_string())?;
    // A stream outlives tokens: a refused GET authorizes again, as a refused POST does.
    authorized::send(endpoint, request).await
}

/// How many `409 Conflict` answers in a row the standing GET stream takes before giving up.
const STANDING_STREAM_CONFLICTS: u32 = 10;

/// The session's standing GET stream: server requests and notifications outside any request.
/// Reconnects (from the last event, after the server's `retry:` delay) while the client lives;
/// a server without one (4xx) ends it.
async fn listen(endpoint: Arc<Endpoint>, incoming: mpsc::Sender<Frame>) {
    let mut last_id: Option<String> = None;
    let mut delay = Duration::from_millis(1000);
    let mut conflicts = 0;
    let mut first = true;
    while !incoming.is_closed() {
        let answer = get(&endpoint, last_id.as_deref()).await;
        // Whatever the answer, this stream's first one settles where it stands.
        if std::mem::take(&mut first) {
            endpoint.standing.send_replace(Standing::Settled);
        }
        let response = match answer {
            Ok(response) if response.status().is_success() => response,
            // The server still holds the stream this one replaces (it has not noticed that
            // the connection under it died): it lets go soon, so try again, a few times.
            Ok(response)
                if response.status() == StatusCode::CONFLICT
                    && conflicts < STANDING_STREAM_CONFLICTS =>
            {
                conflicts += 1;
                tokio::time::sleep(delay).await;
                continue;
            }
            Ok(_) => return,
            Err(_) => {
                tokio::time::sleep(delay).await;
                continue;
            }
        };
        conflicts = 0;
        let mut parser = SseParser::default();
        if relay(
            response.into_body(),
            &mut parser,
            &endpoint,
            None,
            None,
            &incoming,
        )
        .await
        .is_err()
        {
            return;
        }
        if parser.last_event_id.is_some() {
            last_id = parser.last_event_id;
        }
        if let Some(ms) = parser.retry_ms {
            delay = Duration::from_millis(ms);
        }
        tokio::time::sleep(delay).await;
    }
}

/// What `Mcp-Name` carries for a 2026-07-28 request for `method`, if anything: the tool's or
/// prompt's name, the resource's URI (SEP-2243), or the task's id for the tasks extension's
/// methods that address one task. The client knows no server's extensions, but the `tasks/`
/// prefix is reserved for that extension, so its names can be known here.
fn routing_name<'p>(method: &str, params: Option<&'p Value>) -> Option<&'p str> {
    let field = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => "name",
        methods::RESOURCES_READ => "uri",
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => "taskId",
        _ => return None,
    };
    params?.get(field)?.as_str()
}

/// `Mcp-Param-{Name}` headers for the arguments of a `tools/call` whose tool annotated them.
fn tool_param_headers(endpoint: &Endpoint, params: Option<&Value>) -> Vec<(String, String)> {
    let Some(params) = params else {
        return Vec::new();
    };
    let tool = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let known = lock(&endpoint.param_headers);
    let Some(mappings) = known.get(tool) else {
        return Vec::new();
    };
    mappings
        .iter()
        .filter_map(|(argument, header)| {
            let value = param_headers::value(params.get("arguments")?.get(argument)?)?;
            Some((format!("mcp-param-{header}"), value))
        })
        .collect()
}

/// What the transport learns from an answer to `method` before the client sees it: the
/// negotiated revision (from `initialize`) and the `x-mcp-header` mappings (from `tools/list`,
/// whose answer loses tools with invalid annotations).
fn received(endpoint: &Endpoint, method: Option<&str>, answer: String) -> String {
    note_version(endpoint, method, &answer);
    if method == Some(methods::TOOLS_LIST) {
        return learn(&answer, &mut lock(&endpoint.param_headers)).unwrap_or(answer);
    }
    answer
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

/// Plain ASCII as is; anything else (non-ASCII, control characters, surrounding whitespace, or
/// text that looks like the encoding itself) as `=?base64?…?=`, which servers decode.
pub fn header_value(value: &str) -> HeaderValue {
    let looks_encoded = value.starts_with("=?base64?") && value.ends_with("?=");
    let plain = value.bytes().all(|b| (b' '..=b'~').contains(&b))
        && value.trim() == value
        && !looks_encoded;
    let encoded = if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(value))
    };
    HeaderValue::from_str(&encoded).unwrap_or_else(|_| HeaderValue::from_static(""))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn mcp_name_carries_the_target_of_the_methods_that_name_one() {
        let params = json!({"name": "deploy", "uri": "file:///a", "taskId": "t-1"});
        let cases = [
            (methods::TOOLS_CALL, Some("deploy")),
            (methods::PROMPTS_GET, Some("deploy")),
            (methods::RESOURCES_READ, Some("file:///a")),
            (methods::TASKS_GET, Some("t-1")),
            (methods::TASKS_UPDATE, Some("t-1")),
            (methods::TASKS_CANCEL, Some("t-1")),
            (methods::TOOLS_LIST, None),
            ("tasks/list", None),
            ("com.example/jobs/get", None),
        ];
        for (method, expected) in cases {
            assert_eq!(routing_name(method, Some(&params)), expected, "{method}");
        }
        // No header for a target the body does not give as a string: the server refuses
        // the request either way, and says so better than a made-up header would.
        assert_eq!(routing_name(methods::TASKS_GET, None), None);
        let numeric = json!({"taskId": 7});
        assert_eq!(routing_name(methods::TASKS_GET, Some(&numeric)), None);
    }
}
