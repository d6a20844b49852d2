//! pi-forge's field checks (spec §1.3, §3): resource ids, tool names, schema versions and
//! timestamps, written with JavaScript's semantics from [`forge_replay_model::js`].

use forge_replay_model::js;
use forge_replay_model::json;
use serde_json::Value;

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
    matches!(v, Some(Value::String(s)) if !s.is_empty() && js::len(s) <= 128 && is_resource_id(s))
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
        && js::len(s) <= 128
        && !js::has_whitespace(s)
        && !s.chars().any(is_ascii_control)
        && !s.contains(['*', '?'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert!(is_valid_tool_name("read_file"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("a\u{feff}b"));
        assert!(is_valid_tool_name("a\u{85}b"));
        assert!(!is_valid_tool_name("a*"));
        assert!(!is_valid_tool_name(&"x".repeat(129)));
        assert!(is_valid_tool_name(&"😀".repeat(64)));
        assert!(!is_valid_tool_name(&"😀".repeat(65)));
    }

    #[test]
    fn ids() {
        assert!(is_resource_id("a.b_c-1"));
        assert!(!is_resource_id(".a"));
        assert!(!is_resource_id("é"));
        assert!(is_short_resource_id(Some(&Value::from("x".repeat(128)))));
        assert!(!is_short_resource_id(Some(&Value::from("x".repeat(129)))));
    }
}
