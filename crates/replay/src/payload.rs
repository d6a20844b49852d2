//! Reading payload files for [`crate::diff`]: plain JSON payloads, our goldens, oracle captures
//! (`{payload, wire:{body}}`) and payloads saved by pi-forge's `/forge payload next save=…`.
//!
//! pi-forge saves `JSON.stringify(redact(payload), null, 2)`: keys that look like secrets
//! (`/(api[-_]?key|authorization|bearer|token|secret|password|cookie|credential)/i`, which also
//! matches `max_tokens`) become `"[redacted]"`, long strings and arrays are cut, and nesting deeper
//! than 8 levels is replaced by a marker. Such a file is recognised by those markers; when one side
//! is a Forge save, the other side is put through the same redaction before comparing, so only real
//! differences remain.

use std::path::{Path, PathBuf};

use forge_replay_model::json;
use serde_json::{Map, Value};

use crate::golden::{Golden, GOLDEN_FORMAT};

/// What a payload file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadKind {
    /// Any JSON value.
    Plain,
    /// A forge-replay golden document.
    Golden,
    /// An oracle capture or replay record: `{payload, wire}` with `wire.body`.
    Capture,
    /// Saved by pi-forge's `/forge payload next save=…` (redacted).
    ForgeSaved,
}

/// A loaded payload file.
#[derive(Debug, Clone)]
pub struct PayloadDoc {
    pub path: PathBuf,
    pub kind: PayloadKind,
    /// The whole document as read.
    pub value: Value,
}

/// Errors from [`load`].
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    #[error("{path}: cannot read")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: not valid JSON: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path}: pi-forge truncated this payload when saving it ({marker}); it cannot be compared"
    )]
    Truncated { path: PathBuf, marker: String },
    #[error("{path}: {message}")]
    Golden { path: PathBuf, message: String },
}

const TRUNCATION_MARKER: &str = "[pi-forge: payload truncated after ";

/// Reads and classifies a payload file.
pub fn load(path: &Path) -> Result<PayloadDoc, PayloadError> {
    let text =
        forge_replay_session::input::read_to_string(path).map_err(|source| PayloadError::Read {
            path: path.into(),
            source,
        })?;
    if let Some(pos) = text.rfind(TRUNCATION_MARKER) {
        let marker = text[pos..].lines().next().unwrap_or_default().to_string();
        return Err(PayloadError::Truncated {
            path: path.into(),
            marker,
        });
    }
    let value = parse_with_position(path, &text)?;
    let kind = classify(&value);
    if kind == PayloadKind::Golden {
        Golden::from_value(&value).map_err(|message| PayloadError::Golden {
            path: path.into(),
            message,
        })?;
    }
    Ok(PayloadDoc {
        path: path.into(),
        kind,
        value,
    })
}

/// Parses with JavaScript semantics; on error, reports line and column.
pub(crate) fn parse_with_position(path: &Path, text: &str) -> Result<Value, PayloadError> {
    json::parse(text).map_err(|e| {
        let (line, column) = match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Err(se) => (se.line(), se.column()),
            Ok(_) => (1, e.column),
        };
        PayloadError::Parse {
            path: path.into(),
            line,
            column,
            message: e.message,
        }
    })
}

fn classify(v: &Value) -> PayloadKind {
    if let Some(o) = v.as_object() {
        if o.get("format").and_then(Value::as_str) == Some(GOLDEN_FORMAT) {
            return PayloadKind::Golden;
        }
        if o.contains_key("payload")
            && o.get("wire")
                .is_some_and(|w| w.is_null() || w.get("body").is_some())
        {
            return PayloadKind::Capture;
        }
    }
    if has_forge_markers(v, 0) {
        PayloadKind::ForgeSaved
    } else {
        PayloadKind::Plain
    }
}

fn has_forge_markers(v: &Value, depth: usize) -> bool {
    match v {
        Value::String(s) => {
            s == "[redacted]"
                || s.starts_with("[pi-forge: ")
                || s == "[image data omitted]"
                || s.starts_with("[base64-like data omitted: ")
                || (s.contains("\n[pi-forge: string truncated from "))
        }
        Value::Array(a) => depth < 64 && a.iter().any(|x| has_forge_markers(x, depth + 1)),
        Value::Object(o) => {
            depth < 64
                && (o.contains_key("[pi-forge: omitted]")
                    || o.values().any(|x| has_forge_markers(x, depth + 1)))
        }
        _ => false,
    }
}

/// The onPayload object of a document (a golden's or capture's `payload`, else the value).
fn payload_of(doc: &PayloadDoc) -> &Value {
    match doc.kind {
        PayloadKind::Golden | PayloadKind::Capture => {
            doc.value.get("payload").unwrap_or(&doc.value)
        }
        _ => &doc.value,
    }
}

/// `{payload, wire}` view of a golden or capture (wire = the HTTP body or null).
fn record_of(doc: &PayloadDoc) -> Value {
    let mut m = Map::new();
    m.insert("payload".into(), payload_of(doc).clone());
    let wire = doc.value.get("wire").cloned().unwrap_or(Value::Null);
    let body = match doc.kind {
        PayloadKind::Capture => wire.get("body").cloned().unwrap_or(Value::Null),
        _ => wire,
    };
    m.insert("wire".into(), body);
    Value::Object(m)
}

/// The two values to diff for a pair of documents, with redaction applied where one side is a
/// Forge save.
pub fn comparable(a: &PayloadDoc, b: &PayloadDoc) -> (Value, Value) {
    use PayloadKind::*;
    match (a.kind, b.kind) {
        (ForgeSaved, ForgeSaved) => (a.value.clone(), b.value.clone()),
        (ForgeSaved, _) => (a.value.clone(), redact(payload_of(b))),
        (_, ForgeSaved) => (redact(payload_of(a)), b.value.clone()),
        (Golden, Golden) | (Plain, Plain) => (a.value.clone(), b.value.clone()),
        (Golden | Capture, Golden | Capture) => (record_of(a), record_of(b)),
        (Plain, _) => (a.value.clone(), payload_of(b).clone()),
        (_, Plain) => (payload_of(a).clone(), b.value.clone()),
    }
}

/// pi-forge's payload redaction (`payload-capture.ts`), as applied before saving: the wire
/// crate's [`forge_replay_wire::redact::forge_payload_view`].
pub fn redact(v: &Value) -> Value {
    forge_replay_wire::redact::forge_payload_view(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redaction_matches_forge_rules() {
        let v = json!({"max_tokens": 5, "apiKey": "k", "x-api-key": "k", "model": "m",
                       "messages": [{"content": "data:image/png;base64,AAA"}]});
        let r = redact(&v);
        assert_eq!(r["max_tokens"], json!("[redacted]"));
        assert_eq!(r["apiKey"], json!("[redacted]"));
        assert_eq!(r["x-api-key"], json!("[redacted]"));
        assert_eq!(r["model"], json!("m"));
        assert_eq!(r["messages"][0]["content"], json!("[image data omitted]"));
    }

    #[test]
    fn forge_saved_is_recognised_and_other_side_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        std::fs::write(&a, r#"{"model":"m","max_tokens":"[redacted]"}"#).unwrap();
        std::fs::write(&b, r#"{"model":"m","max_tokens":77}"#).unwrap();
        let da = load(&a).unwrap();
        let db = load(&b).unwrap();
        assert_eq!(da.kind, PayloadKind::ForgeSaved);
        assert_eq!(db.kind, PayloadKind::Plain);
        let (x, y) = comparable(&da, &db);
        assert!(crate::diff::diff(&x, &y).is_empty());
    }

    #[test]
    fn truncated_save_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        std::fs::write(
            &a,
            "{\n  \"x\": \"y\n\n[pi-forge: payload truncated after 200000 chars]",
        )
        .unwrap();
        assert!(matches!(load(&a), Err(PayloadError::Truncated { .. })));
    }

    #[test]
    fn parse_error_names_line() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        std::fs::write(&a, "{\n  \"x\": 1,\n  oops\n}").unwrap();
        let e = load(&a).unwrap_err().to_string();
        assert!(e.contains("a.json:3:"), "{e}");
    }
}
