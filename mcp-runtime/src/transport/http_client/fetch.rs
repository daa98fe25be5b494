//! One plain HTTP exchange outside the MCP endpoint's messages: what the OAuth client asks of
//! metadata documents, registration, authorization and token endpoints, over the endpoint's
//! own connections (its certificate roots, proxies and timeouts).

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::{Request, Response};

use super::stack::HttpStack;

/// The most a metadata document or token response may hold.
const MAX_BODY: usize = 1024 * 1024;

/// How long one exchange may take, connecting and reading the whole answer included: a
/// connection's own timeouts are unset by default, and an authorization server that never
/// answers must not hold a request for ever.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Sends `request` (whose URI is absolute) through `stack` and reads the whole answer.
/// Redirects are not followed: a `3xx` is handed back as it came, since the authorization step
/// reads its `Location` and metadata must not be taken from elsewhere.
pub(crate) async fn fetch(
    stack: &HttpStack,
    request: Request<Full<Bytes>>,
) -> Result<Response<Bytes>, String> {
    let uri = request.uri().clone();
    let exchange = async {
        let (parts, body) = stack.send(request).await?.into_parts();
        let body = Limited::new(body, MAX_BODY)
            .collect()
            .await
            .map_err(|e| format!("reading the answer of {uri}: {e}"))?
            .to_bytes();
        Ok(Response::from_parts(parts, body))
    };
    tokio::time::timeout(TIMEOUT, exchange)
        .await
        .map_err(|_| format!("no answer from {uri} within {} s", TIMEOUT.as_secs()))?
}
