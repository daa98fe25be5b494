//! A tiny HTTP proxy for tests: `CONNECT` tunnels and absolute-form requests, each connection
//! piped to the loopback address its first request names. It records that first request of
//! every connection it forwarded, to show that traffic went through it and how.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::{CancellationToken, DropGuard};

/// The first request of a forwarded connection.
#[derive(Clone, Debug)]
pub struct Forwarded {
    /// `CONNECT 127.0.0.1:1234 HTTP/1.1`, or `POST http://127.0.0.1:1234/mcp HTTP/1.1`.
    pub request_line: String,
    /// Its `Proxy-Authorization` header, if any.
    pub authorization: Option<String>,
}

/// A running proxy, stopped when dropped.
pub struct Proxy {
    /// `http://127.0.0.1:port`.
    pub url: String,
    forwarded: Arc<Mutex<Vec<Forwarded>>>,
    _stop: DropGuard,
}

impl Proxy {
    /// The connections forwarded so far.
    pub fn forwarded(&self) -> Vec<Forwarded> {
        self.forwarded.lock().expect("not poisoned").clone()
    }
}

/// A proxy on a fresh loopback port.
pub async fn start() -> Proxy {
    start_on(TcpListener::bind("127.0.0.1:0").await.expect("bind"))
}

/// A proxy on `listener`.
pub fn start_on(listener: TcpListener) -> Proxy {
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let forwarded = Arc::<Mutex<Vec<Forwarded>>>::default();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let log = forwarded.clone();
    tokio::spawn(async move {
        loop {
            let client = tokio::select! {
                _ = stopped.cancelled() => return,
                accepted = listener.accept() => match accepted {
                    Ok((client, _)) => client,
                    Err(_) => continue,
                },
            };
            tokio::spawn(forward(client, log.clone()));
        }
    });
    Proxy {
        url,
        forwarded,
        _stop: stop.drop_guard(),
    }
}

async fn forward(mut client: TcpStream, log: Arc<Mutex<Vec<Forwarded>>>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match client.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > 64 * 1024 {
            return;
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let request_line = text.lines().next().unwrap_or_default().to_owned();
    let authorization = text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("proxy-authorization")
            .then(|| value.trim().to_owned())
    });
    let mut parts = request_line.split(' ');
    let (method, target) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let tunnel = method == "CONNECT";
    let authority = match tunnel {
        true => target,
        false => target
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default(),
    };
    // Tests serve on loopback only, and so does this proxy.
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host);
    if !matches!(host, "127.0.0.1" | "localhost") {
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    }
    let Ok(mut upstream) = TcpStream::connect(authority).await else {
        let _ = client
            .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    };
    log.lock().expect("not poisoned").push(Forwarded {
        request_line,
        authorization,
    });
    let opened = match tunnel {
        true => {
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await
        }
        // The request goes on as it came, absolute form and all: servers take it.
        false => upstream.write_all(&head).await,
    };
    if opened.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    }
}
