//! The two tools every benchmark drives, shared so the load run and the profile measure the
//! same code: `echo` (one round) and `provision` (two rounds: it asks for a region).

use mcp::Elicit;

/// Echo the text back.
#[mcp::tool]
pub async fn echo(
    /// What to echo.
    text: String,
) -> String {
    text
}

/// Which region should the database live in?
#[derive(serde::Deserialize, mcp::Elicitation)]
pub struct Region {
    /// The region code, e.g. eu-west-1.
    region: String,
}

/// Provision a database; asks which region to put it in.
#[mcp::tool]
pub async fn provision(
    /// The database to create.
    name: String,
    #[mcp(key = "region")] region: Elicit<Region>,
) -> String {
    format!("Provisioned '{name}' in {}.", region.region)
}
