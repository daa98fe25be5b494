//! The JSON-RPC 2.0 envelope: ids, classifying an incoming line, and writing responses.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Text;
use super::error::McpError;
use super::result_fields::WireResult;

/// A JSON-RPC request id: a string or an integer, never `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl de::Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::String(v))
            }
        }
        d.deserialize_any(IdVisitor)
    }
}

/// A request the peer sent: method, id and the raw params (decoded later, per method).
#[derive(Debug, Clone)]
pub struct RawRequest {
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params exactly as sent; `None` when absent or `null`.
    pub params: Option<Box<RawValue>>,
}

/// A notification the peer sent.
#[derive(Debug, Clone)]
pub struct RawNotification {
    /// The method name.
    pub method: String,
    /// The params exactly as sent.
    pub params: Option<Box<RawValue>>,
}

/// A response the peer sent to one of our requests.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// The id of the request it answers.
    pub id: RequestId,
    /// The result, or the error.
    pub outcome: Result<Box<RawValue>, McpError>,
}

/// One incoming JSON-RPC message, classified.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A request: it gets exactly one response.
    Request(RawRequest),
    /// A notification: it never gets a response.
    Notification(RawNotification),
    /// A response to a request we sent.
    Response(RawResponse),
}

/// Why a line is not a JSON-RPC message, with the id to answer under when one could be read.
#[derive(Debug, Clone)]
pub struct Rejected {
    /// The id of the offending request, when it had a usable one (else the error goes out without an `id`).
    pub id: Option<RequestId>,
    /// The error to send back.
    pub error: McpError,
    /// True for a malformed *response*: JSON-RPC never answers a response, so it is only logged.
    pub silent: bool,
}

/// Distinguishes a member that is absent from one that is `null`.
#[derive(Debug, Default)]
enum Slot<'a> {
    #[default]
    Absent,
    Present(&'a RawValue),
}

impl<'de: 'a, 'a> Deserialize<'de> for Slot<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(Slot::Present)
    }
}

/// The `id` member, read as an id in the same pass as the envelope.
#[derive(Debug, Default)]
enum IdSlot {
    #[default]
    Absent,
    Valid(RequestId),
    /// Present, but neither a string nor an integer that fits an `i64`.
    Invalid,
}

impl<'de> Deserialize<'de> for IdSlot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdSlotVisitor;
        impl<'de> de::Visitor<'de> for IdSlotVisitor {
            type Value = IdSlot;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IdSlot, E> {
                Ok(IdSlot::Valid(RequestId::Number(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IdSlot, E> {
                Ok(i64::try_from(v)
                    .map_or(IdSlot::Invalid, |v| IdSlot::Valid(RequestId::Number(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IdSlot, E> {
                Ok(IdSlot::Valid(RequestId::String(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<IdSlot, E> {
                Ok(IdSlot::Valid(RequestId::String(v)))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<IdSlot, E> {
                Ok(IdSlot::Invalid)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<IdSlot, E> {
                Ok(IdSlot::Invalid)
            }
            fn visit_unit<E: de::Error>(self) -> Result<IdSlot, E> {
                Ok(IdSlot::Invalid)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<IdSlot, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(IdSlot::Invalid)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<IdSlot, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(IdSlot::Invalid)
            }
        }
        d.deserialize_any(IdSlotVisitor)
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<Text<'a>>,
    #[serde(default)]
    id: IdSlot,
    #[serde(borrow, default)]
    method: Option<Text<'a>>,
    #[serde(borrow, default)]
    params: Slot<'a>,
    #[serde(borrow, default)]
    result: Slot<'a>,
    #[serde(borrow, default)]
    error: Slot<'a>,
}

impl Incoming {
    /// Classifies one message. `Err` carries the JSON-RPC error the sender gets (or, for a
    /// malformed response, one that is only logged).
    pub fn parse(text: &str) -> Result<Incoming, Rejected> {
        let reject = |id, error| {
            Err(Rejected {
                id,
                error,
                silent: false,
            })
        };
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            return match serde_json::from_str::<&RawValue>(text) {
                Ok(_) => reject(
                    None,
                    McpError::invalid_request("Batch requests are not supported"),
                ),
                Err(e) => reject(None, McpError::parse_error(format!("Parse error: {e}"))),
            };
        }
        let env: Envelope<'_> = match serde_json::from_str(text) {
            Ok(env) => env,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return reject(None, McpError::parse_error(format!("Parse error: {e}")));
            }
            // An object, but not a message: a member twice, or one of the wrong type.
            Err(e) if trimmed.starts_with('{') => {
                return reject(
                    None,
                    McpError::invalid_request(format!("Invalid JSON-RPC message: {e}")),
                );
            }
            Err(_) => {
                return reject(
                    None,
                    McpError::invalid_request("A JSON-RPC message must be an object"),
                );
            }
        };
        let id = match env.id {
            IdSlot::Absent => None,
            IdSlot::Valid(id) => Some(id),
            IdSlot::Invalid => {
                return reject(
                    None,
                    McpError::invalid_request("The id must be a string or an integer"),
                );
            }
        };
        if env.jsonrpc.as_deref() != Some("2.0") {
            return reject(id, McpError::invalid_request("jsonrpc must be \"2.0\""));
        }
        let params = match env.params {
            Slot::Absent => None,
            Slot::Present(raw) => match raw.get().as_bytes().first() {
                Some(b'{') => Some(raw.to_owned()),
                Some(b'n') => None,
                _ => {
                    return reject(id, McpError::invalid_params("params must be an object"));
                }
            },
        };
        match (env.method, id) {
            (Some(method), Some(id)) => {
                if matches!(env.result, Slot::Present(_)) || matches!(env.error, Slot::Present(_)) {
                    return reject(
                        Some(id),
                        McpError::invalid_request("A request carries no result or error"),
                    );
                }
                Ok(Incoming::Request(RawRequest {
                    id,
                    method: method.0.into_owned(),
                    params,
                }))
            }
            (Some(method), None) => Ok(Incoming::Notification(RawNotification {
                method: method.0.into_owned(),
                params,
            })),
            (None, Some(id)) => match (env.result, env.error) {
                (Slot::Present(result), Slot::Absent) => Ok(Incoming::Response(RawResponse {
                    id,
                    outcome: Ok(result.to_owned()),
                })),
                (Slot::Absent, Slot::Present(error)) => {
                    let error =
                        serde_json::from_str::<McpError>(error.get()).map_err(|_| Rejected {
                            id: None,
                            error: McpError::invalid_request("Malformed error object"),
                            silent: true,
                        })?;
                    Ok(Incoming::Response(RawResponse {
                        id,
                        outcome: Err(error),
                    }))
                }
                _ => Err(Rejected {
                    id: Some(id),
                    error: McpError::invalid_request("A response carries a result or an error"),
                    silent: true,
                }),
            },
            (None, None) => reject(
                None,
                McpError::invalid_request("A message needs a method, a result or an error"),
            ),
        }
    }
}

/// Writes `{"jsonrpc":"2.0","id":…,"result":…}`.
pub fn result_line<T: Serialize + ?Sized>(id: &RequestId, result: &T) -> String {
    finish_line(write_result(id, |line| serde_json::to_writer(line, result)))
}

/// [`result_line`] of a result the runtime sends, written by [`WireResult::write_json`].
pub(crate) fn wire_result_line<R: WireResult>(id: &RequestId, result: &R) -> String {
    finish_line(write_result(id, |line| result.write_json(line)))
}

/// Writes `{"jsonrpc":"2.0","id":…,"error":…}`; `id` is left out when the request had no
/// usable one (the MCP schemas allow no `null` id).
pub fn error_line(id: Option<&RequestId>, error: &McpError) -> String {
    to_line(&ErrorResponse { id, error }, LINE_ROOM)
}

/// Writes `{"jsonrpc":"2.0","method":…,"params":…}`.
pub fn notification_line<T: Serialize + ?Sized>(method: &str, params: &T) -> String {
    to_line(
        &Message {
            id: None,
            method,
            params,
        },
        LINE_ROOM,
    )
}

/// Writes `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
pub fn request_line<T: Serialize + ?Sized>(id: &RequestId, method: &str, params: &T) -> String {
    to_line(
        &Message {
            id: Some(id),
            method,
            params,
        },
        LINE_ROOM,
    )
}

/// `message` as one line, in a buffer that starts with `room` bytes.
fn to_line<T: Serialize>(message: &T, room: usize) -> String {
    finish_line(write_line(message, room))
}

fn write_line<T: Serialize>(message: &T, room: usize) -> Result<String, String> {
    let mut line = Vec::with_capacity(room);
    serde_json::to_writer(&mut line, message).map_err(|e| e.to_string())?;
    // serde_json writes UTF-8 only; the check costs less than the reallocations it saves.
    String::from_utf8(line).map_err(|e| e.to_string())
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`. The envelope's members are written as the literal
/// they always are: serde_json would scan each of their keys and values for an escape, which
/// costs as much as writing a small result.
fn write_result(
    id: &RequestId,
    write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
) -> Result<String, String> {
    let mut line = Vec::with_capacity(RESULT_ROOM);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut line, id).map_err(|e| e.to_string())?;
    line.extend_from_slice(br#","result":"#);
    write(&mut line).map_err(|e| e.to_string())?;
    line.push(b'}');
    // serde_json writes UTF-8 only; the check costs less than the reallocations it saves.
    String::from_utf8(line).map_err(|e| e.to_string())
}

/// The line written, or, should writing fail, a well-formed internal error instead of a torn
/// line (every type we serialize has string keys and no failing `Serialize` impl).
fn finish_line(written: Result<String, String>) -> String {
    written.unwrap_or_else(|error| {
        tracing::error!(%error, "failed to serialize an outgoing message");
        r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_owned()
    })
}

/// The room a result line starts with, enough for most at once (serde_json's `to_string`
/// starts at 128 bytes, so a 190-byte result took two allocations and a question with its
/// form four), and below the 1 KiB from which glibc's `malloc` consolidates its fast bins. A
/// result is sent once and dropped; notifications, which may wait in a listener's queue by
/// the thousand, keep the small start.
const RESULT_ROOM: usize = 1000;
/// The room other lines start with, as `to_string`'s.
const LINE_ROOM: usize = 128;

struct ErrorResponse<'a> {
    id: Option<&'a RequestId>,
    error: &'a McpError,
}

impl Serialize for ErrorResponse<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Response", 3)?;
        st.serialize_field("jsonrpc", "2.0")?;
        // Both revisions' schemas make `id` optional but never `null` (`RequestId` is a string
        // or an integer): an error that answers no readable id leaves it out.
        if let Some(id) = self.id {
            st.serialize_field("id", id)?;
        } else {
            st.skip_field("id")?;
        }
        st.serialize_field("error", self.error)?;
        st.end()
    }
}

struct Message<'a, T: ?Sized> {
    id: Option<&'a RequestId>,
    method: &'a str,
    params: &'a T,
}

impl<T: Serialize + ?Sized> Serialize for Message<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Message", 4)?;
        st.serialize_field("jsonrpc", "2.0")?;
        if let Some(id) = self.id {
            st.serialize_field("id", id)?;
        }
        st.serialize_field("method", self.method)?;
        st.serialize_field("params", self.params)?;
        st.end()
    }
}

/// Decodes params into `T`, mapping failures to -32602 with serde's explanation
/// (which names the offending field).
pub fn decode_params<T: serde::de::DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<T, McpError> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| {
        // The envelope keeps params unparsed, so a syntax error (a lone surrogate escape) may
        // only be found here: it is still a parse error, not bad params.
        if e.is_syntax() || e.is_eof() {
            McpError::parse_error(format!("Parse error: {e}"))
        } else {
            McpError::invalid_params(format!("Invalid params: {e}"))
        }
    })
}

/// A JSON value that is known to be an object; a convenience alias for `_meta` and the like.
pub type JsonObject = serde_json::Map<String, Value>;

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn parsed(line: &str) -> Value {
        serde_json::from_str(line).expect("a line of JSON")
    }

    #[test]
    fn a_result_line_is_what_serde_json_writes_for_the_whole_response() {
        let ids = [
            RequestId::Number(-3),
            RequestId::Number(i64::MAX),
            RequestId::String(String::new()),
            RequestId::String("quote \" backslash \\ é \u{1F600} \u{7}".to_owned()),
        ];
        let results = [
            json!({}),
            json!({"content": [{"type": "text", "text": "a\nb"}], "isError": false}),
            json!(null),
            json!("x"),
        ];
        for id in &ids {
            for result in &results {
                let line = result_line(id, result);
                assert_eq!(
                    parsed(&line),
                    json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    "{line}"
                );
                // Members in the order the spec's examples give, as serde_json wrote them.
                let id = serde_json::to_string(id).expect("json");
                let result = serde_json::to_string(result).expect("json");
                assert_eq!(
                    line,
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
                );
            }
        }
    }

    #[test]
    fn ids_are_strings_or_integers_and_anything_else_is_refused_without_an_id() {
        let message = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        for (id, expected) in [
            ("7", RequestId::Number(7)),
            ("-7", RequestId::Number(-7)),
            ("9223372036854775807", RequestId::Number(i64::MAX)),
            (r#""a\"b""#, RequestId::String("a\"b".to_owned())),
            (r#""""#, RequestId::String(String::new())),
        ] {
            match Incoming::parse(&message(id)) {
                Ok(Incoming::Request(request)) => assert_eq!(request.id, expected, "{id}"),
                other => panic!("{id}: {other:?}"),
            }
        }
        for id in [
            "null",
            "true",
            "1.5",
            "1e2",
            "9223372036854775808",
            "18446744073709551616",
            "{}",
            r#"{"a":[1,{"b":null}]}"#,
            "[]",
            r#"[1,"x",[{}]]"#,
        ] {
            match Incoming::parse(&message(id)) {
                Err(rejected) => {
                    assert_eq!(rejected.error.code, -32600, "{id}");
                    assert!(rejected.id.is_none(), "{id}");
                }
                Ok(other) => panic!("{id}: {other:?}"),
            }
        }
        // Broken JSON inside the id is the message's syntax, not its id.
        let broken = Incoming::parse(r#"{"jsonrpc":"2.0","id":{"a":],"method":"ping"}"#);
        assert_eq!(broken.map(|_| ()).map_err(|r| r.error.code), Err(-32700));
        let twice = Incoming::parse(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
        assert_eq!(twice.map(|_| ()).map_err(|r| r.error.code), Err(-32600));
        let absent = Incoming::parse(r#"{"jsonrpc":"2.0","method":"ping"}"#);
        assert!(
            matches!(absent, Ok(Incoming::Notification(_))),
            "{absent:?}"
        );
    }
}
