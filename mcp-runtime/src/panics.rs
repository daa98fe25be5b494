//! Panics inside a request's future, caught where the future is polled: a bug in one handler
//! must not lose the request or take down the connection.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

/// Runs `fut`, turning a panic in any of its polls into `Err` with the panic's payload.
///
/// A named future rather than an `async fn`: that would hold `fut` twice over (as its
/// argument and as the pinned local it polls), and request futures are kilobytes.
pub(crate) fn catch_panics<F: Future>(fut: F) -> CatchPanics<F> {
    CatchPanics { fut }
}

pin_project! {
    /// The future of [`catch_panics`].
    pub(crate) struct CatchPanics<F> {
        #[pin]
        fut: F,
    }
}

impl<F: Future> Future for CatchPanics<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let fut = self.project().fut;
        match catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}
