//! JSON decode and encode of `tools/call` in our protocol types, the way the server does it per
//! request: classify the line (`Incoming::parse`), read the head of the params (`_meta` and the
//! raw `requestState`, as the admission gate does), decode `CallToolParams`; then fill in the
//! result for 2026-07-28 and write the response line. The requests are the load benchmark's
//! (`benches/load`), so these numbers are the JSON share of one call there.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::protocol::{
    CacheHint, CallToolParams, CallToolResult, ElicitParams, Frozen, Generation, Implementation,
    Incoming, InputRequest, InputRequiredResult, RequestId, RequestMeta, ResultFields, WireResult,
    decode_params, result_line,
};
use serde::Deserialize;
use serde_json::{Value, json};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}"#;

/// What the admission gate reads from the params before the method's own decode.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMeta>,
    #[serde(rename = "requestState", default)]
    request_state: Option<Value>,
}

/// The whole inbound decode of one `tools/call` line.
fn decode(line: &str) -> (RequestId, Head, CallToolParams) {
    let Ok(Incoming::Request(request)) = Incoming::parse(line) else {
        panic!("not a request: {line}");
    };
    let params = request.params.as_deref();
    let head: Head = decode_params(params).expect("head");
    let call: CallToolParams = decode_params(params).expect("params");
    (request.id, head, call)
}

fn fields() -> ResultFields {
    ResultFields {
        generation: Generation::V2026_07_28,
        server_info: Frozen::new(Implementation::new("bench", "0.1.0")),
        cache: CacheHint::default(),
    }
}

fn json(c: &mut Criterion) {
    let echo = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello world"}},{META}}}}}"#
    );
    // A retry as the load benchmark sends it: the answer plus a token of the length ours seals.
    let token = "t".repeat(255);
    let retry = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"provision","arguments":{{"name":"orders"}},"inputResponses":{{"region":{{"action":"accept","content":{{"region":"eu-west-1"}}}}}},"requestState":"{token}",{META}}}}}"#
    );
    let (_, head, call) = decode(&retry);
    assert_eq!(call.name, "provision");
    assert!(call.input_responses.is_some());
    assert!(head.meta.and_then(|m| m.client_capabilities).is_some());
    assert_eq!(head.request_state, Some(Value::String(token.clone())));

    c.bench_function("json/decode_tools_call_echo", |b| {
        b.iter(|| decode(black_box(&echo)))
    });
    c.bench_function("json/decode_tools_call_retry", |b| {
        b.iter(|| decode(black_box(&retry)))
    });
    // The three steps of the retry's decode on their own: the params are walked twice, once
    // for the head and once for `CallToolParams`.
    let Ok(Incoming::Request(request)) = Incoming::parse(&retry) else {
        panic!("not a request");
    };
    let params = request.params.as_deref();
    c.bench_function("json/decode_retry_step_classify", |b| {
        b.iter(|| Incoming::parse(black_box(&retry)))
    });
    c.bench_function("json/decode_retry_step_head", |b| {
        b.iter(|| decode_params::<Head>(black_box(params)).map(|h| h.request_state))
    });
    c.bench_function("json/decode_retry_step_call_params", |b| {
        b.iter(|| decode_params::<CallToolParams>(black_box(params)))
    });

    let fields = fields();
    let id = RequestId::Number(1);
    let echo_result = CallToolResult::text("hello world");
    let line = {
        let mut r = echo_result.clone();
        r.fill(&fields);
        result_line(&id, &r)
    };
    assert!(line.contains(r#""resultType":"complete""#), "{line}");
    c.bench_function("json/encode_tools_call_result", |b| {
        b.iter(|| {
            let mut result = black_box(&echo_result).clone();
            result.fill(&fields);
            result_line(&id, &result)
        })
    });

    let ask = InputRequiredResult::new()
        .ask(
            "region",
            InputRequest::Elicit(ElicitParams::form(
                "Which region should the database live in?",
                json!({"type":"object","properties":{"region":{"type":"string","description":"The region code, e.g. eu-west-1."}},"required":["region"]}),
            )),
        )
        .with_state(token);
    c.bench_function("json/encode_input_required_result", |b| {
        b.iter(|| {
            let mut result = black_box(&ask).clone();
            result.fill(&fields);
            result_line(&id, &result)
        })
    });
}

criterion_group!(benches, json);
criterion_main!(benches);
