//! [`LoopbackAuthorize`]: the user's step of a client on the user's own machine (RFC 8252): the
//! authorization URL opens in the user's browser, and the authorization server's redirect comes
//! back to a listener on `127.0.0.1`.

use std::convert::Infallible;
use std::fmt;
use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::CONTENT_TYPE;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::mpsc;
use url::Url;

use crate::transport::http_client::AuthorizationFuture;

use super::AuthError;
use super::authorize::{AuthorizationResponse, Authorize};

/// How long the user has to finish signing in, by default.
pub const DEFAULT_SIGN_IN_TIME: Duration = Duration::from_secs(300);

/// How long one connection to the listener may take: a browser sends its request at once.
const CONNECTION_TIME: Duration = Duration::from_secs(10);

/// The path the redirect comes back to.
const CALLBACK_PATH: &str = "/callback";

const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Signed in</title>\
    <p>Authorization received. You can close this window and return to the application.";

/// Opens a URL for the user: their browser, by default.
type Opener = dyn Fn(&Url) -> std::io::Result<()> + Send + Sync;

/// Has the user authorize in their browser, and receives the authorization server's redirect
/// on a listener on `127.0.0.1` (RFC 8252 §7.3: a loopback redirect URI, its port the one the
/// system gave the listener).
///
/// The listener is bound when this is made, so the redirect URI it registers is known and
/// stays the same for every authorization; it takes connections only while an authorization
/// waits for its redirect. Requests for other paths (a browser's `/favicon.ico`) are answered
/// `404` and do not end the wait; the user has [`DEFAULT_SIGN_IN_TIME`] to finish, unless
/// [`sign_in_time`](Self::sign_in_time) says otherwise.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp::client::Client;
/// use mcp::client::auth::{LoopbackAuthorize, OAuth};
/// use mcp::protocol::Implementation;
/// use mcp::transport::http_client;
///
/// let oauth = OAuth::builder(LoopbackAuthorize::new()?).client_name("my-agent").build();
/// let duplex = http_client::Builder::new("https://mcp.example.com/mcp")
///     .auth(oauth)
///     .connect()?;
/// let client = Client::builder(Implementation::new("my-agent", "1.0.0")).connect(duplex);
/// // The first refused request opens the browser at the authorization server.
/// client.list_tools(None).await?;
/// # Ok(())
/// # }
/// ```
pub struct LoopbackAuthorize {
    listener: TcpListener,
    redirect_uri: String,
    open: Box<Opener>,
    sign_in_time: Duration,
}

impl fmt::Debug for LoopbackAuthorize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackAuthorize")
            .field("redirect_uri", &self.redirect_uri)
            .field("sign_in_time", &self.sign_in_time)
            .finish_non_exhaustive()
    }
}

impl LoopbackAuthorize {
    /// Listens on `127.0.0.1` at a port the system picks, and opens the user's browser.
    pub fn new() -> std::io::Result<Self> {
        Self::on_port(0)
    }

    /// Listens on `127.0.0.1:port`: for an authorization server that registered a fixed
    /// redirect URI. Port `0` lets the system pick.
    pub fn on_port(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        // Handed to tokio for each authorization.
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            open: Box::new(open_in_browser),
            sign_in_time: DEFAULT_SIGN_IN_TIME,
        })
    }

    /// Opens the authorization URL with `open` instead of the browser: to show it in the
    /// application's own window, print it for a user on another machine, or drive a test.
    pub fn open_with(
        mut self,
        open: impl Fn(&Url) -> std::io::Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.open = Box::new(open);
        self
    }

    /// How long the user has to finish signing in before the authorization fails.
    pub fn sign_in_time(mut self, limit: Duration) -> Self {
        self.sign_in_time = limit;
        self
    }

    async fn run(&self, url: &Url) -> Result<AuthorizationResponse, AuthError> {
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| failed(format!("the loopback listener: {e}")))?;
        let redirect = Url::parse(&self.redirect_uri).map_err(|e| failed(e.to_string()))?;
        (self.open)(url).map_err(|e| failed(format!("cannot open the browser: {e}")))?;
        let received = tokio::time::timeout(self.sign_in_time, redirected(listener, redirect))
            .await
            .map_err(|_| {
                failed(format!(
                    "no redirect came back within {} s",
                    self.sign_in_time.as_secs()
                ))
            })??;
        AuthorizationResponse::from_redirect(&received)
    }
}

impl Authorize for LoopbackAuthorize {
    fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    fn authorize<'a>(
        &'a self,
        url: &'a Url,
    ) -> AuthorizationFuture<'a, Result<AuthorizationResponse, AuthError>> {
        Box::pin(self.run(url))
    }
}

fn failed(reason: String) -> AuthError {
    AuthError::InvalidRedirect { reason }
}

/// Serves the listener until a request for the redirect URI's path arrives; its URL, query
/// included.
async fn redirected(listener: tokio::net::TcpListener, redirect: Url) -> Result<Url, AuthError> {
    let (arrived, mut received) = mpsc::channel::<Url>(1);
    let redirect = Arc::new(redirect);
    loop {
        let stream = tokio::select! {
            Some(url) = received.recv() => return Ok(url),
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => return Err(failed(format!("the loopback listener: {e}"))),
            },
        };
        let (arrived, redirect) = (arrived.clone(), redirect.clone());
        let service = service_fn(move |request: Request<Incoming>| {
            let answer = match request.uri().path() == redirect.path() {
                true => {
                    let mut url = (*redirect).clone();
                    url.set_query(request.uri().query());
                    // Only the first redirect counts; the wait ends with it.
                    let _ = arrived.try_send(url);
                    page(StatusCode::OK, DONE_PAGE)
                }
                false => page(StatusCode::NOT_FOUND, "Not found."),
            };
            async move { Ok::<_, Infallible>(answer) }
        });
        tokio::spawn(async move {
            let serving = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_TIME, serving).await;
        });
    }
}

fn page(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

/// Opens `url` in the user's default browser, with the platform's own launcher. The URL goes
/// as one argument, never through a shell.
fn open_in_browser(url: &Url) -> std::io::Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("rundll32");
        command.arg("url.dll,FileProtocolHandler");
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    let mut child = command
        .arg(url.as_str())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // Reaped off the caller's thread: launchers return at once, but one may linger.
    std::thread::spawn(move || child.wait());
    Ok(())
}
