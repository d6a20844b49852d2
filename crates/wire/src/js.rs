//! Small helpers that read JSON values with JavaScript's semantics (truthiness, `??`, property
//! access on plain objects). The request builders follow pi-ai's JavaScript literally, and these
//! keep that translation short.

use forge_replay_model::json::{f64_to_value, number_to_f64};
use serde_json::{Map, Value};

/// JavaScript truthiness of a JSON value (`undefined` is `None`).
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => {
            let f = number_to_f64(n);
            f != 0.0 && !f.is_nan()
        }
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_)) | Some(Value::Object(_)) => true,
    }
}

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

/// `obj?.[key]`, with `null` reported as present (JavaScript keeps `null` and `undefined` apart).
pub fn get<'a>(obj: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    obj.and_then(|o| o.field(key))
}

/// `obj?.[key] ?? undefined`: the value unless it is `null` or missing.
pub fn defined<'a>(obj: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    get(obj, key).filter(|v| !v.is_null())
}

/// A string property, if it is a string.
pub fn str_of<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj.field(key).and_then(Value::as_str)
}

/// A boolean property compared with `=== true`.
pub fn is_true(obj: Option<&Value>, key: &str) -> bool {
    matches!(get(obj, key), Some(Value::Bool(true)))
}

/// A number property as the double JavaScript holds.
pub fn num_of(obj: &Value, key: &str) -> Option<f64> {
    obj.field(key).and_then(as_f64)
}

/// The double a JSON number holds in JavaScript.
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => Some(number_to_f64(n)),
        _ => None,
    }
}

/// A JSON number for a double, as JavaScript would serialize it.
pub fn num(f: f64) -> Value {
    f64_to_value(f)
}

/// The elements of an array property (empty when missing or not an array).
pub fn arr<'a>(obj: &'a Value, key: &str) -> &'a [Value] {
    obj.field(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Builds a JSON object from `(key, value)` pairs in order (an object literal).
pub fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    let mut m = Map::with_capacity(N);
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// An object literal with literal keys: `obj!([("type", s("text")), ("text", t)])` gives the same
/// object as [`obj()`], but clones a per-call-site template whose keys were hashed once, then
/// fills in the values in order. Building small objects is most of request assembly, and
/// hashing every key on every insert (`serde_json::Map` is an `IndexMap` with SipHash) was a
/// quarter of it.
macro_rules! obj_literal {
    ([$(($k:literal, $v:expr $(,)?)),+ $(,)?]) => {{
        static TEMPLATE: ::std::sync::OnceLock<
            ::serde_json::Map<::std::string::String, ::serde_json::Value>,
        > = ::std::sync::OnceLock::new();
        const KEYS: &[&str] = &[$($k),+];
        $crate::js::fill(
            TEMPLATE.get_or_init(|| $crate::js::template(KEYS)),
            KEYS,
            [$($v),+],
        )
    }};
}
pub(crate) use obj_literal as obj;

/// The template of [`obj!`]: the keys in order, every value `null`.
pub fn template(keys: &[&str]) -> Map<String, Value> {
    let mut m = Map::with_capacity(keys.len());
    for k in keys {
        m.insert((*k).to_string(), Value::Null);
    }
    m
}

/// A copy of `template` with its values replaced by `values` in order (see [`obj!`]); with a
/// repeated key (the template is shorter) it inserts one by one as an object literal does.
pub fn fill<const N: usize>(
    template: &Map<String, Value>,
    keys: &[&str],
    values: [Value; N],
) -> Value {
    if template.len() != N || keys.len() != N {
        let mut m = Map::with_capacity(N);
        for (k, v) in keys.iter().zip(values) {
            m.insert((*k).to_string(), v);
        }
        return Value::Object(m);
    }
    let mut m = template.clone();
    for (slot, v) in m.values_mut().zip(values) {
        *slot = v;
    }
    Value::Object(m)
}

/// A JSON string value.
pub fn s(text: impl Into<String>) -> Value {
    Value::String(text.into())
}

/// Removes a key while keeping the order of the others (JavaScript `delete`).
pub fn delete(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    map.shift_remove(key)
}

/// The object behind a value; `None` for anything else.
pub fn as_obj(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}

/// The UTF-16 code units of a string (lone-surrogate stand-ins map back to their code unit).
pub fn utf16_units(s: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if forge_replay_model::json::is_lone_surrogate_stand_in(c) {
            out.push((0xD800 + (c as u32 - forge_replay_model::json::LONE_SURROGATE_BASE)) as u16);
        } else {
            let mut buf = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut buf));
        }
    }
    out
}

/// `String.prototype.slice(0, n)` in UTF-16 units (a cut through a pair leaves a lone half,
/// kept as its stand-in).
pub fn slice_utf16(s: &str, n: usize) -> String {
    let units = utf16_units(s);
    if units.len() <= n {
        return s.to_string();
    }
    from_utf16_lossless(&units[..n])
}

/// Rebuilds a string from UTF-16 units, keeping lone surrogates as stand-ins.
pub fn from_utf16_lossless(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|r| match r {
            Ok(c) => c,
            Err(e) => char::from_u32(
                forge_replay_model::json::LONE_SURROGATE_BASE
                    + (e.unpaired_surrogate() as u32 - 0xD800),
            )
            .unwrap_or('\u{FFFD}'),
        })
        .collect()
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

    #[test]
    fn to_number_matches_javascript() {
        use serde_json::json;
        let n = |v: Value| to_number(Some(&v));
        assert_eq!(n(json!("1000")), 1000.0);
        assert_eq!(n(json!(" 12.5e1\n")), 125.0);
        assert_eq!(n(json!("")), 0.0);
        assert_eq!(n(json!("0x1F")), 31.0);
        assert_eq!(n(json!("-Infinity")), f64::NEG_INFINITY);
        assert!(n(json!("inf")).is_nan());
        assert!(n(json!("1e")).is_nan());
        assert!(n(json!("-0x1")).is_nan());
        assert_eq!(n(json!(true)), 1.0);
        assert_eq!(n(Value::Null), 0.0);
        assert_eq!(n(json!([7])), 7.0);
        assert_eq!(n(json!([])), 0.0);
        assert!(n(json!({})).is_nan());
        assert!(to_number(None).is_nan());
    }

    #[test]
    fn truthiness_matches_javascript() {
        assert!(!truthy(None));
        assert!(!truthy(Some(&Value::from(0))));
        assert!(!truthy(Some(&Value::from(""))));
        assert!(truthy(Some(&Value::from("0"))));
        assert!(truthy(Some(&serde_json::json!([]))));
    }

    #[test]
    fn utf16_slice_cuts_pairs() {
        let s = "a😀b";
        assert_eq!(utf16_units(s).len(), 4);
        let cut = slice_utf16(s, 2);
        assert_eq!(forge_replay_model::json::utf16_len(&cut), 2);
        assert!(cut
            .chars()
            .nth(1)
            .is_some_and(forge_replay_model::json::is_lone_surrogate_stand_in));
    }
}

thread_local! {
    /// The first JavaScript `TypeError` pi-ai's code would have thrown while a request was being
    /// built (see [`fault`]).
    static FAULT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Records a JavaScript `TypeError` that pi-ai would throw at this point of building the request
/// (only the first one is kept). Builders record it where their translation of pi-ai's code
/// keeps going with a neutral value; [`crate::assemble`] turns it into a refusal.
pub fn fault(message: impl FnOnce() -> String) {
    FAULT.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(message());
        }
    });
}

/// Takes (and clears) the recorded fault.
pub fn take_fault() -> Option<String> {
    FAULT.with(|f| f.borrow_mut().take())
}

/// `sanitizeSurrogates(value)` on a JSON value: a string is sanitized; anything else is the
/// `TypeError` of `text.replace(…)` (recorded with [`fault`]) and yields "".
pub fn sanitize(v: Option<&Value>) -> std::borrow::Cow<'_, str> {
    match v {
        Some(Value::String(t)) => forge_replay_model::text::sanitize_surrogates(t),
        Some(Value::Null) => {
            fault(|| "Cannot read properties of null (reading 'replace')".into());
            "".into()
        }
        None => {
            fault(|| "Cannot read properties of undefined (reading 'replace')".into());
            "".into()
        }
        Some(_) => {
            fault(|| "text.replace is not a function".into());
            "".into()
        }
    }
}

/// `String(value)` as a template literal converts it.
pub use forge_replay_model::text::js_string as to_js_string;

/// `expr.method(…)` on a value pi-ai expects to be a string: the string, or "" with V8's
/// `TypeError` recorded (see [`fault`]) for `undefined`, `null` and non-strings.
pub fn str_or_fault<'a>(v: Option<&'a Value>, expr: &str, method: &str) -> &'a str {
    match v {
        Some(Value::String(t)) => t,
        None => {
            fault(|| format!("Cannot read properties of undefined (reading '{method}')"));
            ""
        }
        Some(Value::Null) => {
            fault(|| format!("Cannot read properties of null (reading '{method}')"));
            ""
        }
        Some(_) => {
            fault(|| format!("{expr}.{method} is not a function"));
            ""
        }
    }
}

/// An element as `Array.prototype.join` writes it: `undefined` and `null` as "", anything else
/// as `String(value)`.
pub fn join_elem(v: Option<&Value>) -> std::borrow::Cow<'_, str> {
    match v {
        None | Some(Value::Null) => "".into(),
        Some(Value::String(s)) => s.as_str().into(),
        other => to_js_string(other).into(),
    }
}

/// `Math.max(a, b)`: NaN if either is NaN (`f64::max` would drop it).
pub fn math_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// `Math.min(a, b)`: NaN if either is NaN (`f64::min` would drop it).
pub fn math_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `Number(value)` (ECMAScript `ToNumber`): `undefined` is NaN, `null` 0, booleans 0/1, strings
/// by `StringToNumber` (trimmed; empty is 0; `0x`/`0o`/`0b`; `Infinity`), arrays through their
/// joined string, other objects NaN.
pub fn to_number(v: Option<&Value>) -> f64 {
    match v {
        None => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(_)) => v.and_then(as_f64).unwrap_or(f64::NAN),
        Some(Value::String(s)) => string_to_number(s),
        Some(Value::Array(_)) => string_to_number(&to_js_string(v)),
        Some(Value::Object(_)) => f64::NAN,
    }
}

/// ECMAScript `StringToNumber`.
pub fn string_to_number(s: &str) -> f64 {
    // StrWhiteSpaceChar is WhiteSpace plus LineTerminator, what `trim()` removes.
    let t = forge_replay_model::text::js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, radix: u32| {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        })
    };
    let lower = t.get(..2).map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("0x") => return radix(&t[2..], 16),
        Some("0o") => return radix(&t[2..], 8),
        Some("0b") => return radix(&t[2..], 2),
        _ => {}
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let valid = body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !valid {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}
