//! What one file of a corpus holds for the corpus reports, before pricing and before its active
//! path is known: the unit the incremental index ([`crate::index`]) stores.
//!
//! [`Records::read`] streams a file into them; [`Records::resume`] reads only the lines a file
//! gained since (Pi's session files are append-only); [`Records::finish`] walks the active path
//! and prices the requests with the release the file's markers show, giving the same
//! [`FileScan`] for a file read whole or read in parts.

use std::io::{BufReader, Seek, SeekFrom};
use std::path::Path;

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::release::PiRelease;

use crate::corpus::{
    call_key, dedup_key, nested_key, project_from_dir, reason_index, timestamp_ms, ChildFile,
    CorpusFile, CorpusPricing, FileScan, RawNested, RawRequest,
};
use crate::markers::ReleaseMarkers;
use crate::nested::NestedReport;
use crate::pricing::{PriceMemo, Pricer, PricingUsage, Unpriced};
use crate::scan::Header;
use crate::session::{BadLine, NotASession, SessionData, Transcript};
use crate::subagents::{ChildKind, ChildPath};
use crate::totals::Totals;

/// One request, unpriced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecRequest {
    /// Index of its entry in the file.
    pub entry: u32,
    pub key: u64,
    pub line: u32,
    pub time_ms: Option<i64>,
    /// Indices into [`Records::strings`].
    pub model: u32,
    pub provider: u32,
    pub api: u32,
    pub totals: Totals,
    pub cost: f64,
    pub cache_write_1h: f64,
    pub call_key: Option<u64>,
}

/// One nested report, unpriced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecNested {
    pub entry: u32,
    pub key: u64,
    pub line: u32,
    pub time_ms: Option<i64>,
    pub report: NestedReport,
    pub model: u32,
    pub provider: u32,
    pub run_id: Option<Box<str>>,
    pub session_file: Option<Box<str>>,
}

/// Where reading may resume when the file grows: after its last complete line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ResumePoint {
    /// Bytes read (the file's size then).
    pub len: u64,
    /// Where the last line starts, and a hash of it (to `len`): a file whose old last line
    /// changed was rewritten, not appended to.
    pub last_line_start: u64,
    pub last_line_hash: u64,
    /// Lines read (the next line's number is one more).
    pub lines: u32,
    /// Whether reading can resume at `len` at all (the file ended with a newline after a
    /// header, and reading did not stop early).
    pub resumable: bool,
}

/// A file's records.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Records {
    /// Set when the file could not be read (never stored).
    pub error: Option<String>,
    pub header: Option<Header>,
    pub not_session: Option<NotASession>,
    pub transcript: Option<Transcript>,
    pub markers: ReleaseMarkers,
    pub bad_lines: Vec<BadLine>,
    /// Usage problems and malformed nested reports.
    pub findings: Vec<BadLine>,
    pub entries: u32,
    /// The first entry's line.
    pub first_line: Option<u32>,
    /// Per entry: a hash of its id and of its parent id (0: none). The active path is walked on
    /// them; two ids hashing alike are taken for one (64 bits: not in practice).
    pub links: Vec<(u64, u64)>,
    pub strings: Vec<String>,
    pub requests: Vec<RecRequest>,
    pub nested: Vec<RecNested>,
    pub resume: ResumePoint,
}

/// An id's hash for [`Records::links`] (never 0): FNV-1a, 64 bits (ids are short; this runs for
/// every entry of a cold scan).
fn id_hash(id: Option<&str>) -> u64 {
    let Some(id) = id else { return 0 };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in id.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h | 1
}

/// What the child path changes in the records (part of their identity in the index).
pub(crate) fn child_sig(child: Option<&ChildPath>) -> u8 {
    match child.map(|c| c.kind) {
        None => 0,
        Some(ChildKind::Fork) => 1,
        Some(ChildKind::Run) => 2,
        Some(ChildKind::Transcript) => 3,
    }
}

/// [`Records::strings`] index of an absent string.
const NONE: u32 = u32::MAX;

/// Interns a string of the records (`NONE` for an absent one).
fn intern_opt(strings: &mut Vec<String>, s: Option<&str>) -> u32 {
    match s {
        None => NONE,
        Some(s) => match strings.iter().position(|x| x == s) {
            Some(i) => i as u32,
            None => {
                strings.push(s.to_owned());
                (strings.len() - 1) as u32
            }
        },
    }
}

fn local_intern(strings: &mut Vec<String>, s: Option<&str>) -> u32 {
    let s = s.unwrap_or("");
    if let Some(i) = strings.iter().position(|x| x == s) {
        return i as u32;
    }
    strings.push(s.to_owned());
    (strings.len() - 1) as u32
}

impl Records {
    /// Streams a whole file.
    pub fn read(path: &Path, child: Option<&ChildPath>) -> Records {
        match SessionData::read(path) {
            Ok(data) => {
                let mut r = Records::default();
                r.take(path, child, data);
                r
            }
            Err(e) => Records {
                error: Some(error_chain(&e)),
                ..Records::default()
            },
        }
    }

    /// Reads the lines the file gained after [`Records::resume`]'s point (the caller checked
    /// the old part is unchanged). `None` when these records cannot be resumed.
    pub fn resume(mut self, path: &Path, child: Option<&ChildPath>) -> Option<Records> {
        if !self.resume.resumable || self.error.is_some() {
            return None;
        }
        let mut file = forge_replay_session::input::open(path).ok()?;
        file.seek(SeekFrom::Start(self.resume.len)).ok()?;
        let state =
            SessionData::resumed(self.header.clone(), self.transcript.clone(), self.markers);
        let data = state
            .continue_reading(
                BufReader::with_capacity(64 * 1024, file),
                self.resume.lines,
                self.resume.len,
            )
            .ok()?;
        self.take(path, child, data);
        Some(self)
    }

    /// Adds what `data` read (a whole file, or the lines after the resume point).
    fn take(&mut self, path: &Path, child: Option<&ChildPath>, data: SessionData) {
        let base = self.entries;
        self.header = data.header;
        self.not_session = data.not_session;
        self.transcript = data.transcript;
        self.markers = data.markers;
        self.bad_lines.extend(data.bad_lines);
        self.resume = data.resume;
        // A transcript counts only where pi-subagents writes one.
        let transcript =
            self.transcript.is_some() && child.is_some_and(|c| c.kind == ChildKind::Transcript);
        let is_child = child.is_some();
        if self.first_line.is_none() {
            self.first_line = data.entries.first().map(|e| e.line);
        }
        self.entries += data.entries.len() as u32;
        self.links.reserve(data.entries.len());
        for (i, e) in data.entries.iter().enumerate() {
            let entry = base + i as u32;
            self.links
                .push((id_hash(e.id.as_deref()), id_hash(e.parent_id.as_deref())));
            let Some(m) = &e.message else { continue };
            for message in m.usage_problems.messages() {
                self.findings.push(BadLine {
                    line: e.line,
                    message,
                });
            }
            if let (Some(report), false) = (&m.nested, transcript) {
                let link = m.nested_link.as_deref();
                if let NestedReport::Invalid(why) = report {
                    self.findings.push(BadLine {
                        line: e.line,
                        message: format!("malformed nested report ignored (invalidCalls): {why}"),
                    });
                }
                let ts = link.and_then(|l| l.timestamp.as_deref());
                let (provider, model) = (
                    link.and_then(|l| l.provider.as_deref()),
                    link.and_then(|l| l.model.as_deref()),
                );
                self.nested.push(RecNested {
                    entry,
                    key: nested_key(e.id.as_deref(), ts, report, path, e.line),
                    line: e.line,
                    time_ms: ts.and_then(timestamp_ms),
                    report: *report,
                    model: intern_opt(&mut self.strings, model),
                    provider: intern_opt(&mut self.strings, provider),
                    run_id: link.and_then(|l| l.run_id.clone()),
                    session_file: link.and_then(|l| l.session_file.clone()),
                });
            }
            let Some(t) = m.request else { continue };
            let meta = m.meta.as_deref();
            let ts = meta.and_then(|x| x.timestamp.as_deref());
            self.requests.push(RecRequest {
                entry,
                key: dedup_key(e.id.as_deref(), ts, &t, path, e.line),
                line: e.line,
                time_ms: ts.and_then(timestamp_ms),
                model: intern_opt(&mut self.strings, meta.and_then(|x| x.model.as_deref())),
                provider: intern_opt(&mut self.strings, meta.and_then(|x| x.provider.as_deref())),
                api: intern_opt(&mut self.strings, meta.and_then(|x| x.api.as_deref())),
                totals: t,
                cost: meta.map_or(0.0, |x| x.cost),
                cache_write_1h: meta.map_or(0.0, |x| x.cache_write_1h),
                call_key: is_child.then(|| call_key(meta, &t)).flatten(),
            });
        }
    }

    /// Whether the entries are a linear chain (files before version 2, child transcripts).
    fn linear(&self) -> bool {
        self.transcript.is_some() || self.header.as_ref().is_some_and(|h| h.version < 2.0)
    }

    /// Which entries lie on the active path (the path to the last entry, as Pi loads the file):
    /// [`SessionData::path_to`] on the id hashes.
    fn on_path(&self) -> Vec<bool> {
        let n = self.links.len();
        let mut on = vec![false; n];
        if n == 0 {
            return on;
        }
        if self.linear() {
            on.iter_mut().for_each(|x| *x = true);
            return on;
        }
        let mut by_id: crate::fasthash::FastMap<u64, usize> =
            crate::fasthash::FastMap::with_capacity_and_hasher(n, Default::default());
        for (i, (id, _)) in self.links.iter().enumerate() {
            if *id != 0 {
                by_id.insert(*id, i);
            }
        }
        let mut at = Some(n - 1);
        let mut steps = 0;
        while let Some(i) = at {
            if on[i] || steps > n {
                break; // a parent cycle: stop rather than loop
            }
            on[i] = true;
            steps += 1;
            let parent = self.links[i].1;
            at = (parent != 0).then(|| by_id.get(&parent).copied()).flatten();
        }
        on
    }

    /// The file's scan: its active path walked, its requests priced.
    pub fn finish(
        &self,
        path: &Path,
        child: Option<&ChildPath>,
        pricing: &CorpusPricing<'_>,
    ) -> FileScan {
        let mut file = CorpusFile {
            path: path.to_owned(),
            session_id: None,
            project: 0,
            parent_session: None,
            header_time: None,
            entries: 0,
            bad_lines: Vec::new(),
            findings: Vec::new(),
            error: self.error.clone(),
            not_session: self.not_session.clone(),
            child: child.map(|c| ChildFile {
                kind: c.kind,
                parent: None,
                run_id: c.run_id.clone(),
                counted: Totals::default(),
                copies: Totals::default(),
                covered: Totals::default(),
            }),
            attributed: 0,
            transcript: false,
            release: forge_replay_model::release::PiRelease::DEFAULT,
        };
        let empty = |file: CorpusFile, project: String| FileScan {
            file,
            project,
            strings: Vec::new(),
            requests: Vec::new(),
            nested: Vec::new(),
            reasons: Vec::new(),
        };
        if self.error.is_some() {
            return empty(file, String::new());
        }
        file.bad_lines = self.bad_lines.clone();
        let transcript =
            self.transcript.is_some() && child.is_some_and(|c| c.kind == ChildKind::Transcript);
        if self.header.is_none() && !transcript {
            if self.transcript.is_some() && file.not_session.is_none() {
                file.not_session = Some(NotASession {
                    line: self.first_line,
                    reason: "not a pi session: a sub-agent transcript record, counted only as \
                             subagent-artifacts/<runId>_<agent>_transcript.jsonl"
                        .to_owned(),
                });
            }
            return empty(file, project_from_dir(path));
        }
        file.transcript = transcript;
        file.release = pricing.release_for(&self.markers);
        let detected;
        let pricer = match pricing {
            CorpusPricing::Pricer(p) => p,
            _ => {
                detected = Pricer::of(forge_replay_wire::Catalog::builtin(file.release));
                &detected
            }
        };
        let project = self
            .header
            .as_ref()
            .and_then(|h| h.cwd.clone())
            .or_else(|| self.transcript.as_ref().and_then(|t| t.cwd.clone()))
            .unwrap_or_else(|| project_from_dir(path));
        file.entries = self.entries as usize;
        file.findings = self.findings.clone();
        if let Some(h) = &self.header {
            file.session_id = Some(h.id.clone());
            file.parent_session = h.parent_session.clone();
            file.header_time = h.timestamp.clone();
        }
        let on_path = self.on_path();
        // The file's strings are interned again in the order a whole-file scan meets them (per
        // entry: a nested report's model, provider and API, then a request's), so the corpus
        // dictionaries come out the same however the file was read.
        let mut strings: Vec<String> = Vec::new();
        let mut reasons = Vec::new();
        // The builtin catalogs' prices are the same for every file of a release: one memo per
        // worker and release (a file names few models, and reading a model's prices parses its
        // cost object). Another pricer's memo lives for this file only.
        let shared = !matches!(pricing, CorpusPricing::Pricer(_));
        let mut memo = if shared {
            take_memo(file.release)
        } else {
            PriceMemo::default()
        };
        let s = |i: u32| -> Option<&str> { (i != NONE).then(|| self.strings[i as usize].as_str()) };
        // Per string of the records (and `NONE`, last): its index in `strings`, interned when
        // first met (the same order as interning every time), and per (provider, model) pair
        // its price memo entry: a file's requests name few strings, met thousands of times.
        let mut local: Vec<u32> = vec![u32::MAX; self.strings.len() + 1];
        let mut intern = |strings: &mut Vec<String>, i: u32| -> u32 {
            let slot = if i == NONE {
                self.strings.len()
            } else {
                i as usize
            };
            if local[slot] == u32::MAX {
                local[slot] = local_intern(strings, s(i));
            }
            local[slot]
        };
        let mut pairs: Vec<((u32, u32), usize)> = Vec::new();
        let mut price_at = |memo: &mut PriceMemo, provider: u32, model: u32| -> usize {
            match pairs.iter().find(|(k, _)| *k == (provider, model)) {
                Some(&(_, at)) => at,
                None => {
                    let at = memo.position(pricer, s(provider), s(model));
                    pairs.push(((provider, model), at));
                    at
                }
            }
        };
        let mut nested = Vec::with_capacity(self.nested.len());
        let mut requests = Vec::with_capacity(self.requests.len());
        let (mut ni, mut ri) = (0, 0);
        while ni < self.nested.len() || ri < self.requests.len() {
            let nested_next = match (self.nested.get(ni), self.requests.get(ri)) {
                (Some(n), Some(r)) => n.entry <= r.entry,
                (Some(_), None) => true,
                _ => false,
            };
            if nested_next {
                let n = &self.nested[ni];
                ni += 1;
                let (provider, model) = (s(n.provider), s(n.model));
                let (priced, unpriced) = match (n.report.known_totals(), model) {
                    (Some(t), Some(_)) => {
                        let at = price_at(&mut memo, n.provider, n.model);
                        match memo.at(at) {
                            Ok(p) if !p.tiers.is_empty() && t.requests > 1.0 => {
                                let why = Unpriced::TieredAggregate {
                                    provider: provider.unwrap_or_default().to_owned(),
                                    model: model.unwrap_or_default().to_owned(),
                                };
                                (f64::NAN, Some(reason_index(&mut reasons, &why)))
                            }
                            Ok(p) => (p.calculate(&PricingUsage::of(&t, 0.0)).total, None),
                            Err(why) => (f64::NAN, Some(reason_index(&mut reasons, why))),
                        }
                    }
                    _ => (f64::NAN, None),
                };
                let api = match (provider, model) {
                    (Some(p), Some(m)) => pricer.api(p, m),
                    _ => None,
                };
                nested.push((
                    n.key,
                    RawNested {
                        line: n.line,
                        time_ms: n.time_ms,
                        report: n.report,
                        model: intern(&mut strings, n.model),
                        provider: intern(&mut strings, n.provider),
                        api: local_intern(&mut strings, api),
                        priced,
                        unpriced,
                        run_id: n.run_id.clone(),
                        session_file: n.session_file.clone(),
                        active: on_path[n.entry as usize],
                    },
                ));
            } else {
                let r = &self.requests[ri];
                ri += 1;
                let at = price_at(&mut memo, r.provider, r.model);
                let (priced, unpriced) = match memo.at(at) {
                    Ok(p) => (
                        p.calculate(&PricingUsage::of(&r.totals, r.cache_write_1h))
                            .total,
                        None,
                    ),
                    Err(why) => (f64::NAN, Some(reason_index(&mut reasons, why))),
                };
                requests.push((
                    r.key,
                    RawRequest {
                        line: r.line,
                        time_ms: r.time_ms,
                        model: intern(&mut strings, r.model),
                        provider: intern(&mut strings, r.provider),
                        api: intern(&mut strings, r.api),
                        totals: r.totals,
                        cost: r.cost,
                        priced,
                        unpriced,
                        call_key: r.call_key,
                        active: on_path[r.entry as usize],
                    },
                ));
            }
        }
        if shared {
            put_memo(file.release, memo);
        }
        FileScan {
            file,
            project,
            strings,
            requests,
            nested,
            reasons,
        }
    }
}

thread_local! {
    /// [`Records::finish`]'s price memos of the builtin catalogs, per release, on this worker.
    static MEMOS: std::cell::RefCell<Vec<(PiRelease, PriceMemo)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn take_memo(release: PiRelease) -> PriceMemo {
    MEMOS.with(|m| {
        let mut m = m.borrow_mut();
        match m.iter().position(|(r, _)| *r == release) {
            Some(i) => m.swap_remove(i).1,
            None => PriceMemo::default(),
        }
    })
}

fn put_memo(release: PiRelease, memo: PriceMemo) {
    MEMOS.with(|m| m.borrow_mut().push((release, memo)));
}
