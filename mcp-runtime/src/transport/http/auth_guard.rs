//! The endpoint as an OAuth 2.1 resource server: the access token of every request
//! (`Authorization` header only, RFC 6750 §2.1; OAuth 2.1 forbids tokens in the query), as a
//! bearer token or as a DPoP-bound token with its proof in the `DPoP` header (RFC 9449 §7.1),
//! the `401`/`403`/`503` answers with their `WWW-Authenticate` challenges, and the RFC 9728
//! metadata document.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::Response;
use serde_json::json;

use crate::auth::{Admission, Credentials, Identity, Refusal, ResourceServer, Scheme};

use super::respond::{self, InsufficientScope};

/// Where a client finds the server nonce for its next DPoP proof (RFC 9449 §8.1).
const DPOP_NONCE: HeaderName = HeaderName::from_static("dpop-nonce");

/// A [`ResourceServer`] with its challenges prepared once, not per refused request.
#[derive(Debug)]
pub(super) struct AuthGuard {
    server: ResourceServer,
    /// The challenge of each scheme the endpoint takes, first the one it prefers.
    schemes: Vec<SchemeChallenge>,
    /// The RFC 9728 document, serialized.
    metadata: Bytes,
}

/// A request let through: its caller, and the headers its answer carries.
#[derive(Debug)]
pub(super) struct Admitted {
    pub identity: Arc<Identity>,
    /// A fresh server nonce for the client's next DPoP proof.
    dpop_nonce: Option<HeaderValue>,
}

impl Admitted {
    /// `response`, with what an admitted request's answer carries.
    pub fn answer(&self, mut response: Response) -> Response {
        if let Some(nonce) = &self.dpop_nonce {
            response.headers_mut().insert(DPOP_NONCE, nonce.clone());
        }
        response
    }
}

/// One scheme's `WWW-Authenticate` challenge, without its error code.
#[derive(Debug)]
struct SchemeChallenge {
    scheme: Scheme,
    /// `scope="…", resource_metadata="…"[, algs="…"]`.
    params: String,
}

impl SchemeChallenge {
    fn header(&self, error: Option<&str>) -> HeaderValue {
        let name = match self.scheme {
            Scheme::Bearer => "Bearer",
            Scheme::Dpop => "DPoP",
        };
        let value = match error {
            Some(error) => format!("{name} error=\"{error}\", {}", self.params),
            None => format!("{name} {}", self.params),
        };
        // The parameters were checked when prepared and error codes are plain tokens.
        HeaderValue::try_from(value).unwrap_or_else(|_| HeaderValue::from_static(name))
    }
}

impl AuthGuard {
    pub fn new(server: ResourceServer) -> Self {
        let metadata = serde_json::to_vec(server.metadata())
            .map(Bytes::from)
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "cannot serialize the protected-resource metadata");
                Bytes::from_static(b"{}")
            });
        let common = challenge_params(&server);
        let mut schemes = Vec::with_capacity(2);
        if server.takes_bearer() {
            schemes.push(SchemeChallenge {
                scheme: Scheme::Bearer,
                params: common.clone(),
            });
        }
        if let Some(algs) = server.dpop_algs() {
            schemes.push(SchemeChallenge {
                scheme: Scheme::Dpop,
                params: format!("{common}, algs=\"{algs}\""),
            });
        }
        Self {
            schemes,
            metadata,
            server,
        }
    }

    /// The verified caller of a request with `method` and `headers`, or the response that
    /// refuses it.
    pub async fn authenticate(
        &self,
        method: &Method,
        headers: &HeaderMap,
    ) -> Result<Admitted, Response> {
        let token = match presented_token(headers) {
            Ok(token) => token,
            Err(reason) => {
                tracing::info!(reason, "refused a malformed Authorization header");
                // Whatever scheme it claims, the answer names one the endpoint takes.
                let preferred = self.schemes.first().map_or(Scheme::Bearer, |c| c.scheme);
                return Err(self.refuse(Refusal::Invalid(preferred)));
            }
        };
        // Only a DPoP proof names the method.
        #[cfg(not(feature = "jwt"))]
        let _ = method;
        let credentials = Credentials {
            token,
            #[cfg(feature = "jwt")]
            proof: dpop_proof(headers),
            #[cfg(feature = "jwt")]
            method: method.as_str(),
        };
        match self.server.authenticate(credentials).await {
            Ok(Admission {
                identity,
                dpop_nonce,
            }) => Ok(Admitted {
                identity: Arc::new(identity),
                dpop_nonce: dpop_nonce.and_then(|nonce| HeaderValue::try_from(nonce).ok()),
            }),
            Err(refusal) => Err(self.refuse(refusal)),
        }
    }

    /// `response`, if it refuses `caller` for scopes its token lacks, with the challenge
    /// that says which (RFC 6750 §3.1): every scope the request needs, the endpoint's own and
    /// the tool's, in the scheme the caller used, so one step-up authorization is enough.
    pub fn step_up(&self, mut response: Response, caller: &Identity) -> Response {
        let Some(InsufficientScope(needed)) = response.extensions_mut().remove() else {
            return response;
        };
        let mut scopes = self.server.required_scopes().to_vec();
        for scope in needed {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        let (name, algs) = match (caller.jkt.is_some(), self.server.dpop_algs()) {
            (true, Some(algs)) => ("DPoP", format!(", algs=\"{algs}\"")),
            _ => ("Bearer", String::new()),
        };
        let challenge = format!(
            "{name} error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\"{algs}",
            quoted(&scopes.join(" ")),
            self.server.metadata_url()
        );
        match HeaderValue::try_from(challenge) {
            Ok(value) => {
                response.headers_mut().append(WWW_AUTHENTICATE, value);
            }
            Err(_) => tracing::warn!("a required scope cannot be written into WWW-Authenticate"),
        }
        response
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
        match refusal {
            Refusal::Missing => self.challenge(
                StatusCode::UNAUTHORIZED,
                None,
                "unauthorized",
                "This endpoint requires an OAuth access token",
            ),
            Refusal::Invalid(scheme) => self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(scheme),
                "invalid_token",
                "The access token is invalid or expired",
            ),
            Refusal::InsufficientScope(scheme) => self.challenge(
                StatusCode::FORBIDDEN,
                Some(scheme),
                "insufficient_scope",
                "The access token lacks a required scope",
            ),
            #[cfg(feature = "jwt")]
            Refusal::InvalidProof => self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(Scheme::Dpop),
                "invalid_dpop_proof",
                "The DPoP proof is missing or invalid",
            ),
            #[cfg(feature = "jwt")]
            Refusal::NonceNeeded(fresh) => {
                let mut response = self.challenge(
                    StatusCode::UNAUTHORIZED,
                    Some(Scheme::Dpop),
                    "use_dpop_nonce",
                    "The DPoP proof must carry the nonce of the DPoP-Nonce header",
                );
                if let Ok(nonce) = HeaderValue::try_from(fresh) {
                    response.headers_mut().insert(DPOP_NONCE, nonce);
                }
                response
            }
            // Not a 401: the token may be fine, and a client told otherwise would discard it.
            Refusal::Unavailable => {
                let body = json!({"error": "temporarily_unavailable",
                    "error_description": "The access token cannot be verified right now; try again later"});
                respond::json_with_status(body.to_string(), StatusCode::SERVICE_UNAVAILABLE)
            }
        }
    }

    /// A refusal with `status` and the challenges of every scheme the endpoint takes: first
    /// that of `blamed`, the scheme the request used, with the `error` code.
    fn challenge(
        &self,
        status: StatusCode,
        blamed: Option<Scheme>,
        error: &str,
        description: &str,
    ) -> Response {
        let body = json!({"error": error, "error_description": description}).to_string();
        let mut response = respond::json_with_status(body, status);
        let headers = response.headers_mut();
        let (used, others): (Vec<_>, Vec<_>) = self
            .schemes
            .iter()
            .partition(|challenge| blamed == Some(challenge.scheme));
        for challenge in used {
            headers.append(WWW_AUTHENTICATE, challenge.header(Some(error)));
        }
        // The others follow without an error, so a client learns every scheme it could use.
        for challenge in others {
            headers.append(WWW_AUTHENTICATE, challenge.header(None));
        }
        response
    }
}

/// The token of `Authorization: Bearer <token>` or `Authorization: DPoP <token>` (scheme
/// case-insensitive, RFC 9110 §11.1), or `None` when the request carries no credentials in
/// either scheme; `Err` says what is malformed.
fn presented_token(headers: &HeaderMap) -> Result<Option<(Scheme, &str)>, &'static str> {
    let Some(value) = single(headers, &AUTHORIZATION)? else {
        return Ok(None);
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    let scheme = if scheme.eq_ignore_ascii_case("bearer") {
        Scheme::Bearer
    } else if scheme.eq_ignore_ascii_case("dpop") {
        Scheme::Dpop
    } else {
        // Other schemes (Basic, …) are not credentials this endpoint takes: as if absent.
        return Ok(None);
    };
    let token = token.trim_start_matches(' ');
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err("an access token that is empty or has spaces in it");
    }
    Ok(Some((scheme, token)))
}

/// The `DPoP` header: one proof at most (RFC 9449 §4.3).
#[cfg(feature = "jwt")]
fn dpop_proof(headers: &HeaderMap) -> Result<Option<&str>, &'static str> {
    single(headers, &HeaderName::from_static("dpop"))
}

/// The text of a header sent at most once.
fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Result<Option<&'a str>, &'static str> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("a credentials header sent more than once");
    }
    value
        .to_str()
        .map(Some)
        .map_err(|_| "an unreadable credentials header")
}

/// `[scope="…", ]resource_metadata="…"`: what every challenge says after its error code. The
/// scope is the one every request needs, so a client asks for all of it in one authorization
/// (MCP: one challenge, every scope).
fn challenge_params(server: &ResourceServer) -> String {
    let metadata = format!("resource_metadata=\"{}\"", server.metadata_url());
    if server.required_scopes().is_empty() {
        return metadata;
    }
    let with_scope = format!(
        "scope=\"{}\", {metadata}",
        quoted(&server.required_scopes().join(" "))
    );
    if HeaderValue::try_from(with_scope.as_str()).is_err() {
        // A scope with characters a header cannot carry: the challenges go without it.
        tracing::warn!("a required scope cannot be written into WWW-Authenticate");
        return metadata;
    }
    with_scope
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
    fn the_schemes_are_case_insensitive_and_other_schemes_are_no_credentials() {
        assert_eq!(presented_token(&with(&[])), Ok(None));
        assert_eq!(
            presented_token(&with(&["Bearer abc.def"])),
            Ok(Some((Scheme::Bearer, "abc.def")))
        );
        assert_eq!(
            presented_token(&with(&["bEaReR  abc"])),
            Ok(Some((Scheme::Bearer, "abc")))
        );
        assert_eq!(
            presented_token(&with(&["dpop abc"])),
            Ok(Some((Scheme::Dpop, "abc")))
        );
        assert_eq!(presented_token(&with(&["Basic dXNlcjpwdw=="])), Ok(None));
    }

    #[test]
    fn malformed_credentials_are_errors() {
        for bad in [
            &["Bearer"][..],
            &["Bearer "],
            &["Bearer a b"],
            &["DPoP "],
            &["Bearer a", "Bearer b"],
        ] {
            assert!(presented_token(&with(bad)).is_err(), "{bad:?}");
        }
    }
}
