//! Three provisioner processes behind a real nginx, round-robin (`scripts/fleet.sh`), driven by
//! `examples/fleet_load.rs`: with shared keys every exchange completes whichever instance each
//! round reaches; with per-process keys rounds are rejected with the fixed error and only
//! restarts finish the calls; a key rotation rolled through the fleet under load fails nothing,
//! while promoting the new key first (the mistake the three phases avoid) rejects rounds.
//!
//! Skipped, saying so, when nginx is missing and cannot be installed, unless `CI` is set: then
//! that is a failure.

#![cfg(all(feature = "http", unix))]

use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

use crate::support::process::{example, root};

/// One fleet at a time: they compete for two cores otherwise.
static FLEET: Mutex<()> = Mutex::new(());

/// What `scripts/fleet.sh` exits with when nginx is unavailable.
const NO_NGINX: i32 = 77;

/// Runs a mode; `None` when skipped for want of nginx.
fn fleet(mode: &str) -> Option<Vec<Value>> {
    let _one_at_a_time = FLEET.lock().unwrap_or_else(|e| e.into_inner());
    let mut bin = example("fleet_load");
    bin.pop();
    let output = Command::new(root().join("scripts/fleet.sh"))
        .arg(mode)
        .env("FLEET_BIN", &bin)
        .output()
        .expect("run scripts/fleet.sh");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(NO_NGINX) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but nginx is unavailable:\n{stderr}"
        );
        eprintln!("SKIPPED: nginx is not installed and cannot be installed here:\n{stderr}");
        return None;
    }
    assert!(output.status.success(), "fleet.sh {mode} failed:\n{stderr}");
    let runs: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for run in &runs {
        eprintln!("{run}");
    }
    Some(runs)
}

fn count(run: &Value, path: &str) -> u64 {
    run.pointer(path)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no {path} in {run}"))
}

/// Every instance served a near-even share of the requests.
fn assert_even_split(run: &Value) {
    let split = run["split"].as_object().expect("split");
    assert_eq!(split.len(), 3, "three instances served: {run}");
    let requests = count(run, "/requests") as f64;
    for (instance, served) in split {
        let share = served.as_u64().unwrap_or(0) as f64 / requests;
        assert!(
            (0.25..=0.42).contains(&share),
            "{instance} served {share:.2} of the requests: {run}"
        );
    }
}

fn only_fixed_rejections(run: &Value) {
    for (message, _) in run["driver"]["errors"].as_object().expect("errors") {
        assert!(
            message.starts_with("Invalid or expired requestState"),
            "an error other than the fixed rejection: {run}"
        );
    }
}

#[test]
fn with_shared_keys_every_exchange_completes_whichever_instance_a_round_reaches() {
    let Some(runs) = fleet("shared-keys") else {
        return;
    };
    let run = &runs[0];
    assert!(count(run, "/driver/exchanges") >= 1000, "{run}");
    assert_eq!(
        count(run, "/driver/ok"),
        count(run, "/driver/exchanges"),
        "{run}"
    );
    assert_eq!(count(run, "/driver/failed"), 0, "{run}");
    assert_eq!(count(run, "/driver/rejected_rounds"), 0, "{run}");
    assert_eq!(
        count(run, "/requests"),
        3 * count(run, "/driver/exchanges"),
        "{run}"
    );
    assert_eq!(
        count(run, "/statuses/200"),
        count(run, "/requests"),
        "{run}"
    );
    assert_even_split(run);
}

#[test]
fn with_per_process_keys_rounds_are_rejected_and_restarts_finish_the_calls() {
    let Some(runs) = fleet("per-process-keys") else {
        return;
    };
    let (alone, restarting) = (&runs[0], &runs[1]);
    // Without restarts each rejection ends its exchange. Round-robin sends about two in three
    // retries to another instance, which cannot open the state.
    let exchanges = count(alone, "/driver/exchanges");
    let rejected = count(alone, "/driver/rejected_rounds");
    assert_eq!(count(alone, "/driver/failed"), rejected, "{alone}");
    assert_eq!(count(alone, "/driver/ok") + rejected, exchanges, "{alone}");
    only_fixed_rejections(alone);
    let retries = count(alone, "/requests") - exchanges;
    let share = rejected as f64 / retries as f64;
    assert!(
        (0.5..=0.8).contains(&share),
        "{share:.2} of retries rejected: {alone}"
    );
    assert_even_split(alone);
    // With restarts the calls start over until all their rounds meet one instance. Only a call
    // left alone at the very end can be starved: strict round-robin then sends its every retry
    // to another instance.
    assert!(count(restarting, "/driver/restarts") > 0, "{restarting}");
    only_fixed_rejections(restarting);
    let failed = count(restarting, "/driver/failed");
    assert!(failed <= 2, "{restarting}");
    assert_eq!(
        count(restarting, "/driver/ok") + failed,
        count(restarting, "/driver/exchanges"),
        "{restarting}"
    );
}

#[test]
fn a_key_rotation_rolled_through_the_fleet_under_load_fails_no_exchange() {
    let Some(runs) = fleet("rotation") else {
        return;
    };
    let run = &runs[0];
    assert!(count(run, "/driver/exchanges") >= 1000, "{run}");
    assert_eq!(count(run, "/driver/failed"), 0, "{run}");
    assert_eq!(count(run, "/driver/rejected_rounds"), 0, "{run}");
    assert_eq!(
        count(run, "/statuses/200"),
        count(run, "/requests"),
        "{run}"
    );
    let rolls = run["rolls"].as_array().expect("rolls");
    let phases: Vec<&str> = rolls.iter().filter_map(|r| r["phase"].as_str()).collect();
    assert_eq!(
        phases,
        [
            "old,new", "old,new", "old,new", "new,old", "new,old", "new,old", "new", "new", "new"
        ],
        "{run}"
    );
    assert!(rolls.iter().all(|r| r["exit"] == 0), "{run}");
}

#[test]
fn promoting_the_new_key_first_rejects_rounds_mid_rollout() {
    // The contrast to the rotation above: [old] straight to [new,old].
    let Some(runs) = fleet("rotation-unsafe") else {
        return;
    };
    let run = &runs[0];
    assert!(count(run, "/driver/rejected_rounds") > 0, "{run}");
    assert_eq!(
        count(run, "/driver/failed"),
        count(run, "/driver/rejected_rounds"),
        "{run}"
    );
    only_fixed_rejections(run);
}
