//! The exporters' HTTP client: our hyper client, its requests run on the application's Tokio
//! runtime.
//!
//! The SDK's batch processors export from threads of their own, outside any runtime; a hyper
//! request needs one, so each export is spawned onto the runtime that installed the telemetry
//! and its answer awaited from the exporter's thread.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use opentelemetry_http::{HttpClient, HttpError};

/// The longest answer read from a collector; its answers are small status messages.
const MAX_ANSWER: usize = 1 << 20;

#[derive(Debug, Clone)]
pub(super) struct OtlpHttpClient {
    runtime: tokio::runtime::Handle,
    client: Client<HttpConnector, Full<Bytes>>,
    timeout: Duration,
}

impl OtlpHttpClient {
    /// A client whose requests run on `runtime`, each given up after `timeout`.
    pub(super) fn new(runtime: tokio::runtime::Handle, timeout: Duration) -> Self {
        let client = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
        Self {
            runtime,
            client,
            timeout,
        }
    }

    async fn send(
        client: Client<HttpConnector, Full<Bytes>>,
        request: Request<Bytes>,
    ) -> Result<Response<Bytes>, HttpError> {
        let response = client.request(request.map(Full::new)).await?;
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, MAX_ANSWER).collect().await?.to_bytes();
        Ok(Response::from_parts(parts, body))
    }
}

impl HttpClient for OtlpHttpClient {
    fn send_bytes<'life0, 'async_trait>(
        &'life0 self,
        request: Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        let client = self.client.clone();
        let timeout = self.timeout;
        let exported = self
            .runtime
            .spawn(async move { tokio::time::timeout(timeout, Self::send(client, request)).await });
        Box::pin(async move {
            match exported.await {
                Ok(Ok(answer)) => answer,
                Ok(Err(_)) => {
                    Err(format!("the collector did not answer within {timeout:?}").into())
                }
                Err(stopped) => Err(Box::new(stopped) as HttpError),
            }
        })
    }
}
