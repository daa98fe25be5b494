//! The grammar of an extension id: a `_meta` key that carries a prefix (`com.example/echo`).
//! Clients match ids byte for byte, so one outside the grammar is refused at build time
//! rather than advertised and never matched.

/// Why `id` is not an extension id, if it is not.
pub(super) fn check(id: &str) -> Result<(), String> {
    let Some((prefix, name)) = id.split_once('/') else {
        return Err("an extension id is a prefix and a name, as `com.example/name`".to_owned());
    };
    for label in prefix.split('.') {
        check_label(label)?;
    }
    check_name(name)
}

/// A prefix label: a letter first, a letter or digit last, letters, digits and hyphens between.
fn check_label(label: &str) -> Result<(), String> {
    let bytes = label.as_bytes();
    let fits = match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "the prefix label `{label}` must start with a letter, end with a letter or digit, \
             and hold only letters, digits and hyphens"
        ))
    }
}

/// The name: alphanumeric at both ends, letters, digits, `-`, `_` and `.` between.
fn check_name(name: &str) -> Result<(), String> {
    let bytes = name.as_bytes();
    let fits = match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "the name `{name}` must start and end with a letter or digit, and hold only \
             letters, digits, `-`, `_` and `.`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn ids_follow_the_meta_key_grammar_with_a_prefix() {
        for good in [
            "io.modelcontextprotocol/tasks",
            "com.example/echo",
            "com.example-2.x9/a",
            "a/b",
            "com.example/a_b.c-d9",
        ] {
            assert_eq!(check(good), Ok(()), "{good}");
        }
        for (bad, says) in [
            ("echo", "prefix and a name"),
            ("/echo", "label ``"),
            ("com..example/echo", "label ``"),
            ("1com.example/echo", "label `1com`"),
            ("com-.example/echo", "label `com-`"),
            ("com.ex_ample/echo", "label `ex_ample`"),
            ("com.éxample/echo", "label `éxample`"),
            ("com.example/", "name ``"),
            ("com.example/-echo", "name `-echo`"),
            ("com.example/echo.", "name `echo.`"),
            ("com.example/a/b", "name `a/b`"),
            ("com.example/e cho", "name `e cho`"),
        ] {
            let reason = check(bad).expect_err(bad);
            assert!(reason.contains(says), "{bad}: {reason}");
        }
    }
}
