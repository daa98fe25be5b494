//! The two boxed types every layer passes around: a future that can move between threads, and
//! an error from code the runtime does not know (a custom codec, a token verifier, a hook).

use std::future::Future;
use std::pin::Pin;

/// A boxed future that can move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Any error a user-supplied piece (a [`Codec`](crate::state::Codec), a principal hook, a token
/// verifier) reports.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;
