//! A tool's own policy: the scopes its caller must hold, how long one round may run, how often
//! one caller may call it. `#[mcp::tool(scopes = […], timeout = "…", rate_limit = "…")]` or
//! the [`ToolEntry`](super::ToolEntry) builder methods set it; every round of a call, and a
//! call that starts a task, goes through it.

mod rate_limit;
mod scopes;

use std::sync::Arc;
use std::time::Duration;

use crate::protocol::{CallToolResult, McpError};
use crate::server::Context;

pub use rate_limit::RateLimit;
use rate_limit::RateLimiter;
pub(crate) use scopes::check as check_scopes;

/// What a tool asks of its callers beyond its arguments.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolPolicy {
    /// Scopes the caller's token must hold, every one.
    pub scopes: Vec<String>,
    /// The longest one round of the function may run.
    pub timeout: Option<Duration>,
    /// Calls per caller; one limiter per tool, shared by every copy of the entry.
    pub rate: Option<Arc<RateLimiter>>,
}

impl ToolPolicy {
    pub fn with_rate_limit(&mut self, limit: RateLimit) {
        self.rate = Some(Arc::new(RateLimiter::new(limit)));
    }

    /// Whether the call of `tool` may go on: `Ok(None)` when it may, `Ok(Some(result))` for a
    /// call refused with a tool error (over its rate), `Err` for one refused with a JSON-RPC
    /// error (a scope missing).
    ///
    /// A later round (one carrying verified `requestState`, which is bound to the caller,
    /// the tool and its arguments) continues a call already counted, so only a first round
    /// counts against the rate; the scopes are checked on every round.
    pub fn admit(
        &self,
        ctx: &Context,
        tool: &str,
        first_round: bool,
    ) -> Result<Option<CallToolResult>, McpError> {
        scopes::check(ctx.identity(), &self.scopes)?;
        let Some(rate) = &self.rate.as_ref().filter(|_| first_round) else {
            return Ok(None);
        };
        Ok(rate.refuse(ctx.identity()).map(|wait| {
            CallToolResult::error(format!(
                "Rate limit exceeded for tool {tool}: try again in {} s",
                wait.as_secs().max(1)
            ))
        }))
    }
}

/// The tool error of a round that ran out of `timeout`.
pub(crate) fn timed_out(tool: &str, timeout: Duration) -> CallToolResult {
    CallToolResult::error(format!(
        "Tool {tool} timed out after {} and was stopped",
        humane(timeout)
    ))
}

/// `30s`, `1.5s`, `250ms`: a duration as people write it.
fn humane(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else if duration.as_secs() == 0 {
        format!("{}ms", duration.as_millis())
    } else {
        let seconds = format!("{:.3}", duration.as_secs_f64());
        format!("{}s", seconds.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::humane;
    use std::time::Duration;

    #[test]
    fn durations_read_as_written() {
        assert_eq!(humane(Duration::from_secs(30)), "30s");
        assert_eq!(humane(Duration::from_millis(250)), "250ms");
        assert_eq!(humane(Duration::from_millis(1500)), "1.5s");
    }
}
