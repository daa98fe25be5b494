//! The one reader of a request's params before dispatch. The gate reads `_meta` and
//! `requestState` with it, and a transport that must look at the params first (the HTTP
//! transport checks its routing headers against them) reads them with it too, so the two can
//! never disagree about what a body says: a body one of them could not read is refused by
//! both. What the gate needs travels on as one opaque [`Preparsed`] value, so the params are
//! read once.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::protocol::{McpError, RequestMeta, Text};

#[cfg(feature = "http")]
use super::gate::Preparsed;
use super::gate::{GateInput, StateField};
use super::meta_cache;

#[cfg(feature = "http")]
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
/// they name (a tool or prompt, a resource URI, or the member an extension routes its method
/// by) and the tool's arguments.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct Preread<'a> {
    /// What the gate reads, for dispatch.
    pub preparsed: Preparsed,
    /// `name` (`tools/call`, `prompts/get`), when it is a string.
    pub name: Option<Text<'a>>,
    /// `uri` (`resources/read`), when it is a string.
    pub uri: Option<Text<'a>>,
    /// `arguments` (`tools/call`), its JSON text unparsed.
    pub arguments: Option<&'a str>,
    /// The member named by `routed_by`, when it is a string.
    pub routed: Option<Text<'a>>,
}

#[cfg(feature = "http")]
impl<'a> Preread<'a> {
    /// Reads `params`, and the member `routed_by` too when an extension routes the method by
    /// one; or says why they cannot be a request's params (-32602): `_meta` that is not a
    /// valid `_meta`, or a member that appears twice.
    ///
    /// A `name`, `uri` or routed member that is not a string reads as absent: routing headers
    /// that name a target then disagree with the body, and the handler's own decoding says
    /// what is wrong.
    pub fn read(params: &'a RawValue, routed_by: Option<&str>) -> Result<Self, McpError> {
        let Members {
            input,
            name,
            uri,
            arguments,
            input_responses,
            routed,
            ..
        } = Members::read(params, routed_by)?;
        let text = |raw: Option<&'a str>| raw.and_then(string);
        // The visitor keeps a member it reads for itself in its own slot.
        let routed = match routed_by {
            Some("name") => name,
            Some("uri") => uri,
            Some("arguments") => arguments,
            Some("inputResponses") => input_responses,
            _ => routed,
        };
        Ok(Self {
            preparsed: Preparsed::new(Box::new(input)),
            name: text(name),
            uri: text(uri),
            arguments,
            routed: text(routed),
        })
    }
}

/// What the reader made of params, as the fuzz target compares it (not API).
#[cfg(feature = "http")]
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub struct ParamsVerdict {
    /// `_meta`'s protocol version.
    pub protocol_version: Option<String>,
    /// Whether `_meta` declares client capabilities.
    pub declares_capabilities: bool,
    /// `None`: absent or `null`; `Some(None)`: not a token; `Some(Some(token))`.
    pub request_state: Option<Option<String>>,
    /// `name`, when a string.
    pub name: Option<String>,
    /// `uri`, when a string.
    pub uri: Option<String>,
}

/// Reads `params` as the HTTP transport does and as the gate does; the error codes when they
/// refuse (for the fuzz target, which holds the two to each other; not API).
#[cfg(feature = "http")]
#[doc(hidden)]
pub fn read_both_ways(
    params: &RawValue,
) -> (Result<ParamsVerdict, i32>, Result<ParamsVerdict, i32>) {
    let state = |field: &StateField| match field {
        StateField::Absent => None,
        StateField::NotAToken => Some(None),
        StateField::Token(token) => Some(Some(token.clone())),
    };
    let of_gate = |input: &GateInput| ParamsVerdict {
        protocol_version: input.meta.as_ref().and_then(|m| m.protocol_version.clone()),
        declares_capabilities: input
            .meta
            .as_ref()
            .is_some_and(|m| m.client_capabilities.is_some()),
        request_state: state(&input.request_state),
        name: None,
        uri: None,
    };
    let transport = Preread::read(params, None).map(|read| {
        let name = read.name.as_deref().map(str::to_owned);
        let uri = read.uri.as_deref().map(str::to_owned);
        let input = read.preparsed.into_input();
        ParamsVerdict {
            name,
            uri,
            ..of_gate(&input)
        }
    });
    let gate = GateInput::read(Some(params)).map(|input| of_gate(&input));
    (transport.map_err(|e| e.code), gate.map_err(|e| e.code))
}

/// Whether the walk over `params` (see `Members::walk`) finds what the careful reading
/// finds, wherever it reads them at all (for the fuzz target, which holds the two to each
/// other; not API).
#[cfg(feature = "http")]
#[doc(hidden)]
pub fn walk_agrees(params: &RawValue) -> bool {
    [None, Some("taskId"), Some("name")]
        .into_iter()
        .all(|routed_by| match Members::walk(params, routed_by) {
            None => true,
            Some(walked) => Members::read_with(params, routed_by, MetaReading::Cached)
                .is_ok_and(|careful| walked == careful),
        })
}

impl GateInput {
    /// Reads the gate's input from `params` (see [`Preread::read`] for what is refused).
    pub fn read(params: Option<&RawValue>) -> Result<Self, McpError> {
        match params {
            Some(params) => Members::read(params, None).map(|members| members.input),
            None => Ok(Self::default()),
        }
    }
}

/// The members of params that anything before dispatch reads: `_meta` parsed in the same pass
/// (it is read on every request), the others kept as their JSON text, found without
/// recursing, so no depth of nesting fails outside `_meta`. The targets are for the HTTP
/// transport's routing headers; they are read in every build all the same, so a member given
/// twice is refused alike with or without it. The one member an extension routes by is read
/// only by that transport, which alone compares it with a header.
#[derive(Default, PartialEq)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
struct Members<'a> {
    input: GateInput,
    name: Option<&'a str>,
    uri: Option<&'a str>,
    arguments: Option<&'a str>,
    input_responses: Option<&'a str>,
    /// `inputResponses` appeared twice: left to the typed decoding to refuse.
    input_responses_twice: bool,
    /// The member an extension routes the method by, unless one of the above.
    routed: Option<&'a str>,
}

impl<'a> Members<'a> {
    fn read(params: &'a RawValue, routed_by: Option<&str>) -> Result<Self, McpError> {
        if let Some(members) = Self::walk(params, routed_by) {
            return Ok(members);
        }
        // A refusal is worded by the reading in place, so that where `_meta` went wrong is a
        // position in the params; a body is refused after three readings instead of one.
        Self::read_with(params, routed_by, MetaReading::Cached)
            .or_else(|_| Self::read_with(params, routed_by, MetaReading::InPlace))
    }

    /// The members as [`read_with`](Self::read_with) reads them, found by walking the params'
    /// text, which serde_json checked already when it split off the envelope: no member's
    /// text is checked again. `None` for whatever that reading would refuse or decode
    /// otherwise (a key with an escape, a member twice, `_meta` that does not parse), which
    /// is left to it.
    fn walk(params: &'a RawValue, routed_by: Option<&str>) -> Option<Self> {
        fn once<'a>(slot: &mut Option<&'a str>, value: &'a str) -> Option<()> {
            slot.replace(value).is_none().then_some(())
        }
        let mut members = Members::default();
        let (mut meta_seen, mut state_seen) = (false, false);
        let mut walk = crate::protocol::members::members(params)?;
        while let Some(key) = walk.next_key() {
            let key = key.ok()?;
            if key.contains('\\') {
                return None;
            }
            if key == "_meta" {
                if std::mem::replace(&mut meta_seen, true) {
                    return None;
                }
                // The client's usual `_meta` is recognised by its text, not stepped through.
                members.input.meta = match meta_cache::kept_at_start(walk.ahead()) {
                    Some((len, meta)) => {
                        walk.step_over(len).ok()?;
                        Some(meta)
                    }
                    None => meta_cache::parse(walk.next_value().ok()?).ok()?,
                };
                continue;
            }
            let value = walk.next_value().ok()?;
            match key {
                "name" => once(&mut members.name, value)?,
                "uri" => once(&mut members.uri, value)?,
                "arguments" => once(&mut members.arguments, value)?,
                "inputResponses" => {
                    members.input_responses_twice |=
                        members.input_responses.replace(value).is_some();
                }
                "requestState" => {
                    members.input.request_state = if state_seen {
                        StateField::NotAToken
                    } else {
                        StateField::read(value)
                    };
                    state_seen = true;
                }
                routed if Some(routed) == routed_by => once(&mut members.routed, value)?,
                _ => {}
            }
        }
        members.input.layout = Layout::of(params, &members);
        Some(members)
    }

    fn read_with(
        params: &'a RawValue,
        routed_by: Option<&str>,
        meta: MetaReading,
    ) -> Result<Self, McpError> {
        let mut de = serde_json::Deserializer::from_str(params.get());
        let in_meta = Cell::new(false);
        let mut members = de
            .deserialize_map(MembersVisitor {
                in_meta: &in_meta,
                meta,
                routed_by,
            })
            .map_err(|e| {
                let what = if in_meta.get() {
                    "Invalid _meta"
                } else {
                    "Invalid params"
                };
                params_error(what, &e)
            })?;
        members.input.layout = Layout::of(params, &members);
        Ok(members)
    }
}

/// How the one pass reads `_meta`.
#[derive(Clone, Copy)]
enum MetaReading {
    /// Its text first, parsed through the thread's cache (`meta_cache`).
    Cached,
    /// Parsed where it stands in the params, so that an error's position is the params'.
    InPlace,
}

/// Where, in the params text, the members a multi-round method's params are made of lie, as
/// the one pass before dispatch found them: decoding the params from them reads those members
/// only, not `_meta` and `requestState` again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Layout {
    /// The params text the spans are in (address, length): a layout is used only on the very
    /// text it was read from.
    origin: Option<(usize, usize)>,
    name: Option<Span>,
    uri: Option<Span>,
    arguments: Option<Span>,
    input_responses: Option<Span>,
}

/// A member's value: its offset and length in the params text.
type Span = (u32, u32);

impl Layout {
    fn of(params: &RawValue, members: &Members<'_>) -> Self {
        let text = params.get();
        let Ok(len) = u32::try_from(text.len()) else {
            return Self::default();
        };
        if members.input_responses_twice {
            return Self::default();
        }
        let span = |member: Option<&str>| {
            let member = member?;
            let offset = (member.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
            let offset = u32::try_from(offset).ok()?;
            // In the text, or no span: the member was read from it, so it is.
            (offset.checked_add(u32::try_from(member.len()).ok()?)? <= len)
                .then_some((offset, member.len() as u32))
        };
        Self {
            origin: Some((text.as_ptr() as usize, text.len())),
            name: span(members.name),
            uri: span(members.uri),
            arguments: span(members.arguments),
            input_responses: span(members.input_responses),
        }
    }

    /// The members in `params`, if `params` is the text this layout was read from.
    pub(super) fn pieces<'a>(&self, params: Option<&'a RawValue>) -> Option<Pieces<'a>> {
        let text = params?.get();
        if self.origin? != (text.as_ptr() as usize, text.len()) {
            return None;
        }
        let slice = |span: Option<Span>| -> Option<Option<&'a str>> {
            match span {
                None => Some(None),
                Some((offset, len)) => text
                    .get(offset as usize..offset as usize + len as usize)
                    .map(Some),
            }
        };
        Some(Pieces {
            name: slice(self.name)?,
            uri: slice(self.uri)?,
            arguments: slice(self.arguments)?,
            input_responses: slice(self.input_responses)?,
        })
    }
}

/// The JSON text of the members a multi-round method's params are made of; every other
/// member of those params is one their typed decoding ignores.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pieces<'a> {
    pub name: Option<&'a str>,
    pub uri: Option<&'a str>,
    pub arguments: Option<&'a str>,
    pub input_responses: Option<&'a str>,
}

impl<'a> Pieces<'a> {
    /// A member decoded on its own, absent or `null` as `Some(None)`; `None` when its decoding
    /// fails, so that the whole params' decoding says what is wrong, in its own words.
    pub fn decode<T: serde::Deserialize<'a>>(piece: Option<&'a str>) -> Option<Option<T>> {
        match piece {
            None => Some(None),
            Some(text) => serde_json::from_str(text).ok(),
        }
    }
}

/// A syntax error found only now (the envelope keeps params unparsed) is a parse error; any
/// other is bad params.
fn params_error(what: &str, e: &serde_json::Error) -> McpError {
    if e.is_syntax() || e.is_eof() {
        McpError::parse_error(format!("Parse error: {e}"))
    } else {
        McpError::invalid_params(format!("{what}: {e}"))
    }
}

struct MembersVisitor<'c> {
    /// Set when reading `_meta` failed, so the error says so.
    in_meta: &'c Cell<bool>,
    meta: MetaReading,
    /// The member an extension routes the method by.
    routed_by: Option<&'c str>,
}

impl<'de> Visitor<'de> for MembersVisitor<'_> {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
        fn once<'de, E: de::Error>(
            slot: &mut Option<&'de str>,
            value: &'de RawValue,
            key: &'static str,
        ) -> Result<(), E> {
            match slot.replace(value.get()) {
                Some(_) => Err(E::duplicate_field(key)),
                None => Ok(()),
            }
        }
        let mut members = Members::default();
        let (mut meta_seen, mut state_seen) = (false, false);
        while let Some(key) = map.next_key::<Text<'de>>()? {
            match &*key {
                "_meta" => {
                    if std::mem::replace(&mut meta_seen, true) {
                        return Err(de::Error::duplicate_field("_meta"));
                    }
                    self.in_meta.set(true);
                    members.input.meta = match self.meta {
                        MetaReading::InPlace => {
                            map.next_value::<Option<RequestMeta>>()?.map(Arc::new)
                        }
                        MetaReading::Cached => {
                            let text: &RawValue = map.next_value()?;
                            meta_cache::parse(text.get()).map_err(de::Error::custom)?
                        }
                    };
                    self.in_meta.set(false);
                }
                "name" => once(&mut members.name, map.next_value()?, "name")?,
                "uri" => once(&mut members.uri, map.next_value()?, "uri")?,
                "arguments" => once(&mut members.arguments, map.next_value()?, "arguments")?,
                "inputResponses" => {
                    let raw: &RawValue = map.next_value()?;
                    members.input_responses_twice |=
                        members.input_responses.replace(raw.get()).is_some();
                }
                "requestState" => {
                    let raw: &RawValue = map.next_value()?;
                    // Twice is not a token either: no reader picks one of the two.
                    members.input.request_state = if state_seen {
                        StateField::NotAToken
                    } else {
                        StateField::read(raw.get())
                    };
                    state_seen = true;
                }
                // Twice, the header could be checked against one and the handler served the
                // other.
                routed if Some(routed) == self.routed_by => {
                    let raw: &RawValue = map.next_value()?;
                    if members.routed.replace(raw.get()).is_some() {
                        return Err(de::Error::custom(format_args!(
                            "duplicate field `{routed}`"
                        )));
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(members)
    }
}

impl StateField {
    /// What the JSON text of a `requestState` member (valid JSON) stands for.
    fn read(raw: &str) -> Self {
        match raw.as_bytes().first() {
            Some(b'n') => Self::Absent,
            Some(b'"') => match string(raw) {
                Some(token) => Self::Token(token.0.into_owned()),
                None => Self::NotAToken,
            },
            _ => Self::NotAToken,
        }
    }
}

/// The string a member's JSON text (valid JSON) is, or `None` when it is not one. Borrowed
/// as it stands when it has no escapes.
fn string(raw: &str) -> Option<Text<'_>> {
    match plain_string(raw) {
        Some(plain) => Some(Text(Cow::Borrowed(plain))),
        None => serde_json::from_str(raw).ok(),
    }
}

/// The text between the quotes of a JSON string's text (valid JSON) that has nothing
/// escaped, which is then the string itself; `None` for any other text.
pub(super) fn plain_string(raw: &str) -> Option<&str> {
    raw.strip_prefix('"')?
        .strip_suffix('"')
        .filter(|plain| !plain.contains('\\'))
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    fn raw(params: &str) -> Box<RawValue> {
        RawValue::from_string(params.to_owned()).expect("raw params")
    }

    #[test]
    fn a_call_is_read_in_one_pass_for_routing_and_the_gate() {
        let params = raw(
            r#"{"name":"provision","arguments":{"name":"orders"},"inputResponses":{"region":{"action":"accept","content":{"region":"eu-west-1"}}},"requestState":"v1.abc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}}"#,
        );
        let read = Preread::read(&params, None).expect("one pass reads it");
        assert_eq!(read.name.as_deref(), Some("provision"));
        assert_eq!(read.preparsed.protocol_version(), Some("2026-07-28"));
        assert!(read.preparsed.declares_client_capabilities());
        let input = read.preparsed.into_input();
        assert_eq!(input.request_state, StateField::Token("v1.abc".into()));
    }

    #[test]
    fn a_target_that_is_not_a_string_reads_as_none_and_the_meta_still_counts() {
        let params = raw(
            r#"{"name":1,"uri":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        );
        let read = Preread::read(&params, None).expect("readable");
        assert!(read.name.is_none() && read.uri.is_none());
        assert_eq!(read.preparsed.protocol_version(), Some("2026-07-28"));
    }

    #[test]
    fn the_member_an_extension_routes_by_is_read_in_the_same_pass() {
        const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let params = raw(&format!(r#"{{"taskId":"t-1","name":"n",{META}}}"#));
        let read = Preread::read(&params, Some("taskId")).expect("readable");
        assert_eq!(read.routed.as_deref(), Some("t-1"));
        assert_eq!(read.name.as_deref(), Some("n"));
        assert_eq!(read.preparsed.protocol_version(), Some("2026-07-28"));
        // Not asked for, not read.
        let read = Preread::read(&params, None).expect("readable");
        assert!(read.routed.is_none());
        // A key is compared once unescaped, as the handler's decoding reads it.
        let escaped = raw(r#"{"task\u0049d":"t-2"}"#);
        let read = Preread::read(&escaped, Some("taskId")).expect("readable");
        assert_eq!(read.routed.as_deref(), Some("t-2"));
        // A member the reader keeps for itself can route an extension's method too.
        let read = Preread::read(&params, Some("name")).expect("readable");
        assert_eq!(read.routed.as_deref(), Some("n"));
        for absent in [
            r#"{"taskId":7}"#,
            r#"{"taskId":null}"#,
            r#"{"other":"t-1"}"#,
        ] {
            let params = raw(absent);
            let read = Preread::read(&params, Some("taskId")).expect(absent);
            assert!(read.routed.is_none(), "{absent}");
        }
    }

    #[test]
    fn the_routed_member_twice_is_refused_only_where_it_is_routed_by() {
        let twice = raw(r#"{"taskId":"t-1","taskId":"t-2"}"#);
        let error = Preread::read(&twice, Some("taskId")).expect_err("twice");
        assert_eq!(error.code, -32602);
        assert!(
            error.message.contains("duplicate field `taskId`"),
            "{}",
            error.message
        );
        // Elsewhere it is a member like any other, which the handler's decoding judges.
        assert!(Preread::read(&twice, None).is_ok());
        assert!(GateInput::read(Some(&twice)).is_ok());
    }

    #[test]
    fn a_member_twice_is_refused_and_says_which() {
        for (params, member) in [
            (r#"{"name":"a","name":"b"}"#, "name"),
            (r#"{"uri":"a","uri":"b"}"#, "uri"),
            (r#"{"arguments":{},"arguments":{}}"#, "arguments"),
            (r#"{"_meta":{},"_meta":null}"#, "_meta"),
            (
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
                "io.modelcontextprotocol/protocolVersion",
            ),
            (
                r#"{"_meta":{"traceparent":"a","traceparent":"b"}}"#,
                "traceparent",
            ),
        ] {
            let error = GateInput::read(Some(&raw(params))).expect_err(params);
            assert_eq!(error.code, -32602, "{params}");
            assert!(
                error
                    .message
                    .contains(&format!("duplicate field `{member}`")),
                "{params}: {}",
                error.message
            );
        }
    }

    #[test]
    fn anything_but_one_string_in_the_request_state_position_is_not_a_token() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        for state in ["1", "{}", "true", deep.as_str()] {
            let params = raw(&format!(r#"{{"requestState":{state}}}"#));
            let input = GateInput::read(Some(&params)).expect("readable");
            assert_eq!(input.request_state, StateField::NotAToken, "{state:.20}");
        }
        let twice = raw(r#"{"requestState":"v1.a","requestState":"v1.b"}"#);
        let input = GateInput::read(Some(&twice)).expect("readable");
        assert_eq!(input.request_state, StateField::NotAToken);
        let null = raw(r#"{"requestState":null}"#);
        let input = GateInput::read(Some(&null)).expect("readable");
        assert_eq!(input.request_state, StateField::Absent);
    }

    #[test]
    fn a_meta_that_does_not_parse_is_refused_where_it_stands_in_the_params() {
        // The column is the params' (past the `5`), not `_meta`'s own.
        let params = raw(r#"{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":5}}"#);
        for _ in 0..2 {
            let error = GateInput::read(Some(&params)).expect_err("not a version");
            assert_eq!(error.code, -32602);
            assert!(
                error
                    .message
                    .starts_with("Invalid _meta: invalid type: integer `5`")
                    && error.message.ends_with("line 1 column 64"),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn a_meta_read_through_the_cache_reads_as_it_does_in_place_at_every_depth() {
        // Around serde_json's limit on nesting, which counts the params and `_meta` too.
        for depth in 120..=130 {
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let params = raw(&format!(r#"{{"_meta":{{"x":{deep}}}}}"#));
            let in_place = Members::read_with(&params, None, MetaReading::InPlace)
                .map(|m| m.input.meta)
                .map_err(|_| depth);
            for round in ["parsed", "cached"] {
                let cached = GateInput::read(Some(&params))
                    .map(|input| input.meta)
                    .map_err(|_| depth);
                assert_eq!(cached, in_place, "{round} at depth {depth}");
            }
        }
    }

    #[test]
    fn a_bad_escape_found_in_the_params_is_a_parse_error() {
        let params = raw(r#"{"_meta":{"x":"\ud800"}}"#);
        let error = GateInput::read(Some(&params)).expect_err("a lone surrogate");
        assert_eq!(error.code, -32700, "{}", error.message);
    }

    /// Random params: the walk over the checked text finds what serde_json's reading finds,
    /// or leaves the params to it; and it takes most of them, so the comparison is not empty.
    #[test]
    fn the_walk_reads_what_the_careful_reading_reads_or_leaves_it_to_it() {
        use crate::test_rng::Rng;

        const KEYS: [&str; 11] = [
            "_meta",
            "name",
            "uri",
            "arguments",
            "inputResponses",
            "requestState",
            "taskId",
            "other",
            r"na\u006de",
            r"_met\u0061",
            "",
        ];
        const METAS: [&str; 6] = [
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            r#"{ "progressToken" : 7 }"#,
            "null",
            r#"{"io.modelcontextprotocol/protocolVersion":5}"#,
            r#"{"a":1,"a":2}"#,
        ];
        const VALUES: [&str; 12] = [
            r#""echo""#,
            r#""v1.abc-_""#,
            r#""e\u0063ho""#,
            r#""a\"b""#,
            r#""\ud800""#,
            "7",
            "null",
            "true",
            r#"{"text":"}{","n":[1,{"x":"]"}]}"#,
            "[]",
            r#"{"region":{"action":"accept","content":{"r":"eu"}}}"#,
            "-1.5e3",
        ];
        const SPACES: [&str; 3] = ["", " ", "\n "];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut walked, mut compared) = (0, 0);
        for _ in 0..20_000 {
            let mut text = String::from("{");
            for i in 0..rng.below(6) {
                if i > 0 {
                    text.push(',');
                }
                let key = *rng.pick(&KEYS);
                let value = if key.starts_with("_met") {
                    *rng.pick(&METAS)
                } else {
                    *rng.pick(&VALUES)
                };
                let space = *rng.pick(&SPACES);
                text.push_str(&format!(r#"{space}"{key}"{space}:{space}{value}{space}"#));
            }
            text.push('}');
            let params = raw(&text);
            let routed_by = *rng.pick(&[None, Some("taskId"), Some("name")]);
            let careful = Members::read_with(&params, routed_by, MetaReading::Cached);
            match Members::walk(&params, routed_by) {
                Some(members) => {
                    walked += 1;
                    let careful =
                        careful.unwrap_or_else(|e| panic!("{text}: walked, refused: {e:?}"));
                    assert!(members == careful, "{text}");
                }
                None => {
                    if let Ok(careful) = careful {
                        compared += 1;
                        // Left to the careful reading, which must still read it as it did.
                        let again = Members::read(&params, routed_by).expect("read");
                        assert!(again == careful, "{text}");
                    }
                }
            }
        }
        assert!(walked > 8_000, "only {walked} walked");
        assert!(
            compared > 1_000,
            "only {compared} left to the careful reading"
        );
    }
}
