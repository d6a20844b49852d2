//! pi-ai's JavaScript, translated: property access on plain objects (`?.`, `??`), object
//! literals in key order, and the `TypeError`s pi-ai would throw. The request builders follow
//! pi-ai's code literally, and these keep that translation short.
//!
//! The language's own semantics (truthiness, `String()`, `Number()`, UTF-16 units, `trim()`,
//! `JSON.parse` messages, …) are [`forge_replay_model::js`], re-exported here so that a builder
//! names one module.

pub use forge_replay_model::js::*;
use forge_replay_model::json::{f64_to_value, number_to_f64};
use serde_json::{Map, Value};

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

/// The template of `obj!`: the keys in order, every value `null`.
pub fn template(keys: &[&str]) -> Map<String, Value> {
    let mut m = Map::with_capacity(keys.len());
    for k in keys {
        m.insert((*k).to_string(), Value::Null);
    }
    m
}

/// A copy of `template` with its values replaced by `values` in order (see `obj!`); with a
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
        Some(Value::String(t)) => sanitize_surrogates(t),
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
