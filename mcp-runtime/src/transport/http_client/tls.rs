//! `https://` for the client (feature `tls`): rustls on the ring provider, the platform's
//! verifier trusting the platform's roots and the CAs the builder added, ALPN offering HTTP/2
//! (feature `http2`) and HTTP/1.1.

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
    let connector = match options.http2_prior_knowledge {
        true => builder.enable_http2().wrap_connector(connector),
        false => builder.enable_all_versions().wrap_connector(connector),
    };
    #[cfg(not(feature = "http2"))]
    let connector = builder.enable_http1().wrap_connector(connector);
    Ok(connector)
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
