//! Where replayed requests go, one at a time ([`RequestSink`]): the way ripgrep's searcher hands
//! matches to printers, [`replay_into`] hands each [`Request`] to a sink as it is built, so memory
//! stays at one request whatever the session's length.
//!
//! One serializer for a request ([`Request::write_pretty`]) serves every sink that writes
//! requests: [`JsonStream`] (`{"requests": [...]}` on stdout, the bytes of
//! `JSON.stringify({requests}, null, 2)`) and [`DirSink`] (`--out DIR`: one file per request and
//! `index.json`, written as one [`DirSet`]). The text summary of `replay` is a sink too
//! (`forge_replay_report::summary::Summary`). Request text passes through the caller's redaction
//! step (`redact`); the fixed framing holds no input data.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use forge_replay_io::{DirSet, WriteError};
use serde_json::{json, Value};

use crate::golden::model_slug;
use crate::replay::{replay_each_recycling, ReplayError, ReplayOptions, Request};

/// The redaction step applied to request text before it is written.
pub type Redact = fn(&str) -> Cow<'_, str>;

/// A consumer of replayed requests, in order.
pub trait RequestSink {
    /// One request, handed over (a sink may keep what it needs of it without a copy). A sink
    /// done with the payload hands it back (`Some`): the next request of the same target is
    /// built in it ([`crate::replay::replay_each_recycling`]).
    fn request(&mut self, r: Request) -> std::io::Result<Option<Value>>;

    /// After the last request of a replay that completed.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Replays `session` into `sink` (`each` sees every request first, e.g. to note something on
/// stderr), then finishes the sink when the replay completed.
pub fn replay_into(
    session: &forge_replay_session::Session,
    opts: &ReplayOptions<'_>,
    sink: &mut dyn RequestSink,
    mut each: impl FnMut(&Request),
) -> Result<(), ReplayError> {
    replay_each_recycling(session, opts, |r| {
        each(&r);
        sink.request(r)
    })?;
    sink.finish().map_err(ReplayError::Sink)
}

/// `{"requests": [...]}`, one request at a time: the same bytes as
/// `JSON.stringify({requests}, null, 2)`.
#[derive(Debug)]
pub struct JsonStream<W: Write> {
    w: W,
    redact: Redact,
    first: bool,
    text: String,
}

impl<W: Write> JsonStream<W> {
    pub fn new(w: W, redact: Redact) -> JsonStream<W> {
        JsonStream {
            w,
            redact,
            first: true,
            text: String::new(),
        }
    }

    /// Flushes what was written (also after a replay that stopped).
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

impl<W: Write> RequestSink for JsonStream<W> {
    fn request(&mut self, request: Request) -> std::io::Result<Option<Value>> {
        let r = &request;
        self.w.write_all(if self.first {
            b"{\n  \"requests\": [\n"
        } else {
            b",\n"
        })?;
        self.first = false;
        self.text.clear();
        self.text.push_str("    ");
        r.write_pretty(2, &mut self.text);
        self.w.write_all((self.redact)(&self.text).as_bytes())?;
        Ok(Some(request.payload))
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.w.write_all(if self.first {
            b"{\n  \"requests\": []\n}\n"
        } else {
            b"\n  ]\n}\n"
        })
    }
}

/// `replay --out DIR`: `NNN-<entry>-<model slug>.json` per request and `index.json`, staged
/// beside the target and renamed in when complete ([`DirSet`]). An entry id that cannot name a
/// file is an error naming the session line.
#[derive(Debug)]
pub struct DirSink {
    dir: std::path::PathBuf,
    set: Option<DirSet>,
    index: Vec<Value>,
    session: String,
    redact: Redact,
    redacted: bool,
}

impl DirSink {
    /// Begins the set; `redacted` is recorded in the set's marker and `index.json`.
    pub fn begin(
        dir: &Path,
        session: &Path,
        redact: Redact,
        redacted: bool,
    ) -> Result<DirSink, WriteError> {
        let mut set = DirSet::begin(dir, "replay")?;
        set.note("redacted", if redacted { "true" } else { "false" });
        Ok(DirSink {
            dir: dir.to_path_buf(),
            set: Some(set),
            index: Vec::new(),
            session: session.display().to_string(),
            redact,
            redacted,
        })
    }

    /// Requests written so far.
    pub fn count(&self) -> usize {
        self.index.len()
    }

    /// What was written: `wrote 3 requests to DIR (and index.json)`.
    pub fn wrote(&self) -> String {
        let requests = forge_replay_model::text::count(self.count(), "request", "requests");
        format!(
            "wrote {requests} to {} (and index.json)",
            self.dir.display()
        )
    }

    fn set(&mut self) -> std::io::Result<&mut DirSet> {
        self.set
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the --out set is already committed"))
    }
}

impl RequestSink for DirSink {
    fn request(&mut self, request: Request) -> std::io::Result<Option<Value>> {
        let r = &request;
        forge_replay_io::path::check_component("entry id", &r.entry_id).map_err(|e| {
            std::io::Error::other(format!(
                "{}:{}: {e}, so it cannot name a --out file",
                self.session, r.line
            ))
        })?;
        let name = format!(
            "{:03}-{}-{}.json",
            r.index,
            r.entry_id,
            model_slug(&format!("{}/{}", r.provider, r.model))
        );
        let mut text = String::new();
        r.write_pretty(0, &mut text);
        text.push('\n');
        let bytes = (self.redact)(&text).into_owned();
        self.set()?
            .write(&name, bytes.as_bytes())
            .map_err(std::io::Error::other)?;
        self.index.push(json!({
            "file": name, "index": r.index, "entryId": r.entry_id, "api": r.api.name(),
            "provider": r.provider, "model": r.model,
        }));
        Ok(Some(request.payload))
    }

    fn finish(&mut self) -> std::io::Result<()> {
        let doc = json!({
            "session": self.session,
            "redacted": self.redacted,
            "requests": self.index,
        });
        let mut text = forge_replay_model::json::stringify_pretty(&doc);
        text.push('\n');
        let bytes = (self.redact)(&text).into_owned();
        self.set()?
            .write("index.json", bytes.as_bytes())
            .map_err(std::io::Error::other)?;
        if let Some(set) = self.set.take() {
            set.commit().map_err(std::io::Error::other)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dir_sink_says_what_it_wrote() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let sink = DirSink::begin(&dir, Path::new("s.jsonl"), |s| Cow::Borrowed(s), false).unwrap();
        let expected = format!("wrote 0 requests to {} (and index.json)", dir.display());
        assert_eq!(sink.wrote(), expected);
    }
}
