// A form and a choice with a mistake each: those are the errors, and their uses (a Resolve
// parameter, a field of another form) report nothing more.
use mcp::Elicit;

/// Which tier?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Pick {
    #[elicitation(format = "colour")]
    tier: Tier,
}

#[derive(serde::Deserialize, mcp::Elicitation)]
enum Tier {
    Basic,
    Premium(u8),
}

/// Anything else?
#[derive(serde::Deserialize, mcp::Elicitation)]
struct Extra {
    tier: Tier,
}

#[mcp::tool]
async fn order(pick: Elicit<Pick>, extra: Elicit<Extra>) -> String {
    let _ = (pick, extra);
    String::new()
}

fn main() {
    let _ = mcp::tools![order];
}
