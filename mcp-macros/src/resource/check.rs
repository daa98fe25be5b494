//! The rules a resource function follows: a static URI never asks; a template's variables each
//! have the parameter of the same name. What a parameter that is no variable may be (the
//! request context or shared state) is its type's trait's business, in the generated code.

use crate::common::check;
use crate::common::errors::Errors;
use crate::common::params::ParamKind;
use crate::common::types::input_required_span;

use super::model::{ResourceFn, Template};

pub fn check(resource: &ResourceFn, errors: &mut Errors) {
    check::signature(&resource.item.sig, "resource", errors);
    check::params(&resource.params, errors);
    check::unique_names(&resource.params, errors);
    check::cycles(&resource.params, &resource.plan, errors);
    resource.describe.check(errors);
    resource.policy.check(errors);
    check_annotations(resource, errors);
    check_cache(resource, errors);
    match &resource.template {
        Template::Missing => return,
        Template::Invalid(reason) => {
            errors.at(&resource.uri, format!("invalid URI template: {reason}"));
            return;
        }
        Template::Variables(_) => {}
    }
    for param in &resource.params {
        if let Some(complete) = param.attrs.complete.get()
            && !param.is_resolve()
            && !resource.is_variable(param)
        {
            errors.at(
                complete,
                format!(
                    "`complete` belongs on a template variable: `{}` has no `{{{}}}`",
                    resource.uri.value(),
                    param.wire_name()
                ),
            );
        }
    }
    if resource.is_static() {
        check_static(resource, errors);
    } else {
        if let Some((_, size)) = &resource.size {
            errors.at(
                size,
                format!(
                    "only a static resource has a size: `{}` is a template, naming many \
                     resources",
                    resource.uri.value()
                ),
            );
        }
        check_template(resource, errors);
        check::resolve_return(&resource.params, &resource.ret, errors);
    }
}

fn check_static(resource: &ResourceFn, errors: &mut Errors) {
    let uri = resource.uri.value();
    for param in resource.params.iter().filter(|p| p.is_resolve()) {
        errors.at(
            &param.ty,
            format!(
                "a static resource cannot ask the client: only resource templates may \
                 (`{uri}` has no `{{variables}}`)"
            ),
        );
    }
    if let Some(span) = input_required_span(&resource.ret) {
        errors.at_span(
            span,
            format!(
                "a static resource cannot return `InputRequiredResult`: only resource templates \
                 may ask the client (`{uri}` has no `{{variables}}`)"
            ),
        );
    }
}

fn check_template(resource: &ResourceFn, errors: &mut Errors) {
    for variable in resource.variables() {
        let bound = resource
            .params
            .iter()
            .any(|p| p.kind == ParamKind::Extract && &p.wire_name() == variable);
        if !bound {
            errors.at(
                &resource.uri,
                format!(
                    "the template variable `{variable}` has no parameter: add `{variable}: \
                     String` to the function"
                ),
            );
        }
    }
}

fn check_annotations(resource: &ResourceFn, errors: &mut Errors) {
    let Some(annotations) = &resource.annotations else {
        return;
    };
    for role in annotations.audience.iter().flatten() {
        if !matches!(role.value().as_str(), "user" | "assistant") {
            errors.at(role, "an audience is `\"user\"` or `\"assistant\"`");
        }
    }
    if let Some((priority, span)) = annotations.priority
        && !(0.0..=1.0).contains(&priority)
    {
        errors.at_span(
            span,
            "a priority is from 0 (least important) to 1 (most important)",
        );
    }
    if let Some(last_modified) = &annotations.last_modified
        && !is_iso8601(&last_modified.value())
    {
        errors.at(
            last_modified,
            "`last_modified` is an ISO 8601 date or date and time, e.g. \
             `\"2025-01-12T15:00:58Z\"`",
        );
    }
}

fn check_cache(resource: &ResourceFn, errors: &mut Errors) {
    let Some(cache) = &resource.cache else {
        return;
    };
    if cache.ttl_ms.is_none() {
        errors.at_span(
            cache.span,
            "`cache(…)` needs how long a read stays fresh: `ttl_ms = 60_000`",
        );
    }
    if let Some(scope) = &cache.scope
        && !matches!(scope.value().as_str(), "public" | "private")
    {
        errors.at(
            scope,
            "a cache `scope` is `\"private\"` (the caller's authorization only, the default) \
             or `\"public\"` (any client or shared cache)",
        );
    }
    if let Some(scope) = &cache.scope
        && scope.value() == "public"
        && resource.policy.scopes.get().is_some_and(|s| !s.is_empty())
    {
        errors.at(
            scope,
            "a resource that needs `scopes` cannot be cached `\"public\"`: a shared cache \
             would serve it to callers without them; leave the scope out (private)",
        );
    }
}

/// `YYYY-MM-DD`, or that with `THH:MM:SS`, optional fractional seconds and a zone (`Z` or
/// `±HH:MM`): what clients parse without guessing.
fn is_iso8601(text: &str) -> bool {
    fn number(text: &str, range: std::ops::RangeInclusive<u32>) -> bool {
        !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit())
            && text.parse().is_ok_and(|n: u32| range.contains(&n))
    }
    let (date, time) = match text.split_once(['T', 't']) {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let date_ok = date.len() == 10
        && matches!(date.split('-').collect::<Vec<_>>()[..],
            [y, m, d] if y.len() == 4 && number(y, 0..=9999) && m.len() == 2 && number(m, 1..=12)
                && d.len() == 2 && number(d, 1..=31));
    let Some(time) = time else {
        return date_ok;
    };
    let (clock, zone) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else if let Some(at) = time.rfind(['+', '-']) {
        (&time[..at], Some(&time[at + 1..]))
    } else {
        return false;
    };
    let zone_ok = zone.is_none_or(|zone| {
        matches!(zone.split(':').collect::<Vec<_>>()[..],
            [h, m] if h.len() == 2 && number(h, 0..=23) && m.len() == 2 && number(m, 0..=59))
    });
    let (clock, fraction) = match clock.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (clock, None),
    };
    let fraction_ok =
        fraction.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    let clock_ok = matches!(clock.split(':').collect::<Vec<_>>()[..],
        [h, m, s] if h.len() == 2 && number(h, 0..=23) && m.len() == 2 && number(m, 0..=59)
            && s.len() == 2 && number(s, 0..=60));
    date_ok && zone_ok && fraction_ok && clock_ok
}

#[cfg(test)]
mod tests {
    use super::is_iso8601;

    #[test]
    fn iso8601_dates_and_times() {
        for good in [
            "2025-01-12",
            "2025-01-12T15:00:58Z",
            "2025-01-12T15:00:58.123Z",
            "2025-01-12T15:00:58+02:00",
        ] {
            assert!(is_iso8601(good), "{good}");
        }
        for bad in [
            "",
            "yesterday",
            "2025-13-01",
            "2025-01-12T25:00:00Z",
            "2025-01-12T15:00:58",
            "2025-01-12T15:00Z",
            "12/01/2025",
        ] {
            assert!(!is_iso8601(bad), "{bad}");
        }
    }
}
