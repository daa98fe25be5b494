//! One plain HTTP exchange outside the MCP endpoint's connections: what the OAuth client asks
//! of metadata documents, registration, authorization and token endpoints. Every such request
//! goes through [`fetch`], so a new connection layer (TLS, HTTP/2, proxies) needs to change
//! this one function.

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::header::HOST;
use hyper::{Request, Response, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// The most a metadata document or token response may hold.
const MAX_BODY: usize = 1024 * 1024;

/// How long one exchange may take, connecting included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Sends `request` (whose URI is absolute) on a connection of its own and reads the whole
/// answer. Redirects are not followed: a `3xx` is handed back as it came, since the
/// authorization step reads its `Location` and metadata must not be taken from elsewhere.
pub(crate) async fn fetch(request: Request<Full<Bytes>>) -> Result<Response<Bytes>, String> {
    tokio::time::timeout(TIMEOUT, exchange(request))
        .await
        .map_err(|_| format!("no answer within {} s", TIMEOUT.as_secs()))?
}

async fn exchange(request: Request<Full<Bytes>>) -> Result<Response<Bytes>, String> {
    let (mut parts, body) = request.into_parts();
    let uri = parts.uri.clone();
    match uri.scheme_str() {
        Some("http") => {}
        other => {
            return Err(format!(
                "only http:// URLs can be fetched (got {})",
                other.unwrap_or("no scheme")
            ));
        }
    }
    let authority = uri
        .authority()
        .ok_or_else(|| format!("no host in {uri}"))?
        .clone();
    let address = match authority.port_u16() {
        Some(_) => authority.as_str().to_owned(),
        None => format!("{}:80", authority.host()),
    };
    let stream = TcpStream::connect(&address)
        .await
        .map_err(|e| format!("cannot connect to {address}: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    // HTTP/1.1 wants the origin form on the request line and the authority in `Host`.
    parts.uri = uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse::<Uri>()
        .map_err(|e| e.to_string())?;
    if !parts.headers.contains_key(HOST) {
        let host = authority
            .as_str()
            .parse()
            .map_err(|_| format!("invalid host {authority}"))?;
        parts.headers.insert(HOST, host);
    }
    let response = sender
        .send_request(Request::from_parts(parts, body))
        .await
        .map_err(|e| e.to_string())?;
    let (parts, body) = response.into_parts();
    let body = Limited::new(body, MAX_BODY)
        .collect()
        .await
        .map_err(|e| format!("reading the answer of {uri}: {e}"))?
        .to_bytes();
    Ok(Response::from_parts(parts, body))
}
