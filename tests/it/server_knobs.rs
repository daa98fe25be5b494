//! The knobs of `McpServer` and the macros that describe a server and its items to clients,
//! read on the raw wire of both revisions: the server's title, icons and website; items'
//! icons, `_meta`, titles and annotations; cache hints; per-argument completion.

use std::time::Duration;

use mcp::protocol::{CacheHint, ResourceContents};
use mcp::protocol::{Icon, IconTheme};
use mcp::transport::Duplex;
use mcp::{McpServer, ReadResourceResult};
use serde_json::{Value, json};

/// One raw connection to a server, speaking one revision.
struct Wire {
    end: Duplex,
    next_id: u64,
    legacy: bool,
}

impl Wire {
    /// A stateless 2026-07-28 client.
    fn modern(server: McpServer) -> Self {
        Self {
            end: server.serve_in_memory().expect("valid server"),
            next_id: 1,
            legacy: false,
        }
    }

    /// A 2025-11-25 session, initialized; also returns the `initialize` result.
    async fn legacy(server: McpServer) -> (Self, Value) {
        let mut wire = Self {
            end: server.serve_in_memory().expect("valid server"),
            next_id: 1,
            legacy: true,
        };
        let init = wire
            .send_raw(
                "initialize",
                json!({
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "old", "version": "1"}}),
            )
            .await;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        wire.end
            .outgoing
            .send(initialized.to_string())
            .await
            .expect("send");
        (wire, init)
    }

    async fn send_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.end
            .outgoing
            .send(request.to_string())
            .await
            .expect("send");
        loop {
            let line = tokio::time::timeout(Duration::from_secs(5), self.end.incoming.recv())
                .await
                .expect("an answer in time")
                .expect("open")
                .expect("a frame");
            let reply: Value = serde_json::from_str(&line).expect("JSON");
            // Notifications (a log message, say) may come first.
            if reply.get("id").is_some() {
                assert_eq!(reply["id"], id, "{reply}");
                return reply;
            }
        }
    }

    /// The whole reply to `method` (`result` or `error`), with the revision's request `_meta`.
    async fn reply(&mut self, method: &str, mut params: Value) -> Value {
        if !self.legacy {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            });
        }
        self.send_raw(method, params).await
    }

    /// The `result` of `method`; an error reply fails the test.
    async fn result(&mut self, method: &str, params: Value) -> Value {
        let reply = self.reply(method, params).await;
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }
}

fn described_server() -> McpServer {
    McpServer::new("knobs")
        .version("3.0.0")
        .title("Knob Server")
        .description("Shows every knob.")
        .icons([
            Icon::new("https://example.com/knob.svg")
                .with_mime_type("image/svg+xml")
                .with_sizes(["any"]),
            Icon::new("data:image/png;base64,iVBORw0KGgo=").with_theme(IconTheme::Dark),
        ])
        .website_url("https://example.com/knobs")
}

fn described_info() -> Value {
    json!({
        "name": "knobs",
        "title": "Knob Server",
        "version": "3.0.0",
        "description": "Shows every knob.",
        "icons": [
            {"src": "https://example.com/knob.svg", "mimeType": "image/svg+xml", "sizes": ["any"]},
            {"src": "data:image/png;base64,iVBORw0KGgo=", "theme": "dark"},
        ],
        "websiteUrl": "https://example.com/knobs",
    })
}

#[tokio::test]
async fn server_discover_describes_the_server() {
    let mut wire = Wire::modern(described_server());
    let discovered = wire.result("server/discover", json!({})).await;
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"],
        described_info()
    );
}

#[tokio::test]
async fn initialize_describes_the_server() {
    let (_wire, init) = Wire::legacy(described_server()).await;
    assert_eq!(init["result"]["serverInfo"], described_info(), "{init}");
}

#[test]
fn unusable_icon_and_website_urls_are_refused_at_build() {
    let icon = McpServer::new("s")
        .icons([Icon::new("javascript:alert(1)")])
        .build()
        .expect_err("a javascript: icon");
    assert_eq!(
        icon.to_string(),
        "the server icon `javascript:alert(1)` is not an `https:` or `http:` URL or a `data:` URI"
    );
    let site = McpServer::new("s")
        .website_url("example.com")
        .build()
        .expect_err("a URL without a scheme");
    assert_eq!(
        site.to_string(),
        "the website URL `example.com` is not an `https:` or `http:` URL"
    );
}

/// Deploys a service.
#[mcp::tool(
    title = "Deploy",
    icons = [
        "https://example.com/deploy.png",
        icon(src = "https://example.com/deploy.svg", mime_type = "image/svg+xml", sizes = ["any"], theme = "light"),
    ],
    meta = json!({"example.com/team": "platform"}),
)]
async fn deploy(service: String) -> String {
    service
}

/// Release notes.
#[mcp::prompt(title = "Release notes", icons = ["https://example.com/notes.png"], meta = team_meta())]
async fn release_notes(
    /// The version released.
    #[mcp(title = "Version")]
    version: String,
    /// Extra context.
    #[mcp(title = "Notes")]
    notes: Option<String>,
) -> String {
    format!("{version} {notes:?}")
}

fn team_meta() -> serde_json::Map<String, Value> {
    let mut meta = serde_json::Map::new();
    meta.insert("example.com/team".into(), json!("docs"));
    meta
}

/// The changelog.
#[mcp::resource(
    "docs://changelog",
    title = "Changelog",
    mime_type = "text/markdown",
    icons = [icon(src = "data:image/png;base64,iVBORw0KGgo=", sizes = ["16x16", "32x32"])],
    meta = json!({"example.com/owner": "docs"}),
    annotations(audience = ["user", "assistant"], priority = 0.8, last_modified = "2025-01-12T15:00:58Z"),
    size = 2048,
)]
async fn changelog() -> &'static str {
    "# Changes"
}

/// One release's notes.
#[mcp::resource(
    "docs://releases/{version}",
    icons = ["https://example.com/release.png"],
    annotations(audience = ["assistant"], priority = 1),
)]
async fn release(version: String) -> String {
    version
}

fn items_server() -> McpServer {
    McpServer::new("items")
        .tools(mcp::tools![deploy])
        .prompts(mcp::prompts![release_notes])
        .resources(mcp::resources![changelog, release])
}

#[tokio::test]
async fn listings_carry_icons_meta_titles_and_annotations() {
    for legacy in [false, true] {
        let mut wire = if legacy {
            Wire::legacy(items_server()).await.0
        } else {
            Wire::modern(items_server())
        };
        let tools = wire.result("tools/list", json!({})).await;
        assert_eq!(
            tools["tools"][0],
            json!({
                "name": "deploy",
                "title": "Deploy",
                "description": "Deploys a service.",
                "icons": [
                    {"src": "https://example.com/deploy.png"},
                    {"src": "https://example.com/deploy.svg", "mimeType": "image/svg+xml",
                        "sizes": ["any"], "theme": "light"},
                ],
                "inputSchema": tools["tools"][0]["inputSchema"],
                "_meta": {"example.com/team": "platform"},
            })
        );
        let prompts = wire.result("prompts/list", json!({})).await;
        assert_eq!(
            prompts["prompts"][0],
            json!({
                "name": "release_notes",
                "title": "Release notes",
                "description": "Release notes.",
                "arguments": [
                    {"name": "version", "title": "Version", "description": "The version released.",
                        "required": true},
                    {"name": "notes", "title": "Notes", "description": "Extra context.",
                        "required": false},
                ],
                "icons": [{"src": "https://example.com/notes.png"}],
                "_meta": {"example.com/team": "docs"},
            })
        );
        let resources = wire.result("resources/list", json!({})).await;
        assert_eq!(
            resources["resources"][0],
            json!({
                "uri": "docs://changelog",
                "name": "changelog",
                "title": "Changelog",
                "description": "The changelog.",
                "mimeType": "text/markdown",
                "annotations": {"audience": ["user", "assistant"], "priority": 0.8,
                    "lastModified": "2025-01-12T15:00:58Z"},
                "size": 2048,
                "icons": [{"src": "data:image/png;base64,iVBORw0KGgo=", "sizes": ["16x16", "32x32"]}],
                "_meta": {"example.com/owner": "docs"},
            })
        );
        let templates = wire.result("resources/templates/list", json!({})).await;
        assert_eq!(
            templates["resourceTemplates"][0],
            json!({
                "uriTemplate": "docs://releases/{version}",
                "name": "release",
                "description": "One release's notes.",
                "annotations": {"audience": ["assistant"], "priority": 1.0},
                "icons": [{"src": "https://example.com/release.png"}],
            })
        );
    }
}

/// A tool whose `meta` is not an object.
#[mcp::tool(meta = json!(["not", "an", "object"]))]
async fn misdescribed() -> String {
    String::new()
}

#[test]
fn a_meta_that_is_not_an_object_is_refused_at_build() {
    let error = McpServer::new("s")
        .tools(mcp::tools![misdescribed])
        .build()
        .expect_err("an array as _meta");
    assert_eq!(
        error.to_string(),
        "tool `misdescribed` cannot be registered: its `meta` is an array, not a JSON object"
    );
}

/// Today's menu: the same for everyone, for an hour.
#[mcp::resource("menu://today", cache(ttl_ms = 3_600_000, scope = "public"))]
async fn menu() -> &'static str {
    "soup"
}

/// A guest's order: theirs only, briefly (the scope defaults to private).
#[mcp::resource("orders://{guest}", cache(ttl_ms = 5_000))]
async fn order(guest: String) -> String {
    format!("{guest}: soup")
}

/// The bill: its hint depends on whether it is settled, so the answer sets its own.
#[mcp::resource("bills://{table}", cache(ttl_ms = 1, scope = "public"))]
async fn bill(table: String) -> ReadResourceResult {
    let settled = table == "7";
    let hint = match settled {
        true => CacheHint::public(Duration::from_secs(86_400)),
        false => CacheHint::private(Duration::ZERO),
    };
    ReadResourceResult::new(vec![ResourceContents::text(
        format!("bills://{table}"),
        "42",
    )])
    .with_cache_hint(hint)
}

/// The specials, with no hint of its own.
#[mcp::resource("menu://specials")]
async fn specials() -> &'static str {
    "fish"
}

/// Takes an order.
#[mcp::tool]
async fn take_order(dish: String) -> String {
    dish
}

/// Also takes an order.
#[mcp::tool]
async fn take_another(dish: String) -> String {
    dish
}

fn cached_server() -> McpServer {
    McpServer::new("bistro")
        .page_size(1)
        .cache_hint(CacheHint::private(Duration::from_millis(250)))
        .tools_cache_hint(CacheHint::public(Duration::from_secs(60)))
        .resources_cache_hint(CacheHint::public(Duration::from_secs(30)))
        .discover_cache_hint(CacheHint::public(Duration::from_secs(600)))
        .tools(mcp::tools![take_order, take_another])
        .prompts(mcp::prompts![release_notes])
        .resources(mcp::resources![menu, order, bill, specials])
}

fn hint(result: &Value) -> (Value, Value) {
    (result["ttlMs"].clone(), result["cacheScope"].clone())
}

fn expect(ttl_ms: u64, scope: &str) -> (Value, Value) {
    (json!(ttl_ms), json!(scope))
}

#[tokio::test]
async fn each_list_and_discover_carry_their_own_cache_hint_on_every_page() {
    let mut wire = Wire::modern(cached_server());
    let first = wire.result("tools/list", json!({})).await;
    let cursor = first["nextCursor"].clone();
    assert!(cursor.is_string(), "two tools, one per page: {first}");
    let second = wire.result("tools/list", json!({"cursor": cursor})).await;
    assert_eq!(hint(&first), expect(60_000, "public"));
    assert_eq!(hint(&second), expect(60_000, "public"));
    let prompts = wire.result("prompts/list", json!({})).await;
    assert_eq!(
        hint(&prompts),
        expect(250, "private"),
        "the server's default"
    );
    let resources = wire.result("resources/list", json!({})).await;
    assert_eq!(hint(&resources), expect(30_000, "public"));
    let templates = wire.result("resources/templates/list", json!({})).await;
    assert_eq!(hint(&templates), expect(30_000, "public"));
    let discovered = wire.result("server/discover", json!({})).await;
    assert_eq!(hint(&discovered), expect(600_000, "public"));
}

#[tokio::test]
async fn each_read_carries_its_resource_or_its_answer_hint() {
    let mut wire = Wire::modern(cached_server());
    let mut read = async |uri: &str| wire.result("resources/read", json!({"uri": uri})).await;
    assert_eq!(
        hint(&read("menu://today").await),
        expect(3_600_000, "public")
    );
    assert_eq!(hint(&read("orders://ana").await), expect(5_000, "private"));
    assert_eq!(hint(&read("bills://7").await), expect(86_400_000, "public"));
    assert_eq!(hint(&read("bills://3").await), expect(0, "private"));
    assert_eq!(
        hint(&read("menu://specials").await),
        expect(250, "private"),
        "the server's default"
    );
}

#[tokio::test]
async fn a_2025_session_gets_no_cache_hints() {
    let (mut wire, _) = Wire::legacy(cached_server()).await;
    for (method, params) in [
        ("tools/list", json!({})),
        ("resources/list", json!({})),
        ("resources/read", json!({"uri": "menu://today"})),
        ("resources/read", json!({"uri": "bills://7"})),
    ] {
        let result = wire.result(method, params).await;
        assert_eq!(
            hint(&result),
            (Value::Null, Value::Null),
            "{method}: {result}"
        );
    }
}

/// Who is reading, and on which revision: a static resource with the request context.
#[mcp::resource("whoami://reader")]
async fn whoami(ctx: mcp::Context) -> String {
    ctx.log(mcp::protocol::LoggingLevel::Info, None, "whoami read")
        .await;
    let client = ctx
        .client_info()
        .map_or("unknown", |info| info.name.as_str());
    format!(
        "{client} on {} (cancelled: {})",
        ctx.protocol_version(),
        ctx.is_cancelled()
    )
}

#[tokio::test]
async fn a_static_resource_takes_the_request_context() {
    let server = || McpServer::new("who").resources(mcp::resources![whoami]);
    let mut wire = Wire::modern(server());
    let listed = wire.result("resources/list", json!({})).await;
    assert_eq!(
        listed["resources"][0]["uri"], "whoami://reader",
        "static: {listed}"
    );
    let read = wire
        .result("resources/read", json!({"uri": "whoami://reader"}))
        .await;
    assert_eq!(
        read["contents"][0]["text"],
        "raw on 2026-07-28 (cancelled: false)"
    );
    let (mut wire, _) = Wire::legacy(server()).await;
    let read = wire
        .result("resources/read", json!({"uri": "whoami://reader"}))
        .await;
    assert_eq!(
        read["contents"][0]["text"],
        "old on 2025-11-25 (cancelled: false)"
    );
}

const CITIES: [(&str, &str); 4] = [
    ("PT", "Lisbon"),
    ("PT", "Porto"),
    ("FR", "Paris"),
    ("FR", "Lyon"),
];

async fn countries(prefix: String) -> Vec<String> {
    ["PT", "FR"]
        .iter()
        .filter(|c| c.starts_with(&prefix.to_uppercase()))
        .map(|c| (*c).to_owned())
        .collect()
}

/// Cities of the country given before: the other arguments come with the request.
async fn cities(prefix: String, request: mcp::server::CompletionRequest) -> Vec<String> {
    let country = request.argument("country").unwrap_or("PT");
    CITIES
        .iter()
        .filter(|(c, city)| *c == country && city.starts_with(&prefix))
        .map(|(_, city)| (*city).to_owned())
        .collect()
}

async fn seasons(prefix: String) -> Result<Vec<String>, String> {
    match prefix.as_str() {
        "?" => Err("the season list is down".into()),
        _ => Ok(vec!["summer".into(), "winter".into()]),
    }
}

/// Plans a trip.
#[mcp::prompt]
async fn trip(
    #[mcp(complete = countries)] country: String,
    #[mcp(complete = cities)] city: String,
    #[mcp(complete = seasons)] season: Option<String>,
    notes: Option<String>,
) -> String {
    format!("{city}, {country}, {season:?} {notes:?}")
}

/// A city's guide.
#[mcp::resource("guides://{country}/{city}")]
async fn guide(
    #[mcp(complete = countries)] country: String,
    #[mcp(complete = cities)] city: String,
) -> String {
    format!("{city}, {country}")
}

fn completing_server(fallback: bool) -> McpServer {
    let server = McpServer::new("travel")
        .prompts(mcp::prompts![trip, release_notes])
        .resources(mcp::resources![guide, changelog]);
    match fallback {
        true => server.on_complete(|_ctx, params| async move {
            Ok(mcp::protocol::CompleteResult::values(vec![format!(
                "fallback for {}",
                params.argument.name
            )]))
        }),
        false => server,
    }
}

fn prompt_ref(argument: &str, value: &str, others: Value) -> Value {
    json!({"ref": {"type": "ref/prompt", "name": "trip"},
        "argument": {"name": argument, "value": value},
        "context": {"arguments": others}})
}

fn values(result: &Value) -> Value {
    result["completion"]["values"].clone()
}

#[tokio::test]
async fn each_argument_completes_with_its_own_function_on_both_revisions() {
    for legacy in [false, true] {
        let mut wire = if legacy {
            Wire::legacy(completing_server(false)).await.0
        } else {
            Wire::modern(completing_server(false))
        };
        let mut complete = async |params: Value| wire.reply("completion/complete", params).await;
        let reply = complete(prompt_ref("country", "p", json!({}))).await;
        assert_eq!(values(&reply["result"]), json!(["PT"]), "{reply}");
        let reply = complete(prompt_ref("city", "L", json!({"country": "FR"}))).await;
        assert_eq!(values(&reply["result"]), json!(["Lyon"]), "{reply}");
        let reply = complete(prompt_ref("city", "", json!({}))).await;
        assert_eq!(values(&reply["result"]), json!(["Lisbon", "Porto"]));
        let template = json!({"ref": {"type": "ref/resource", "uri": "guides://{country}/{city}"},
            "argument": {"name": "city", "value": "P"}, "context": {"arguments": {"country": "FR"}}});
        let reply = complete(template).await;
        assert_eq!(values(&reply["result"]), json!(["Paris"]), "{reply}");
        // An argument without a function of its own, on a prompt the server has: no suggestions.
        let reply = complete(prompt_ref("notes", "x", json!({}))).await;
        assert_eq!(values(&reply["result"]), json!([]), "{reply}");
        // A failing function is the request's error, naming the argument.
        let reply = complete(prompt_ref("season", "?", json!({}))).await;
        assert_eq!(reply["error"]["code"], -32603, "{reply}");
        assert_eq!(
            reply["error"]["message"],
            "Error completing `season`: the season list is down"
        );
        let unknown = json!({"ref": {"type": "ref/prompt", "name": "nope"},
            "argument": {"name": "x", "value": ""}});
        let reply = complete(unknown).await;
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
    }
}

#[tokio::test]
async fn the_servers_on_complete_answers_what_no_argument_claims() {
    let mut wire = Wire::modern(completing_server(true));
    let discovered = wire.result("server/discover", json!({})).await;
    assert_eq!(discovered["capabilities"]["completions"], json!({}));
    let claimed = wire
        .result("completion/complete", prompt_ref("country", "F", json!({})))
        .await;
    assert_eq!(values(&claimed), json!(["FR"]));
    let unclaimed = wire
        .result("completion/complete", prompt_ref("notes", "", json!({})))
        .await;
    assert_eq!(values(&unclaimed), json!(["fallback for notes"]));
    let other = json!({"ref": {"type": "ref/prompt", "name": "release_notes"},
        "argument": {"name": "version", "value": ""}});
    let other = wire.result("completion/complete", other).await;
    assert_eq!(values(&other), json!(["fallback for version"]));
}

#[tokio::test]
async fn completion_is_advertised_only_when_something_completes() {
    let (_, init) = Wire::legacy(completing_server(false)).await;
    assert_eq!(
        init["result"]["capabilities"]["completions"],
        json!({}),
        "{init}"
    );
    let (_, init) = Wire::legacy(items_server()).await;
    assert!(
        init["result"]["capabilities"].get("completions").is_none(),
        "{init}"
    );
}
