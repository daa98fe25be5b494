//! `https://` for the client (feature `tls`): rustls on the ring provider, the platform's
//! verifier trusting the platform's roots and the CAs the builder added. With the feature
//! `http2`, ALPN offers HTTP/2 and HTTP/1.1; without it, ALPN offers nothing, which leaves
//! HTTP/1.1.

use std::sync::{Arc, OnceLock};

use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_platform_verifier::Verifier;

use super::HttpClientError;
use super::builder::Builder;

/// The certificates of `pem`, each checked to be usable as a root now, so a bad CA is
/// reported where it is added rather than at the first handshake.
pub(super) fn certificates_from_pem(
    pem: &[u8],
) -> Result<Vec<CertificateDer<'static>>, HttpClientError> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| HttpClientError::Certificate(e.to_string()))?;
    if certificates.is_empty() {
        return Err(HttpClientError::Certificate(
            "no CERTIFICATE block in the PEM".to_owned(),
        ));
    }
    let mut roots = RootCertStore::empty();
    for certificate in &certificates {
        roots
            .add(certificate.clone())
            .map_err(|e| HttpClientError::Certificate(e.to_string()))?;
    }
    Ok(certificates)
}

/// `connector` with TLS on top for `https://` destinations (`http://` ones pass through), as
/// `options` say: the CAs trusted besides the platform's, and HTTP/2.
pub(super) fn https<C>(
    connector: C,
    options: &Builder,
) -> Result<HttpsConnector<C>, HttpClientError> {
    // ring, not aws-lc-rs, so that building needs no cmake. rustls deprecates ring's provider
    // for lacking post-quantum key exchange (X25519MLKEM768); the classical groups remain.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = PlatformVerifier {
        extra_roots: options.root_certificates.clone(),
        provider: provider.clone(),
        loaded: OnceLock::new(),
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| HttpClientError::Tls(e.to_string()))?
        .dangerous() // a verifier of our choosing, not one that skips verification
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    let builder = HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http();
    #[cfg(feature = "http2")]
    let builder = match options.http2_prior_knowledge {
        true => builder.enable_http2(),
        false => builder.enable_all_versions(),
    };
    #[cfg(not(feature = "http2"))]
    let builder = builder.enable_http1();
    Ok(builder.wrap_connector(connector))
}

/// The platform's verifier, made at the first handshake rather than with the connection:
/// loading the platform's roots reads the certificate store and fails on a system without
/// one, which a client that only speaks plain `http://` should neither pay for nor see. An
/// `https://` request then fails with the reason.
#[derive(Debug)]
struct PlatformVerifier {
    extra_roots: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
    loaded: OnceLock<Result<Verifier, rustls::Error>>,
}

impl PlatformVerifier {
    fn verifier(&self) -> Result<&Verifier, rustls::Error> {
        self.loaded
            .get_or_init(|| {
                let roots = self.extra_roots.iter().cloned();
                Verifier::new_with_extra_roots(roots, self.provider.clone())
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for PlatformVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        match self.verifier() {
            Ok(verifier) => verifier.supported_verify_schemes(),
            // The handshake fails at the certificate anyway, with the reason.
            Err(_) => self
                .provider
                .signature_verification_algorithms
                .supported_schemes(),
        }
    }
}

/// Without the feature `http2` (as `cargo test -p mcp-runtime` builds; the workspace's tests
/// turn it on, and test HTTP/2 in `tests/it/client_tls.rs`).
#[cfg(all(test, not(feature = "http2")))]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;

    use http_body_util::Full;
    use hyper::Request;
    use hyper::body::Bytes;
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    use rustls::{ServerConfig, ServerConnection, StreamOwned};

    use super::*;
    use crate::transport::http_client::stack::HttpStack;

    /// A CA's certificate (PEM), and a server's configuration with a certificate it signs for
    /// 127.0.0.1, offering HTTP/2 before HTTP/1.1.
    fn ca_and_server() -> (String, ServerConfig) {
        let ca_key = KeyPair::generate().expect("a CA key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_pem = ca.self_signed(&ca_key).expect("a CA certificate").pem();
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().expect("a server key");
        let params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).expect("parameters");
        let certificate = params.signed_by(&key, &issuer).expect("signed");
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(vec![certificate.der().clone()], key)
            .expect("a server configuration");
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        (ca_pem, config)
    }

    #[tokio::test]
    async fn the_client_speaks_http1_to_a_server_that_prefers_http2() {
        let (ca_pem, config) = ca_and_server();
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!(
            "https://127.0.0.1:{}/mcp",
            listener.local_addr().expect("bound").port()
        );
        let server = std::thread::spawn(move || {
            let (tcp, _) = listener.accept().expect("a connection");
            let connection = ServerConnection::new(Arc::new(config)).expect("a TLS session");
            let mut tls = StreamOwned::new(connection, tcp);
            let mut head = [0u8; 1024];
            let read = tls.read(&mut head).expect("the request");
            tls.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                .expect("the response");
            let alpn = tls.conn.alpn_protocol().map(<[u8]>::to_vec);
            (alpn, String::from_utf8_lossy(&head[..read]).into_owned())
        });
        let options = Builder::new(url.clone())
            .no_proxy()
            .add_root_certificate_pem(ca_pem.as_bytes())
            .expect("the CA");
        let stack = HttpStack::new(&options).expect("the client's connections");
        let request = Request::post(url)
            .body(Full::new(Bytes::from_static(b"{}")))
            .expect("a request");
        let response = stack.send(request).await.expect("an answer");
        assert_eq!(response.status(), 204);
        let (alpn, head) = server.join().expect("the server");
        // The server takes HTTP/2 whenever it is offered: the client offered no protocol at
        // all, which leaves HTTP/1.1.
        assert_eq!(alpn, None);
        assert!(head.starts_with("POST /mcp HTTP/1.1\r\n"), "{head}");
    }
}
