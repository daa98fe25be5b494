//! The resources a 2025-11-25 session is subscribed to for its listens: each subscribed once
//! while any listen watches it, and unsubscribed when the last one stops.
//!
//! Subscribing and unsubscribing take turns, each waiting for the server's answer, so a
//! listen opening while another closes never sees its subscription undone by an unsubscribe
//! that overtook it (over HTTP every message is a POST of its own, and POSTs race).

use std::collections::HashMap;

use serde_json::Value;
use tokio::sync::Mutex;

use crate::protocol::{SubscribeParams, methods};

use super::ClientError;
use super::connection::Connection;

/// How many open listens watch each subscribed resource.
#[derive(Default)]
pub(super) struct ResourceSubscriptions(Mutex<HashMap<String, usize>>);

impl ResourceSubscriptions {
    /// Counts one more listen watching each of `uris`, subscribing to those none watched. On
    /// a refusal nothing changes: the ones this call subscribed to are unsubscribed again.
    pub async fn acquire(
        &self,
        connection: &Connection,
        uris: &[String],
    ) -> Result<(), ClientError> {
        let mut watched = self.0.lock().await;
        let mut subscribed = Vec::new();
        for uri in uris.iter().filter(|uri| !watched.contains_key(*uri)) {
            if let Err(refused) = set(connection, methods::RESOURCES_SUBSCRIBE, uri).await {
                for uri in subscribed {
                    let _ = set(connection, methods::RESOURCES_UNSUBSCRIBE, uri).await;
                }
                return Err(refused);
            }
            subscribed.push(uri);
        }
        for uri in uris {
            *watched.entry(uri.clone()).or_default() += 1;
        }
        Ok(())
    }

    /// Counts one listen fewer watching each of `uris`, unsubscribing from those none
    /// watches any more.
    pub async fn release(&self, connection: &Connection, uris: Vec<String>) {
        let mut watched = self.0.lock().await;
        for uri in uris {
            let Some(count) = watched.get_mut(&uri) else {
                continue;
            };
            *count -= 1;
            if *count == 0 {
                watched.remove(&uri);
                if let Err(error) = set(connection, methods::RESOURCES_UNSUBSCRIBE, &uri).await {
                    tracing::debug!(%uri, %error, "unsubscribing failed");
                }
            }
        }
    }
}

async fn set(connection: &Connection, method: &str, uri: &str) -> Result<(), ClientError> {
    let params = SubscribeParams {
        uri: uri.to_owned(),
    };
    let _: Value = connection.request(method, &params).await?;
    Ok(())
}
