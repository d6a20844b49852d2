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
//! **Nested usage.** Every tool result carrying `details.forgeNestedUsage` becomes a
//! [`CorpusNested`] report (deduplicated across fork copies like requests), counted with
//! pi-forge's rules ([`NestedTotals`]: valid reports with cache counts add tokens and `calls`,
//! cache-unknown reports `cacheUnknownCalls`, malformed ones `invalidCalls`).
//!
//! **Sub-agent files** ([`crate::subagents`]) are attributed to their parent session. Their
//! calls are counted once: a call copied from the parent (fork) is a fork copy; a call found
//! again in another child file (a run session and its transcript) is a child copy (same
//! `message.timestamp`, `responseId`, model and usage); a call the parent already counts through
//! a valid nested report that names the run (`runId` or `sessionFile`) is *covered* and not
//! counted again ([`Reconciliation`] shows reported vs found tokens). The other child calls are
//! sub-agent requests ([`CorpusRequest::subagent`]).
//!
//! **Pricing.** Each request and each nested report naming a model gets `priced` =
//! pi-ai's `calculateCost` ([`crate::pricing`]) over the catalog of the Pi release that wrote
//! its file (detected from the file's markers as `usage SESSION` detects it:
//! [`crate::markers`]), or of one release for all ([`CorpusPricing`]), or no price.
//!
//! The requests become a polars [`DataFrame`] ([`Corpus::frame`]) that is grouped with
//! [`Corpus::group`] and exported as CSV, NDJSON or a hive-partitioned parquet dataset, one row
//! per request and one per nested report (`kind` column).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use crate::nested::NestedReport;
use crate::pricing::{Pricer, Unpriced};
use crate::records::Records;
use crate::session::BadLine;
use crate::subagents::{self, ChildKind, ChildPath};
use crate::totals::{NestedTotals, Totals};
use forge_replay_model::js::date;
use forge_replay_model::release::PiRelease;
use forge_replay_session::input::VisitedDirs;

/// Which catalog prices a corpus's requests.
#[derive(Debug, Clone)]
pub enum CorpusPricing<'c> {
    /// Each file with the catalog of the Pi release that wrote it (its markers, as
    /// `usage SESSION` detects them; a file without evidence: the default release).
    Detected,
    /// Every file with this release's catalog (`--pi`).
    Release(PiRelease),
    /// Every file with this pricer (another catalog, e.g. data files not embedded).
    Pricer(Pricer<'c>),
}

impl CorpusPricing<'_> {
    /// Parses ahead the embedded catalog most files will be priced with (the release named, or
    /// for detected releases the default one: what a session without newer markers is), so a
    /// caller can do it beside other work instead of on the first file's worker.
    pub(crate) fn prepare(&self) {
        match self {
            CorpusPricing::Detected => {
                forge_replay_wire::Catalog::builtin(PiRelease::DEFAULT);
            }
            CorpusPricing::Release(r) => {
                forge_replay_wire::Catalog::builtin(*r);
            }
            CorpusPricing::Pricer(_) => {}
        }
    }

    /// The release a file with these markers is priced as.
    pub(crate) fn release_for(&self, markers: &crate::markers::ReleaseMarkers) -> PiRelease {
        match self {
            CorpusPricing::Detected => markers.release(),
            CorpusPricing::Release(r) => *r,
            CorpusPricing::Pricer(p) => p.catalog().release(),
        }
    }
}

/// One deduplicated request of the corpus (80 bytes: a corpus holds hundreds of thousands of
/// them).
#[derive(Debug, Clone, Copy)]
pub struct CorpusRequest {
    /// Index into [`Corpus::files`] of the file holding it (a sub-agent file for a sub-agent
    /// call; [`CorpusFile::attributed`] names the session it is attributed to).
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
    /// pi-ai's `calculateCost(...).total`; NaN when the request is not priced.
    priced: f64,
    pub active: bool,
    /// A sub-agent call found in a child file (not a request of the session itself).
    pub subagent: bool,
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

    /// The price pi-ai's `calculateCost` gives it, `None` when its model is not priced.
    pub fn priced(&self) -> Option<f64> {
        (!self.priced.is_nan()).then_some(self.priced)
    }
}

/// One deduplicated nested report (`toolResult.details.forgeNestedUsage`).
#[derive(Debug, Clone, Copy)]
pub struct CorpusNested {
    /// The file holding the tool result.
    pub file: u32,
    pub line: u32,
    time_ms: i64,
    pub report: NestedReport,
    /// The model the tool result's details name (0: none), interned like requests' models.
    pub model: u32,
    pub provider: u32,
    /// The catalog API of the named model (0: unknown).
    pub api: u32,
    /// `calculateCost` over the report's sums; NaN when not priced.
    priced: f64,
    pub active: bool,
}

impl CorpusNested {
    pub fn time_ms(&self) -> Option<i64> {
        (self.time_ms != NO_TIME).then_some(self.time_ms)
    }

    pub fn priced(&self) -> Option<f64> {
        (!self.priced.is_nan()).then_some(self.priced)
    }
}

/// A sub-agent file's place in the corpus.
#[derive(Debug, Clone)]
pub struct ChildFile {
    pub kind: ChildKind,
    /// The parent session file ([`Corpus::files`] index), when it was scanned.
    pub parent: Option<u32>,
    pub run_id: Option<String>,
    /// Child calls counted as sub-agent requests.
    pub counted: Totals,
    /// Child calls found again in an earlier child file (not counted again).
    pub copies: Totals,
    /// Child calls a parent's nested report already counts (not counted again).
    pub covered: Totals,
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
    /// Usage fields of the wrong type or sign and malformed nested reports (counted as
    /// pi-forge counts them: 0, or `invalidCalls`).
    pub findings: Vec<BadLine>,
    /// Set when the file could not be read (the run continues).
    pub error: Option<String>,
    /// Set when the file is read but is not a Pi session (the same rule as for one session).
    pub not_session: Option<crate::session::NotASession>,
    /// Set for a sub-agent file.
    pub child: Option<ChildFile>,
    /// The session its requests are attributed to: itself, or the root parent of a sub-agent
    /// file.
    pub attributed: u32,
    /// A pi-subagents child transcript (no session header).
    pub transcript: bool,
    /// The Pi release whose catalog priced its requests (for a session or transcript; the
    /// default release for other files).
    pub release: PiRelease,
}

/// Interned strings; index 0 of each table is the empty string (unknown).
#[derive(Debug, Clone, Default)]
pub struct Dictionaries {
    pub models: Vec<String>,
    pub providers: Vec<String>,
    pub apis: Vec<String>,
    pub projects: Vec<String>,
}

/// A parent's nested report matched with the sub-agent files of the run it names.
#[derive(Debug, Clone)]
pub struct Reconciliation {
    /// The parent file and the tool result's line.
    pub file: u32,
    pub line: u32,
    pub report: NestedReport,
    /// The child files the report names.
    pub children: Vec<u32>,
    /// The calls found in those files (deduplicated).
    pub found: Totals,
    /// `true` when the report counts the calls (valid, with cache counts): the child calls are
    /// then not counted again. Otherwise pi-forge counts no tokens for the report and the child
    /// calls are counted as sub-agent requests.
    pub counts_calls: bool,
}

/// What [`Corpus::scan`] found.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub files: Vec<CorpusFile>,
    pub requests: Vec<CorpusRequest>,
    pub nested: Vec<CorpusNested>,
    pub dicts: Dictionaries,
    /// Requests found again in fork copies (not in `requests`).
    pub fork_copies: Totals,
    /// Nested reports found again in fork copies (not in `nested`).
    pub nested_fork_copies: NestedTotals,
    pub reconciliation: Vec<Reconciliation>,
    /// Requests without a price, by reason (counted once per deduplicated request).
    pub unpriced: BTreeMap<Unpriced, f64>,
    /// Nested reports without a price although they name a model, by reason.
    pub nested_unpriced: BTreeMap<Unpriced, f64>,
    /// The pi-ai release(s) whose catalogs priced the requests (`0.87.1`, or `0.87.1, 1.3.0`
    /// when sessions of several releases were priced each with its own).
    pub release: String,
    /// Per release (version): the sessions and transcripts priced with its catalog and their
    /// deduplicated requests.
    pub releases: BTreeMap<String, ReleaseCount>,
    /// Directory walk errors: (path, message).
    pub walk_errors: Vec<(PathBuf, String)>,
    /// Whether the strings were redacted ([`Corpus::redact_strings`]); exports record it.
    pub redacted: bool,
}

/// The files and requests one release's catalog priced.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReleaseCount {
    pub files: usize,
    pub requests: f64,
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

/// `--by`.
impl forge_replay_model::choice::Choice for GroupBy {
    const ALL: &'static [GroupBy] = &[
        GroupBy::Session,
        GroupBy::Project,
        GroupBy::Model,
        GroupBy::Provider,
        GroupBy::Api,
        GroupBy::Day,
    ];

    fn name(self) -> &'static str {
        GroupBy::name(self)
    }
}

/// One group of [`Corpus::group`]: sums over its requests and nested reports.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    pub key: String,
    /// The sessions' own requests.
    pub totals: Totals,
    pub abandoned_requests: f64,
    /// Pi's recorded `usage.cost.total` over the main and sub-agent requests.
    pub cost: f64,
    /// Sub-agent calls counted from child files.
    pub subagents: Totals,
    pub nested: NestedTotals,
    /// `calculateCost` over the priced main and sub-agent requests.
    pub priced: f64,
    pub priced_requests: f64,
    pub unpriced_requests: f64,
    /// Recorded cost of the priced requests (what `priced` is compared with).
    pub recorded_of_priced: f64,
    /// `calculateCost` over the priced nested reports.
    pub nested_priced: f64,
    pub nested_priced_calls: f64,
}

impl Group {
    /// Main, sub-agent and known nested tokens together.
    pub fn combined(&self) -> Totals {
        self.totals.plus(&self.subagents).plus(&self.nested.totals)
    }

    /// Recorded cost and price differ by more than rounding.
    pub fn pricing_disagrees(&self) -> bool {
        crate::pricing::disagrees(self.recorded_of_priced, self.priced, self.priced_requests)
    }

    fn add(&mut self, o: &Group) {
        self.totals.add(&o.totals);
        self.abandoned_requests += o.abandoned_requests;
        self.cost += o.cost;
        self.subagents.add(&o.subagents);
        let n = &o.nested;
        self.nested.totals.add(&n.totals);
        self.nested.calls += n.calls;
        self.nested.cache_unknown_calls += n.cache_unknown_calls;
        self.nested.invalid_calls += n.invalid_calls;
        self.priced += o.priced;
        self.priced_requests += o.priced_requests;
        self.unpriced_requests += o.unpriced_requests;
        self.recorded_of_priced += o.recorded_of_priced;
        self.nested_priced += o.nested_priced;
        self.nested_priced_calls += o.nested_priced_calls;
    }
}

/// Errors of corpus frames and exports.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("dataframe operation failed")]
    Polars(#[from] PolarsError),
    #[error(transparent)]
    Write(#[from] forge_replay_io::WriteError),
    #[error("the request frame was released before this export")]
    FrameReleased,
}

/// Every `*.jsonl` file under `dirs` (recursively, each directory once whatever symlinks lead to
/// it; a file argument is taken as is), sorted.
pub fn find_session_files(dirs: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    // Popped in the order given.
    let mut stack: Vec<PathBuf> = dirs.iter().rev().cloned().collect();
    // Each directory once, whatever symlink leads to it (a link back up the tree is no loop, and
    // its sessions are not counted again).
    let mut visited = VisitedDirs::new();
    while let Some(dir) = stack.pop() {
        if dir.is_file() {
            files.push(dir);
            continue;
        }
        if !visited.first_visit(&dir) {
            continue;
        }
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) => {
                errors.push((dir, e.to_string()));
                continue;
            }
        };
        let mut subdirs = Vec::new();
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
                subdirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
        // Sorted, so the path a directory is first reached by (and named by) is always the same.
        subdirs.sort();
        stack.extend(subdirs.into_iter().rev());
    }
    files.sort();
    files.dedup();
    errors.sort();
    (files, errors)
}

/// Per-file result before merging.
pub(crate) struct FileScan {
    pub file: CorpusFile,
    pub project: String,
    pub strings: Vec<String>,
    pub requests: Vec<(u64, RawRequest)>,
    pub nested: Vec<(u64, RawNested)>,
    /// Reasons for the unpriced requests (indexed by [`RawRequest::unpriced`]).
    pub reasons: Vec<Unpriced>,
}

pub(crate) struct RawRequest {
    pub line: u32,
    pub time_ms: Option<i64>,
    pub model: u32,
    pub provider: u32,
    pub api: u32,
    pub totals: Totals,
    pub cost: f64,
    pub priced: f64,
    /// Index into [`FileScan::reasons`] when not priced.
    pub unpriced: Option<u16>,
    /// Identity of the call across sub-agent files (message time, response id, model, usage).
    pub call_key: Option<u64>,
    pub active: bool,
}

pub(crate) struct RawNested {
    pub line: u32,
    pub time_ms: Option<i64>,
    pub report: NestedReport,
    pub model: u32,
    pub provider: u32,
    pub api: u32,
    pub priced: f64,
    pub unpriced: Option<u16>,
    pub run_id: Option<Box<str>>,
    pub session_file: Option<Box<str>>,
    pub active: bool,
}

pub(crate) fn reason_index(reasons: &mut Vec<Unpriced>, r: &Unpriced) -> u16 {
    match reasons.iter().position(|x| x == r) {
        Some(i) => i as u16,
        None => {
            reasons.push(r.clone());
            (reasons.len() - 1) as u16
        }
    }
}

fn scan_file(path: &Path, child: Option<&ChildPath>, pricing: &CorpusPricing<'_>) -> FileScan {
    Records::read(path, child).finish(path, child, pricing)
}

/// Pi's directory name `--home-user-proj--` for a file without a cwd.
pub(crate) fn project_from_dir(path: &Path) -> String {
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Identity of a request across fork copies: entry id + entry timestamp + usage. Without an id
/// the request is unique to its file and line.
pub(crate) fn dedup_key(
    id: Option<&str>,
    ts: Option<&str>,
    t: &Totals,
    path: &Path,
    line: u32,
) -> u64 {
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

/// Identity of a nested report across fork copies: entry id + timestamp + the report.
pub(crate) fn nested_key(
    id: Option<&str>,
    ts: Option<&str>,
    r: &NestedReport,
    path: &Path,
    line: u32,
) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    2u8.hash(&mut h);
    match id {
        Some(id) => {
            id.hash(&mut h);
            ts.hash(&mut h);
            match r {
                NestedReport::Invalid(why) => why.hash(&mut h),
                NestedReport::Valid(u) => {
                    for f in [u.requests, u.input, u.output] {
                        f.to_bits().hash(&mut h);
                    }
                    u.cache
                        .map(|(a, b)| (a.to_bits(), b.to_bits()))
                        .hash(&mut h);
                }
            }
        }
        None => {
            path.hash(&mut h);
            line.hash(&mut h);
        }
    }
    h.finish()
}

/// Identity of a child's call in any sub-agent file: the message's own time and response id,
/// its model and usage (a run session and its transcript hold the same message under different
/// entry ids). `None` without a message time.
pub(crate) fn call_key(meta: Option<&crate::scan::RequestMeta>, t: &Totals) -> Option<u64> {
    let meta = meta?;
    let time = meta.message_time?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    3u8.hash(&mut h);
    time.to_bits().hash(&mut h);
    meta.response_id.hash(&mut h);
    meta.provider.hash(&mut h);
    meta.model.hash(&mut h);
    for f in [t.input, t.output, t.cache_read, t.cache_write] {
        f.to_bits().hash(&mut h);
    }
    Some(h.finish())
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

type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
struct Interner {
    map: crate::fasthash::FastMap<String, u32>,
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

/// Files scanned on the workers while the previous chunk is merged (at most two chunks' results
/// are alive at once; the first chunk's scan and the last one's merge run alone).
const CHUNK: usize = 64;

/// [`Merger::seen`]'s mark for a request that was not counted (a child copy, or covered by a
/// nested report): its fork copies are copies too.
const NOT_COUNTED: usize = usize::MAX;

/// A parent's nested report that names a run, waiting for the run's files.
struct PendingLink {
    nested: usize,
    run_id: Option<Box<str>>,
    session_file: Option<Box<str>>,
}

/// The sequential half of [`Corpus::scan_files`]: merges file results in order.
struct Merger {
    corpus: Corpus,
    models: Interner,
    providers: Interner,
    apis: Interner,
    projects: Interner,
    seen: crate::fasthash::KeyTable,
    seen_nested: KeyMap<usize>,
    seen_calls: KeyMap<()>,
    /// Scanned path index → file index.
    file_of_path: Vec<Option<u32>>,
    /// Parent file → its nested reports naming a run.
    links: crate::fasthash::FastMap<u32, Vec<PendingLink>>,
    /// Nested report index → reconciliation index.
    recon_of: crate::fasthash::FastMap<usize, usize>,
}

impl Merger {
    fn merge(&mut self, path_index: usize, child: Option<&ChildPath>, scan: FileScan) {
        let FileScan {
            mut file,
            project,
            strings,
            requests,
            nested,
            reasons,
        } = scan;
        let fi = self.corpus.files.len() as u32;
        self.file_of_path[path_index] = Some(fi);
        let counted_before = self.corpus.requests.len();
        file.project = self.projects.get(&project);
        let parent = child
            .and_then(|c| c.parent)
            .and_then(|p| self.file_of_path[p]);
        file.attributed = match parent {
            Some(p) => self.corpus.files[p as usize].attributed,
            None => fi,
        };
        if let (Some(c), Some(p)) = (file.child.as_mut(), parent) {
            c.parent = Some(p);
            // The sub-agent's requests belong to the parent's project.
            file.project = self.corpus.files[p as usize].project;
        }
        // The parent's reports that name this child (run id or session file).
        let mut covering: Vec<usize> = Vec::new();
        if let (Some(c), Some(p)) = (child, parent) {
            let parent_path = self.corpus.files[p as usize].path.clone();
            if let Some(links) = self.links.get(&p) {
                for l in links {
                    let by_run = l.run_id.is_some() && l.run_id.as_deref() == c.run_id.as_deref();
                    let by_file = l
                        .session_file
                        .as_deref()
                        .is_some_and(|sf| subagents::names_file(sf, &file.path, &parent_path));
                    if by_run || by_file {
                        covering.push(l.nested);
                    }
                }
            }
        }
        let mut recon: Vec<usize> = Vec::new();
        for n in covering {
            let at = match self.recon_of.get(&n) {
                Some(&at) => at,
                None => {
                    let r = &self.corpus.nested[n];
                    self.corpus.reconciliation.push(Reconciliation {
                        file: r.file,
                        line: r.line,
                        report: r.report,
                        children: Vec::new(),
                        found: Totals::default(),
                        counts_calls: r.report.known_totals().is_some(),
                    });
                    self.recon_of
                        .insert(n, self.corpus.reconciliation.len() - 1);
                    self.corpus.reconciliation.len() - 1
                }
            };
            self.corpus.reconciliation[at].children.push(fi);
            recon.push(at);
        }
        // The first covering report that counts the calls takes them.
        let covered_by = recon
            .iter()
            .copied()
            .find(|&at| self.corpus.reconciliation[at].counts_calls);

        let remap = |interner: &mut Interner| -> Vec<u32> {
            strings.iter().map(|s| interner.get(s)).collect()
        };
        let (model_of, provider_of, api_of) = (
            remap(&mut self.models),
            remap(&mut self.providers),
            remap(&mut self.apis),
        );
        // The table's slots of this file's keys, read ahead: their cache misses overlap.
        let ahead = requests
            .iter()
            .fold(0u64, |acc, (key, _)| acc ^ self.seen.touch(*key));
        std::hint::black_box(ahead);
        for (key, r) in requests {
            // One probe of the table per request: the slot found is filled below.
            let slot = match self.seen.find(key) {
                crate::fasthash::Slot::Found(at) => {
                    self.corpus.fork_copies.add(&r.totals);
                    if r.active && at != NOT_COUNTED {
                        self.corpus.requests[at].active = true;
                    }
                    continue;
                }
                crate::fasthash::Slot::Vacant(at) => at,
            };
            if let Some(c) = file.child.as_mut() {
                if let Some(k) = r.call_key {
                    if self.seen_calls.insert(k, ()).is_some() {
                        self.seen.fill(slot, key, NOT_COUNTED);
                        c.copies.add(&r.totals);
                        continue;
                    }
                }
                for &at in &recon {
                    self.corpus.reconciliation[at].found.add(&r.totals);
                }
                if covered_by.is_some() {
                    self.seen.fill(slot, key, NOT_COUNTED);
                    c.covered.add(&r.totals);
                    continue;
                }
                c.counted.add(&r.totals);
            }
            self.seen.fill(slot, key, self.corpus.requests.len());
            if let Some(u) = r.unpriced {
                *self
                    .corpus
                    .unpriced
                    .entry(reasons[u as usize].clone())
                    .or_default() += 1.0;
            }
            self.corpus.requests.push(CorpusRequest {
                file: fi,
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
                priced: r.priced,
                active: r.active,
                subagent: file.child.is_some(),
            });
        }
        for (key, n) in nested {
            if let Some(&at) = self.seen_nested.get(&key) {
                n.report.add_to(&mut self.corpus.nested_fork_copies);
                if n.active {
                    self.corpus.nested[at].active = true;
                }
                continue;
            }
            let at = self.corpus.nested.len();
            self.seen_nested.insert(key, at);
            if let Some(u) = n.unpriced {
                *self
                    .corpus
                    .nested_unpriced
                    .entry(reasons[u as usize].clone())
                    .or_default() += 1.0;
            }
            if n.run_id.is_some() || n.session_file.is_some() {
                self.links.entry(fi).or_default().push(PendingLink {
                    nested: at,
                    run_id: n.run_id,
                    session_file: n.session_file,
                });
            }
            self.corpus.nested.push(CorpusNested {
                file: fi,
                line: n.line,
                time_ms: n.time_ms.unwrap_or(NO_TIME),
                report: n.report,
                model: model_of[n.model as usize],
                provider: provider_of[n.provider as usize],
                api: api_of[n.api as usize],
                priced: n.priced,
                active: n.active,
            });
        }
        if file.session_id.is_some() || file.transcript {
            let c = self
                .corpus
                .releases
                .entry(file.release.version().to_owned())
                .or_default();
            c.files += 1;
            c.requests += (self.corpus.requests.len() - counted_before) as f64;
        }
        self.corpus.files.push(file);
    }
}

impl Corpus {
    /// Scans every session file under `dirs` in parallel, each priced with the embedded pi-ai
    /// catalog of the release that wrote it. Never fails: unreadable files and bad lines are
    /// recorded on their [`CorpusFile`].
    pub fn scan(dirs: &[PathBuf]) -> Corpus {
        Corpus::scan_with(dirs, &CorpusPricing::Detected)
    }

    /// [`Corpus::scan`] priced another way.
    pub fn scan_with(dirs: &[PathBuf], pricing: &CorpusPricing<'_>) -> Corpus {
        let (paths, walk_errors) = find_session_files(dirs);
        Corpus::scan_files(&paths, walk_errors, pricing)
    }

    /// [`Corpus::scan`] that reports progress: `progress(files done, files in all)` after each
    /// batch of files is merged (the CLI draws a progress bar with it).
    pub fn scan_reporting(dirs: &[PathBuf], progress: &(dyn Fn(usize, usize) + Sync)) -> Corpus {
        Corpus::scan_with_reporting(dirs, &CorpusPricing::Detected, progress)
    }

    /// [`Corpus::scan_with`] with [`Corpus::scan_reporting`]'s progress callback.
    pub fn scan_with_reporting(
        dirs: &[PathBuf],
        pricing: &CorpusPricing<'_>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Corpus {
        let ((paths, walk_errors), ()) =
            rayon::join(|| find_session_files(dirs), || pricing.prepare());
        Corpus::scan_files_with(&paths, walk_errors, pricing, None, progress).0
    }

    /// Scans the given files in parallel.
    pub fn scan_files(
        paths: &[PathBuf],
        walk_errors: Vec<(PathBuf, String)>,
        pricing: &CorpusPricing<'_>,
    ) -> Corpus {
        Corpus::scan_files_with(paths, walk_errors, pricing, None, &|_, _| {}).0
    }

    /// [`Corpus::scan`] through the incremental index of `dirs` in `cache_dir`
    /// ([`crate::index`]): unchanged files come from the index, grown ones are read from their
    /// old end, the rest are read whole; the index is then written again (atomically) when
    /// anything changed. The corpus is the same as without the index.
    pub fn scan_indexed(
        dirs: &[PathBuf],
        pricing: &CorpusPricing<'_>,
        cache_dir: &Path,
    ) -> (Corpus, crate::index::IndexStats) {
        Corpus::scan_indexed_reporting(dirs, pricing, cache_dir, &|_, _| {})
    }

    /// [`Corpus::scan_indexed`] with [`Corpus::scan_reporting`]'s progress callback.
    pub fn scan_indexed_reporting(
        dirs: &[PathBuf],
        pricing: &CorpusPricing<'_>,
        cache_dir: &Path,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> (Corpus, crate::index::IndexStats) {
        let idx = crate::index::index_path(cache_dir, dirs);
        let mut stats = crate::index::IndexStats {
            path: idx.clone(),
            ..Default::default()
        };
        // The index is read and checked while the directories are walked, and the catalog the
        // files most likely need is parsed beside them: three sequential steps of a warm run,
        // on two cores.
        let mut opened = None;
        let found = std::sync::OnceLock::new();
        let span = crate::timing::Span::start("walk and index load");
        rayon::scope(|s| {
            s.spawn(|_| {
                let _span = crate::timing::Span::start("catalog parse");
                pricing.prepare()
            });
            s.spawn(|_| {
                let _span = crate::timing::Span::start("directory walk");
                let _ = found.set(find_session_files(dirs));
            });
            let _span = crate::timing::Span::start("index read and check");
            opened = Some(crate::index::Loaded::open(&idx));
        });
        drop(span);
        let (paths, walk_errors) = found.into_inner().unwrap_or_default();
        let loaded = match opened.unwrap_or_else(|| Err("not read".to_owned())) {
            Ok(l) => Some(l),
            Err(why) => {
                stats.rebuilt = Some(why);
                None
            }
        };
        let (corpus, outcome) = Corpus::scan_files_with(
            &paths,
            walk_errors,
            pricing,
            Some(loaded.as_ref().ok_or(())),
            progress,
        );
        let Some((outcomes, sections)) = outcome else {
            return (corpus, stats);
        };
        for o in &outcomes {
            match o {
                crate::index::Outcome::Hit => stats.hits += 1,
                crate::index::Outcome::Appended => stats.appended += 1,
                crate::index::Outcome::Read => stats.read += 1,
            }
        }
        if let Some(l) = &loaded {
            stats.dropped = l.dropped(&paths);
        }
        let unchanged = loaded.is_some()
            && stats.dropped == 0
            && outcomes.iter().all(|o| *o == crate::index::Outcome::Hit)
            && sections.len() == paths.len();
        if !unchanged {
            let _span = crate::timing::Span::start("index write");
            match crate::index::write(&idx, loaded.as_ref(), &sections) {
                Ok(delta) => {
                    stats.written = true;
                    stats.delta = delta;
                }
                Err(e) => stats.write_error = Some(e),
            }
        }
        (corpus, stats)
    }

    /// [`Corpus::scan_files`]; with `index` (`Ok(loaded)` or `Err(())` for none yet), also
    /// each file's outcome and its new index section, in path order.
    #[allow(clippy::type_complexity)]
    fn scan_files_with<'l>(
        paths: &[PathBuf],
        walk_errors: Vec<(PathBuf, String)>,
        pricing: &CorpusPricing<'_>,
        index: Option<Result<&'l crate::index::Loaded, ()>>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> (
        Corpus,
        Option<(
            Vec<crate::index::Outcome>,
            Vec<(PathBuf, crate::index::Section<'l>)>,
        )>,
    ) {
        let span0 = crate::timing::Span::start("classify and order");
        let children = subagents::classify(paths);
        // Sessions first, then sub-agent sessions (shallow before deep, so a parent is merged
        // before its children), then transcripts. Within each, originals before their forks:
        // Pi names a file after the session's creation time, so file name order is creation
        // order (the path breaks ties).
        let rank = |i: usize| -> (u8, usize) {
            match &children[i] {
                None => (0, 0),
                Some(c) if c.kind == ChildKind::Transcript => (2, 0),
                Some(_) => (1, paths[i].components().count()),
            }
        };
        let mut order: Vec<usize> = (0..paths.len()).collect();
        order.sort_by(|&a, &b| {
            (rank(a), paths[a].file_name(), &paths[a]).cmp(&(
                rank(b),
                paths[b].file_name(),
                &paths[b],
            ))
        });
        let mut corpus = Corpus {
            walk_errors,
            ..Corpus::default()
        };
        // Room for as many requests as the files could hold (a request line is longer than 320
        // bytes), capped: pages of the reservation that are never written are never resident,
        // and the vector does not reallocate (no copy holding two of it at the peak).
        drop(span0);
        let span = crate::timing::Span::start("sizes (a stat per file)");
        let loaded = index.and_then(Result::ok);
        // A file the index holds has (most likely) the size it had then: no `stat` for it.
        let bytes: u64 = paths
            .par_iter()
            .filter_map(|p| {
                loaded
                    .and_then(|l| l.stored_size(p))
                    .or_else(|| std::fs::metadata(p).ok().map(|m| m.len()))
            })
            .sum();
        // A refused reservation (strict overcommit) only means the vector grows as usual.
        let _ = corpus.requests.try_reserve(
            usize::try_from(bytes / 320)
                .unwrap_or(usize::MAX)
                .min(1 << 23),
        );
        drop(span);
        let mut merger = Merger {
            corpus,
            models: Interner::new(),
            providers: Interner::new(),
            apis: Interner::new(),
            projects: Interner::new(),
            // About one request per 2 KiB of session files (a generated corpus: 1.7 KiB): the
            // map rarely grows (each growth moves every key), and is not made larger than it
            // needs (its every probe is a cache miss).
            seen: crate::fasthash::KeyTable::with_capacity(
                usize::try_from(bytes / 2048)
                    .unwrap_or(usize::MAX)
                    .min(1 << 22),
            ),
            seen_nested: KeyMap::default(),
            seen_calls: KeyMap::default(),
            file_of_path: vec![None; paths.len()],
            links: Default::default(),
            recon_of: Default::default(),
        };
        // Scan a chunk of files in parallel while the previous chunk is merged in order, so at
        // most two chunks of per-file results are alive at once.
        let indexed = index.is_some();
        let mut outcomes = vec![crate::index::Outcome::Read; if indexed { paths.len() } else { 0 }];
        let mut sections: Vec<(usize, crate::index::Section<'l>)> = Vec::new();
        let mut pending: Option<Vec<(usize, FileScan)>> = None;
        let mut merged = 0usize;
        let (t_records, t_finish, t_merge) = (
            crate::timing::Sum::default(),
            crate::timing::Sum::default(),
            crate::timing::Sum::default(),
        );
        let span = crate::timing::Span::start("scan and merge");
        for chunk in order.chunks(CHUNK) {
            let (scans, ()) = rayon::join(
                || {
                    chunk
                        .par_iter()
                        .map(|&i| {
                            let child = children[i].as_ref();
                            if !indexed {
                                return (i, scan_file(&paths[i], child, pricing), None);
                            }
                            let (records, outcome, section) = t_records
                                .time(|| crate::index::records_for(loaded, &paths[i], child));
                            let scan = t_finish.time(|| records.finish(&paths[i], child, pricing));
                            (i, scan, Some((outcome, section)))
                        })
                        .collect::<Vec<_>>()
                },
                || {
                    if let Some(prev) = pending.take() {
                        merged += prev.len();
                        t_merge.time(|| {
                            for (i, scan) in prev {
                                merger.merge(i, children[i].as_ref(), scan);
                            }
                        });
                        progress(merged, paths.len());
                    }
                },
            );
            let mut scans_only = Vec::with_capacity(scans.len());
            for (i, scan, idx) in scans {
                if let Some((outcome, section)) = idx {
                    outcomes[i] = outcome;
                    if let Some(s) = section {
                        sections.push((i, s));
                    }
                }
                scans_only.push((i, scan));
            }
            pending = Some(scans_only);
        }
        if let Some(prev) = pending.take() {
            merged += prev.len();
            t_merge.time(|| {
                for (i, scan) in prev {
                    merger.merge(i, children[i].as_ref(), scan);
                }
            });
            progress(merged, paths.len());
        }
        drop(span);
        t_records.report("index lookup, identity and decode (or read)");
        t_finish.report("records finish (active path, pricing)");
        t_merge.report("merge");
        let Merger {
            mut corpus,
            models,
            providers,
            apis,
            projects,
            ..
        } = merger;
        corpus.release = match pricing {
            CorpusPricing::Pricer(p) => p.release().to_owned(),
            CorpusPricing::Release(r) => r.version().to_owned(),
            CorpusPricing::Detected if corpus.releases.is_empty() => {
                PiRelease::DEFAULT.version().to_owned()
            }
            CorpusPricing::Detected => {
                let mut list: Vec<&String> = corpus.releases.keys().collect();
                list.sort_by(|a, b| PiRelease::compare_versions(a, b));
                list.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        corpus.dicts = Dictionaries {
            models: models.list,
            providers: providers.list,
            apis: apis.list,
            projects: projects.list,
        };
        let index_out = indexed.then(|| {
            sections.sort_by_key(|(i, _)| *i);
            (
                outcomes,
                sections
                    .into_iter()
                    .map(|(i, s)| (paths[i].clone(), s))
                    .collect(),
            )
        });
        (corpus, index_out)
    }

    fn model_matches(&self, filter: &Filter, model_ok: &[bool], model: u32, provider: u32) -> bool {
        model_ok[model as usize]
            || filter.model.as_deref().is_some_and(|f| {
                format!(
                    "{}/{}",
                    self.dicts.providers[provider as usize], self.dicts.models[model as usize]
                ) == f
            })
    }

    fn model_ok(&self, filter: &Filter) -> Vec<bool> {
        self.dicts
            .models
            .iter()
            .map(|m| filter.model.as_deref().is_none_or(|f| m.contains(f)))
            .collect()
    }

    fn project_ok(&self, filter: &Filter) -> Vec<bool> {
        self.dicts
            .projects
            .iter()
            .map(|p| filter.project.as_deref().is_none_or(|f| p.contains(f)))
            .collect()
    }

    fn day_ok(filter: &Filter, time: Option<i64>) -> bool {
        let day = time.map(day_of_ms);
        filter.since.is_none_or(|s| day.is_some_and(|d| d >= s))
            && filter.until.is_none_or(|u| day.is_some_and(|d| d <= u))
    }

    /// Requests (main and sub-agent) that pass `filter`.
    pub fn filtered<'a>(
        &'a self,
        filter: &'a Filter,
    ) -> impl Iterator<Item = &'a CorpusRequest> + 'a {
        let model_ok = self.model_ok(filter);
        let project_ok = self.project_ok(filter);
        self.requests.iter().filter(move |r| {
            self.model_matches(filter, &model_ok, r.model, r.provider)
                && project_ok[self.files[r.file as usize].project as usize]
                && Corpus::day_ok(filter, r.time_ms())
        })
    }

    /// Nested reports that pass `filter` (a model filter keeps the reports naming a matching
    /// model).
    pub fn nested_filtered<'a>(
        &'a self,
        filter: &'a Filter,
    ) -> impl Iterator<Item = &'a CorpusNested> + 'a {
        let model_ok = self.model_ok(filter);
        let project_ok = self.project_ok(filter);
        self.nested.iter().filter(move |n| {
            self.model_matches(filter, &model_ok, n.model, n.provider)
                && project_ok[self.files[n.file as usize].project as usize]
                && Corpus::day_ok(filter, n.time_ms())
        })
    }

    /// The request DataFrame with interned (u32) columns: `file, line, time_ms, day, model,
    /// provider, api, input, output, cache_read, cache_write, cost, priced` (NaN when not
    /// priced) and `flags` (bit 0: abandoned, bit 1: sub-agent call).
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
            f64col("priced", &|r| r.priced),
            u32col("flags", &|r| {
                u32::from(!r.active) | (u32::from(r.subagent) << 1)
            }),
        ])?;
        Ok(df)
    }

    /// Groups the request frame by `by`, summing tokens (never averaging rates), and adds the
    /// nested reports passing `filter` to their groups; sorted by key.
    pub fn group(
        &self,
        df: &DataFrame,
        by: GroupBy,
        filter: &Filter,
    ) -> Result<Vec<Group>, CorpusError> {
        Ok(self.finish_groups(self.group_requests(df, by)?, by, filter))
    }

    /// [`Corpus::group`] without the request frame: the same groups, summed in the same (row)
    /// order, straight from the requests. For a report that exports no rows, the frame (the
    /// peak of a run's memory, and a sixth of a warm run's time) is never built.
    pub fn group_rows(&self, by: GroupBy, filter: &Filter) -> Vec<Group> {
        let mut index: crate::fasthash::FastMap<u64, usize> = Default::default();
        let mut groups: Vec<(u64, Group)> = Vec::new();
        for r in self.filtered(filter) {
            let code = match by {
                GroupBy::Session => u64::from(r.file),
                GroupBy::Project => u64::from(self.files[r.file as usize].project),
                GroupBy::Model => (u64::from(r.provider) << 32) | u64::from(r.model),
                GroupBy::Provider => u64::from(r.provider),
                GroupBy::Api => u64::from(r.api),
                // No day (no time) is a group of its own.
                GroupBy::Day => r
                    .time_ms()
                    .map_or(1 << 32, |t| u64::from(day_of_ms(t) as u32)),
            };
            let at = *index.entry(code).or_insert_with(|| {
                groups.push((code, Group::default()));
                groups.len() - 1
            });
            add_row(
                &mut groups[at].1,
                &r.totals(),
                u32::from(!r.active) | (u32::from(r.subagent) << 1),
                r.cost,
                r.priced,
            );
        }
        let groups = groups
            .into_iter()
            .map(|(code, mut g)| {
                g.key = match by {
                    GroupBy::Model => self.pair_name(code),
                    GroupBy::Day if code == 1 << 32 => String::new(),
                    GroupBy::Day => format_day(code as u32 as i32),
                    _ => self.key_name(by, code as u32),
                };
                g
            })
            .collect();
        self.finish_groups(groups, by, filter)
    }

    /// `provider/model` of a [`GroupBy::Model`] pair code (`provider << 32 | model`).
    fn pair_name(&self, pair: u64) -> String {
        format!(
            "{}/{}",
            self.dicts.providers[(pair >> 32) as usize],
            self.dicts.models[(pair & u64::from(u32::MAX)) as usize]
        )
    }

    /// Request groups (keys may repeat) merged by key, with the nested reports added.
    fn finish_groups(
        &self,
        request_groups: Vec<Group>,
        by: GroupBy,
        filter: &Filter,
    ) -> Vec<Group> {
        let mut out: BTreeMap<String, Group> = BTreeMap::new();
        for g in request_groups {
            match out.get_mut(&g.key) {
                Some(x) => x.add(&g),
                None => {
                    out.insert(g.key.clone(), g);
                }
            }
        }
        for n in self.nested_filtered(filter) {
            let key = match by {
                GroupBy::Session => self.key_name(by, n.file),
                GroupBy::Project => {
                    self.dicts.projects[self.files[n.file as usize].project as usize].clone()
                }
                GroupBy::Model => format!(
                    "{}/{}",
                    self.dicts.providers[n.provider as usize], self.dicts.models[n.model as usize]
                ),
                GroupBy::Provider => self.dicts.providers[n.provider as usize].clone(),
                GroupBy::Api => self.dicts.apis[n.api as usize].clone(),
                GroupBy::Day => n
                    .time_ms()
                    .map(|t| format_day(day_of_ms(t)))
                    .unwrap_or_default(),
            };
            let g = out.entry(key.clone()).or_insert_with(|| Group {
                key,
                ..Group::default()
            });
            n.report.add_to(&mut g.nested);
            if let Some(p) = n.priced() {
                g.nested_priced += p;
                g.nested_priced_calls += 1.0;
            }
        }
        out.into_values().collect()
    }

    /// The request part of [`Corpus::group`] (keys may repeat: sub-agent files share their
    /// parent's session key).
    fn group_requests(&self, df: &DataFrame, by: GroupBy) -> Result<Vec<Group>, CorpusError> {
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
        // A model id is grouped with its provider (`provider/model`): the same id served by two
        // providers is two groups. The pair is one u64 key (provider << 32 | model) in a frame
        // of its own, with the same rows: a two-column group_by held ~8% more memory on the
        // bench corpus.
        let pairs;
        let gb = if by == GroupBy::Model {
            let providers = df.column("provider")?.u32()?;
            let models = df.column(key)?.u32()?;
            let pair: UInt64Chunked = providers
                .iter()
                .zip(models.iter())
                .map(|(p, m)| Some((u64::from(p.unwrap_or(0)) << 32) | u64::from(m.unwrap_or(0))))
                .collect();
            pairs = DataFrame::new_infer_height(vec![pair
                .with_name("provider_model".into())
                .into_column()])?;
            pairs.group_by(["provider_model"])?
        } else {
            df.group_by([key])?
        };
        let key_cols = gb.keys();
        let key_col = &key_cols[0];
        let keys: Vec<String> = match by {
            GroupBy::Model => key_col
                .u64()?
                .iter()
                .map(|pair| self.pair_name(pair.unwrap_or(0)))
                .collect(),
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
        let (inp_c, outp_c, cr_c, cw_c, cost_c, priced_c) = (
            get("input")?,
            get("output")?,
            get("cache_read")?,
            get("cache_write")?,
            get("cost")?,
            get("priced")?,
        );
        let flags_column = df.column("flags")?;
        let flags_c: Cow<'_, [u32]> =
            match flags_column.u32().ok().and_then(|a| a.cont_slice().ok()) {
                Some(slice) => Cow::Borrowed(slice),
                None => Cow::Owned(
                    numbers(flags_column)?
                        .into_iter()
                        .map(|v| v as u32)
                        .collect(),
                ),
            };
        let mut rows: Vec<usize> = Vec::new();
        let mut groups = Vec::with_capacity(keys.len());
        for (g, group) in gb.get_groups().iter().enumerate() {
            rows.clear();
            match group {
                GroupsIndicator::Idx((_, idx)) => rows.extend(idx.iter().map(|&i| i as usize)),
                GroupsIndicator::Slice([first, len]) => {
                    rows.extend(first as usize..(first + len) as usize)
                }
            }
            rows.sort_unstable();
            let mut out = Group {
                key: keys[g].clone(),
                ..Group::default()
            };
            for &r in &rows {
                let t = Totals {
                    requests: 1.0,
                    input: inp_c[r],
                    output: outp_c[r],
                    cache_read: cr_c[r],
                    cache_write: cw_c[r],
                };
                add_row(&mut out, &t, flags_c[r], cost_c[r], priced_c[r]);
            }
            groups.push(out);
        }
        Ok(groups)
    }

    fn key_name(&self, by: GroupBy, code: u32) -> String {
        let i = code as usize;
        match by {
            GroupBy::Session => {
                // A sub-agent file's requests count for the session it is attributed to.
                let f = &self.files[self.files[i].attributed as usize];
                f.session_id
                    .clone()
                    .unwrap_or_else(|| f.path.display().to_string())
            }
            GroupBy::Project => self.dicts.projects[i].clone(),
            // Keyed `provider/model` in `group_requests`.
            GroupBy::Model => self.dicts.models[i].clone(),
            GroupBy::Provider => self.dicts.providers[i].clone(),
            GroupBy::Api => self.dicts.apis[i].clone(),
            GroupBy::Day => String::new(),
        }
    }

    fn session_of(&self, file: u32) -> &str {
        let f = &self.files[self.files[file as usize].attributed as usize];
        f.session_id.as_deref().unwrap_or("")
    }

    /// The export frame of request rows `df` (a slice of [`Corpus::frame`]): `session, file,
    /// line, timestamp, day, project, provider, model, api, kind, requests, input, output,
    /// cache_read, cache_write, cost, priced, branch, nested_status`.
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
        let flags = codes("flags")?;
        let strcol = |name: &str, codes: &[u32], table: &[String]| {
            Column::new(
                name.into(),
                codes
                    .iter()
                    .map(|&c| table[c as usize].as_str())
                    .collect::<Vec<&str>>(),
            )
        };
        let session: Vec<&str> = files.iter().map(|&f| self.session_of(f)).collect();
        let path: Vec<String> = files
            .iter()
            .map(|&f| self.files[f as usize].path.display().to_string())
            .collect();
        let time = df
            .column("time_ms")?
            .cast(&utc_ms())?
            .with_name("timestamp".into());
        let day = df.column("day")?.cast(&DataType::Date)?;
        let kind: Vec<&str> = flags
            .iter()
            .map(|f| if f & 2 != 0 { "subagent" } else { "main" })
            .collect();
        let branch: Vec<&str> = flags
            .iter()
            .map(|f| if f & 1 != 0 { "abandoned" } else { "active" })
            .collect();
        let priced: Float64Chunked = df
            .column("priced")?
            .f64()?
            .iter()
            .map(|v| v.filter(|p| !p.is_nan()))
            .collect();
        let n = df.height();
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
            Column::new("kind".into(), kind),
            Int64Chunked::from_vec("requests".into(), vec![1; n]).into_column(),
            count(df.column("input")?)?,
            count(df.column("output")?)?,
            count(df.column("cache_read")?)?,
            count(df.column("cache_write")?)?,
            df.column("cost")?.clone(),
            priced.with_name("priced".into()).into_column(),
            Column::new("branch".into(), branch),
            Column::full_null("nested_status".into(), n, &DataType::String),
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
            if let Some(run) = f.child.as_mut().and_then(|c| c.run_id.as_mut()) {
                fix(run);
            }
            for b in &mut f.findings {
                fix(&mut b.message);
            }
        }
        for (p, m) in &mut self.walk_errors {
            *p = PathBuf::from(text(&p.to_string_lossy()).into_owned());
            fix(m);
        }
        self.redacted = true;
    }

    /// The export frame of nested reports, with the columns of [`Corpus::materialize`]
    /// (`kind` = `nested`, `requests` = the report's requests, no cost; cache counts are null
    /// for a cache-unknown report and every count for a malformed one).
    fn materialize_nested(&self, rows: &[&CorpusNested]) -> Result<DataFrame, CorpusError> {
        let strs = |name: &str, v: Vec<&str>| Column::new(name.into(), v);
        let num = |name: &str, f: &dyn Fn(&CorpusNested) -> Option<f64>| {
            rows.iter()
                .map(|n| f(n))
                .collect::<Float64Chunked>()
                .with_name(name.into())
                .into_column()
        };
        let int = |name: &str, f: &dyn Fn(&CorpusNested) -> Option<f64>| {
            rows.iter()
                .map(|n| f(n).and_then(token_count))
                .collect::<Int64Chunked>()
                .with_name(name.into())
                .into_column()
        };
        let valid = |n: &CorpusNested| match n.report {
            NestedReport::Valid(u) => Some(u),
            NestedReport::Invalid(_) => None,
        };
        let time =
            Int64Chunked::from_iter_options("timestamp".into(), rows.iter().map(|n| n.time_ms()))
                .into_column()
                .cast(&utc_ms())?;
        let day = Int32Chunked::from_iter_options(
            "day".into(),
            rows.iter().map(|n| n.time_ms().map(day_of_ms)),
        )
        .into_column()
        .cast(&DataType::Date)?;
        let d = &self.dicts;
        let out = DataFrame::new_infer_height(vec![
            strs(
                "session",
                rows.iter().map(|n| self.session_of(n.file)).collect(),
            ),
            Column::new(
                "file".into(),
                rows.iter()
                    .map(|n| self.files[n.file as usize].path.display().to_string())
                    .collect::<Vec<String>>(),
            ),
            UInt32Chunked::from_vec("line".into(), rows.iter().map(|n| n.line).collect())
                .into_column(),
            time,
            day,
            strs(
                "project",
                rows.iter()
                    .map(|n| d.projects[self.files[n.file as usize].project as usize].as_str())
                    .collect(),
            ),
            strs(
                "provider",
                rows.iter()
                    .map(|n| d.providers[n.provider as usize].as_str())
                    .collect(),
            ),
            strs(
                "model",
                rows.iter()
                    .map(|n| d.models[n.model as usize].as_str())
                    .collect(),
            ),
            strs(
                "api",
                rows.iter()
                    .map(|n| d.apis[n.api as usize].as_str())
                    .collect(),
            ),
            strs("kind", vec!["nested"; rows.len()]),
            int("requests", &|n| valid(n).map(|u| u.requests)),
            int("input", &|n| valid(n).map(|u| u.input)),
            int("output", &|n| valid(n).map(|u| u.output)),
            int("cache_read", &|n| {
                valid(n).and_then(|u| u.cache).map(|c| c.0)
            }),
            int("cache_write", &|n| {
                valid(n).and_then(|u| u.cache).map(|c| c.1)
            }),
            num("cost", &|_| None),
            num("priced", &|n| n.priced()),
            strs(
                "branch",
                rows.iter()
                    .map(|n| if n.active { "active" } else { "abandoned" })
                    .collect(),
            ),
            strs(
                "nested_status",
                rows.iter()
                    .map(|n| match n.report {
                        NestedReport::Invalid(_) => "invalid",
                        NestedReport::Valid(u) if u.cache.is_none() => "cache-unknown",
                        NestedReport::Valid(_) => "valid",
                    })
                    .collect(),
            ),
        ])?;
        Ok(out)
    }

    /// Writes the requests and nested reports as CSV, 64k rows at a time.
    pub fn write_csv(
        &self,
        df: &DataFrame,
        filter: &Filter,
        path: &Path,
    ) -> Result<(), CorpusError> {
        forge_replay_io::write_atomic_with(path, |w| {
            let mut writer: Option<polars::io::csv::write::BatchedWriter<_>> = None;
            for m in self.export_batches(df, filter) {
                let m = m?;
                if writer.is_none() {
                    writer = Some(CsvWriter::new(&mut *w).batched(m.schema())?);
                }
                if let Some(wr) = writer.as_mut() {
                    wr.write_batch(&m)?;
                }
            }
            if writer.is_none() {
                let mut empty = rfc3339_timestamps(self.materialize(&df.head(Some(0)))?)?;
                CsvWriter::new(&mut *w).finish(&mut empty)?;
            }
            Ok(())
        })
    }

    /// Writes the requests and nested reports as JSON Lines (one object per row).
    pub fn write_ndjson(
        &self,
        df: &DataFrame,
        filter: &Filter,
        path: &Path,
    ) -> Result<(), CorpusError> {
        forge_replay_io::write_atomic_with(path, |w| {
            let mut writer = polars::io::json::BatchedWriter::new(&mut *w);
            for m in self.export_batches(df, filter) {
                writer.write_batch(&m?)?;
            }
            Ok(())
        })
    }

    /// The export rows in batches: the requests 64k at a time, then the nested reports.
    fn export_batches<'a>(
        &'a self,
        df: &'a DataFrame,
        filter: &'a Filter,
    ) -> impl Iterator<Item = Result<DataFrame, CorpusError>> + 'a {
        let nested: Vec<&CorpusNested> = self.nested_filtered(filter).collect();
        chunks(df)
            .map(move |chunk| self.materialize(&chunk))
            .chain(
                nested
                    .chunks(65_536)
                    .map(|c| self.materialize_nested(c))
                    .collect::<Vec<_>>(),
            )
            .map(|m| m.and_then(rfc3339_timestamps))
    }

    /// Writes a hive-partitioned parquet dataset: `dir/day=YYYY-MM-DD/part-0.parquet`
    /// (`day=unknown` for rows without a timestamp). Returns the partitions written.
    ///
    /// The dataset is one set ([`forge_replay_io::DirSet`]): written beside `dir`, completed by
    /// its marker (`dir/.forge-replay-set`, which lists the partitions) and renamed into place,
    /// so a reader never sees some partitions of a new export mixed with an old one.
    pub fn write_parquet_dataset(
        &self,
        df: &DataFrame,
        filter: &Filter,
        dir: &Path,
    ) -> Result<Vec<PathBuf>, CorpusError> {
        let mut set = forge_replay_io::DirSet::begin(dir, PARQUET_SET_KIND)?;
        set.note("redacted", if self.redacted { "true" } else { "false" });
        let nested: Vec<&CorpusNested> = self.nested_filtered(filter).collect();
        let mut days: Vec<Option<i32>> = df.column("day")?.i32()?.iter().collect();
        days.extend(nested.iter().map(|n| n.time_ms().map(day_of_ms)));
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
            let these: Vec<&CorpusNested> = nested
                .iter()
                .copied()
                .filter(|n| n.time_ms().map(day_of_ms) == day)
                .collect();
            if !these.is_empty() {
                m.vstack_mut(&self.materialize_nested(&these)?)?;
            }
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

    /// Number of files that are Pi sessions of their own (sub-agent files not included).
    pub fn sessions(&self) -> usize {
        self.files
            .iter()
            .filter(|f| f.session_id.is_some() && f.child.is_none())
            .count()
    }

    /// Number of fork (or clone) files: a header with `parentSession` (sub-agent forks not
    /// included).
    pub fn forks(&self) -> usize {
        self.files
            .iter()
            .filter(|f| f.parent_session.is_some() && f.child.is_none())
            .count()
    }

    /// Files that are not Pi sessions nor sub-agent transcripts (and could be read).
    pub fn not_sessions(&self) -> usize {
        self.files
            .iter()
            .filter(|f| f.error.is_none() && f.session_id.is_none() && !f.transcript)
            .count()
    }
}

/// A numeric column as doubles, read in Rust: `Column::cast` makes polars build its 8 MiB
/// shared zero buffer for some inputs (peak memory).
/// One request row into its group: `flags` bit 0 abandoned, bit 1 sub-agent call; `priced` NaN
/// when not priced. The one summation both [`Corpus::group`] and [`Corpus::group_rows`] use.
fn add_row(out: &mut Group, t: &Totals, flags: u32, cost: f64, priced: f64) {
    if flags & 2 != 0 {
        out.subagents.add(t);
    } else {
        out.totals.add(t);
    }
    out.abandoned_requests += f64::from(flags & 1);
    out.cost += cost;
    if priced.is_nan() {
        out.unpriced_requests += 1.0;
    } else {
        out.priced += priced;
        out.priced_requests += 1.0;
        out.recorded_of_priced += cost;
    }
}

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

/// Milliseconds since the epoch in UTC: the export timestamp type (Parquet stores it as an
/// instant, `isAdjustedToUTC`).
fn utc_ms() -> DataType {
    DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
}

/// A token count as an integer (counts are whole numbers; a fractional one is rounded, one
/// beyond `i64` is null).
fn token_count(v: f64) -> Option<i64> {
    let r = v.round();
    (r.is_finite() && r.abs() < 9.0e18).then_some(r as i64)
}

/// A token-count column of doubles as integers ([`token_count`]).
fn count(c: &Column) -> Result<Column, CorpusError> {
    Ok(c.f64()?
        .iter()
        .map(|v| v.and_then(token_count))
        .collect::<Int64Chunked>()
        .with_name(c.name().clone())
        .into_column())
}

/// Replaces the `timestamp` column by its RFC 3339 UTC text (`2026-01-02T03:04:05.678Z`), for
/// the text exports (CSV, JSON Lines).
fn rfc3339_timestamps(mut df: DataFrame) -> Result<DataFrame, CorpusError> {
    let text: StringChunked = df
        .column("timestamp")?
        .cast(&DataType::Int64)?
        .i64()?
        .iter()
        .map(|v| v.map(format_timestamp))
        .collect();
    df.with_column(text.with_name("timestamp".into()).into_column())?;
    Ok(df)
}

/// `2026-01-02T03:04:05.678Z` of milliseconds since the epoch (RFC 3339, UTC, as JavaScript's
/// `toISOString()`).
pub fn format_timestamp(ms: i64) -> String {
    date::to_iso_string(ms as f64).unwrap_or_default()
}

/// `YYYY-MM-DD` of a day number.
pub fn format_day(days: i32) -> String {
    let (y, m, d) = date::civil_from_days(i64::from(days));
    format!("{y:04}-{m:02}-{d:02}")
}

fn day_of_ms(ms: i64) -> i32 {
    ms.div_euclid(date::MS_PER_DAY) as i32
}

/// The kind of set a parquet dataset is (its `.forge-replay-set` marker says `kind: ` this).
pub const PARQUET_SET_KIND: &str = "parquet-dataset";

/// Whether `dir` can take a `--parquet` dataset (new, empty, or a previous dataset), checked
/// before the corpus is read so a refused target never comes after other exports were written.
pub fn check_parquet_target(dir: &Path) -> Result<(), CorpusError> {
    Ok(forge_replay_io::DirSet::check_target(
        dir,
        PARQUET_SET_KIND,
    )?)
}

/// Parses `YYYY-MM-DD` or `YYYYMMDD` into a day number; `None` for anything else, a day the
/// month does not have (`2026-02-30`) included.
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
    let days = date::days_from_civil(y, m, d);
    // `2026-02-30` would be day 61 of the year, 2026-03-02: a day the month lacks is refused.
    (date::civil_from_days(days) == (y, m, d)).then_some(days as i32)
}

/// A `--since`/`--until` day: as given (for the report's filters) and as days since the epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub text: String,
    pub day: i32,
}

/// A day that is neither `YYYY-MM-DD` nor `YYYYMMDD` (or one its month does not have).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected YYYY-MM-DD or YYYYMMDD")]
pub struct BadDay;

impl Day {
    /// The day `s` names ([`parse_day`]), keeping the text as given.
    pub fn parse(s: &str) -> Result<Day, BadDay> {
        let day = parse_day(s).ok_or(BadDay)?;
        Ok(Day {
            text: s.to_owned(),
            day,
        })
    }
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
    fn a_day_keeps_its_text() {
        let day = Day::parse("20260102").unwrap();
        assert_eq!(
            (day.text.as_str(), day.day),
            ("20260102", parse_day("2026-01-02").unwrap())
        );
        assert_eq!(Day::parse("2026-02-30"), Err(BadDay));
        assert_eq!(BadDay.to_string(), "expected YYYY-MM-DD or YYYYMMDD");
    }

    #[test]
    fn every_grouping_is_named_as_it_parses() {
        use forge_replay_model::choice::Choice;
        for by in GroupBy::ALL {
            assert_eq!(GroupBy::parse(by.name()), Some(*by));
            assert_eq!(GroupBy::named(by.name(), GroupBy::ALL), Some(*by));
        }
    }

    #[test]
    fn export_timestamps_are_rfc3339_utc() {
        assert_eq!(format_timestamp(0), "1970-01-01T00:00:00.000Z");
        let ms = timestamp_ms("2026-01-02T03:04:05.678Z").unwrap();
        assert_eq!(format_timestamp(ms), "2026-01-02T03:04:05.678Z");
        assert_eq!(format_timestamp(-1), "1969-12-31T23:59:59.999Z");
    }

    /// The Parquet export stores token counts as integers and timestamps as instants.
    #[test]
    fn parquet_columns_are_typed() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("s");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join("a.jsonl"),
            concat!(
                r#"{"type":"session","version":3,"id":"a","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/p"}"#,
                "\n",
                r#"{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-02T03:04:05.678Z","message":{"role":"assistant","content":[],"provider":"openai","model":"gpt-5.5","usage":{"input":14,"output":3,"cacheRead":7,"cacheWrite":0},"stopReason":"stop"}}"#,
                "\n"
            ),
        )
        .unwrap();
        let corpus = Corpus::scan(&[sessions]);
        let filter = Filter::default();
        let df = corpus.frame(&filter).unwrap();
        let out = dir.path().join("pq");
        let parts = corpus.write_parquet_dataset(&df, &filter, &out).unwrap();
        assert_eq!(parts.len(), 1);
        let file = std::fs::File::open(out.join("day=2026-01-02/part-0.parquet")).unwrap();
        let back = ParquetReader::new(file).finish().unwrap();
        assert_eq!(back.column("input").unwrap().dtype(), &DataType::Int64);
        assert_eq!(
            back.column("input").unwrap().i64().unwrap().get(0),
            Some(14)
        );
        assert_eq!(back.column("requests").unwrap().dtype(), &DataType::Int64);
        // Milliseconds since the epoch, UTC (the zone name is not read back by every reader).
        assert!(matches!(
            back.column("timestamp").unwrap().dtype(),
            DataType::Datetime(TimeUnit::Milliseconds, _)
        ));
        let ts = back
            .column("timestamp")
            .unwrap()
            .cast(&DataType::Int64)
            .unwrap();
        assert_eq!(
            ts.i64().unwrap().get(0).map(format_timestamp).as_deref(),
            Some("2026-01-02T03:04:05.678Z")
        );
    }

    #[test]
    fn token_counts_are_integers() {
        assert_eq!(token_count(14.0), Some(14));
        assert_eq!(token_count(0.4), Some(0));
        assert_eq!(token_count(1e22), None);
        assert_eq!(token_count(f64::NAN), None);
    }

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
        // A day the month does not have is refused, not rolled over into the next month.
        for s in [
            "2026-02-30",
            "2026-02-29",
            "20260431",
            "1900-02-29",
            "2026-00-10",
            "2026-01-00",
        ] {
            assert_eq!(parse_day(s), None, "{s}");
        }
        assert_eq!(parse_day("2024-02-29"), Some(19782));
        assert_eq!(
            parse_day("2026-12-31").map(format_day).as_deref(),
            Some("2026-12-31")
        );
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
