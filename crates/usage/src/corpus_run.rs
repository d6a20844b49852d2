//! What `usage --corpus` computes: the scan (with or without the incremental index), the
//! filtered frame, the groups, the [`CorpusReport`], the optional `--breaks` sums and the
//! `--min-hit-rate` verdict, and the JSON document they make.
//!
//! Two steps, so a caller can say what the scan found (index notes, unreadable directories, an
//! empty corpus) before the rest is computed: [`CorpusScan::scan`], then [`CorpusRun::build`].
//! [`CorpusRequest`] is the run as asked for (directories, filters, grouping, exports, pricing,
//! index): it checks every export target before anything is read ([`Exports::check`]), scans
//! ([`CorpusRequest::scan`]), builds ([`CorpusRequest::build`]) and writes the exports
//! ([`CorpusRun::write_exports`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use polars::prelude::DataFrame;
use serde_json::{Map, Value};

use crate::breaks::{self, BreakSums};
use forge_replay_model::release::PiRelease;
use forge_replay_model::text::count;

use crate::corpus::{Corpus, CorpusError, CorpusPricing, Day, Filter, GroupBy};
use crate::explain::ExplainOptions;
use crate::index::IndexStats;
use crate::report::{CorpusReport, FiltersView};
use crate::session_report::Threshold;
use crate::Totals;

/// Progress of a long step, `(done, total)`; called from rayon workers.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// A scanned corpus and, when it was read through the incremental index, what the index did.
pub struct CorpusScan {
    pub corpus: Corpus,
    pub index: Option<IndexStats>,
}

impl CorpusScan {
    /// Reads every `*.jsonl` under `dirs`, through the index in `cache_dir` when one is given.
    pub fn scan(
        dirs: &[PathBuf],
        pricing: &CorpusPricing<'_>,
        cache_dir: Option<&Path>,
        progress: Progress<'_>,
    ) -> CorpusScan {
        match cache_dir {
            None => CorpusScan {
                corpus: Corpus::scan_with_reporting(dirs, pricing, progress),
                index: None,
            },
            Some(dir) => {
                let _span = crate::timing::Span::start("indexed scan, in all");
                let (corpus, stats) = Corpus::scan_indexed_reporting(dirs, pricing, dir, progress);
                CorpusScan {
                    corpus,
                    index: Some(stats),
                }
            }
        }
    }

    /// The directory walk's errors when they are why no file was read (nothing to report).
    pub fn unreadable(&self) -> Option<&[(PathBuf, String)]> {
        (self.corpus.files.is_empty() && !self.corpus.walk_errors.is_empty())
            .then_some(self.corpus.walk_errors.as_slice())
    }

    /// No session file was found.
    pub fn is_empty(&self) -> bool {
        self.corpus.files.is_empty()
    }
}

/// `usage --corpus` as asked for.
#[derive(Debug, Clone)]
pub struct CorpusRequest {
    /// The directories to read; none: Pi's sessions directory ([`CorpusRequest::dirs`]).
    pub dirs: Vec<PathBuf>,
    /// Only requests on or after this day.
    pub since: Option<Day>,
    /// Only requests on or before this day.
    pub until: Option<Day>,
    /// Only models whose id contains this text, or exactly this `provider/model`.
    pub model: Option<String>,
    /// Only sessions whose cwd contains this text.
    pub project: Option<String>,
    pub by: GroupBy,
    /// Replay every session and sum what its confirmed cache breaks re-billed.
    pub breaks: bool,
    /// `--min-hit-rate`, a fraction.
    pub threshold: Option<f64>,
    pub exports: Exports,
    /// Price every session with this release's catalog; `None`: each with the release that
    /// wrote it.
    pub release: Option<PiRelease>,
    /// The incremental index's directory; `None`: every file is read whole.
    pub cache_dir: Option<PathBuf>,
    /// Redact the corpus's strings before the exports are written ([`CorpusOptions::redact`]).
    pub redact: bool,
}

/// No directory was given and there is no Pi sessions directory to default to.
#[derive(Debug, thiserror::Error)]
#[error("no sessions directory (set PI_CODING_AGENT_DIR or HOME, or pass DIR)")]
pub struct NoSessionsDir;

impl CorpusRequest {
    /// The directories given, else Pi's sessions directory (read even when it does not exist:
    /// the scan says so).
    pub fn dirs(&self) -> Result<Vec<PathBuf>, NoSessionsDir> {
        if !self.dirs.is_empty() {
            return Ok(self.dirs.clone());
        }
        let dir = forge_replay_session::dirs::pi_sessions_dir().ok_or(NoSessionsDir)?;
        Ok(vec![dir])
    }

    /// Reads every `*.jsonl` under `dirs`, priced and indexed as asked.
    pub fn scan(&self, dirs: &[PathBuf], progress: Progress<'_>) -> CorpusScan {
        let pricing = match self.release {
            Some(r) => CorpusPricing::Release(r),
            None => CorpusPricing::Detected,
        };
        CorpusScan::scan(dirs, &pricing, self.cache_dir.as_deref(), progress)
    }

    /// How the scanned corpus is reported: the filters (and as given, for the report), the
    /// grouping, `--breaks`, the threshold, whether the exports need the frame.
    pub fn options(&self) -> CorpusOptions {
        let text = |d: &Option<Day>| d.as_ref().map(|d| d.text.clone());
        CorpusOptions {
            filter: Filter {
                since: self.since.as_ref().map(|d| d.day),
                until: self.until.as_ref().map(|d| d.day),
                model: self.model.clone(),
                project: self.project.clone(),
            },
            filters_view: FiltersView {
                since: text(&self.since),
                until: text(&self.until),
                model: self.model.clone(),
                project: self.project.clone(),
            },
            by: self.by,
            breaks: self.breaks,
            threshold: self.threshold,
            exports: !self.exports.is_empty(),
            redact: self.redact,
        }
    }

    /// [`CorpusRun::build`] with [`CorpusRequest::options`].
    pub fn build(
        &self,
        corpus: Corpus,
        explain_progress: Progress<'_>,
    ) -> Result<CorpusRun, CorpusError> {
        CorpusRun::build(corpus, self.options(), explain_progress)
    }
}

/// The row exports of a corpus run: `--csv`, `--json` (newline-delimited) and `--parquet`.
#[derive(Debug, Clone, Default)]
pub struct Exports {
    pub csv: Option<PathBuf>,
    pub json: Option<PathBuf>,
    /// A hive-partitioned dataset directory.
    pub parquet: Option<PathBuf>,
}

/// An export that cannot be written, naming its target.
#[derive(Debug, thiserror::Error)]
#[error("writing {}", path.display())]
pub struct ExportError {
    pub path: PathBuf,
    #[source]
    pub source: CorpusError,
}

/// Names the target of an export's failure.
fn writing(path: &Path) -> impl FnOnce(CorpusError) -> ExportError + '_ {
    |source| ExportError {
        path: path.to_path_buf(),
        source,
    }
}

impl Exports {
    /// No export was asked for.
    pub fn is_empty(&self) -> bool {
        self.csv.is_none() && self.json.is_none() && self.parquet.is_none()
    }

    /// Refuses a target that cannot be written, before the corpus is read, so a bad export
    /// never comes after another was written.
    pub fn check(&self) -> Result<(), ExportError> {
        for p in [&self.csv, &self.json].into_iter().flatten() {
            forge_replay_io::check_file_target(p).map_err(|e| writing(p)(CorpusError::Write(e)))?;
        }
        if let Some(p) = &self.parquet {
            crate::corpus::check_parquet_target(p).map_err(writing(p))?;
        }
        Ok(())
    }
}

/// How the scanned corpus is reported.
pub struct CorpusOptions {
    pub filter: Filter,
    /// The filters as given, for the report.
    pub filters_view: FiltersView,
    pub by: GroupBy,
    /// Replay every session and sum what its confirmed cache breaks re-billed.
    pub breaks: bool,
    /// `--min-hit-rate`, a fraction.
    pub threshold: Option<f64>,
    /// Redact the corpus's strings (paths, session ids, projects, models) once the report is
    /// built, so the exports written from it are redacted.
    pub redact: bool,
    /// Keep the polars request frame for the row exports (`--csv`, `--json`, `--parquet`);
    /// without it the report's groups come straight from the requests (the same sums, without
    /// the frame's memory and time).
    pub exports: bool,
}

/// The computed corpus report, with the frame kept for the exports.
pub struct CorpusRun {
    pub corpus: Corpus,
    pub filter: Filter,
    frame: Option<DataFrame>,
    pub report: CorpusReport,
    pub breaks: Option<BreakSums>,
    pub check: Option<Threshold>,
}

impl CorpusRun {
    /// Frames, groups and reports the corpus; with `opts.breaks`, explains every session
    /// (`explain_progress` once with `(0, total)`, then after each session).
    pub fn build(
        mut corpus: Corpus,
        opts: CorpusOptions,
        explain_progress: Progress<'_>,
    ) -> Result<CorpusRun, CorpusError> {
        let CorpusOptions {
            filter,
            filters_view,
            by,
            breaks,
            threshold,
            redact,
            exports,
        } = opts;
        let df = if exports {
            Some(corpus.frame(&filter)?)
        } else {
            None
        };
        let span = crate::timing::Span::start("groups and report");
        let groups = corpus.group_rows(by, &filter);
        let report = CorpusReport::build(&corpus, &filter, filters_view, by, &groups);
        drop(span);
        // `cache explain` opens the files: before their paths are redacted.
        let breaks = breaks.then(|| corpus_breaks(&corpus, &filter, explain_progress));
        // Filters, groups and the report saw the real strings; the exports written from here on
        // are redacted.
        if redact {
            corpus.redact_strings();
        }
        let t = &report.totals.totals;
        let main = Totals {
            requests: t.requests,
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_write: t.cache_write,
        };
        let check = threshold.map(|min| Threshold::check(min, &main));
        Ok(CorpusRun {
            corpus,
            filter,
            frame: df,
            report,
            breaks,
            check,
        })
    }

    fn frame(&self) -> Result<&DataFrame, CorpusError> {
        self.frame.as_ref().ok_or(CorpusError::FrameReleased)
    }

    /// Writes the request table as CSV.
    pub fn write_csv(&self, path: &Path) -> Result<(), CorpusError> {
        self.corpus.write_csv(self.frame()?, &self.filter, path)
    }

    /// Writes the request table as newline-delimited JSON.
    pub fn write_ndjson(&self, path: &Path) -> Result<(), CorpusError> {
        self.corpus.write_ndjson(self.frame()?, &self.filter, path)
    }

    /// Writes the request table as a hive-partitioned Parquet dataset; the partitions written.
    pub fn write_parquet_dataset(&self, path: &Path) -> Result<Vec<PathBuf>, CorpusError> {
        self.corpus
            .write_parquet_dataset(self.frame()?, &self.filter, path)
    }

    /// Writes the exports asked for (CSV, JSON, Parquet, in that order), saying each one written
    /// to `wrote` as it is, then frees the request frame.
    pub fn write_exports(
        &mut self,
        exports: &Exports,
        wrote: &mut dyn FnMut(String),
    ) -> Result<(), ExportError> {
        if let Some(p) = &exports.csv {
            self.write_csv(p).map_err(writing(p))?;
            wrote(format!("wrote {}", p.display()));
        }
        if let Some(p) = &exports.json {
            self.write_ndjson(p).map_err(writing(p))?;
            wrote(format!("wrote {}", p.display()));
        }
        if let Some(p) = &exports.parquet {
            let parts = self.write_parquet_dataset(p).map_err(writing(p))?;
            let parts = count(parts.len(), "partition", "partitions");
            wrote(format!("wrote {parts} under {}", p.display()));
        }
        self.release_frame();
        Ok(())
    }

    /// Frees the request frame (the peak of a run's memory) once the exports are written.
    pub fn release_frame(&mut self) {
        self.frame = None;
    }

    /// The `--format json` document: the report, with `breaks` and `threshold` when asked for.
    pub fn to_json(&self) -> serde_json::Result<Value> {
        let mut v = match serde_json::to_value(&self.report)? {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if let Some(b) = &self.breaks {
            v.insert("breaks".into(), b.to_json());
        }
        if let Some(t) = &self.check {
            v.insert("threshold".into(), t.json.clone());
        }
        Ok(Value::Object(v))
    }
}

/// `cache explain` on every Pi session of the corpus (sub-agent sessions included), summed.
fn corpus_breaks(corpus: &Corpus, filter: &Filter, progress: Progress<'_>) -> BreakSums {
    let inputs = breaks::corpus_inputs(corpus, filter);
    let keep = |provider: &str, model: &str, time: Option<f64>| {
        breaks::filter_keeps(filter, provider, model, time)
    };
    let total = inputs.len();
    progress(0, total);
    let done = AtomicUsize::new(0);
    let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
    let opts = ExplainOptions::new(forge_replay_wire::Catalog::builtin(
        forge_replay_model::release::PiRelease::DEFAULT,
    ));
    breaks::corpus_breaks(&inputs, &opts, &keep, &tick)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> CorpusRequest {
        CorpusRequest {
            dirs: vec![PathBuf::from("corpus")],
            since: Some(Day::parse("2026-01-02").unwrap()),
            until: None,
            model: Some("opus".into()),
            project: None,
            by: GroupBy::Day,
            breaks: false,
            threshold: Some(0.5),
            exports: Exports::default(),
            release: None,
            cache_dir: None,
            redact: true,
        }
    }

    #[test]
    fn the_options_filter_on_the_days_and_show_them_as_given() {
        let opts = request().options();
        assert_eq!(opts.filter.since, Some(Day::parse("20260102").unwrap().day));
        assert_eq!(opts.filters_view.since.as_deref(), Some("2026-01-02"));
        assert_eq!(opts.filter.model.as_deref(), Some("opus"));
        assert!(!opts.exports && opts.redact && opts.by == GroupBy::Day);
        assert_eq!(request().dirs().unwrap(), [PathBuf::from("corpus")]);
    }

    #[test]
    fn an_export_target_that_cannot_be_written_is_refused_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut exports = Exports {
            csv: Some(dir.path().join("rows.csv")),
            ..Exports::default()
        };
        assert!(!exports.is_empty() && exports.check().is_ok());
        exports.json = Some(dir.path().to_path_buf());
        let err = exports.check().unwrap_err();
        assert_eq!(err.path, dir.path());
        let chain = forge_replay_model::error::chain(&err);
        assert!(
            chain.starts_with("writing ") && chain.ends_with("is a directory"),
            "{chain}"
        );
    }
}
