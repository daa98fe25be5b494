//! Why a task store refused or failed an operation.

use crate::boxed::BoxError;

use super::TaskStatus;

/// What a [`TaskStore`](super::TaskStore) operation fails with.
///
/// A task that does not exist and a task that belongs to another owner are the same
/// [`NotFound`](Self::NotFound): a caller cannot learn that someone else's task exists.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// No task with this id for this owner: never made, expired, or someone else's.
    #[error("task not found")]
    NotFound,
    /// The task already reached a terminal status, which is final: the transition was
    /// refused and nothing changed.
    #[error("the task already ended ({0})")]
    Finished(TaskStatus),
    /// An input request reuses a key the task used before for another request, or one that
    /// was already answered: each key names one request over the task's whole life.
    #[error("the input request key {0:?} was used before in this task")]
    KeyReused(String),
    /// `input_required` with no input request: there would be nothing to answer.
    #[error("input_required needs at least one input request")]
    NoInputRequests,
    /// The owner already holds as many tasks as one owner may
    /// ([`TaskLimits::per_owner`](super::TaskLimits::per_owner)), running or finished and
    /// not yet expired.
    #[error("this owner already holds {limit} tasks, the most one owner may")]
    OwnerLimit {
        /// The limit.
        limit: usize,
    },
    /// The store holds as many tasks as it may
    /// ([`TaskLimits::total`](super::TaskLimits::total)).
    #[error("the task store is full ({limit} tasks)")]
    StoreFull {
        /// The limit.
        limit: usize,
    },
    /// The store could not be reached in time (connection refused or lost, no answer within
    /// the timeout). A write that failed this way may or may not have been applied.
    #[error("the task store is unavailable: {0}")]
    Unavailable(#[source] BoxError),
    /// The store answered with an error (out of memory, a permission, a script it refused).
    #[error("the task store refused the operation: {0}")]
    Backend(#[source] BoxError),
    /// A record that is not what the store writes: read back (someone else wrote to the
    /// store's keys), or about to be written (a payload that does not serialize).
    #[error("malformed task record: {0}")]
    Corrupt(String),
}
