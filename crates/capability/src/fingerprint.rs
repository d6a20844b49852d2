//! `sha256:v1:` content fingerprints over canonical JSON (spec §1.6).
//!
//! Canonical JSON: no whitespace; object keys sorted with JavaScript's default sort (UTF-16
//! code units, so an astral character sorts before U+FFFF); strings as `JSON.stringify` writes
//! them; numbers as ECMAScript `Number::toString` (`-0` → `0`, `1.0` → `1`). A `serde_json`
//! value holds no `undefined`, functions, cycles or non-finite numbers, so every value can be
//! fingerprinted.

use forge_replay_model::js::cmp_utf16;
use forge_replay_model::json;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `JSON_FINGERPRINT_PREFIX`.
pub const FINGERPRINT_PREFIX: &str = "sha256:v1:";

/// `canonicalJson(value)`.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, value);
    out
}

fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| cmp_utf16(a, b));
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json::write_string(out, k);
                out.push(':');
                write_canonical(out, &map[k]);
            }
            out.push('}');
        }
        other => json::write_compact(out, other),
    }
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(b & 15), 16).unwrap_or('0'));
    }
    hex
}

/// `fingerprintJson(value)`: `sha256:v1:` + SHA-256 of the canonical JSON's UTF-8 bytes.
///
/// Lone surrogates (held as stand-ins) are written as `\udXXX` escapes by the canonical form,
/// so the hashed bytes are always valid UTF-8, as in JavaScript.
pub fn fingerprint(value: &Value) -> String {
    format!(
        "{FINGERPRINT_PREFIX}{}",
        sha256_hex(canonical_json(value).as_bytes())
    )
}

/// `FINGERPRINT_PATTERN = /^sha256:v1:[0-9a-f]{64}$/`.
pub fn is_fingerprint(s: &str) -> bool {
    s.strip_prefix(FINGERPRINT_PREFIX).is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_utf16_units_and_numbers_are_js() {
        let v = json::parse(r#"{"😀":1,"\uffff":2,"a":3,"B":4.0,"z":-0}"#).unwrap();
        assert_eq!(
            canonical_json(&v),
            "{\"B\":4,\"a\":3,\"z\":0,\"😀\":1,\"\u{ffff}\":2}"
        );
    }

    #[test]
    fn pattern_is_exact() {
        assert!(is_fingerprint(&fingerprint(&Value::Null)));
        assert!(!is_fingerprint("sha256:v1:ABC"));
        assert!(!is_fingerprint(&format!("sha256:v1:{}", "A".repeat(64))));
    }
}
