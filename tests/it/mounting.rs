//! Composition: servers mounted in one `McpServer` under name prefixes (each keeping its own
//! state and sealing), and a remote server served through our `Client` by a proxy, rounds
//! passed through.

use mcp::client::{Client, ClientError};
use mcp::protocol::{
    CompleteParams, CompleteResult, CompletionArgument, CompletionReference, DetailedTask,
    Implementation, InputResponses, McpError, Outcome, ReadResourceResult, SubscriptionFilter,
    TaskStatus, code,
};
use mcp::push::Change;
use mcp::server::{BuildError, Server};
use mcp::{Elicit, McpServer, State};
use serde_json::{Value, json};

use crate::support::http::serve;
use crate::support::{self, Region, connect_in_memory, provision};

/// Whose server a handler ran on.
struct Owner(&'static str);

/// Adds a note.
#[mcp::tool]
async fn add(text: String, owner: State<Owner>) -> String {
    format!("{} noted {text}", owner.0)
}

/// Adds two numbers.
#[mcp::tool(name = "add")]
async fn sum(a: i64, b: i64, owner: State<Owner>) -> String {
    format!("{} says {}", owner.0, a + b)
}

/// Asks for a region; the same tool in both children, so their states could be swapped.
#[mcp::tool]
async fn ask(region: Elicit<Region>, owner: State<Owner>) -> String {
    format!("{} in {}", owner.0, region.region)
}

/// Greets.
#[mcp::prompt]
async fn hello(who: String) -> Vec<mcp::PromptMessage> {
    vec![mcp::PromptMessage::user(format!("Hello, {who}!"))]
}

/// Today's note.
#[mcp::resource("note://today", name = "today")]
async fn today() -> &'static str {
    "water the plants"
}

/// One note.
#[mcp::resource("note://{id}", name = "note")]
async fn note(id: String) -> String {
    format!("note {id}")
}

fn notes() -> McpServer {
    McpServer::new("notes")
        .state(Owner("notes"))
        .tools(mcp::tools![add, ask])
        .prompts(mcp::prompts![hello])
        .resources(mcp::resources![today, note])
        .on_complete(|_ctx, _params| async { Ok(CompleteResult::values(vec!["ada".into()])) })
}

fn calc() -> McpServer {
    McpServer::new("calc")
        .state(Owner("calc"))
        .tools(mcp::tools![sum, ask])
}

fn gateway() -> Server {
    McpServer::new("gateway")
        .mount("notes", notes())
        .mount("calc", calc())
        .build()
        .expect("the gateway builds")
}

fn text(result: &mcp::protocol::CallToolResult) -> String {
    let first = result.content.first().and_then(|c| c.as_text());
    first.expect("a text result").to_owned()
}

fn client() -> mcp::client::ClientBuilder {
    Client::builder(Implementation::new("mounting-test", "1.0.0"))
        .on_elicit(|params| async move { Ok(support::answer(&params)) })
}

fn http_client(url: &str) -> Client {
    client().connect(mcp::transport::http_client::connect(url).expect("connects"))
}

fn rpc_error(outcome: Result<impl std::fmt::Debug, ClientError>) -> McpError {
    match outcome {
        Err(ClientError::Rpc(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn mounted_tools_and_prompts_are_listed_and_called_under_their_prefixes() {
    let client = connect_in_memory(gateway());
    let mut tools: Vec<String> = (client.list_all_tools().await.expect("lists"))
        .into_iter()
        .map(|t| t.name)
        .collect();
    tools.sort();
    assert_eq!(tools, ["calc_add", "calc_ask", "notes_add", "notes_ask"]);

    let noted = client
        .call_tool("notes_add", Some(json!({"text": "milk"})))
        .await
        .expect("notes_add answers");
    assert_eq!(text(&noted), "notes noted milk");
    let summed = client
        .call_tool("calc_add", Some(json!({"a": 2, "b": 3})))
        .await
        .expect("calc_add answers");
    // Each child reads its own shared state: the same type holds another value in each.
    assert_eq!(text(&summed), "calc says 5");

    let unknown = rpc_error(client.call_tool("add", Some(json!({"text": "x"}))).await);
    assert_eq!(unknown.code, code::INVALID_PARAMS);

    let prompts = client.list_prompts(None).await.expect("lists prompts");
    assert_eq!(prompts.prompts.len(), 1);
    assert_eq!(prompts.prompts[0].name, "notes_hello");
    let got = client
        .get_prompt("notes_hello", Some(json!({"who": "Ada"})))
        .await
        .expect("the prompt answers");
    assert_eq!(
        serde_json::to_value(&got.messages).expect("serializes")[0]["content"]["text"],
        "Hello, Ada!"
    );

    let capabilities = gateway().capabilities();
    assert!(capabilities.tools.is_some() && capabilities.prompts.is_some());
    assert!(capabilities.resources.is_some() && capabilities.completions.is_some());
}

#[tokio::test]
async fn results_of_mounted_servers_name_the_endpoint_that_answered() {
    let answered_by = |value: Value| value["_meta"]["io.modelcontextprotocol/serverInfo"].clone();
    let client = connect_in_memory(gateway());
    let noted = client
        .call_tool("notes_add", Some(json!({"text": "milk"})))
        .await
        .expect("notes_add answers");
    let noted = serde_json::to_value(&noted).expect("serializes");
    assert_eq!(answered_by(noted)["name"], "gateway");

    // Mounted in a mounted server, still the outermost.
    let edge = McpServer::new("edge")
        .mount("gw", McpServer::new("gateway").mount("notes", notes()))
        .build()
        .expect("the edge builds");
    let client = connect_in_memory(edge);
    let read = client
        .read_resource("gw+notes+note://today")
        .await
        .expect("the note reads");
    let read = serde_json::to_value(&read).expect("serializes");
    assert_eq!(answered_by(read.clone())["name"], "edge", "{read}");
    assert_eq!(read["contents"][0]["uri"], "gw+notes+note://today");
}

#[tokio::test]
async fn the_gateways_layers_see_the_requests_of_its_mounted_servers() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let audit =
        tower::ServiceBuilder::new().map_request(move |request: mcp::server::McpRequest| {
            let target = request.target().unwrap_or("-").to_owned();
            log.lock()
                .expect("log")
                .push(format!("{} {target}", request.method()));
            request
        });
    let gateway = McpServer::new("gateway")
        .mount("notes", notes())
        .mount("calc", calc())
        .layer(audit)
        .build()
        .expect("the gateway builds");
    let client = connect_in_memory(gateway);
    let summed = client
        .call_tool("calc_add", Some(json!({"a": 1, "b": 1})))
        .await
        .expect("calc_add answers");
    assert_eq!(text(&summed), "calc says 2");
    // Seen once, under the name the gateway's caller used: a child's request is not layered
    // twice by the gateway.
    assert_eq!(*seen.lock().expect("log"), ["tools/call calc_add"]);
}

#[tokio::test]
async fn mounted_resources_read_under_the_prefixed_scheme() {
    let client = connect_in_memory(gateway());
    let listed = client.list_resources(None).await.expect("lists resources");
    let uris: Vec<&str> = listed.resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["notes+note://today"]);
    let templates = client
        .list_resource_templates(None)
        .await
        .expect("lists templates");
    assert_eq!(
        templates.resource_templates[0].uri_template,
        "notes+note://{id}"
    );

    let read: ReadResourceResult = client
        .read_resource("notes+note://7")
        .await
        .expect("reads through the template");
    let contents = serde_json::to_value(&read.contents).expect("serializes");
    assert_eq!(
        contents[0]["uri"], "notes+note://7",
        "the URI read is the URI asked"
    );
    assert_eq!(contents[0]["text"], "note 7");
    let today = client
        .read_resource("notes+note://today")
        .await
        .expect("reads");
    assert_eq!(today.contents[0].uri(), "notes+note://today");

    // Not the child's own URI, and not a prefix that is mounted.
    for missing in ["note://today", "calc+note://today"] {
        let error = rpc_error(client.read_resource(missing).await);
        assert_eq!(error.code, code::INVALID_PARAMS, "{missing}");
        assert_eq!(error.message, format!("Resource not found: {missing}"));
    }
}

#[tokio::test]
async fn completions_of_a_mounted_prompt_reach_its_server() {
    let client = connect_in_memory(gateway());
    let params = CompleteParams {
        reference: CompletionReference::Prompt {
            name: "notes_hello".into(),
            title: None,
        },
        argument: CompletionArgument {
            name: "who".into(),
            value: "a".into(),
        },
        context: None,
    };
    let completed = client.complete(&params).await.expect("completes");
    assert_eq!(completed.completion.values, ["ada"]);
}

#[tokio::test]
async fn a_mounted_tool_asks_round_by_round_over_http() {
    let gateway = McpServer::new("gateway")
        .mount("ops", McpServer::new("ops").tools(mcp::tools![provision]))
        .build()
        .expect("builds");
    let (url, _stop) = serve(gateway).await;
    let client = http_client(&url);
    let arguments = json!({"name": "orders"});
    let (mut answers, mut state, mut rounds) = (None, None, 0);
    let result = loop {
        rounds += 1;
        let outcome = client
            .call_tool_once("ops_provision", Some(arguments.clone()), answers, state)
            .await
            .expect("a round");
        match outcome {
            Outcome::Complete(result) => break result,
            Outcome::InputRequired(ask) => {
                let mut responses = InputResponses::new();
                for (key, question) in ask.input_requests.iter().flatten() {
                    let mcp::protocol::InputRequest::Elicit(params) = question else {
                        panic!("only elicitation is asked");
                    };
                    responses.insert(key.clone(), support::answer(params));
                }
                answers = Some(responses);
                state = ask.request_state;
            }
        }
    };
    // A region, then (depending on it) a confirmation, then the result.
    assert_eq!(rounds, 3);
    assert_eq!(text(&result), "orders in eu-west-1: true");
}

#[tokio::test]
async fn a_childs_request_state_opens_only_in_that_child() {
    let (url, _stop) = serve(gateway()).await;
    let client = http_client(&url);
    let Outcome::InputRequired(ask) = client
        .call_tool_once("notes_ask", Some(json!({})), None, None)
        .await
        .expect("the first round")
    else {
        panic!("notes_ask asks first");
    };
    let state = ask.request_state.expect("the child sealed its state");
    let mut responses = InputResponses::new();
    responses.insert(
        "region",
        json!({"action": "accept", "content": {"region": "x"}}),
    );

    // The sibling has a tool of the same name and arguments: only its keys and audience
    // tell the token apart, and they do.
    let refused = rpc_error(
        client
            .call_tool_once(
                "calc_ask",
                Some(json!({})),
                Some(responses.clone()),
                Some(state.clone()),
            )
            .await,
    );
    assert_eq!(refused.code, code::INVALID_PARAMS);
    assert_eq!(
        refused.message,
        mcp::protocol::INVALID_REQUEST_STATE_MESSAGE
    );

    let answered = client
        .call_tool_once("notes_ask", Some(json!({})), Some(responses), Some(state))
        .await
        .expect("the child opens its own state");
    let Outcome::Complete(result) = answered else {
        panic!("answered in the second round");
    };
    assert_eq!(text(&result), "notes in x");
}

#[test]
fn names_that_would_read_alike_are_a_build_error() {
    /// Clashes with the mounted `notes_add`.
    #[mcp::tool]
    async fn notes_add() -> &'static str {
        "mine"
    }
    let clash = McpServer::new("gateway")
        .tools(mcp::tools![notes_add])
        .mount("notes", notes())
        .build();
    assert!(
        matches!(&clash, Err(BuildError::MountClash { kind: "tool", name }) if name == "notes_add"),
        "{clash:?}"
    );

    // Both children keep their names with an empty prefix: `ask` twice.
    let twice = McpServer::new("gateway")
        .mount("", notes())
        .mount("", calc())
        .build();
    assert!(
        matches!(&twice, Err(BuildError::InvalidMount { .. })),
        "{twice:?}"
    );
    let alike = McpServer::new("gateway")
        .mount("", notes())
        .mount(
            "n",
            McpServer::new("n")
                .tools(mcp::tools![ask])
                .state(Owner("n")),
        )
        .mount("m", calc())
        .build();
    assert!(alike.is_ok(), "{alike:?}");
    let both_ask = McpServer::new("gateway")
        .mount(
            "",
            McpServer::new("a")
                .tools(mcp::tools![ask])
                .state(Owner("a")),
        )
        .mount("x", McpServer::new("b").state(Owner("b")))
        .tools(mcp::tools![ask])
        .state(Owner("gateway"))
        .build();
    assert!(
        matches!(&both_ask, Err(BuildError::MountClash { kind: "tool", name }) if name == "ask"),
        "{both_ask:?}"
    );

    for prefix in ["1x", "a_b", "a b"] {
        let bad = McpServer::new("gateway").mount(prefix, notes()).build();
        assert!(
            matches!(&bad, Err(BuildError::InvalidMount { .. })),
            "{prefix:?}: {bad:?}"
        );
    }
    // Two children of one name would be one sealing audience.
    let same_name = McpServer::new("gateway")
        .mount("a", McpServer::new("twin"))
        .mount("b", McpServer::new("twin"))
        .build();
    assert!(
        matches!(&same_name, Err(BuildError::InvalidMount { .. })),
        "{same_name:?}"
    );
}

/// Fails the way a remote server's handler may: a JSON-RPC error with a code of its own.
#[mcp::tool]
async fn refuse() -> Result<String, McpError> {
    Err(McpError::new(1042, "refused upstream"))
}

/// Reports its progress three times.
#[mcp::tool]
async fn count(ctx: mcp::Context) -> &'static str {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), None).await;
    }
    "counted"
}

/// Serves `provision` and `refuse` over HTTP, and a proxy of it (also over HTTP): the proxy's
/// URL, and the guards of both.
async fn proxied() -> (String, Vec<tokio_util::sync::DropGuard>) {
    let remote = McpServer::new("upstream")
        .tools(mcp::tools![provision, refuse, count])
        .prompts(mcp::prompts![hello])
        .build()
        .expect("builds");
    let (remote_url, remote_stop) = serve(remote).await;
    let upstream = Client::builder(Implementation::new("proxy", "1.0.0"))
        .accept_tasks(false)
        .connect(mcp::transport::http_client::connect(&remote_url).expect("connects"));
    let proxy = mcp::proxy::proxy("proxy", upstream)
        .await
        .expect("the proxy reads the remote's listing");
    let gateway = McpServer::new("gateway")
        .mount("up", proxy)
        .build()
        .expect("builds");
    let (url, stop) = serve(gateway).await;
    (url, vec![remote_stop, stop])
}

#[tokio::test]
async fn a_proxied_call_passes_its_rounds_through() {
    let (url, _stops) = proxied().await;
    let client = http_client(&url);
    let mut tools: Vec<String> = (client.list_all_tools().await.expect("lists"))
        .into_iter()
        .map(|t| t.name)
        .collect();
    tools.sort();
    assert_eq!(tools, ["up_count", "up_provision", "up_refuse"]);

    let arguments = json!({"name": "orders"});
    let Outcome::InputRequired(first) = client
        .call_tool_once("up_provision", Some(arguments.clone()), None, None)
        .await
        .expect("the first round")
    else {
        panic!("the remote asks first");
    };
    let questions: Vec<&String> = first
        .input_requests
        .iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        questions,
        ["region"],
        "the remote's question, under its key"
    );
    let state = first.request_state.clone().expect("state to echo");
    let mut responses = InputResponses::new();
    responses.insert(
        "region",
        json!({"action": "accept", "content": {"region": "eu-west-1"}}),
    );

    // The remote's state, sealed again by the proxy, is bound to the call it came from.
    let replayed = rpc_error(
        client
            .call_tool_once(
                "up_provision",
                Some(json!({"name": "other"})),
                Some(responses.clone()),
                Some(state.clone()),
            )
            .await,
    );
    assert_eq!(
        replayed.message,
        mcp::protocol::INVALID_REQUEST_STATE_MESSAGE
    );

    let Outcome::InputRequired(second) = client
        .call_tool_once(
            "up_provision",
            Some(arguments),
            Some(responses),
            Some(state),
        )
        .await
        .expect("the second round")
    else {
        panic!("the confirmation depends on the region, so it comes next");
    };
    let questions: Vec<&String> = second
        .input_requests
        .iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(questions, ["sure"]);

    // The whole call, with the client's own loop.
    let result = client
        .call_tool("up_provision", Some(json!({"name": "orders"})))
        .await
        .expect("the call ends");
    assert_eq!(text(&result), "orders in eu-west-1: true");
}

#[tokio::test]
async fn a_remote_error_passes_through_the_proxy_with_its_code() {
    let (url, _stops) = proxied().await;
    let client = http_client(&url);
    let error = rpc_error(client.call_tool("up_refuse", None).await);
    assert_eq!(
        (error.code, error.message.as_ref()),
        (1042, "refused upstream")
    );
    let unknown = rpc_error(client.get_prompt("up_hello", None).await);
    assert_eq!(unknown.code, code::INVALID_PARAMS, "{unknown:?}");
}

#[tokio::test]
async fn a_2025_caller_of_a_proxy_is_asked_through_its_session() {
    let (url, _stops) = proxied().await;
    let client = http_client(&url);
    client.initialize().await.expect("a 2025-11-25 session");
    let result = client
        .call_tool("up_provision", Some(json!({"name": "orders"})))
        .await
        .expect("the proxy asks through the session's back-channel");
    assert_eq!(text(&result), "orders in eu-west-1: true");
    let got = client
        .get_prompt("up_hello", Some(json!({"who": "Ada"})))
        .await
        .expect("the prompt answers");
    let messages: Value = serde_json::to_value(&got.messages).expect("serializes");
    assert_eq!(messages[0]["content"]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn the_remotes_progress_reaches_the_caller_that_asked_for_it() {
    let (url, _stops) = proxied().await;
    let client = http_client(&url);
    let (mut progress, call) = client.call_tool_with_progress("up_count", None);
    let (result, steps) = tokio::join!(call, async {
        let mut steps = Vec::new();
        while let Some(report) = progress.next().await {
            steps.push(report.progress);
        }
        steps
    });
    assert_eq!(text(&result.expect("the call ends")), "counted");
    assert_eq!(steps, [1.0, 2.0, 3.0]);
}

/// Lets the `hold` tasks of one server finish.
#[derive(Default)]
struct Release(tokio::sync::Notify);

/// Greets, as a task when the caller takes one.
#[mcp::tool(task = "optional")]
async fn greet(name: String, owner: State<Owner>) -> String {
    format!("{} greets {name}", owner.0)
}

/// Holds its task until its server's `Release` lets it go.
#[mcp::tool(task = "required")]
async fn hold(release: State<std::sync::Arc<Release>>, owner: State<Owner>) -> String {
    release.0.notified().await;
    format!("{} released", owner.0)
}

/// A server of task tools, and what lets its `hold` tasks finish.
fn with_tasks(name: &'static str) -> (McpServer, std::sync::Arc<Release>) {
    let release = std::sync::Arc::new(Release::default());
    let server = McpServer::new(name)
        .state(Owner(name))
        .state(release.clone())
        .tools(mcp::tools![greet, hold]);
    (server, release)
}

/// A gateway with task tools of its own and two mounted servers with theirs: the releases of
/// the gateway's, `notes`'s and `calc`'s `hold`.
fn task_gateway() -> (Server, [std::sync::Arc<Release>; 3]) {
    let (own, mine) = with_tasks("gateway");
    let (notes, of_notes) = with_tasks("notes");
    let (calc, of_calc) = with_tasks("calc");
    let gateway = own
        .mount("notes", notes)
        .mount("calc", calc)
        .build()
        .expect("a gateway of three task servers builds");
    (gateway, [mine, of_notes, of_calc])
}

/// Starts `tool` as a task: its id.
async fn start_task(client: &Client, tool: &str, arguments: Option<Value>) -> String {
    match client.start_tool(tool, arguments).await.expect("starts") {
        mcp::client::ToolStart::Task(task) => task.task_id,
        other => panic!("{tool} answered without a task: {other:?}"),
    }
}

/// Polls task `id` until its status is `status`.
async fn until_status(client: &Client, id: &str, status: TaskStatus) -> DetailedTask {
    for _ in 0..500 {
        let task = client.get_task(id).await.expect("tasks/get answers");
        assert_eq!(task.task.task_id, id, "tasks/get names the task as asked");
        if task.task.status == status {
            return task;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("task {id} never reached {status:?}");
}

fn result_text(task: &DetailedTask) -> &str {
    let result = task.result.as_ref().expect("a completed task's result");
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn tasks_of_a_gateway_and_its_mounted_servers_run_through_it_over_http() {
    let (gateway, releases) = task_gateway();
    let (url, _stop) = serve(gateway).await;
    // Over HTTP, `Mcp-Name` carries the task id as the gateway names it, and the gateway checks
    // it against the params before they are renamed for the child.
    let client = http_client(&url);
    for (tool, owner) in [
        ("greet", "gateway"),
        ("notes_greet", "notes"),
        ("calc_greet", "calc"),
    ] {
        let id = start_task(&client, tool, Some(json!({"name": "Ada"}))).await;
        match owner {
            "gateway" => assert_eq!(id.len(), mcp::tasks::TASK_ID_LEN, "{id}"),
            _ => assert!(id.starts_with(&format!("{owner}:")), "{id}"),
        }
        let done = until_status(&client, &id, TaskStatus::Completed).await;
        assert_eq!(result_text(&done), format!("{owner} greets Ada"));
        let result = client.wait_task(&id).await.expect("the result");
        assert_eq!(text(&result), format!("{owner} greets Ada"));
    }

    // Cancelled through the gateway, in the server that runs it; the others run on.
    let mut held = Vec::new();
    for tool in ["hold", "notes_hold", "calc_hold"] {
        held.push(start_task(&client, tool, None).await);
    }
    client.cancel_task(&held[1]).await.expect("cancelled");
    until_status(&client, &held[1], TaskStatus::Cancelled).await;
    for (id, release) in [(&held[0], &releases[0]), (&held[2], &releases[2])] {
        assert_eq!(
            client.get_task(id).await.expect("read").task.status,
            TaskStatus::Working
        );
        release.0.notify_one();
    }
    let done = until_status(&client, &held[2], TaskStatus::Completed).await;
    assert_eq!(result_text(&done), "calc released");
    let done = until_status(&client, &held[0], TaskStatus::Completed).await;
    assert_eq!(result_text(&done), "gateway released");
    let error = client.wait_task(&held[1]).await.expect_err("cancelled");
    assert!(
        matches!(error, ClientError::TaskCancelled { .. }),
        "{error:?}"
    );
}

/// Each of `ids` is refused by tasks/get, tasks/update and tasks/cancel exactly as a task
/// that does not exist is.
async fn assert_not_found(client: &Client, ids: &[String], missing: &McpError) {
    for id in ids {
        let got = rpc_error(client.get_task(id).await);
        let cancelled = rpc_error(client.cancel_task(id).await);
        let updated = rpc_error(client.update_task(id, InputResponses::new()).await);
        for error in [got, cancelled, updated] {
            assert_eq!(
                (error.code, &error.message),
                (missing.code, &missing.message),
                "{id}"
            );
        }
    }
}

#[tokio::test]
async fn a_forged_or_bare_or_anothers_task_id_is_not_found_like_a_missing_one() {
    // What a server without mounts answers for a task that does not exist.
    let (plain, _) = with_tasks("plain");
    let plain = connect_in_memory(plain.build().expect("builds"));
    let missing = rpc_error(plain.get_task("nope").await);
    assert_eq!(missing.code, code::INVALID_PARAMS);

    let (gateway, _releases) = task_gateway();
    let client = connect_in_memory(gateway);
    let id = start_task(&client, "notes_greet", Some(json!({"name": "Ada"}))).await;
    let own = start_task(&client, "greet", Some(json!({"name": "Ada"}))).await;
    let bare = id.strip_prefix("notes:").expect("a notes task").to_owned();
    let forged = [
        format!("calc:{bare}"),
        bare.clone(),
        format!(":{bare}"),
        format!("nope:{bare}"),
        format!("notes:{own}"),
        format!("notes:notes:{bare}"),
        "notes:".to_owned(),
        "nope".to_owned(),
    ];
    assert_not_found(&client, &forged, &missing).await;
    until_status(&client, &id, TaskStatus::Completed).await;

    // A gateway without tasks of its own answers the ids none of its servers made the same.
    let (notes, _release) = with_tasks("notes");
    let bare_gateway = McpServer::new("gateway")
        .mount("notes", notes)
        .build()
        .expect("builds");
    let client = connect_in_memory(bare_gateway);
    let id = start_task(&client, "notes_greet", Some(json!({"name": "Ada"}))).await;
    let bare = id.strip_prefix("notes:").expect("a notes task").to_owned();
    let forged = [bare.clone(), format!("calc:{bare}"), "nope".to_owned()];
    assert_not_found(&client, &forged, &missing).await;
    let done = until_status(&client, &id, TaskStatus::Completed).await;
    assert_eq!(result_text(&done), "notes greets Ada");

    // A caller that does not declare the extension is told so before any id is looked at,
    // by the gateway as by a server of its own tasks.
    let (plain, _) = with_tasks("plain");
    let (notes, _release) = with_tasks("notes");
    let bare_gateway = McpServer::new("gateway").mount("notes", notes);
    let mut refusals = Vec::new();
    for server in [plain, bare_gateway] {
        let undeclaring = Client::builder(Implementation::new("no-tasks", "1.0.0"))
            .accept_tasks(false)
            .connect(server.build().expect("builds").serve_in_memory());
        let error = rpc_error(undeclaring.get_task("nope").await);
        assert_eq!(
            error.code,
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "{error:?}"
        );
        refusals.push(error.message);
    }
    assert_eq!(refusals[0], refusals[1]);
}

/// The next `notifications/tasks` of a listen, as its task. Waited for a long while, not for
/// ever: a status that never comes is a failure, not a hung test.
async fn next_task(listen: &mut mcp::client::Listen) -> DetailedTask {
    let next = tokio::time::timeout(std::time::Duration::from_secs(10), listen.next());
    match next.await.expect("a task's status within 10s") {
        Some(Ok(Change::Task(task))) => task.into_task(),
        other => panic!("expected a task's status, got {other:?}"),
    }
}

#[tokio::test]
async fn a_listen_on_the_gateway_hears_its_own_and_its_mounted_servers_tasks() {
    let (gateway, releases) = task_gateway();
    let client = connect_in_memory(gateway);
    let child = start_task(&client, "notes_hold", None).await;
    let own = start_task(&client, "hold", None).await;
    let forged = format!("calc:{}", child.strip_prefix("notes:").expect("notes"));
    let asked = SubscriptionFilter::new().tasks([&child, &own, &forged]);
    let mut listen = client.listen(asked).await.expect("listens");
    assert_eq!(
        listen.honoured().task_ids.as_deref(),
        Some(&[child.clone(), own.clone()][..]),
        "another server's id is not granted"
    );
    // Each task as it stood when the listen opened.
    for id in [&child, &own] {
        let task = next_task(&mut listen).await;
        assert_eq!(
            (&task.task.task_id, task.task.status),
            (id, TaskStatus::Working)
        );
    }
    // The child's status change, published on its bus, reaches the gateway's listen under
    // the gateway's name for the task.
    releases[1].0.notify_one();
    let task = next_task(&mut listen).await;
    assert_eq!(task.task.task_id, child);
    assert_eq!(task.task.status, TaskStatus::Completed);
    assert_eq!(result_text(&task), "notes released");
    releases[0].0.notify_one();
    let task = next_task(&mut listen).await;
    assert_eq!(
        (task.task.task_id, task.task.status),
        (own, TaskStatus::Completed)
    );
}

#[tokio::test]
async fn tasks_of_a_server_mounted_in_a_mounted_server_reach_the_outermost() {
    let (notes, release) = with_tasks("notes");
    let edge = McpServer::new("edge")
        .mount("gw", McpServer::new("gateway").mount("notes", notes))
        .build()
        .expect("the edge builds");
    let (url, _stop) = serve(edge).await;
    let client = http_client(&url);
    let id = start_task(&client, "gw_notes_greet", Some(json!({"name": "Ada"}))).await;
    assert!(id.starts_with("gw:notes:"), "{id}");
    let done = until_status(&client, &id, TaskStatus::Completed).await;
    assert_eq!(result_text(&done), "notes greets Ada");

    let held = start_task(&client, "gw_notes_hold", None).await;
    let mut listen = client
        .listen(SubscriptionFilter::new().task(&held))
        .await
        .expect("listens");
    assert_eq!(
        next_task(&mut listen).await.task.status,
        TaskStatus::Working
    );
    release.0.notify_one();
    let task = next_task(&mut listen).await;
    assert_eq!(
        (&task.task.task_id, task.task.status),
        (&held, TaskStatus::Completed)
    );

    // The id one level down is not a name the edge gave out.
    let inner = held.strip_prefix("gw:").expect("gw").to_owned();
    let missing = rpc_error(client.get_task("nope").await);
    assert_not_found(&client, &[inner], &missing).await;
}

#[test]
fn only_the_tasks_methods_may_be_served_by_two_mounted_servers() {
    fn jobs(name: &str) -> McpServer {
        let extension = mcp::server::Extension::new("com.example/jobs")
            .method("jobs/get", |_ctx, _p: Value| async {
                Ok::<_, McpError>(json!({}))
            });
        McpServer::new(name).extension(extension)
    }
    let clash = McpServer::new("gateway")
        .mount("a", jobs("a"))
        .mount("b", jobs("b"))
        .build();
    assert!(
        matches!(&clash, Err(BuildError::MountClash { kind: "extension method", name }) if name == "jobs/get"),
        "{clash:?}"
    );
    let (a, _) = with_tasks("a");
    let (b, _) = with_tasks("b");
    let tasks = McpServer::new("gateway").mount("a", a).mount("", b).build();
    assert!(tasks.is_ok(), "{tasks:?}");
}

#[tokio::test]
async fn a_proxy_serving_tasks_mounts_beside_a_server_with_tasks() {
    let (remote, release) = with_tasks("upstream");
    let remote = remote.build().expect("builds");
    let (near, far) = mcp::transport::memory::pair();
    tokio::spawn(async move { remote.serve(far).await });
    let upstream = Client::builder(Implementation::new("proxy", "1.0.0"))
        .accept_tasks(false)
        .connect(near);
    let proxy = mcp::proxy::proxy("proxy", upstream)
        .await
        .expect("the proxy reads the remote's listing");
    let (notes, _) = with_tasks("notes");
    let gateway = McpServer::new("gateway")
        .mount("up", proxy)
        .mount("notes", notes)
        .build()
        .expect("a proxy with tasks and a server with tasks build side by side");
    let (url, _stop) = serve(gateway).await;
    let client = http_client(&url);
    for (tool, prefix, says) in [
        ("up_greet", "up:", "upstream greets Ada"),
        ("notes_greet", "notes:", "notes greets Ada"),
    ] {
        let id = start_task(&client, tool, Some(json!({"name": "Ada"}))).await;
        assert!(id.starts_with(prefix), "{id}");
        let done = until_status(&client, &id, TaskStatus::Completed).await;
        assert_eq!(result_text(&done), says);
    }

    // The proxy's task follows the remote's; a listen on the gateway hears it end.
    let held = start_task(&client, "up_hold", None).await;
    let mut listen = client
        .listen(SubscriptionFilter::new().task(&held))
        .await
        .expect("listens");
    assert_eq!(
        next_task(&mut listen).await.task.status,
        TaskStatus::Working
    );
    release.0.notify_one();
    let task = next_task(&mut listen).await;
    assert_eq!(
        (&task.task.task_id, task.task.status),
        (&held, TaskStatus::Completed)
    );
    assert_eq!(result_text(&task), "upstream released");
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A 2026-07-28 request of `user`'s declaring the tasks extension, with `name` in `Mcp-Name`;
/// the reply.
async fn post_as(
    addr: std::net::SocketAddr,
    user: &str,
    method: &str,
    mut params: Value,
    name: &str,
) -> Value {
    params["_meta"] = crate::support::http::meta(json!({"extensions": {TASKS: {}}}));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    crate::support::http::post(addr, body.to_string())
        .routing(method, Some(name))
        .header("authorization", &format!("Bearer {user}"))
        .send()
        .await
        .json()
}

#[tokio::test]
async fn mcp_name_carries_the_gateways_task_id_and_a_task_stays_its_callers() {
    let (notes, _release) = with_tasks("notes");
    let gateway = McpServer::new("gateway")
        .mount("notes", notes)
        .build()
        .expect("builds");
    let (addr, _stop) = crate::support::http::serve_with_callers(gateway).await;
    let call = json!({"name": "notes_greet", "arguments": {"name": "Ada"}});
    let made = post_as(addr, "alice", "tools/call", call, "notes_greet").await;
    let id = made["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    assert!(id.starts_with("notes:"), "{made}");

    let own = post_as(addr, "alice", "tasks/get", json!({"taskId": id}), &id).await;
    assert_eq!(own["result"]["taskId"], id, "{own}");
    // The header must name the id the body names, as the gateway's client knows it.
    let bare = id.strip_prefix("notes:").expect("notes");
    let mismatched = post_as(addr, "alice", "tasks/get", json!({"taskId": id}), bare).await;
    assert_eq!(mismatched["error"]["code"], -32020, "{mismatched}");
    // Another caller does not reach it through the gateway either.
    for method in ["tasks/get", "tasks/cancel"] {
        let other = post_as(addr, "mallory", method, json!({"taskId": id}), &id).await;
        assert_eq!(other["error"]["code"], -32602, "{method}: {other}");
        assert_eq!(other["error"]["message"], "Task not found", "{other}");
    }
}

/// Comes and goes with `grow`.
#[mcp::tool]
async fn sprout() -> &'static str {
    "sprouted"
}

/// Adds `sprout` to its own server while it runs.
#[mcp::tool]
async fn grow(ctx: mcp::Context) -> Result<&'static str, McpError> {
    ctx.server()
        .add_tools(mcp::tools![sprout])
        .map_err(|e| McpError::internal(e.to_string()))?;
    Ok("grown")
}

#[tokio::test]
async fn a_mounted_server_that_changes_its_tools_tells_the_gateways_listeners() {
    let gateway = McpServer::new("gateway")
        .mount("garden", McpServer::new("garden").tools(mcp::tools![grow]))
        .build()
        .expect("the gateway builds");
    let (url, _stop) = serve(gateway).await;
    let client = http_client(&url);
    let mut listen = client
        .listen(SubscriptionFilter::new().tools_changed())
        .await
        .expect("listens");
    let grown = client.call_tool("garden_grow", None).await.expect("grows");
    assert_eq!(text(&grown), "grown");
    let heard = tokio::time::timeout(std::time::Duration::from_secs(10), listen.next())
        .await
        .expect("a change within 10 s");
    assert!(
        matches!(heard, Some(Ok(mcp::push::Change::ToolsListChanged))),
        "{heard:?}"
    );
    let mut names: Vec<String> = (client.list_all_tools().await.expect("lists"))
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(names, ["garden_grow", "garden_sprout"]);
}
