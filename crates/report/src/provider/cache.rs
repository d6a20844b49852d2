//! Observed cache behaviour around tool changes, from recorded sessions.
//!
//! For every session given with `--sessions`, the active path's main requests are read with
//! `forge-replay-usage` (pi-forge's request semantics: assistant messages with non-zero usage).
//! Tool changes are the persisted system messages with `toolsAdded` / `toolsRemoved` after the
//! first request (the first request's declarations are the initial loadout). Each
//! request is placed relative to the nearest tool change before it: `before` (the last request
//! before a change), `at` (the first request whose context contains it) and `after` (the next
//! one). Hit rates are sums, never averages of percentages:
//! `cacheRead / (input + cacheRead + cacheWrite)`. Delivery is `native` when the request's model
//! has `supportsMidConvoSystemMessages` in the catalog, else `fallback` (pi-forge then sends
//! capability updates as user messages and the prompt is folded).

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use forge_replay_session::input::VisitedDirs;
use forge_replay_usage::{hit_rate, SessionData, Totals};
use serde_json::Value;

use super::render::Plot;
use super::variants::CatalogModel;
use crate::plot::{
    corpus_svg, session_svg, BreakMarker, CorpusPlot, ModelBar, PlotError,
    RequestPoint as PlotPoint, SessionPlot,
};

/// Errors reading one session for the cache section.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot read session {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("session {path}: {message}")]
    Session { path: String, message: String },
}

/// Where a request sits relative to a tool change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// The last request before a tool change.
    Before,
    /// The first request whose context contains the change.
    At,
    /// The request after that.
    After,
    /// Any other request.
    Other,
}

impl Phase {
    /// A short label for plots.
    pub fn short(self) -> &'static str {
        match self {
            Phase::Before => "before",
            Phase::At => "at change",
            Phase::After => "after",
            Phase::Other => "other",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Phase::Before => "last request before a tool change",
            Phase::At => "first request with the change",
            Phase::After => "next request",
            Phase::Other => "other requests",
        }
    }
}

/// One main request of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestPoint {
    pub entry_id: String,
    pub provider: String,
    pub model: String,
    pub api: String,
    pub input: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub native: bool,
    pub phase: Phase,
    /// `added`/`removed` summary of the tool change right before this request, if any.
    pub change: Option<String>,
}

impl RequestPoint {
    pub fn hit_rate(&self) -> Option<f64> {
        hit_rate(self.input, self.cache_read, self.cache_write)
    }
}

/// One analysed session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCache {
    /// The path as given on the command line.
    pub path: String,
    /// sha256 of the file bytes (first 12 hex digits shown in the provenance).
    pub sha256: String,
    pub requests: Vec<RequestPoint>,
    pub tool_changes: usize,
}

/// All analysed sessions plus sessions that could not be read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CacheSection {
    pub sessions: Vec<SessionCache>,
    pub unreadable: Vec<(String, String)>,
}

/// Summed tokens of a group of requests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sums {
    pub requests: usize,
    pub input: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

impl Sums {
    fn add(&mut self, r: &RequestPoint) {
        self.requests += 1;
        self.input += r.input;
        self.cache_read += r.cache_read;
        self.cache_write += r.cache_write;
    }

    pub fn hit_rate(&self) -> Option<f64> {
        hit_rate(self.input, self.cache_read, self.cache_write)
    }
}

impl CacheSection {
    /// Sums per (delivery, phase): delivery is `native` or `fallback`.
    pub fn by_phase(&self) -> BTreeMap<(&'static str, Phase), Sums> {
        let mut out: BTreeMap<(&'static str, Phase), Sums> = BTreeMap::new();
        for s in &self.sessions {
            for r in &s.requests {
                let delivery = if r.native { "native" } else { "fallback" };
                out.entry((delivery, r.phase)).or_default().add(r);
            }
        }
        out
    }
}

/// Reads one session: requests on the active path, tool changes and phases.
pub fn analyze_session(path: &Path, models: &[CatalogModel]) -> Result<SessionCache, CacheError> {
    let shown = path.display().to_string();
    let bytes = forge_replay_session::input::read(path).map_err(|source| CacheError::Read {
        path: shown.clone(),
        source,
    })?;
    let sha256 = {
        use sha2::{Digest, Sha256};
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let data = SessionData::read(path).map_err(|e| CacheError::Session {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let path_idx = data.path_to(None).map_err(|e| CacheError::Session {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let rows = data.request_rows(&path_idx);
    let branch = data.branch(&path_idx);
    let changes = tool_changes(&bytes);

    // Walk the branch in order: remember a pending change, attach it to the next request.
    let request_ids: Vec<&str> = rows.iter().filter_map(|r| r.entry_id.as_deref()).collect();
    let mut pending: Option<String> = None;
    let mut change_before: BTreeMap<&str, String> = BTreeMap::new();
    let mut tool_change_count = 0;
    let mut seen_request = false;
    for e in &branch {
        let Some(id) = e.id.as_deref() else { continue };
        // the first request's tool declarations are the initial loadout, not a change
        if let Some(c) = changes.get(id).filter(|_| seen_request) {
            tool_change_count += 1;
            pending = Some(match pending.take() {
                Some(p) => format!("{p}; {c}"),
                None => c.clone(),
            });
        }
        if request_ids.contains(&id) {
            seen_request = true;
            if let Some(c) = pending.take() {
                change_before.insert(id, c);
            }
        }
    }

    let mut requests: Vec<RequestPoint> = rows
        .iter()
        .map(|r| {
            let provider = r.provider.as_deref().unwrap_or_default().to_owned();
            let model = r.model.as_deref().unwrap_or_default().to_owned();
            let native = models.iter().any(|m| {
                m.provider == provider
                    && m.id == model
                    && m.mode().contains(&"supportsMidConvoSystemMessages")
            });
            let entry_id = r.entry_id.as_deref().unwrap_or_default().to_owned();
            RequestPoint {
                change: change_before.get(entry_id.as_str()).cloned(),
                entry_id,
                provider,
                model,
                api: r.api.as_deref().unwrap_or_default().to_owned(),
                input: r.totals.input,
                cache_read: r.totals.cache_read,
                cache_write: r.totals.cache_write,
                native,
                phase: Phase::Other,
            }
        })
        .collect();
    let at: Vec<usize> = requests
        .iter()
        .enumerate()
        .filter(|(_, r)| r.change.is_some())
        .map(|(i, _)| i)
        .collect();
    for i in at {
        requests[i].phase = Phase::At;
        if i > 0 && requests[i - 1].phase == Phase::Other {
            requests[i - 1].phase = Phase::Before;
        }
        if i + 1 < requests.len() && requests[i + 1].change.is_none() {
            requests[i + 1].phase = Phase::After;
        }
    }
    Ok(SessionCache {
        path: shown,
        sha256,
        requests,
        tool_changes: tool_change_count,
    })
}

/// Entry id → `+grep -bash` for persisted system messages with tool changes.
fn tool_changes(bytes: &[u8]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in bytes.lines().map_while(Result::ok) {
        if !line.contains("\"toolsAdded\"") && !line.contains("\"toolsRemoved\"") {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let msg = &v["message"];
        if v["type"] != "message" || msg["role"] != "system" {
            continue;
        }
        let names = |key: &str| -> Vec<String> {
            msg[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t["name"].as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut parts: Vec<String> = names("toolsAdded")
            .into_iter()
            .map(|n| format!("+{n}"))
            .collect();
        parts.extend(names("toolsRemoved").into_iter().map(|n| format!("-{n}")));
        if let Some(id) = v["id"].as_str() {
            if !parts.is_empty() {
                out.insert(id.to_string(), parts.join(" "));
            }
        }
    }
    out
}

/// Why `--sessions` names nothing to read.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error(transparent)]
    Dir(#[from] forge_replay_session::dirs::SessionsDirError),
    #[error("--sessions {}: no such file or directory", .0.display())]
    Missing(PathBuf),
}

/// The sessions `--sessions` names: none without the flag, Pi's sessions directory for the flag
/// alone ([`forge_replay_session::dirs::paths_or_pi_sessions`]), else the paths given, each of
/// which must exist.
pub fn sessions(given: Option<&[PathBuf]>) -> Result<Vec<PathBuf>, SessionsError> {
    let Some(given) = given else {
        return Ok(Vec::new());
    };
    let sessions = forge_replay_session::dirs::paths_or_pi_sessions(given)?;
    match sessions.iter().find(|s| !s.exists()) {
        Some(s) => Err(SessionsError::Missing(s.clone())),
        None => Ok(sessions),
    }
}

/// The warning when `sessions` were given but hold no session file: not an error (the report
/// has no measured section), but said.
pub fn no_session_files_warning(sessions: &[PathBuf]) -> Option<String> {
    if sessions.is_empty() || !no_session_files(sessions) {
        return None;
    }
    let shown: Vec<String> = sessions.iter().map(|d| d.display().to_string()).collect();
    Some(format!(
        "forge-replay: warning: --sessions {}: no session files (*.jsonl) in it; the report has no measured cache behaviour",
        shown.join(" ")
    ))
}

/// Whether `paths` hold no session file (`*.jsonl`) at all, found as the corpus finds them.
pub fn no_session_files(paths: &[PathBuf]) -> bool {
    forge_replay_usage::corpus::find_session_files(paths)
        .0
        .is_empty()
}

/// Analyses every `*.jsonl` in the given files and directories (sorted, recursive). A file that
/// cannot be read is listed, never fatal.
pub fn analyze(paths: &[PathBuf], models: &[CatalogModel]) -> CacheSection {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files, &mut VisitedDirs::new());
    }
    let mut section = CacheSection::default();
    for f in files {
        match analyze_session(&f, models) {
            Ok(s) => section.sessions.push(s),
            Err(e) => section
                .unreadable
                .push((f.display().to_string(), e.to_string())),
        }
    }
    section
}

/// Each directory once, whatever symlink leads to it (`visited`).
fn collect(p: &Path, out: &mut Vec<PathBuf>, visited: &mut VisitedDirs) {
    if p.is_dir() {
        if !visited.first_visit(p) {
            return;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            if e.file_name().is_some_and(forge_replay_io::is_temp_name) {
                continue;
            }
            if e.is_dir() || e.extension().is_some_and(|x| x == "jsonl") {
                collect(&e, out, visited);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
}

/// Plots of the cache section as SVG: one per session (hit rate per request, tool changes
/// marked) and one bar chart of hit rate per delivery and position. `stem` prefixes the file
/// names (`provider-support` → `provider-support-cache-1.svg`).
pub fn plots(section: &CacheSection, stem: &str) -> Result<Vec<Plot>, PlotError> {
    let mut out = Vec::new();
    for (i, s) in section.sessions.iter().enumerate() {
        let data = SessionPlot {
            title: format!("{}: hit rate per request", s.path),
            requests: s
                .requests
                .iter()
                .map(|r| PlotPoint {
                    input: r.input,
                    output: 0.0,
                    cache_read: r.cache_read,
                    cache_write: r.cache_write,
                })
                .collect(),
            nested: Vec::new(),
            cumulative: false,
            breaks: s
                .requests
                .iter()
                .enumerate()
                .filter_map(|(k, r)| {
                    r.change.as_ref().map(|c| BreakMarker {
                        request: k,
                        label: format!("tools {c}"),
                    })
                })
                .collect(),
        };
        let file_name = format!("{stem}-cache-{}.svg", i + 1);
        let svg = session_svg(&data, &file_name)?;
        out.push(Plot {
            file_name,
            alt: format!(
                "Hit rate per request of {} with tool changes marked",
                s.path
            ),
            svg,
        });
    }
    if !section.sessions.is_empty() {
        let bars = section
            .by_phase()
            .iter()
            .map(|((delivery, phase), sums)| ModelBar {
                label: format!("{delivery}: {}", phase.short()),
                hit_rate: sums.hit_rate(),
                requests: sums.requests as f64,
                nested_hit_rate: None,
                nested_calls: 0.0,
            })
            .collect();
        let data = CorpusPlot {
            title: "Hit rate around tool changes".to_string(),
            bars,
        };
        let file_name = format!("{stem}-cache-phases.svg");
        let svg = corpus_svg(&data, &file_name)?;
        out.push(Plot {
            file_name,
            alt: "Hit rate around tool changes, native vs fallback delivery".to_string(),
            svg,
        });
    }
    Ok(out)
}

/// The total of a session's requests.
pub fn session_totals(s: &SessionCache) -> Totals {
    let mut t = Totals::default();
    for r in &s.requests {
        t.input += r.input;
        t.cache_read += r.cache_read;
        t.cache_write += r.cache_write;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_named_must_exist_and_an_empty_folder_is_said() {
        assert!(sessions(None).unwrap().is_empty());
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("none");
        let err = sessions(Some(std::slice::from_ref(&missing))).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "--sessions {}: no such file or directory",
                missing.display()
            )
        );
        let given = [tmp.path().to_path_buf()];
        assert_eq!(sessions(Some(&given)).unwrap(), given);
        let warning = no_session_files_warning(&given).unwrap();
        assert!(
            warning.contains("no session files (*.jsonl) in it"),
            "{warning}"
        );
        assert_eq!(no_session_files_warning(&[]), None);
    }
}
