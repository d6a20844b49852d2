//! What `usage --corpus` computes: the scan (with or without the incremental index), the
//! filtered frame, the groups, the [`CorpusReport`], the optional `--breaks` sums and the
//! `--min-hit-rate` verdict, and the JSON document they make.
//!
//! Two steps, so a caller can say what the scan found (index notes, unreadable directories, an
//! empty corpus) before the rest is computed: [`CorpusScan::scan`], then [`CorpusRun::build`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use polars::prelude::DataFrame;
use serde_json::{Map, Value};

use crate::breaks::{self, BreakSums};
use crate::corpus::{Corpus, CorpusError, CorpusPricing, Filter, GroupBy};
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
