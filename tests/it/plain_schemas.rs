//! Every schema the macros generate is the plainest JSON Schema 2020-12: no `format` outside
//! the standard ones clients know (the TypeScript SDK warns `unknown format "uint32" ignored`),
//! no `type` array (MCP Inspector `--strict` warns), and no `null` alternative on a property
//! that may be left out. Walks the committed snapshots and the examples' listings.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::http::{modern, post};
use crate::support::process::{ChildGuard, example, free_port};

/// What a generated schema may say in `format`: JSON Schema 2020-12's formats that the
/// TypeScript SDK's `ajv-formats` also knows.
const PLAIN_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The keywords whose value is one schema, an array of schemas, or a map of them.
const ONE: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "additionalProperties",
    "propertyNames",
    "items",
    "unevaluatedItems",
    "unevaluatedProperties",
];
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];

/// The ways `schema` is not plain, each with its path.
fn problems(schema: &Value, path: &str, found: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    if let Some(format) = object.get("format").and_then(Value::as_str)
        && !PLAIN_FORMATS.contains(&format)
    {
        found.push(format!("{path}: non-standard format {format:?}"));
    }
    if object.get("type").is_some_and(Value::is_array) {
        found.push(format!("{path}: type union {}", object["type"]));
    }
    let required = |name: &str| {
        object
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    for (name, property) in object
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if !required(name) && admits_null(property) {
            found.push(format!("{path}/properties/{name}: optional yet nullable"));
        }
    }
    for key in ONE {
        if let Some(sub) = object.get(*key) {
            problems(sub, &format!("{path}/{key}"), found);
        }
    }
    for key in MANY {
        for (i, sub) in object
            .get(*key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            problems(sub, &format!("{path}/{key}/{i}"), found);
        }
    }
    for key in MAP {
        for (name, sub) in object
            .get(*key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            problems(sub, &format!("{path}/{key}/{name}"), found);
        }
    }
}

fn admits_null(schema: &Value) -> bool {
    let is_null = |t: &Value| t == "null";
    match schema.get("type") {
        Some(Value::Array(types)) if types.iter().any(is_null) => return true,
        Some(t) if is_null(t) => return true,
        _ => {}
    }
    if schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| values.iter().any(Value::is_null))
    {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(admits_null))
    })
}

/// Every schema in `value` (a listing, a snapshot): the values of `inputSchema`, `outputSchema`
/// and `requestedSchema`, wherever they are.
fn schemas_in<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(object) => {
            for (key, sub) in object {
                let here = format!("{path}/{key}");
                if matches!(
                    key.as_str(),
                    "inputSchema" | "outputSchema" | "requestedSchema"
                ) {
                    out.push((here, sub));
                } else {
                    schemas_in(sub, here, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, sub) in items.iter().enumerate() {
                schemas_in(sub, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn assert_plain(source: &str, value: &Value) -> usize {
    let mut schemas = Vec::new();
    schemas_in(value, String::new(), &mut schemas);
    let mut found = Vec::new();
    for (path, schema) in &schemas {
        problems(schema, path, &mut found);
    }
    assert!(found.is_empty(), "{source}:\n{}", found.join("\n"));
    schemas.len()
}

#[test]
fn the_checker_finds_what_clients_warn_about() {
    let noisy = json!({"tools": [{"inputSchema": {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "format": "uint32"},
            "maybe": {"type": ["boolean", "null"]},
            "inner": {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]},
        },
        "$defs": {"X": {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}},
    }}]});
    let mut found = Vec::new();
    problems(&noisy["tools"][0]["inputSchema"], "", &mut found);
    found.sort();
    assert_eq!(
        found,
        [
            "/properties/inner: optional yet nullable",
            "/properties/maybe: optional yet nullable",
            "/properties/maybe: type union [\"boolean\",\"null\"]",
            "/properties/n: non-standard format \"uint32\"",
        ]
    );
}

#[test]
fn every_committed_snapshot_schema_is_plain() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/snapshots") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read a snapshot");
        let value: Value = serde_json::from_str(&text).expect("a JSON snapshot");
        checked += assert_plain(&path.display().to_string(), &value);
    }
    // Tools (input and output), elicitation forms: a walk that found nothing proves nothing.
    assert!(checked >= 10, "only {checked} schemas found");
}

#[test]
fn the_provisioner_example_lists_plain_schemas() {
    let mut child = ChildGuard::spawn(
        Command::new(example("provisioner"))
            .env_remove("MCP_REQUEST_STATE_KEYS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped()),
    );
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}});
    stdin
        .write_all((list.to_string() + "\n").as_bytes())
        .expect("write");
    let line = lines.next().expect("a line").expect("read");
    let reply: Value = serde_json::from_str(&line).expect("json");
    assert!(reply["result"]["tools"].is_array(), "{reply}");
    assert!(assert_plain("provisioner tools/list", &reply) >= 1);
}

#[tokio::test]
async fn the_conformance_server_example_lists_plain_schemas() {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = ChildGuard::spawn(
        Command::new(example("conformance_server"))
            .args(["--port", &port.to_string()])
            .env_remove("MCP_REQUEST_STATE_KEYS")
            .stdout(Stdio::null())
            // It announces its address there; the test knows it.
            .stderr(Stdio::null()),
    );
    child.wait_listening(&addr);
    let reply = post(
        addr.parse().expect("an address"),
        modern(1, "tools/list", json!({})),
    )
    .routing("tools/list", None)
    .send()
    .await
    .json();
    assert!(reply["result"]["tools"].is_array(), "{reply}");
    assert!(assert_plain("conformance_server tools/list", &reply) >= 1);
}
