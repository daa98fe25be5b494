//! DNS-rebinding protection: a browser page on a hostile origin can make a victim's browser
//! talk to a server on their loopback interface, so only loopback hosts and origins pass unless
//! the deployer names others.

use axum::http::Uri;

use super::headers::Decisive;

/// Which `Host` and `Origin` values a server accepts.
#[derive(Debug, Clone)]
pub(super) struct HostPolicy {
    pub enabled: bool,
    pub hosts: Vec<String>,
    pub origins: Vec<String>,
}

impl Default for HostPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            hosts: Vec::new(),
            origins: Vec::new(),
        }
    }
}

impl HostPolicy {
    /// Checks the host a request is for (the authority of an absolute-form or HTTP/2 target,
    /// and the `Host` header) and its `Origin`. A request that names no host at all (HTTP/1.0)
    /// is refused, and so is one that sends either header twice. `Err` carries what to log;
    /// the client only learns "forbidden".
    pub fn check(&self, uri: &Uri, sent: &Decisive<'_>) -> Result<(), String> {
        if !self.enabled {
            return Ok(());
        }
        let host = sent
            .host
            .single()
            .map_err(|_| "Host sent twice".to_owned())?;
        let host = host
            .map(|h| h.to_str().map_err(|_| "unreadable Host".to_owned()))
            .transpose()?;
        let target = uri.authority().map(|a| a.as_str());
        if host.is_none() && target.is_none() {
            return Err("no Host".to_owned());
        }
        for host in [target, host].into_iter().flatten() {
            if !self.host_allowed(host) {
                return Err(format!("Host {host:?} is not allowed"));
            }
        }
        let origin = sent
            .origin
            .single()
            .map_err(|_| "Origin sent twice".to_owned())?;
        if let Some(origin) = origin {
            let origin = origin
                .to_str()
                .map_err(|_| "unreadable Origin".to_owned())?;
            if !self.origin_allowed(origin) {
                return Err(format!("Origin {origin:?} is not allowed"));
            }
        }
        Ok(())
    }

    fn host_allowed(&self, host: &str) -> bool {
        is_loopback(strip_port(host))
            || self
                .hosts
                .iter()
                .any(|h| h.eq_ignore_ascii_case(host) || h.eq_ignore_ascii_case(strip_port(host)))
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        if self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
            return true;
        }
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        authority.is_some_and(|a| !a.contains('/') && is_loopback(strip_port(a)))
    }
}

/// `host:port`, `[v6]:port` or a bare host → the host. Anything after `]` but a port keeps
/// the whole text, which then matches nothing (`[::1]evil.com` is not loopback).
fn strip_port(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((host, "")) => host,
            Some((host, port)) if port.strip_prefix(':').is_some_and(is_digits) => host,
            _ => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if is_digits(port) => host,
        _ => authority,
    }
}

fn is_digits(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit())
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1" || host == "::1"
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderMap;
    use axum::http::header::{HOST, ORIGIN};

    use super::*;

    fn check(p: &HostPolicy, headers: &HeaderMap) -> Result<(), String> {
        p.check(&Uri::from_static("/mcp"), &Decisive::of(headers))
    }

    fn with(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(HOST, host.parse().expect("header"));
        if let Some(o) = origin {
            h.insert(ORIGIN, o.parse().expect("header"));
        }
        h
    }

    #[test]
    fn loopback_passes_and_foreign_fails() {
        let p = HostPolicy::default();
        assert!(check(&p, &with("127.0.0.1:8080", None)).is_ok());
        assert!(check(&p, &with("[::1]:1", Some("http://localhost:3000"))).is_ok());
        assert!(check(&p, &with("localhost", Some("https://127.0.0.1"))).is_ok());
        assert!(check(&p, &with("evil.example.com", None)).is_err());
        assert!(check(&p, &with("localhost:1", Some("http://evil.example.com"))).is_err());
        assert!(check(&p, &with("localhost.evil.com", None)).is_err());
        assert!(check(&p, &with("localhost", Some("null"))).is_err());
    }

    #[test]
    fn configured_names_pass() {
        let p = HostPolicy {
            hosts: vec!["api.example.com".into()],
            origins: vec!["https://app.example.com".into()],
            ..HostPolicy::default()
        };
        assert!(
            check(
                &p,
                &with("api.example.com:443", Some("https://app.example.com"))
            )
            .is_ok()
        );
    }

    #[test]
    fn text_after_a_bracketed_address_is_not_a_port() {
        assert_eq!(strip_port("[::1]:8080"), "::1");
        assert_eq!(strip_port("[::1]"), "::1");
        assert_eq!(strip_port("[::1]evil.com"), "[::1]evil.com");
        assert_eq!(strip_port("[::1]:80x"), "[::1]:80x");
        let p = HostPolicy::default();
        let mut headers = HeaderMap::new();
        headers.insert(HOST, "[::1]evil.com".parse().expect("header"));
        assert!(check(&p, &headers).is_err());
    }

    #[test]
    fn the_target_of_an_absolute_form_request_must_pass_too() {
        let p = HostPolicy::default();
        let mut headers = HeaderMap::new();
        headers.insert(HOST, "localhost".parse().expect("header"));
        let foreign = Uri::from_static("http://evil.example.com/mcp");
        assert!(p.check(&foreign, &Decisive::of(&headers)).is_err());
        let local = Uri::from_static("http://127.0.0.1:8000/mcp");
        assert!(p.check(&local, &Decisive::of(&headers)).is_ok());
        // HTTP/2 names the host only in the target.
        assert!(p.check(&local, &Decisive::of(&HeaderMap::new())).is_ok());
    }

    #[test]
    fn no_host_at_all_and_either_header_twice_are_refused() {
        let p = HostPolicy::default();
        assert!(check(&p, &HeaderMap::new()).is_err());
        let mut twice = HeaderMap::new();
        twice.append(HOST, "localhost".parse().expect("header"));
        twice.append(HOST, "evil.example.com".parse().expect("header"));
        assert!(check(&p, &twice).is_err());
        let mut origins = HeaderMap::new();
        origins.insert(HOST, "localhost".parse().expect("header"));
        origins.append(ORIGIN, "http://localhost".parse().expect("header"));
        origins.append(ORIGIN, "https://evil.example.com".parse().expect("header"));
        assert!(check(&p, &origins).is_err());
    }
}
