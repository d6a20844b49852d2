//! `corpus_run`: what `usage --corpus` computes, through the scan and the build.

use std::path::PathBuf;
use std::sync::Mutex;

use forge_replay_usage::corpus::{Corpus, CorpusPricing, Filter, GroupBy};
use forge_replay_usage::corpus_run::{CorpusOptions, CorpusRun, CorpusScan};
use forge_replay_usage::gen::{generate, GenOptions};
use forge_replay_usage::report::{CorpusReport, FiltersView};
use serde_json::Value;

/// With `exports` the run keeps the polars frame; without, its groups come from the requests.
fn options(threshold: Option<f64>, breaks: bool, exports: bool) -> CorpusOptions {
    CorpusOptions {
        filter: Filter::default(),
        filters_view: FiltersView::default(),
        by: GroupBy::Model,
        breaks,
        threshold,
        redact: false,
        exports,
    }
}

fn corpus_dir() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    generate(
        &root.path().join("sessions"),
        &GenOptions {
            sessions: 6,
            entries: 30,
            seed: 3,
            forks: 0.2,
        },
    )
    .unwrap();
    root
}

#[test]
fn the_document_is_the_report_with_the_threshold_and_breaks() {
    let root = corpus_dir();
    let dirs = [root.path().join("sessions")];
    let reads = Mutex::new(Vec::new());
    let scan = CorpusScan::scan(&dirs, &CorpusPricing::Detected, None, &|done, total| {
        reads.lock().unwrap().push((done, total))
    });
    assert!(scan.index.is_none());
    assert!(!scan.is_empty());
    assert!(scan.unreadable().is_none());
    assert!(reads.lock().unwrap().iter().all(|&(d, t)| d <= t && t == 6));

    // The report equals the one built by hand from the same corpus.
    let plain = Corpus::scan(&dirs);
    let filter = Filter::default();
    let groups = plain
        .group(&plain.frame(&filter).unwrap(), GroupBy::Model, &filter)
        .unwrap();
    let expected = CorpusReport::build(
        &plain,
        &filter,
        FiltersView::default(),
        GroupBy::Model,
        &groups,
    );

    let explained = Mutex::new(Vec::new());
    let run = CorpusRun::build(
        scan.corpus,
        options(Some(0.0), true, false),
        &|done, total| explained.lock().unwrap().push((done, total)),
    )
    .unwrap();
    let doc = run.to_json().unwrap();
    let mut report = serde_json::to_value(&expected).unwrap();
    let report = report.as_object_mut().unwrap();
    let mut doc = doc.as_object().unwrap().clone();
    assert_eq!(
        doc.remove("threshold").unwrap()["passed"],
        Value::Bool(true)
    );
    assert!(doc.remove("breaks").unwrap().is_object());
    assert_eq!(&doc, report);

    // Breaks progress: announced at 0, then once per session explained, up to the total.
    let mut ticks = explained.into_inner().unwrap();
    ticks.sort();
    let total = ticks[0].1;
    assert_eq!(ticks[0], (0, total));
    assert_eq!(ticks.last().copied(), Some((total, total)));
    assert_eq!(ticks.len(), total + 1);
}

#[test]
fn without_breaks_or_threshold_the_document_is_the_report() {
    let root = corpus_dir();
    let dirs = [root.path().join("sessions")];
    let cache = root.path().join("cache");
    let scan = CorpusScan::scan(&dirs, &CorpusPricing::Detected, Some(&cache), &|_, _| {});
    assert!(scan.index.as_ref().is_some_and(|s| s.written));
    let mut run = CorpusRun::build(scan.corpus, options(Some(1.0), false, true), &|_, _| {
        panic!("no explain without --breaks")
    })
    .unwrap();
    assert!(run.breaks.is_none());
    assert!(run.check.as_ref().is_some_and(|t| !t.passed));
    let doc = run.to_json().unwrap();
    assert!(doc.get("breaks").is_none());
    assert_eq!(doc["threshold"]["passed"], Value::Bool(false));

    let csv = root.path().join("requests.csv");
    run.write_csv(&csv).unwrap();
    // The same bytes as the corpus's own export of the same frame.
    let plain = Corpus::scan(&dirs);
    let direct = root.path().join("direct.csv");
    let filter = Filter::default();
    plain
        .write_csv(&plain.frame(&filter).unwrap(), &filter, &direct)
        .unwrap();
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(written.lines().count() > 1);
    assert_eq!(written, std::fs::read_to_string(&direct).unwrap());
    run.release_frame();
    assert!(run.write_csv(&root.path().join("again.csv")).is_err());
}

#[test]
fn a_missing_directory_is_unreadable() {
    let root = tempfile::tempdir().unwrap();
    let missing: PathBuf = root.path().join("none");
    let scan = CorpusScan::scan(
        std::slice::from_ref(&missing),
        &CorpusPricing::Detected,
        None,
        &|_, _| {},
    );
    assert!(scan.is_empty());
    let errors = scan.unreadable().expect("walk errors");
    assert_eq!(errors[0].0, missing);
}
