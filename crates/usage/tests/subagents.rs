//! Sub-agent files are counted once and attributed to their parent session: one test per
//! layout (`fixtures/usage/subagents/`, see its README), plus nested totals on a generated
//! corpus and pricing in the corpus.

use std::path::PathBuf;

use forge_replay_usage::corpus::{Corpus, Filter, GroupBy};
use forge_replay_usage::gen::{generate, GenOptions};
use forge_replay_usage::report::{CorpusReport, FiltersView};
use forge_replay_usage::subagents::ChildKind;
use forge_replay_usage::{NestedTotals, SessionData, Totals};

fn layout(name: &str) -> PathBuf {
    forge_replay_testkit::fixture("usage/subagents").join(name)
}

fn filters() -> FiltersView {
    FiltersView {
        since: None,
        until: None,
        model: None,
        project: None,
    }
}

/// Every assistant request in every file, as a per-file count would add them up.
fn naive_requests(corpus: &Corpus) -> f64 {
    corpus
        .files
        .iter()
        .map(|f| {
            let d = SessionData::read(&f.path).unwrap();
            d.entries
                .iter()
                .filter_map(|e| e.message.as_ref()?.request)
                .map(|t| t.requests)
                .sum::<f64>()
        })
        .sum()
}

fn parent_index(c: &Corpus) -> usize {
    c.files
        .iter()
        .position(|f| f.child.is_none() && f.session_id.is_some())
        .unwrap()
}

#[test]
fn fork_layout_copies_are_dropped_and_child_calls_count_once() {
    let c = Corpus::scan(&[layout("fork")]);
    assert_eq!(c.files.len(), 2);
    let p = parent_index(&c);
    let child = c.files.iter().find(|f| f.child.is_some()).unwrap();
    let info = child.child.as_ref().unwrap();
    assert_eq!(info.kind, ChildKind::Fork);
    assert_eq!(info.parent, Some(p as u32));
    assert_eq!(child.attributed, p as u32);
    // The fork copies the parent's first request; the child adds two calls.
    assert_eq!(c.fork_copies.requests, 1.0);
    assert_eq!(info.counted.requests, 2.0);
    let main = c.requests.iter().filter(|r| !r.subagent).count();
    let sub = c.requests.iter().filter(|r| r.subagent).count();
    assert_eq!((main, sub), (3, 2));
    // Nothing counted twice: the naive per-file sum is the counted requests plus the copies.
    assert_eq!(naive_requests(&c), 5.0 + c.fork_copies.requests);
    // By session, the child's calls are the parent's sub-agent calls.
    let df = c.frame(&Filter::default()).unwrap();
    let groups = c.group(&df, GroupBy::Session, &Filter::default()).unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].totals.requests, 3.0);
    assert_eq!(groups[0].subagents.requests, 2.0);
    assert_eq!(
        c.sessions(),
        1,
        "a sub-agent fork is not a session of its own"
    );
    assert_eq!(c.forks(), 0);
}

#[test]
fn run_layout_covered_by_a_nested_report_counts_once() {
    let c = Corpus::scan(&[layout("run")]);
    let p = parent_index(&c);
    let child = c.files.iter().find(|f| f.child.is_some()).unwrap();
    let info = child.child.as_ref().unwrap();
    assert_eq!(info.kind, ChildKind::Run);
    assert_eq!(info.run_id.as_deref(), Some("5f316403"));
    assert_eq!(info.parent, Some(p as u32));
    // The report counts the two calls; the child file adds none.
    assert_eq!(info.covered.requests, 2.0);
    assert_eq!(info.counted.requests, 0.0);
    assert!(c.requests.iter().all(|r| !r.subagent));
    assert_eq!(c.nested.len(), 1);
    let mut nested = NestedTotals::default();
    c.nested[0].report.add_to(&mut nested);
    assert_eq!(nested.calls, 1.0);
    assert_eq!(nested.totals.requests, 2.0);
    // Reconciliation: reported tokens equal the tokens found in the child file.
    assert_eq!(c.reconciliation.len(), 1);
    let r = &c.reconciliation[0];
    assert!(r.counts_calls);
    assert_eq!(r.report.known_totals(), Some(r.found));
    // The report names its model: priced with pi-ai's rates.
    let priced = c.nested[0].priced().expect("nested report priced");
    let expected = (3.0 / 1e6) * 26.0
        + (15.0 / 1e6) * 110.0
        + (0.3 / 1e6) * 2600.0
        + (3.75 * 2740.0 + 0.0) / 1e6;
    assert_eq!(priced, expected);
    let report = CorpusReport::build(&c, &Filter::default(), filters(), GroupBy::Model, &[]);
    assert_eq!(report.subagents.covered.requests, 2.0);
    assert_eq!(report.subagents.reconciliation[0].status, "counted");
    assert_eq!(
        report.subagents.reconciliation[0].difference.requests,
        Some(0.0)
    );
    // Combined = main + nested: the child calls appear once.
    assert_eq!(report.combined.requests, 3.0 + 2.0);
}

#[test]
fn transcript_layout_duplicates_count_once() {
    let c = Corpus::scan(&[layout("transcript")]);
    let p = parent_index(&c) as u32;
    let kind_of = |k: ChildKind| {
        c.files
            .iter()
            .filter(|f| f.child.as_ref().is_some_and(|x| x.kind == k))
            .collect::<Vec<_>>()
    };
    let runs = kind_of(ChildKind::Run);
    let transcripts = kind_of(ChildKind::Transcript);
    assert_eq!((runs.len(), transcripts.len()), (1, 2));
    assert!(transcripts
        .iter()
        .all(|f| f.transcript && f.session_id.is_none()));
    assert_eq!(
        c.not_sessions(),
        0,
        "transcripts are recognised, not 'not sessions'"
    );
    let twin = transcripts
        .iter()
        .find(|f| f.child.as_ref().unwrap().run_id.as_deref() == Some("ab12cd34"))
        .unwrap();
    let lone = transcripts
        .iter()
        .find(|f| f.child.as_ref().unwrap().run_id.as_deref() == Some("77aa88bb"))
        .unwrap();
    // The run's transcript repeats its two calls: copies, attributed to the same parent.
    assert_eq!(runs[0].child.as_ref().unwrap().counted.requests, 2.0);
    assert_eq!(twin.child.as_ref().unwrap().copies.requests, 2.0);
    assert_eq!(twin.child.as_ref().unwrap().counted.requests, 0.0);
    assert_eq!(twin.child.as_ref().unwrap().parent, Some(p));
    // A transcript without a run session: counted once, no parent.
    assert_eq!(lone.child.as_ref().unwrap().counted.requests, 1.0);
    assert_eq!(lone.child.as_ref().unwrap().parent, None);
    let sub: Totals =
        c.requests
            .iter()
            .filter(|r| r.subagent)
            .fold(Totals::default(), |mut t, r| {
                t.add(&r.totals());
                t
            });
    assert_eq!(sub.requests, 3.0);
    // A per-file count sees 3 (parent) + 2 (run) + 2 + 1 (transcripts).
    assert_eq!(naive_requests(&c), 8.0);
    assert_eq!(
        c.requests.len() as f64 + twin.child.as_ref().unwrap().copies.requests,
        8.0
    );
}

#[test]
fn corpus_nested_totals_equal_the_sum_of_session_views() {
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        &GenOptions {
            sessions: 40,
            entries: 160,
            seed: 11,
            forks: 0.0,
        },
    )
    .unwrap();
    let c = Corpus::scan(&[dir.path().to_owned()]);
    let mut per_session = NestedTotals::default();
    let mut with_reports = 0;
    for f in &c.files {
        let v = SessionData::read(&f.path).unwrap().usage(None).unwrap();
        let n = v.nested_session;
        if !n.is_empty() {
            with_reports += 1;
        }
        per_session.totals.add(&n.totals);
        per_session.calls += n.calls;
        per_session.cache_unknown_calls += n.cache_unknown_calls;
        per_session.invalid_calls += n.invalid_calls;
    }
    assert!(
        with_reports > 20,
        "{with_reports} sessions with nested reports"
    );
    let report = CorpusReport::build(&c, &Filter::default(), filters(), GroupBy::Model, &[]);
    let a = &report.nested.active;
    assert_eq!(a.calls, per_session.calls);
    assert_eq!(a.cache_unknown_calls, per_session.cache_unknown_calls);
    assert_eq!(a.invalid_calls, per_session.invalid_calls);
    assert_eq!(a.totals.requests, per_session.totals.requests);
    assert_eq!(a.totals.input, per_session.totals.input);
    assert_eq!(a.totals.cache_read, per_session.totals.cache_read);
    assert_eq!(a.totals.cache_write, per_session.totals.cache_write);
    assert!(
        report.nested.abandoned.calls > 0.0,
        "abandoned branches carry reports too"
    );
    // Every group's nested sums add up to the corpus nested totals.
    for by in [
        GroupBy::Model,
        GroupBy::Session,
        GroupBy::Day,
        GroupBy::Project,
    ] {
        let df = c.frame(&Filter::default()).unwrap();
        let groups = c.group(&df, by, &Filter::default()).unwrap();
        let calls: f64 = groups.iter().map(|g| g.nested.calls).sum();
        let invalid: f64 = groups.iter().map(|g| g.nested.invalid_calls).sum();
        assert_eq!(calls, report.nested.totals.calls, "{by:?}");
        assert_eq!(invalid, report.nested.totals.invalid_calls, "{by:?}");
    }
    // Malformed reports are listed with their line.
    assert!(report
        .findings
        .iter()
        .any(|f| f.message.starts_with("malformed nested report ignored")));
}

#[test]
fn unknown_models_are_not_priced_never_zero() {
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        &GenOptions {
            sessions: 30,
            entries: 120,
            seed: 3,
            forks: 0.0,
        },
    )
    .unwrap();
    // Every generated model is in the catalog (the corpus must replay); an unknown one is made
    // here by renaming Mistral's model in the files to an id pi-ai 0.87.1 does not have.
    for p in forge_replay_testkit::jsonl_files(dir.path()) {
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(
            &p,
            text.replace("devstral-medium-latest", "devstral-medium"),
        )
        .unwrap();
    }
    let c = Corpus::scan(&[dir.path().to_owned()]);
    let df = c.frame(&Filter::default()).unwrap();
    // Model groups are `provider/model` (the same id from two providers is two groups).
    let groups = c.group(&df, GroupBy::Model, &Filter::default()).unwrap();
    let devstral = groups
        .iter()
        .find(|g| g.key == "mistral/devstral-medium")
        .unwrap();
    assert_eq!(devstral.priced_requests, 0.0);
    assert_eq!(devstral.unpriced_requests, devstral.totals.requests);
    assert!(c.unpriced.keys().any(|r| r
        .to_string()
        .contains("mistral/devstral-medium is not in the pi-ai")));
    // The generator's prices for Claude models are the catalog's: no disagreement beyond
    // rounding. Its OpenAI prices are stale: flagged.
    let opus = groups
        .iter()
        .find(|g| g.key == "anthropic/claude-opus-4-8")
        .unwrap();
    assert!(opus.priced_requests > 0.0 && !opus.pricing_disagrees());
    let gpt = groups.iter().find(|g| g.key == "openai/gpt-5.5").unwrap();
    assert!(gpt.pricing_disagrees());
}

/// The report's groups taken straight from the requests (`group_rows`, what `usage --corpus`
/// uses unless rows are exported) equal the groups of the polars request frame, field by field
/// and bit by bit, for every grouping and filter, on every sub-agent layout, the usage fixtures
/// and a generated corpus with forks, nested reports and abandoned branches.
#[test]
fn groups_without_the_frame_equal_the_frame_groups() {
    let gen = tempfile::tempdir().unwrap();
    generate(
        gen.path(),
        &GenOptions {
            sessions: 40,
            entries: 60,
            seed: 7,
            forks: 0.3,
        },
    )
    .unwrap();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(layout(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.push(layout("").join(".."));
    dirs.push(gen.path().to_owned());
    let filters = [
        Filter::default(),
        Filter {
            model: Some("claude".into()),
            ..Filter::default()
        },
        Filter {
            since: Some(forge_replay_usage::corpus::parse_day("2026-01-15").unwrap()),
            ..Filter::default()
        },
    ];
    let mut compared = 0;
    for dir in &dirs {
        let c = Corpus::scan(std::slice::from_ref(dir));
        for filter in &filters {
            let df = c.frame(filter).unwrap();
            for by in [
                GroupBy::Session,
                GroupBy::Project,
                GroupBy::Model,
                GroupBy::Provider,
                GroupBy::Api,
                GroupBy::Day,
            ] {
                let framed = c.group(&df, by, filter).unwrap();
                let direct = c.group_rows(by, filter);
                assert_eq!(
                    format!("{framed:?}"),
                    format!("{direct:?}"),
                    "{} {by:?} {filter:?}",
                    dir.display()
                );
                compared += framed.len();
            }
        }
    }
    assert!(compared > 100, "only {compared} groups compared");
}
