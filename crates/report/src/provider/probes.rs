//! The probe contexts (`probes/probes.json`, embedded).
//!
//! A probe is a small pi-ai `Context` built from named message *pieces*. Each piece carries a
//! marker string (`PROBE-LEAD`, `PROBE-MID`, …) so the classifier can find where it lands in an
//! assembled request. `tools/pi-oracle/src/report-probes.mjs` reads the same file to capture what
//! the real pi-ai sends for every probe (`fixtures/report/pi-ai/`).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The embedded probe file.
pub const PROBES_JSON: &str = include_str!("probes/probes.json");

/// Marker of the leading system prompt's preamble.
pub const LEAD: &str = "PROBE-LEAD";
/// Marker of the `cwd` section (removed by the mid-conversation message).
pub const CWD: &str = "PROBE-CWD";
/// Marker of the mid-conversation message's content text.
pub const MID: &str = "PROBE-MID";
/// Marker of the section the mid-conversation message patches in.
pub const SECTION: &str = "PROBE-SECTION";
/// Marker of the redefined tool's new description.
pub const REDEF: &str = "PROBE-REDEF";
/// Markers of the user and assistant turns, in conversation order.
pub const U1: &str = "PROBE-U1";
pub const A1: &str = "PROBE-A1";
pub const U2: &str = "PROBE-U2";
pub const A2: &str = "PROBE-A2";
pub const U3: &str = "PROBE-U3";
/// The tool every probe starts with and the one it adds and removes.
pub const KEPT_TOOL: &str = "read";
pub const REMOVED_TOOL: &str = "bash";
pub const ADDED_TOOL: &str = "grep";

/// Probe names, in file order.
pub const BASELINE: &str = "baseline";
pub const INSTRUCTIONS: &str = "instructions";
pub const TOOL_ADDITION: &str = "tool-addition";
pub const TOOL_REMOVAL: &str = "tool-removal";
pub const REDEFINITION: &str = "redefinition";
pub const AFTER_REMOVAL: &str = "after-removal";

/// Errors reading a probe file.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("probe file is not valid JSON")]
    Json(#[source] serde_json::Error),
    #[error("probe file: {0}")]
    Shape(String),
}

/// One probe: a name, what it exercises and its pi-ai context.
#[derive(Debug, Clone)]
pub struct Probe {
    pub name: String,
    pub what: String,
    /// `{"messages": [...]}`.
    pub context: Value,
}

/// The parsed probe file.
#[derive(Debug, Clone)]
pub struct ProbeSet {
    pub version: u64,
    /// `SimpleStreamOptions` for every probe.
    pub options: Value,
    /// Environment variables pi-ai reads (the case's `env`).
    pub env: Value,
    /// `provider/id` references that represent their (API, flag set) group when present.
    pub preferred_models: Vec<String>,
    pub probes: Vec<Probe>,
    /// sha256 of the file bytes (first 12 hex digits are shown in the provenance line).
    pub sha256: String,
}

impl ProbeSet {
    /// The embedded probe set.
    pub fn builtin() -> Result<ProbeSet, ProbeError> {
        ProbeSet::parse(PROBES_JSON)
    }

    /// Parses a probe file.
    pub fn parse(text: &str) -> Result<ProbeSet, ProbeError> {
        let doc: Value = serde_json::from_str(text).map_err(ProbeError::Json)?;
        let shape = |m: &str| ProbeError::Shape(m.to_string());
        let version = doc
            .get("version")
            .and_then(Value::as_u64)
            .ok_or_else(|| shape("`version` must be a number"))?;
        let pieces = doc
            .get("pieces")
            .and_then(Value::as_object)
            .ok_or_else(|| shape("`pieces` must be an object"))?;
        let preferred_models = doc
            .get("preferredModels")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut probes = Vec::new();
        for (i, p) in doc
            .get("probes")
            .and_then(Value::as_array)
            .ok_or_else(|| shape("`probes` must be an array"))?
            .iter()
            .enumerate()
        {
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ProbeError::Shape(format!("probes[{i}].name must be a string")))?;
            let what = p.get("what").and_then(Value::as_str).unwrap_or_default();
            let mut messages = Vec::new();
            for (j, piece) in p
                .get("messages")
                .and_then(Value::as_array)
                .ok_or_else(|| ProbeError::Shape(format!("probes[{i}].messages must be an array")))?
                .iter()
                .enumerate()
            {
                let key = piece.as_str().unwrap_or_default();
                let m = pieces.get(key).ok_or_else(|| {
                    ProbeError::Shape(format!("probes[{i}].messages[{j}]: unknown piece `{key}`"))
                })?;
                messages.push(m.clone());
            }
            probes.push(Probe {
                name: name.to_string(),
                what: what.to_string(),
                context: serde_json::json!({ "messages": messages }),
            });
        }
        for required in [
            BASELINE,
            INSTRUCTIONS,
            TOOL_ADDITION,
            TOOL_REMOVAL,
            REDEFINITION,
            AFTER_REMOVAL,
        ] {
            if !probes.iter().any(|p| p.name == required) {
                return Err(ProbeError::Shape(format!("missing probe `{required}`")));
            }
        }
        let sha256 = hex(&Sha256::digest(text.as_bytes()));
        Ok(ProbeSet {
            version,
            options: doc.get("options").cloned().unwrap_or(Value::Null),
            env: doc.get("env").cloned().unwrap_or(Value::Null),
            preferred_models,
            probes,
            sha256,
        })
    }

    /// The probe with this name.
    pub fn get(&self, name: &str) -> Option<&Probe> {
        self.probes.iter().find(|p| p.name == name)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_probes_parse() {
        let set = ProbeSet::builtin().unwrap();
        assert_eq!(set.probes.len(), 6);
        let after = set.get(AFTER_REMOVAL).unwrap();
        assert_eq!(after.context["messages"].as_array().unwrap().len(), 8);
        assert_eq!(set.sha256.len(), 64);
    }

    #[test]
    fn unknown_piece_is_named() {
        let err = ProbeSet::parse(
            r#"{"version":1,"pieces":{},"probes":[{"name":"x","messages":["nope"]}]}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown piece `nope`"), "{err}");
    }

    #[test]
    fn bad_json_is_printed_once() {
        let err = ProbeSet::parse("{").unwrap_err();
        let text = forge_replay_model::error::chain(&err);
        assert!(
            text.starts_with("probe file is not valid JSON: EOF"),
            "{text}"
        );
        assert_eq!(text.matches("EOF").count(), 1, "{text}");
    }
}
