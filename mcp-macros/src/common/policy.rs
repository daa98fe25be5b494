//! `scopes = [...]`, `timeout = "…"` and `rate_limit = "…"`: a function's call policy, parsed
//! into a model, checked (each value is a literal, so a bad one is a compile error at its
//! string) and generated as calls of the entry's builder methods.

use std::time::Duration;

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;
use syn::meta::ParseNestedMeta;

use crate::common::attrs::{Slot, string};
use crate::common::describe::bracketed_strings;
use crate::common::errors::Errors;
use crate::common::paths::Paths;

/// The policy as written.
#[derive(Default)]
pub struct Policy {
    pub scopes: Slot<Vec<LitStr>>,
    pub timeout: Slot<LitStr>,
    pub rate_limit: Slot<LitStr>,
}

impl Policy {
    /// Takes `meta` if it is `scopes`, `timeout` or `rate_limit` (`Ok(true)`); `Ok(false)` leaves it to the
    /// caller.
    pub fn accept(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<bool> {
        if meta.path.is_ident("scopes") {
            let value = meta.value()?;
            let scopes = bracketed_strings(value, "a list of scopes, e.g. `[\"notes:write\"]`")?;
            self.scopes.set(meta, scopes, errors);
        } else if meta.path.is_ident("timeout") {
            let lit = string(meta)?;
            self.timeout.set(meta, lit, errors);
        } else if meta.path.is_ident("rate_limit") {
            let lit = string(meta)?;
            self.rate_limit.set(meta, lit, errors);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// Takes `meta` if it is `scopes` (`Ok(true)`), the one key of the three that prompts
    /// take too.
    pub fn accept_scopes(
        &mut self,
        meta: &ParseNestedMeta<'_>,
        errors: &mut Errors,
    ) -> syn::Result<bool> {
        if !meta.path.is_ident("scopes") {
            return Ok(false);
        }
        self.accept(meta, errors)
    }

    /// Reports every value the runtime could not take, at its string.
    pub fn check(&self, errors: &mut Errors) {
        if let (Some(scopes), Some(span)) = (self.scopes.get(), self.scopes.span())
            && scopes.is_empty()
        {
            errors.at_span(
                span,
                "`scopes = []` requires nothing; remove it or name a scope",
            );
        }
        for scope in self.scopes.get().into_iter().flatten() {
            if let Err(message) = scope_token(&scope.value()) {
                errors.at(scope, message);
            }
        }
        if let Some(lit) = self.timeout.get()
            && let Err(message) = duration(&lit.value())
        {
            errors.at(lit, format!("invalid `timeout`: {message}"));
        }
        if let Some(lit) = self.rate_limit.get()
            && let Err(message) = rate(&lit.value())
        {
            errors.at(lit, format!("invalid `rate_limit`: {message}"));
        }
    }

    /// `entry` with the builder calls that set the policy (nothing for a value the checks
    /// refused, which never reaches generation).
    pub fn apply(&self, entry: TokenStream, paths: &Paths) -> TokenStream {
        let p = paths.private();
        let mut entry = entry;
        if let Some(scopes) = self.scopes.get().filter(|s| !s.is_empty()) {
            entry = quote!(#entry.scopes([#(#scopes),*]));
        }
        if let Some(Ok(timeout)) = self.timeout.get().map(|lit| duration(&lit.value())) {
            let millis = millis(timeout);
            entry = quote!(#entry.timeout(::core::time::Duration::from_millis(#millis)));
        }
        if let Some(Ok((calls, per))) = self.rate_limit.get().map(|lit| rate(&lit.value())) {
            let millis = millis(per);
            entry = quote!(#entry.rate_limit(#p::RateLimit::new(
                #calls,
                ::core::time::Duration::from_millis(#millis),
            )));
        }
        entry
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// An OAuth scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`.
fn scope_token(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("a scope cannot be empty".to_owned());
    }
    let bad = scope
        .chars()
        .find(|&c| !matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E'));
    match bad {
        None => Ok(()),
        Some(c) => Err(format!(
            "`{scope}` is not an OAuth scope: {c:?} cannot be part of one (one scope per \
             string; printable ASCII without spaces, `\"` or `\\`)"
        )),
    }
}

const DURATION_FORMAT: &str = "write a whole number and a unit, e.g. \"500ms\", \"30s\", \"5m\", \
     \"1h\" or \"1m30s\"";

/// `"500ms"`, `"30s"`, `"5m"`, `"1h"`, `"1m30s"`: more than zero.
fn duration(text: &str) -> Result<Duration, String> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(format!("the duration is empty; {DURATION_FORMAT}"));
    }
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (number, after) = rest.split_at(digits);
        let letters = after.len()
            - after
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let (unit, after) = after.split_at(letters);
        let number: u64 = number
            .parse()
            .map_err(|_| format!("{text:?} is not a duration; {DURATION_FORMAT}"))?;
        let unit = unit_length(unit).ok_or_else(|| {
            format!("{text:?} has no unit or an unknown one (ms, s, m, h); {DURATION_FORMAT}")
        })?;
        let part = unit
            .checked_mul(u32::try_from(number).map_err(|_| format!("{text:?} is too long"))?)
            .ok_or_else(|| format!("{text:?} is too long"))?;
        total = total
            .checked_add(part)
            .ok_or_else(|| format!("{text:?} is too long"))?;
        rest = after.trim_start();
    }
    if total.is_zero() {
        return Err(format!(
            "{text:?} is zero; a timeout must be longer than that"
        ));
    }
    Ok(total)
}

fn unit_length(unit: &str) -> Option<Duration> {
    Some(match unit {
        "ms" => Duration::from_millis(1),
        "s" | "sec" => Duration::from_secs(1),
        "m" | "min" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        _ => return None,
    })
}

/// `"10/min"`, `"5/s"`, `"1000/h"`, `"100/10s"`: a number of calls, more than zero, per a
/// unit or a duration.
fn rate(text: &str) -> Result<(u32, Duration), String> {
    const FORMAT: &str =
        "write calls per period, e.g. \"10/min\", \"5/s\", \"1000/h\" or \"100/10s\"";
    let Some((calls, per)) = text.split_once('/') else {
        return Err(format!("{text:?} has no `/`; {FORMAT}"));
    };
    let calls: u32 = calls
        .trim()
        .parse()
        .map_err(|_| format!("{:?} is not a number of calls; {FORMAT}", calls.trim()))?;
    if calls == 0 {
        return Err(format!("{text:?} allows no calls at all; {FORMAT}"));
    }
    let per = per.trim();
    let per = match unit_length(per) {
        Some(unit) => unit,
        None => duration(per).map_err(|_| format!("{per:?} is not a period; {FORMAT}"))?,
    };
    Ok((calls, per))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_people_write_them() {
        assert_eq!(duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(duration("2h"), Ok(Duration::from_secs(7200)));
        for bad in [
            "",
            "30",
            "s",
            "3 weeks",
            "-1s",
            "0s",
            "1.5s",
            "99999999999h",
        ] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rates_as_people_write_them() {
        assert_eq!(rate("10/min"), Ok((10, Duration::from_secs(60))));
        assert_eq!(rate("5/s"), Ok((5, Duration::from_secs(1))));
        assert_eq!(rate("100/10s"), Ok((100, Duration::from_secs(10))));
        for bad in ["10", "0/min", "x/min", "10/fortnight", "10/0s", "-1/s"] {
            assert!(rate(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scopes_are_oauth_scope_tokens() {
        assert!(scope_token("notes:write").is_ok());
        for bad in ["", "notes write", "a\"b", "é"] {
            assert!(scope_token(bad).is_err(), "{bad}");
        }
    }
}
