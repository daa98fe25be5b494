//! Each form type's schema, built once per process: a call that asks (or checks an answer)
//! reads it from here instead of assembling JSON on every round.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use serde_json::Value;

use crate::state::canonical::write_value;

use super::elicitation::Elicitation;

/// A form's `requestedSchema`, and its canonical JSON for question digests.
#[derive(Debug)]
pub(crate) struct Form {
    pub schema: Arc<Value>,
    pub canonical: String,
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
    let schema = T::requested_schema();
    let mut canonical = String::new();
    write_value(&mut canonical, &schema, true);
    let form = Arc::new(Form {
        schema: Arc::new(schema),
        canonical,
    });
    forms
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(form)
        .clone()
}
