//! DNS-rebinding protection: a browser page on a hostile origin can make a victim's browser
//! talk to a server on their loopback interface, so only loopback hosts and origins pass unless
//! the deployer names others.

use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};

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
    /// `Err` carries what to log; the client only learns "forbidden".
    pub fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        if !self.enabled {
            return Ok(());
        }
        if let Some(host) = headers.get(HOST) {
            let host = host.to_str().map_err(|_| "unreadable Host".to_owned())?;
            if !self.host_allowed(host) {
                return Err(format!("Host {host:?} is not allowed"));
            }
        }
        if let Some(origin) = headers.get(ORIGIN) {
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

/// `host:port`, `[v6]:port` or a bare host → the host.
fn strip_port(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1" || host == "::1"
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(p.check(&with("127.0.0.1:8080", None)).is_ok());
        assert!(
            p.check(&with("[::1]:1", Some("http://localhost:3000")))
                .is_ok()
        );
        assert!(
            p.check(&with("localhost", Some("https://127.0.0.1")))
                .is_ok()
        );
        assert!(p.check(&with("evil.example.com", None)).is_err());
        assert!(
            p.check(&with("localhost:1", Some("http://evil.example.com")))
                .is_err()
        );
        assert!(p.check(&with("localhost.evil.com", None)).is_err());
        assert!(p.check(&with("localhost", Some("null"))).is_err());
    }

    #[test]
    fn configured_names_pass() {
        let p = HostPolicy {
            hosts: vec!["api.example.com".into()],
            origins: vec!["https://app.example.com".into()],
            ..HostPolicy::default()
        };
        assert!(
            p.check(&with(
                "api.example.com:443",
                Some("https://app.example.com")
            ))
            .is_ok()
        );
    }
}
