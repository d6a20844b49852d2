//! Everything the CLI prints or writes goes through here: the redaction step.
//!
//! Secrets are redacted by default ([`forge_replay_model::redact`]): JSON with [`Out::json`]
//! (byte-exact outside the replaced values), text with [`Out::text`] / [`outln!`], stderr with
//! [`error!`] and [`note!`]. `--no-redact` turns it off ([`set_redact`]); the run then says so on
//! stderr, and files it writes record it.

use std::borrow::Cow;
use std::io::{BufWriter, StdoutLock, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

static REDACT: AtomicBool = AtomicBool::new(true);

/// Turns redaction on (the default) or off (`--no-redact`).
pub fn set_redact(on: bool) {
    REDACT.store(on, Ordering::Relaxed);
}

/// Whether output is redacted.
pub fn redacting() -> bool {
    REDACT.load(Ordering::Relaxed)
}

/// JSON text (one value or several) as it may be shown.
pub fn json(text: &str) -> Cow<'_, str> {
    if redacting() {
        forge_replay_model::redact::json_text(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// Plain text as it may be shown.
pub fn text(text: &str) -> Cow<'_, str> {
    if redacting() {
        forge_replay_model::redact::text(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// Redacts a JSON value in place (when redacting).
pub fn value(v: &mut Value) {
    if redacting() {
        forge_replay_model::redact::redact_in_place(v);
    }
}

/// Writes one line to stderr, redacted.
pub fn eprint_line(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", text(line));
}

/// `forge-replay: error: …` on stderr, redacted, with a repeated location said once
/// ([`forge_replay_model::error::once_located`]).
macro_rules! error {
    ($($arg:tt)*) => {
        $crate::out::eprint_line(&format!(
            "forge-replay: error: {}",
            forge_replay_model::error::once_located(&format!($($arg)*))
        ))
    };
}

/// A line on stderr (progress, warnings, notes), redacted.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::out::eprint_line(&format!($($arg)*))
    };
}

/// One line of plain text to an [`Out`], redacted.
macro_rules! outln {
    ($out:expr) => {
        $out.text("\n")
    };
    ($out:expr, $($arg:tt)*) => {
        $out.text(&format!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {error, note, outln};

/// A redacting writer (stdout, or a file's buffer).
#[derive(Debug)]
pub struct Out<W: Write> {
    w: W,
}

impl Out<BufWriter<StdoutLock<'static>>> {
    /// Buffered stdout.
    pub fn stdout() -> Self {
        Out {
            w: BufWriter::new(std::io::stdout().lock()),
        }
    }
}

impl<W: Write> Out<W> {
    pub fn new(w: W) -> Self {
        Out { w }
    }

    /// Complete JSON text: one value, or several (JSON Lines).
    pub fn json(&mut self, text: &str) -> std::io::Result<()> {
        self.w.write_all(json(text).as_bytes())
    }

    /// Plain text.
    pub fn text(&mut self, text: &str) -> std::io::Result<()> {
        self.w.write_all(self::text(text).as_bytes())
    }

    /// Fixed framing that holds no input data (`{"requests": [`).
    pub fn frame(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.w.write_all(bytes)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }

    pub fn into_inner(self) -> W {
        self.w
    }
}

/// The stderr notice of a `--no-redact` run.
pub fn warn_unredacted() {
    let _ = writeln!(
        std::io::stderr().lock(),
        "forge-replay: warning: --no-redact: output is not redacted and may contain credentials"
    );
}
