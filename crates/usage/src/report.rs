//! Serializable views of the usage analytics: what `usage --corpus --format json` prints and the
//! tables are made from. Numbers are JavaScript doubles (print them with
//! `forge_replay_model::json`).

use serde::Serialize;

use crate::corpus::{Corpus, Filter, Group, GroupBy, Reconciliation};
use crate::nested::NestedReport;
use crate::pricing::{disagrees, Pricer, PricingUsage, Unpriced};
use crate::scan::EntryRecord;
use crate::scan::Role;
use crate::session::RequestRow;
use crate::totals::{NestedTotals, Totals};
use crate::view::turn_start;

/// `{requests, input, output, cacheRead, cacheWrite, hitRate, noCacheData}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TotalsView {
    pub requests: f64,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub hit_rate: Option<f64>,
    pub no_cache_data: bool,
}

impl TotalsView {
    pub fn of(t: &Totals) -> TotalsView {
        TotalsView {
            requests: t.requests,
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_write: t.cache_write,
            hit_rate: t.hit_rate(),
            no_cache_data: t.no_cache_data(),
        }
    }
}

/// [`TotalsView`] plus pi-forge's call counters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NestedView {
    #[serde(flatten)]
    pub totals: TotalsView,
    pub calls: f64,
    pub cache_unknown_calls: f64,
    pub invalid_calls: f64,
}

impl NestedView {
    pub fn of(n: &NestedTotals) -> NestedView {
        NestedView {
            totals: TotalsView::of(&n.totals),
            calls: n.calls,
            cache_unknown_calls: n.cache_unknown_calls,
            invalid_calls: n.invalid_calls,
        }
    }
}

/// Pi's recorded cost beside pi-ai's price.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PricingView {
    /// `usage.cost.total` as Pi persisted it, over every request.
    pub recorded: f64,
    /// `calculateCost` over the priced requests.
    pub priced: f64,
    pub priced_requests: f64,
    /// Requests whose model is not in the catalog (no price, never `$0`).
    pub unpriced_requests: f64,
    /// `recorded` over the priced requests only: what `priced` is compared with.
    pub recorded_of_priced: f64,
    /// The two differ by more than rounding ([`crate::pricing::disagrees`]).
    pub disagrees: bool,
    /// `calculateCost` over the nested reports that name a priced model.
    pub nested_priced: f64,
    pub nested_priced_calls: f64,
}

impl PricingView {
    pub fn of_group(g: &Group) -> PricingView {
        PricingView {
            recorded: g.cost,
            priced: g.priced,
            priced_requests: g.priced_requests,
            unpriced_requests: g.unpriced_requests,
            recorded_of_priced: g.recorded_of_priced,
            disagrees: g.pricing_disagrees(),
            nested_priced: g.nested_priced,
            nested_priced_calls: g.nested_priced_calls,
        }
    }

    /// All of main, sub-agent and nested priced (what the price of the known data is).
    pub fn total_priced(&self) -> f64 {
        self.priced + self.nested_priced
    }
}

/// One `--by` group: main requests at the top level (as before nested usage was added), then
/// the sub-agent calls, the nested reports, their sum and the pricing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupView {
    pub key: String,
    #[serde(flatten)]
    pub main: TotalsView,
    /// Recorded cost of the group's main and sub-agent requests.
    pub cost: f64,
    pub abandoned_requests: f64,
    pub subagents: TotalsView,
    pub nested: NestedView,
    pub combined: TotalsView,
    pub pricing: PricingView,
}

impl GroupView {
    pub fn of(g: &Group) -> GroupView {
        GroupView {
            key: g.key.clone(),
            main: TotalsView::of(&g.totals),
            cost: g.cost,
            abandoned_requests: g.abandoned_requests,
            subagents: TotalsView::of(&g.subagents),
            nested: NestedView::of(&g.nested),
            combined: TotalsView::of(&g.combined()),
            pricing: PricingView::of_group(g),
        }
    }
}

/// `{file, line, message}`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    pub file: String,
    pub line: u32,
    pub message: String,
}

/// A file that is not a Pi session: `{file, line, message}` (the line that decided it, if any).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotSessionView {
    pub file: String,
    pub line: Option<u32>,
    pub message: String,
}

/// `{file, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unreadable {
    pub file: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FiltersView {
    pub since: Option<String>,
    pub until: Option<String>,
    pub model: Option<String>,
    pub project: Option<String>,
}

/// The nested reports of the corpus, split like the requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NestedSection {
    pub totals: NestedView,
    pub active: NestedView,
    pub abandoned: NestedView,
    pub fork_copies: NestedView,
}

/// One sub-agent file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildFileView {
    pub file: String,
    pub kind: &'static str,
    /// The parent session file (`null`: not scanned, or not found for a transcript).
    pub parent: Option<String>,
    pub run_id: Option<String>,
    /// Calls counted as sub-agent requests.
    pub counted: TotalsView,
    /// Calls found again in an earlier child file.
    pub copies: f64,
    /// Calls a parent's nested report already counts.
    pub covered: f64,
}

/// A report's numbers (`null` cache counts when the report has none).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedView {
    pub requests: Option<f64>,
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

/// A parent's nested report beside the calls found in the child files it names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationView {
    pub file: String,
    pub line: u32,
    /// `counted` (valid with cache counts: the child calls are not counted again),
    /// `cache-unknown` or `invalid` (pi-forge counts no tokens: the child calls are counted).
    pub status: &'static str,
    pub reported: ReportedView,
    pub children: Vec<String>,
    pub found: TotalsView,
    /// `found − reported` per field, when the report has that field.
    pub difference: ReportedView,
}

impl ReconciliationView {
    fn of(c: &Corpus, r: &Reconciliation) -> ReconciliationView {
        let (status, reported) = match r.report {
            NestedReport::Invalid(_) => (
                "invalid",
                ReportedView {
                    requests: None,
                    input: None,
                    output: None,
                    cache_read: None,
                    cache_write: None,
                },
            ),
            NestedReport::Valid(u) => (
                if u.cache.is_some() {
                    "counted"
                } else {
                    "cache-unknown"
                },
                ReportedView {
                    requests: Some(u.requests),
                    input: Some(u.input),
                    output: Some(u.output),
                    cache_read: u.cache.map(|x| x.0),
                    cache_write: u.cache.map(|x| x.1),
                },
            ),
        };
        let f = &r.found;
        let d = |found: f64, rep: Option<f64>| rep.map(|x| found - x);
        ReconciliationView {
            file: c.files[r.file as usize].path.display().to_string(),
            line: r.line,
            status,
            reported,
            children: r
                .children
                .iter()
                .map(|&i| c.files[i as usize].path.display().to_string())
                .collect(),
            found: TotalsView::of(f),
            difference: ReportedView {
                requests: d(f.requests, reported.requests),
                input: d(f.input, reported.input),
                output: d(f.output, reported.output),
                cache_read: d(f.cache_read, reported.cache_read),
                cache_write: d(f.cache_write, reported.cache_write),
            },
        }
    }
}

/// Sub-agent files found under parent sessions' folders.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentSection {
    /// Sub-agent calls counted as requests (attributed to their parent sessions).
    pub totals: TotalsView,
    /// Calls found again in another child file (a run session and its transcript).
    pub copies: TotalsView,
    /// Calls a parent's valid nested report counts already.
    pub covered: TotalsView,
    pub files: Vec<ChildFileView>,
    pub reconciliation: Vec<ReconciliationView>,
}

/// A reason some requests have no price, and how many.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnpricedView {
    pub reason: String,
    pub requests: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PricingSection {
    /// The pi-ai release whose catalog priced the requests (several, comma-separated, when
    /// each session was priced with the release that wrote it and they differ).
    pub release: String,
    /// Per release: the sessions (and transcripts) its catalog priced and their requests.
    pub releases: Vec<ReleaseView>,
    #[serde(flatten)]
    pub totals: PricingView,
    pub unpriced: Vec<UnpricedView>,
    /// Nested reports naming a model that could not be priced.
    pub nested_unpriced: Vec<UnpricedView>,
}

/// One release's share of a corpus's pricing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleaseView {
    pub release: String,
    pub files: usize,
    pub requests: f64,
}

/// `usage --corpus --format json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CorpusReport {
    pub files: usize,
    pub sessions: usize,
    pub forks: usize,
    pub not_sessions: usize,
    /// The files counted in `notSessions`, each with the reason (the rule `usage FILE` applies).
    pub not_session_files: Vec<NotSessionView>,
    pub subagent_files: usize,
    pub by: &'static str,
    pub filters: FiltersView,
    /// The sessions' own requests (sub-agent calls and nested reports are beside them).
    pub totals: GroupTotals,
    pub active: TotalsView,
    pub abandoned: TotalsView,
    pub fork_copies: TotalsView,
    pub nested: NestedSection,
    pub subagents: SubagentSection,
    /// Main, sub-agent and known nested tokens together.
    pub combined: TotalsView,
    pub pricing: PricingSection,
    pub groups: Vec<GroupView>,
    pub bad_lines: Vec<Finding>,
    /// Usage fields of the wrong type or sign, malformed nested reports.
    pub findings: Vec<Finding>,
    pub unreadable: Vec<Unreadable>,
}

/// [`TotalsView`] with the recorded cost (the corpus `totals`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupTotals {
    #[serde(flatten)]
    pub totals: TotalsView,
    pub cost: f64,
}

fn unpriced_list(m: &std::collections::BTreeMap<Unpriced, f64>) -> Vec<UnpricedView> {
    m.iter()
        .map(|(r, n)| UnpricedView {
            reason: r.to_string(),
            requests: *n,
        })
        .collect()
}

impl CorpusReport {
    /// The report over the requests and nested reports passing `filter`; `groups` are
    /// [`Corpus::group`]'s for `by`.
    pub fn build(
        corpus: &Corpus,
        filter: &Filter,
        filters: FiltersView,
        by: GroupBy,
        groups: &[Group],
    ) -> CorpusReport {
        let (mut main, mut active, mut abandoned, mut sub) = (
            Totals::default(),
            Totals::default(),
            Totals::default(),
            Totals::default(),
        );
        let mut all = Group::default();
        for r in corpus.filtered(filter) {
            let t = r.totals();
            if r.subagent {
                sub.add(&t);
            } else {
                main.add(&t);
                if r.active {
                    active.add(&t);
                } else {
                    abandoned.add(&t);
                }
            }
            all.cost += r.cost;
            match r.priced() {
                Some(p) => {
                    all.priced += p;
                    all.priced_requests += 1.0;
                    all.recorded_of_priced += r.cost;
                }
                None => all.unpriced_requests += 1.0,
            }
        }
        let (mut nested, mut n_active, mut n_abandoned) = (
            NestedTotals::default(),
            NestedTotals::default(),
            NestedTotals::default(),
        );
        for n in corpus.nested_filtered(filter) {
            n.report.add_to(&mut nested);
            n.report.add_to(if n.active {
                &mut n_active
            } else {
                &mut n_abandoned
            });
            if let Some(p) = n.priced() {
                all.nested_priced += p;
                all.nested_priced_calls += 1.0;
            }
        }
        let mut copies = Totals::default();
        let mut covered = Totals::default();
        let mut files = Vec::new();
        for f in &corpus.files {
            let Some(c) = &f.child else { continue };
            copies.add(&c.copies);
            covered.add(&c.covered);
            files.push(ChildFileView {
                file: f.path.display().to_string(),
                kind: c.kind.name(),
                parent: c
                    .parent
                    .map(|p| corpus.files[p as usize].path.display().to_string()),
                run_id: c.run_id.clone(),
                counted: TotalsView::of(&c.counted),
                copies: c.copies.requests,
                covered: c.covered.requests,
            });
        }
        let mut bad_lines = Vec::new();
        let mut findings = Vec::new();
        let mut unreadable = Vec::new();
        let mut not_session_files = Vec::new();
        for f in &corpus.files {
            let file = f.path.display().to_string();
            if f.error.is_none() && f.session_id.is_none() && !f.transcript {
                let (line, message) = f
                    .not_session
                    .as_ref()
                    .map_or((None, String::new()), |n| (n.line, n.reason.clone()));
                not_session_files.push(NotSessionView {
                    file: file.clone(),
                    line,
                    message,
                });
            }
            for b in &f.bad_lines {
                bad_lines.push(Finding {
                    file: file.clone(),
                    line: b.line,
                    message: b.message.clone(),
                });
            }
            for b in &f.findings {
                findings.push(Finding {
                    file: file.clone(),
                    line: b.line,
                    message: b.message.clone(),
                });
            }
            if let Some(e) = &f.error {
                unreadable.push(Unreadable {
                    file: file.clone(),
                    message: e.clone(),
                });
            }
        }
        for (p, m) in &corpus.walk_errors {
            unreadable.push(Unreadable {
                file: p.display().to_string(),
                message: m.clone(),
            });
        }
        CorpusReport {
            files: corpus.files.len(),
            sessions: corpus.sessions(),
            forks: corpus.forks(),
            not_sessions: corpus.not_sessions(),
            not_session_files,
            subagent_files: files.len(),
            by: by.name(),
            filters,
            totals: GroupTotals {
                totals: TotalsView::of(&main),
                cost: all.cost,
            },
            active: TotalsView::of(&active),
            abandoned: TotalsView::of(&abandoned),
            fork_copies: TotalsView::of(&corpus.fork_copies),
            nested: NestedSection {
                totals: NestedView::of(&nested),
                active: NestedView::of(&n_active),
                abandoned: NestedView::of(&n_abandoned),
                fork_copies: NestedView::of(&corpus.nested_fork_copies),
            },
            subagents: SubagentSection {
                totals: TotalsView::of(&sub),
                copies: TotalsView::of(&copies),
                covered: TotalsView::of(&covered),
                files,
                reconciliation: corpus
                    .reconciliation
                    .iter()
                    .map(|r| ReconciliationView::of(corpus, r))
                    .collect(),
            },
            combined: TotalsView::of(&main.plus(&sub).plus(&nested.totals)),
            pricing: PricingSection {
                release: corpus.release.clone(),
                releases: {
                    let mut list: Vec<ReleaseView> = corpus
                        .releases
                        .iter()
                        .map(|(r, c)| ReleaseView {
                            release: r.clone(),
                            files: c.files,
                            requests: c.requests,
                        })
                        .collect();
                    list.sort_by(|a, b| {
                        forge_replay_model::release::PiRelease::compare_versions(
                            &a.release, &b.release,
                        )
                    });
                    list
                },
                totals: PricingView {
                    disagrees: disagrees(all.recorded_of_priced, all.priced, all.priced_requests),
                    ..PricingView::of_group(&all)
                },
                unpriced: unpriced_list(&corpus.unpriced),
                nested_unpriced: unpriced_list(&corpus.nested_unpriced),
            },
            groups: groups.iter().map(GroupView::of).collect(),
            bad_lines,
            findings,
            unreadable,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One session

/// A price as JSON: `calculateCost`'s `{input, output, cacheRead, cacheWrite, total}`.
pub type PriceView = crate::pricing::Price;

/// One tool result with a nested report on a branch.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedRow {
    pub entry_id: Option<String>,
    pub line: u32,
    pub report: NestedReport,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub in_turn: bool,
    /// Main requests on the branch up to and including this entry.
    pub requests_before: usize,
}

/// The tool results with a nested report on a branch, in order.
pub fn nested_rows(branch: &[&EntryRecord]) -> Vec<NestedRow> {
    let start = turn_start(branch.iter().copied());
    let mut out = Vec::new();
    let mut requests = 0;
    for (i, e) in branch.iter().enumerate() {
        let Some(m) = &e.message else { continue };
        requests += usize::from(m.request.is_some());
        if m.role != Role::ToolResult {
            continue;
        }
        let Some(report) = m.nested else { continue };
        let mut row = nested_row(e, report, requests);
        row.in_turn = i >= start;
        out.push(row);
    }
    out
}

/// The row of tool result `e` with nested `report`, after `requests_before` main requests;
/// `in_turn` is left false for the caller.
pub(crate) fn nested_row(
    e: &EntryRecord,
    report: NestedReport,
    requests_before: usize,
) -> NestedRow {
    let link = e.message.as_ref().and_then(|m| m.nested_link.as_deref());
    NestedRow {
        entry_id: e.id.as_deref().map(str::to_owned),
        line: e.line,
        report,
        provider: link.and_then(|l| l.provider.as_deref()).map(str::to_owned),
        model: link.and_then(|l| l.model.as_deref()).map(str::to_owned),
        in_turn: false,
        requests_before,
    }
}

/// The recorded cost and the price of one session's requests and nested reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionPricing {
    pub release: String,
    #[serde(flatten)]
    pub totals: PricingView,
    pub unpriced: Vec<UnpricedView>,
}

impl SessionPricing {
    pub fn build(rows: &[RequestRow], nested: &[NestedRow], pricer: &Pricer<'_>) -> SessionPricing {
        let mut v = PricingView::default();
        let mut reasons: std::collections::BTreeMap<Unpriced, f64> = Default::default();
        for r in rows {
            v.recorded += r.cost;
            match r.price(pricer) {
                Ok(p) => {
                    v.priced += p.total;
                    v.priced_requests += 1.0;
                    v.recorded_of_priced += r.cost;
                }
                Err(why) => {
                    v.unpriced_requests += 1.0;
                    *reasons.entry(why).or_default() += 1.0;
                }
            }
        }
        for n in nested {
            if let Some(Ok(p)) = nested_price(n, pricer) {
                v.nested_priced += p.total;
                v.nested_priced_calls += 1.0;
            }
        }
        v.disagrees = disagrees(v.recorded_of_priced, v.priced, v.priced_requests);
        SessionPricing {
            release: pricer.release().to_owned(),
            totals: v,
            unpriced: unpriced_list(&reasons),
        }
    }
}

/// A nested report's price: `None` when it names no model or has no token sums with cache
/// counts.
pub fn nested_price(
    n: &NestedRow,
    pricer: &Pricer<'_>,
) -> Option<Result<crate::pricing::Price, Unpriced>> {
    n.model.as_ref()?;
    let t = n.report.known_totals()?;
    Some(pricer.price_aggregate(
        n.provider.as_deref(),
        n.model.as_deref(),
        t.requests,
        &PricingUsage::of(&t, 0.0),
    ))
}
