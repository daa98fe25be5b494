//! The OAuth side of the benchmark (`BENCHMARKS.md`, "An OAuth-protected exchange"): ES256
//! JWT access tokens signed with a fixed test key pair (`benches/peers/auth/`, made for the
//! benchmark and trusted nowhere else), so that our server and the Python SDK's verify the
//! same token.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp::auth::{JwtKey, ResourceServer};

const PRIVATE_KEY: &str = include_str!("../../peers/auth/bench-es256-private.pem");
const PUBLIC_KEY: &str = include_str!("../../peers/auth/bench-es256-public.pem");

/// The issuer the tokens name (`iss`), which both servers require.
pub const ISSUER: &str = "https://auth.bench.invalid";
/// The resource the tokens are for (`aud`): one URL for every server of the benchmark, on
/// whichever port it listens, so one token serves them all.
pub const RESOURCE: &str = "http://127.0.0.1/mcp";

/// How long a minted token is valid: longer than any benchmark.
const LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// The resource server of `bench_server_auth --auth`: tokens of [`ISSUER`] for [`RESOURCE`], and
/// verified tokens remembered unless `cache` is false.
pub fn resource_server(cache: bool) -> anyhow::Result<ResourceServer> {
    let auth =
        ResourceServer::jwt(RESOURCE, ISSUER, JwtKey::ec_pem(PUBLIC_KEY)?)?.require_scopes(["mcp"]);
    Ok(if cache { auth } else { auth.no_token_cache() })
}

/// A fresh access token for the load generator: subject `bench`, client `mcpload`, scope `mcp`.
pub fn mint_token() -> anyhow::Result<String> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs();
    let claims = serde_json::json!({
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": "bench",
        "client_id": "mcpload",
        "scope": "mcp",
        "iat": now,
        "exp": now + LIFETIME.as_secs(),
    });
    let key = EncodingKey::from_ec_pem(PRIVATE_KEY.as_bytes())?;
    Ok(jsonwebtoken::encode(
        &Header::new(Algorithm::ES256),
        &claims,
        &key,
    )?)
}
