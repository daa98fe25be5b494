//! Where grants are kept between requests and between runs: [`MemoryTokenStore`] for one run,
//! [`FileTokenStore`] so a restarted client does not make its user authorize again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::BoxError;

use super::tokens::Grant;
use crate::transport::http_client::AuthorizationFuture;

/// A store of [`Grant`]s, one per protected server (keyed by its URL).
pub trait TokenStore: Send + Sync + 'static {
    /// The grant kept for `server`, if any.
    fn load<'a>(
        &'a self,
        server: &'a str,
    ) -> AuthorizationFuture<'a, Result<Option<Grant>, StoreError>>;

    /// Keeps `grant` for `server`, replacing what was there.
    fn save<'a>(
        &'a self,
        server: &'a str,
        grant: &'a Grant,
    ) -> AuthorizationFuture<'a, Result<(), StoreError>>;
}

/// A token store failed.
#[derive(Debug, thiserror::Error)]
#[error("token store: {0}")]
pub struct StoreError(#[source] pub BoxError);

/// Grants in memory, lost when the process ends: the default.
#[derive(Debug, Default, Clone)]
pub struct MemoryTokenStore {
    grants: Arc<Mutex<HashMap<String, Grant>>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(
        &'a self,
        server: &'a str,
    ) -> AuthorizationFuture<'a, Result<Option<Grant>, StoreError>> {
        let grant = lock(&self.grants).get(server).cloned();
        Box::pin(async move { Ok(grant) })
    }

    fn save<'a>(
        &'a self,
        server: &'a str,
        grant: &'a Grant,
    ) -> AuthorizationFuture<'a, Result<(), StoreError>> {
        lock(&self.grants).insert(server.to_owned(), grant.clone());
        Box::pin(async { Ok(()) })
    }
}

/// Grants in a JSON file (an object keyed by server URL), readable by its owner only on Unix.
/// Each save writes a new file and renames it over the old one, so a crash leaves either.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    /// Saves of one process take turns, so none loses another's grant.
    writing: tokio::sync::Mutex<()>,
}

impl FileTokenStore {
    /// A store in the file at `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            writing: tokio::sync::Mutex::new(()),
        }
    }

    async fn read(&self) -> Result<HashMap<String, Grant>, StoreError> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| StoreError(e.into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(e) => Err(StoreError(e.into())),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load<'a>(
        &'a self,
        server: &'a str,
    ) -> AuthorizationFuture<'a, Result<Option<Grant>, StoreError>> {
        Box::pin(async move { Ok(self.read().await?.remove(server)) })
    }

    fn save<'a>(
        &'a self,
        server: &'a str,
        grant: &'a Grant,
    ) -> AuthorizationFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _turn = self.writing.lock().await;
            let mut grants = self.read().await?;
            grants.insert(server.to_owned(), grant.clone());
            let bytes = serde_json::to_vec_pretty(&grants).map_err(|e| StoreError(e.into()))?;
            write_private(&self.path, &bytes)
                .await
                .map_err(|e| StoreError(e.into()))
        })
    }
}

/// Writes `bytes` to a sibling of `path` that only the owner may read, then renames it.
async fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt as _;
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(&temporary).await?;
    file.write_all(bytes).await?;
    file.sync_all().await?;
    drop(file);
    tokio::fs::rename(&temporary, path).await
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is one map operation.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
