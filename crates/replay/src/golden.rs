//! Golden store: `fixtures/golden/<scenario>/<model-slug>/<NNN>.json`.
//!
//! A golden is one assembled request of one scenario for one model, written as a versioned
//! document ([`Golden`]). Reads check the `format` and `version` fields; writes are atomic (a
//! temporary file in the same directory, then a rename) and happen only through
//! [`GoldenStore::bless`], which `forge-replay verify --bless` calls.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use forge_replay_model::json;
use serde_json::{Map, Value};

/// `format` field of every golden document.
pub const GOLDEN_FORMAT: &str = "forge-replay-golden";
/// Current golden document version.
pub const GOLDEN_VERSION: u64 = 1;

/// One golden request.
#[derive(Debug, Clone, PartialEq)]
pub struct Golden {
    pub scenario: String,
    /// `provider/id`.
    pub model: String,
    pub api: String,
    /// Position of the request along the scenario's path (0-based).
    pub index: usize,
    /// Assistant entry the request produced.
    pub entry_id: String,
    /// The `onPayload` object.
    pub payload: Value,
    /// The HTTP body (`null` for APIs without one: Bedrock, Codex).
    pub wire: Value,
}

impl Golden {
    /// The on-disk document (key order fixed).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("format".into(), GOLDEN_FORMAT.into());
        m.insert("version".into(), GOLDEN_VERSION.into());
        m.insert("scenario".into(), self.scenario.clone().into());
        m.insert("model".into(), self.model.clone().into());
        m.insert("api".into(), self.api.clone().into());
        m.insert("index".into(), self.index.into());
        m.insert("entryId".into(), self.entry_id.clone().into());
        m.insert("payload".into(), self.payload.clone());
        m.insert("wire".into(), self.wire.clone());
        Value::Object(m)
    }

    /// Reads a document produced by [`Golden::to_value`].
    pub fn from_value(v: &Value) -> Result<Golden, String> {
        let o = v.as_object().ok_or("golden root must be an object")?;
        match o.get("format").and_then(Value::as_str) {
            Some(GOLDEN_FORMAT) => {}
            _ => return Err(format!("field `format` must be \"{GOLDEN_FORMAT}\"")),
        }
        match o.get("version").and_then(Value::as_u64) {
            Some(GOLDEN_VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "unsupported golden version {other} (this build reads version {GOLDEN_VERSION}; re-bless)"
                ))
            }
            None => return Err("field `version` must be a number".into()),
        }
        let s = |k: &str| -> Result<String, String> {
            o.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("field `{k}` must be a string"))
        };
        Ok(Golden {
            scenario: s("scenario")?,
            model: s("model")?,
            api: s("api")?,
            index: o
                .get("index")
                .and_then(Value::as_u64)
                .ok_or("field `index` must be a number")? as usize,
            entry_id: s("entryId")?,
            payload: o
                .get("payload")
                .cloned()
                .ok_or("field `payload` is missing")?,
            wire: o.get("wire").cloned().unwrap_or(Value::Null),
        })
    }

    /// Pretty JSON text with a trailing newline.
    pub fn to_text(&self) -> String {
        let mut s = json::stringify_pretty(&self.to_value());
        s.push('\n');
        s
    }
}

/// Errors of the golden store.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("cannot read golden {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("golden {path} is not valid JSON: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("golden {path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error("cannot write golden {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// File-name slug of a `provider/id` model: `anthropic/claude-opus-4-8` → `anthropic--claude-opus-4-8`.
pub fn model_slug(model: &str) -> String {
    model
        .replace('/', "--")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The golden directory tree.
#[derive(Debug, Clone)]
pub struct GoldenStore {
    root: PathBuf,
}

impl GoldenStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        GoldenStore { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Directory of one scenario × model.
    pub fn dir(&self, scenario: &str, model: &str) -> PathBuf {
        self.root.join(scenario).join(model_slug(model))
    }

    /// Path of request `index`.
    pub fn path(&self, scenario: &str, model: &str, index: usize) -> PathBuf {
        self.dir(scenario, model).join(format!("{index:03}.json"))
    }

    /// Reads one golden; `Ok(None)` when the file does not exist.
    pub fn read(&self, path: &Path) -> Result<Option<Golden>, GoldenError> {
        let text = match fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(GoldenError::Read {
                    path: path.into(),
                    source,
                })
            }
        };
        let value = json::parse(&text).map_err(|e| GoldenError::Parse {
            path: path.into(),
            message: e.to_string(),
        })?;
        Golden::from_value(&value)
            .map(Some)
            .map_err(|message| GoldenError::Format {
                path: path.into(),
                message,
            })
    }

    /// Golden files present for one scenario × model, sorted by name.
    pub fn existing(&self, scenario: &str, model: &str) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(self.dir(scenario, model))
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.extension().is_some_and(|x| x == "json")
                            && !p
                                .file_name()
                                .and_then(|n| n.to_str())
                                .is_some_and(|n| n.starts_with('.'))
                    })
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// Writes the goldens of one scenario × model (atomically, file by file) and removes stale
    /// ones beyond the new count. Files whose bytes are unchanged are not rewritten.
    pub fn bless(
        &self,
        scenario: &str,
        model: &str,
        goldens: &[Golden],
    ) -> Result<usize, GoldenError> {
        let mut written = 0;
        for g in goldens {
            let path = self.path(scenario, model, g.index);
            let text = g.to_text();
            if fs::read_to_string(&path).is_ok_and(|old| old == text) {
                continue;
            }
            write_atomic(&path, text.as_bytes())?;
            written += 1;
        }
        let keep: std::collections::BTreeSet<PathBuf> = goldens
            .iter()
            .map(|g| self.path(scenario, model, g.index))
            .collect();
        for stale in self.existing(scenario, model) {
            if !keep.contains(&stale) {
                fs::remove_file(&stale).map_err(|source| GoldenError::Write {
                    path: stale.clone(),
                    source,
                })?;
                written += 1;
            }
        }
        Ok(written)
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), GoldenError> {
    let err = |source| GoldenError::Write {
        path: path.into(),
        source,
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(dir).map_err(err)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("golden");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(index: usize) -> Golden {
        Golden {
            scenario: "s".into(),
            model: "anthropic/claude-opus-4-8".into(),
            api: "anthropic-messages".into(),
            index,
            entry_id: "0000000a".into(),
            payload: json!({"model": "claude-opus-4-8", "max_tokens": 1}),
            wire: json!({"model": "claude-opus-4-8"}),
        }
    }

    #[test]
    fn round_trip_and_bless_removes_stale() {
        let dir = tempfile::tempdir().unwrap();
        let store = GoldenStore::new(dir.path());
        store
            .bless("s", "anthropic/claude-opus-4-8", &[sample(0), sample(1)])
            .unwrap();
        let p = store.path("s", "anthropic/claude-opus-4-8", 1);
        assert!(p.ends_with("s/anthropic--claude-opus-4-8/001.json"));
        assert_eq!(store.read(&p).unwrap(), Some(sample(1)));
        store
            .bless("s", "anthropic/claude-opus-4-8", &[sample(0)])
            .unwrap();
        assert_eq!(store.existing("s", "anthropic/claude-opus-4-8").len(), 1);
        assert_eq!(store.read(&p).unwrap(), None);
    }

    #[test]
    fn version_is_checked() {
        let mut v = sample(0).to_value();
        v["version"] = json!(99);
        let e = Golden::from_value(&v).unwrap_err();
        assert!(e.contains("unsupported golden version 99"), "{e}");
    }
}
