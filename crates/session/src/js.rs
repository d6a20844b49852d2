//! The few JavaScript semantics the projection depends on: truthiness, `String(value)` and
//! `new Date(value).getTime()`.

use forge_replay_model::json::{f64_to_value, format_f64, number_to_f64};
use serde_json::Value;

/// JavaScript truthiness; `None` is `undefined`.
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => {
            let f = number_to_f64(n);
            f != 0.0 && !f.is_nan()
        }
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `String(value)` (template-literal conversion); `None` is `undefined`.
pub fn to_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".to_string(),
        Some(v) => value_to_string(v),
    }
}

fn value_to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format_f64(number_to_f64(n)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Null => String::new(),
                other => value_to_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".to_string(),
    }
}

/// `new Date(value).getTime()` as a JSON value: a number, or `null` for `NaN`
/// (what `JSON.stringify` writes). `None` is `undefined`.
pub fn date_ms(v: Option<&Value>) -> Value {
    let ms = match v {
        None => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => time_clip(number_to_f64(n)),
        Some(Value::String(s)) => parse_date(s),
        // ToPrimitive: arrays become their joined string, objects "[object Object]".
        Some(v @ Value::Array(_)) => parse_date(&value_to_string(v)),
        Some(Value::Object(_)) => f64::NAN,
    };
    if ms.is_nan() {
        Value::Null
    } else {
        f64_to_value(ms)
    }
}

fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > 8.64e15 {
        f64::NAN
    } else {
        t.trunc() + 0.0
    }
}

/// `Date.parse` for the ECMAScript date-time string format (what `toISOString` writes):
/// `YYYY`, `±YYYYYY`, `-MM`, `-DD`, `THH:mm`, `:ss`, `.sss`, `Z` / `±HH:mm`.
///
/// Date-only forms are UTC. V8 reads a date-time without an offset as local time; this reads it
/// as UTC (the oracle runs in UTC). Strings outside this format (V8's legacy fallback parser
/// accepts more) give `NaN`.
pub fn parse_date(s: &str) -> f64 {
    parse_iso(s)
        .or_else(|| legacy_to_iso(s).and_then(|iso| parse_iso(&iso)))
        .unwrap_or(f64::NAN)
}

/// A few forms V8's legacy parser accepts, rewritten to the ISO format: a space instead of `T`,
/// `/` date separators, one-digit months and days, `±HHMM` offsets. (Checked against Node 22.)
fn legacy_to_iso(s: &str) -> Option<String> {
    let (date, rest) = match s.find([' ', 'T', 't']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let sep = if date.contains('/') { '/' } else { '-' };
    let parts: Vec<&str> = date.split(sep).collect();
    let [y, m, d] = parts[..] else { return None };
    let ok = |p: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
    };
    if !ok(y, 4..=4) || !ok(m, 1..=2) || !ok(d, 1..=2) {
        return None;
    }
    let mut iso = format!("{y}-{m:0>2}-{d:0>2}");
    if let Some(time) = rest {
        let mut time = time.to_string();
        // `±HHMM` → `±HH:MM`.
        if let Some(pos) = time.rfind(['+', '-']) {
            let off = &time[pos + 1..];
            if off.len() == 4 && off.bytes().all(|b| b.is_ascii_digit()) {
                time = format!("{}{}:{}", &time[..pos + 1], &off[..2], &off[2..]);
            }
        }
        iso.push('T');
        iso.push_str(&time);
    }
    Some(iso)
}

fn parse_iso(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize, n: usize| -> Option<i64> {
        let part = b.get(*i..*i + n)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        Some(part.iter().fold(0i64, |a, d| a * 10 + i64::from(d - b'0')))
    };
    let year = match b.first()? {
        b'+' | b'-' => {
            let neg = b[0] == b'-';
            i = 1;
            let y = digits(&mut i, 6)?;
            if neg && y == 0 {
                return None;
            }
            if neg {
                -y
            } else {
                y
            }
        }
        _ => digits(&mut i, 4)?,
    };
    let mut month = 1;
    let mut day = 1;
    if b.get(i) == Some(&b'-') {
        i += 1;
        month = digits(&mut i, 2)?;
        if b.get(i) == Some(&b'-') {
            i += 1;
            day = digits(&mut i, 2)?;
        }
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0.0);
    let mut offset_min = 0i64;
    if i < b.len() {
        if b[i] != b'T' && b[i] != b't' {
            return None;
        }
        i += 1;
        h = digits(&mut i, 2)?;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        mi = digits(&mut i, 2)?;
        if b.get(i) == Some(&b':') {
            i += 1;
            sec = digits(&mut i, 2)?;
            if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
                i += 1;
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                // Milliseconds: the first three digits, the rest truncated (as V8 does).
                let frac = &s[start..i];
                let three: String = frac.chars().chain("000".chars()).take(3).collect();
                ms = three.parse::<f64>().ok()?;
            }
        }
        match b.get(i) {
            None => {}
            Some(b'Z' | b'z') => i += 1,
            Some(&sign @ (b'+' | b'-')) => {
                i += 1;
                let oh = digits(&mut i, 2)?;
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i += 1;
                let om = digits(&mut i, 2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                offset_min = (oh * 60 + om) * if sign == b'+' { 1 } else { -1 };
            }
            _ => return None,
        }
        if i != b.len() {
            return None;
        }
    }
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if h > 24 || mi > 59 || sec > 59 || (h == 24 && (mi != 0 || sec != 0 || ms != 0.0)) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let t = (days as f64) * 86_400_000.0 + (h * 3_600_000 + mi * 60_000 + sec * 1000) as f64 + ms
        - (offset_min * 60_000) as f64;
    let t = time_clip(t);
    (!t.is_nan()).then_some(t)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
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
    fn iso_dates() {
        assert_eq!(parse_date("2026-01-01T00:00:01.000Z"), 1_767_225_601_000.0);
        assert_eq!(parse_date("1970-01-01T00:00:00Z"), 0.0);
        assert_eq!(parse_date("1970-01-01"), 0.0);
        assert_eq!(parse_date("1970"), 0.0);
        assert_eq!(parse_date("1970-01-01T01:00:00+01:00"), 0.0);
        assert_eq!(parse_date("2000-02-29T12:34:56.7891Z"), 951_827_696_789.0);
        assert_eq!(parse_date("+002000-01-01T00:00:00.000Z"), 946_684_800_000.0);
        assert_eq!(parse_date("-000001-01-01T00:00:00Z"), -62_198_755_200_000.0);
        assert!(parse_date("2001-02-29").is_nan());
        assert!(parse_date("nope").is_nan());
        assert!(parse_date("").is_nan());
        assert!(parse_date("-000000-01-01").is_nan());
    }

    /// `new Date(s).getTime()` from Node 22 (TZ=UTC).
    #[test]
    fn matches_v8() {
        for (s, want) in [
            ("2026-01-01 10:00:00", Some(1_767_261_600_000.0)),
            ("2026-01-01 10:00:00Z", Some(1_767_261_600_000.0)),
            ("2026-01-01 10:00:00.123Z", Some(1_767_261_600_123.0)),
            ("2026-01-01 10:00", Some(1_767_261_600_000.0)),
            ("2026-01-01T10:00:00+0100", Some(1_767_258_000_000.0)),
            ("2026-01-01T10:00:00.123456Z", Some(1_767_261_600_123.0)),
            ("2026-01-01T24:00:00Z", Some(1_767_312_000_000.0)),
            ("2026-1-1", Some(1_767_225_600_000.0)),
            ("2026/01/01", Some(1_767_225_600_000.0)),
            ("2026-01-01T10:00:00z", Some(1_767_261_600_000.0)),
            (" 2026-01-01T10:00:00Z", None),
            ("2026-01-01t10:00:00Z", Some(1_767_261_600_000.0)),
            ("2026-01-01T10:00Z", Some(1_767_261_600_000.0)),
            ("2026-01-01T10Z", None),
            ("2026-13-01", None),
            ("1767261600000", None),
            ("2026-01-01T10:00:00.Z", None),
        ] {
            let got = parse_date(s);
            match want {
                Some(w) => assert_eq!(got, w, "{s:?}"),
                None => assert!(got.is_nan(), "{s:?} gave {got}"),
            }
        }
    }

    #[test]
    fn date_values() {
        assert_eq!(date_ms(None), Value::Null);
        assert_eq!(date_ms(Some(&Value::Null)), Value::from(0));
        assert_eq!(date_ms(Some(&Value::from(5.7))), Value::from(5));
        assert_eq!(date_ms(Some(&Value::from(1e16))), Value::Null);
    }

    #[test]
    fn strings() {
        assert_eq!(to_string(None), "undefined");
        assert_eq!(to_string(Some(&serde_json::json!([1, null, "a"]))), "1,,a");
        assert_eq!(to_string(Some(&serde_json::json!(1.5))), "1.5");
        assert_eq!(to_string(Some(&serde_json::json!({}))), "[object Object]");
    }
}
