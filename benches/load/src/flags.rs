//! What the subcommands with `--flag value` options share (`fanout`, `tasks`): the pairs, and
//! each value checked where it is read, with an error that names its flag.

use crate::{BoxError, Result, USAGE};

/// The `--flag value` pairs of `args`, in order.
pub(crate) fn pairs(args: &[String]) -> Result<Vec<(&str, &str)>> {
    let mut rest = args.iter();
    let mut pairs = Vec::with_capacity(args.len() / 2);
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        pairs.push((flag.as_str(), value.as_str()));
    }
    Ok(pairs)
}

/// A flag the subcommand does not take.
pub(crate) fn unknown(flag: &str) -> BoxError {
    format!("unknown option {flag}\n{USAGE}").into()
}

/// The `--url`, which every subcommand needs.
pub(crate) fn required_url(url: &str) -> Result<()> {
    if url.is_empty() {
        return Err(format!("--url is required\n{USAGE}").into());
    }
    Ok(())
}

/// A count of at least 1.
pub(crate) fn count(flag: &str, value: &str) -> Result<usize> {
    match value.parse() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag} must be a whole number above 0, not {value:?}").into()),
    }
}

/// A number of seconds above 0.
pub(crate) fn seconds(flag: &str, value: &str) -> Result<f64> {
    match value.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("{flag} must be a number of seconds above 0, not {value:?}").into()),
    }
}

/// A number of seconds, 0 or more.
pub(crate) fn seconds_or_zero(flag: &str, value: &str) -> Result<f64> {
    match value.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(format!("{flag} must be a number of seconds, 0 or more, not {value:?}").into()),
    }
}

/// A process id.
pub(crate) fn pid(flag: &str, value: &str) -> Result<u32> {
    value
        .parse()
        .map_err(|_| format!("{flag} must be a process id, not {value:?}").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn flags_come_in_pairs() {
        let given = args("--url http://127.0.0.1:1/mcp --seconds 5");
        let pairs = pairs(&given).map_err(|e| e.to_string());
        assert_eq!(
            pairs.expect("two pairs"),
            [("--url", "http://127.0.0.1:1/mcp"), ("--seconds", "5")]
        );
        let dangling = args("--url");
        assert!(super::pairs(&dangling).is_err_and(|e| e.to_string().contains("needs a value")));
    }

    #[test]
    fn values_are_checked_and_errors_name_the_flag() {
        assert_eq!(count("--concurrency", "32").ok(), Some(32));
        assert!(
            count("--concurrency", "0").is_err_and(|e| e.to_string().contains("--concurrency"))
        );
        assert_eq!(seconds("--seconds", "2.5").ok(), Some(2.5));
        assert!(seconds("--seconds", "0").is_err());
        assert!(seconds("--seconds", "inf").is_err());
        assert_eq!(seconds_or_zero("--warmup", "0").ok(), Some(0.0));
        assert!(seconds_or_zero("--warmup", "-1").is_err());
        assert!(pid("--server-pid", "x").is_err());
        assert!(required_url("").is_err());
    }
}
