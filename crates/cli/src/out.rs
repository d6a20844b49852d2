//! Everything the CLI prints or writes goes through here: the redaction step.
//!
//! Secrets are redacted by default ([`forge_replay_model::redact`]): stdout through a
//! [`RedactingWriter`] ([`stdout`]; JSON byte-exact outside the replaced values; [`print()`] for
//! what a command prints), stderr with `error!` and `note!`. `--no-redact` turns it off ([`set_redact`]); the run then says so on
//! stderr, and files it writes record it.

use std::borrow::Cow;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use forge_replay_model::redact::RedactingWriter;
use forge_replay_report::format::Printed;

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
    forge_replay_model::redact::json_text_if(redacting(), text)
}

/// Plain text as it may be shown.
pub fn text(text: &str) -> Cow<'_, str> {
    forge_replay_model::redact::text_if(redacting(), text)
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

pub(crate) use {error, note};

/// A redacting writer ([`RedactingWriter`]), redacting unless `--no-redact`.
pub type Out<W> = RedactingWriter<W>;

/// Buffered stdout, redacted unless `--no-redact`.
pub fn stdout() -> Out<BufWriter<Stdout>> {
    RedactingWriter::new(BufWriter::new(Stdout::locked()), redacting())
}

/// Locked stdout whose write errors name it, unbuffered and not redacted (for writers that
/// redact their own chunks); a broken pipe still exits 0.
pub use forge_replay_io::Stdout;

/// The stderr notice of a `--no-redact` run.
pub fn warn_unredacted() {
    let _ = writeln!(
        std::io::stderr().lock(),
        "forge-replay: warning: --no-redact: output is not redacted and may contain credentials"
    );
}

/// A progress bar on stderr for `total` steps, drawn with this indicatif template.
pub fn progress_bar(total: usize, template: &str) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(total as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb
}

/// A progress bar on stderr set up at the first report, when the total is known: only on a
/// terminal and for at least `min_total` steps.
#[derive(Debug)]
pub struct LazyBar {
    template: &'static str,
    min_total: usize,
    on_terminal: bool,
    bar: std::sync::OnceLock<indicatif::ProgressBar>,
}

impl LazyBar {
    pub fn new(template: &'static str, min_total: usize) -> Self {
        use std::io::IsTerminal as _;
        LazyBar {
            template,
            min_total,
            on_terminal: std::io::stderr().is_terminal(),
            bar: std::sync::OnceLock::new(),
        }
    }

    /// `done` of `total` steps.
    pub fn set(&self, done: usize, total: usize) {
        if self.on_terminal && total >= self.min_total {
            let bar = self.bar.get_or_init(|| progress_bar(total, self.template));
            bar.set_position(done as u64);
        }
    }

    /// Clears the bar, if one was drawn.
    pub fn finish(&self) {
        if let Some(b) = self.bar.get() {
            b.finish_and_clear();
        }
    }
}

/// What a command prints ([`Printed`]: a JSON document or text) on stdout, redacted.
pub fn print(printed: &Printed) -> std::io::Result<()> {
    match printed {
        Printed::Json(doc) => print_json(doc),
        Printed::Text(text) => print_text(text),
    }
}

/// One JSON document on stdout (`JSON.stringify(doc, null, 2)` and a newline), redacted.
pub fn print_json(doc: &serde_json::Value) -> std::io::Result<()> {
    print_json_text(&(forge_replay_model::json::stringify_pretty(doc) + "\n"))
}

/// JSON text on stdout, redacted.
pub fn print_json_text(text: &str) -> std::io::Result<()> {
    let mut w = stdout();
    w.json(text)?;
    w.flush()
}

/// Bytes on stdout as they are: already redacted, or generated from our own definitions.
pub fn print_frame(bytes: &[u8]) -> std::io::Result<()> {
    let mut w = stdout();
    w.frame(bytes)?;
    w.flush()
}

/// Text on stdout, redacted.
pub fn print_text(text: &str) -> std::io::Result<()> {
    let mut w = stdout();
    w.text(text)?;
    w.flush()
}
