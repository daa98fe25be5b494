//! `Incoming::parse`, which classifies every message a transport receives, on arbitrary text
//! and on objects built from the envelope's members (random text almost never gets past the
//! first checks: a million runs of it found no accepted message).
//!
//! Besides "never panics": an accepted message is a JSON object whose top-level members, read
//! here independently and with duplicates kept, say what the parse says; written back with the
//! runtime's own writers it parses to the same message, and is written identically again. A
//! rejection answers with a JSON-RPC error line under the id the message carried, and calls the
//! text a parse error only if it is not JSON.

#![no_main]

#[path = "shared/json_text.rs"]
mod json_text;

use std::fmt::{self, Write as _};

use json_text::write_string;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::protocol::{
    Incoming, RawRequest, RawResponse, Rejected, RequestId, code, error_line, notification_line,
    request_line, result_line,
};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// The members the envelope is made of; any other member is ignored.
const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// The top-level members of an object in order, duplicates kept, values as sent.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Collect;
        impl<'de> Visitor<'de> for Collect {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(Collect)
    }
}

impl Members<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        let mut found = self.0.iter().filter(|(key, _)| key == name);
        let first = found.next().map(|(_, value)| value.get());
        assert!(found.next().is_none(), "accepted a duplicate {name}");
        first
    }

    /// Absent and `null` are the same to the envelope.
    fn get_non_null(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|&raw| raw != "null")
    }
}

fn string(raw: Option<&str>) -> Option<String> {
    serde_json::from_str(raw?).ok()
}

fn id(raw: Option<&str>) -> Option<RequestId> {
    serde_json::from_str(raw?).ok()
}

fn raw_params(params: &Option<Box<RawValue>>) -> Option<&str> {
    params.as_deref().map(RawValue::get)
}

/// What the members say matches the classification.
fn check_members(text: &str, message: &Incoming) {
    let members: Members<'_> =
        serde_json::from_str(text).expect("an accepted message is a JSON object");
    for name in ENVELOPE {
        members.get(name);
    }
    assert_eq!(string(members.get("jsonrpc")).as_deref(), Some("2.0"));
    let params = members.get_non_null("params");
    assert!(
        params.is_none_or(|p| p.starts_with('{')),
        "params {params:?}"
    );
    match message {
        Incoming::Request(r) => {
            assert_eq!(id(members.get("id")).as_ref(), Some(&r.id));
            assert_eq!(string(members.get("method")).as_ref(), Some(&r.method));
            assert_eq!(raw_params(&r.params), params);
            assert_eq!(members.get("result"), None);
            assert_eq!(members.get("error"), None);
        }
        Incoming::Notification(n) => {
            assert_eq!(members.get("id"), None);
            assert_eq!(string(members.get("method")).as_ref(), Some(&n.method));
            assert_eq!(raw_params(&n.params), params);
        }
        Incoming::Response(r) => {
            assert_eq!(id(members.get("id")).as_ref(), Some(&r.id));
            assert_eq!(members.get_non_null("method"), None);
            match &r.outcome {
                Ok(result) => {
                    assert_eq!(members.get("result"), Some(result.get()));
                    assert_eq!(members.get("error"), None);
                }
                Err(error) => {
                    assert_eq!(members.get("result"), None);
                    let sent: Value = serde_json::from_str(members.get("error").expect("error"))
                        .expect("an accepted error object is JSON");
                    assert_eq!(sent["code"], error.code);
                    assert_eq!(sent["message"].as_str(), Some(&*error.message));
                }
            }
        }
    }
}

fn reparse(line: &str) -> Incoming {
    Incoming::parse(line).unwrap_or_else(|r| panic!("own line {line} rejected: {:?}", r.error))
}

/// Written back, the message parses to itself, and is then written the same way.
fn check_round_trip(message: &Incoming) {
    match message {
        Incoming::Request(r) => {
            let line = request_line(&r.id, &r.method, &r.params);
            let Incoming::Request(again) = reparse(&line) else {
                panic!("{line} is no longer a request");
            };
            let RawRequest { id, method, params } = &again;
            assert_eq!((id, method), (&r.id, &r.method));
            assert_eq!(raw_params(params), raw_params(&r.params));
            assert_eq!(request_line(id, method, params), line);
        }
        Incoming::Notification(n) => {
            let line = notification_line(&n.method, &n.params);
            let Incoming::Notification(again) = reparse(&line) else {
                panic!("{line} is no longer a notification");
            };
            assert_eq!(again.method, n.method);
            assert_eq!(raw_params(&again.params), raw_params(&n.params));
            assert_eq!(notification_line(&again.method, &again.params), line);
        }
        Incoming::Response(r) => {
            let line = match &r.outcome {
                Ok(result) => result_line(&r.id, result),
                Err(error) => error_line(Some(&r.id), error),
            };
            let Incoming::Response(RawResponse { id, outcome }) = reparse(&line) else {
                panic!("{line} is no longer a response");
            };
            assert_eq!(id, r.id);
            match (&outcome, &r.outcome) {
                (Ok(again), Ok(result)) => {
                    assert_eq!(again.get(), result.get());
                    assert_eq!(result_line(&id, again), line);
                }
                // `data` is not compared: a float in it need not survive a second reading
                // exactly (serde_json without `float_roundtrip`).
                (Err(again), Err(error)) => {
                    assert_eq!((again.code, &again.message), (error.code, &error.message));
                    assert_eq!(again.data.is_some(), error.data.is_some());
                }
                _ => panic!("{line} changed from result to error or back"),
            }
        }
    }
}

fn check_rejection(text: &str, rejected: &Rejected) {
    let codes = [
        code::PARSE_ERROR,
        code::INVALID_REQUEST,
        code::INVALID_PARAMS,
    ];
    assert!(codes.contains(&rejected.error.code), "{:?}", rejected.error);
    let line = error_line(rejected.id.as_ref(), &rejected.error);
    let answer: Value = serde_json::from_str(&line).expect("the error line is JSON");
    assert_eq!(answer["error"]["code"], rejected.error.code);
    if let Some(sent) = &rejected.id {
        let members: Members<'_> =
            serde_json::from_str(text).expect("a message with an id is an object");
        let raw = members.0.iter().rev().find(|(key, _)| key == "id");
        assert_eq!(id(raw.map(|(_, value)| value.get())).as_ref(), Some(sent));
    }
    // Not the converse: params are kept as sent, so a lone surrogate escape or deep nesting
    // inside them, which a full reading refuses, still makes a valid envelope.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        assert_ne!(rejected.error.code, code::PARSE_ERROR, "valid JSON: {text}");
        if !value.is_object() {
            assert_eq!(rejected.error.code, code::INVALID_REQUEST);
            assert!(rejected.id.is_none());
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Input {
    Text(String),
    Object {
        members: Vec<(Key, Json)>,
        /// Keys written as `\u` escapes, which name the same member.
        escape_keys: bool,
        spaced: bool,
        trailing: String,
    },
}

#[derive(Arbitrary, Debug)]
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Unsigned(u64),
    /// Written with `{:?}`, so also `NaN` and `inf`, which are not JSON.
    Float(f64),
    Version,
    Text(String),
    Method(bool),
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    ErrorObject {
        code: i32,
        message: String,
        data: Option<Box<Json>>,
    },
    /// Verbatim, JSON or not.
    Raw(String),
}

fn write_json(out: &mut String, value: &Json) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Json::Unsigned(n) => {
            let _ = write!(out, "{n}");
        }
        Json::Float(f) => {
            let _ = write!(out, "{f:?}");
        }
        Json::Version => out.push_str(r#""2.0""#),
        Json::Text(s) => write_string(out, s, false),
        Json::Method(notification) => out.push_str(if *notification {
            r#""notifications/cancelled""#
        } else {
            r#""tools/call""#
        }),
        Json::Object(members) => {
            out.push('{');
            for (n, (key, value)) in members.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_string(out, key, false);
                out.push(':');
                write_json(out, value);
            }
            out.push('}');
        }
        Json::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Json::ErrorObject {
            code,
            message,
            data,
        } => {
            let _ = write!(out, r#"{{"code":{code},"message":"#);
            write_string(out, message, false);
            if let Some(data) = data {
                out.push_str(r#","data":"#);
                write_json(out, data);
            }
            out.push('}');
        }
        Json::Raw(text) => out.push_str(text),
    }
}

fn write_object(members: &[(Key, Json)], escape_keys: bool, spaced: bool) -> String {
    let gap = if spaced { " \t\r\n" } else { "" };
    let mut out = format!("{gap}{{");
    for (n, (key, value)) in members.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(gap);
        let name = match key {
            Key::Jsonrpc => "jsonrpc",
            Key::Id => "id",
            Key::Method => "method",
            Key::Params => "params",
            Key::Result => "result",
            Key::Error => "error",
            Key::Other(name) => name,
        };
        write_string(&mut out, name, escape_keys);
        out.push_str(gap);
        out.push(':');
        out.push_str(gap);
        write_json(&mut out, value);
    }
    out.push_str(gap);
    out.push('}');
    out
}

fuzz_target!(|input: Input| {
    let text = match input {
        Input::Text(text) => text,
        Input::Object {
            members,
            escape_keys,
            spaced,
            trailing,
        } => write_object(&members, escape_keys, spaced) + &trailing,
    };
    match Incoming::parse(&text) {
        Ok(message) => {
            check_members(&text, &message);
            check_round_trip(&message);
        }
        Err(rejected) => check_rejection(&text, &rejected),
    }
});
