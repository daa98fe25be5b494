//! The JSON of the results every tool call sends (its answer, or its questions), written with
//! their keys as the literals they always are. serde_json looks at each byte of each key for an
//! escape; on a one-line tool result (`resultType`, `content`, `type`, `text`, `_meta` and the
//! 35 bytes of the serverInfo key) that scan, and the tagged enum around a text block, cost
//! more than the answer itself.
//! Values are still written by serde_json, and whatever the literals do not cover (a block
//! with annotations, `_meta` with extra keys) goes through the derived `Serialize` whole, so
//! the bytes are the same either way.

use serde::Serialize;

use super::canonical::plain_prefix;
use super::content::{ContentBlock, TextContent};
use super::elicitation::ElicitParams;
use super::meta::{ResultMeta, ResultType};
use super::mrtr::{InputRequest, InputRequiredResult};
use super::tools::CallToolResult;

/// An object being written: a comma before every member but the first.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Self { out, empty: true }
    }

    /// Starts a member: the comma before it, if it is not the first.
    fn next(&mut self) -> &mut Vec<u8> {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        self.out
    }

    /// Starts a member; `key` is its quoted key and the colon, as written.
    fn key(&mut self, key: &[u8]) -> &mut Vec<u8> {
        let out = self.next();
        out.extend_from_slice(key);
        out
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &[u8], value: &T) -> serde_json::Result<()> {
        serde_json::to_writer(self.key(key), value)
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

/// Writes `result` as its derived `Serialize` would.
pub(super) fn write_call_tool_result(
    result: &CallToolResult,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let mut object = open_result(out, result.result_type.as_ref())?;
    let content = object.key(br#""content":"#);
    content.push(b'[');
    for (i, block) in result.content.iter().enumerate() {
        if i > 0 {
            content.push(b',');
        }
        write_block(content, block)?;
    }
    content.push(b']');
    if let Some(structured) = &result.structured_content {
        object.member(br#""structuredContent":"#, structured)?;
    }
    if let Some(is_error) = result.is_error {
        object
            .key(br#""isError":"#)
            .extend_from_slice(if is_error { b"true" } else { b"false" });
    }
    close_result(object, result.meta.as_ref())
}

/// Writes `result` as its derived `Serialize` would.
pub(super) fn write_input_required_result(
    result: &InputRequiredResult,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let mut object = open_result(out, result.result_type.as_ref())?;
    if let Some(requests) = &result.input_requests {
        let mut questions = Object::open(object.key(br#""inputRequests":"#));
        for (key, request) in requests {
            let out = questions.next();
            write_text(out, key)?;
            out.push(b':');
            write_input_request(out, request)?;
        }
        questions.close();
    }
    if let Some(state) = &result.request_state {
        write_text(object.key(br#""requestState":"#), state)?;
    }
    close_result(object, result.meta.as_ref())
}

fn write_input_request(out: &mut Vec<u8>, request: &InputRequest) -> serde_json::Result<()> {
    match request {
        InputRequest::Elicit(ElicitParams::Form {
            message,
            requested_schema,
        }) => {
            out.extend_from_slice(
                br#"{"method":"elicitation/create","params":{"mode":"form","message":"#,
            );
            write_text(out, message)?;
            out.extend_from_slice(br#","requestedSchema":"#);
            serde_json::to_writer(&mut *out, requested_schema)?;
            out.extend_from_slice(b"}}");
            Ok(())
        }
        other => serde_json::to_writer(out, other),
    }
}

/// Opens a result's object with its `resultType`, the first member of each.
fn open_result<'a>(
    out: &'a mut Vec<u8>,
    result_type: Option<&ResultType>,
) -> serde_json::Result<Object<'a>> {
    let mut object = Object::open(out);
    if let Some(result_type) = result_type {
        write_result_type(object.key(br#""resultType":"#), result_type)?;
    }
    Ok(object)
}

/// Closes a result's object after its `_meta`, the last member of each.
fn close_result(mut object: Object<'_>, meta: Option<&ResultMeta>) -> serde_json::Result<()> {
    if let Some(meta) = meta {
        write_meta(object.key(br#""_meta":"#), meta)?;
    }
    object.close();
    Ok(())
}

/// `text` as serde_json writes a string. serde_json looks at each byte for an escape; most of
/// what a result carries (a sealed state's hundreds of bytes of base64url, a tool's text,
/// a question's name and message) has none, and is copied whole once [`plain_prefix`] has
/// found so, eight bytes at a time.
fn write_text(out: &mut Vec<u8>, text: &str) -> serde_json::Result<()> {
    if plain_prefix(text.as_bytes()) < text.len() {
        return serde_json::to_writer(out, text);
    }
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
    Ok(())
}

fn write_result_type(out: &mut Vec<u8>, result_type: &ResultType) -> serde_json::Result<()> {
    match result_type {
        ResultType::Complete => out.extend_from_slice(br#""complete""#),
        ResultType::InputRequired => out.extend_from_slice(br#""input_required""#),
        ResultType::Other(_) => serde_json::to_writer(out, result_type)?,
    }
    Ok(())
}

fn write_block(out: &mut Vec<u8>, block: &ContentBlock) -> serde_json::Result<()> {
    match block {
        ContentBlock::Text(TextContent {
            text,
            annotations: None,
            meta: None,
        }) => {
            out.extend_from_slice(br#"{"type":"text","text":"#);
            write_text(out, text)?;
            out.push(b'}');
            Ok(())
        }
        other => serde_json::to_writer(out, other),
    }
}

/// The serverInfo key of `_meta`, quoted, and its colon.
const SERVER_INFO: &[u8] = br#""io.modelcontextprotocol/serverInfo":"#;

/// `_meta` as the runtime fills it (the server's identity and nothing else), or else whole.
fn write_meta(out: &mut Vec<u8>, meta: &ResultMeta) -> serde_json::Result<()> {
    if !meta.extra.is_empty() {
        return serde_json::to_writer(out, meta);
    }
    let mut object = Object::open(out);
    if let Some(info) = &meta.server_info {
        object.member(SERVER_INFO, info)?;
    }
    object.close();
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::meta::keys;
    use crate::protocol::{
        Annotations, Frozen, Implementation, InputRequests, JsonObject, MediaContent,
    };

    fn written(result: &CallToolResult) -> String {
        let mut out = Vec::new();
        write_call_tool_result(result, &mut out).expect("writes");
        String::from_utf8(out).expect("UTF-8")
    }

    fn meta(server_info: bool, extra: JsonObject) -> ResultMeta {
        ResultMeta {
            server_info: server_info.then(|| Frozen::new(Implementation::new("srv", "1.0"))),
            extra,
        }
    }

    #[test]
    fn the_server_info_literal_is_the_key_quoted() {
        assert_eq!(
            SERVER_INFO,
            format!("\"{}\":", keys::SERVER_INFO).as_bytes()
        );
    }

    /// Every field present or absent, every kind of block, text that must be escaped and
    /// `_meta` in each form: the literals write what the derived `Serialize` writes.
    #[test]
    fn a_result_is_written_as_its_derived_serialize_writes_it() {
        let texts = [
            "",
            "hello world",
            "quote \" back\\slash",
            "line\nfeed\u{1}\u{7f}",
            "héllo ✓ 𝄞",
        ];
        let mut annotated = TextContent::new("seen");
        annotated.annotations = Some(Annotations::default());
        let mut with_meta = TextContent::new("tagged");
        with_meta.meta = json!({"k": 1}).as_object().cloned();
        let blocks = [
            vec![],
            texts.iter().map(|t| ContentBlock::text(*t)).collect(),
            vec![ContentBlock::Text(annotated), ContentBlock::Text(with_meta)],
            vec![
                ContentBlock::Image(MediaContent {
                    data: "aGk=".into(),
                    mime_type: "image/png".into(),
                    ..MediaContent::default()
                }),
                ContentBlock::text("after"),
            ],
        ];
        let extra = json!({"x": [1, "two"], keys::SERVER_INFO: "theirs"})
            .as_object()
            .cloned()
            .expect("an object");
        let metas = [
            None,
            Some(meta(false, JsonObject::new())),
            Some(meta(true, JsonObject::new())),
            Some(meta(true, extra.clone())),
            Some(meta(false, extra)),
        ];
        let result_types = [
            None,
            Some(ResultType::Complete),
            Some(ResultType::InputRequired),
            Some(ResultType::Other("task".into())),
        ];
        let mut checked = 0;
        for content in &blocks {
            for meta in &metas {
                for result_type in &result_types {
                    for is_error in [None, Some(false), Some(true)] {
                        for structured in [None, Some(json!({"temp": 21.5, "s": "\u{2028}"}))] {
                            let result = CallToolResult {
                                result_type: result_type.clone(),
                                content: content.clone(),
                                structured_content: structured,
                                is_error,
                                meta: meta.clone(),
                            };
                            let expected = serde_json::to_string(&result).expect("serializes");
                            assert_eq!(written(&result), expected);
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 4 * 5 * 4 * 3 * 2);
    }

    /// A sealed state's shape: long, base64url, nothing to escape.
    const SEALED: &str = "v1.MZZlHCzyQfFEdRi6fNQDSaFza33GMzoKb2QEXkWUk_8l72ypXheXIPYAa1rFa0nQ5xqKfkK98hxBSMdyZ5Ot8EcX";
    /// Past its first eight bytes, each of what must be escaped or is not plain ASCII.
    const UNUSUAL: &str = "v1.AbC-_9 é ü tab\t bell\u{7} del\u{7f} quote \" backslash \\ 𝄞";

    /// Each kind of question, keys and state that must be escaped, every field present or
    /// absent: the literals write what the derived `Serialize` writes.
    #[test]
    fn a_question_is_written_as_its_derived_serialize_writes_it() {
        let schema = json!({"type": "object", "properties": {"region": {"type": "string"}}});
        let sampling = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "maxTokens": 10
        }))
        .expect("sampling params");
        let questions = [
            None,
            Some(InputRequests::new()),
            Some(InputRequests::from([
                (
                    "region".to_owned(),
                    InputRequest::Elicit(ElicitParams::form("Which \"region\"?", schema)),
                ),
                ("roots\n".to_owned(), InputRequest::ListRoots),
                (
                    "sample ✓".to_owned(),
                    InputRequest::CreateMessage(Box::new(sampling)),
                ),
                (
                    "url".to_owned(),
                    InputRequest::Elicit(ElicitParams::url("Sign in", "https://a.example/x")),
                ),
            ])),
        ];
        let metas = [None, Some(meta(true, JsonObject::new()))];
        let mut checked = 0;
        for input_requests in &questions {
            for request_state in [None, Some(SEALED), Some("odd \" state"), Some(UNUSUAL)] {
                for meta in &metas {
                    for result_type in [None, Some(ResultType::InputRequired)] {
                        let result = InputRequiredResult {
                            result_type,
                            input_requests: input_requests.clone(),
                            request_state: request_state.map(str::to_owned),
                            meta: meta.clone(),
                        };
                        let mut out = Vec::new();
                        write_input_required_result(&result, &mut out).expect("writes");
                        let expected = serde_json::to_string(&result).expect("serializes");
                        assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 3 * 4 * 2 * 2);
    }

    /// Frozen JSON is written the first time and copied after: both give the same bytes.
    #[test]
    fn the_server_info_is_the_same_when_written_again() {
        let result = CallToolResult {
            meta: Some(meta(true, JsonObject::new())),
            ..CallToolResult::text("twice")
        };
        assert_eq!(written(&result), written(&result));
        assert_eq!(
            written(&result),
            serde_json::to_string(&result).expect("serializes")
        );
    }
}
