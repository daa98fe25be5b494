//! Collecting errors so one expansion reports every mistake at once, each at its own tokens.
//!
//! An [`Errors`] must be consumed by [`Errors::finish`], the one exit of every expansion: a
//! collector dropped unchecked panics, so a path that forgets to report (and would silently
//! generate code from a model with mistakes in it) fails loudly in the tests instead.

use std::fmt::Display;

use quote::ToTokens;

/// Errors found so far, each with its own span.
pub struct Errors {
    errors: Option<syn::Error>,
    finished: bool,
}

impl Errors {
    pub fn new() -> Self {
        Self {
            errors: None,
            finished: false,
        }
    }

    /// Records an error spanned on `tokens`.
    pub fn at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn at_span(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an error (which may already combine several).
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(error),
            None => self.errors = Some(error),
        }
    }

    /// Everything recorded, combined; `Ok` when nothing was.
    pub fn finish(mut self) -> Result<(), syn::Error> {
        self.finished = true;
        self.errors.take().map_or(Ok(()), Err)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        // A second panic while unwinding would abort and hide the first.
        if !self.finished && !std::thread::panicking() {
            panic!(
                "mcp-macros: an expansion ended without reporting its errors (`Errors::finish`)"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Errors;

    #[test]
    fn finishing_reports_everything_once() {
        let mut errors = Errors::new();
        errors.at_span(proc_macro2::Span::call_site(), "one");
        errors.at_span(proc_macro2::Span::call_site(), "two");
        let combined = errors.finish().expect_err("two errors");
        assert_eq!(combined.into_iter().count(), 2);
        assert!(Errors::new().finish().is_ok());
    }

    #[test]
    #[should_panic(expected = "without reporting its errors")]
    fn an_unfinished_collector_is_a_bug() {
        let mut errors = Errors::new();
        errors.at_span(proc_macro2::Span::call_site(), "forgotten");
        drop(errors);
    }
}
