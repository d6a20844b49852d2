//! What cache breaks cost over a corpus: [`crate::explain`] on every session, the re-billed
//! tokens and dollars summed by cause, model and project.
//!
//! Sessions are explained in parallel (rayon) and folded in input order, so the sums are the
//! same doubles on every run. A session that cannot be opened or replayed is a recorded failure,
//! never an aborted run.

use std::collections::BTreeMap;
use std::path::PathBuf;

use forge_replay_model::error::chain as error_chain;
use forge_replay_session::Session;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::explain::{explain, Cause, CauseCost, ExplainOptions, CAUSES};

/// One session to explain and the project it counts for.
#[derive(Debug, Clone)]
pub struct BreakInput {
    pub path: PathBuf,
    pub project: String,
    /// The Pi release whose request assembly and catalog explain it (the one that wrote it, or
    /// `--pi`); `None`: the options' catalog.
    pub release: Option<forge_replay_model::release::PiRelease>,
}

/// Which breaks count (the corpus filters): `(provider, model, request time in ms)`.
pub type BreakFilter<'a> = &'a (dyn Fn(&str, &str, Option<f64>) -> bool + Sync);

/// The Pi sessions of a corpus to explain (sub-agent sessions included, unreadable files not),
/// within the `--project` filter; each with the release that priced its requests.
pub fn corpus_inputs(
    corpus: &crate::corpus::Corpus,
    filter: &crate::corpus::Filter,
) -> Vec<BreakInput> {
    corpus
        .files
        .iter()
        .filter(|f| f.session_id.is_some() && f.error.is_none())
        .map(|f| BreakInput {
            path: f.path.clone(),
            project: corpus.dicts.projects[f.project as usize].clone(),
            // The release that priced its requests: the one that wrote it, or --pi.
            release: Some(f.release),
        })
        .filter(|i| {
            filter
                .project
                .as_deref()
                .is_none_or(|p| i.project.contains(p))
        })
        .collect()
}

/// Whether a break counts under the corpus filters (`--model`, `--since`, `--until`): the
/// [`BreakFilter`] of [`corpus_breaks`].
pub fn filter_keeps(
    filter: &crate::corpus::Filter,
    provider: &str,
    model: &str,
    time: Option<f64>,
) -> bool {
    let model_ok = filter
        .model
        .as_deref()
        .is_none_or(|f| model.contains(f) || format!("{provider}/{model}") == f);
    let day = time.map(|t| (t / 86_400_000.0).floor() as i32);
    model_ok
        && filter.since.is_none_or(|s| day.is_some_and(|d| d >= s))
        && filter.until.is_none_or(|u| day.is_some_and(|d| d <= u))
}

/// The corpus sums.
#[derive(Debug, Clone, Default)]
pub struct BreakSums {
    pub sessions: usize,
    /// Sessions whose requests report no cache data (breaks cannot be confirmed).
    pub no_cache_data: usize,
    pub total: CauseCost,
    pub by_cause: Vec<(Cause, CauseCost)>,
    /// Keyed `provider/model`.
    pub by_model: Vec<(String, CauseCost)>,
    pub by_project: Vec<(String, CauseCost)>,
    /// Sessions that could not be explained: (file, error).
    pub failures: Vec<(PathBuf, String)>,
}

struct One {
    no_cache_data: bool,
    /// (cause, provider/model, cost) per counted break.
    breaks: Vec<(Cause, String, crate::explain::BreakCost)>,
    failure: Option<String>,
}

/// Explains every session of `inputs` and sums the breaks' costs. `progress` is called once per
/// session done (from rayon workers).
pub fn corpus_breaks(
    inputs: &[BreakInput],
    opts: &ExplainOptions<'_>,
    keep: BreakFilter<'_>,
    progress: &(dyn Fn() + Sync),
) -> BreakSums {
    let results: Vec<One> = inputs
        .par_iter()
        .map(|input| {
            let one = explain_one(input, opts, keep);
            progress();
            one
        })
        .collect();
    let mut sums = BreakSums::default();
    let mut by_cause: BTreeMap<Cause, CauseCost> = BTreeMap::new();
    let mut by_model: BTreeMap<String, CauseCost> = BTreeMap::new();
    let mut by_project: BTreeMap<String, CauseCost> = BTreeMap::new();
    for (input, one) in inputs.iter().zip(results) {
        if let Some(e) = one.failure {
            sums.failures.push((input.path.clone(), e));
            continue;
        }
        sums.sessions += 1;
        if one.no_cache_data {
            sums.no_cache_data += 1;
        }
        for (cause, model, cost) in &one.breaks {
            sums.total.add(cost);
            by_cause.entry(*cause).or_default().add(cost);
            by_model.entry(model.clone()).or_default().add(cost);
            by_project
                .entry(input.project.clone())
                .or_default()
                .add(cost);
        }
    }
    sums.by_cause = CAUSES
        .iter()
        .filter_map(|c| by_cause.remove(c).map(|v| (*c, v)))
        .collect();
    sums.by_model = by_model.into_iter().collect();
    sums.by_project = by_project.into_iter().collect();
    sums
}

fn explain_one(input: &BreakInput, opts: &ExplainOptions<'_>, keep: BreakFilter<'_>) -> One {
    let fail = |e: String| One {
        no_cache_data: false,
        breaks: Vec::new(),
        failure: Some(e),
    };
    let session = match Session::open(&input.path) {
        Ok((s, _)) => s,
        Err(e) => return fail(error_chain(&e)),
    };
    let own;
    let opts = match input.release {
        Some(r) if r != opts.catalog.release() => {
            own = ExplainOptions {
                leaf: opts.leaf.clone(),
                catalog: forge_replay_wire::Catalog::builtin(r),
                retention: opts.retention,
            };
            &own
        }
        _ => opts,
    };
    let e = match explain(&session, opts) {
        Ok(e) => e,
        Err(e) => return fail(error_chain(&e)),
    };
    let breaks = e
        .breaks
        .iter()
        .filter_map(|b| {
            let row = e.requests.iter().find(|r| r.index == b.request)?;
            keep(&row.provider, &row.model, row.timestamp).then(|| {
                (
                    b.cause,
                    format!("{}/{}", row.provider, row.model),
                    b.cost.clone(),
                )
            })
        })
        .collect();
    One {
        no_cache_data: e.no_cache_data,
        breaks,
        // A replay that stopped early still diagnosed the requests before the stop.
        failure: None,
    }
}

impl BreakSums {
    /// `{sessions, noCacheData, total, byCause, byModel, byProject, failures}`.
    pub fn to_json(&self) -> Value {
        let keyed = |name: &str, list: &[(String, CauseCost)]| -> Vec<Value> {
            list.iter()
                .map(|(k, c)| {
                    let mut v = c.to_json();
                    if let Value::Object(m) = &mut v {
                        m.insert(name.into(), k.clone().into());
                    }
                    v
                })
                .collect()
        };
        let by_cause: Vec<(String, CauseCost)> = self
            .by_cause
            .iter()
            .map(|(c, v)| (c.name().to_owned(), v.clone()))
            .collect();
        json!({
            "sessions": self.sessions,
            "noCacheData": self.no_cache_data,
            "total": self.total.to_json(),
            "byCause": keyed("cause", &by_cause),
            "byModel": keyed("model", &self.by_model),
            "byProject": keyed("project", &self.by_project),
            "failures": self.failures.iter().map(|(p, m)| json!({"file": p.display().to_string(), "message": m})).collect::<Vec<_>>(),
        })
    }
}
