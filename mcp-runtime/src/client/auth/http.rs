//! The OAuth client's HTTP: JSON documents fetched and posted, and the `oauth2` crate's
//! requests, all through the transport's one [`fetch`].

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response};
use serde::de::DeserializeOwned;
use url::Url;

use crate::transport::http_client::Builder;
use crate::transport::http_client::fetch::fetch;
use crate::transport::http_client::stack::HttpStack;

use super::AuthError;
use super::dpop::{DPOP, DpopKey};

/// The connections `attached` holds: an endpoint's, lent when it was connected, or else (an
/// OAuth client used on its own) a set with the defaults, made once.
pub(crate) fn connections(attached: &OnceLock<HttpStack>) -> Result<&HttpStack, AuthError> {
    if let Some(stack) = attached.get() {
        return Ok(stack);
    }
    let stack = HttpStack::new(&Builder::new(String::new())).map_err(|e| AuthError::Http {
        url: String::new(),
        reason: e.to_string(),
    })?;
    Ok(attached.get_or_init(|| stack))
}

/// Sends one request; a failure to talk to the server is [`AuthError::Http`].
pub(crate) async fn send(
    stack: &HttpStack,
    request: Request<Full<Bytes>>,
) -> Result<Response<Bytes>, AuthError> {
    let url = request.uri().to_string();
    fetch(stack, request)
        .await
        .map_err(|reason| AuthError::Http { url, reason })
}

/// `GET url` for a JSON document: `None` when the server has none there (any status but
/// `200`), an error when it cannot be reached or what it sent is not the document.
pub(crate) async fn get_json<T: DeserializeOwned>(
    stack: &HttpStack,
    url: &Url,
) -> Result<Option<T>, AuthError> {
    let request = Request::get(url.as_str())
        .header(ACCEPT, "application/json")
        .body(Full::default())
        .map_err(|e| invalid(url, e))?;
    let response = send(stack, request).await?;
    if response.status() != hyper::StatusCode::OK {
        return Ok(None);
    }
    serde_json::from_slice(response.body())
        .map(Some)
        .map_err(|e| AuthError::Document {
            url: url.to_string(),
            reason: e.to_string(),
        })
}

/// `POST url` with a JSON body; the status and the answer's bytes.
pub(crate) async fn post_json(
    stack: &HttpStack,
    url: &Url,
    body: &serde_json::Value,
) -> Result<Response<Bytes>, AuthError> {
    let request = Request::builder()
        .method(Method::POST)
        .uri(url.as_str())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| invalid(url, e))?;
    send(stack, request).await
}

fn invalid(url: &Url, e: impl std::fmt::Display) -> AuthError {
    AuthError::InvalidUrl {
        url: url.to_string(),
        reason: e.to_string(),
    }
}

/// The `oauth2` crate's HTTP client: its token requests go through [`fetch`] too, each with a
/// DPoP proof when the client holds a [`DpopKey`] for this authorization server.
pub(crate) struct OAuthHttp {
    pub stack: HttpStack,
    pub dpop: Option<Arc<DpopKey>>,
}

/// An exchange with the token endpoint failed below OAuth.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ExchangeFailed(String);

impl<'c> oauth2::AsyncHttpClient<'c> for OAuthHttp {
    type Error = ExchangeFailed;
    type Future =
        Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, ExchangeFailed>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = Bytes::from(body);
            let Some(dpop) = &self.dpop else {
                let response = fetch(&self.stack, Request::from_parts(parts, Full::new(body)))
                    .await
                    .map_err(ExchangeFailed)?;
                return Ok(into_oauth2(response));
            };
            let url = parts.uri.to_string();
            // RFC 9449 §8: a server that wants a nonce refuses the first proof with one;
            // the request goes again, once, with a new proof that carries it.
            let mut retried = false;
            loop {
                let proof = dpop
                    .proof(parts.method.as_str(), &url, None)
                    .map_err(|e| ExchangeFailed(e.to_string()))?;
                let mut request = Request::from_parts(parts.clone(), Full::new(body.clone()));
                let proof = HeaderValue::from_str(&proof)
                    .map_err(|_| ExchangeFailed("a DPoP proof unfit for a header".to_owned()))?;
                request.headers_mut().insert(DPOP, proof);
                let response = fetch(&self.stack, request).await.map_err(ExchangeFailed)?;
                let new_nonce = dpop.observe(&url, response.headers());
                if !retried && new_nonce && asks_for_nonce(&response) {
                    retried = true;
                    continue;
                }
                return Ok(into_oauth2(response));
            }
        })
    }
}

fn into_oauth2(response: Response<Bytes>) -> oauth2::HttpResponse {
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, body.to_vec())
}

/// Whether a token endpoint's answer is `400` with `error: use_dpop_nonce`.
fn asks_for_nonce(response: &Response<Bytes>) -> bool {
    #[derive(serde::Deserialize)]
    struct Refusal {
        error: String,
    }
    response.status() == hyper::StatusCode::BAD_REQUEST
        && serde_json::from_slice::<Refusal>(response.body())
            .is_ok_and(|r| r.error == "use_dpop_nonce")
}
