//! `verify`: scenarios × models, every assembled request compared with its golden.
//!
//! A [`Case`] is one scenario replayed for one model. [`verify`] compiles each scenario in
//! memory, replays it ([`crate::replay`]) for every target model as its Pi release (the
//! scenario's `pi`, or [`VerifyOptions::pi`], else 0.87.1) and compares each request's [`Golden`]
//! document with `fixtures/golden/<scenario>/<model-slug>/<NNN>.json` (0.87.1) or
//! `fixtures/golden/pi-<release>/<scenario>/…` ([`golden_key`]). Scenarios run
//! in parallel (rayon); results keep input order. With `bless`, the goldens are rewritten instead
//! ([`GoldenStore::bless`]) — the only writer: every case is staged, then the whole run is
//! installed at once, so a killed bless leaves the old goldens. A tree an interrupted bless left
//! half installed is refused ([`VerifyError::Interrupted`]) until a bless finishes it.

use std::path::{Path, PathBuf};

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::release::PiRelease;
use forge_replay_session::Session;
use forge_replay_wire::Catalog;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::diff::{self, Diff};
use crate::golden::{model_slug, Golden, GoldenStore};
use crate::replay::{self, ReplayOptions, Target};
use crate::scenario;

/// What to verify.
#[derive(Debug, Clone)]
pub struct VerifyOptions<'c> {
    /// Scenario files.
    pub scenarios: Vec<PathBuf>,
    /// Target models (`provider/id`); each scenario's `verify_models` are added.
    pub models: Vec<String>,
    /// The catalog of the release scenarios follow; a scenario naming another release (`pi`) is
    /// replayed with that release's built-in catalog.
    pub catalog: &'c Catalog,
    /// The golden store: 0.87.1's goldens at its root, other releases' under `pi-<release>/`
    /// ([`golden_key`]).
    pub store: GoldenStore,
    pub bless: bool,
    /// Follow this release for every scenario, whatever its `pi` says (`verify --pi`).
    pub pi: Option<PiRelease>,
}

/// Why `verify`'s inputs cannot be verified.
#[derive(Debug, thiserror::Error)]
pub enum VerifyInputError {
    #[error(transparent)]
    Scenario(#[from] scenario::ScenarioError),
    #[error("no scenario files under {0:?}")]
    NoScenarios(Vec<PathBuf>),
    /// Said by its message alone (its causes are part of it).
    #[error("{0}")]
    GoldenTree(crate::golden_tree::GoldenTreeError),
}

/// The scenario files under `paths` (default: `scenarios/`; at least one) and the golden tree
/// they are compared with ([`crate::golden_tree::golden_root`]: `golden_dir`, else the nearest
/// one above them), checked to take their goldens when `bless`.
pub fn inputs(
    paths: &[PathBuf],
    golden_dir: Option<&Path>,
    bless: bool,
) -> Result<(Vec<PathBuf>, PathBuf), VerifyInputError> {
    let paths = match paths {
        [] => vec![PathBuf::from("scenarios")],
        given => given.to_vec(),
    };
    let scenarios = scenario::discover(&paths)?;
    if scenarios.is_empty() {
        return Err(VerifyInputError::NoScenarios(paths));
    }
    let root = crate::golden_tree::golden_root(golden_dir, &scenarios)
        .map_err(VerifyInputError::GoldenTree)?;
    if bless {
        crate::golden_tree::may_bless_into(&root, &scenarios)
            .map_err(VerifyInputError::GoldenTree)?;
    }
    Ok((scenarios, root))
}

impl VerifyOptions<'static> {
    /// Verifies `scenarios` against the goldens under `root`, as `pi` for every scenario (else
    /// each as its own `pi`, else the default), on the models of [`target_models`]`(models, apis)`,
    /// blessing with `bless`, the goldens written redacted with `redact`.
    pub fn new(
        (scenarios, root): (Vec<PathBuf>, PathBuf),
        pi: Option<PiRelease>,
        (models, apis): (Option<&str>, &[String]),
        bless: bool,
        redact: bool,
    ) -> VerifyOptions<'static> {
        let catalog = Catalog::builtin(pi.unwrap_or(PiRelease::DEFAULT));
        VerifyOptions {
            pi,
            models: target_models(models, apis, catalog),
            scenarios,
            catalog,
            store: GoldenStore::new(root).redacting(redact),
            bless,
        }
    }
}

/// Where the goldens of `scenario` replayed as `release` live in the store: under the
/// scenario's name for 0.87.1, under `pi-<release>/<scenario>` for the others (one store, so
/// one bless transaction covers every release).
pub fn golden_key(release: PiRelease, scenario: &str) -> String {
    if release == PiRelease::V0_87_1 {
        scenario.to_string()
    } else {
        format!("pi-{release}/{scenario}")
    }
}

/// Outcome of one scenario × model.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every request equals its golden.
    Pass,
    /// Goldens written (`--bless`); the number of files changed.
    Blessed(usize),
    /// Differences.
    Fail(Vec<Mismatch>),
    /// The scenario could not be compiled or replayed.
    Error(String),
}

/// One golden that does not match.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub golden: PathBuf,
    /// Request index, if a request exists for it.
    pub index: Option<usize>,
    pub kind: MismatchKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MismatchKind {
    /// The golden differs from the assembled request.
    Changed(Diff),
    /// No golden file for this request.
    Missing,
    /// A golden file without a request.
    Stale,
    /// The golden file is unreadable or of another format version.
    Unreadable(String),
}

impl Mismatch {
    /// One-line summary naming the first JSON path.
    pub fn summary(&self) -> String {
        let g = self.golden.display();
        match &self.kind {
            MismatchKind::Changed(d) => format!(
                "{g}: {}, first at {}",
                forge_replay_model::text::count(d.changes.len(), "change", "changes"),
                d.first_path().unwrap_or("$")
            ),
            MismatchKind::Missing => format!("{g}: missing golden (run verify --bless)"),
            MismatchKind::Stale => {
                format!("{g}: stale golden without a request (run verify --bless)")
            }
            MismatchKind::Unreadable(m) => format!("{g}: {m}"),
        }
    }
}

/// One scenario × model.
#[derive(Debug, Clone)]
pub struct Case {
    pub scenario: String,
    pub scenario_file: PathBuf,
    pub model: String,
    /// The Pi release the scenario was replayed as.
    pub pi: PiRelease,
    /// Number of requests replayed.
    pub requests: usize,
    pub outcome: Outcome,
}

/// Errors that stop `verify` as a whole (a scenario's own errors are [`Outcome::Error`] cases).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("{}: an interrupted `verify --bless` left the golden tree half updated (journal {}); run `forge-replay verify --bless` to finish it", root.display(), journal.display())]
    Interrupted { root: PathBuf, journal: PathBuf },
    #[error("cannot bless the goldens under {}", root.display())]
    Bless {
        root: PathBuf,
        #[source]
        source: crate::golden::GoldenError,
    },
}

/// Runs every scenario × model. Scenario errors become [`Outcome::Error`] cases.
pub fn verify(opts: &VerifyOptions<'_>) -> Result<Vec<Case>, VerifyError> {
    verify_with_progress(opts, &|| {})
}

/// [`verify`] calling `tick` after each scenario (for a progress bar).
pub fn verify_with_progress(
    opts: &VerifyOptions<'_>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Case>, VerifyError> {
    let bless_err = |source| VerifyError::Bless {
        root: opts.store.root().to_path_buf(),
        source,
    };
    let txn = if opts.bless {
        Some(opts.store.begin_bless().map_err(bless_err)?)
    } else {
        if let Some(journal) = opts.store.pending() {
            return Err(VerifyError::Interrupted {
                root: opts.store.root().to_path_buf(),
                journal,
            });
        }
        None
    };
    let cases: Vec<Case> = opts
        .scenarios
        .par_iter()
        .map(|file| {
            let cases = verify_scenario(opts, file, txn.as_ref());
            tick();
            cases
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    if let Some(txn) = txn {
        txn.commit()
            .map_err(|e| bless_err(crate::golden::GoldenError::Write(e)))?;
    }
    Ok(cases)
}

fn verify_scenario(
    opts: &VerifyOptions<'_>,
    file: &Path,
    txn: Option<&forge_replay_io::Txn>,
) -> Vec<Case> {
    let error_case = |name: String, model: &str, msg: String, pi: PiRelease| Case {
        scenario: name,
        scenario_file: file.to_path_buf(),
        model: model.to_string(),
        pi,
        requests: 0,
        outcome: Outcome::Error(msg),
    };
    let fallback_name = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let compiled = match scenario::load(file).and_then(|l| scenario::compile(&l)) {
        Ok(c) => c,
        Err(e) => {
            return vec![error_case(
                fallback_name,
                "*",
                error_chain(&e),
                opts.pi.unwrap_or(opts.catalog.release()),
            )]
        }
    };
    let release = opts.pi.or(compiled.pi).unwrap_or(opts.catalog.release());
    let session_name = file.with_extension("jsonl");
    let session = match Session::from_reader(compiled.session_jsonl.as_bytes(), &session_name) {
        Ok((s, _)) => s,
        Err(e) => {
            return vec![error_case(
                compiled.name.clone(),
                "*",
                error_chain(&e),
                release,
            )]
        }
    };
    let catalog = if release == opts.catalog.release() {
        opts.catalog
    } else {
        Catalog::builtin(release)
    };
    let key = golden_key(release, &compiled.name);
    let mut models = opts.models.clone();
    for m in &compiled.verify_models {
        if !models.contains(m) {
            models.push(m.clone());
        }
    }
    if models.is_empty() {
        return vec![error_case(
            compiled.name.clone(),
            "*",
            "no model to verify: no target model was given (--models names none) and the \
             scenario lists no verify models"
                .to_string(),
            release,
        )];
    }
    // One pass over the session for every model (the projection is shared); if it fails, each
    // model is replayed on its own so the error lands on the model that caused it.
    let mut ro = ReplayOptions::new(catalog);
    ro.target = Target::Models(models.clone());
    let mut by_model: Option<Vec<Vec<replay::Request>>> =
        replay::replay(&session, &ro).ok().map(|all| {
            let mut groups: Vec<Vec<replay::Request>> = models.iter().map(|_| Vec::new()).collect();
            for (k, r) in all.into_iter().enumerate() {
                groups[k % models.len()].push(r);
            }
            groups
        });
    models
        .iter()
        .enumerate()
        .map(|(k, model)| {
            let combined = by_model.as_mut().map(|g| std::mem::take(&mut g[k]));
            let requests = match combined {
                Some(r) => r,
                None => {
                    let mut ro = ReplayOptions::new(catalog);
                    ro.target = Target::Models(vec![model.clone()]);
                    match replay::replay(&session, &ro) {
                        Ok(r) => r,
                        Err(e) => {
                            return error_case(
                                compiled.name.clone(),
                                model,
                                error_chain(&e),
                                release,
                            )
                        }
                    }
                }
            };
            let goldens: Vec<Golden> = requests
                .iter()
                .map(|r| Golden {
                    scenario: compiled.name.clone(),
                    model: model.clone(),
                    api: r.api.name().to_string(),
                    index: r.index,
                    entry_id: r.entry_id.clone(),
                    payload: r.payload.clone(),
                    wire: r.wire_json(),
                })
                .collect();
            let outcome = match txn {
                Some(txn) => match opts.store.bless(txn, &key, model, &goldens) {
                    Ok(n) => Outcome::Blessed(n),
                    Err(e) => Outcome::Error(forge_replay_model::error::chain(&e)),
                },
                None => compare(&opts.store, &key, model, &goldens),
            };
            Case {
                scenario: compiled.name.clone(),
                scenario_file: file.to_path_buf(),
                model: model.clone(),
                pi: release,
                requests: goldens.len(),
                outcome,
            }
        })
        .collect()
}

fn compare(store: &GoldenStore, scenario: &str, model: &str, goldens: &[Golden]) -> Outcome {
    if let Err(e) = store.case_dir(scenario, model) {
        return Outcome::Error(forge_replay_model::error::chain(&e));
    }
    let index = match store.index(scenario, model) {
        Ok(i) => i,
        Err(e) => return Outcome::Error(forge_replay_model::error::chain(&e)),
    };
    // Goldens blessed with redaction are compared with the request in the same form.
    let redacted = index.as_ref().is_some_and(|i| i.redacted);
    let listed = |name: &str| {
        index
            .as_ref()
            .is_none_or(|i| i.files.iter().any(|f| f == name))
    };
    let mut mismatches = Vec::new();
    for g in goldens {
        let path = store.path(scenario, model, g.index);
        let missing = Mismatch {
            golden: path.clone(),
            index: Some(g.index),
            kind: MismatchKind::Missing,
        };
        if !listed(&crate::golden::file_name(g.index)) {
            mismatches.push(missing);
            continue;
        }
        match store.read(&path) {
            Ok(Some(expected)) => {
                let mut actual = g.to_value();
                if redacted {
                    forge_replay_model::redact::redact_in_place(&mut actual);
                }
                let d = diff::diff(&expected.to_value(), &actual);
                if !d.is_empty() {
                    mismatches.push(Mismatch {
                        golden: path,
                        index: Some(g.index),
                        kind: MismatchKind::Changed(d),
                    });
                }
            }
            Ok(None) => mismatches.push(missing),
            Err(e) => mismatches.push(Mismatch {
                golden: path,
                index: Some(g.index),
                kind: MismatchKind::Unreadable(e.to_string()),
            }),
        }
    }
    let expected: std::collections::BTreeSet<PathBuf> = goldens
        .iter()
        .map(|g| store.path(scenario, model, g.index))
        .collect();
    let existing = match store.existing(scenario, model) {
        Ok(e) => e,
        Err(e) => return Outcome::Error(forge_replay_model::error::chain(&e)),
    };
    for p in existing {
        if !expected.contains(&p) {
            mismatches.push(Mismatch {
                golden: p,
                index: None,
                kind: MismatchKind::Stale,
            });
        }
    }
    if mismatches.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Fail(mismatches)
    }
}

/// Makes cases fit to be shown (`forge_replay_model::redact`): each diff with both sides of a
/// secret redacted ([`diff::redacted`]), credentials in error messages replaced. Comparison is
/// over by then; only what is printed changes.
pub fn redact_cases(cases: &mut [Case]) {
    for c in cases {
        match &mut c.outcome {
            Outcome::Fail(ms) => {
                for m in ms {
                    match &mut m.kind {
                        MismatchKind::Changed(d) => *d = diff::redacted(d),
                        MismatchKind::Unreadable(msg) => {
                            *msg = forge_replay_model::redact::text(msg).into_owned()
                        }
                        MismatchKind::Missing | MismatchKind::Stale => {}
                    }
                }
            }
            Outcome::Error(msg) => *msg = forge_replay_model::redact::text(msg).into_owned(),
            Outcome::Pass | Outcome::Blessed(_) => {}
        }
    }
}

/// The models a run replays on: the comma-separated `models` (`verify --models`), else the
/// representative model of each API in `apis` (`verify --apis`; empty or `all`: every API).
pub fn target_models(models: Option<&str>, apis: &[String], catalog: &Catalog) -> Vec<String> {
    if let Some(m) = models {
        return m
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
    }
    replay::representative_models(catalog)
        .into_iter()
        .filter(|(api, _)| apis.is_empty() || apis.iter().any(|a| a == "all" || a == api))
        .map(|(_, m)| m.to_string())
        .collect()
}

/// Counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub blessed: usize,
    pub requests: usize,
}

/// Totals over `cases`.
pub fn summarize(cases: &[Case]) -> Summary {
    let mut s = Summary {
        cases: cases.len(),
        ..Summary::default()
    };
    for c in cases {
        s.requests += c.requests;
        match &c.outcome {
            Outcome::Pass => s.passed += 1,
            Outcome::Blessed(_) => s.blessed += 1,
            Outcome::Fail(_) => s.failed += 1,
            Outcome::Error(_) => s.errors += 1,
        }
    }
    s
}

/// The text report: a line per failed, blessed or erroring case (a failure with its mismatches
/// and their diffs, `color` for a terminal), then the totals line.
pub fn report_text(cases: &[Case], color: bool) -> String {
    use forge_replay_model::text::count;
    let mut w = String::new();
    for c in cases {
        match &c.outcome {
            Outcome::Pass => {}
            Outcome::Blessed(n) if *n > 0 => w.push_str(&format!(
                "blessed {} × {}: {} written\n",
                c.scenario,
                c.model,
                count(*n, "file", "files")
            )),
            Outcome::Blessed(_) => {}
            // The cause is said apart (an error line of its own).
            Outcome::Error(_) => w.push_str(&format!("ERROR {} × {}\n", c.scenario, c.model)),
            Outcome::Fail(ms) => {
                w.push_str(&format!(
                    "FAIL {} × {} ({})\n",
                    c.scenario,
                    c.model,
                    c.scenario_file.display()
                ));
                for m in ms {
                    w.push_str(&format!("  {}\n", m.summary()));
                    if let MismatchKind::Changed(d) = &m.kind {
                        let text = diff::render_text(
                            d,
                            diff::RenderOptions {
                                color,
                                max_changes: 40,
                            },
                        );
                        for line in text.lines() {
                            w.push_str(&format!("    {line}\n"));
                        }
                    }
                }
            }
        }
    }
    let summary = summarize(cases);
    w.push_str(&format!(
        "{}, {}: {} passed, {} failed, {}{}\n",
        count(summary.cases, "case", "cases"),
        count(summary.requests, "request", "requests"),
        summary.passed,
        summary.failed,
        count(summary.errors, "error", "errors"),
        if summary.blessed > 0 {
            format!(", {} blessed", summary.blessed)
        } else {
            String::new()
        }
    ));
    w
}

/// The machine-readable report.
pub fn report_json(cases: &[Case]) -> Value {
    let s = summarize(cases);
    let items: Vec<Value> = cases
        .iter()
        .map(|c| {
            let (status, detail) = match &c.outcome {
                Outcome::Pass => ("pass", Value::Null),
                Outcome::Blessed(n) => ("blessed", json!({"filesChanged": n})),
                Outcome::Error(m) => ("error", json!({"message": m})),
                Outcome::Fail(ms) => (
                    "fail",
                    Value::Array(
                        ms.iter()
                            .map(|m| {
                                let mut v = json!({
                                    "golden": m.golden.to_string_lossy(),
                                    "request": m.index,
                                });
                                match &m.kind {
                                    MismatchKind::Changed(d) => {
                                        v["kind"] = json!("changed");
                                        v["changes"] = diff::render_json(d)["changes"].clone();
                                    }
                                    MismatchKind::Missing => v["kind"] = json!("missing"),
                                    MismatchKind::Stale => v["kind"] = json!("stale"),
                                    MismatchKind::Unreadable(e) => {
                                        v["kind"] = json!("unreadable");
                                        v["message"] = json!(e);
                                    }
                                }
                                v
                            })
                            .collect(),
                    ),
                ),
            };
            json!({
                "scenario": c.scenario,
                "model": c.model,
                "modelSlug": model_slug(&c.model),
                "pi": c.pi.version(),
                "requests": c.requests,
                "status": status,
                "detail": detail,
            })
        })
        .collect();
    json!({
        "summary": {
            "cases": s.cases, "passed": s.passed, "failed": s.failed, "errors": s.errors,
            "blessed": s.blessed, "requests": s.requests
        },
        "cases": items,
    })
}

/// JUnit XML (`testsuites` / `testsuite` per scenario / `testcase` per model, `failure` or
/// `error` children), the shape CI systems read.
pub fn junit_xml(cases: &[Case]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let s = summarize(cases);
    out.push_str(&format!(
        "<testsuites name=\"forge-replay verify\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
        s.cases, s.failed, s.errors
    ));
    let mut i = 0;
    while i < cases.len() {
        let name = &cases[i].scenario;
        let group: Vec<&Case> = cases[i..]
            .iter()
            .take_while(|c| &c.scenario == name)
            .collect();
        i += group.len();
        let gs = summarize(&group.iter().map(|c| (*c).clone()).collect::<Vec<_>>());
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\">\n",
            xml_escape(name),
            gs.cases,
            gs.failed,
            gs.errors
        ));
        for c in group {
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\"",
                xml_escape(&c.scenario),
                xml_escape(&c.model),
                xml_escape(&c.scenario_file.to_string_lossy())
            ));
            match &c.outcome {
                Outcome::Pass | Outcome::Blessed(_) => out.push_str("/>\n"),
                Outcome::Error(m) => {
                    out.push_str(">\n");
                    out.push_str(&format!(
                        "      <error message=\"{}\" type=\"error\">{}</error>\n",
                        xml_escape(first_line(m)),
                        xml_escape(m)
                    ));
                    out.push_str("    </testcase>\n");
                }
                Outcome::Fail(ms) => {
                    out.push_str(">\n");
                    let summary = ms.first().map(Mismatch::summary).unwrap_or_default();
                    let mut body = String::new();
                    for m in ms {
                        body.push_str(&m.summary());
                        body.push('\n');
                        if let MismatchKind::Changed(d) = &m.kind {
                            body.push_str(&diff::render_text(
                                d,
                                diff::RenderOptions {
                                    color: false,
                                    max_changes: 20,
                                },
                            ));
                        }
                    }
                    out.push_str(&format!(
                        "      <failure message=\"{}\" type=\"golden-mismatch\">{}</failure>\n",
                        xml_escape(&summary),
                        xml_escape(&body)
                    ));
                    out.push_str("    </testcase>\n");
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// Escapes text for XML attributes and content (and drops characters XML 1.0 forbids).
fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                o.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_scenario_is_an_error_naming_where_none_was_found() {
        let tmp = tempfile::tempdir().unwrap();
        let err = inputs(&[tmp.path().to_path_buf()], None, false).unwrap_err();
        assert!(matches!(&err, VerifyInputError::NoScenarios(p) if p == &[tmp.path()]));
        assert!(
            err.to_string().starts_with("no scenario files under ["),
            "{err}"
        );
    }

    #[test]
    fn options_follow_the_release_asked_for() {
        let inputs = (vec![PathBuf::from("s.toml")], PathBuf::from("golden"));
        let opts = VerifyOptions::new(inputs, None, (Some("a/b"), &[]), true, false);
        assert_eq!(
            (opts.pi, opts.models.as_slice(), opts.bless),
            (None, &["a/b".to_string()][..], true)
        );
        assert_eq!(opts.catalog.release(), PiRelease::DEFAULT);
        assert_eq!(opts.store.root(), Path::new("golden"));
    }

    #[test]
    fn target_models_follow_models_then_apis() {
        let catalog = Catalog::builtin(PiRelease::DEFAULT);
        assert_eq!(
            target_models(Some(" a/b, ,c/d/e "), &["all".into()], catalog),
            ["a/b", "c/d/e"]
        );
        let every = target_models(None, &[], catalog);
        assert_eq!(every.len(), replay::representative_models(catalog).len());
        assert_eq!(target_models(None, &["all".into()], catalog), every);
        let (api, model) = replay::representative_models(catalog)[0];
        assert_eq!(target_models(None, &[api.to_string()], catalog), [model]);
    }
}
