//! `crate = "…"` roots generated code at another path: here a facade of this crate's own that
//! re-exports `mcp` under another name, as a framework built on `mcp` would. Its `__private`
//! re-exports `mcp`'s and counts the calls generated code makes through it, so the override
//! is seen to be used (`::mcp` would work too, and count nothing).

use std::sync::atomic::{AtomicUsize, Ordering};

static THROUGH_FACADE: AtomicUsize = AtomicUsize::new(0);

pub mod facade {
    pub use ::mcp::*;

    #[doc(hidden)]
    pub mod __private {
        pub use ::mcp::__private::*;

        use super::super::THROUGH_FACADE;
        use std::sync::atomic::Ordering;

        pub fn input_schema<T: schemars::JsonSchema>() -> serde_json::Value {
            THROUGH_FACADE.fetch_add(1, Ordering::Relaxed);
            ::mcp::__private::input_schema::<T>()
        }

        pub fn form_schema(fields: &[(&str, serde_json::Value, bool)]) -> serde_json::Value {
            THROUGH_FACADE.fetch_add(1, Ordering::Relaxed);
            ::mcp::__private::form_schema(fields)
        }
    }
}

use facade::{Context, Elicit, Elicitation, McpServer};

/// Which region?
#[derive(serde::Deserialize, facade::Elicitation)]
#[elicitation(crate = "crate::facade")]
struct Region {
    region: String,
}

#[derive(serde::Deserialize, facade::Elicitation)]
#[elicitation(crate = "crate::facade")]
enum Tier {
    Basic,
}

/// Provisions a database.
#[facade::tool(crate = "crate::facade", read_only)]
async fn provision(name: String, #[mcp(default)] replicas: u8, region: Elicit<Region>) -> String {
    format!("{name} {replicas} {}", region.region)
}

#[facade::prompt(crate = "crate::facade")]
async fn brief(topic: String, ctx: Context) -> String {
    format!("{topic} {}", ctx.protocol_version())
}

#[facade::resource("teams://{team}", crate = "crate::facade")]
async fn team(team: String) -> String {
    team
}

fn main() {
    let _ = McpServer::new("facade")
        .tools(facade::tools![provision])
        .prompts(facade::prompts![brief])
        .resources(facade::resources![team])
        .build()
        .expect("a server");
    assert_eq!(THROUGH_FACADE.load(Ordering::Relaxed), 1, "the tool's input schema");
    let _ = Region::requested_schema();
    assert_eq!(THROUGH_FACADE.load(Ordering::Relaxed), 2, "the form's schema");
    assert_eq!(<Tier as facade::__private::ElicitationEnum>::CHOICES.len(), 1);
}
