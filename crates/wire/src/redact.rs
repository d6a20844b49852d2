//! Secret redaction for everything forge-replay prints or writes.
//!
//! pi-forge (`src/payload-capture.ts`, `redactPayload`) replaces the value of every object key that
//! matches `/(api[-_]?key|authorization|bearer|token|secret|password|cookie|credential)/i` with
//! `"[redacted]"` before showing or saving a provider payload. That pattern also matches token
//! *counts* (`max_tokens`, `budget_tokens`, `maxOutputTokens`, …), which are limits, not
//! credentials; forge-replay keeps those ([`is_safe_token_count_key`]) so a redacted payload still
//! compares equal to pi-ai's.
//!
//! [`forge_payload_view`] reproduces pi-forge's whole capture transform (depth, item and key caps,
//! image/base64/long-string elision) for comparing with files saved by `/forge payload … save=`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::js;

/// The replacement value for a secret.
pub const REDACTED: &str = "[redacted]";

/// pi-forge's secret-key test: the key contains (case-insensitively) `apikey`/`api-key`/`api_key`,
/// `authorization`, `bearer`, `token`, `secret`, `password`, `cookie` or `credential`.
pub fn matches_secret_pattern(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    const WORDS: [&str; 7] = [
        "authorization",
        "bearer",
        "token",
        "secret",
        "password",
        "cookie",
        "credential",
    ];
    WORDS.iter().any(|w| k.contains(w))
        || k.contains("apikey")
        || k.contains("api-key")
        || k.contains("api_key")
}

/// Token-count keys that match the secret pattern but hold numbers, not credentials
/// (compared after removing `_`, `-` and `.`, case-insensitively).
pub const SAFE_TOKEN_COUNT_KEYS: &[&str] = &[
    "maxtokens",
    "maxoutputtokens",
    "maxcompletiontokens",
    "maxinputtokens",
    "maxnewtokens",
    "budgettokens",
    "thinkingbudgettokens",
    "thinkingtokenbudget",
    "tokenbudget",
    "mintokens",
    "totaltokens",
    "inputtokens",
    "outputtokens",
    "prompttokens",
    "completiontokens",
    "reasoningtokens",
    "cachedtokens",
    "cachereadinputtokens",
    "cachecreationinputtokens",
    "thinkingtokens",
];

/// Whether a key is a token count ([`SAFE_TOKEN_COUNT_KEYS`]).
pub fn is_safe_token_count_key(key: &str) -> bool {
    let norm: String = key
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    SAFE_TOKEN_COUNT_KEYS.contains(&norm.as_str())
}

/// Whether the value under this key is replaced: it matches pi-forge's pattern and is not a
/// token count.
pub fn is_secret_key(key: &str) -> bool {
    matches_secret_pattern(key) && !is_safe_token_count_key(key)
}

/// A copy of `value` with every secret key's value replaced by `"[redacted]"` (at any depth).
pub fn redact_value(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(redact_value).collect()),
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                if is_secret_key(k) {
                    out.insert(k.clone(), Value::String(REDACTED.into()));
                } else {
                    out.insert(k.clone(), redact_value(v));
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Redacts `value` in place; returns how many values were replaced.
pub fn redact_in_place(value: &mut Value) -> usize {
    match value {
        Value::Array(items) => items.iter_mut().map(redact_in_place).sum(),
        Value::Object(map) => {
            let mut n = 0;
            for (k, v) in map.iter_mut() {
                if is_secret_key(k) {
                    if v.as_str() != Some(REDACTED) {
                        *v = Value::String(REDACTED.into());
                        n += 1;
                    }
                } else {
                    n += redact_in_place(v);
                }
            }
            n
        }
        _ => 0,
    }
}

/// Header names whose values are secrets even though pi-forge's key pattern misses them.
const SECRET_HEADERS: &[&str] = &[
    "x-goog-api-key",
    "proxy-authorization",
    "chatgpt-account-id",
];

/// Redacts HTTP headers: secret names (by pattern, plus a few known auth headers) get
/// `"[redacted]"`.
pub fn redact_headers(headers: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    headers
        .iter()
        .map(|(k, v)| {
            let secret =
                is_secret_key(k) || SECRET_HEADERS.contains(&k.to_ascii_lowercase().as_str());
            (
                k.clone(),
                if secret {
                    REDACTED.to_string()
                } else {
                    v.clone()
                },
            )
        })
        .collect()
}

/// pi-forge's full capture transform (`redactPayload`): secret keys (pi-forge's own pattern, so
/// token counts too), depth > 8, more than 80 array items, more than 120 keys, `data:image/` strings,
/// base64-like strings over 8000 characters and strings over 12000 characters.
pub fn forge_payload_view(value: &Value) -> Value {
    forge_view(value, 0)
}

fn forge_view(value: &Value, depth: usize) -> Value {
    if depth > 8 {
        return Value::String("[pi-forge: max depth reached]".into());
    }
    match value {
        Value::String(s) => Value::String(forge_long_string(s)),
        Value::Array(items) => {
            let mut out: Vec<Value> = items
                .iter()
                .take(80)
                .map(|v| forge_view(v, depth + 1))
                .collect();
            if items.len() > 80 {
                out.push(Value::String(format!(
                    "[pi-forge: {} more items omitted]",
                    items.len() - 80
                )));
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (count, (k, v)) in forge_replay_model::json::js_key_order(map)
                .into_iter()
                .enumerate()
            {
                if count + 1 > 120 {
                    out.insert(
                        "[pi-forge: omitted]".into(),
                        Value::String("object has more than 120 keys".into()),
                    );
                    break;
                }
                if matches_secret_pattern(k) {
                    out.insert(k.clone(), Value::String(REDACTED.into()));
                } else {
                    out.insert(k.clone(), forge_view(v, depth + 1));
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn forge_long_string(s: &str) -> String {
    if s.starts_with("data:image/") {
        return "[image data omitted]".into();
    }
    let len = js::len(s);
    if len > 8000
        && !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\r' | b'\n'))
    {
        return format!("[base64-like data omitted: {len} chars]");
    }
    if len > 12000 {
        return format!(
            "{}\n[pi-forge: string truncated from {len} chars]",
            crate::js::slice_utf16(s, 12000)
        );
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_go_token_counts_stay() {
        let v = json!({"max_tokens": 5, "thinking": {"budget_tokens": 3}, "apiKey": "k", "x-api-key": "k",
                       "headers": {"Authorization": "Bearer x"}, "prompt_cache_key": "s", "maxOutputTokens": 9,
                       "refresh_token": "t"});
        let r = redact_value(&v);
        assert_eq!(
            r,
            json!({"max_tokens": 5, "thinking": {"budget_tokens": 3}, "apiKey": "[redacted]", "x-api-key": "[redacted]",
                       "headers": {"Authorization": "[redacted]"}, "prompt_cache_key": "s", "maxOutputTokens": 9,
                       "refresh_token": "[redacted]"})
        );
    }

    #[test]
    fn forge_view_matches_pi_forge_rules() {
        let v = json!({"max_tokens": 5, "img": "data:image/png;base64,xx"});
        assert_eq!(
            forge_payload_view(&v),
            json!({"max_tokens": "[redacted]", "img": "[image data omitted]"})
        );
    }
}
