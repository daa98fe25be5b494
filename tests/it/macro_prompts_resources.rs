//! `#[mcp::prompt]` and `#[mcp::resource]` served by `McpServer`: listings (snapshot),
//! argument and variable binding, errors, the manual ask form on templates.

use mcp::client::Client;
use mcp::protocol::{Implementation, InputRequiredResult};
use mcp::{Context, GetPromptResult, McpServer, Outcome, PromptMessage, ReadResourceResult};
use serde_json::{Value, json};

use crate::support::snapshot::assert_json_snapshot;

/// A briefing for the on-call engineer.
#[mcp::prompt(title = "Briefing")]
async fn briefing(
    /// The service concerned.
    #[mcp(title = "Service")]
    service: String,
    /// Extra context.
    notes: Option<String>,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!(
        "Brief me on {service}.{}",
        notes.map(|n| format!(" {n}")).unwrap_or_default()
    ))]
}

/// A digest of recent incidents.
#[mcp::prompt]
async fn digest(
    service: String,
    /// How many days back.
    days: u32,
    /// At most this many incidents.
    #[mcp(rename = "max")]
    limit: Option<u8>,
) -> String {
    match limit {
        Some(limit) => format!("{service}: {days} days, top {limit}"),
        None => format!("{service}: {days} days"),
    }
}

/// Always fails.
#[mcp::prompt]
async fn broken() -> Result<String, String> {
    Err("the template store is down".into())
}

/// Asks which audience first.
#[mcp::prompt]
async fn tailored(ctx: Context) -> Result<String, InputRequiredResult> {
    match ctx.request_state() {
        Some(state) => Ok(format!("for {state}")),
        None => Err(InputRequiredResult::new().with_state("engineers")),
    }
}

/// The schema of one table.
#[mcp::resource("db://{table}/schema", mime_type = "application/sql")]
async fn table_schema(table: String) -> Result<String, String> {
    match table.as_str() {
        "orders" => Ok("CREATE TABLE orders (id INT);".into()),
        other => Err(format!("no table named {other}")),
    }
}

/// One page of a log.
#[mcp::resource("logs://{service}/page/{page}", name = "log-page")]
async fn log_page(service: String, page: u32) -> String {
    format!("{service} page {page}")
}

/// The service's README.
#[mcp::resource(
    "docs://readme",
    mime_type = "text/markdown",
    title = "README",
    icons = [icon(src = "https://example.com/readme.svg", mime_type = "image/svg+xml", sizes = ["any"])],
    annotations(audience = ["user"], priority = 0.25, last_modified = "2026-07-28T09:00:00Z"),
    size = 9,
)]
async fn readme() -> &'static str {
    "# Service"
}

/// Raw bytes.
#[mcp::resource("bin://blob")]
async fn blob() -> Vec<u8> {
    vec![0, 1, 2, 255]
}

/// Confirms before revealing.
#[mcp::resource("deploy://{env}/confirm")]
async fn confirm(env: String, ctx: Context) -> Result<String, InputRequiredResult> {
    match ctx.request_state() {
        Some(_) => Ok(format!("confirmed {env}")),
        None => Err(InputRequiredResult::new().with_state("asked")),
    }
}

fn client() -> Client {
    let server = McpServer::new("prompts-resources")
        .version("1.0.0")
        .prompts(mcp::prompts![briefing, broken, tailored, digest])
        .resources(mcp::resources![
            table_schema,
            log_page,
            readme,
            blob,
            confirm
        ]);
    let duplex = server.serve_in_memory().expect("valid server");
    Client::builder(Implementation::new("test", "1.0.0")).connect(duplex)
}

async fn raw(client: &Client, method: &str, params: Value) -> Result<Value, String> {
    client
        .request::<Value>(method, params)
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn listings_match_the_committed_snapshot() {
    let client = client();
    let mut listings = serde_json::Map::new();
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let mut listed = raw(&client, method, json!({})).await.expect("listing");
        if let Value::Object(map) = &mut listed {
            map.remove("_meta");
        }
        listings.insert(method.to_owned(), listed);
    }
    assert_json_snapshot("macro_prompts_resources", &listings);
}

#[tokio::test]
async fn prompts_bind_arguments_and_report_errors() {
    let client = client();
    let Outcome::Complete(GetPromptResult { messages, .. }) = client
        .get_prompt_once(
            "briefing",
            Some(json!({"service": "db", "notes": "urgent"})),
            None,
            None,
        )
        .await
        .expect("prompt")
    else {
        panic!("complete");
    };
    assert_eq!(
        messages[0].content.as_text(),
        Some("Brief me on db. urgent")
    );
    let missing = client
        .get_prompt_once("briefing", Some(json!({})), None, None)
        .await
        .expect_err("missing argument");
    assert!(
        missing
            .to_string()
            .contains("Missing required argument `service` for prompt `briefing`"),
        "{missing}"
    );
    let failed = client
        .get_prompt_once("broken", None, None, None)
        .await
        .expect_err("fails");
    assert!(
        failed
            .to_string()
            .contains("Error rendering prompt `broken`: the template store is down"),
        "{failed}"
    );
}

#[tokio::test]
async fn prompt_arguments_parse_like_template_variables() {
    let client = client();
    let get = |arguments: Value| {
        let client = client.clone();
        async move {
            raw(
                &client,
                "prompts/get",
                json!({"name": "digest", "arguments": arguments}),
            )
            .await
            .map(|r| r["messages"][0]["content"]["text"].clone())
        }
    };
    assert_eq!(
        get(json!({"service": "db", "days": "7", "max": "3"})).await,
        Ok(json!("db: 7 days, top 3"))
    );
    assert_eq!(
        get(json!({"service": "db", "days": "7"})).await,
        Ok(json!("db: 7 days"))
    );
    let bad = get(json!({"service": "db", "days": "a week"}))
        .await
        .expect_err("not a number");
    assert!(
        bad.contains("-32602")
            && bad.contains("Invalid value for argument `days` of prompt `digest`: invalid digit"),
        "{bad}"
    );
    let too_big = get(json!({"service": "db", "days": "1", "max": "300"}))
        .await
        .expect_err("not a u8");
    assert!(
        too_big.contains("-32602") && too_big.contains("argument `max` of prompt `digest`"),
        "{too_big}"
    );
}

#[tokio::test]
async fn a_prompt_asks_by_hand_and_resumes_with_sealed_state() {
    let client = client();
    let Outcome::InputRequired(ask) = client
        .get_prompt_once("tailored", None, None, None)
        .await
        .expect("first round")
    else {
        panic!("asks");
    };
    let token = ask.request_state.expect("state");
    assert!(token.starts_with("v1."), "{token}");
    let Outcome::Complete(done) = client
        .get_prompt_once("tailored", None, None, Some(token))
        .await
        .expect("second round")
    else {
        panic!("complete");
    };
    assert_eq!(done.messages[0].content.as_text(), Some("for engineers"));
}

fn contents(result: &ReadResourceResult) -> Value {
    serde_json::to_value(&result.contents).expect("json")
}

#[tokio::test]
async fn resources_match_uris_and_templates() {
    let client = client();
    let read = |uri: &'static str| {
        let client = &client;
        async move {
            match client.read_resource_once(uri, None, None).await {
                Ok(Outcome::Complete(result)) => Ok(contents(&result)),
                Ok(Outcome::InputRequired(_)) => Err("asked".to_owned()),
                Err(e) => Err(e.to_string()),
            }
        }
    };
    assert_eq!(
        read("db://orders/schema").await,
        Ok(
            json!([{"uri": "db://orders/schema", "mimeType": "application/sql",
                   "text": "CREATE TABLE orders (id INT);"}])
        )
    );
    assert_eq!(
        read("logs://api%20v2/page/3").await,
        Ok(json!([{"uri": "logs://api%20v2/page/3", "text": "api v2 page 3"}]))
    );
    assert_eq!(
        read("docs://readme").await,
        Ok(json!([{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# Service"}]))
    );
    assert_eq!(
        read("bin://blob").await,
        Ok(json!([{"uri": "bin://blob", "blob": "AAEC/w=="}]))
    );
    let bad_page = read("logs://api/page/three")
        .await
        .expect_err("not a number");
    assert!(bad_page.contains("Invalid value for `page`"), "{bad_page}");
    let failed = read("db://users/schema").await.expect_err("no table");
    assert!(
        failed.contains("Error reading resource db://users/schema"),
        "{failed}"
    );
    let unknown = read("nope://x").await.expect_err("unknown");
    assert!(unknown.contains("Resource not found"), "{unknown}");
}

#[tokio::test]
async fn a_template_asks_by_hand_and_its_state_is_bound_to_the_uri() {
    let client = client();
    let Outcome::InputRequired(ask) = client
        .read_resource_once("deploy://prod/confirm", None, None)
        .await
        .expect("first round")
    else {
        panic!("asks");
    };
    let token = ask.request_state.expect("state");
    let elsewhere = client
        .read_resource_once("deploy://dev/confirm", None, Some(token.clone()))
        .await
        .expect_err("another URI");
    assert!(
        elsewhere
            .to_string()
            .contains("Invalid or expired requestState"),
        "{elsewhere}"
    );
    let Outcome::Complete(done) = client
        .read_resource_once("deploy://prod/confirm", None, Some(token))
        .await
        .expect("second round")
    else {
        panic!("complete");
    };
    assert_eq!(contents(&done)[0]["text"], "confirmed prod");
}

#[tokio::test]
async fn completion_is_answered_by_the_server_wide_handler() {
    let server = McpServer::new("completer")
        .prompts(mcp::prompts![briefing])
        .on_complete(|_ctx, params| async move {
            Ok(mcp::protocol::CompleteResult::values(vec![format!(
                "{}-1",
                params.argument.value
            )]))
        });
    let duplex = server.serve_in_memory().expect("valid server");
    let client = Client::builder(Implementation::new("test", "1.0.0")).connect(duplex);
    let answer = raw(
        &client,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "briefing"},
               "argument": {"name": "service", "value": "pay"}}),
    )
    .await
    .expect("completion");
    assert_eq!(answer["completion"]["values"], json!(["pay-1"]));
}
