//! Property lookup on plain objects without hashing.

use serde_json::{Map, Value};

/// Property lookup without hashing. `serde_json::Map` (an `IndexMap` with SipHash) hashes the
/// key on every `get`; transcript messages and content blocks have a handful of keys, where a
/// linear scan is several times cheaper. Same result as `get` (keys are unique).
pub trait Field {
    /// `self[key]` for an object (`None` when missing or not an object).
    fn field(&self, key: &str) -> Option<&Value>;
}

/// Objects up to this many keys are scanned instead of hashed.
const SCAN_MAX: usize = 12;

impl Field for Map<String, Value> {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCAN_MAX {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.field(key),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_equals_get_for_small_and_large_objects() {
        for n in [0usize, 1, 5, SCAN_MAX, SCAN_MAX + 1, 40] {
            let mut m = Map::new();
            for i in 0..n {
                m.insert(format!("k{i}"), Value::from(i));
            }
            let v = Value::Object(m.clone());
            for i in 0..n + 2 {
                let key = format!("k{i}");
                assert_eq!(m.field(&key), m.get(&key), "{n} keys, {key}");
                assert_eq!(v.field(&key), v.get(&key), "{n} keys, {key}");
            }
        }
        assert_eq!(Value::from("s").field("k0"), None);
    }
}
