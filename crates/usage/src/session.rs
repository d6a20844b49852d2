//! Reading one session file (streaming) and walking its active path.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::markers::ReleaseMarkers;
use crate::records::ResumePoint;
use crate::scan::{parse_line, parse_line_bytes_with, parse_line_with, EntryRecord, Header, Line};
use crate::totals::Totals;
use crate::view::{summarize, turn_start, SessionCacheUsage};

/// A line that could not be parsed (Pi skips it; we count and list it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line: u32,
    pub message: String,
}

/// Why a file is not a Pi session (the one rule: [`forge_replay_model::session::check_header`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASession {
    /// The line that decided it, when one did.
    pub line: Option<u32>,
    pub reason: String,
}

/// One session file reduced to usage records.
#[derive(Debug, Clone, Default)]
pub struct SessionData {
    /// The header; `None` when the file is not a Pi session ([`SessionData::not_session`] says
    /// why; Pi then treats the file as empty, and so do we: `entries` is empty).
    pub header: Option<Header>,
    /// Set when the file is not a session.
    pub not_session: Option<NotASession>,
    /// Entries in file order.
    pub entries: Vec<EntryRecord>,
    pub bad_lines: Vec<BadLine>,
    /// Set when the file is a pi-subagents child transcript (its first line is a transcript
    /// record, not a session header): the `runId` of its first record. Its message records are
    /// the entries (a linear chain without ids).
    pub transcript: Option<Transcript>,
    /// The release markers of the entries: which Pi release wrote the file.
    pub markers: ReleaseMarkers,
    /// Where reading stopped, for reading on when the file grows.
    pub(crate) resume: ResumePoint,
}

/// A pi-subagents child transcript (`<runId>_<agent>[_<index>]_transcript.jsonl`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    pub run_id: Option<String>,
    /// The first record's `cwd`.
    pub cwd: Option<String>,
}

/// Errors of [`SessionData::read`].
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot open session file {path}")]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read session file {path} at line {line}")]
    Read {
        path: PathBuf,
        line: u32,
        #[source]
        source: std::io::Error,
    },
}

/// Errors of [`SessionData::path_to`].
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("leaf entry `{leaf}` is not in the session")]
    UnknownLeaf { leaf: String },
}

impl SessionData {
    /// Streams a session file line by line (a FIFO, socket or device is refused before it is
    /// opened).
    pub fn read(path: &Path) -> Result<SessionData, ReadError> {
        let file = forge_replay_session::input::open(path).map_err(|source| ReadError::Open {
            path: path.to_owned(),
            source,
        })?;
        SessionData::from_reader(BufReader::with_capacity(64 * 1024, file)).map_err(
            |(line, source)| ReadError::Read {
                path: path.to_owned(),
                line,
                source,
            },
        )
    }

    /// Streams JSONL from any reader; the error carries the line number being read. A line that
    /// lies inside the reader's buffer is parsed in place; only lines crossing a buffer boundary
    /// are copied.
    pub fn from_reader<R: Read>(
        reader: BufReader<R>,
    ) -> Result<SessionData, (u32, std::io::Error)> {
        SessionData::default().read_lines(reader, 0, 0, false)
    }

    /// The state to read the lines a file gained after [`SessionData::resume`]'s point with
    /// [`SessionData::continue_reading`]: what was read before (the header or transcript, the
    /// markers); the new entries, bad lines and resume point are the new lines' only.
    pub(crate) fn resumed(
        header: Option<Header>,
        transcript: Option<Transcript>,
        markers: ReleaseMarkers,
    ) -> SessionData {
        SessionData {
            header,
            transcript,
            markers,
            ..SessionData::default()
        }
    }

    /// Reads on from a reader positioned at byte `offset`, after `lines` lines.
    pub(crate) fn continue_reading<R: Read>(
        self,
        reader: BufReader<R>,
        lines: u32,
        offset: u64,
    ) -> Result<SessionData, (u32, std::io::Error)> {
        self.read_lines(reader, lines, offset, true)
    }

    fn read_lines<R: Read>(
        mut self,
        mut reader: BufReader<R>,
        mut line_no: u32,
        mut pos: u64,
        mut seen_first: bool,
    ) -> Result<SessionData, (u32, std::io::Error)> {
        let data = &mut self;
        let mut carry: Vec<u8> = Vec::new();
        let mut any_bytes = false;
        let mut line_start = pos;
        data.resume = ResumePoint {
            len: pos,
            last_line_start: pos,
            last_line_hash: 0,
            lines: line_no,
            resumable: false,
        };
        loop {
            let buf = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err((line_no + 1, e)),
            };
            if buf.is_empty() {
                data.resume.len = pos;
                data.resume.lines = line_no;
                if !carry.is_empty() {
                    line_no += 1;
                    data.resume.lines = line_no;
                    data.resume.last_line_start = line_start;
                    // A last line without its newline may still be growing: not resumable.
                    data.take_line(&carry, line_no, &mut seen_first);
                    return Ok(self);
                }
                if !seen_first {
                    data.not_session = Some(NotASession {
                        line: None,
                        reason: if any_bytes {
                            "not a pi session: the file holds only blank or skipped lines".into()
                        } else {
                            "empty file, not a pi session".into()
                        },
                    });
                }
                data.resume.resumable = data.header.is_some() || data.transcript.is_some();
                return Ok(self);
            }
            any_bytes = true;
            if carry.is_empty() {
                line_start = pos;
            }
            let (used, stop) = match memchr::memchr(b'\n', buf) {
                Some(at) => {
                    line_no += 1;
                    data.resume.last_line_start = line_start;
                    let stop = if carry.is_empty() {
                        data.take_line(&buf[..at], line_no, &mut seen_first)
                    } else {
                        carry.extend_from_slice(&buf[..at]);
                        let stop = data.take_line(&carry, line_no, &mut seen_first);
                        carry.clear();
                        stop
                    };
                    (at + 1, stop)
                }
                None => {
                    carry.extend_from_slice(buf);
                    (buf.len(), false)
                }
            };
            reader.consume(used);
            pos += used as u64;
            if stop {
                data.resume.len = pos;
                data.resume.lines = line_no;
                return Ok(self);
            }
        }
    }

    /// Handles one line; `true` when reading stops (the first kept line is not a header).
    fn take_line(&mut self, bytes: &[u8], line_no: u32, seen_first: &mut bool) -> bool {
        if !*seen_first {
            return self.take_first(bytes, line_no, seen_first);
        }
        let deep = self.markers.wants_arguments_error();
        let parsed = if bytes.first() == Some(&b'{') {
            parse_line_bytes_with(bytes, line_no, deep)
        } else {
            let text = String::from_utf8_lossy(bytes);
            if forge_replay_model::js::trim(&text).is_empty() {
                return false;
            }
            parse_line_with(&text, line_no, deep)
        };
        match parsed {
            Err(e) => self.bad_lines.push(BadLine {
                line: line_no,
                message: e.to_string(),
            }),
            Ok(parsed) => {
                match parsed {
                    Line::Entry(e) | Line::Transcript { entry: e, .. } => {
                        self.note_markers(&e);
                        self.entries.push(e);
                    }
                    // A second header is an entry of type "session" with no usage.
                    Line::Header(_) => self.entries.push(EntryRecord {
                        line: line_no,
                        id: None,
                        parent_id: None,
                        message: None,
                        markers: 0,
                    }),
                }
            }
        }
        false
    }

    /// A line before the header, read by the one rule every reader shares
    /// ([`forge_replay_model::session`]): skipped lines are skipped, the first kept one decides.
    fn take_first(&mut self, bytes: &[u8], line_no: u32, seen_first: &mut bool) -> bool {
        use forge_replay_model::session::{check_header, classify_line, FirstLine};
        let text = String::from_utf8_lossy(bytes);
        let value = match classify_line(&text) {
            FirstLine::Blank | FirstLine::Falsy(_) => return false,
            FirstLine::Invalid(e) => {
                self.bad_lines.push(BadLine {
                    line: line_no,
                    message: e.to_string(),
                });
                return false;
            }
            FirstLine::Kept(v) => v,
        };
        *seen_first = true;
        if let Err(problem) = check_header(&value, &text) {
            // A pi-subagents child transcript has no header: its first record says so.
            if let Ok(Line::Transcript { entry, run_id, cwd }) = parse_line(&text, line_no) {
                self.transcript = Some(Transcript { run_id, cwd });
                self.note_markers(&entry);
                self.entries.push(entry);
                return false;
            }
            let reason = match problem {
                forge_replay_model::session::HeaderProblem::UnsupportedVersion { .. } => {
                    problem.to_string()
                }
                other => format!("not a pi session: {other}"),
            };
            self.not_session = Some(NotASession {
                line: Some(line_no),
                reason,
            });
            return true;
        }
        let s = |k: &str| {
            value
                .get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        self.header = Some(Header {
            id: s("id").unwrap_or_default(),
            version: value
                .get("version")
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(1.0),
            timestamp: s("timestamp"),
            cwd: s("cwd"),
            parent_session: s("parentSession"),
        });
        false
    }

    fn note_markers(&mut self, e: &EntryRecord) {
        let assistant = e
            .message
            .as_ref()
            .is_some_and(|m| m.role == crate::scan::Role::Assistant);
        self.markers.add(e.markers, assistant);
    }

    /// The Pi release that wrote the file, as `usage SESSION` detects it.
    pub fn release(&self) -> forge_replay_model::release::PiRelease {
        self.markers.release()
    }

    /// `true` when the file has a session header.
    pub fn is_session(&self) -> bool {
        self.header.is_some()
    }

    /// Entries are a linear chain in files older than version 2 (Pi's migration gives them ids),
    /// and in child transcripts.
    fn linear(&self) -> bool {
        self.transcript.is_some() || self.header.as_ref().is_some_and(|h| h.version < 2.0)
    }

    /// Indices of the active path root → leaf. The leaf is `leaf` or, as on Pi's load, the last
    /// entry in file order. A missing parent ends the walk.
    pub fn path_to(&self, leaf: Option<&str>) -> Result<Vec<usize>, PathError> {
        if self.entries.is_empty() {
            return match leaf {
                Some(l) => Err(PathError::UnknownLeaf { leaf: l.to_owned() }),
                None => Ok(Vec::new()),
            };
        }
        let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(id) = e.id.as_deref() {
                by_id.insert(id, i);
            }
        }
        let start = match leaf {
            Some(l) => *by_id
                .get(l)
                .ok_or_else(|| PathError::UnknownLeaf { leaf: l.to_owned() })?,
            None => self.entries.len() - 1,
        };
        if self.linear() {
            return Ok((0..=start).collect());
        }
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            path.push(i);
            if path.len() > self.entries.len() {
                break; // a parent cycle: stop rather than loop
            }
            at = self.entries[i]
                .parent_id
                .as_deref()
                .and_then(|p| by_id.get(p).copied());
        }
        path.reverse();
        Ok(path)
    }

    /// The branch entries for `path`.
    pub fn branch(&self, path: &[usize]) -> Vec<&EntryRecord> {
        path.iter().map(|&i| &self.entries[i]).collect()
    }

    /// pi-forge's view at a leaf.
    pub fn usage(&self, leaf: Option<&str>) -> Result<SessionCacheUsage, PathError> {
        let path = self.path_to(leaf)?;
        Ok(summarize(&self.branch(&path)))
    }

    /// One row per main request on the branch at `path`, with running totals.
    pub fn request_rows(&self, path: &[usize]) -> Vec<RequestRow> {
        request_rows(&self.branch(path))
    }
}

/// The usage records of a [`forge_replay_session::Session`] path (entry indices root → leaf, as
/// [`forge_replay_session::Session::path_to`] returns them). A line the fast parser rejects is
/// an entry without a message (the session reader accepted it, so this does not happen for
/// valid JSON). Each entry is read again from the file; an error when it cannot be (the file
/// changed since it was opened).
pub fn session_branch(
    session: &forge_replay_session::Session,
    path: &[usize],
) -> Result<Vec<EntryRecord>, forge_replay_session::ProjectError> {
    path.iter().map(|&i| branch_record(session, i)).collect()
}

/// The usage record of entry `i` of `session` (re-read from the file): what [`session_branch`]
/// holds for it.
pub fn branch_record(
    session: &forge_replay_session::Session,
    i: usize,
) -> Result<EntryRecord, forge_replay_session::ProjectError> {
    let entry = session.entry(i);
    let line = u32::try_from(entry.line()).unwrap_or(u32::MAX);
    Ok(match parse_line(&entry.raw()?, line) {
        Ok(Line::Entry(e)) => e,
        _ => EntryRecord {
            line,
            id: entry.id().map(Box::from),
            parent_id: entry.parent_id().map(Box::from),
            message: None,
            markers: 0,
        },
    })
}

/// One row per main request on a branch, with running totals.
pub fn request_rows(branch: &[&EntryRecord]) -> Vec<RequestRow> {
    let start = turn_start(branch.iter().copied());
    let mut cumulative = Totals::default();
    let mut rows = Vec::new();
    for (index, e) in branch.iter().enumerate() {
        let Some(m) = &e.message else { continue };
        let Some(t) = m.request else { continue };
        cumulative.add(&t);
        let mut row = request_row(e, rows.len(), t, cumulative);
        row.in_turn = index >= start;
        rows.push(row);
    }
    rows
}

/// The row of request `e` (its message has `request` usage `t`), number `index` on the branch,
/// with the running sum `cumulative`; `in_turn` is left false for the caller.
pub(crate) fn request_row(
    e: &EntryRecord,
    index: usize,
    t: Totals,
    cumulative: Totals,
) -> RequestRow {
    let meta = e.message.as_ref().and_then(|m| m.meta.as_deref());
    let s = |f: fn(&crate::scan::RequestMeta) -> &Option<Box<str>>| meta.and_then(|x| f(x).clone());
    RequestRow {
        index,
        entry_id: e.id.clone(),
        line: e.line,
        timestamp: s(|x| &x.timestamp),
        model: s(|x| &x.model),
        provider: s(|x| &x.provider),
        api: s(|x| &x.api),
        stop_reason: s(|x| &x.stop_reason),
        cost: meta.map_or(0.0, |x| x.cost),
        cache_write_1h: meta.map_or(0.0, |x| x.cache_write_1h),
        totals: t,
        cumulative,
        in_turn: false,
    }
}

/// One main request on a branch (`--requests`).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRow {
    /// 0-based request number along the branch.
    pub index: usize,
    pub entry_id: Option<Box<str>>,
    pub line: u32,
    pub timestamp: Option<Box<str>>,
    pub model: Option<Box<str>>,
    pub provider: Option<Box<str>>,
    pub api: Option<Box<str>>,
    pub stop_reason: Option<Box<str>>,
    pub cost: f64,
    /// `usage.cacheWrite1h` (0 when absent).
    pub cache_write_1h: f64,
    pub totals: Totals,
    /// Running sum up to and including this request.
    pub cumulative: Totals,
    pub in_turn: bool,
}

impl RequestRow {
    /// pi-ai's `calculateCost` for this request with `pricer`'s catalog.
    pub fn price(
        &self,
        pricer: &crate::pricing::Pricer<'_>,
    ) -> Result<crate::pricing::Price, crate::pricing::Unpriced> {
        pricer.price(
            self.provider.as_deref(),
            self.model.as_deref(),
            &crate::pricing::PricingUsage::of(&self.totals, self.cache_write_1h),
        )
    }
}
