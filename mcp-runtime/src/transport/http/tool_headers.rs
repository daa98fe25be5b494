//! Which tool arguments are mirrored into `Mcp-Param-*` headers, read from the server's own
//! `tools/list` (the input schemas mark them with `x-mcp-header`).

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::name_map::NameMap;
use crate::protocol::{RawRequest, RequestId, V2026_07_28, keys, methods};
use crate::server::{Connection, Exchange, NotificationSink, Server};

use super::headers::header_bindings;

/// Pages fetched at most, so a handler that always returns a cursor cannot loop forever.
const MAX_PAGES: usize = 1000;

/// `(property, header name)` pairs of one tool.
pub(super) type Bindings = Arc<[(String, String)]>;

/// How long a learnt table stands before a call to a tool it does not know relearns it: often
/// enough to pick up tools a dynamic `tools/list` adds, rarely enough that calls to unknown
/// tools cannot turn every request into a `tools/list`.
const RELEARN_AFTER: Duration = Duration::from_secs(5);

struct Table {
    learnt: Instant,
    /// Every listed tool, with no bindings for most.
    tools: NameMap<Bindings>,
}

/// Tool name → its bindings, learnt from the server's `tools/list` on first use.
#[derive(Default)]
pub(super) struct ToolHeaders {
    current: RwLock<Option<Arc<Table>>>,
    learning: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for ToolHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolHeaders").finish_non_exhaustive()
    }
}

impl ToolHeaders {
    /// The bindings of `tool`. Known at once but for the first call of a tool in a while:
    /// relearning them runs a whole request, boxed so that every POST's future does not carry
    /// room for it.
    pub fn bindings<'a>(
        &'a self,
        server: &'a Server,
        tool: &'a str,
    ) -> impl Future<Output = Bindings> + 'a {
        let known = self.known(tool);
        async move {
            match known {
                Some(known) => known,
                None => Box::pin(self.relearn(server, tool)).await,
            }
        }
    }

    async fn relearn(&self, server: &Server, tool: &str) -> Bindings {
        let _learning = self.learning.lock().await;
        // Another request may have relearnt while this one waited.
        if let Some(known) = self.known(tool) {
            return known;
        }
        let table = Arc::new(Table {
            tools: learn(server).await,
            learnt: Instant::now(),
        });
        let found = table.tools.get(tool).cloned();
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(table);
        found.unwrap_or_else(none)
    }

    /// The answer the current table gives, or `None` when it should be relearnt first.
    fn known(&self, tool: &str) -> Option<Bindings> {
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        let table = current.as_ref()?;
        match table.tools.get(tool) {
            Some(bindings) => Some(bindings.clone()),
            None if table.learnt.elapsed() < RELEARN_AFTER => Some(none()),
            None => None,
        }
    }
}

fn none() -> Bindings {
    Arc::new([])
}

async fn learn(server: &Server) -> NameMap<Bindings> {
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
    let mut table = NameMap::default();
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
        // The table is shared by every caller, so it is learnt as nobody in particular.
        let exchange = Exchange::new(
            Arc::new(Connection::new()),
            // Nobody listens to notifications of this internal call.
            NotificationSink::discard(),
            CancellationToken::new(),
        )
        .internal();
        let Some(result) = server
            .answer(request, exchange)
            .await
            .and_then(|reply| serde_json::from_str::<Page>(reply.line()).ok())
            .and_then(|page| page.result)
        else {
            break;
        };
        for tool in result.tools {
            let bindings = header_bindings(&tool.input_schema);
            table.insert(tool.name, bindings.into());
        }
        match result.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    table
}
