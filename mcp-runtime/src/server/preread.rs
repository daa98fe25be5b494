//! Reading a request's params before dispatch, for a transport that must look at them first
//! (the HTTP transport checks its routing headers against them). The gate's part of what was
//! read travels on as one opaque [`Preparsed`] value, so the params are read once, by the
//! server's own reader.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{RequestMeta, Text};

use super::gate::{GateInput, Preparsed};

impl Preparsed {
    /// The protocol version `_meta` names, if any.
    pub fn protocol_version(&self) -> Option<&str> {
        self.input().meta.as_ref()?.protocol_version.as_deref()
    }

    /// Whether `_meta` declares the client's capabilities.
    pub fn declares_client_capabilities(&self) -> bool {
        self.input()
            .meta
            .as_ref()
            .is_some_and(|m| m.client_capabilities.is_some())
    }
}

/// A request's params read in one pass: the gate's input and, borrowed from the params, what
/// they name (a tool or prompt, a resource URI) and the tool's arguments.
#[derive(Debug)]
pub(crate) struct Preread<'a> {
    /// What the gate reads, for dispatch.
    pub preparsed: Preparsed,
    /// `name` (`tools/call`, `prompts/get`).
    pub name: Option<Text<'a>>,
    /// `uri` (`resources/read`).
    pub uri: Option<Text<'a>>,
    /// `arguments` (`tools/call`), unparsed.
    pub arguments: Option<&'a RawValue>,
}

/// The params' shape [`Preread`] is read through.
#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
    #[serde(rename = "requestState", default)]
    request_state: Option<Value>,
    #[serde(borrow, default)]
    name: Option<Text<'a>>,
    #[serde(borrow, default)]
    uri: Option<Text<'a>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

impl<'a> Preread<'a> {
    /// Reads `params`, or `None` when they do not have the shape the gate expects (a `_meta`
    /// the gate will reject, a `name` that is not a string): then see [`Claim::read`].
    pub fn read(params: &'a RawValue) -> Option<Self> {
        let Fields {
            meta,
            request_state,
            name,
            uri,
            arguments,
        } = serde_json::from_str(params.get()).ok()?;
        let input = Box::new(GateInput {
            meta,
            request_state,
        });
        Some(Self {
            preparsed: Preparsed::new(input),
            name,
            uri,
            arguments,
        })
    }
}

/// What can still be read from params that [`Preread`] could not read: whether they claim the
/// stateless wire. A transport checks such a request's routing headers against a body that
/// names no target, so an odd body cannot slip past them; the gate then says precisely what is
/// wrong.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Claim<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<ClaimedMeta<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct ClaimedMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Text<'a>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<IgnoredAny>,
}

impl<'a> Claim<'a> {
    /// Reads what `params` claim; nothing when even that does not parse.
    pub fn read(params: &'a RawValue) -> Self {
        serde_json::from_str(params.get()).unwrap_or_default()
    }

    /// Whether the params have a `_meta` at all.
    pub fn has_meta(&self) -> bool {
        self.meta.is_some()
    }

    /// The protocol version `_meta` claims.
    pub fn protocol_version(&self) -> Option<&str> {
        self.meta.as_ref()?.protocol_version.as_deref()
    }

    /// Whether `_meta` declares the client's capabilities (of whatever shape).
    pub fn declares_client_capabilities(&self) -> bool {
        self.meta
            .as_ref()
            .is_some_and(|m| m.client_capabilities.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_read_in_one_pass_for_routing_and_the_gate() {
        let params = r#"{"name":"provision","arguments":{"name":"orders"},"inputResponses":{"region":{"action":"accept","content":{"region":"eu-west-1"}}},"requestState":"v1.abc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}}"#;
        let raw = RawValue::from_string(params.to_owned()).expect("raw params");
        let read = Preread::read(&raw).expect("one pass reads it");
        assert_eq!(read.name.as_deref(), Some("provision"));
        assert_eq!(read.preparsed.protocol_version(), Some("2026-07-28"));
        assert!(read.preparsed.declares_client_capabilities());
        let input = read.preparsed.into_input();
        assert_eq!(input.request_state, Some(Value::from("v1.abc")));
    }

    #[test]
    fn params_of_an_odd_shape_still_tell_what_they_claim() {
        let raw = RawValue::from_string(
            r#"{"name":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#
                .to_owned(),
        )
        .expect("raw params");
        assert!(Preread::read(&raw).is_none());
        let claim = Claim::read(&raw);
        assert!(claim.has_meta());
        assert_eq!(claim.protocol_version(), Some("2026-07-28"));
        assert!(claim.declares_client_capabilities());
    }
}
