//! Which tool arguments are mirrored into `Mcp-Param-*` headers, read from the server's own
//! `tools/list` (the input schemas mark them with `x-mcp-header`).

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::protocol::{RawRequest, RequestId, V2026_07_28, keys, methods};
use crate::server::{Connection, Exchange, NotificationSink, Server};

use super::headers::header_bindings;

/// Pages fetched at most, so a handler that always returns a cursor cannot loop forever.
const MAX_PAGES: usize = 1000;

/// `(property, header name)` pairs of one tool.
pub(super) type Bindings = Arc<[(String, String)]>;

/// Tool name → its bindings, learnt once per transport.
#[derive(Debug, Default)]
pub(super) struct ToolHeaders(OnceCell<HashMap<String, Bindings>>);

impl ToolHeaders {
    pub async fn bindings(&self, server: &Server, tool: &str) -> Bindings {
        let table = self.0.get_or_init(|| learn(server)).await;
        table.get(tool).cloned().unwrap_or_else(|| Arc::new([]))
    }
}

async fn learn(server: &Server) -> HashMap<String, Bindings> {
    #[derive(Deserialize)]
    struct Page {
        result: Option<PageResult>,
    }
    #[derive(Deserialize)]
    struct PageResult {
        #[serde(default)]
        tools: Vec<ToolEntry>,
        #[serde(rename = "nextCursor")]
        next_cursor: Option<String>,
    }
    #[derive(Deserialize)]
    struct ToolEntry {
        name: String,
        #[serde(rename = "inputSchema", default)]
        input_schema: Value,
    }
    let mut table = HashMap::new();
    let mut cursor: Option<String> = None;
    for page in 0..MAX_PAGES {
        let mut params = json!({"_meta": {
            keys::PROTOCOL_VERSION: V2026_07_28,
            keys::CLIENT_CAPABILITIES: {},
        }});
        if let Some(c) = cursor.take() {
            params["cursor"] = Value::String(c);
        }
        let request = RawRequest {
            id: RequestId::Number(page as i64),
            method: methods::TOOLS_LIST.to_owned(),
            params: serde_json::value::to_raw_value(&params).ok(),
        };
        // Nobody listens to notifications of this internal call.
        let (tx, _rx) = tokio::sync::mpsc::channel(1);
        let exchange = Exchange {
            connection: Arc::new(Connection::new()),
            sink: NotificationSink::new(tx),
            cancellation: CancellationToken::new(),
            identity: None,
        };
        let line = server.handle_request(request, exchange).await;
        let Some(result) = serde_json::from_str::<Page>(&line)
            .ok()
            .and_then(|p| p.result)
        else {
            break;
        };
        for tool in result.tools {
            let bindings = header_bindings(&tool.input_schema);
            if !bindings.is_empty() {
                table.insert(tool.name, bindings.into());
            }
        }
        match result.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    table
}
