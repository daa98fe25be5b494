//! `RedisBus` against a real `redis-server` (`support::redis`): two buses on one Redis stand
//! for two instances of one application. Every wait is bounded, and polls rather than sleeps.
//!
//! The tests that read the log run on a single-threaded runtime with a subscriber of this
//! thread only, so the buses' tasks log on this thread too (the tests share a process).

use std::time::{Duration, Instant};

use mcp::protocol::Implementation;
use mcp::push::{Change, NotificationBus, RedisBus};
use mcp::server::Server;
use mcp::transport::memory;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::support::log::CapturedLog;
use crate::support::process::free_port;
use crate::support::redis::RedisServer;

/// Taken by every test here, so they run one at a time. Two of them read what the buses log,
/// and `tracing` caches whether a log line is wanted when the line is first reached: a bus of
/// another test reaching it on another thread at the moment a test starts capturing can leave
/// it cached as unwanted, and the capturing test reads nothing.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Generous: the reconnecting back-off alone may wait up to 5 s, on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(20);
const CHANNEL: &str = "mcp-test:changes";

fn updated(uri: &str) -> Change {
    Change::ResourceUpdated { uri: uri.into() }
}

fn bus(url: &str) -> RedisBus {
    RedisBus::new(url, CHANNEL).unwrap_or_else(|e| panic!("{e}"))
}

/// Polls `ready` until it holds, failing the test after [`DEADLINE`].
async fn until(what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !ready() {
        assert!(Instant::now() < deadline, "not {what} within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn connected(buses: &[&RedisBus]) {
    until("connected", || buses.iter().all(|b| b.is_connected())).await;
}

async fn next(rx: &mut broadcast::Receiver<Change>) -> Change {
    match tokio::time::timeout(DEADLINE, rx.recv()).await {
        Ok(Ok(change)) => change,
        Ok(Err(e)) => panic!("the bus: {e}"),
        Err(_) => panic!("no change within {DEADLINE:?}"),
    }
}

/// The next change that is not one of `late`: changes that may or may not arrive (those
/// queued during an outage, sent when Redis is back).
async fn next_besides(rx: &mut broadcast::Receiver<Change>, late: &[Change]) -> Change {
    loop {
        let change = next(rx).await;
        if !late.contains(&change) {
            return change;
        }
    }
}

/// The lines of `log` at `level` that contain `text`.
fn lines(log: &CapturedLog, level: &str, text: &str) -> Vec<String> {
    log.text()
        .lines()
        .filter(|l| l.contains(level) && l.contains(text))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_change_published_on_one_instance_reaches_the_subscribers_of_both_once() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (bus(&redis.url()), bus(&redis.url()));
    connected(&[&a, &b]).await;
    let (mut rx_a, mut rx_b) = (a.subscribe(), b.subscribe());

    // Each change is published only after the previous one reached both instances, so Redis
    // handles them in this order: a second copy of any of them (the publisher's own, echoed
    // back by Redis) would come before the next change.
    a.publish(updated("x://1"));
    assert_eq!(next(&mut rx_a).await, updated("x://1"));
    assert_eq!(next(&mut rx_b).await, updated("x://1"));
    b.publish(Change::ToolsListChanged);
    assert_eq!(next(&mut rx_a).await, Change::ToolsListChanged);
    assert_eq!(next(&mut rx_b).await, Change::ToolsListChanged);
    a.publish(updated("x://2"));
    assert_eq!(next(&mut rx_b).await, updated("x://2"));
    assert_eq!(next(&mut rx_a).await, updated("x://2"));
    b.publish(Change::PromptsListChanged);
    assert_eq!(next(&mut rx_a).await, Change::PromptsListChanged);
    assert_eq!(next(&mut rx_b).await, Change::PromptsListChanged);
}

#[tokio::test(flavor = "current_thread")]
async fn while_redis_is_away_local_changes_reach_local_subscribers_and_the_buses_reconnect() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (log, _guard) = CapturedLog::start();
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (bus(&redis.url()), bus(&redis.url()));
    connected(&[&a, &b]).await;
    let (mut rx_a, mut rx_b) = (a.subscribe(), b.subscribe());

    let stopped = redis.kill();
    until("disconnected", || !a.is_connected() && !b.is_connected()).await;
    let during: Vec<Change> = (0..5).map(|i| updated(&format!("x://{i}"))).collect();
    for change in &during {
        a.publish(change.clone());
        assert_eq!(&next(&mut rx_a).await, change);
    }
    b.publish(Change::ToolsListChanged);
    assert_eq!(next(&mut rx_b).await, Change::ToolsListChanged);
    // Long enough for several failed reconnections: each must not be logged again.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let _redis = stopped.restart();
    connected(&[&a, &b]).await;
    // What was queued while Redis was away may come first, if the other side was back in time.
    let mut late_for_b = during.clone();
    late_for_b.push(Change::ToolsListChanged);
    let late_for_a = [Change::ToolsListChanged];
    a.publish(updated("x://after"));
    assert_eq!(
        next_besides(&mut rx_b, &late_for_b).await,
        updated("x://after")
    );
    assert_eq!(
        next_besides(&mut rx_a, &late_for_a).await,
        updated("x://after")
    );
    b.publish(Change::PromptsListChanged);
    assert_eq!(
        next_besides(&mut rx_a, &late_for_a).await,
        Change::PromptsListChanged,
        "a's own change, once"
    );
    assert_eq!(
        next_besides(&mut rx_b, &late_for_b).await,
        Change::PromptsListChanged
    );

    // One outage per bus, each logged once when it began and once when it ended.
    let all = log.text();
    assert_eq!(lines(&log, "WARN", "lost Redis").len(), 2, "{all}");
    assert_eq!(lines(&log, "INFO", "reconnected").len(), 2, "{all}");
}

#[tokio::test]
async fn a_bus_made_while_redis_is_down_connects_when_it_comes_up() {
    let _one = ONE_AT_A_TIME.lock().await;
    let port = free_port();
    let url = format!("redis://127.0.0.1:{port}");
    let (a, b) = (bus(&url), bus(&url));
    let mut rx_a = a.subscribe();
    a.publish(Change::ResourcesListChanged);
    assert_eq!(next(&mut rx_a).await, Change::ResourcesListChanged);
    assert!(!a.is_connected());

    let Some(_redis) = RedisServer::start_on(port) else {
        return;
    };
    connected(&[&a, &b]).await;
    let mut rx_b = b.subscribe();
    a.publish(updated("x://1"));
    assert_eq!(
        next_besides(&mut rx_b, &[Change::ResourcesListChanged]).await,
        updated("x://1")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_message_on_the_channel_that_is_not_a_change_is_logged_and_skipped() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (log, _guard) = CapturedLog::start();
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (bus(&redis.url()), bus(&redis.url()));
    connected(&[&a, &b]).await;
    let mut rx_a = a.subscribe();

    for garbage in ["not json", "{", r#"{"kind":"nope"}"#, r#"{"uri":"x://1"}"#] {
        assert_eq!(redis.publish(CHANNEL, garbage), 2, "both buses subscribe");
    }
    // A change published by hand, without an origin, reaches every instance.
    redis.publish(CHANNEL, r#"{"kind":"prompts_list_changed"}"#);
    b.publish(updated("x://after"));
    assert_eq!(next(&mut rx_a).await, Change::PromptsListChanged);
    assert_eq!(next(&mut rx_a).await, updated("x://after"));
    assert!(a.is_connected() && b.is_connected());
    let all = log.text();
    assert_eq!(lines(&log, "WARN", "not a change").len(), 4 * 2, "{all}");
}

#[tokio::test]
async fn a_resource_updated_through_one_server_reaches_the_bus_of_the_other() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (bus_a, bus_b) = (bus(&redis.url()), bus(&redis.url()));
    let server = |bus: &RedisBus| {
        Server::builder(Implementation::new("board", "1.0.0"))
            .notification_bus(bus.clone())
            .build()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let (server_a, server_b) = (server(&bus_a), server(&bus_b));
    connected(&[&bus_a, &bus_b]).await;
    let (mut rx_a, mut rx_b) = (bus_a.subscribe(), bus_b.subscribe());

    server_a.handle().resource_updated("board://messages");
    assert_eq!(next(&mut rx_b).await, updated("board://messages"));
    assert_eq!(next(&mut rx_a).await, updated("board://messages"));
    server_b.handle().notify(Change::ToolsListChanged);
    assert_eq!(next(&mut rx_a).await, Change::ToolsListChanged);
    assert_eq!(next(&mut rx_b).await, Change::ToolsListChanged);
}

/// The next message on an in-memory connection, as JSON.
async fn message(from_server: &mut tokio::sync::mpsc::Receiver<mcp::transport::Frame>) -> Value {
    let frame = tokio::time::timeout(DEADLINE, from_server.recv())
        .await
        .unwrap_or_else(|_| panic!("no message within {DEADLINE:?}"))
        .expect("the connection is open")
        .expect("a frame");
    serde_json::from_str(&frame).expect("JSON")
}

#[tokio::test]
async fn a_frozen_redis_is_found_out_by_the_keepalive_and_listeners_start_again_once_it_is_back() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let a = bus(&redis.url()).keepalive(Duration::from_millis(100));
    let b = bus(&redis.url());
    let server = Server::builder(Implementation::new("board", "1.0.0"))
        .on_list_tools(|_, _| async { Ok(mcp::protocol::ListToolsResult::default()) })
        .notification_bus(a.clone())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    connected(&[&a, &b]).await;
    let (ours, theirs) = memory::pair();
    tokio::spawn({
        let server = server.clone();
        async move { server.serve(theirs).await }
    });
    let mut from_server = ours.incoming;
    let listen = json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}},
                   "notifications": {"toolsListChanged": true}}});
    ours.outgoing
        .send(listen.to_string())
        .await
        .expect("server reads");
    let ack = message(&mut from_server).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    // Nothing is published, so only the keep-alive can find out that Redis stopped answering.
    redis.freeze();
    until("found out that Redis is frozen", || !a.is_connected()).await;
    // A change published through the other instance meanwhile never reaches this one...
    b.publish(Change::ToolsListChanged);
    redis.thaw();
    connected(&[&a, &b]).await;
    // ...so its listener is ended, and its client lists again and re-listens. (The change
    // itself may come first: Redis, thawed, may hand it to the new subscription.)
    let mut end = message(&mut from_server).await;
    while end.get("id").is_none() {
        assert_eq!(end["method"], "notifications/tools/list_changed", "{end}");
        end = message(&mut from_server).await;
    }
    assert_eq!(end["id"], "l", "the listen's final result: {end}");
    assert!(end.get("result").is_some(), "{end}");
    assert_eq!(server.push_stats().listeners, 0);
}
