//! JavaScript string semantics that Pi and pi-forge rely on.

use crate::json::{is_lone_surrogate_stand_in, utf16_len};

/// ECMAScript WhiteSpace plus LineTerminator (what `trim()` and `/\s/` match).
///
/// Differs from [`char::is_whitespace`]: U+FEFF is whitespace here, U+0085 is not.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `String(value)` of a JSON value (`undefined` when absent): numbers in ECMAScript form,
/// `[object Object]`, arrays joined with commas (`null` items empty).
pub fn js_string(v: Option<&serde_json::Value>) -> String {
    use serde_json::Value;
    match v {
        None => "undefined".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => crate::json::format_number(n),
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

/// `String.prototype.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `String.prototype.length`: UTF-16 code units.
pub fn js_len(s: &str) -> usize {
    utf16_len(s)
}

/// pi-ai's `sanitizeSurrogates`: removes unpaired surrogates (their stand-ins here).
pub fn sanitize_surrogates(s: &str) -> std::borrow::Cow<'_, str> {
    // Stand-ins (U+F0000..U+F07FF) are encoded with lead byte 0xF3: a byte scan rules most
    // strings out without decoding them.
    if s.as_bytes().contains(&0xF3) && s.chars().any(is_lone_surrogate_stand_in) {
        std::borrow::Cow::Owned(
            s.chars()
                .filter(|c| !is_lone_surrogate_stand_in(*c))
                .collect(),
        )
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_uses_the_javascript_set() {
        assert_eq!(js_trim("\u{feff} a \u{85}"), "a \u{85}");
        assert_eq!(js_trim("\u{3000}\t\n"), "");
    }

    #[test]
    fn sanitize_drops_stand_ins_only() {
        let v = crate::json::parse(r#""a\ud800b😀""#).unwrap();
        assert_eq!(sanitize_surrogates(v.as_str().unwrap()), "ab😀");
    }
}
