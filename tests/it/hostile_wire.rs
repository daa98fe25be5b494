//! Hostile messages against a real socket and a real connection: bodies built to be read one
//! way by the transport and another by the server, headers sent twice, hosts in odd places,
//! and `requestState` values that are anything but a token. Each is refused, clearly, and the
//! tool it aims at never runs.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::support::http::{Reply, Running, meta, modern, parse_reply, read_to_close};

/// A `tools/call` of `echo` with extra params members spliced in as raw JSON text.
fn echo_call(extra: &str, meta_text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{}}{extra},"_meta":{meta_text}}}}}"#
    )
}

/// Posts `body` with the routing headers of a `tools/call` of `echo`.
async fn post_echo(server: &Running, body: impl Into<Vec<u8>>) -> Reply {
    server
        .post(body)
        .routing("tools/call", Some("echo"))
        .send()
        .await
}

fn modern_meta() -> String {
    meta(json!({})).to_string()
}

fn assert_refused(reply: &Reply, code: i64) {
    assert!(reply.status >= 400, "{reply:?}");
    assert_eq!(reply.error_code(), code, "{reply:?}");
    assert!(!reply.body.contains("\"result\""), "{reply:?}");
}

#[tokio::test]
async fn a_body_only_the_server_could_read_does_not_slip_past_the_routing_headers() {
    let server = Running::start().await;
    // `"uri":1` used to make the transport's reader give up (so no header was checked) while
    // the gate, which took the last of two protocol versions, ran the call as 2026-07-28.
    let sneaky_meta = r#"{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let body = echo_call(r#","uri":1"#, sneaky_meta);
    for routing in [
        Some(("tools/list", None)),
        Some(("tools/call", Some("other"))),
        None,
    ] {
        let request = server.post(body.clone());
        let request = match routing {
            Some((method, name)) => request.routing(method, name),
            None => request,
        };
        let reply = request.send().await;
        assert_refused(&reply, -32602);
        assert!(reply.body.contains("duplicate field"), "{reply:?}");
    }
    // With a readable `_meta`, a target of the wrong type is a header mismatch.
    let body = echo_call(r#","uri":1"#, &modern_meta()).replace(r#""name":"echo""#, r#""name":7"#);
    let reply = post_echo(&server, body).await;
    assert_refused(&reply, -32020);
}

#[tokio::test]
async fn a_member_twice_in_the_envelope_or_the_params_is_refused() {
    let server = Running::start().await;
    let twice_id = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":{}}"#;
    let reply = server.post(twice_id).send().await;
    assert_eq!(reply.error_code(), -32600, "{reply:?}");
    assert!(reply.body.contains("duplicate field `id`"), "{reply:?}");

    let twice_name = echo_call(r#","name":"regional""#, &modern_meta());
    let reply = post_echo(&server, twice_name).await;
    assert_refused(&reply, -32602);
    assert!(reply.body.contains("duplicate field `name`"), "{reply:?}");
}

#[tokio::test]
async fn anything_but_one_token_in_the_request_state_position_gets_the_fixed_rejection() {
    let server = Running::start().await;
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let cases = [
        format!(r#","requestState":{deep}"#),
        r#","requestState":"v1.a","requestState":"v1.b""#.to_owned(),
        r#","requestState":7"#.to_owned(),
    ];
    for extra in cases {
        let reply = post_echo(&server, echo_call(&extra, &modern_meta())).await;
        assert_refused(&reply, -32602);
        assert_eq!(
            reply.json()["error"]["message"],
            "Invalid or expired requestState",
            "{extra:.40}: {reply:?}"
        );
    }
}

#[tokio::test]
async fn anything_but_one_token_in_the_request_state_position_is_refused_in_memory_too() {
    let server = crate::support::http::test_server(Default::default());
    let mut duplex = server.serve_in_memory();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for extra in [
        format!(r#","requestState":{deep}"#),
        r#","requestState":"v1.a","requestState":"v1.b""#.to_owned(),
    ] {
        duplex
            .outgoing
            .send(echo_call(&extra, &modern_meta()))
            .await
            .expect("send");
        let line = tokio::time::timeout(Duration::from_secs(5), duplex.incoming.recv())
            .await
            .expect("an answer")
            .expect("open")
            .expect("a line");
        let reply: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(
            reply["error"]["message"], "Invalid or expired requestState",
            "{line}"
        );
    }
}

#[tokio::test]
async fn a_lone_surrogate_escape_is_a_parse_error() {
    let server = Running::start().await;
    let body = modern(1, "tools/call", json!({"name": "echo", "arguments": {}}))
        .replace(r#""arguments":{}"#, r#""arguments":{"text":"\ud800"}"#);
    let reply = post_echo(&server, body).await;
    assert_refused(&reply, -32700);
}

#[tokio::test]
async fn a_routing_header_sent_twice_is_refused() {
    let server = Running::start().await;
    let body = modern(1, "tools/call", json!({"name": "echo", "arguments": {}}));
    let reply = server
        .post(body)
        .routing("tools/call", Some("echo"))
        .also("mcp-name", "regional")
        .send()
        .await;
    assert_refused(&reply, -32020);
    assert!(reply.body.contains("sent twice"), "{reply:?}");
}

#[tokio::test]
async fn origin_or_host_sent_twice_is_forbidden() {
    let server = Running::start().await;
    let body = modern(1, "tools/list", json!({}));
    let reply = server
        .post(body.clone())
        .routing("tools/list", None)
        .header("origin", "http://localhost")
        .also("origin", "https://evil.example.com")
        .send()
        .await;
    assert_eq!(reply.status, 403, "{reply:?}");
    let reply = server
        .post(body)
        .routing("tools/list", None)
        .header("host", &server.addr.to_string())
        .also("host", "evil.example.com")
        .send()
        .await;
    assert!(matches!(reply.status, 400 | 403), "{reply:?}");
}

/// Sends `head` and `body` as they are and reads the whole response.
async fn raw(server: &Running, head: &str, body: &str) -> Reply {
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    let bytes = format!("{head}content-length: {}\r\n\r\n{body}", body.len());
    stream.write_all(bytes.as_bytes()).await.expect("write");
    parse_reply(&read_to_close(&mut stream, "a response").await)
}

#[tokio::test]
async fn hosts_hidden_in_odd_places_are_checked() {
    let server = Running::start().await;
    let body = modern(1, "tools/list", json!({}));
    let common = "content-type: application/json\r\naccept: application/json\r\n\
                  mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\n\
                  connection: close\r\n";
    let cases = [
        // A bracketed loopback address with a foreign name after it.
        format!("POST /mcp HTTP/1.1\r\nhost: [::1]evil.example.com\r\n{common}"),
        // The absolute form names the host in the request line, which wins over `Host`.
        format!(
            "POST http://evil.example.com/mcp HTTP/1.1\r\nhost: {}\r\n{common}",
            server.addr
        ),
        // HTTP/1.0 needs no `Host` at all.
        format!("POST /mcp HTTP/1.0\r\n{common}"),
    ];
    for head in cases {
        let reply = raw(&server, &head, &body).await;
        assert_eq!(reply.status, 403, "{head}: {reply:?}");
    }
    // The absolute form naming this server is served.
    let head = format!(
        "POST http://{}/mcp HTTP/1.1\r\nhost: {}\r\n{common}",
        server.addr, server.addr
    );
    let reply = raw(&server, &head, &body).await;
    assert_eq!(reply.status, 200, "{reply:?}");
}
