//! Corpus analytics: every session file under some directories, in parallel, deduplicated.
//!
//! Each file is streamed on its own rayon task into compact [`CorpusRequest`]s (no strings per
//! request: models, providers, APIs, sessions and projects are interned into [`Dictionaries`]).
//! A request is **active** when it lies on the active path (the path to the file's last entry, as
//! Pi loads it) of at least one file holding it, else **abandoned**. Pi's fork writes the ancestor
//! entries again, with the same ids and timestamps, into a new file whose header names
//! `parentSession`; a request seen in several files (same entry id, timestamp and usage) is counted
//! once, for the earliest session, and the copies are reported as `forkCopies`.
//!
//! The requests become a polars [`DataFrame`] ([`Corpus::frame`]) that is grouped with
//! [`Corpus::group`] and exported as CSV, NDJSON or a hive-partitioned parquet dataset.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use crate::session::{BadLine, SessionData};
use crate::totals::Totals;
use forge_replay_model::error::chain as error_chain;
use forge_replay_model::js::date;

/// One deduplicated main request of the corpus (72 bytes: a corpus holds hundreds of
/// thousands of them).
#[derive(Debug, Clone, Copy)]
pub struct CorpusRequest {
    /// Index into [`Corpus::files`] of the file it is attributed to.
    pub file: u32,
    /// 1-based line in that file.
    pub line: u32,
    /// Entry time in ms since the Unix epoch, [`NO_TIME`] when absent.
    time_ms: i64,
    pub model: u32,
    pub provider: u32,
    pub api: u32,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
    pub active: bool,
}

/// [`CorpusRequest`]'s encoding of "no timestamp".
const NO_TIME: i64 = i64::MIN;

impl CorpusRequest {
    /// Entry time, ms since the Unix epoch (from the entry's ISO `timestamp`).
    pub fn time_ms(&self) -> Option<i64> {
        (self.time_ms != NO_TIME).then_some(self.time_ms)
    }

    /// The request's token counts (`requests` = 1).
    pub fn totals(&self) -> Totals {
        Totals {
            requests: 1.0,
            input: self.input,
            output: self.output,
            cache_read: self.cache_read,
            cache_write: self.cache_write,
        }
    }
}

/// One file of the corpus.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    pub path: PathBuf,
    /// Header `id`; `None` when the file is not a Pi session.
    pub session_id: Option<String>,
    /// Index into [`Dictionaries::projects`].
    pub project: u32,
    pub parent_session: Option<String>,
    pub header_time: Option<String>,
    pub entries: usize,
    pub bad_lines: Vec<BadLine>,
    /// Set when the file could not be read (the run continues).
    pub error: Option<String>,
    /// Set when the file is read but is not a Pi session (the same rule as for one session).
    pub not_session: Option<crate::session::NotASession>,
}

/// Interned strings; index 0 of each table is the empty string (unknown).
#[derive(Debug, Clone, Default)]
pub struct Dictionaries {
    pub models: Vec<String>,
    pub providers: Vec<String>,
    pub apis: Vec<String>,
    pub projects: Vec<String>,
}

/// What [`Corpus::scan`] found.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub files: Vec<CorpusFile>,
    pub requests: Vec<CorpusRequest>,
    pub dicts: Dictionaries,
    /// Requests found again in fork copies (not in `requests`).
    pub fork_copies: Totals,
    /// Directory walk errors: (path, message).
    pub walk_errors: Vec<(PathBuf, String)>,
    /// Whether the strings were redacted ([`Corpus::redact_strings`]); exports record it.
    pub redacted: bool,
}

/// Filters applied to requests before grouping.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Inclusive first day (days since the Unix epoch).
    pub since: Option<i32>,
    /// Inclusive last day.
    pub until: Option<i32>,
    /// Substring of the model id (or of `provider/model`).
    pub model: Option<String>,
    /// Substring of the project (the session's cwd).
    pub project: Option<String>,
}

/// Grouping key of [`Corpus::group`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Session,
    Project,
    Model,
    Provider,
    Api,
    Day,
}

impl GroupBy {
    /// Parses `session|project|model|provider|api|day`.
    pub fn parse(s: &str) -> Option<GroupBy> {
        Some(match s {
            "session" => GroupBy::Session,
            "project" => GroupBy::Project,
            "model" => GroupBy::Model,
            "provider" => GroupBy::Provider,
            "api" => GroupBy::Api,
            "day" => GroupBy::Day,
            _ => return None,
        })
    }

    /// The key's name.
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Session => "session",
            GroupBy::Project => "project",
            GroupBy::Model => "model",
            GroupBy::Provider => "provider",
            GroupBy::Api => "api",
            GroupBy::Day => "day",
        }
    }
}

/// One group of [`Corpus::group`]: sums over its requests.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub key: String,
    pub totals: Totals,
    pub abandoned_requests: f64,
    pub cost: f64,
}

/// Errors of corpus frames and exports.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("dataframe operation failed")]
    Polars(#[from] PolarsError),
    #[error(transparent)]
    Write(#[from] forge_replay_io::WriteError),
}

/// Every `*.jsonl` file under `dirs` (recursively; a file argument is taken as is), sorted.
pub fn find_session_files(dirs: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        if dir.is_file() {
            files.push(dir);
            continue;
        }
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) => {
                errors.push((dir, e.to_string()));
                continue;
            }
        };
        for item in rd {
            let item = match item {
                Ok(i) => i,
                Err(e) => {
                    errors.push((dir.clone(), e.to_string()));
                    continue;
                }
            };
            // forge-replay's own temporary files and staged sets are never read.
            if forge_replay_io::is_temp_name(&item.file_name()) {
                continue;
            }
            let path = item.path();
            let is_dir = item.file_type().map(|t| t.is_dir()).unwrap_or(false)
                || (item.file_type().map(|t| t.is_symlink()).unwrap_or(false) && path.is_dir());
            if is_dir {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files.dedup();
    errors.sort();
    (files, errors)
}

/// Per-file result before merging.
struct FileScan {
    file: CorpusFile,
    project: String,
    strings: Vec<String>,
    requests: Vec<(u64, RawRequest)>,
}

struct RawRequest {
    line: u32,
    time_ms: Option<i64>,
    model: u32,
    provider: u32,
    api: u32,
    totals: Totals,
    cost: f64,
    active: bool,
}

fn local_intern(strings: &mut Vec<String>, s: Option<&str>) -> u32 {
    let s = s.unwrap_or("");
    if let Some(i) = strings.iter().position(|x| x == s) {
        return i as u32;
    }
    strings.push(s.to_owned());
    (strings.len() - 1) as u32
}

fn scan_file(path: &Path) -> FileScan {
    let mut file = CorpusFile {
        path: path.to_owned(),
        session_id: None,
        project: 0,
        parent_session: None,
        header_time: None,
        entries: 0,
        bad_lines: Vec::new(),
        error: None,
        not_session: None,
    };
    let data = match SessionData::read(path) {
        Ok(d) => d,
        Err(e) => {
            file.error = Some(error_chain(&e));
            return FileScan {
                file,
                project: String::new(),
                strings: Vec::new(),
                requests: Vec::new(),
            };
        }
    };
    let project = data
        .header
        .as_ref()
        .and_then(|h| h.cwd.clone())
        .unwrap_or_else(|| project_from_dir(path));
    file.bad_lines = data.bad_lines.clone();
    file.not_session = data.not_session.clone();
    file.entries = data.entries.len();
    if let Some(h) = &data.header {
        file.session_id = Some(h.id.clone());
        file.parent_session = h.parent_session.clone();
        file.header_time = h.timestamp.clone();
    }
    let mut on_path = vec![false; data.entries.len()];
    if let Ok(path_idx) = data.path_to(None) {
        for i in path_idx {
            on_path[i] = true;
        }
    }
    let mut strings = Vec::new();
    let mut requests = Vec::new();
    for (i, e) in data.entries.iter().enumerate() {
        let Some(m) = &e.message else { continue };
        let Some(t) = m.request else { continue };
        let meta = m.meta.as_deref();
        let ts = meta.and_then(|x| x.timestamp.as_deref());
        let key = dedup_key(e.id.as_deref(), ts, &t, path, e.line);
        requests.push((
            key,
            RawRequest {
                line: e.line,
                time_ms: ts.and_then(timestamp_ms),
                model: local_intern(&mut strings, meta.and_then(|x| x.model.as_deref())),
                provider: local_intern(&mut strings, meta.and_then(|x| x.provider.as_deref())),
                api: local_intern(&mut strings, meta.and_then(|x| x.api.as_deref())),
                totals: t,
                cost: meta.map_or(0.0, |x| x.cost),
                active: on_path[i],
            },
        ));
    }
    FileScan {
        file,
        project,
        strings,
        requests,
    }
}

/// Pi's directory name `--home-user-proj--` for a file without a cwd.
fn project_from_dir(path: &Path) -> String {
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Identity of a request across fork copies: entry id + entry timestamp + usage. Without an id
/// the request is unique to its file and line.
fn dedup_key(id: Option<&str>, ts: Option<&str>, t: &Totals, path: &Path, line: u32) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match id {
        Some(id) => {
            0u8.hash(&mut h);
            id.hash(&mut h);
            ts.hash(&mut h);
            for f in [t.input, t.output, t.cache_read, t.cache_write] {
                f.to_bits().hash(&mut h);
            }
        }
        None => {
            1u8.hash(&mut h);
            path.hash(&mut h);
            line.hash(&mut h);
        }
    }
    h.finish()
}

/// Hasher for [`dedup_key`]s, which are hashes already: passes the key through.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

#[derive(Default)]
struct Interner {
    map: HashMap<String, u32>,
    list: Vec<String>,
}

impl Interner {
    fn new() -> Interner {
        let mut i = Interner::default();
        i.get("");
        i
    }
    fn get(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.map.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_owned());
        self.map.insert(s.to_owned(), i);
        i
    }
}

impl Corpus {
    /// Scans every session file under `dirs` in parallel. Never fails: unreadable files and bad
    /// lines are recorded on their [`CorpusFile`].
    pub fn scan(dirs: &[PathBuf]) -> Corpus {
        let (paths, walk_errors) = find_session_files(dirs);
        Corpus::scan_files(&paths, walk_errors)
    }

    /// Scans the given files in parallel.
    pub fn scan_files(paths: &[PathBuf], walk_errors: Vec<(PathBuf, String)>) -> Corpus {
        // Originals before their forks: Pi names a file after the session's creation time, so file
        // name order is creation order (the path breaks ties).
        let mut order: Vec<&PathBuf> = paths.iter().collect();
        order.sort_by(|a, b| (a.file_name(), a).cmp(&(b.file_name(), b)));
        let mut corpus = Corpus {
            walk_errors,
            ..Corpus::default()
        };
        // Room for as many requests as the files could hold (a request line is longer than 320
        // bytes), capped: pages of the reservation that are never written are never resident,
        // and the vector does not reallocate (no copy holding two of it at the peak).
        let bytes: u64 = paths
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        // A refused reservation (strict overcommit) only means the vector grows as usual.
        let _ = corpus.requests.try_reserve(
            usize::try_from(bytes / 320)
                .unwrap_or(usize::MAX)
                .min(1 << 23),
        );
        let (mut models, mut providers, mut apis, mut projects) = (
            Interner::new(),
            Interner::new(),
            Interner::new(),
            Interner::new(),
        );
        let mut seen: HashMap<u64, usize, BuildHasherDefault<KeyHasher>> = HashMap::default();
        let mut fi = 0usize;
        let mut merge = |scans: Vec<FileScan>| {
            for scan in scans {
                let FileScan {
                    mut file,
                    project,
                    strings,
                    requests,
                } = scan;
                file.project = projects.get(&project);
                // The file's few distinct strings, interned once per table.
                let remap = |interner: &mut Interner| -> Vec<u32> {
                    strings.iter().map(|s| interner.get(s)).collect()
                };
                let (model_of, provider_of, api_of) =
                    (remap(&mut models), remap(&mut providers), remap(&mut apis));
                for (key, r) in requests {
                    if let Some(&at) = seen.get(&key) {
                        corpus.fork_copies.add(&r.totals);
                        if r.active {
                            corpus.requests[at].active = true;
                        }
                        continue;
                    }
                    seen.insert(key, corpus.requests.len());
                    corpus.requests.push(CorpusRequest {
                        file: fi as u32,
                        line: r.line,
                        time_ms: r.time_ms.unwrap_or(NO_TIME),
                        model: model_of[r.model as usize],
                        provider: provider_of[r.provider as usize],
                        api: api_of[r.api as usize],
                        input: r.totals.input,
                        output: r.totals.output,
                        cache_read: r.totals.cache_read,
                        cache_write: r.totals.cache_write,
                        cost: r.cost,
                        active: r.active,
                    });
                }
                corpus.files.push(file);
                fi += 1;
            }
        };
        // Scan a chunk of files in parallel while the previous chunk is merged in order, so at
        // most two chunks of per-file results are alive at once.
        let mut pending: Option<Vec<FileScan>> = None;
        for chunk in order.chunks(64) {
            let (scans, ()) = rayon::join(
                || chunk.par_iter().map(|p| scan_file(p)).collect::<Vec<_>>(),
                || {
                    if let Some(prev) = pending.take() {
                        merge(prev);
                    }
                },
            );
            pending = Some(scans);
        }
        if let Some(prev) = pending.take() {
            merge(prev);
        }
        corpus.dicts = Dictionaries {
            models: models.list,
            providers: providers.list,
            apis: apis.list,
            projects: projects.list,
        };
        corpus
    }

    /// Requests that pass `filter`.
    pub fn filtered<'a>(
        &'a self,
        filter: &'a Filter,
    ) -> impl Iterator<Item = &'a CorpusRequest> + 'a {
        let model_ok: Vec<bool> = self
            .dicts
            .models
            .iter()
            .map(|m| filter.model.as_deref().is_none_or(|f| m.contains(f)))
            .collect();
        let project_ok: Vec<bool> = self
            .dicts
            .projects
            .iter()
            .map(|p| filter.project.as_deref().is_none_or(|f| p.contains(f)))
            .collect();
        self.requests.iter().filter(move |r| {
            let model_match = model_ok[r.model as usize]
                || filter.model.as_deref().is_some_and(|f| {
                    format!(
                        "{}/{}",
                        self.dicts.providers[r.provider as usize],
                        self.dicts.models[r.model as usize]
                    ) == f
                });
            let day = r.time_ms().map(day_of_ms);
            model_match
                && project_ok[self.files[r.file as usize].project as usize]
                && filter.since.is_none_or(|s| day.is_some_and(|d| d >= s))
                && filter.until.is_none_or(|u| day.is_some_and(|d| d <= u))
        })
    }

    /// The request DataFrame with interned (u32) columns: `file, line, time_ms, day, model,
    /// provider, api, input, output, cache_read, cache_write, cost, abandoned`.
    pub fn frame(&self, filter: &Filter) -> Result<DataFrame, CorpusError> {
        // Each column straight from the requests into its own buffer (no row list, no copies):
        // the frame is the peak of a corpus run's memory.
        let rows = || self.filtered(filter);
        let u32col = |name: &str, f: &dyn Fn(&CorpusRequest) -> u32| {
            UInt32Chunked::from_vec(name.into(), rows().map(f).collect()).into_column()
        };
        let f64col = |name: &str, f: &dyn Fn(&CorpusRequest) -> f64| {
            Float64Chunked::from_vec(name.into(), rows().map(f).collect()).into_column()
        };
        let df = DataFrame::new_infer_height(vec![
            u32col("file", &|r| r.file),
            u32col("line", &|r| r.line),
            Int64Chunked::from_iter_options("time_ms".into(), rows().map(|r| r.time_ms()))
                .into_column(),
            Int32Chunked::from_iter_options(
                "day".into(),
                rows().map(|r| r.time_ms().map(day_of_ms)),
            )
            .into_column(),
            u32col("project", &|r| self.files[r.file as usize].project),
            u32col("model", &|r| r.model),
            u32col("provider", &|r| r.provider),
            u32col("api", &|r| r.api),
            f64col("input", &|r| r.input),
            f64col("output", &|r| r.output),
            f64col("cache_read", &|r| r.cache_read),
            f64col("cache_write", &|r| r.cache_write),
            f64col("cost", &|r| r.cost),
            u32col("abandoned", &|r| u32::from(!r.active)),
        ])?;
        Ok(df)
    }

    /// Groups the request frame by `by`, summing tokens (never averaging rates), sorted by key.
    pub fn group(&self, df: &DataFrame, by: GroupBy) -> Result<Vec<Group>, CorpusError> {
        let key = match by {
            GroupBy::Session => "file",
            GroupBy::Project => "project",
            GroupBy::Model => "model",
            GroupBy::Provider => "provider",
            GroupBy::Api => "api",
            GroupBy::Day => "day",
        };
        // polars finds the groups; each group's sums are then taken in row (scan) order, so
        // every run and machine gives the same doubles (polars' parallel partial sums do not).
        let gb = df.group_by([key])?;
        let key_col = &gb.keys()[0];
        let keys: Vec<String> = match by {
            GroupBy::Day => key_col
                .i32()?
                .iter()
                .map(|d| d.map(format_day).unwrap_or_default())
                .collect(),
            _ => key_col
                .u32()?
                .iter()
                .map(|c| self.key_name(by, c.unwrap_or(0)))
                .collect(),
        };
        // The frame's own buffers where they are one contiguous chunk (no copy), else a copy.
        let get = |c: &str| -> Result<Cow<'_, [f64]>, CorpusError> {
            let column = df.column(c)?;
            match column.f64().ok().and_then(|a| a.cont_slice().ok()) {
                Some(slice) => Ok(Cow::Borrowed(slice)),
                None => Ok(Cow::Owned(numbers(column)?)),
            }
        };
        let (inp_c, outp_c, cr_c, cw_c, cost_c) = (
            get("input")?,
            get("output")?,
            get("cache_read")?,
            get("cache_write")?,
            get("cost")?,
        );
        let ab_column = df.column("abandoned")?;
        let ab_c: Cow<'_, [u32]> = match ab_column.u32().ok().and_then(|a| a.cont_slice().ok()) {
            Some(slice) => Cow::Borrowed(slice),
            None => Cow::Owned(
                numbers(ab_column)?
                    .into_iter()
                    .map(|v| u32::from(v != 0.0))
                    .collect(),
            ),
        };
        let n = keys.len();
        let (mut req, mut inp, mut outp, mut cr, mut cw, mut cost, mut ab) = (
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
        );
        let mut rows: Vec<usize> = Vec::new();
        for (g, group) in gb.get_groups().iter().enumerate() {
            rows.clear();
            match group {
                GroupsIndicator::Idx((_, idx)) => rows.extend(idx.iter().map(|&i| i as usize)),
                GroupsIndicator::Slice([first, len]) => {
                    rows.extend(first as usize..(first + len) as usize)
                }
            }
            rows.sort_unstable();
            for &r in &rows {
                req[g] += 1.0;
                inp[g] += inp_c[r];
                outp[g] += outp_c[r];
                cr[g] += cr_c[r];
                cw[g] += cw_c[r];
                cost[g] += cost_c[r];
                ab[g] += f64::from(ab_c[r]);
            }
        }
        let mut groups: Vec<Group> = (0..keys.len())
            .map(|i| Group {
                key: keys[i].clone(),
                totals: Totals {
                    requests: req[i],
                    input: inp[i],
                    output: outp[i],
                    cache_read: cr[i],
                    cache_write: cw[i],
                },
                abandoned_requests: ab[i],
                cost: cost[i],
            })
            .collect();
        groups.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(groups)
    }

    fn key_name(&self, by: GroupBy, code: u32) -> String {
        let i = code as usize;
        match by {
            GroupBy::Session => {
                let f = &self.files[i];
                f.session_id
                    .clone()
                    .unwrap_or_else(|| f.path.display().to_string())
            }
            GroupBy::Project => self.dicts.projects[i].clone(),
            GroupBy::Model => {
                // A model id alone can be ambiguous across providers; the provider is a column of its own.
                self.dicts.models[i].clone()
            }
            GroupBy::Provider => self.dicts.providers[i].clone(),
            GroupBy::Api => self.dicts.apis[i].clone(),
            GroupBy::Day => String::new(),
        }
    }

    /// The request frame with strings (for export), rows `offset..offset+len` of `df`.
    fn materialize(&self, df: &DataFrame) -> Result<DataFrame, CorpusError> {
        let codes = |c: &str| -> Result<Vec<u32>, CorpusError> {
            Ok(df
                .column(c)?
                .u32()?
                .iter()
                .map(|v| v.unwrap_or(0))
                .collect())
        };
        let files = codes("file")?;
        let strcol = |name: &str, codes: &[u32], table: &[String]| {
            Column::new(
                name.into(),
                codes
                    .iter()
                    .map(|&c| table[c as usize].as_str())
                    .collect::<Vec<&str>>(),
            )
        };
        let session: Vec<&str> = files
            .iter()
            .map(|&f| self.files[f as usize].session_id.as_deref().unwrap_or(""))
            .collect();
        let path: Vec<String> = files
            .iter()
            .map(|&f| self.files[f as usize].path.display().to_string())
            .collect();
        let time = df
            .column("time_ms")?
            .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))?
            .with_name("timestamp".into());
        let day = df.column("day")?.cast(&DataType::Date)?;
        let abandoned: Vec<&str> = df
            .column("abandoned")?
            .u32()?
            .iter()
            .map(|v| if v == Some(1) { "abandoned" } else { "active" })
            .collect();
        let out = DataFrame::new_infer_height(vec![
            Column::new("session".into(), session),
            Column::new("file".into(), path),
            df.column("line")?.clone(),
            time,
            day,
            strcol("project", &codes("project")?, &self.dicts.projects),
            strcol("provider", &codes("provider")?, &self.dicts.providers),
            strcol("model", &codes("model")?, &self.dicts.models),
            strcol("api", &codes("api")?, &self.dicts.apis),
            df.column("input")?.clone(),
            df.column("output")?.clone(),
            df.column("cache_read")?.clone(),
            df.column("cache_write")?.clone(),
            df.column("cost")?.clone(),
            Column::new("branch".into(), abandoned),
        ])?;
        Ok(out)
    }

    /// Redacts every string the corpus shows or exports (file paths, session ids, projects,
    /// models, providers, APIs, error messages) with [`forge_replay_model::redact::text`].
    /// Frames and groups computed before keep their codes; only the names change.
    pub fn redact_strings(&mut self) {
        use forge_replay_model::redact::text;
        let fix = |s: &mut String| {
            if let std::borrow::Cow::Owned(r) = text(s) {
                *s = r;
            }
        };
        let d = &mut self.dicts;
        for s in d
            .models
            .iter_mut()
            .chain(d.providers.iter_mut())
            .chain(d.apis.iter_mut())
            .chain(d.projects.iter_mut())
        {
            fix(s);
        }
        for f in &mut self.files {
            let shown = text(&f.path.to_string_lossy()).into_owned();
            f.path = PathBuf::from(shown);
            for s in f
                .session_id
                .iter_mut()
                .chain(f.parent_session.iter_mut())
                .chain(f.header_time.iter_mut())
                .chain(f.error.iter_mut())
            {
                fix(s);
            }
            for b in &mut f.bad_lines {
                fix(&mut b.message);
            }
            if let Some(n) = &mut f.not_session {
                fix(&mut n.reason);
            }
        }
        for (p, m) in &mut self.walk_errors {
            *p = PathBuf::from(text(&p.to_string_lossy()).into_owned());
            fix(m);
        }
        self.redacted = true;
    }

    /// Writes the requests as CSV, 64k rows at a time.
    pub fn write_csv(&self, df: &DataFrame, path: &Path) -> Result<(), CorpusError> {
        forge_replay_io::write_atomic_with(path, |w| {
            let mut writer: Option<polars::io::csv::write::BatchedWriter<_>> = None;
            for chunk in chunks(df) {
                let m = self.materialize(&chunk)?;
                if writer.is_none() {
                    writer = Some(CsvWriter::new(&mut *w).batched(m.schema())?);
                }
                if let Some(wr) = writer.as_mut() {
                    wr.write_batch(&m)?;
                }
            }
            if writer.is_none() {
                let mut empty = self.materialize(&df.head(Some(0)))?;
                CsvWriter::new(&mut *w).finish(&mut empty)?;
            }
            Ok(())
        })
    }

    /// Writes the requests as JSON Lines (one object per request).
    pub fn write_ndjson(&self, df: &DataFrame, path: &Path) -> Result<(), CorpusError> {
        forge_replay_io::write_atomic_with(path, |w| {
            let mut writer = polars::io::json::BatchedWriter::new(&mut *w);
            for chunk in chunks(df) {
                writer.write_batch(&self.materialize(&chunk)?)?;
            }
            Ok(())
        })
    }

    /// Writes a hive-partitioned parquet dataset: `dir/day=YYYY-MM-DD/part-0.parquet`
    /// (`day=unknown` for requests without a timestamp). Returns the partitions written.
    ///
    /// The dataset is one set ([`forge_replay_io::DirSet`]): written beside `dir`, completed by
    /// its marker (`dir/.forge-replay-set`, which lists the partitions) and renamed into place,
    /// so a reader never sees some partitions of a new export mixed with an old one.
    pub fn write_parquet_dataset(
        &self,
        df: &DataFrame,
        dir: &Path,
    ) -> Result<Vec<PathBuf>, CorpusError> {
        let mut set = forge_replay_io::DirSet::begin(dir, "parquet-dataset")?;
        set.note("redacted", if self.redacted { "true" } else { "false" });
        let mut days: Vec<Option<i32>> = df.column("day")?.i32()?.iter().collect();
        days.sort();
        days.dedup();
        let mut written = Vec::new();
        for day in days {
            let mask = match day {
                Some(d) => df.column("day")?.i32()?.equal(d),
                None => df.column("day")?.i32()?.is_null(),
            };
            let part = df.filter(&mask)?;
            let mut m = self.materialize(&part)?;
            // The partition column lives in the path, as hive readers expect.
            let _ = m.drop_in_place("day")?;
            let name = day.map(format_day).unwrap_or_else(|| "unknown".to_owned());
            let file = set.write_with(&format!("day={name}/part-0.parquet"), |w| {
                ParquetWriter::new(&mut *w).finish(&mut m)?;
                Ok::<(), CorpusError>(())
            })?;
            written.push(file);
        }
        set.commit()?;
        Ok(written)
    }

    /// Number of files that are Pi sessions.
    pub fn sessions(&self) -> usize {
        self.files.iter().filter(|f| f.session_id.is_some()).count()
    }

    /// Number of fork (or clone) files: a header with `parentSession`.
    pub fn forks(&self) -> usize {
        self.files
            .iter()
            .filter(|f| f.parent_session.is_some())
            .count()
    }
}

/// A numeric column as doubles, read in Rust: `Column::cast` makes polars build its 8 MiB
/// shared zero buffer for some inputs (peak memory).
fn numbers(c: &Column) -> Result<Vec<f64>, CorpusError> {
    let v = match c.dtype() {
        DataType::Float64 => c.f64()?.iter().map(|v| v.unwrap_or(0.0)).collect(),
        DataType::UInt32 => c.u32()?.iter().map(|v| v.map_or(0.0, f64::from)).collect(),
        DataType::UInt64 => c
            .u64()?
            .iter()
            .map(|v| v.map_or(0.0, |v| v as f64))
            .collect(),
        DataType::Int64 => c
            .i64()?
            .iter()
            .map(|v| v.map_or(0.0, |v| v as f64))
            .collect(),
        DataType::Int32 => c.i32()?.iter().map(|v| v.map_or(0.0, f64::from)).collect(),
        _ => vec![0.0; c.len()],
    };
    Ok(v)
}

fn chunks(df: &DataFrame) -> impl Iterator<Item = DataFrame> + '_ {
    const CHUNK: usize = 65_536;
    (0..df.height())
        .step_by(CHUNK)
        .map(move |o| df.slice(o as i64, CHUNK))
}

/// `YYYY-MM-DD` of a day number.
pub fn format_day(days: i32) -> String {
    let (y, m, d) = date::civil_from_days(i64::from(days));
    format!("{y:04}-{m:02}-{d:02}")
}

fn day_of_ms(ms: i64) -> i32 {
    ms.div_euclid(date::MS_PER_DAY) as i32
}

/// Parses `YYYY-MM-DD` or `YYYYMMDD` into a day number.
pub fn parse_day(s: &str) -> Option<i32> {
    let digits: String = s.chars().filter(|c| *c != '-').collect();
    if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.contains('-') && (s.len() != 10 || &s[4..5] != "-" || &s[7..8] != "-") {
        return None;
    }
    let y: i64 = digits[0..4].parse().ok()?;
    let m: u32 = digits[4..6].parse().ok()?;
    let d: u32 = digits[6..8].parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(date::days_from_civil(y, m, d) as i32)
}

/// Milliseconds since the epoch of an entry's timestamp, as `Date.parse` reads it (Pi writes
/// `toISOString()`'s `2026-01-01T00:00:09.000Z`).
pub fn timestamp_ms(s: &str) -> Option<i64> {
    let t = date::parse(s);
    t.is_finite().then_some(t as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_round_trip() {
        for (s, d) in [
            ("1970-01-01", 0),
            ("2026-01-01", 20454),
            ("2000-02-29", 11016),
        ] {
            assert_eq!(parse_day(s), Some(d));
            assert_eq!(format_day(d), s);
        }
        assert_eq!(parse_day("20260101"), Some(20454));
        assert_eq!(parse_day("2026-13-01"), None);
        assert_eq!(parse_day("yesterday"), None);
    }

    #[test]
    fn iso_timestamps() {
        assert_eq!(timestamp_ms("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            timestamp_ms("2026-01-01T00:00:09.000Z"),
            Some(1_767_225_609_000)
        );
        assert_eq!(
            timestamp_ms("2026-01-01T00:00:09Z"),
            Some(1_767_225_609_000)
        );
        // As Date.parse: a date alone is midnight UTC; a 60th second is invalid.
        assert_eq!(timestamp_ms("2026-01-01"), Some(1_767_225_600_000));
        assert_eq!(timestamp_ms("2026-01-01T00:00:60Z"), None);
        assert_eq!(timestamp_ms("yesterday"), None);
    }
}
