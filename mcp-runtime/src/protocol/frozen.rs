//! Values that are built once and sent in many messages (the server's `serverInfo` on every
//! result, a form's schema with every question): their JSON is written the first time one is
//! sent, and each later message copies that text instead of serializing the value again.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A shared, immutable `T` with its JSON written once.
///
/// Reads as a `&T` ([`Deref`]); clones share the value and its JSON, which the first
/// serialization writes and every later one copies. Deserializing reads a `T` and writes no
/// JSON: a client that only reads what it received never pays for it.
///
/// ```
/// use mcp::protocol::{Frozen, Implementation};
///
/// let info = Frozen::new(Implementation::new("weather", "1.2.0"));
/// assert_eq!(info.name, "weather");
/// assert_eq!(
///     serde_json::to_string(&info).unwrap(),
///     r#"{"name":"weather","version":"1.2.0"}"#
/// );
/// ```
pub struct Frozen<T>(Arc<Inner<T>>);

struct Inner<T> {
    value: T,
    /// Written by the first send. `None` inside when `T` failed to serialize: it is then
    /// serialized on every send, so the failure surfaces where the message is written, as it
    /// would have without freezing.
    json: OnceLock<Option<Box<RawValue>>>,
}

impl<T> Frozen<T> {
    /// Freezes `value`.
    pub fn new(value: T) -> Self {
        Self(Arc::new(Inner {
            value,
            json: OnceLock::new(),
        }))
    }
}

impl<T> Deref for Frozen<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T> Clone for Frozen<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> From<T> for Frozen<T> {
    fn from(value: T) -> Self {
        Self::new(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for Frozen<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.value.fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Frozen<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.value == other.0.value
    }
}

impl<T: Serialize> Serialize for Frozen<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let json = self
            .0
            .json
            .get_or_init(|| serde_json::value::to_raw_value(&self.0.value).ok());
        match json {
            Some(json) => json.serialize(s),
            None => self.0.value.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Frozen<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::{Value, json};

    use super::*;

    /// Counts how often it is serialized.
    struct Counted<'a>(&'a AtomicUsize);

    impl Serialize for Counted<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.fetch_add(1, Ordering::Relaxed);
            s.serialize_str("counted")
        }
    }

    #[test]
    fn a_frozen_value_is_serialized_once_however_often_it_is_sent() {
        let count = AtomicUsize::new(0);
        let frozen = Frozen::new(Counted(&count));
        assert_eq!(count.load(Ordering::Relaxed), 0, "written when first sent");
        for _ in 0..3 {
            assert_eq!(
                serde_json::to_string(&frozen.clone()).expect("json"),
                r#""counted""#
            );
        }
        assert_eq!(count.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn its_json_is_the_values_json_in_text_and_in_a_value_tree() {
        for value in [
            json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {}}}),
            json!([1, 2.5, "x\"y", null, true]),
            json!("é\u{1F600}"),
        ] {
            let frozen = Frozen::new(value.clone());
            assert_eq!(
                serde_json::to_string(&frozen).expect("json"),
                serde_json::to_string(&value).expect("json")
            );
            assert_eq!(serde_json::to_value(&frozen).expect("value"), value);
            let read: Frozen<Value> = serde_json::from_value(value.clone()).expect("read");
            assert_eq!(*read, value);
        }
    }

    /// Fails to serialize.
    #[derive(Debug)]
    struct Unwritable;

    impl Serialize for Unwritable {
        fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("cannot be written"))
        }
    }

    #[test]
    fn a_value_that_cannot_be_written_fails_where_it_is_sent() {
        let frozen = Frozen::new(Unwritable);
        let error = serde_json::to_string(&frozen).expect_err("fails");
        assert!(error.to_string().contains("cannot be written"), "{error}");
    }
}
