//! Our client against a hostile or merely chatty server: notifications nobody reads and a
//! flood of back-channel questions leave the client bounded, and it keeps working.

use std::time::Duration;

use mcp::client::{Client, MAX_SERVER_REQUESTS_IN_FLIGHT, NOTIFICATION_BUFFER};
use mcp::protocol::Implementation;
use serde_json::{Value, json};

#[tokio::test]
async fn notifications_nobody_reads_are_bounded() {
    let (client_end, server_end) = mcp::transport::memory::pair();
    let client = Client::builder(Implementation::new("c", "1")).connect(client_end);
    let flood = NOTIFICATION_BUFFER * 5;
    for n in 0..flood {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": n}});
        server_end
            .outgoing
            .send(note.to_string())
            .await
            .expect("send");
    }
    // Once the answer to a request sent after them arrives, the reader has taken them all.
    let (mut server_in, server_out) = (server_end.incoming, server_end.outgoing);
    let answering = tokio::spawn(async move {
        while let Some(Ok(line)) = server_in.recv().await {
            let request: Value = serde_json::from_str(&line).expect("json");
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {}});
            let _ = server_out.send(reply.to_string()).await;
        }
    });
    let _: Value = tokio::time::timeout(
        Duration::from_secs(5),
        client.request_raw("ping", &json!({})),
    )
    .await
    .expect("the client still works")
    .expect("answered");
    let mut notes = client.notifications().expect("receiver");
    let mut kept = 0;
    while notes.try_recv().is_ok() {
        kept += 1;
    }
    assert_eq!(kept, NOTIFICATION_BUFFER);
    answering.abort();
}

/// Asks the client 100 questions more than it answers at once, and reads the 100 refusals.
async fn ask_past_the_bound(server_end: &mut mcp::transport::Duplex) {
    for n in 0..MAX_SERVER_REQUESTS_IN_FLIGHT + 100 {
        let question = json!({"jsonrpc": "2.0", "id": format!("q{n}"),
            "method": "elicitation/create",
            "params": {"message": "Name?", "requestedSchema": {"type": "object"}}});
        server_end
            .outgoing
            .send(question.to_string())
            .await
            .expect("send");
    }
    for _ in 0..100 {
        let line = tokio::time::timeout(Duration::from_secs(5), server_end.incoming.recv())
            .await
            .expect("a refusal within 5 s")
            .expect("open")
            .expect("a line");
        let reply: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(reply["error"]["code"], -32603, "{reply}");
    }
}

#[tokio::test]
async fn a_flood_of_server_questions_is_answered_within_a_bound() {
    let (client_end, mut server_end) = mcp::transport::memory::pair();
    // A user who never answers: every question stays open.
    let _client = Client::builder(Implementation::new("c", "1"))
        .on_elicit(|_question| std::future::pending())
        .connect(client_end);
    ask_past_the_bound(&mut server_end).await;
    // The first ones are still being answered, so nothing more comes.
    let more = tokio::time::timeout(Duration::from_millis(200), server_end.incoming.recv()).await;
    assert!(more.is_err(), "{more:?}");
}

#[tokio::test]
async fn questions_a_hearing_holds_count_against_the_same_bound() {
    let (client_end, mut server_end) = mcp::transport::memory::pair();
    let client = Client::builder(Implementation::new("c", "1")).connect(client_end);
    // The caller hears the call and never answers what it hears.
    let (_hearing, call) = client.request_hearing::<Value>("tools/call", json!({"name": "t"}));
    let flood = async {
        let sent = tokio::time::timeout(Duration::from_secs(5), server_end.incoming.recv())
            .await
            .expect("the call within 5 s");
        assert!(sent.is_some(), "the call went out");
        ask_past_the_bound(&mut server_end).await;
        let more =
            tokio::time::timeout(Duration::from_millis(200), server_end.incoming.recv()).await;
        assert!(more.is_err(), "{more:?}");
    };
    tokio::select! {
        () = flood => {}
        ended = call => panic!("the call is never answered, yet ended: {ended:?}"),
    }
}

/// A server that answers every request with `head` and then `body_chunk` forever (until the
/// client hangs up).
async fn endless(head: &'static str, body_chunk: Vec<u8>) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let body_chunk = body_chunk.clone();
            tokio::spawn(async move {
                let mut buf = vec![0; 1 << 16];
                let _ = socket.read(&mut buf).await;
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                while socket.write_all(&body_chunk).await.is_ok() {}
            });
        }
    });
    addr
}

#[tokio::test]
async fn an_endless_response_ends_the_request_not_the_client() {
    const JSON: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                        content-length: 1000000000\r\n\r\n";
    const SSE: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                       transfer-encoding: chunked\r\n\r\n5\r\ndata:\r\n";
    let json_addr = endless(JSON, vec![b' '; 1 << 16]).await;
    // One `data:` line that never ends, in valid chunks.
    let chunk = [b"10000\r\n".as_slice(), &[b'a'; 0x10000], b"\r\n"].concat();
    let sse_addr = endless(SSE, chunk).await;
    for addr in [json_addr, sse_addr] {
        let duplex = mcp::transport::http_client::connect(&format!("http://{addr}/mcp"))
            .expect("a valid URL");
        let client = Client::builder(Implementation::new("c", "1")).connect(duplex);
        let answer = tokio::time::timeout(
            Duration::from_secs(20),
            client.request_raw::<_, Value>("tools/list", &json!({})),
        )
        .await
        .expect("the client gives up in time");
        let error = answer.expect_err("no answer");
        assert!(error.to_string().contains("HTTP transport"), "{error}");
    }
}
