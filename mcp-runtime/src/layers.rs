//! The layer rule of the crate's module graph, checked against the sources: a module imports
//! only from layers below its own (see the crate docs for why each layer sits where it does).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom first. A module of one layer may import from any layer below it and
/// from nothing beside or above it. (This file, the checker, is test code and not in it.)
const LAYERS: &[&[&str]] = &[
    // Test code only: the random source of the tests that generate inputs.
    &["test_rng"],
    &[
        "protocol", "boxed", "identity", "panics", "backoff", "outlined", "name_map",
    ],
    &["state", "telemetry"],
    &["auth"],
    &["push"],
    &["tasks"],
    &["server"],
    &["resolve"],
    &["transport"],
    &["client"],
    &["proxy"],
    &["error"],
    &["serve"],
    &["__private"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The source text with comments and string and character literals blanked out, so a path
/// in a doc comment or a message is not an import.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if rest[0] == 'r' && matches!(rest.get(1), Some('"' | '#')) {
            let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
            if rest.get(1 + hashes) != Some(&'"') {
                out.push('r');
                i += 1;
                continue;
            }
            i += 2 + hashes;
            while i < chars.len() {
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&c| c == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if rest[0] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if rest[0] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let close = if rest.get(1) == Some(&'\\') {
                rest.iter().skip(2).position(|&c| c == '\'').map(|p| p + 2)
            } else {
                (rest.get(2) == Some(&'\'')).then_some(2)
            };
            match close {
                Some(close) => {
                    i += close + 1;
                    out.push_str("' '");
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    out
}

/// The identifier starting at `at`, if any.
fn ident_at(code: &str, at: usize) -> Option<&str> {
    let rest = code.get(at..)?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The first segments of the paths in the `{…}` group starting at `open`.
fn group_heads(code: &str, open: usize) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    for (offset, c) in code[open..].char_indices() {
        let at = open + offset;
        match c {
            '{' => {
                depth += 1;
                expect_head = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => expect_head = true,
            c if c.is_whitespace() => {}
            _ if expect_head && depth == 1 => {
                if let Some(head) = ident_at(code, at) {
                    heads.push(head);
                }
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

/// The crate-level names (top modules, or items re-exported at the root) that the code of the
/// module at `module_path` names through `crate::` or enough `super::` to reach the root.
fn crate_level_names<'a>(module_path: &[&str], code: &'a str) -> BTreeSet<&'a str> {
    let mut names = BTreeSet::new();
    let mut search = 0;
    while let Some(found) = code[search..].find("crate::") {
        let at = search + found;
        search = at + "crate::".len();
        let preceded_by_ident = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if preceded_by_ident {
            continue;
        }
        names.extend(names_after(code, search));
    }
    let mut search = 0;
    while let Some(found) = code[search..].find("super::") {
        let at = search + found;
        let preceded_by_path = code[..at].ends_with("::")
            || code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let mut end = at;
        let mut climbs = 0;
        while code[end..].starts_with("super::") {
            climbs += 1;
            end += "super::".len();
        }
        search = end;
        if !preceded_by_path && climbs >= module_path.len() {
            names.extend(names_after(code, end));
        }
    }
    names
}

fn names_after(code: &str, at: usize) -> Vec<&str> {
    if code[at..].starts_with('{') {
        group_heads(code, at)
    } else {
        ident_at(code, at).into_iter().collect()
    }
}

/// Which module a root-level name belongs to: a module of its own, or an item the root
/// re-exports from one (`pub use error::Error;`).
fn owners(lib_rs: &str) -> BTreeMap<String, String> {
    let code = code_only(lib_rs);
    let mut owners = BTreeMap::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(path) = statement.strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = path.split_once("::") else {
            continue;
        };
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            owners.insert(name.to_owned(), module.trim().to_owned());
        }
    }
    owners
}

/// The module path of a source file under `src/` (`server/gate.rs` → `[server, gate]`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        match last.as_str() {
            "mod.rs" | "lib.rs" => {}
            "private.rs" if parts.is_empty() => parts.push("__private".to_owned()),
            file => parts.push(file.trim_end_matches(".rs").to_owned()),
        }
    }
    parts
}

/// Every import that breaks the layer rule: `(file, its module, the module it imports)`.
fn violations(files: &[(String, String)], lib_rs: &str) -> Vec<(String, String, String)> {
    let owners = owners(lib_rs);
    let mut found = Vec::new();
    for (file, source) in files {
        let path = module_path(Path::new(file));
        let Some(own) = path.first() else { continue };
        let own_layer = layer_of(own).unwrap_or_else(|| panic!("{file}: `{own}` has no layer"));
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let code = code_only(source);
        for name in crate_level_names(&path, &code) {
            // Anything else reached through `super::` is an item of an enclosing inline module.
            let module = match (layer_of(name), owners.get(name)) {
                (Some(_), _) => name,
                (None, Some(module)) => module.as_str(),
                (None, None) => continue,
            };
            if module == own {
                continue;
            }
            let layer = layer_of(module).unwrap_or(usize::MAX);
            if layer >= own_layer {
                found.push((file.clone(), own.clone(), module.to_owned()));
            }
        }
    }
    found
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") && path != root.join("layers.rs") {
            let relative = path.strip_prefix(root).expect("under src");
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            out.push((relative.to_string_lossy().into_owned(), text));
        }
    }
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    let lib_rs = std::fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    for (file, _) in &files {
        let path = module_path(Path::new(file));
        if let Some(top) = path.first() {
            assert!(
                layer_of(top).is_some(),
                "{file}: the module `{top}` is in no layer; place it in `LAYERS`"
            );
        }
    }
    let broken = violations(&files, &lib_rs);
    assert!(
        broken.is_empty(),
        "imports against the layer order (file, its module, the module it imports): {broken:#?}"
    );
}

#[test]
fn the_check_sees_imports_in_every_form_and_nothing_in_comments_or_strings() {
    let lib_rs = "pub use boxed::{BoxError, BoxFuture};\npub use error::Error;\n";
    let file = |name: &str, text: &str| vec![(name.to_owned(), text.to_owned())];
    let broken = |name: &str, text: &str| {
        violations(&file(name, text), lib_rs)
            .into_iter()
            .map(|(_, _, imported)| imported)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        broken("state/boundary.rs", "use crate::server::Server;"),
        ["server"]
    );
    assert_eq!(
        broken(
            "state/claims.rs",
            "use crate::{protocol::McpError, auth::Identity};"
        ),
        ["auth"]
    );
    assert_eq!(
        broken("server/gate.rs", "use super::super::client::Client;"),
        ["client"]
    );
    assert_eq!(
        broken("server/mod.rs", "fn f() -> super::transport::Duplex {}"),
        ["transport"]
    );
    assert_eq!(broken("auth/jwt.rs", "type E = crate::Error;"), ["error"]);
    // Siblings in one layer do not import each other either.
    assert_eq!(
        broken("protocol/text.rs", "use crate::BoxFuture;"),
        ["boxed"]
    );
    assert_eq!(
        broken("state/codec.rs", "use crate::boxed::BoxError;"),
        Vec::<String>::new()
    );
    assert_eq!(
        broken("state/codec.rs", "use crate::BoxError;"),
        Vec::<String>::new()
    );
    assert_eq!(
        broken("auth/mod.rs", "use crate::state::MIN_SECRET_LEN;"),
        Vec::<String>::new()
    );
    assert_eq!(
        broken("server/gate.rs", "use super::context::Context;"),
        Vec::<String>::new()
    );
    assert_eq!(
        broken(
            "state/codec.rs",
            "/// see [`crate::server::Server`]\n// crate::client\nconst S: &str = \"crate::transport\";\n/* crate::serve */ const C: char = '\"';"
        ),
        Vec::<String>::new()
    );
}
