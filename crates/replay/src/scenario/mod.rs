//! Scripted scenarios: a versioned TOML format compiled into a real Pi 0.87.1 session JSONL plus
//! the pi-forge capability library it needs.
//!
//! [`load`] reads and validates a scenario file ([`spec::ScenarioFile`]); [`compile`] turns it
//! into a [`Compiled`] session, writing every entry as Pi's `SessionManager` and pi-forge would
//! (key orders included): the leading system message on the first request, tool-change system
//! messages before each request whose tool set changed, Forge capability events, tool baselines
//! and delivery anchors where Forge writes them, compactions with their system checkpoint, branch
//! navigation and summaries. [`write`](fn@write) stores it under an output directory.
//!
//! Errors name the file, the line and the field ([`ScenarioError`]).

mod compile;
pub mod spec;

use std::path::{Component, Path, PathBuf};

use forge_replay_session::input::VisitedDirs;

pub use compile::{compile, Compiled};

/// Errors from loading, compiling or writing a scenario.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{path}: cannot read scenario")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}:{line}: field `{field}`: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        field: String,
        message: String,
    },
    #[error("{path}:{line}: field `{field}`: {reference:?} {reason}; a scenario may only reference files inside its own directory")]
    Escape {
        path: PathBuf,
        line: usize,
        field: String,
        reference: String,
        reason: &'static str,
    },
    #[error(transparent)]
    Write(#[from] forge_replay_io::WriteError),
}

/// A parsed scenario with the text it came from (for line numbers).
#[derive(Debug)]
pub struct Loaded {
    pub path: PathBuf,
    pub text: String,
    pub file: spec::ScenarioFile,
}

impl Loaded {
    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        line_of(&self.text, offset)
    }

    /// 1-based line where `key =` first appears at the start of a line (top-level fields).
    pub fn line_of_key(&self, key: &str) -> usize {
        self.text
            .lines()
            .position(|l| {
                let t = l.trim_start();
                t.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with('='))
            })
            .map_or(1, |i| i + 1)
    }

    /// The scenario's directory.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or_else(|| Path::new("."))
    }

    /// The scenario name (`name`, else the file stem, else the directory name for `scenario.toml`).
    pub fn name(&self) -> String {
        if let Some(n) = &self.file.name {
            return n.clone();
        }
        let stem = self
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("scenario");
        if stem == "scenario" {
            if let Some(d) = self.dir().file_name().and_then(|s| s.to_str()) {
                return d.to_string();
            }
        }
        stem.to_string()
    }

    /// Resolves a file reference inside the scenario's directory tree, refusing absolute paths,
    /// `..` escapes and symlinks leading outside.
    pub fn resolve(
        &self,
        reference: &str,
        line: usize,
        field: &str,
    ) -> Result<PathBuf, ScenarioError> {
        let escape = |reason| ScenarioError::Escape {
            path: self.path.clone(),
            line,
            field: field.into(),
            reference: reference.into(),
            reason,
        };
        let p = Path::new(reference);
        if p.is_absolute() || reference.starts_with('/') || reference.starts_with('\\') {
            return Err(escape("is an absolute path"));
        }
        if p.components().any(|c| {
            matches!(
                c,
                Component::ParentDir | Component::Prefix(_) | Component::RootDir
            )
        }) {
            return Err(escape("escapes with `..`"));
        }
        let joined = self.dir().join(p);
        if let (Ok(real), Ok(root)) = (joined.canonicalize(), self.dir().canonicalize()) {
            if !real.starts_with(&root) {
                return Err(escape(
                    "resolves (through a symlink) outside the scenario directory",
                ));
            }
        }
        Ok(joined)
    }
}

pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Reads and parses a scenario file, checking `format` and `version`.
pub fn load(path: &Path) -> Result<Loaded, ScenarioError> {
    let text = forge_replay_session::input::read_to_string(path).map_err(|source| {
        ScenarioError::Read {
            path: path.into(),
            source,
        }
    })?;
    parse(path, text)
}

/// Parses scenario text as if read from `path` (references resolve next to it), checking
/// `format` and `version`: [`load`] without the read.
pub fn parse(path: &Path, text: String) -> Result<Loaded, ScenarioError> {
    let file: spec::ScenarioFile = toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(&text, s.start));
        ScenarioError::Syntax {
            path: path.into(),
            line,
            message: e.message().trim().to_string(),
        }
    })?;
    let loaded = Loaded {
        path: path.into(),
        text,
        file,
    };
    if loaded.file.format != spec::SCENARIO_FORMAT {
        return Err(ScenarioError::Invalid {
            path: path.into(),
            line: loaded.line_of_key("format"),
            field: "format".into(),
            message: format!("must be \"{}\"", spec::SCENARIO_FORMAT),
        });
    }
    if loaded.file.version != spec::SCENARIO_VERSION {
        return Err(ScenarioError::Invalid {
            path: path.into(),
            line: loaded.line_of_key("version"),
            field: "version".into(),
            message: format!(
                "unsupported scenario version {} (this build reads version {})",
                loaded.file.version,
                spec::SCENARIO_VERSION
            ),
        });
    }
    if let Some(pi) = &loaded.file.pi {
        if let Err(e) = forge_replay_model::release::PiRelease::parse(pi) {
            return Err(ScenarioError::Invalid {
                path: path.into(),
                line: loaded.line_of_key("pi"),
                field: "pi".into(),
                message: e.to_string(),
            });
        }
    }
    Ok(loaded)
}

/// Every scenario file under `paths` (files as given; directories searched recursively for
/// `*.toml`), sorted, deduplicated.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ScenarioError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk_dir(p, &mut out, &mut VisitedDirs::new())?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Each directory once, whatever symlink leads to it (`visited`).
fn walk_dir(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    visited: &mut VisitedDirs,
) -> Result<(), ScenarioError> {
    if !visited.first_visit(dir) {
        return Ok(());
    }
    let rd = std::fs::read_dir(dir).map_err(|source| ScenarioError::Read {
        path: dir.into(),
        source,
    })?;
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk_dir(&p, out, visited)?;
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
    Ok(())
}

/// What [`write()`] wrote of `compiled` under `out`, as said on stderr.
pub fn wrote(compiled: &Compiled, out: &Path) -> String {
    format!(
        "{}: wrote {} entries to {} (and its capability library under {})",
        compiled.name,
        compiled.entries,
        out.join("session.jsonl").display(),
        out.display()
    )
}

/// Writes `session.jsonl`, `.pi/forge/capabilities/*.json` and `scenario.json` under `out`, each
/// file atomically. With `redact`, secrets in the session and the library are redacted
/// ([`forge_replay_model::redact::json_text`]) and `sessionSha256` is the hash of the bytes written.
pub fn write(compiled: &Compiled, out: &Path, redact: bool) -> Result<(), ScenarioError> {
    let shown = |text: &str| -> String {
        if redact {
            forge_replay_model::redact::json_text(text).into_owned()
        } else {
            text.to_string()
        }
    };
    let session = shown(&compiled.session_jsonl);
    forge_replay_io::write_atomic(&out.join("session.jsonl"), session.as_bytes())?;
    let lib = out.join(".pi/forge/capabilities");
    for (name, bytes) in &compiled.library {
        // Library names are the file names of the scenario's own library directory.
        forge_replay_io::path::check_component("capability file name", name)
            .map_err(forge_replay_io::WriteError::from)?;
        let text = String::from_utf8_lossy(bytes);
        let bytes = match (redact, forge_replay_model::redact::json_text(&text)) {
            (true, std::borrow::Cow::Owned(r)) => r.into_bytes(),
            _ => bytes.clone(),
        };
        forge_replay_io::write_atomic(&lib.join(name), &bytes)?;
    }
    let mut meta = compiled.metadata();
    meta["sessionSha256"] = compile::sha256_hex(session.as_bytes()).into();
    let mut text = forge_replay_model::json::stringify_pretty(&meta);
    text.push('\n');
    forge_replay_io::write_atomic(&out.join("scenario.json"), shown(&text).as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_scenario_says_where() {
        let path = forge_replay_testkit::repo_root().join("scenarios/01-read-first-worker.toml");
        let compiled = compile(&load(&path).unwrap()).unwrap();
        let said = wrote(&compiled, Path::new("out"));
        let expected = format!(
            "{}: wrote {} entries to {} (and its capability library under out)",
            compiled.name,
            compiled.entries,
            Path::new("out").join("session.jsonl").display()
        );
        assert_eq!(said, expected);
    }
}
