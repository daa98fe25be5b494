//! A message board whose clients are told what changed: a post updates `board://messages`
//! for everyone subscribed to it, opening a topic adds a resource, and unlocking adds a tool.
//!
//! - resource `board://messages`: the posts so far, one per line;
//! - tool `post(text)`: adds a post; subscribers of `board://messages` (and of the topics the
//!   post mentions as `#topic`) get `notifications/resources/updated`;
//! - tool `open_topic(topic)`: adds the resource `board://topics/<topic>`, the posts that
//!   mention `#<topic>`; listeners get `notifications/resources/list_changed`;
//! - tool `unlock()`: adds the tool `clear`, which empties the board; listeners get
//!   `notifications/tools/list_changed`;
//! - tool `archive(delay_ms)`: a long job, only ever run as a task (the tasks extension): it
//!   asks the user to confirm (key `confirm`) through the task's `input_required` status,
//!   works for `delay_ms`, and completes with `Archived N posts.`; `tasks/cancel` stops it.
//!
//! A 2026-07-28 client hears of these on its `subscriptions/listen` stream; a 2025-11-25 one
//! after `resources/subscribe`, on its connection (stdio) or its GET stream (HTTP).
//!
//! ```sh
//! cargo run --example board                                   # over stdio
//! cargo run --example board -- --http 127.0.0.1:8000           # http://127.0.0.1:8000/mcp
//! ```
//!
//! With `--redis URL` the posts are kept in a Redis list (`board:posts`), changes travel
//! over Redis pub/sub (`board:changes`, through `mcp::push::RedisBus`) and tasks live in
//! Redis (`mcp::tasks::RedisTaskStore`), so every instance reads the same board, a post
//! through any of them reaches the listeners of all of them, and an archive started through
//! one is answered, polled and cancelled through any other.
//! It needs the `redis` feature (in your own crate: `mcp` with `features = ["redis"]`, and
//! the `redis` crate):
//!
//! ```sh
//! redis-server --port 6379 --save '' &
//! cargo run --example board --features redis -- --http 127.0.0.1:8001 --redis redis://127.0.0.1:6379
//! cargo run --example board --features redis -- --http 127.0.0.1:8002 --redis redis://127.0.0.1:6379
//! ```
//!
//! Topics and `clear` belong to the instance they were opened or unlocked on: only that
//! instance lists the new entry, and only its listeners hear of the list change.

#[path = "support/logging.rs"]
mod logging;

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use mcp::{Context, Elicit, McpServer, State};

const MESSAGES: &str = "board://messages";

/// What a post store fails with: only Redis can fail.
#[cfg(feature = "redis")]
type StoreError = redis::RedisError;
#[cfg(not(feature = "redis"))]
type StoreError = std::convert::Infallible;

/// Where the posts are kept.
enum Posts {
    /// In this process: each instance has a board of its own.
    Here(Mutex<Vec<String>>),
    /// In Redis, where every instance reads and writes the same list.
    #[cfg(feature = "redis")]
    Redis(Box<shared::RedisPosts>),
}

impl Posts {
    async fn all(&self) -> Result<Vec<String>, StoreError> {
        match self {
            Posts::Here(posts) => Ok(lock(posts).clone()),
            #[cfg(feature = "redis")]
            Posts::Redis(posts) => posts.all().await,
        }
    }

    /// Appends `post`; how many posts there are now.
    async fn push(&self, post: &str) -> Result<usize, StoreError> {
        match self {
            Posts::Here(posts) => {
                let mut posts = lock(posts);
                posts.push(post.to_owned());
                Ok(posts.len())
            }
            #[cfg(feature = "redis")]
            Posts::Redis(posts) => posts.push(post).await,
        }
    }

    async fn clear(&self) -> Result<(), StoreError> {
        match self {
            Posts::Here(posts) => {
                lock(posts).clear();
                Ok(())
            }
            #[cfg(feature = "redis")]
            Posts::Redis(posts) => posts.clear().await,
        }
    }
}

/// What the tools and resources share.
struct Board {
    posts: Posts,
    /// The topics opened on this instance.
    topics: Mutex<BTreeSet<String>>,
    /// Whether `clear` was added on this instance.
    unlocked: Mutex<bool>,
}

/// A panic while a lock was held leaves nothing half-written here, so a poisoned lock is
/// still good to use.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn unavailable(error: StoreError) -> String {
    format!("The board is unavailable right now: {error}")
}

fn topic_uri(topic: &str) -> String {
    format!("board://topics/{topic}")
}

/// Topic names are safe in a URI as they are: 1 to 32 ASCII letters, digits, `-` and `_`.
fn is_topic(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The topics `post` mentions: its words `#name`, punctuation after the name aside.
fn mentions(post: &str) -> impl Iterator<Item = &str> {
    post.split_whitespace()
        .filter_map(|word| word.strip_prefix('#'))
        .map(|tag| tag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .filter(|tag| is_topic(tag))
}

/// The posts so far, one per line.
#[mcp::resource("board://messages", mime_type = "text/plain")]
async fn messages(board: State<Board>) -> Result<String, StoreError> {
    Ok(board.posts.all().await?.join("\n"))
}

// Never served as a template: `open_topic` adds it once per topic, at the topic's URI.
/// The posts that mention the topic, one per line.
#[mcp::resource("board://topics/{topic}", name = "topic", mime_type = "text/plain")]
async fn topic_posts(topic: String, board: State<Board>) -> Result<String, StoreError> {
    let posts = board.posts.all().await?;
    let about: Vec<String> = posts
        .into_iter()
        .filter(|post| mentions(post).any(|tag| tag == topic))
        .collect();
    Ok(about.join("\n"))
}

/// Posts a message to the board. Mention a topic with `#topic`.
#[mcp::tool]
async fn post(
    /// The message: one line of text.
    text: String,
    board: State<Board>,
    ctx: Context,
) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() || text.contains(['\n', '\r']) {
        return Err("A post is one line of text.".to_owned());
    }
    let count = board.posts.push(text).await.map_err(unavailable)?;
    let server = ctx.server();
    server.resource_updated(MESSAGES);
    for topic in mentions(text) {
        server.resource_updated(topic_uri(topic));
    }
    Ok(format!("Posted: post {count} on the board."))
}

/// Opens a topic: adds the resource `board://topics/<topic>`, the posts that mention
/// `#<topic>`.
#[mcp::tool]
async fn open_topic(
    /// The topic: 1 to 32 ASCII letters, digits, `-` or `_`.
    topic: String,
    board: State<Board>,
    ctx: Context,
) -> Result<String, String> {
    if !is_topic(&topic) {
        return Err(format!(
            "`{topic}` is not a topic name: use 1 to 32 ASCII letters, digits, `-` or `_`."
        ));
    }
    let uri = topic_uri(&topic);
    // Held while the resource is added, so a topic opened twice at once is added once.
    let mut open = lock(&board.topics);
    if open.contains(&topic) {
        return Ok(format!("{uri} is open already."));
    }
    let [template] = mcp::resources![topic_posts];
    let resource = template
        .at(&uri)
        .ok_or_else(|| format!("{uri} is not a topic's URI."))?;
    ctx.server()
        .add_resources([resource])
        .map_err(|e| e.to_string())?;
    open.insert(topic);
    Ok(format!("Opened {uri}."))
}

/// Unlocks the `clear` tool.
#[mcp::tool]
async fn unlock(board: State<Board>, ctx: Context) -> Result<String, String> {
    let mut unlocked = lock(&board.unlocked);
    if *unlocked {
        return Ok("`clear` is unlocked already.".to_owned());
    }
    ctx.server()
        .add_tools(mcp::tools![clear])
        .map_err(|e| e.to_string())?;
    *unlocked = true;
    Ok("Unlocked `clear`.".to_owned())
}

/// Empties the board.
#[mcp::tool(destructive)]
async fn clear(board: State<Board>, ctx: Context) -> Result<String, String> {
    board.posts.clear().await.map_err(unavailable)?;
    let server = ctx.server();
    server.resource_updated(MESSAGES);
    let topics = lock(&board.topics).clone();
    for topic in topics {
        server.resource_updated(topic_uri(&topic));
    }
    Ok("The board is empty.".to_owned())
}

/// Archive every post?
#[derive(Debug, serde::Deserialize, mcp::Elicitation)]
struct Confirm {
    /// Yes, archive them.
    confirm: bool,
}

/// Archives the board's posts: asks first, then works for `delay_ms` milliseconds. Only ever
/// runs as a task.
#[mcp::tool(task = "required")]
async fn archive(
    delay_ms: u64,
    #[mcp(key = "confirm")] confirm: Elicit<Confirm>,
    board: State<Board>,
) -> Result<String, String> {
    if !confirm.confirm {
        return Ok("Nothing archived.".into());
    }
    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
    let posts = board.posts.all().await.map_err(unavailable)?;
    Ok(format!("Archived {} posts.", posts.len()))
}

/// The posts of every instance, in Redis.
#[cfg(feature = "redis")]
mod shared {
    use redis::AsyncTypedCommands;
    use redis::aio::MultiplexedConnection;

    const POSTS: &str = "board:posts";

    pub struct RedisPosts {
        client: redis::Client,
        /// Shared by every call; dropped when it breaks, so the next call connects again.
        connection: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    }

    impl RedisPosts {
        /// Checks `url` only: it connects on first use, so the board starts while Redis is
        /// down and its tools say so until Redis is back.
        pub fn new(url: &str) -> redis::RedisResult<Self> {
            Ok(Self {
                client: redis::Client::open(url)?,
                connection: tokio::sync::Mutex::new(None),
            })
        }

        pub async fn all(&self) -> redis::RedisResult<Vec<String>> {
            let mut connection = self.connection().await?;
            self.forget_if_broken(connection.lrange(POSTS, 0, -1).await)
                .await
        }

        pub async fn push(&self, post: &str) -> redis::RedisResult<usize> {
            let mut connection = self.connection().await?;
            self.forget_if_broken(connection.rpush(POSTS, post).await)
                .await
        }

        pub async fn clear(&self) -> redis::RedisResult<()> {
            let mut connection = self.connection().await?;
            let deleted = connection.del(POSTS).await;
            self.forget_if_broken(deleted.map(drop)).await
        }

        async fn connection(&self) -> redis::RedisResult<MultiplexedConnection> {
            let mut slot = self.connection.lock().await;
            if let Some(connection) = &*slot {
                return Ok(connection.clone());
            }
            let connection = self.client.get_multiplexed_async_connection().await?;
            *slot = Some(connection.clone());
            Ok(connection)
        }

        async fn forget_if_broken<T>(
            &self,
            result: redis::RedisResult<T>,
        ) -> redis::RedisResult<T> {
            if result.as_ref().is_err_and(|e| e.is_unrecoverable_error()) {
                *self.connection.lock().await = None;
            }
            result
        }
    }
}

/// The posts and the notification bus, on the Redis at `url`.
#[cfg(feature = "redis")]
fn on_redis(server: McpServer, url: &str) -> anyhow::Result<(McpServer, Posts)> {
    let bus = mcp::push::RedisBus::new(url, "board:changes")?;
    let posts = shared::RedisPosts::new(url)?;
    let tasks = mcp::tasks::Tasks::new(mcp::tasks::RedisTaskStore::new(url)?);
    let server = server.notification_bus(bus).tasks(tasks);
    Ok((server, Posts::Redis(Box::new(posts))))
}

#[cfg(not(feature = "redis"))]
fn on_redis(_: McpServer, _: &str) -> anyhow::Result<(McpServer, Posts)> {
    anyhow::bail!(
        "--redis needs the `redis` feature: \
         cargo run --example board --features redis -- --redis URL"
    )
}

const USAGE: &str = "usage: board [--http ADDR] [--redis URL]";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    logging::init();
    let (mut http, mut redis) = (None, None);
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        match pair {
            [flag, addr] if flag == "--http" => http = Some(addr.clone()),
            [flag, url] if flag == "--redis" => redis = Some(url.clone()),
            _ => anyhow::bail!(USAGE),
        }
    }
    let server = McpServer::new("board")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("A message board. Subscribe to board://messages to hear of new posts.")
        .tools(mcp::tools![post, open_topic, unlock, archive])
        .resources(mcp::resources![messages]);
    let (server, posts) = match &redis {
        Some(url) => on_redis(server, url)?,
        None => (server, Posts::Here(Mutex::default())),
    };
    let server = server.state(Board {
        posts,
        topics: Mutex::default(),
        unlocked: Mutex::new(false),
    });
    match http {
        None => server.serve_stdio().await?,
        // Logs the endpoint once it listens (the port too, for `--http 127.0.0.1:0`).
        Some(addr) => server.serve_http(addr).await?,
    }
    Ok(())
}
