//! A future polled through one function of its own, never inlined into its callers.
//!
//! The compiler inlines an `async fn`'s state machine into whatever polls it. A future polled
//! from two places (the endpoint's POST handler, from the router and directly) then becomes two
//! copies of everything it inlines in turn, and a server's resident memory is mostly its code.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

pin_project! {
    /// `inner`, polled out of line.
    pub(crate) struct Outlined<F> {
        #[pin]
        inner: F,
    }
}

impl<F> Outlined<F> {
    pub(crate) fn new(inner: F) -> Self {
        Self { inner }
    }
}

impl<F: Future> Future for Outlined<F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}
