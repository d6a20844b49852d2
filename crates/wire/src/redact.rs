//! pi-forge's payload capture transform, for comparing with files pi-forge saved.
//!
//! pi-forge (`src/payload-capture.ts`, `redactPayload`) replaces the value of every object key
//! that matches its secret pattern ([`forge_replay_model::redact::matches_secret_pattern`],
//! token counts included) with `"[redacted]"`, and cuts deep, long and image data, before showing
//! or saving a provider payload. [`forge_payload_view`] reproduces that whole transform, so a
//! request can be compared with a file saved by `/forge payload … save=`.
//!
//! Redacting what forge-replay itself prints or writes is a different step, with its own rules
//! (token counts kept): [`forge_replay_model::redact`].

use forge_replay_model::redact::{matches_secret_pattern, REDACTED};
use serde_json::{Map, Value};

use crate::js;

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
    fn forge_view_matches_pi_forge_rules() {
        let v = json!({"max_tokens": 5, "img": "data:image/png;base64,xx", "apiKey": "k"});
        assert_eq!(
            forge_payload_view(&v),
            json!({"max_tokens": "[redacted]", "img": "[image data omitted]", "apiKey": "[redacted]"})
        );
    }
}
