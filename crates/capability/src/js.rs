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

/// `String(value)` of a JSON value (`undefined` when absent).
pub fn js_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => json::format_number(n),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| match i {
                Value::Null => String::new(),
                other => js_string(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".to_string(),
    }
}

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

/// `Date.parse` for the ISO strings Pi writes (`YYYY-MM-DDTHH:mm:ss(.sss)?(Z|±HH:mm)`), and the
/// date-only form. Returns `None` where `Date.parse` would return `NaN`.
pub fn date_parse(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let num = |from: usize, n: usize| -> Option<i64> {
        let part = b.get(from..from + n)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let year = num(0, 4)?;
    if b.get(4) != Some(&b'-') {
        return None;
    }
    let month = num(5, 2)?;
    if b.get(7) != Some(&b'-') {
        return None;
    }
    let day = num(8, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let date_ms = days_from_civil(year, month, day) as f64 * 86_400_000.0;
    if b.len() == 10 {
        return Some(date_ms);
    }
    if b.get(10) != Some(&b'T') {
        return None;
    }
    let hour = num(11, 2)?;
    if b.get(13) != Some(&b':') {
        return None;
    }
    let minute = num(14, 2)?;
    let mut i = 16;
    let mut second = 0;
    let mut millis = 0.0;
    if b.get(i) == Some(&b':') {
        second = num(17, 2)?;
        i = 19;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            if end == start {
                return None;
            }
            let digits = &s[start..end.min(start + 3)];
            let mut ms: f64 = digits.parse().ok()?;
            for _ in digits.len()..3 {
                ms *= 10.0;
            }
            millis = ms;
            i = end;
        }
    }
    if hour > 24 || minute > 59 || second > 59 || (hour == 24 && (minute > 0 || second > 0)) {
        return None;
    }
    let offset_min = match b.get(i) {
        Some(b'Z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = num(i + 1, 2)?;
            let om = num(i + 4, 2)?;
            let total = oh * 60 + om;
            if *sign == b'+' {
                total
            } else {
                -total
            }
        }
        // No offset: date-time forms are local time in JavaScript; we treat them as UTC
        // (Pi always writes `Z`).
        None => 0,
        _ => return None,
    };
    let time_ms = ((hour * 60 + minute - offset_min) * 60 + second) as f64 * 1000.0 + millis;
    Some(date_ms + time_ms)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
    fn date_parse_matches_javascript() {
        assert_eq!(
            date_parse("2026-09-21T00:00:00.000Z"),
            Some(1_789_948_800_000.0)
        );
        assert_eq!(date_parse("1970-01-01T00:00:01.5Z"), Some(1500.0));
        assert_eq!(date_parse("1970-01-01T01:00:00+01:00"), Some(0.0));
        assert_eq!(date_parse("not a date"), None);
        assert_eq!(date_parse("2026-02-30T00:00:00Z"), None);
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
