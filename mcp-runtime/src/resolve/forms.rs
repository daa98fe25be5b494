//! Each form type's schema, built once per process: a call that asks (or checks an answer)
//! reads it from here instead of assembling JSON on every round.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde_json::Value;

use crate::protocol::Frozen;
use crate::protocol::canonical::write_value;

use super::elicitation::Elicitation;
use super::ledger::{QuestionDigest, form_digest};

/// A form's `requestedSchema`, and its canonical JSON for question digests.
#[derive(Debug)]
pub(crate) struct Form {
    pub schema: Frozen<Value>,
    pub canonical: String,
    /// The last question asked with this form and its digest: a tool asks the same
    /// question on every call, and hashing the schema again each round is wasted work.
    last_digest: Mutex<Option<(String, QuestionDigest)>>,
}

impl Form {
    pub fn new(schema: Value) -> Self {
        let mut canonical = String::new();
        write_value(&mut canonical, &schema, true);
        Self {
            schema: Frozen::new(schema),
            canonical,
            last_digest: Mutex::default(),
        }
    }

    /// [`form_digest`] of `message` asked with this form.
    pub fn question_digest(&self, message: &str) -> QuestionDigest {
        // `try_lock`: a call that would wait computes the digest instead.
        if let Ok(last) = self.last_digest.try_lock()
            && let Some((asked, digest)) = last.as_ref()
            && asked == message
        {
            return *digest;
        }
        let digest = form_digest(message, self);
        if let Ok(mut last) = self.last_digest.try_lock() {
            *last = Some((message.to_owned(), digest));
        }
        digest
    }
}

/// The form of `T`, built on first use.
pub(crate) fn form<T: Elicitation + 'static>() -> Arc<Form> {
    // Keyed by type rather than a static in each impl: a hand-written `Elicitation` may be
    // generic, and a static inside a generic impl is shared by every instantiation.
    static FORMS: OnceLock<RwLock<HashMap<TypeId, Arc<Form>>>> = OnceLock::new();
    let forms = FORMS.get_or_init(RwLock::default);
    let key = TypeId::of::<T>();
    if let Some(form) = forms.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return form.clone();
    }
    let form = Arc::new(Form::new(T::requested_schema()));
    forms
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(form)
        .clone()
}
