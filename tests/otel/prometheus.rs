//! The Prometheus scrape route: the same instruments as the OTLP export, read over HTTP from
//! the MCP server's own listener when (and only when) it is asked for, outside the endpoint's
//! authorization; the text parsed strictly, by the rules of the exposition format 0.0.4.

use std::collections::BTreeMap;

use mcp::auth::{AuthError, Identity, ResourceServer, verify_fn};

use crate::receiver::attribute;
use crate::{WORLD, client, flush, run, serve, serve_with};

/// The conventions' buckets, as `le` labels.
const LE: [&str; 15] = [
    "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "30", "60", "120", "300",
    "+Inf",
];

#[test]
fn a_scrape_after_a_tool_call_and_a_tool_error_shows_both() {
    run(async {
        let (url, _stop) =
            serve_with(|transport| transport.metrics_route("/metrics", WORLD.scrape.clone())).await;
        let client = client(&url);
        client.call_tool("prom_ping", None).await.expect("a result");
        let failed = client
            .call_tool("prom_broken", None)
            .await
            .expect("a result");
        assert_eq!(failed.is_error, Some(true));
        // Refused before any tool runs: counted by method.
        let forged = client
            .call_tool_once("prom_ping", None, None, Some("forged".to_owned()))
            .await;
        assert!(forged.is_err(), "{forged:?}");

        let (status, content_type, body) = get(&url, "/metrics", "").await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
        let scraped = Exposition::parse(&body);

        let server = scraped.family("mcp_server_operation_duration_seconds", "histogram");
        assert!(!server.help.is_empty());
        let served = |tool: &str, error: Option<&str>| {
            server.histogram(&[
                ("mcp_method_name", Some("tools/call")),
                ("gen_ai_tool_name", Some(tool)),
                ("gen_ai_operation_name", Some("execute_tool")),
                ("mcp_protocol_version", Some("2026-07-28")),
                ("network_transport", Some("tcp")),
                ("otel_scope_name", Some("mcp")),
                ("error_type", error),
            ])
        };
        let ping = served("prom_ping", None);
        assert_eq!(ping.count, 1, "{body}");
        assert_eq!(ping.le, LE, "the conventions' buckets, then +Inf");
        assert!(ping.buckets.iter().all(|&n| n <= 1.0));
        assert_eq!(ping.buckets.last(), Some(&1.0));
        assert!(ping.sum >= 0.0);
        let broken = served("prom_broken", Some("tool_error"));
        assert_eq!(broken.count, 1, "{body}");
        assert_eq!(broken.buckets.last(), Some(&1.0));

        let calls = scraped.family("mcp_client_operation_duration_seconds", "histogram");
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches("/mcp");
        let called = calls.histogram(&[
            ("gen_ai_tool_name", Some("prom_broken")),
            ("error_type", Some("tool_error")),
            ("server_address", Some("127.0.0.1")),
            ("server_port", Some(port)),
        ]);
        assert_eq!(called.count, 1, "{body}");

        let rejected = scraped.family("mcp_server_request_state_rejected_total", "counter");
        let value = rejected.value(&[("mcp_method_name", Some("tools/call"))]);
        assert!(value >= 1.0, "{body}");

        let target = scraped.family("target_info", "gauge");
        assert_eq!(
            target.value(&[("service_name", Some("otel-tests"))]),
            1.0,
            "the resource"
        );

        // The OTLP export carries the same point, side by side with the scrape.
        flush().await;
        let exported = WORLD
            .receiver
            .histogram_points("mcp.server.operation.duration")
            .iter()
            .filter(|point| attribute(&point.attributes, "gen_ai.tool.name") == Some("prom_ping"))
            .filter(|point| attribute(&point.attributes, "error.type").is_none())
            .map(|point| point.count)
            .max();
        assert_eq!(exported, Some(1));
    });
}

#[test]
fn the_scrape_route_is_there_only_when_asked_and_never_behind_the_endpoints_auth() {
    run(async {
        let (url, _stop) = serve().await;
        let (status, _, _) = get(&url, "/metrics", "").await;
        assert_eq!(status, 404, "no route unless configured");

        let verifier = verify_fn(|_token: String| async {
            Err::<Identity, _>(AuthError::invalid("nobody gets in"))
        });
        let auth = ResourceServer::new(
            "https://mcp.example.com/mcp",
            "https://auth.example.com",
            verifier,
        )
        .expect("a resource server");
        let (url, _stop) = serve_with(|transport| {
            transport
                .auth(auth)
                .metrics_route("/metrics", WORLD.scrape.clone())
        })
        .await;
        let (status, _, _) = get(&url, "/mcp", "").await;
        assert_eq!(status, 401, "the endpoint wants a token");
        let (status, _, body) = get(&url, "/metrics", "").await;
        assert_eq!(status, 200, "the scrape does not: {body}");
        Exposition::parse(&body);
        let (status, _, _) = get(&url, "/metrics", "POST").await;
        assert_eq!(status, 405);
    });
}

#[test]
fn a_scrape_route_on_a_path_already_taken_is_left_out_and_the_endpoint_serves() {
    run(async {
        for taken in ["/mcp", "metrics"] {
            let (url, _stop) =
                serve_with(|transport| transport.metrics_route(taken, WORLD.scrape.clone())).await;
            let (status, _, body) = get(&url, "/mcp", "").await;
            // The endpoint's own answer to a GET without a session: not the scrape.
            assert_ne!(status, 200, "{taken}: {body}");
            assert!(!body.contains("# TYPE"), "{taken}: {body}");
        }
    });
}

/// One request to `path` of the server at `url` (`GET` unless `method` says otherwise): its
/// status, `Content-Type` and body.
async fn get(url: &str, path: &str, method: &str) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let method = if method.is_empty() { "GET" } else { method };
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAccept: text/plain, \
         application/json, text/event-stream\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status");
    let content_type = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_default();
    (status, content_type, body.to_owned())
}

/// A scrape, parsed by the rules of the text format 0.0.4: any line that breaks them panics.
struct Exposition {
    families: BTreeMap<String, Family>,
}

#[derive(Default)]
struct Family {
    kind: String,
    help: String,
    samples: Vec<Sample>,
}

struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: f64,
}

/// One histogram series: its cumulative buckets in order, its sum and count.
struct Series {
    le: Vec<String>,
    buckets: Vec<f64>,
    sum: f64,
    count: u64,
}

impl Exposition {
    fn parse(text: &str) -> Self {
        assert!(text.ends_with('\n'), "the last line ends too");
        let mut families: BTreeMap<String, Family> = BTreeMap::new();
        // The family whose lines are being read; one closed is never reopened.
        let mut current: Option<String> = None;
        for line in text.lines() {
            assert!(!line.is_empty(), "no empty lines");
            if let Some(help) = line.strip_prefix("# HELP ") {
                let (name, help) = help.split_once(' ').unwrap_or((help, ""));
                check_metric_name(name);
                check_escapes(help, &['\\', 'n']);
                let family = open(&mut families, &mut current, name);
                assert!(family.help.is_empty(), "a second HELP for {name}");
                family.help = help.to_owned();
            } else if let Some(kind) = line.strip_prefix("# TYPE ") {
                let (name, kind) = kind.split_once(' ').expect("TYPE name kind");
                check_metric_name(name);
                assert!(
                    ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                    "{line}"
                );
                let family = open(&mut families, &mut current, name);
                assert!(family.kind.is_empty(), "a second TYPE for {name}");
                assert!(family.samples.is_empty(), "TYPE after samples of {name}");
                family.kind = kind.to_owned();
            } else {
                assert!(!line.starts_with('#'), "no other comments: {line}");
                let sample = parse_sample(line);
                let name = current.clone().expect("a sample after its TYPE");
                let family = families.get_mut(&name).expect("the current family");
                let suffixes: &[&str] = match family.kind.as_str() {
                    "histogram" => &["_bucket", "_sum", "_count"],
                    _ => &[""],
                };
                let suffix = sample
                    .name
                    .strip_prefix(name.as_str())
                    .unwrap_or_else(|| panic!("{} outside its family {name}", sample.name));
                assert!(suffixes.contains(&suffix), "{line}");
                assert_eq!(
                    suffix == "_bucket",
                    sample.labels.iter().any(|(label, _)| label == "le"),
                    "le on buckets only: {line}"
                );
                family.samples.push(sample);
            }
        }
        for (name, family) in &families {
            assert!(!family.kind.is_empty(), "{name} has no TYPE");
        }
        Self { families }
    }

    fn family(&self, name: &str, kind: &str) -> &Family {
        let family = self
            .families
            .get(name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", self.families.keys()));
        assert_eq!(family.kind, kind, "{name}");
        family
    }
}

/// The family `name`'s entry, its lines now being read.
fn open<'a>(
    families: &'a mut BTreeMap<String, Family>,
    current: &mut Option<String>,
    name: &str,
) -> &'a mut Family {
    if current.as_deref() != Some(name) {
        assert!(
            !families.contains_key(name),
            "{name}'s lines are not together"
        );
        *current = Some(name.to_owned());
    }
    families.entry(name.to_owned()).or_default()
}

impl Family {
    /// The samples whose labels match `wanted` (`None`: the label is absent).
    fn matching<'a>(
        &'a self,
        wanted: &'a [(&str, Option<&str>)],
    ) -> impl Iterator<Item = &'a Sample> + 'a {
        self.samples.iter().filter(move |sample| {
            wanted.iter().all(|(label, value)| {
                let found = sample.labels.iter().find(|(l, _)| l == label);
                found.map(|(_, v)| v.as_str()) == *value
            })
        })
    }

    /// The value of the one sample matching `wanted`.
    fn value(&self, wanted: &[(&str, Option<&str>)]) -> f64 {
        let found: Vec<&Sample> = self.matching(wanted).collect();
        assert_eq!(found.len(), 1, "one sample for {wanted:?}");
        found[0].value
    }

    /// The one histogram series matching `wanted`, checked: buckets in order of `le`,
    /// cumulative, `+Inf` last and equal to the count.
    fn histogram(&self, wanted: &[(&str, Option<&str>)]) -> Series {
        let samples: Vec<&Sample> = self.matching(wanted).collect();
        let without_le = |sample: &Sample| -> Vec<(String, String)> {
            let labels = sample.labels.iter().filter(|(label, _)| label != "le");
            labels.cloned().collect()
        };
        let first = samples.first().expect("a series");
        assert!(
            samples.iter().all(|s| without_le(s) == without_le(first)),
            "one series for {wanted:?}"
        );
        let mut series = Series {
            le: Vec::new(),
            buckets: Vec::new(),
            sum: f64::NAN,
            count: u64::MAX,
        };
        for sample in samples {
            if sample.name.ends_with("_bucket") {
                let le = sample.labels.iter().find(|(label, _)| label == "le");
                series.le.push(le.expect("le").1.clone());
                series.buckets.push(sample.value);
            } else if sample.name.ends_with("_sum") {
                series.sum = sample.value;
            } else {
                series.count = sample.value as u64;
            }
        }
        let bounds: Vec<f64> = series.le.iter().map(|le| number(le)).collect();
        assert!(bounds.windows(2).all(|w| w[0] < w[1]), "le ascending");
        assert_eq!(series.le.last().map(String::as_str), Some("+Inf"));
        assert!(
            series.buckets.windows(2).all(|w| w[0] <= w[1]),
            "cumulative"
        );
        assert_eq!(series.buckets.last(), Some(&(series.count as f64)));
        assert!(!series.sum.is_nan(), "a _sum");
        series
    }
}

/// `name{label="value",...} value`, with no timestamp.
fn parse_sample(line: &str) -> Sample {
    let end = line.find(['{', ' ']).expect("a name and a value");
    let name = &line[..end];
    check_metric_name(name);
    let mut rest = &line[end..];
    let mut labels: Vec<(String, String)> = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        rest = inner;
        loop {
            let (label, after) = rest.split_once("=\"").expect("label=\"");
            check_label_name(label);
            assert!(
                labels.iter().all(|(l, _)| l != label),
                "{label} twice: {line}"
            );
            let (value, after) = label_value(after);
            labels.push((label.to_owned(), value));
            if let Some(after) = after.strip_prefix(',') {
                rest = after;
            } else {
                rest = after.strip_prefix('}').expect("} after the labels");
                break;
            }
        }
    }
    let value = rest.strip_prefix(' ').expect("a space before the value");
    assert!(!value.contains(' '), "no timestamp: {line}");
    Sample {
        name: name.to_owned(),
        labels,
        value: number(value),
    }
}

/// A label's value up to its closing quote, unescaped, and what follows it.
fn label_value(text: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (value, &text[i + 1..]),
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('\\') => value.push('\\'),
                Some('"') => value.push('"'),
                Some('n') => value.push('\n'),
                other => panic!("escape \\{other:?} in a label value"),
            },
            '\n' => panic!("a raw newline in a label value"),
            c => value.push(c),
        }
    }
    panic!("an unterminated label value: {text}")
}

fn number(text: &str) -> f64 {
    match text {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        _ => text
            .parse()
            .unwrap_or_else(|_| panic!("not a number: {text}")),
    }
}

fn check_metric_name(name: &str) {
    let mut chars = name.chars();
    let first = chars.next().expect("a name");
    assert!(
        first.is_ascii_alphabetic() || first == '_' || first == ':',
        "{name}"
    );
    assert!(
        chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
        "{name}"
    );
}

fn check_label_name(name: &str) {
    let mut chars = name.chars();
    let first = chars.next().expect("a label name");
    assert!(first.is_ascii_alphabetic() || first == '_', "{name}");
    assert!(
        chars.all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "{name}"
    );
}

/// Only the escapes `allowed` follow a backslash.
fn check_escapes(text: &str, allowed: &[char]) {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.next().expect("an escape");
            assert!(allowed.contains(&next), "escape \\{next} in {text}");
        }
    }
}

#[test]
fn the_parser_refuses_what_the_format_forbids() {
    let broken = [
        "x 1\n",                                  // no TYPE
        "# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n", // a label twice
        "# TYPE x gauge\nx{a=\"\\t\"} 1\n",       // an unknown escape
        "# TYPE x gauge\nx 1 1700000000\n",       // a timestamp
        "# TYPE x gauge\n# TYPE y gauge\nx 1\n",  // x's lines apart
        "# TYPE x histogram\nx_bucket 1\n",       // a bucket without le
        "# TYPE x.y gauge\nx.y 1\n",              // a dot in a name
    ];
    for text in broken {
        let parsed = std::panic::catch_unwind(|| Exposition::parse(text));
        assert!(parsed.is_err(), "accepted {text:?}");
    }
}
