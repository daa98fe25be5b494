//! Committed JSON snapshots (`tests/snapshots/NAME.json`) of what the macros generate, so a
//! change to a schema or a listing shows up in review as a diff of that file.

use std::path::PathBuf;

use serde::Serialize;

/// Compares `actual`, pretty-printed with a final newline, with `tests/snapshots/{name}.json`.
///
/// `UPDATE_SNAPSHOTS=1` rewrites the file first. It is refused when `CI` is set: the comparison
/// that follows could not fail then.
pub fn assert_json_snapshot(name: &str, actual: &impl Serialize) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.json"));
    let actual = serde_json::to_string_pretty(actual).expect("JSON") + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        assert!(
            std::env::var_os("CI").is_none(),
            "UPDATE_SNAPSHOTS is set under CI, where no snapshot may be rewritten"
        );
        std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "read {} ({e}); UPDATE_SNAPSHOTS=1 writes it",
            path.display()
        )
    });
    if actual == expected {
        return;
    }
    let committed: Vec<&str> = expected.lines().collect();
    let generated: Vec<&str> = actual.lines().collect();
    let first = match (0..committed.len().max(generated.len()))
        .find(|&i| committed.get(i) != generated.get(i))
    {
        Some(i) => {
            let show = |line: Option<&&str>| line.map_or("(none)".to_owned(), |l| format!("{l:?}"));
            format!(
                "line {}:\n  committed: {}\n  generated: {}",
                i + 1,
                show(committed.get(i)),
                show(generated.get(i))
            )
        }
        None => "the line endings only".to_owned(),
    };
    panic!(
        "{} changed; rerun with UPDATE_SNAPSHOTS=1 if intended.\n\
         First difference: {first}\nGenerated:\n{actual}",
        path.display()
    );
}
