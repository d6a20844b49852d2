//! Golden store: `fixtures/golden/<scenario>/<model-slug>/<NNN>.json`.
//!
//! A golden is one assembled request of one scenario for one model, written as a versioned
//! document ([`Golden`]). Reads check the `format` and `version` fields; writes are atomic (a
//! temporary file in the same directory, then a rename) and happen only through
//! [`GoldenStore::bless`], which `forge-replay verify --bless` calls.

use std::fs;
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
    #[error("{path}: cannot read golden")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("golden {path} is not valid JSON: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("golden {path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error("cannot write goldens")]
    Write(#[from] forge_replay_io::WriteError),
    #[error("unsafe golden directory")]
    Unsafe(#[from] forge_replay_io::path::UnsafePath),
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

/// Name of the index file `--bless` writes into each golden directory: the goldens it wrote.
pub const INDEX_FILE: &str = "index.json";
/// `format` field of an index.
pub const INDEX_FORMAT: &str = "forge-replay-bless-index";

/// The index of one golden directory: which files `--bless` wrote there, and whether their
/// secrets were redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldenIndex {
    pub scenario: String,
    pub model: String,
    /// Whether the goldens were written redacted (the default; `--no-redact` writes them as
    /// they are).
    pub redacted: bool,
    /// Golden file names, in request order.
    pub files: Vec<String>,
}

impl GoldenIndex {
    /// Pretty JSON text with a trailing newline.
    pub fn to_text(&self) -> String {
        let mut m = Map::new();
        m.insert("format".into(), INDEX_FORMAT.into());
        m.insert("version".into(), 1.into());
        m.insert("scenario".into(), self.scenario.clone().into());
        m.insert("model".into(), self.model.clone().into());
        m.insert("redacted".into(), self.redacted.into());
        m.insert(
            "files".into(),
            Value::Array(self.files.iter().cloned().map(Value::from).collect()),
        );
        let mut s = json::stringify_pretty(&Value::Object(m));
        s.push('\n');
        s
    }

    fn parse(path: &Path, text: &str) -> Result<GoldenIndex, GoldenError> {
        let format = |message: String| GoldenError::Format {
            path: path.into(),
            message,
        };
        let v = json::parse(text).map_err(|e| GoldenError::Parse {
            path: path.into(),
            message: e.to_string(),
        })?;
        if v.get("format").and_then(Value::as_str) != Some(INDEX_FORMAT)
            || v.get("version").and_then(Value::as_u64) != Some(1)
        {
            return Err(format(format!("not a version 1 {INDEX_FORMAT} (re-bless)")));
        }
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format(format!("field `{k}` must be a string")))
        };
        let files = v
            .get("files")
            .and_then(Value::as_array)
            .and_then(|a| {
                a.iter()
                    .map(|f| f.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| format("field `files` must be an array of file names".into()))?;
        for f in &files {
            forge_replay_io::path::check_component("golden file name", f)
                .map_err(|e| format(e.to_string()))?;
        }
        Ok(GoldenIndex {
            scenario: s("scenario")?,
            model: s("model")?,
            redacted: v.get("redacted").and_then(Value::as_bool).unwrap_or(true),
            files,
        })
    }
}

/// The golden directory tree.
///
/// Reading: a directory with an [`INDEX_FILE`] holds exactly the goldens the index names (other
/// files are not goldens); an older directory without one holds its `*.json` files. Temporary
/// files ([`forge_replay_io::is_temp_name`]) are never read. Writing happens only in
/// [`GoldenStore::bless`], inside a [`forge_replay_io::Txn`]: the whole run's goldens are staged
/// and then installed together, and a killed run leaves the old tree (or a journal the next bless
/// finishes; [`GoldenStore::pending`] lets readers refuse such a tree).
#[derive(Debug, Clone)]
pub struct GoldenStore {
    root: PathBuf,
    redact: bool,
}

impl GoldenStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        GoldenStore {
            root: root.into(),
            redact: true,
        }
    }

    /// Whether [`GoldenStore::bless`] redacts secrets in what it writes (default `true`).
    pub fn redacting(mut self, redact: bool) -> Self {
        self.redact = redact;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of one scenario × model, relative to the root, with both names checked:
    /// the scenario name is a relative path of safe components, the model's slug one safe
    /// component, and the directory does not lead out of the root through a symlink.
    pub fn case_dir(&self, scenario: &str, model: &str) -> Result<PathBuf, GoldenError> {
        let rel = forge_replay_io::path::check_relative("scenario name", scenario)?;
        forge_replay_io::path::check_component("model", &model_slug(model)).map_err(|mut e| {
            e.value = model.to_string();
            e.reason = format!(
                "gives the golden directory name {:?}, which {}",
                model_slug(model),
                e.reason
            );
            e
        })?;
        let rel = rel.join(model_slug(model));
        forge_replay_io::path::check_inside("scenario name", &self.root, &rel)?;
        Ok(rel)
    }

    /// Directory of one scenario × model (unchecked: see [`GoldenStore::case_dir`]).
    pub fn dir(&self, scenario: &str, model: &str) -> PathBuf {
        self.root.join(scenario).join(model_slug(model))
    }

    /// Path of request `index` (unchecked: see [`GoldenStore::case_dir`]).
    pub fn path(&self, scenario: &str, model: &str, index: usize) -> PathBuf {
        self.dir(scenario, model).join(file_name(index))
    }

    /// The journal of an interrupted `--bless`, if the tree has one: the tree may be half
    /// updated, so it must not be read until a bless finishes it.
    pub fn pending(&self) -> Option<PathBuf> {
        forge_replay_io::Txn::pending(&self.root)
    }

    /// Reads one golden; `Ok(None)` when the file does not exist.
    pub fn read(&self, path: &Path) -> Result<Option<Golden>, GoldenError> {
        let text = match forge_replay_session::input::read_to_string(path) {
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

    /// The index of one golden directory; `Ok(None)` for a directory without one.
    pub fn index(&self, scenario: &str, model: &str) -> Result<Option<GoldenIndex>, GoldenError> {
        let path = self.dir(scenario, model).join(INDEX_FILE);
        match forge_replay_session::input::read_to_string(&path) {
            Ok(text) => GoldenIndex::parse(&path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(GoldenError::Read { path, source }),
        }
    }

    /// Golden files of one scenario × model, sorted by name: the index's files, or for a
    /// directory without an index its `*.json` files (temporary and hidden files never count).
    pub fn existing(&self, scenario: &str, model: &str) -> Result<Vec<PathBuf>, GoldenError> {
        let dir = self.dir(scenario, model);
        if let Some(index) = self.index(scenario, model)? {
            let mut v: Vec<PathBuf> = index.files.iter().map(|f| dir.join(f)).collect();
            v.sort();
            return Ok(v);
        }
        let mut v: Vec<PathBuf> = fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter(|e| !forge_replay_io::is_temp_name(&e.file_name()))
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
        Ok(v)
    }

    /// Starts a bless run over the tree (finishing an interrupted one first).
    pub fn begin_bless(&self) -> Result<forge_replay_io::Txn, GoldenError> {
        Ok(forge_replay_io::Txn::begin(&self.root, "bless")?)
    }

    /// Stages the goldens of one scenario × model in `txn` and returns how many files will
    /// change: goldens whose bytes differ, and goldens of the previous bless (as its index lists
    /// them) that no longer have a request. Nothing else in the directory is touched; nothing
    /// is visible before `txn` commits.
    pub fn bless(
        &self,
        txn: &forge_replay_io::Txn,
        scenario: &str,
        model: &str,
        goldens: &[Golden],
    ) -> Result<usize, GoldenError> {
        let rel = self.case_dir(scenario, model)?;
        let dir = self.root.join(&rel);
        let old = self.index(scenario, model)?;
        let mut stage = txn.stage(&rel, "scenario name")?;
        let mut changed = 0;
        let mut files = Vec::with_capacity(goldens.len());
        for g in goldens {
            let name = file_name(g.index);
            let mut text = g.to_text();
            if self.redact {
                if let std::borrow::Cow::Owned(r) = forge_replay_model::redact::json_text(&text) {
                    text = r;
                }
            }
            if forge_replay_session::input::read_to_string(&dir.join(&name))
                .is_ok_and(|old| old == text)
            {
                files.push(name);
                continue;
            }
            stage.write(&name, text.as_bytes())?;
            changed += 1;
            files.push(name);
        }
        if let Some(old) = &old {
            for f in &old.files {
                if !files.contains(f) {
                    stage.remove(f)?;
                    changed += 1;
                }
            }
        }
        let index = GoldenIndex {
            scenario: scenario.to_string(),
            model: model.to_string(),
            redacted: self.redact,
            files,
        };
        let text = index.to_text();
        if forge_replay_session::input::read_to_string(&dir.join(INDEX_FILE))
            .ok()
            .as_deref()
            != Some(text.as_str())
        {
            // The index goes last: it names what the directory holds once the rest is in.
            stage.write(INDEX_FILE, text.as_bytes())?;
        }
        stage.finish();
        Ok(changed)
    }
}

/// `NNN.json`.
pub fn file_name(index: usize) -> String {
    format!("{index:03}.json")
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

    fn bless(store: &GoldenStore, goldens: &[Golden]) -> usize {
        let txn = store.begin_bless().unwrap();
        let n = store
            .bless(&txn, "s", "anthropic/claude-opus-4-8", goldens)
            .unwrap();
        txn.commit().unwrap();
        n
    }

    #[test]
    fn round_trip_and_bless_removes_only_what_its_index_lists() {
        let dir = tempfile::tempdir().unwrap();
        let store = GoldenStore::new(dir.path());
        assert_eq!(bless(&store, &[sample(0), sample(1)]), 2);
        let p = store.path("s", "anthropic/claude-opus-4-8", 1);
        assert!(p.ends_with("s/anthropic--claude-opus-4-8/001.json"));
        assert_eq!(store.read(&p).unwrap(), Some(sample(1)));
        let index = store
            .index("s", "anthropic/claude-opus-4-8")
            .unwrap()
            .unwrap();
        assert_eq!(index.files, ["000.json", "001.json"]);
        assert!(index.redacted);
        // Files bless did not write stay, even when they look like goldens.
        let foreign = store.path("s", "anthropic/claude-opus-4-8", 7);
        fs::write(&foreign, sample(7).to_text()).unwrap();
        assert_eq!(bless(&store, &[sample(0), sample(1)]), 0, "nothing changed");
        assert_eq!(bless(&store, &[sample(0)]), 1);
        assert_eq!(
            store.existing("s", "anthropic/claude-opus-4-8").unwrap(),
            [store.path("s", "anthropic/claude-opus-4-8", 0)]
        );
        assert_eq!(store.read(&p).unwrap(), None);
        assert!(foreign.exists());
    }

    #[test]
    fn unsafe_names_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = GoldenStore::new(dir.path().join("golden"));
        for (scenario, model, why) in [
            ("/abs", "a/b", "absolute path"),
            ("../../x", "a/b", "escapes its directory"),
            ("", "a/b", "is empty"),
            (".", "a/b", "\".\""),
            ("s", "..", "golden directory name \"..\""),
            ("s", "", "golden directory name \"\""),
            ("s", ".x", "starts with `.`"),
        ] {
            let e = store.case_dir(scenario, model).unwrap_err();
            let msg = forge_replay_model::error::chain(&e);
            assert!(msg.contains(why), "{scenario:?} {model:?}: {msg}");
        }
        let long = "x".repeat(300);
        assert!(store.case_dir(&long, "a/b").is_err());
        assert!(!dir.path().join("golden").exists());
    }

    #[test]
    fn version_is_checked() {
        let mut v = sample(0).to_value();
        v["version"] = json!(99);
        let e = Golden::from_value(&v).unwrap_err();
        assert!(e.contains("unsupported golden version 99"), "{e}");
    }
}
