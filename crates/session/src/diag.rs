//! Diagnostics: findings that do not stop reading (Pi tolerates them, or they are worth knowing).
//! [`finding_lines`] is how a command that reads one session says them on stderr.

use std::fmt;
use std::path::Path;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; nothing is wrong for Pi (e.g. a migrated old version, an unknown field).
    Info,
    /// Pi loads the file but skips or ignores something (a blank or unparseable line).
    Warning,
    /// The tree or an entry is broken in a way Pi mishandles (cycle, missing `message`, …).
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Stable diagnostic codes (`forge-replay check` prints them).
pub mod code {
    /// A blank (whitespace-only) line; Pi skips it.
    pub const BLANK_LINE: &str = "blank-line";
    /// A line that is not JSON; Pi skips it.
    pub const INVALID_JSON: &str = "invalid-json";
    /// The last line has no newline and its JSON ends early (a crash mid-write); Pi skips it.
    pub const TRUNCATED_LINE: &str = "truncated-line";
    /// The last line has no final newline (Pi appends one when it loads the file).
    pub const NO_FINAL_NEWLINE: &str = "no-final-newline";
    /// Bytes that are not UTF-8; decoded with U+FFFD as Node does.
    pub const INVALID_UTF8: &str = "invalid-utf8";
    /// A line whose JSON is `null`, `false`, `0` or `""`; Pi skips it.
    pub const FALSY_LINE: &str = "falsy-line";
    /// A line whose JSON is a non-object (array, number, string); Pi keeps it as a field-less entry.
    pub const NOT_AN_OBJECT: &str = "not-an-object";
    /// A `session` line after the header; Pi leaves it out of the tree.
    pub const EXTRA_HEADER: &str = "extra-header";
    /// The session was written by an older version and migrated in memory.
    pub const MIGRATED: &str = "migrated";
    /// An entry `type` Pi 0.87.1 does not define (kept, contributes no messages).
    pub const UNKNOWN_TYPE: &str = "unknown-type";
    /// A field Pi 0.87.1 does not define for this entry type or message role (kept).
    pub const UNKNOWN_FIELD: &str = "unknown-field";
    /// A message role Pi 0.87.1 does not define (kept; `convertToLlm` drops it).
    pub const UNKNOWN_ROLE: &str = "unknown-role";
    /// An entry without a string `id`.
    pub const MISSING_ID: &str = "missing-id";
    /// Two entries share an id; the later one wins lookups, as in Pi.
    pub const DUPLICATE_ID: &str = "duplicate-id";
    /// `parentId` names no entry; the entry starts an orphan subtree (a root, for Pi).
    pub const MISSING_PARENT: &str = "missing-parent";
    /// An entry's `parentId` is its own id.
    pub const SELF_PARENT: &str = "self-parent";
    /// Following `parentId` loops; Pi would hang walking this path.
    pub const CYCLE: &str = "cycle";
    /// A required field is missing or has the wrong type (Pi may crash on it).
    pub const BAD_FIELD: &str = "bad-field";
    /// A `context_edit` or `label` targets an id that does not exist.
    pub const DANGLING_TARGET: &str = "dangling-target";
    /// A compaction's `firstKeptEntryId` is not on its path (nothing before it is kept).
    pub const FIRST_KEPT_NOT_ON_PATH: &str = "first-kept-not-on-path";
}

/// One finding, tied to a line of the file when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// One of [`code`].
    pub code: &'static str,
    /// 1-based line number in the file.
    pub line: Option<u64>,
    /// Lowercase description of the cause.
    pub message: String,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        code: &'static str,
        line: Option<u64>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code,
            line,
            message: message.into(),
        }
    }

    /// `file:line: severity: message`, the form warnings take on stderr.
    pub fn display<'a>(&'a self, file: &'a Path) -> impl fmt::Display + 'a {
        DisplayDiag {
            d: self,
            file,
            with_code: false,
        }
    }

    /// `file:line: severity[code]: message`, the form `forge-replay check` prints.
    pub fn display_with_code<'a>(&'a self, file: &'a Path) -> impl fmt::Display + 'a {
        DisplayDiag {
            d: self,
            file,
            with_code: true,
        }
    }

    /// Whether this is a finding (a warning or an error), as opposed to a note.
    pub fn is_finding(&self) -> bool {
        self.severity >= Severity::Warning
    }
}

/// The findings of `diags` (warnings and errors, not notes) as stderr lines
/// (`file:line: warning: cause`), at most `max_per_code` of one code, then one line per code
/// saying how many more were not shown.
pub fn finding_lines(path: &Path, diags: &[Diagnostic], max_per_code: usize) -> Vec<String> {
    let mut per_code: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut lines = Vec::new();
    for d in diags.iter().filter(|d| d.is_finding()) {
        let n = per_code.entry(d.code).or_default();
        *n += 1;
        if *n <= max_per_code {
            lines.push(d.display(path).to_string());
        }
    }
    for (code, n) in per_code {
        if n > max_per_code {
            lines.push(format!(
                "{}: note: {} more [{code}] diagnostics not shown (run `forge-replay check`)",
                path.display(),
                n - max_per_code
            ));
        }
    }
    lines
}

struct DisplayDiag<'a> {
    d: &'a Diagnostic,
    file: &'a Path,
    with_code: bool,
}

impl fmt::Display for DisplayDiag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.d.line {
            write!(f, ":{line}")?;
        }
        if self.with_code {
            write!(
                f,
                ": {}[{}]: {}",
                self.d.severity, self.d.code, self.d.message
            )
        } else {
            write!(f, ": {}: {}", self.d.severity, self.d.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finding_lines_skip_notes_and_cap_each_code() {
        let d = |severity, code, line| Diagnostic::new(severity, code, Some(line), "bad");
        let mut diags = vec![d(Severity::Info, "a", 1)];
        diags.extend((2..6).map(|l| d(Severity::Warning, "b", l)));
        diags.push(d(Severity::Error, "c", 9));
        let lines = finding_lines(Path::new("s.jsonl"), &diags, 2);
        assert_eq!(
            lines,
            [
                "s.jsonl:2: warning: bad",
                "s.jsonl:3: warning: bad",
                "s.jsonl:9: error: bad",
                "s.jsonl: note: 2 more [b] diagnostics not shown (run `forge-replay check`)",
            ]
        );
    }
}
