//! Small JavaScript semantics helpers pi-forge relies on (§0.2 of the spec).

use std::cmp::Ordering;

use forge_replay_model::json::{self, is_lone_surrogate_stand_in, LONE_SURROGATE_BASE};
use forge_replay_model::text;
use serde_json::Value;

/// The UTF-16 code units of a string, mapping lone-surrogate stand-ins back to their unit.
pub(crate) fn utf16_units(s: &str) -> impl Iterator<Item = u16> + '_ {
    s.chars().flat_map(|c| {
        let mut buf = [0u16; 2];
        if is_lone_surrogate_stand_in(c) {
            buf[0] = (0xD800 + (c as u32 - LONE_SURROGATE_BASE)) as u16;
            buf[..1].to_vec()
        } else {
            c.encode_utf16(&mut buf).to_vec()
        }
    })
}

/// JavaScript's default `Array.prototype.sort()` comparison (UTF-16 code units).
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    utf16_units(a).cmp(utf16_units(b))
}

/// `String.prototype.length`.
pub fn len(s: &str) -> usize {
    text::js_len(s)
}

/// `String.prototype.trim()`.
pub fn trim(s: &str) -> &str {
    text::js_trim(s)
}

/// `/\s/.test(s)`.
pub fn has_whitespace(s: &str) -> bool {
    s.chars().any(text::is_js_whitespace)
}

pub use forge_replay_model::text::js_string;

/// Resource id grammar `^[A-Za-z0-9][A-Za-z0-9._-]*$` (ASCII only, no length limit).
pub fn is_resource_id(s: &str) -> bool {
    let mut bytes = s.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphanumeric() => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A resource id of at most 128 UTF-16 units (event ids, activation ids).
pub fn is_short_resource_id(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(s)) if !s.is_empty() && len(s) <= 128 && is_resource_id(s))
}

/// A finite number ≥ 0 (`typeof v === "number" && Number.isFinite(v) && v >= 0`).
pub fn non_negative_finite(v: Option<&Value>) -> Option<f64> {
    match v {
        Some(Value::Number(n)) => {
            let f = json::number_to_f64(n);
            (f.is_finite() && f >= 0.0).then_some(f)
        }
        _ => None,
    }
}

/// `v === 1` for a JSON value (any numeric spelling of one).
pub fn is_one(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Number(n)) if json::number_to_f64(n) == 1.0)
}

/// Whether `c` is in `[\x00-\x1F\x7F]`.
pub fn is_ascii_control(c: char) -> bool {
    (c as u32) < 0x20 || c == '\u{7f}'
}

/// pi-forge's `isValidToolName`: 1..128 units, no whitespace, no control characters, no `*`/`?`.
pub fn is_valid_tool_name(s: &str) -> bool {
    !s.is_empty()
        && len(s) <= 128
        && !has_whitespace(s)
        && !s.chars().any(is_ascii_control)
        && !s.contains(['*', '?'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_sort_puts_astral_before_ffff() {
        let mut keys = vec!["😀", "\u{ffff}", "a", "B"];
        keys.sort_by(|a, b| cmp_utf16(a, b));
        assert_eq!(keys, vec!["B", "a", "😀", "\u{ffff}"]);
    }

    #[test]
    fn js_string_matches_string_conversion() {
        assert_eq!(js_string(Some(&serde_json::json!("1"))), "1");
        assert_eq!(js_string(Some(&serde_json::json!(2.0))), "2");
        assert_eq!(js_string(Some(&serde_json::json!([1, null, "a"]))), "1,,a");
        assert_eq!(js_string(Some(&serde_json::json!({}))), "[object Object]");
        assert_eq!(js_string(None), "undefined");
    }
}
