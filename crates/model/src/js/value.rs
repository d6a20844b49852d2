//! JavaScript's conversions of a JSON value: truthiness, `String(value)`, `Number(value)`.
//!
//! `None` is `undefined` throughout (a missing property), so `Some(&Value::Null)` and `None`
//! stay apart as they do in JavaScript.

use std::borrow::Cow;

use serde_json::Value;

use crate::json::{format_number, number_to_f64};

/// JavaScript truthiness (`!!value`).
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

/// `String(value)`, as a template literal also converts it: numbers in ECMAScript form, arrays
/// joined with commas, `[object Object]`.
pub fn to_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => format_number(n),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => {
            let mut out = String::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&join_element(Some(item)));
            }
            out
        }
        Some(Value::Object(_)) => "[object Object]".to_string(),
    }
}

/// An element as `Array.prototype.join` writes it: `undefined` and `null` as "", anything else as
/// `String(value)`.
pub fn join_element(v: Option<&Value>) -> Cow<'_, str> {
    match v {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(s)) => Cow::Borrowed(s),
        other => Cow::Owned(to_string(other)),
    }
}

/// `Number(value)` (ECMAScript `ToNumber`): `undefined` is NaN, `null` 0, booleans 0/1, strings
/// by [`string_to_number`], arrays through their joined string, other objects NaN.
pub fn to_number(v: Option<&Value>) -> f64 {
    match v {
        None | Some(Value::Object(_)) => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => number_to_f64(n),
        Some(Value::String(s)) => string_to_number(s),
        Some(Value::Array(_)) => string_to_number(&to_string(v)),
    }
}

/// ECMAScript `StringToNumber`: trimmed as `trim()` trims; empty is 0; `0x`/`0o`/`0b` integers
/// (unsigned); `Infinity` with an optional sign; otherwise a decimal literal or NaN.
pub fn string_to_number(s: &str) -> f64 {
    let t = super::trim(s);
    if t.is_empty() {
        return 0.0;
    }
    let prefix = t.get(..2).map(str::to_ascii_lowercase);
    let radix = match prefix.as_deref() {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        return radix_integer(&t[2..], radix);
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    if is_decimal_literal(t.strip_prefix(['+', '-']).unwrap_or(t)) {
        t.parse::<f64>().unwrap_or(f64::NAN)
    } else {
        f64::NAN
    }
}

/// `StrUnsignedDecimalLiteral` without `Infinity`: digits with an optional `.` (digits on at
/// least one side), then an optional exponent with digits.
fn is_decimal_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut i = 0;
    let mut mantissa = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The value of `digits` in `radix`: exact up to 128 bits, then one rounding to the nearest
/// double, as V8 rounds (longer digit strings are folded in floating point).
fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return f64::NAN;
    }
    let mut exact: Option<u128> = Some(0);
    let mut folded = 0.0;
    for c in digits.chars() {
        let d = c.to_digit(radix).unwrap_or(0);
        exact = exact
            .and_then(|a| a.checked_mul(u128::from(radix)))
            .and_then(|a| a.checked_add(u128::from(d)));
        folded = folded * f64::from(radix) + f64::from(d);
    }
    exact.map_or(folded, |a| a as f64)
}

/// `Math.max(a, b)`: NaN if either is NaN (`f64::max` would drop it); +0 is larger than -0.
pub fn math_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else {
        a.max(b)
    }
}

/// `Math.min(a, b)`: NaN if either is NaN (`f64::min` would drop it); -0 is smaller than +0.
pub fn math_min(a: f64, b: f64) -> f64 {
    -math_max(-a, -b)
}
