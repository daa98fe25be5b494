//! The one reader of a request's params before dispatch (`server/preread.rs`), as the HTTP
//! transport uses it (to check routing headers) and as the gate does (to admit the request).
//!
//! Inputs are arbitrary text, or params objects built from their members — `_meta` (itself
//! built from its keys), `name`, `uri`, `arguments`, `requestState` and others — each possibly
//! repeated, with values of the right and the wrong types. Besides "never panics": the
//! transport's reading and the gate's agree exactly, so no body can be read one way for
//! routing and another for admission; the walk over the checked text that both take first
//! finds what serde_json's careful reading finds, wherever it reads the params at all; and
//! for built objects the verdict is computed here independently (refused when a member or a
//! `_meta` key repeats or has the wrong type; else the version, capabilities, state and
//! target as written) and must match.

#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_runtime::__private::fuzzing::{ParamsVerdict, read_both_ways, walk_agrees};
use serde_json::value::RawValue;

#[derive(Debug, Arbitrary)]
enum Input {
    Text(String),
    Built(Vec<Member>),
}

#[derive(Debug, Arbitrary)]
enum Member {
    Meta(MetaValue),
    Name(Scalar),
    Uri(Scalar),
    Arguments(Scalar),
    RequestState(Scalar),
    Other(String, Scalar),
}

#[derive(Debug, Arbitrary)]
enum MetaValue {
    Object(Vec<MetaKey>),
    Null,
    Wrong(Scalar),
}

#[derive(Debug, Arbitrary)]
enum MetaKey {
    ProtocolVersion(Scalar),
    ClientCapabilities(Scalar),
    ClientInfo(Scalar),
    LogLevel(Scalar),
    ProgressToken(Scalar),
    Other(String, Scalar),
}

/// Values of every type the members may be given.
#[derive(Debug, Clone, Arbitrary)]
enum Scalar {
    Null,
    Version,
    Text(String),
    Number(i32),
    Bool(bool),
    EmptyObject,
    ClientInfo,
    Level,
    Array,
    Deep(u16),
}

impl Scalar {
    fn json(&self) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Version => r#""2026-07-28""#.into(),
            Scalar::Text(s) => serde_json::to_string(s).unwrap_or_default(),
            Scalar::Number(n) => n.to_string(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::EmptyObject => "{}".into(),
            Scalar::ClientInfo => r#"{"name":"c","version":"1"}"#.into(),
            Scalar::Level => r#""info""#.into(),
            Scalar::Array => "[1,2]".into(),
            Scalar::Deep(_) => {
                let n = self.depth();
                format!("{}{}", "[".repeat(n), "]".repeat(n))
            }
        }
    }

    /// How deeply a `Deep` value nests.
    fn depth(&self) -> usize {
        match self {
            Scalar::Deep(n) => usize::from(*n) % 300 + 1,
            _ => 0,
        }
    }

    fn text(&self) -> Option<String> {
        match self {
            Scalar::Version => Some("2026-07-28".into()),
            Scalar::Text(s) => Some(s.clone()),
            Scalar::Level => Some("info".into()),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self, Scalar::Null)
    }
}

fn object(members: impl Iterator<Item = (String, String)>) -> String {
    let members: Vec<String> = members
        .map(|(key, value)| {
            format!(
                "{}:{value}",
                serde_json::to_string(&key).unwrap_or_default()
            )
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

impl MetaKey {
    fn entry(&self) -> (String, &Scalar) {
        match self {
            MetaKey::ProtocolVersion(v) => ("io.modelcontextprotocol/protocolVersion".into(), v),
            MetaKey::ClientCapabilities(v) => {
                ("io.modelcontextprotocol/clientCapabilities".into(), v)
            }
            MetaKey::ClientInfo(v) => ("io.modelcontextprotocol/clientInfo".into(), v),
            MetaKey::LogLevel(v) => ("io.modelcontextprotocol/logLevel".into(), v),
            MetaKey::ProgressToken(v) => ("progressToken".into(), v),
            MetaKey::Other(k, v) => (k.clone(), v),
        }
    }
}

impl Member {
    fn entry(&self) -> (String, String) {
        match self {
            Member::Meta(MetaValue::Object(keys)) => (
                "_meta".into(),
                object(keys.iter().map(|k| {
                    let (key, value) = k.entry();
                    (key, value.json())
                })),
            ),
            Member::Meta(MetaValue::Null) => ("_meta".into(), "null".into()),
            Member::Meta(MetaValue::Wrong(v)) => ("_meta".into(), v.json()),
            Member::Name(v) => ("name".into(), v.json()),
            Member::Uri(v) => ("uri".into(), v.json()),
            Member::Arguments(v) => ("arguments".into(), v.json()),
            Member::RequestState(v) => ("requestState".into(), v.json()),
            Member::Other(k, v) => (k.clone(), v.json()),
        }
    }
}

/// Whether a `_meta` value of a known key has a type its field takes.
fn meta_value_fits(key: &str, value: &Scalar) -> bool {
    match key {
        "io.modelcontextprotocol/protocolVersion" => value.is_null() || value.text().is_some(),
        "io.modelcontextprotocol/clientCapabilities" => {
            // Capabilities it does not know are ignored: any object will do.
            matches!(
                value,
                Scalar::Null | Scalar::EmptyObject | Scalar::ClientInfo
            )
        }
        "io.modelcontextprotocol/clientInfo" => matches!(value, Scalar::Null | Scalar::ClientInfo),
        "io.modelcontextprotocol/logLevel" => match value {
            Scalar::Null | Scalar::Level => true,
            Scalar::Text(s) => LEVELS.contains(&s.as_str()),
            _ => false,
        },
        "progressToken" => {
            value.is_null() || value.text().is_some() || matches!(value, Scalar::Number(_))
        }
        // Other keys are kept as JSON values, read under serde_json's limit of 127 containers
        // nested inside one another, of which the params and `_meta` are two.
        _ => !matches!(value, Scalar::Deep(_)) || 2 + value.depth() <= 127,
    }
}

const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The verdict the reader must give built params, or `None` when it must refuse them.
fn expected(members: &[Member]) -> Option<ParamsVerdict> {
    let count = |key: &str| members.iter().filter(|m| m.entry().0 == key).count();
    for key in ["_meta", "name", "uri", "arguments"] {
        if count(key) > 1 {
            return None;
        }
    }
    let find = |key: &str| members.iter().find(|m| m.entry().0 == key);
    let mut verdict = ParamsVerdict {
        protocol_version: None,
        declares_capabilities: false,
        request_state: None,
        name: None,
        uri: None,
    };
    let meta: Option<Vec<(String, &Scalar)>> = match find("_meta") {
        None => None,
        Some(Member::Meta(MetaValue::Object(keys))) => {
            Some(keys.iter().map(MetaKey::entry).collect())
        }
        Some(Member::Meta(MetaValue::Null)) => None,
        Some(Member::Meta(MetaValue::Wrong(v)) | Member::Other(_, v)) => match v {
            Scalar::Null => None,
            // Objects without a key of `_meta`'s own.
            Scalar::EmptyObject | Scalar::ClientInfo => Some(Vec::new()),
            _ => return None,
        },
        Some(_) => unreachable!("only `_meta` members are found by that name"),
    };
    let entries = meta.unwrap_or_default();
    for (i, (key, value)) in entries.iter().enumerate() {
        if entries[..i].iter().any(|(k, _)| k == key) || !meta_value_fits(key, value) {
            return None;
        }
        match key.as_str() {
            "io.modelcontextprotocol/protocolVersion" => verdict.protocol_version = value.text(),
            "io.modelcontextprotocol/clientCapabilities" => {
                verdict.declares_capabilities = !value.is_null();
            }
            _ => {}
        }
    }
    let states: Vec<&Member> = members
        .iter()
        .filter(|m| m.entry().0 == "requestState")
        .collect();
    verdict.request_state = match states.as_slice() {
        [] => None,
        [one] => {
            let value = match one {
                Member::RequestState(v) | Member::Other(_, v) => v,
                _ => return None,
            };
            match (value.is_null(), value.text()) {
                (true, _) => None,
                (false, Some(token)) => Some(Some(token)),
                (false, None) => Some(None),
            }
        }
        _ => Some(None),
    };
    let text_of = |key: &str| {
        find(key).and_then(|m| match m {
            Member::Name(v) | Member::Uri(v) | Member::Other(_, v) => v.text(),
            _ => None,
        })
    };
    verdict.name = text_of("name");
    verdict.uri = text_of("uri");
    Some(verdict)
}

fn check(params: &RawValue) -> Result<ParamsVerdict, i32> {
    assert!(
        walk_agrees(params),
        "the walk over {params} finds otherwise than the careful reading"
    );
    let (transport, gate) = read_both_ways(params);
    let without_target = transport
        .as_ref()
        .map_err(|&code| code)
        .map(|v| ParamsVerdict {
            name: None,
            uri: None,
            protocol_version: v.protocol_version.clone(),
            declares_capabilities: v.declares_capabilities,
            request_state: v.request_state.clone(),
        });
    assert_eq!(
        without_target, gate,
        "the transport and the gate read {params} differently"
    );
    if let Err(code) = transport {
        assert!(code == -32602 || code == -32700, "code {code} for {params}");
    }
    transport
}

fuzz_target!(|input: Input| {
    match input {
        Input::Text(text) => {
            if let Ok(params) = RawValue::from_string(text) {
                let _ = check(&params);
            }
        }
        Input::Built(members) => {
            let text = object(members.iter().map(Member::entry));
            let params = match RawValue::from_string(text.clone()) {
                Ok(params) => params,
                Err(e) => panic!("built params are not JSON ({e}): {text}"),
            };
            let verdict = check(&params).ok();
            assert_eq!(verdict, expected(&members), "for {params}");
        }
    }
});
