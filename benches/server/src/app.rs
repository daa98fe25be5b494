//! The server the load benchmarks drive, shared by `bench_server` and `bench_server_auth`: what
//! a user would write, with the framework's defaults (sealed `requestState` on).
//!
//! `touch` tells whoever listens to `bench://counter` that it changed (the fan-out benchmark).
//! `job` runs as a task for a client that takes one (the tasks benchmark); its tasks are kept
//! in memory (`bench_server --redis` puts them, and the changes, on Redis). Either store holds
//! up to [`MAX_TASKS`] tasks, not the default 100,000: a benchmark creates more than that
//! within the default ttl of an hour.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp::McpServer;
use mcp::tasks::{MemoryTaskStore, TaskLimits, Tasks};

use crate::bench_tools::{echo, provision};

/// How many times `bench://counter` was touched.
#[mcp::resource("bench://counter")]
async fn counter(touches: mcp::State<Touches>) -> String {
    touches.0.load(Ordering::Relaxed).to_string()
}

#[derive(Default)]
struct Touches(AtomicU64);

/// Count one touch of `bench://counter` and tell its listeners.
#[mcp::tool]
async fn touch(touches: mcp::State<Touches>, ctx: mcp::Context) -> String {
    let count = touches.0.fetch_add(1, Ordering::Relaxed) + 1;
    ctx.server().resource_updated("bench://counter");
    count.to_string()
}

/// Completes at once; a task when the client takes one.
#[mcp::tool(task = "optional")]
async fn job() -> &'static str {
    "done"
}

/// How many tasks the store holds, finished or not, before it refuses more.
pub const MAX_TASKS: usize = 10_000_000;

pub fn task_limits() -> TaskLimits {
    let mut limits = TaskLimits::default();
    limits.total = MAX_TASKS;
    limits
}

/// The benchmark's server: its tools, its resource, and tasks kept in memory.
pub fn server() -> McpServer {
    McpServer::new("bench")
        .version(env!("CARGO_PKG_VERSION"))
        .tools(mcp::tools![echo, provision, touch, job])
        .resources(mcp::resources![counter])
        .state(Touches::default())
        .tasks(Tasks::new(MemoryTaskStore::with_limits(task_limits())))
}
