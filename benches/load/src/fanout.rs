//! `mcpload fanout`: how fast one change reaches many listeners.
//!
//! N listeners each hold a 2026-07-28 `subscriptions/listen` stream (one HTTP/1.1 connection
//! each) on `--url`, subscribed to `bench://counter`. One trigger connection calls the `touch`
//! tool (on `--trigger-url`, which may be another instance sharing a bus) as fast as the
//! listeners keep up: at most `--window` touches may be on their way to some listener, so no
//! listener's queue on the server ever fills and the run measures delivery, not back-pressure.
//!
//! Every listener hears every touch, in order, so its k-th `notifications/resources/updated`
//! is the k-th touch: its delivery latency is from just before that touch was POSTed to the
//! moment the listener read the notification, on one monotonic clock. A listen stream that
//! ends, an event that is not what was asked for, or a touch that is not answered counts as an
//! error. Only touches made after the warm-up are measured.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hdrhistogram::Histogram;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::{
    BoxError, Connection, META, Result, Target, Tool, cpu_of, flags, histogram, round, runtime,
    status_field,
};

/// The URI every listener watches and every touch updates.
const COUNTER: &str = "bench://counter";
/// How long the last touches may take to reach every listener after the run.
const DRAIN_GRACE: Duration = Duration::from_secs(5);

pub(crate) struct FanoutOptions {
    url: String,
    trigger_url: Option<String>,
    listeners: usize,
    window: usize,
    warmup: f64,
    duration: f64,
    peer: String,
    /// Every server process whose CPU the run charges (one per instance).
    server_pids: Vec<u32>,
}

impl FanoutOptions {
    pub(crate) fn parse(args: &[String]) -> Result<Self> {
        let mut options = FanoutOptions {
            url: String::new(),
            trigger_url: None,
            listeners: 1,
            window: 32,
            warmup: 2.0,
            duration: 10.0,
            peer: "unnamed".into(),
            server_pids: Vec::new(),
        };
        for (flag, value) in flags::pairs(args)? {
            match flag {
                "--url" => options.url = value.to_owned(),
                "--trigger-url" => options.trigger_url = Some(value.to_owned()),
                "--listeners" => options.listeners = flags::count(flag, value)?,
                "--window" => options.window = flags::count(flag, value)?,
                "--warmup" => options.warmup = flags::seconds_or_zero(flag, value)?,
                "--duration" => options.duration = flags::seconds(flag, value)?,
                "--peer" => options.peer = value.to_owned(),
                "--server-pid" => options.server_pids.push(flags::pid(flag, value)?),
                other => return Err(flags::unknown(other)),
            }
        }
        flags::required_url(&options.url)?;
        Ok(options)
    }
}

/// What the touches and the listeners share.
struct Board {
    listeners: usize,
    state: Mutex<Progress>,
    /// Woken when a touch has reached every listener.
    advanced: Notify,
}

#[derive(Default)]
struct Progress {
    /// When each touch was sent, by its number.
    sent_at: Vec<Instant>,
    /// How many listeners each touch has reached.
    reached: Vec<usize>,
    /// Touches that reached every listener (always a prefix: each listener hears them in order).
    complete: usize,
    /// The first measured touch (made after the warm-up), once there is one.
    measured_from: Option<usize>,
    latency_ns: Option<Histogram<u64>>,
    errors: u64,
    first_error: Option<String>,
}

impl Board {
    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn error(&self, what: String) {
        let mut progress = self.lock();
        progress.errors += 1;
        progress.first_error.get_or_insert(what);
        drop(progress);
        self.advanced.notify_waiters();
    }

    /// A listener read its `k`-th update.
    fn heard(&self, k: usize) {
        let now = Instant::now();
        let mut progress = self.lock();
        let Some(&sent) = progress.sent_at.get(k) else {
            drop(progress);
            self.error(format!("update {k} before touch {k} was sent"));
            return;
        };
        if progress.measured_from.is_some_and(|first| k >= first) {
            let ns = u64::try_from((now - sent).as_nanos()).unwrap_or(u64::MAX);
            if let Some(histogram) = progress.latency_ns.as_mut() {
                histogram.saturating_record(ns);
            }
        }
        progress.reached[k] += 1;
        if progress.reached[k] == self.listeners {
            progress.complete = progress.complete.max(k + 1);
            drop(progress);
            self.advanced.notify_waiters();
        }
    }
}

fn listen_body(listener: usize) -> Bytes {
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":"listen-{listener}","method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":["{COUNTER}"]}},{META}}}}}"#
    ))
}

/// Opens listener `n`'s stream and waits for its acknowledgement; then hands its updates to
/// `board` until the stream ends.
async fn listen(
    target: &'static Target,
    board: Arc<Board>,
    n: usize,
    acknowledged: tokio::sync::mpsc::Sender<Result<(), String>>,
) {
    let mut events = match open_listen(target, n).await {
        Ok(events) => events,
        Err(e) => {
            let _ = acknowledged.send(Err(e.to_string())).await;
            return;
        }
    };
    match events.next().await {
        Some(Ok(event)) if event.contains("notifications/subscriptions/acknowledged") => {
            let _ = acknowledged.send(Ok(())).await;
        }
        other => {
            let _ = acknowledged
                .send(Err(format!("listener {n}: no acknowledgement: {other:?}")))
                .await;
            return;
        }
    }
    drop(acknowledged);
    let mut k = 0;
    loop {
        match events.next().await {
            Some(Ok(event)) if event.contains("notifications/resources/updated") => {
                board.heard(k);
                k += 1;
            }
            Some(Ok(event)) => board.error(format!("listener {n}: unexpected event {event}")),
            Some(Err(e)) => {
                board.error(format!("listener {n}: {e}"));
                return;
            }
            None => return,
        }
    }
}

/// The `data:` of each event of one SSE response, as its bytes arrive.
struct Events {
    body: hyper::body::Incoming,
    buffer: BytesMut,
}

impl Events {
    async fn next(&mut self) -> Option<Result<String, BoxError>> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let event = self.buffer.split_to(end + 2);
                let text = String::from_utf8_lossy(&event);
                let data: String = text
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if data.is_empty() {
                    continue; // a comment (keep-alive) or an event without data
                }
                return Some(Ok(data));
            }
            match self.body.frame().await? {
                Ok(frame) => {
                    if let Ok(data) = frame.into_data() {
                        // Lines may end in CRLF (sse-starlette's default); JSON text has no
                        // raw CR, so dropping every CR leaves LF-ended lines.
                        self.buffer
                            .extend(data.iter().copied().filter(|&byte| byte != b'\r'));
                    }
                }
                Err(e) => return Some(Err(e.into())),
            }
        }
    }
}

async fn open_listen(target: &Target, n: usize) -> Result<Events> {
    let stream = tokio::net::TcpStream::connect(target.addr).await?;
    stream.set_nodelay(true)?;
    let (mut send, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = crate::post(target, listen_body(n), "subscriptions/listen", None);
    let response = send.send_request(request).await?;
    if response.status() != hyper::StatusCode::OK {
        return Err(format!("listen answered HTTP {}", response.status()).into());
    }
    Ok(Events {
        body: response.into_body(),
        buffer: BytesMut::new(),
    })
}

/// Touches as fast as the window allows until `end`; returns the number of touches sent.
async fn touch(
    target: &'static Target,
    board: &Board,
    window: usize,
    measure_from: Instant,
    end: Instant,
) -> Result<usize> {
    let mut connection = Connection::open(target).await?;
    let body = crate::call_body(1, "touch", "{}", "");
    let mut sent = 0;
    while Instant::now() < end {
        loop {
            let waiting = board.advanced.notified();
            let room = {
                let progress = board.lock();
                if progress.errors > 0 {
                    return Err(progress.first_error.clone().unwrap_or_default().into());
                }
                sent - progress.complete < window
            };
            if room {
                break;
            }
            if tokio::time::timeout_at(end + DRAIN_GRACE, waiting)
                .await
                .is_err()
            {
                return Err(
                    format!("touch {sent} waited over {DRAIN_GRACE:?} for its window").into(),
                );
            }
        }
        {
            let mut progress = board.lock();
            let now = Instant::now();
            if progress.measured_from.is_none() && now >= measure_from {
                progress.measured_from = Some(sent);
                progress.latency_ns = Some(histogram());
            }
            progress.sent_at.push(now);
            progress.reached.push(0);
        }
        connection
            .call(target, Tool::Touch, body.clone())
            .await
            .map_err(|e| e.to_string())?;
        sent += 1;
    }
    Ok(sent)
}

/// Waits until every touch sent has reached every listener.
async fn drained(board: &Board, sent: usize) -> Result<()> {
    let deadline = Instant::now() + DRAIN_GRACE;
    loop {
        let waiting = board.advanced.notified();
        if board.lock().complete >= sent {
            return Ok(());
        }
        if tokio::time::timeout_at(deadline, waiting).await.is_err() {
            let complete = board.lock().complete;
            return Err(format!(
                "only {complete} of {sent} touches reached every listener within {DRAIN_GRACE:?}"
            )
            .into());
        }
    }
}

pub(crate) fn fanout_command(options: FanoutOptions) -> Result<()> {
    let target: &'static Target = Box::leak(Box::new(Target::parse(&options.url)?));
    let trigger: &'static Target = Box::leak(Box::new(Target::parse(
        options.trigger_url.as_deref().unwrap_or(&options.url),
    )?));
    let warmup = Duration::from_secs_f64(options.warmup);
    let duration = Duration::from_secs_f64(options.duration);
    let limit = warmup + duration + Duration::from_secs(60);
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "mcpload: hard deadline ({} s) reached, giving up",
            limit.as_secs_f64()
        );
        std::process::exit(3);
    });
    let board = Arc::new(Board {
        listeners: options.listeners,
        state: Mutex::default(),
        advanced: Notify::new(),
    });
    let runtime = runtime()?;
    let (sent, cpu, secs) = runtime.block_on(async {
        let (acknowledged, mut acks) = tokio::sync::mpsc::channel(options.listeners);
        for n in 0..options.listeners {
            tokio::spawn(listen(target, board.clone(), n, acknowledged.clone()));
        }
        drop(acknowledged);
        while let Some(ack) = acks.recv().await {
            ack?;
        }
        let start = Instant::now();
        let (measure_from, end) = (start + warmup, start + warmup + duration);
        let measuring = tokio::spawn({
            let pids = options.server_pids.clone();
            async move {
                tokio::time::sleep_until(measure_from).await;
                let before = cpu_of(&pids);
                tokio::time::sleep_until(end).await;
                before.zip(cpu_of(&pids)).map(|(a, b)| b - a)
            }
        });
        let sent = touch(trigger, &board, options.window, measure_from, end).await?;
        let cpu = measuring.await?;
        drained(&board, sent).await?;
        Ok::<_, BoxError>((sent, cpu, duration.as_secs_f64()))
    })?;
    let progress = board.lock();
    let first = progress.measured_from.unwrap_or(sent);
    let touches = sent - first;
    let notifications = (touches * options.listeners) as f64;
    let latency = progress.latency_ns.clone().unwrap_or_else(histogram);
    let ms = |q: f64| latency.value_at_quantile(q) as f64 / 1e6;
    let line = serde_json::json!({
        "peer": options.peer,
        "scenario": "fanout",
        "listeners": options.listeners,
        "instances": if options.trigger_url.is_some() { 2 } else { 1 },
        "window": options.window,
        "duration_s": secs,
        "touches": touches,
        "touches_per_s": round(touches as f64 / secs, 1),
        "notifications_per_s": round(notifications / secs, 1),
        "p50_ms": round(ms(0.50), 3),
        "p99_ms": round(ms(0.99), 3),
        "max_ms": round(latency.max() as f64 / 1e6, 3),
        "errors": progress.errors,
        "server_cpu_s": cpu.map(|v| round(v, 2)),
        "server_cpu_us_per_notification": cpu
            .filter(|_| notifications > 0.0)
            .map(|v| round(v * 1e6 / notifications, 2)),
        "server_vm_hwm_kb": options.server_pids.first().and_then(|&pid| status_field(pid, "VmHWM")),
    });
    println!("{line}");
    if progress.errors > 0 {
        return Err(progress.first_error.clone().unwrap_or_default().into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listen_body_asks_for_the_counter() {
        let body: serde_json::Value =
            serde_json::from_slice(&listen_body(7)).expect("the listen body is JSON");
        assert_eq!(body["id"], "listen-7");
        assert_eq!(
            body["params"]["notifications"]["resourceSubscriptions"][0],
            COUNTER
        );
        assert_eq!(
            body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
    }

    #[test]
    fn a_touch_that_every_listener_heard_completes_in_order() {
        let board = Board {
            listeners: 2,
            state: Mutex::default(),
            advanced: Notify::new(),
        };
        {
            let mut progress = board.lock();
            for _ in 0..2 {
                progress.sent_at.push(Instant::now());
                progress.reached.push(0);
            }
        }
        board.heard(0);
        assert_eq!(board.lock().complete, 0);
        board.heard(0);
        board.heard(1);
        assert_eq!(board.lock().complete, 1);
        board.heard(1);
        assert_eq!(board.lock().complete, 2);
        board.heard(2);
        assert_eq!(board.lock().errors, 1, "an update no touch was sent for");
    }
}
