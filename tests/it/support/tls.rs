//! HTTPS for tests: a CA made at test time, server certificates it signs for 127.0.0.1 and
//! localhost, and an MCP server served over TLS (HTTP/1.1 or HTTP/2, as ALPN settles it) or
//! over plain TCP, recording each request's HTTP version.

use std::sync::{Arc, Mutex};

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use mcp::server::Server;
use mcp::transport::http::HttpTransport;
use mcp::transport::http::axum::extract::{Request, State};
use mcp::transport::http::axum::http::Version;
use mcp::transport::http::axum::middleware::{self, Next};
use mcp::transport::http::axum::response::Response;
use rcgen::{BasicConstraints, Certificate, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_util::sync::{CancellationToken, DropGuard};

/// A certificate authority of one test.
pub struct TestCa {
    /// Its certificate, as a client would be given it.
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new(name: &str) -> Self {
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let certificate = params.self_signed(&key).expect("a CA certificate");
        Self {
            pem: certificate.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate this CA signs for 127.0.0.1 and localhost, with its key.
    pub fn server_certificate(&self) -> (Certificate, KeyPair) {
        let key = KeyPair::generate().expect("a key");
        let names = vec!["127.0.0.1".to_owned(), "localhost".to_owned()];
        let params = CertificateParams::new(names).expect("server parameters");
        let certificate = params.signed_by(&key, &self.issuer).expect("signed");
        (certificate, key)
    }

    /// A server's TLS configuration: a certificate this CA signs for 127.0.0.1 and
    /// localhost, and `alpn` offered, in order of preference.
    pub fn server_config(&self, alpn: &[&[u8]]) -> Arc<ServerConfig> {
        let (certificate, key) = self.server_certificate();
        // ring, as the client uses; rustls deprecates it only for lacking post-quantum groups.
        #[allow(deprecated)]
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS 1.2 and 1.3")
            .with_no_client_auth()
            .with_single_cert(vec![certificate.der().clone()], key)
            .expect("the key fits the certificate");
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Arc::new(config)
    }
}

/// A served MCP endpoint, stopped when dropped.
pub struct Served {
    pub url: String,
    versions: Arc<Mutex<Vec<Version>>>,
    _stop: DropGuard,
}

impl Served {
    /// The HTTP version of every request served so far.
    pub fn versions(&self) -> Vec<Version> {
        self.versions.lock().expect("not poisoned").clone()
    }
}

/// Serves `server` on a fresh loopback port, over TLS with `tls`, else over plain TCP; either
/// way HTTP/1.1 or HTTP/2, whichever the client speaks.
pub async fn serve(server: Server, tls: Option<Arc<ServerConfig>>) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let scheme = if tls.is_some() { "https" } else { "http" };
    let url = format!("{scheme}://{}/mcp", listener.local_addr().expect("address"));
    let versions = Arc::<Mutex<Vec<Version>>>::default();
    let router = HttpTransport::new(server)
        .into_router()
        .layer(middleware::from_fn_with_state(versions.clone(), record));
    let acceptor = tls.map(TlsAcceptor::from);
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                _ = stopped.cancelled() => return,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => continue,
                },
            };
            let (router, acceptor) = (router.clone(), acceptor.clone());
            tokio::spawn(async move {
                let service = TowerToHyperService::new(router);
                let http = auto::Builder::new(TokioExecutor::new());
                match acceptor {
                    Some(acceptor) => {
                        // A client that refuses the certificate ends the handshake.
                        let Ok(stream) = acceptor.accept(stream).await else {
                            return;
                        };
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                    None => {
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                }
            });
        }
    });
    Served {
        url,
        versions,
        _stop: stop.drop_guard(),
    }
}

async fn record(
    State(versions): State<Arc<Mutex<Vec<Version>>>>,
    request: Request,
    next: Next,
) -> Response {
    versions
        .lock()
        .expect("not poisoned")
        .push(request.version());
    next.run(request).await
}
