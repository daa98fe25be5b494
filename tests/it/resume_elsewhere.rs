//! `examples/resume_elsewhere.rs`: a round saved by one process against one server instance is
//! finished by another process against another instance sharing the keys.

use std::process::Command;

use crate::support::process::example;

#[test]
fn a_saved_round_finishes_in_another_process_on_another_instance() {
    let output = Command::new(example("resume_elsewhere"))
        .output()
        .expect("the example is built by `cargo test`");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let starter = stdout
        .lines()
        .find(|l| l.starts_with("[starter pid"))
        .expect("step 1");
    let finisher = stdout
        .lines()
        .find(|l| l.starts_with("[finisher pid"))
        .expect("step 2");
    let pid = |line: &str| -> u32 {
        let after = line.split("pid ").nth(1).expect("a pid");
        after[..after.find(']').expect("]")]
            .parse()
            .expect("a number")
    };
    assert_ne!(pid(starter), pid(finisher), "two client processes");
    assert!(
        finisher.ends_with("Provisioned 'orders' in eu-west-1."),
        "{stdout}"
    );
}
