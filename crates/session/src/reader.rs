//! Streaming reader: one line at a time, as Pi's `loadEntriesFromFile` reads a session.
//!
//! What Pi does, and what we do:
//! * The file is decoded as UTF-8 with U+FFFD for bad bytes (Node's `StringDecoder`) and split on
//!   `\n`. Blank lines (JavaScript `trim()`) and lines `JSON.parse` rejects are skipped; so are
//!   lines whose JSON is falsy (`null`, `false`, `0`, `""`). We do the same and report each one.
//! * The first kept value must be `{"type":"session","id":<string>,...}`; otherwise the file is
//!   not a session. An empty file is not one either (Pi would start a new session in it).
//! * Older versions are migrated in memory (`migrateToCurrentVersion`). Pi then rewrites the file;
//!   we never write. A header version above 3, or pi-agent-core's v4 header (`kind: "header"`),
//!   is an unsupported-version error.
//! * When the last line has no newline, Pi appends one to the file. We only report it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use forge_replay_model::js;
use forge_replay_model::json;
use forge_replay_model::session::{check_header, EntryType, HeaderProblem};
use rayon::prelude::*;
use serde_json::Value;

use crate::diag::{code, Diagnostic, Severity};
use crate::entry::Entry;
use crate::error::ReadError;
use crate::head::{self, key_bit, Parsed, MESSAGE_KEYS, TOP_KEYS};
use crate::session::{Header, Session};

const READ_BUFFER: usize = 1 << 20;

pub(crate) fn open(path: &Path) -> Result<(Session, Vec<Diagnostic>), ReadError> {
    let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound {
            path: path.to_path_buf(),
        },
        _ => ReadError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
    if meta.is_dir() {
        return Err(ReadError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let file = File::open(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read(BufReader::with_capacity(READ_BUFFER, file), path)
}

/// Per-type unknown-field tally: the first line and the count.
type UnknownTally = HashMap<(String, String), (u64, u64)>;

/// One physical line, decoded.
struct LineRec {
    line_no: u64,
    had_newline: bool,
    text: Box<str>,
    lossy: bool,
    blank: bool,
}

/// Lines are read in batches of about this many bytes; each batch is scanned on all cores.
const BATCH_BYTES: usize = 4 << 20;

/// Everything the sequential pass accumulates.
struct State<'p> {
    path: &'p Path,
    diags: Vec<Diagnostic>,
    header: Option<Header>,
    entries: Vec<Entry>,
    ordinal: u32,
    first_parse_failure: Option<(u64, String)>,
    unknown: UnknownTally,
    extra_header_ordinals: Vec<u32>,
}

pub(crate) fn read<R: BufRead>(
    mut reader: R,
    path: &Path,
) -> Result<(Session, Vec<Diagnostic>), ReadError> {
    let mut st = State {
        path,
        diags: Vec::new(),
        header: None,
        entries: Vec::new(),
        ordinal: 0,
        first_parse_failure: None,
        unknown: HashMap::new(),
        extra_header_ordinals: Vec::new(),
    };
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut line_no: u64 = 0;
    let mut total_bytes: u64 = 0;
    let mut batch: Vec<LineRec> = Vec::new();
    let mut batch_bytes = 0usize;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| ReadError::Line {
                path: path.to_path_buf(),
                line: line_no + 1,
                source,
            })?;
        if n > 0 {
            total_bytes += n as u64;
            line_no += 1;
            let had_newline = buf.last() == Some(&b'\n');
            if had_newline {
                buf.pop();
            }
            let len = buf.len();
            // One exact-size copy per line (moving the read buffer out fragments the heap).
            let (text, lossy): (Box<str>, bool) = match std::str::from_utf8(&buf) {
                Ok(t) => (t.into(), false),
                Err(_) => (String::from_utf8_lossy(&buf).into(), true),
            };
            let blank = js::trim(&text).is_empty();
            batch_bytes += len;
            batch.push(LineRec {
                line_no,
                had_newline,
                text,
                lossy,
                blank,
            });
        }
        if n == 0 || batch_bytes >= BATCH_BYTES {
            let scanned: Vec<Option<Result<Parsed, json::ParseError>>> = if batch.len() > 1 {
                batch
                    .par_iter()
                    .map(|r| (!r.blank).then(|| head::scan(&r.text)))
                    .collect()
            } else {
                batch
                    .iter()
                    .map(|r| (!r.blank).then(|| head::scan(&r.text)))
                    .collect()
            };
            for (rec, parsed) in batch.drain(..).zip(scanned) {
                st.line(rec, parsed)?;
            }
            batch_bytes = 0;
        }
        if n == 0 {
            break;
        }
    }
    let State {
        mut diags,
        header,
        mut entries,
        first_parse_failure,
        unknown,
        extra_header_ordinals,
        ..
    } = st;

    let Some(mut header) = header else {
        return Err(if total_bytes == 0 {
            ReadError::Empty {
                path: path.to_path_buf(),
            }
        } else if let Some((line, cause)) = first_parse_failure {
            ReadError::NotASession {
                path: path.to_path_buf(),
                line: Some(line),
                cause: format!(
                    "no line is JSON (first failure: {cause}); binary or garbage content?"
                ),
            }
        } else {
            ReadError::NotASession {
                path: path.to_path_buf(),
                line: None,
                cause: "the file holds only blank or skipped lines".to_string(),
            }
        });
    };

    let mut sorted: Vec<_> = unknown.into_iter().collect();
    sorted.sort_by(|a, b| (a.1 .0, &a.0).cmp(&(b.1 .0, &b.0)));
    for ((ty, field), (line, count)) in sorted {
        let more = if count > 1 {
            format!(" ({count} entries)")
        } else {
            String::new()
        };
        diags.push(Diagnostic::new(
            Severity::Info,
            code::UNKNOWN_FIELD,
            Some(line),
            format!(
                "field `{field}` is not defined for {ty} in any supported Pi release ({}); kept{more}",
                forge_replay_model::release::PiRelease::supported_list()
            ),
        ));
    }

    crate::migrate::migrate(
        &mut header,
        &mut entries,
        &extra_header_ordinals,
        &mut diags,
    );
    let (session, tree_diags) = Session::build(path.to_path_buf(), header, entries);
    diags.extend(tree_diags);
    diags.sort_by_key(|d| d.line.unwrap_or(0));
    Ok((session, diags))
}

impl State<'_> {
    /// The sequential part of reading one line (Pi's order: header first, then entries).
    fn line(
        &mut self,
        rec: LineRec,
        parsed: Option<Result<Parsed, json::ParseError>>,
    ) -> Result<(), ReadError> {
        let LineRec {
            line_no,
            had_newline,
            text,
            lossy,
            blank: _,
        } = rec;
        let diags = &mut self.diags;
        if lossy {
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::INVALID_UTF8,
                Some(line_no),
                "invalid UTF-8; bytes decoded as U+FFFD, as Pi (Node) does",
            ));
        }
        let Some(parsed) = parsed else {
            if !had_newline && text.is_empty() {
                return Ok(());
            }
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::BLANK_LINE,
                Some(line_no),
                "blank line skipped, as Pi does",
            ));
            return Ok(());
        };
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                let (c, msg) = if !had_newline && e.eof {
                    (
                        code::TRUNCATED_LINE,
                        format!("truncated last line (no newline, JSON ends early: {e}; Pi probably stopped mid-write); skipped, as Pi does"),
                    )
                } else {
                    (
                        code::INVALID_JSON,
                        format!("line is not JSON ({e}); skipped, as Pi does"),
                    )
                };
                if self.first_parse_failure.is_none() {
                    self.first_parse_failure = Some((line_no, e.to_string()));
                }
                diags.push(Diagnostic::new(Severity::Warning, c, Some(line_no), msg));
                return Ok(());
            }
        };
        if !had_newline {
            diags.push(Diagnostic::new(
                Severity::Info,
                code::NO_FINAL_NEWLINE,
                Some(line_no),
                "last line has no final newline (Pi appends one when it loads the file; forge-replay never writes)",
            ));
        }
        let (head, is_object) = match parsed {
            Parsed::Falsy(what) => {
                diags.push(Diagnostic::new(
                    Severity::Warning,
                    code::FALSY_LINE,
                    Some(line_no),
                    format!("line is JSON {what}, which Pi skips"),
                ));
                return Ok(());
            }
            Parsed::Other(what) => {
                if self.header.is_some() {
                    diags.push(Diagnostic::new(
                        Severity::Warning,
                        code::NOT_AN_OBJECT,
                        Some(line_no),
                        format!(
                            "line is {what}, not an object; Pi keeps it as an entry without id"
                        ),
                    ));
                }
                (head::Head::default(), false)
            }
            Parsed::Object(h) => (*h, true),
        };
        let entry_type = head.entry_type();
        let this_ordinal = self.ordinal;
        self.ordinal += 1;

        if self.header.is_none() {
            self.header = Some(make_header(self.path, line_no, &text)?);
            return Ok(());
        }
        if entry_type == EntryType::Session {
            self.extra_header_ordinals.push(this_ordinal);
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::EXTRA_HEADER,
                Some(line_no),
                "a second `session` header line; Pi leaves it out of the tree",
            ));
            return Ok(());
        }
        if is_object {
            tally_unknown(&mut self.unknown, &entry_type, &head, line_no, diags);
        }
        self.entries.push(Entry {
            line: line_no,
            ordinal: this_ordinal,
            raw: text,
            head,
            entry_type,
            is_object,
        });
        Ok(())
    }
}

fn make_header(path: &Path, line: u64, text: &str) -> Result<Header, ReadError> {
    // One definition of "a Pi session" for every reader (`forge_replay_model::session`).
    let value = json::parse(text).unwrap_or(Value::Null);
    check_header(&value, text).map_err(|problem| match problem {
        HeaderProblem::UnsupportedVersion { version } => ReadError::UnsupportedVersion {
            path: PathBuf::from(path),
            line,
            version,
        },
        other => ReadError::NotASession {
            path: PathBuf::from(path),
            line: Some(line),
            cause: other.to_string(),
        },
    })?;
    Ok(Header {
        line,
        raw: text.into(),
        value,
    })
}

/// Bit mask of the top-level keys Pi defines for an entry type (base fields included).
fn allowed_top(entry_type: &EntryType, known: &[&str]) -> u64 {
    static MASKS: std::sync::OnceLock<HashMap<&'static str, u64>> = std::sync::OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        let mut m = HashMap::new();
        for name in EntryType::KNOWN {
            let ty = EntryType::from_name(name);
            let mut allowed = key_bit(&TOP_KEYS, "type")
                | key_bit(&TOP_KEYS, "id")
                | key_bit(&TOP_KEYS, "parentId")
                | key_bit(&TOP_KEYS, "timestamp");
            for f in ty.known_fields().unwrap_or_default() {
                allowed |= key_bit(&TOP_KEYS, f);
            }
            if ty == EntryType::Compaction {
                // The v1 field Pi's migration converts to `firstKeptEntryId`.
                allowed |= key_bit(&TOP_KEYS, "firstKeptEntryIndex");
            }
            m.insert(name, allowed);
        }
        m
    });
    masks
        .get(entry_type.name())
        .copied()
        .unwrap_or_else(|| known.iter().fold(0, |a, f| a | key_bit(&TOP_KEYS, f)))
}

/// Bit mask of the message keys Pi defines for a role (`None` for unknown roles).
fn allowed_message(role: &str) -> Option<u64> {
    static MASKS: std::sync::OnceLock<HashMap<&'static str, u64>> = std::sync::OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        let roles = [
            "system",
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "custom",
            "branchSummary",
            "compactionSummary",
        ];
        roles
            .into_iter()
            .map(|r| {
                let fields =
                    forge_replay_model::session::known_message_fields(r).unwrap_or_default();
                (
                    r,
                    fields.iter().fold(0, |a, f| a | key_bit(&MESSAGE_KEYS, f)),
                )
            })
            .collect()
    });
    masks.get(role).copied()
}

fn tally_unknown(
    tally: &mut UnknownTally,
    entry_type: &EntryType,
    head: &head::Head,
    line: u64,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(known) = entry_type.known_fields() else {
        if let EntryType::Unknown(t) = entry_type {
            diags.push(Diagnostic::new(
                Severity::Info,
                code::UNKNOWN_TYPE,
                Some(line),
                format!(
                    "entry type {t:?} is not defined in Pi 0.87.1; kept, contributes no messages"
                ),
            ));
        } else {
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::BAD_FIELD,
                Some(line),
                "entry has no string `type`; kept, contributes no messages",
            ));
        }
        return;
    };
    let mut note = |what: &str, field: &str| {
        let e = tally
            .entry((what.to_string(), field.to_string()))
            .or_insert((line, 0));
        e.1 += 1;
    };
    let extra = head.keys & !allowed_top(entry_type, known);
    if extra != 0 || !head.other_keys.is_empty() || head.fields().is_some_and(|f| f.v.is_some()) {
        let ty = entry_type.name();
        for (i, k) in TOP_KEYS.iter().enumerate() {
            if extra & (1 << i) != 0 {
                note(ty, k);
            }
        }
        for k in &head.other_keys {
            note(ty, k);
        }
        if head.fields().is_some_and(|f| f.v.is_some()) {
            note(ty, "v");
        }
    }
    if *entry_type != EntryType::Message {
        return;
    }
    let Some(m) = &head.message else { return };
    let Some(role) = m.role.as_deref() else {
        return;
    };
    match allowed_message(role) {
        Some(allowed) => {
            let extra = m.keys & !allowed;
            if extra == 0 && m.other_keys.is_empty() {
                return;
            }
            let what = format!("{role} messages");
            for (i, k) in MESSAGE_KEYS.iter().enumerate() {
                if extra & (1 << i) != 0 {
                    note(&what, k);
                }
            }
            for k in &m.other_keys {
                // Fields a later release writes are release markers (`crate::release`).
                if !crate::release::is_later_message_field(role, k) {
                    note(&what, k);
                }
            }
        }
        None if role != "hookMessage" => diags.push(Diagnostic::new(
            Severity::Info,
            code::UNKNOWN_ROLE,
            Some(line),
            format!(
                "message role {role:?} is not defined in Pi 0.87.1; kept (convertToLlm drops it)"
            ),
        )),
        None => {}
    }
}
