//! rmcp 3.11.0 peer: `echo(text)` and `provision(name)` (one elicitation under the key
//! `region`, `requestState` sealed by the tool with `RequestStateCodec`), served statelessly
//! (`NeverSessionManager`, JSON responses) at `http://127.0.0.1:PORT/mcp`.
//!
//! ```sh
//! cargo run --release -- --port 8001
//! ```

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, RequestStateCodec, SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

const STATE: &[u8] = b"provision-v1";
const TTL: Duration = Duration::from_secs(600);

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// What to echo.
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ProvisionArgs {
    /// The database to create.
    name: String,
}

#[derive(Clone)]
struct Peer {
    #[cfg_attr(feature = "fresh-router", allow(dead_code))]
    tool_router: ToolRouter<Self>,
    codec: Arc<RequestStateCodec>,
}

#[tool_router]
impl Peer {
    fn new(codec: RequestStateCodec) -> Self {
        Self {
            tool_router: Self::tool_router(),
            codec: Arc::new(codec),
        }
    }

    /// Echo the text back.
    #[tool]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Provision a database; asks which region to put it in.
    #[tool]
    async fn provision(
        &self,
        Parameters(ProvisionArgs { name }): Parameters<ProvisionArgs>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let ad = format!("tools/call|provision|{name}");
        if let Some(token) = state {
            let opened = self.codec.open_with(&token, ad.as_bytes());
            if !matches!(opened.as_deref(), Ok(STATE)) {
                return Err(ErrorData::invalid_params(
                    "Invalid or expired requestState",
                    None,
                ));
            }
            let region = responses
                .as_ref()
                .and_then(|r| r.get("region"))
                .and_then(|v| ElicitResult::deserialize(v).ok())
                .filter(|r| r.action == ElicitationAction::Accept)
                .and_then(|r| r.content)
                .and_then(|c| c.get("region")?.as_str().map(str::to_owned));
            if let Some(region) = region {
                let text = format!("Provisioned '{name}' in {region}.");
                return Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into());
            }
        }
        let sealed = self.codec.seal_with(
            STATE,
            &SealOptions::new().associated_data(ad.as_bytes()).ttl(TTL),
        );
        Ok(InputRequiredResult::new(Some(ask_region(&name)), Some(sealed)).into())
    }
}

fn ask_region(name: &str) -> InputRequests {
    let schema = ElicitationSchema::builder()
        .required_string("region")
        .build()
        .expect("a one-string form is a valid elicitation schema");
    let ask = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("Which region should '{name}' live in?"),
        requested_schema: schema,
    };
    InputRequests::from([(
        "region".to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(ask)),
    )])
}

#[cfg_attr(not(feature = "fresh-router"), tool_handler(router = self.tool_router))]
#[cfg_attr(feature = "fresh-router", tool_handler)]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A per-process random signing key (like the Python SDK's ephemeral key).
fn random_key() -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut key = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    Ok(key)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port: u16 = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--port", port] => port.parse()?,
        _ => return Err("usage: rmcp-peer --port PORT".into()),
    };
    let peer = Peer::new(RequestStateCodec::try_new(random_key()?)?);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let service = StreamableHttpService::new(
        move || Ok(peer.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
