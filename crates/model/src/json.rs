//! JSON with JavaScript's semantics.
//!
//! Pi and pi-ai read JSON with `JSON.parse` and write it with `JSON.stringify`. To produce the same
//! bytes we need three things serde_json does not do on its own:
//!
//! * **Lone UTF-16 surrogates.** A JavaScript string may hold an unpaired surrogate, and
//!   `JSON.stringify` writes it as `\udXXX`. Rust strings cannot hold one, so [`parse`] maps each lone
//!   surrogate `0xD800 + k` to the private-use code point `U+F0000 + k` ([`LONE_SURROGATE_BASE`]),
//!   and [`stringify`](fn@stringify) maps it back to the escape. [`is_lone_surrogate_stand_in`] tells the two apart
//!   for code that must drop them (pi-ai's `sanitizeSurrogates`). A genuine `U+F0000..U+F07FF` in the
//!   input is indistinguishable from a stand-in; that range is private use and never seen in practice.
//! * **Numbers are doubles.** Every number is written as ECMAScript `Number::toString` writes the
//!   double it parses to (`1.0` → `1`, `1e21` → `1e+21`, `-0` → `0`, large integers rounded).
//! * **Numbers beyond the double range.** `JSON.parse("1e400")` is `Infinity` (and `-1e400` is
//!   `-Infinity`), where serde_json refuses the text. A [`Value`] cannot hold an infinity, so [`parse`]
//!   reads such a literal as `null`: what `JSON.stringify` writes for it whenever Pi sends or stores
//!   the value again. (Arithmetic on it would differ from Pi's; no real count or time overflows a
//!   double.)
//! * **Key order.** Objects keep insertion order, except that array-index keys (`"0"`, `"17"`) come
//!   first in ascending numeric order, as in every JavaScript engine.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

/// First code point of the stand-ins for lone surrogates (see the module docs).
pub const LONE_SURROGATE_BASE: u32 = 0xF0000;

/// Errors from [`parse`].
#[derive(Debug, thiserror::Error)]
#[error("{message} at column {column}")]
pub struct ParseError {
    /// serde_json's description, lowercase.
    pub message: String,
    /// 1-based line where parsing stopped (a JSONL line is always line 1).
    pub line: usize,
    /// 1-based column (in bytes) where parsing stopped.
    pub column: usize,
    /// True when the text ended early (a truncated line).
    pub eof: bool,
}

impl ParseError {
    /// The message with its line and column, for a document of several lines (a case file, a
    /// catalog): `EOF while parsing an object at line 12 column 0`. The display says the column
    /// alone, for a JSONL line whose line number the caller says.
    pub fn at_line(&self) -> String {
        format!(
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

/// Parses JSON text as `JSON.parse` does, keeping lone surrogates as stand-ins.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    parse_as(text)
}

/// Parses JSON text into a typed value, with the same surrogate handling as [`parse`].
pub fn parse_as<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    let text = lone_surrogates_to_stand_ins(text);
    let text = text.as_ref();
    serde_json::from_str(text).or_else(|e| {
        // Only on the error path: a literal beyond the double range is `null` (module docs).
        if e.to_string().starts_with("number out of range") {
            if let Some(fixed) = overflowing_numbers_to_null(text) {
                if let Ok(v) = serde_json::from_str(&fixed) {
                    return Ok(v);
                }
            }
        }
        Err(ParseError {
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_string(),
            line: e.line(),
            column: e.column(),
            eof: e.is_eof(),
        })
    })
}

/// `text` with every number literal outside strings that parses to an infinite double replaced by
/// `null`, or `None` when there is none.
fn overflowing_numbers_to_null(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut changed = false;
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            {
                i += 1;
            }
            if text[start..i].parse::<f64>().is_ok_and(f64::is_infinite) {
                out.push_str(&text[copied..start]);
                out.push_str("null");
                copied = i;
                changed = true;
            }
            continue;
        }
        i += 1;
    }
    changed.then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// `text` with every `\uDXXX` escape that is not half of a surrogate pair replaced by its
/// stand-in character (module docs), so that serde_json, which refuses a lone surrogate, reads
/// the text as `JSON.parse` does. Borrowed when there is none (the usual case). For callers that
/// deserialize borrowed types themselves; [`parse`] and [`parse_as`] do this already.
pub fn lone_surrogates_to_stand_ins(text: &str) -> std::borrow::Cow<'_, str> {
    if has_surrogate_escape(text.as_bytes()) {
        std::borrow::Cow::Owned(replace_lone_surrogates(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

fn has_surrogate_escape(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"\\u").any(|i| matches!(bytes.get(i + 2), Some(b'd' | b'D')))
}

fn hex4(bytes: &[u8]) -> Option<u32> {
    if bytes.len() < 4 {
        return None;
    }
    let s = std::str::from_utf8(&bytes[..4]).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Rewrites `\uDXXX` escapes that are not part of a surrogate pair into stand-in characters.
fn replace_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\` plus one character, or `\uXXXX`.
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(cu) = hex4(&b[i + 2..]) else {
            i += 2;
            continue;
        };
        if (0xD800..0xDC00).contains(&cu) {
            let low = if b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') {
                hex4(&b[i + 8..]).filter(|lo| (0xDC00..0xE000).contains(lo))
            } else {
                None
            };
            if low.is_some() {
                i += 12;
                continue;
            }
        } else if !(0xDC00..0xE000).contains(&cu) {
            i += 6;
            continue;
        }
        // A lone surrogate.
        out.push_str(&text[last..i]);
        let stand_in = char::from_u32(LONE_SURROGATE_BASE + (cu - 0xD800)).unwrap_or('\u{FFFD}');
        out.push(stand_in);
        i += 6;
        last = i;
    }
    out.push_str(&text[last..]);
    out
}

/// True for the private-use characters that stand in for lone surrogates.
pub fn is_lone_surrogate_stand_in(c: char) -> bool {
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&(c as u32))
}

/// `JSON.stringify(value)`.
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_compact_value(&mut out, value);
    out
}

/// A hash of `JSON.stringify(value)` (equal texts, equal hashes), written into `scratch`, which
/// is cleared first and may be reused: hashing many values allocates once.
pub fn stringify_hash(value: &Value, scratch: &mut String) -> u64 {
    use std::hash::{Hash, Hasher};
    scratch.clear();
    write_compact_value(scratch, value);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    scratch.hash(&mut h);
    h.finish()
}

/// Whether two values are the same in every respect `JSON.stringify` sees, object key order
/// included: then their texts are equal. Cheaper than `==` (which looks every key of one object
/// up in the other, and ignores key order) and than comparing the texts.
pub fn same_text(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_text(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_text(p, q))
        }
        _ => a == b,
    }
}

/// `JSON.stringify(value, null, 2)`.
pub fn stringify_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(2), 0);
    out
}

/// Appends `JSON.stringify(value, null, 2)` as it would appear nested `depth` levels deep: inner
/// lines indented by `2 * (depth + 1)` spaces, the closing bracket by `2 * depth`.
pub fn write_pretty_at(out: &mut String, value: &Value, depth: usize) {
    write_value(out, value, Some(2), depth);
}

/// Appends `JSON.stringify(value)` to `out`.
pub fn write_compact(out: &mut String, value: &Value) {
    write_compact_value(out, value);
}

/// `JSON.stringify` without indentation: the writer request bodies go through, so it skips the
/// pretty printer's per-node indentation bookkeeping.
fn write_compact_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            let mut rest = false;
            for item in items {
                if rest {
                    out.push(',');
                }
                rest = true;
                write_compact_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let start = out.len();
            out.push('{');
            let mut rest = false;
            for (k, v) in map {
                if k.as_bytes().first().is_some_and(u8::is_ascii_digit) && is_array_index(k) {
                    // JavaScript orders array-index keys first (rare): start over in that order.
                    out.truncate(start);
                    write_value(out, value, None, 0);
                    return;
                }
                if rest {
                    out.push(',');
                }
                rest = true;
                write_key(out, k);
                write_compact_value(out, v);
            }
            out.push('}');
        }
    }
}

/// ECMAScript `Number::toString` of a JSON number (which is a double in JavaScript).
pub fn format_number(n: &Number) -> String {
    format_f64(number_to_f64(n))
}

/// The double JavaScript would hold for this JSON number.
pub fn number_to_f64(n: &Number) -> f64 {
    if let Some(u) = n.as_u64() {
        u as f64
    } else if let Some(i) = n.as_i64() {
        i as f64
    } else {
        n.as_f64().unwrap_or(f64::NAN)
    }
}

/// ECMAScript `Number::toString` of a double; `NaN` and infinities become `null` as in JSON.
pub fn format_f64(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_string();
    }
    if f == 0.0 {
        return "0".to_string();
    }
    let mut buf = ryu_js::Buffer::new();
    buf.format_finite(f).to_string()
}

/// A JSON number holding `f`, as JavaScript would keep it (integers stay integers).
pub fn f64_to_value(f: f64) -> Value {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        if f == 0.0 {
            return Value::Number(Number::from(0u64));
        }
        return Value::Number(Number::from(f as i64));
    }
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// Bytes that need attention while escaping: ASCII control characters, `"`, `\\`, and 0xF3, the
/// lead byte of every 4-byte UTF-8 sequence in U+C0000..U+FFFFF, where the lone-surrogate
/// stand-ins live.
const ATTENTION: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[0xF3] = true;
    t
};

/// Whether any of sixteen bytes needs attention. Written as a branch-free reduction so that
/// LLVM turns it into a few SIMD compares (SSE2 on x86-64) instead of sixteen table lookups.
#[inline(always)]
fn block_needs_attention(block: &[u8; 16]) -> bool {
    let mut hit = 0u8;
    for &b in block {
        hit |=
            u8::from(b < 0x20) | u8::from(b == b'"') | u8::from(b == b'\\') | u8::from(b == 0xF3);
    }
    hit != 0
}

/// The first byte at or after `from` that needs attention ([`ATTENTION`]), scanning sixteen
/// bytes at a time, then byte by byte.
#[inline]
fn next_attention(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let mut chunks = rest.chunks_exact(16);
    let mut base = from;
    for chunk in &mut chunks {
        let mut block = [0u8; 16];
        block.copy_from_slice(chunk);
        if block_needs_attention(&block) {
            if let Some(p) = chunk.iter().position(|&b| ATTENTION[b as usize]) {
                return Some(base + p);
            }
        }
        base += 16;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| ATTENTION[b as usize])
        .map(|p| base + p)
}

/// Writes `"key":`. Keys are short plain identifiers almost always; those skip the scanner.
#[inline]
fn write_key(out: &mut String, k: &str) {
    if k.len() < 16 && k.bytes().all(|b| !ATTENTION[b as usize]) {
        out.reserve(k.len() + 3);
        out.push('"');
        out.push_str(k);
        out.push_str("\":");
    } else {
        write_string(out, k);
        out.push(':');
    }
}

/// Writes a JSON string literal as `JSON.stringify` does.
pub fn write_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    if bytes.len() < 16 && bytes.iter().all(|&b| !ATTENTION[b as usize]) {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    let mut next = next_attention(bytes, 0);
    while let Some(i) = next {
        let b = bytes[i];
        if b == 0xF3 {
            // Decode the 4-byte character; only stand-ins are escaped.
            let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
            if is_lone_surrogate_stand_in(c) {
                out.push_str(&s[start..i]);
                let code = 0xD800 + (c as u32 - LONE_SURROGATE_BASE);
                let _ = write!(out, "\\u{code:04x}");
                start = i + 4;
            }
            next = next_attention(bytes, i + 4);
            continue;
        }
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        start = i + 1;
        next = next_attention(bytes, start);
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Appends the decimal digits of `n` (without the formatting machinery of `write!`).
fn push_decimal(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &buf[at..] {
        out.push(char::from(d));
    }
}

/// Appends ECMAScript `Number::toString` of a JSON number without allocating.
fn write_number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64() {
        if u < (1u64 << 53) {
            push_decimal(out, u);
            return;
        }
    } else if let Some(i) = n.as_i64() {
        if i > -(1i64 << 53) {
            out.push('-');
            push_decimal(out, i.unsigned_abs());
            return;
        }
    }
    let f = number_to_f64(n);
    if !f.is_finite() {
        out.push_str("null");
    } else if f == 0.0 {
        out.push('0');
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.push_str(buf.format_finite(f));
    }
}

/// Whether a key is an array index (a canonical decimal below 2^32 - 1), which JavaScript
/// orders before all other keys.
fn is_array_index(key: &str) -> bool {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if key.len() > 1 && key.starts_with('0') {
        return false;
    }
    key.parse::<u64>().is_ok_and(|n| n < u32::MAX as u64)
}

/// Whether any key is an array index (a cheap first-byte test before the full check).
fn has_array_index_key(map: &Map<String, Value>) -> bool {
    map.keys()
        .any(|k| k.as_bytes().first().is_some_and(u8::is_ascii_digit) && is_array_index(k))
}

/// The keys of an object in JavaScript's property order.
pub fn js_key_order(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    if !has_array_index_key(map) {
        return map.iter().collect();
    }
    let mut idx: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| is_array_index(k)).collect();
    idx.sort_by_key(|(k, _)| k.parse::<u64>().unwrap_or(0));
    idx.extend(map.iter().filter(|(k, _)| !is_array_index(k)));
    idx
}

fn newline(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(n) = indent {
        out.push('\n');
        for _ in 0..n * depth {
            out.push(' ');
        }
    }
}

fn write_value(out: &mut String, value: &Value, indent: Option<usize>, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            let mut write_member = |i: usize, k: &str, v: &Value| {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_string(out, k);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, v, indent, depth + 1);
            };
            // Objects without array-index keys (almost all) keep insertion order: no reordering
            // vector is allocated for them.
            if has_array_index_key(map) {
                for (i, (k, v)) in js_key_order(map).into_iter().enumerate() {
                    write_member(i, k, v);
                }
            } else {
                for (i, (k, v)) in map.iter().enumerate() {
                    write_member(i, k, v);
                }
            }
            newline(out, indent, depth);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_means_equal_stringify_and_sees_key_order() {
        let cases = [
            (
                r#"{"a":1,"b":[1,{"c":"x"}]}"#,
                r#"{"a":1,"b":[1,{"c":"x"}]}"#,
                true,
            ),
            (r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#, false),
            (r#"{"a":[1,2]}"#, r#"{"a":[1,2,3]}"#, false),
            (r#"{"a":{"b":null}}"#, r#"{"a":{"b":false}}"#, false),
            (r#"[1.5,"s",true]"#, r#"[1.5,"s",true]"#, true),
            (r#"{"a":1}"#, r#"{"a":1,"b":1}"#, false),
        ];
        for (a, b, same) in cases {
            let (a, b) = (parse(a).unwrap(), parse(b).unwrap());
            assert_eq!(same_text(&a, &b), same, "{a} {b}");
            if same {
                assert_eq!(stringify(&a), stringify(&b));
            }
        }
        // `==` ignores key order; `JSON.stringify` does not.
        let (x, y) = (
            parse(r#"{"a":1,"b":2}"#).unwrap(),
            parse(r#"{"b":2,"a":1}"#).unwrap(),
        );
        assert_eq!(x, y);
        assert_ne!(stringify(&x), stringify(&y));
    }

    fn roundtrip(s: &str) -> String {
        stringify(&parse(s).unwrap())
    }

    /// Values with the same `JSON.stringify` text hash alike (a reused scratch buffer changes
    /// nothing); different texts do not.
    #[test]
    fn stringify_hash_follows_the_text() {
        let mut scratch = String::from("left over");
        let h = |s: &str, scratch: &mut String| stringify_hash(&parse(s).unwrap(), scratch);
        let one = h(r#"{"a":[1.0,"x"],"b":null}"#, &mut scratch);
        assert_eq!(one, h(r#"{ "a": [1, "x"], "b": null }"#, &mut scratch));
        assert_eq!(one, h(r#"{"a":[1e0,"\u0078"],"b":null}"#, &mut scratch));
        assert_ne!(one, h(r#"{"b":null,"a":[1,"x"]}"#, &mut scratch));
        assert_ne!(one, h(r#"{"a":[1,"x "],"b":null}"#, &mut scratch));
    }

    #[test]
    fn numbers_follow_ecmascript() {
        assert_eq!(
            roundtrip("[1.0,1e21,1e-7,-0,0.1,123456789012345678901,1.5e300,100]"),
            "[1,1e+21,1e-7,0,0.1,123456789012345680000,1.5e+300,100]"
        );
        assert_eq!(roundtrip("18446744073709551615"), "18446744073709552000");
        assert_eq!(roundtrip("-9007199254740993"), "-9007199254740992");
        assert_eq!(
            roundtrip("[0,9,10,-1,-10,9007199254740991,-9007199254740991,9007199254740992]"),
            "[0,9,10,-1,-10,9007199254740991,-9007199254740991,9007199254740992]"
        );
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        assert_eq!(
            roundtrip(r#""a\/b\u00e9\u2028\u0001\u007f\t""#),
            "\"a/bé\u{2028}\\u0001\u{7f}\\t\""
        );
    }

    #[test]
    fn lone_surrogates_survive() {
        assert_eq!(
            roundtrip(r#"["\ud800x","\uDC00","\ud83d\ude00","\\ud800"]"#),
            r#"["\ud800x","\udc00","😀","\\ud800"]"#
        );
        let v = parse(r#""\ud800""#).unwrap();
        assert_eq!(crate::js::len(v.as_str().unwrap()), 1);
    }

    #[test]
    fn four_byte_characters_outside_the_stand_in_range_are_kept() {
        let s = "a\u{F1000}b\u{1F600}\u{F07FF}\u{0}";
        let mut out = String::new();
        write_string(&mut out, s);
        assert_eq!(out, "\"a\u{F1000}b\u{1F600}\\udfff\\u0000\"");
    }

    #[test]
    fn chunked_string_scan_matches_a_plain_escaper() {
        // Every special byte at every offset of strings around the 8-byte chunk size.
        let specials = [
            '"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '\u{7f}', 'é', '😀', '\u{2028}',
        ];
        for len in 0..20 {
            for pos in 0..len.max(1) {
                for sp in specials {
                    let mut t: String = "abcdefghijklmnopqrstuvwxyz"[..len].to_string();
                    if pos < len {
                        t.replace_range(pos..pos + 1, &sp.to_string());
                    }
                    let mut ours = String::new();
                    write_string(&mut ours, &t);
                    assert_eq!(ours, serde_json::to_string(&t).unwrap(), "{t:?}");
                }
            }
        }
        let lone = parse(r#""abcdefgh\ud800ijklmnop""#).unwrap();
        assert_eq!(stringify(&lone), r#""abcdefgh\ud800ijklmnop""#);
    }

    #[test]
    fn array_index_keys_come_first() {
        assert_eq!(
            roundtrip(r#"{"b":1,"10":2,"a":3,"2":4,"01":5}"#),
            r#"{"2":4,"10":2,"b":1,"a":3,"01":5}"#
        );
        // Digit-led keys that are not indices keep insertion order (the fast path).
        assert_eq!(
            roundtrip(r#"{"b":1,"1a":2,"01":3,"4294967295":4,"a":{"9x":1,"0":2}}"#),
            r#"{"b":1,"1a":2,"01":3,"4294967295":4,"a":{"0":2,"9x":1}}"#
        );
    }

    #[test]
    fn pretty_matches_two_space_indent() {
        assert_eq!(
            stringify_pretty(&parse(r#"{"a":[1,{}],"b":[]}"#).unwrap()),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}"
        );
    }

    #[test]
    fn truncated_text_is_eof() {
        let e = parse(r#"{"a":"#).unwrap_err();
        assert!(e.eof);
        assert!(!parse("{x}").unwrap_err().eof);
    }

    #[test]
    fn numbers_beyond_the_double_range_read_as_what_pi_writes_for_them() {
        // JSON.parse gives ±Infinity; JSON.stringify writes null. Strings are left alone.
        let v =
            parse(r#"{"a":178981E+23000,"b":[-1e400,1e308],"c":"1e400","d":"x\"1e999"}"#).unwrap();
        assert_eq!(
            stringify(&v),
            r#"{"a":null,"b":[null,1e+308],"c":"1e400","d":"x\"1e999"}"#
        );
        // Other errors keep their message and column.
        let e = parse("[1e400,]").unwrap_err();
        assert!(e.message.starts_with("number out of range"), "{e}");
    }
}
