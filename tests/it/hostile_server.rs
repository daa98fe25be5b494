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

#[tokio::test]
async fn a_flood_of_server_questions_is_answered_within_a_bound() {
    let (client_end, mut server_end) = mcp::transport::memory::pair();
    // A user who never answers: every question stays open.
    let _client = Client::builder(Implementation::new("c", "1"))
        .on_elicit(|_question| std::future::pending())
        .connect(client_end);
    let flood = MAX_SERVER_REQUESTS_IN_FLIGHT + 100;
    for n in 0..flood {
        let question = json!({"jsonrpc": "2.0", "id": format!("q{n}"),
            "method": "elicitation/create",
            "params": {"message": "Name?", "requestedSchema": {"type": "object"}}});
        server_end
            .outgoing
            .send(question.to_string())
            .await
            .expect("send");
    }
    let mut refused = 0;
    while refused < 100 {
        let line = tokio::time::timeout(Duration::from_secs(5), server_end.incoming.recv())
            .await
            .expect("a refusal within 5 s")
            .expect("open")
            .expect("a line");
        let reply: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(reply["error"]["code"], -32603, "{reply}");
        refused += 1;
    }
    // The first ones are still being answered, so nothing more comes.
    let more = tokio::time::timeout(Duration::from_millis(200), server_end.incoming.recv()).await;
    assert!(more.is_err(), "{more:?}");
}
