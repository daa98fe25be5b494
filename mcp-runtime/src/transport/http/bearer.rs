//! The endpoint as an OAuth 2.1 resource server: the bearer token of every request
//! (`Authorization` header only, RFC 6750 §2.1; OAuth 2.1 forbids tokens in the query), the
//! `401`/`403`/`503` answers with their `WWW-Authenticate` challenges, and the RFC 9728
//! metadata document.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::json;

use crate::auth::{Identity, Refusal, ResourceServer};

use super::respond;

/// A [`ResourceServer`] with its answers prepared once, not per refused request.
#[derive(Debug)]
pub(super) struct BearerGuard {
    server: ResourceServer,
    /// `401` for a request without a token: no error code (RFC 6750 §3.1).
    missing: HeaderValue,
    /// `401` for a token that failed verification.
    invalid: HeaderValue,
    /// `403` for a token without the required scopes.
    insufficient: HeaderValue,
    /// The RFC 9728 document, serialized.
    metadata: Bytes,
}

impl BearerGuard {
    pub fn new(server: ResourceServer) -> Self {
        let metadata = serde_json::to_vec(server.metadata())
            .map(Bytes::from)
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "cannot serialize the protected-resource metadata");
                Bytes::from_static(b"{}")
            });
        Self {
            missing: challenge(&server, None),
            invalid: challenge(&server, Some("invalid_token")),
            insufficient: challenge(&server, Some("insufficient_scope")),
            metadata,
            server,
        }
    }

    /// The verified caller of a request, or the response that refuses it.
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<Arc<Identity>, Response> {
        let token = match bearer_token(headers) {
            Ok(token) => token,
            Err(reason) => {
                tracing::info!(reason, "refused a malformed Authorization header");
                return Err(self.refuse(Refusal::Invalid));
            }
        };
        match self.server.authenticate(token).await {
            Ok(identity) => Ok(Arc::new(identity)),
            Err(refusal) => Err(self.refuse(refusal)),
        }
    }

    /// The metadata document: public, so clients without a token can find out how to get one.
    pub fn metadata(&self) -> Response {
        let mut response = Response::new(Body::from(self.metadata.clone()));
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }

    /// The paths the metadata is served at: the well-known path with the resource's path
    /// appended (RFC 9728 §3.1, which MCP clients try first) and the bare one (their fallback).
    pub fn metadata_paths(&self) -> Vec<String> {
        let inserted = self.server.resource_url().metadata_path();
        let mut paths = vec![crate::auth::WELL_KNOWN_PATH.to_owned()];
        if inserted != paths[0] {
            paths.push(inserted);
        }
        paths
    }

    /// The host and origin of the resource URL: the server is, by its own configuration, served
    /// there, so the DNS-rebinding protection must let them through.
    pub fn own_host_and_origin(&self) -> (&str, &str) {
        let url = self.server.resource_url();
        (&url.authority, &url.origin)
    }

    fn refuse(&self, refusal: Refusal) -> Response {
        let (status, challenge, error, description) = match refusal {
            Refusal::Missing => (
                StatusCode::UNAUTHORIZED,
                Some(&self.missing),
                "unauthorized",
                "This endpoint requires an OAuth bearer token",
            ),
            Refusal::Invalid => (
                StatusCode::UNAUTHORIZED,
                Some(&self.invalid),
                "invalid_token",
                "The access token is invalid or expired",
            ),
            Refusal::InsufficientScope => (
                StatusCode::FORBIDDEN,
                Some(&self.insufficient),
                "insufficient_scope",
                "The access token lacks a required scope",
            ),
            // Not a 401: the token may be fine, and a client told otherwise would discard it.
            Refusal::Unavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                "temporarily_unavailable",
                "The access token cannot be verified right now; try again later",
            ),
        };
        let body = json!({"error": error, "error_description": description}).to_string();
        let mut response = respond::json_with_status(body, status);
        if let Some(challenge) = challenge {
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, challenge.clone());
        }
        response
    }
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1), or
/// `None` when the request carries no bearer credentials; `Err` says what is malformed.
fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, &'static str> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("more than one Authorization header");
    }
    let value = value
        .to_str()
        .map_err(|_| "an unreadable Authorization header")?;
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Other schemes (Basic, DPoP) are not credentials this endpoint takes: as if absent.
        return Ok(None);
    }
    let token = token.trim_start_matches(' ');
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err("a bearer token that is empty or has spaces in it");
    }
    Ok(Some(token))
}

/// `Bearer [error="…", ][scope="…", ]resource_metadata="…"`. The scope is the one every request
/// needs, so a client asks for all of it in one authorization (MCP: one challenge, every scope).
fn challenge(server: &ResourceServer, error: Option<&str>) -> HeaderValue {
    let metadata = format!("resource_metadata=\"{}\"", server.metadata_url());
    let mut parts = Vec::new();
    if let Some(error) = error {
        parts.push(format!("error=\"{error}\""));
    }
    if !server.required_scopes().is_empty() {
        parts.push(format!(
            "scope=\"{}\"",
            quoted(&server.required_scopes().join(" "))
        ));
    }
    parts.push(metadata.clone());
    HeaderValue::try_from(format!("Bearer {}", parts.join(", ")))
        .or_else(|_| {
            // A scope with characters a header cannot carry: the challenge goes without it.
            tracing::warn!("a required scope cannot be written into WWW-Authenticate");
            let without_scope = match error {
                Some(error) => format!("Bearer error=\"{error}\", {metadata}"),
                None => format!("Bearer {metadata}"),
            };
            HeaderValue::try_from(without_scope)
        })
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

/// Escapes a value for an RFC 9110 quoted-string.
fn quoted(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(AUTHORIZATION, value.parse().expect("header"));
        }
        headers
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_other_schemes_are_no_credentials() {
        assert_eq!(bearer_token(&with(&[])), Ok(None));
        assert_eq!(
            bearer_token(&with(&["Bearer abc.def"])),
            Ok(Some("abc.def"))
        );
        assert_eq!(bearer_token(&with(&["bEaReR  abc"])), Ok(Some("abc")));
        assert_eq!(bearer_token(&with(&["Basic dXNlcjpwdw=="])), Ok(None));
    }

    #[test]
    fn malformed_credentials_are_errors() {
        for bad in [
            &["Bearer"][..],
            &["Bearer "],
            &["Bearer a b"],
            &["Bearer a", "Bearer b"],
        ] {
            assert!(bearer_token(&with(bad)).is_err(), "{bad:?}");
        }
    }
}
