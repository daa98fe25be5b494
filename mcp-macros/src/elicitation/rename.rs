//! serde's `rename_all` rules, so the names in the schema are the names serde reads back.

/// Applies `rule` to a variant name (written in PascalCase).
pub fn variant(name: &str, rule: &str) -> Option<String> {
    let words = split_pascal(name);
    apply(&words, rule)
}

/// Applies `rule` to a field name (written in snake_case).
pub fn field(name: &str, rule: &str) -> Option<String> {
    let words: Vec<String> = name
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    match rule {
        // serde keeps a field's own spelling for these two.
        "lowercase" => Some(name.to_ascii_lowercase()),
        "UPPERCASE" => Some(name.to_ascii_uppercase()),
        _ => apply(&words, rule),
    }
}

/// The rules serde knows.
pub const RULES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

fn split_pascal(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        if c.is_uppercase() || words.is_empty() {
            words.push(String::new());
        }
        if let Some(last) = words.last_mut() {
            last.push(c);
        }
    }
    words
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

fn apply(words: &[String], rule: &str) -> Option<String> {
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let upper: Vec<String> = words.iter().map(|w| w.to_uppercase()).collect();
    Some(match rule {
        "lowercase" => lower.concat(),
        "UPPERCASE" => upper.concat(),
        "PascalCase" => words.iter().map(|w| capitalize(w)).collect(),
        "camelCase" => {
            let pascal: String = words.iter().map(|w| capitalize(w)).collect();
            let mut chars = pascal.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => String::new(),
            }
        }
        "snake_case" => lower.join("_"),
        "SCREAMING_SNAKE_CASE" => upper.join("_"),
        "kebab-case" => lower.join("-"),
        "SCREAMING-KEBAB-CASE" => upper.join("-"),
        _ => return None,
    })
}
