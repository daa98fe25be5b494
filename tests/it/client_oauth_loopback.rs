//! `LoopbackAuthorize`, the user's step of a desktop client: the authorization URL goes to the
//! "browser" (here a thread that plays it over raw TCP), and the redirect comes back to the
//! listener on 127.0.0.1. Strays are answered 404 without ending the wait; a denial is an
//! error; a user who never comes back ends the wait after the sign-in time.

#![cfg(feature = "http")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mcp::client::auth::{AuthError, Authorize, LoopbackAuthorize, Url};

/// A browser visiting `paths` of `redirect_uri`'s origin in turn: each answer's status line.
fn browse(redirect_uri: &str, paths: &[&str]) -> Vec<String> {
    let origin = Url::parse(redirect_uri).expect("a redirect URI");
    let address = format!(
        "{}:{}",
        origin.host_str().expect("a host"),
        origin.port().expect("a port")
    );
    paths
        .iter()
        .map(|path| {
            let mut stream = TcpStream::connect(&address).expect("the loopback listener");
            write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").expect("send");
            let mut answer = String::new();
            stream.read_to_string(&mut answer).expect("read");
            answer.lines().next().unwrap_or_default().to_owned()
        })
        .collect()
}

/// A `LoopbackAuthorize` whose "browser" visits `paths` and reports the statuses it saw.
fn playing(
    paths: &'static [&'static str],
) -> (LoopbackAuthorize, std::sync::mpsc::Receiver<Vec<String>>) {
    let authorize = LoopbackAuthorize::new().expect("a loopback listener");
    let redirect_uri = authorize.redirect_uri().to_owned();
    let (seen, statuses) = std::sync::mpsc::channel();
    let authorize = authorize.open_with(move |_url| {
        let (redirect_uri, seen) = (redirect_uri.clone(), seen.clone());
        std::thread::spawn(move || seen.send(browse(&redirect_uri, paths)));
        Ok(())
    });
    (authorize, statuses)
}

fn authorization_url() -> Url {
    Url::parse("https://auth.example.com/authorize?client_id=c").expect("a URL")
}

#[tokio::test]
async fn the_redirect_comes_back_to_the_listener_and_strays_get_404() {
    let (authorize, statuses) = playing(&["/favicon.ico", "/callback?code=abc&state=s1&iss=x"]);
    assert!(
        authorize.redirect_uri().starts_with("http://127.0.0.1:")
            && authorize.redirect_uri().ends_with("/callback"),
        "{}",
        authorize.redirect_uri()
    );
    let response = authorize
        .authorize(&authorization_url())
        .await
        .expect("the redirect");
    assert_eq!(response.code, "abc");
    assert_eq!(response.state.as_deref(), Some("s1"));
    assert_eq!(response.iss.as_deref(), Some("x"));
    let statuses = statuses.recv().expect("the browser's statuses");
    assert!(statuses[0].contains(" 404 "), "{statuses:?}");
    assert!(statuses[1].contains(" 200 "), "{statuses:?}");

    // The same listener serves a second authorization (a step-up).
    let again = authorize.open_with(|_| Ok(()));
    let redirect_uri = again.redirect_uri().to_owned();
    std::thread::spawn(move || browse(&redirect_uri, &["/callback?code=def&state=s2"]));
    let response = again
        .authorize(&authorization_url())
        .await
        .expect("the second redirect");
    assert_eq!(response.code, "def");
}

#[tokio::test]
async fn a_denial_is_an_error() {
    let (authorize, _statuses) = playing(&["/callback?error=access_denied&state=s1"]);
    let refused = authorize.authorize(&authorization_url()).await;
    assert!(
        matches!(&refused, Err(AuthError::Denied { error, .. }) if error == "access_denied"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_user_who_never_comes_back_ends_the_wait() {
    let authorize = LoopbackAuthorize::new()
        .expect("a loopback listener")
        .sign_in_time(Duration::from_millis(200))
        .open_with(|_| Ok(()));
    let waited = authorize.authorize(&authorization_url()).await;
    assert!(
        matches!(&waited, Err(e) if e.to_string().contains("no redirect came back")),
        "{waited:?}"
    );
}

#[tokio::test]
async fn a_browser_that_cannot_open_fails_the_authorization_at_once() {
    let authorize = LoopbackAuthorize::new()
        .expect("a loopback listener")
        .open_with(|_| Err(std::io::Error::other("no display")));
    let failed = authorize.authorize(&authorization_url()).await;
    assert!(
        matches!(&failed, Err(e) if e.to_string().contains("no display")),
        "{failed:?}"
    );
}
