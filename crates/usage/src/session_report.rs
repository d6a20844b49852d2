//! What `forge-replay usage SESSION` computes and prints as JSON: one branch's cache usage
//! (pi-forge's view), its request and nested-report rows, their prices, the usage findings, and
//! the `--min-hit-rate` rule ([`Threshold`]), which `usage --corpus` applies too.

use forge_replay_model::json::f64_to_value;
use forge_replay_session::{Diagnostic, ProjectError, Session};
use serde_json::{json, Map, Value};

use crate::nested::NestedReport;
use crate::pricing::{Price, Pricer, Unpriced};
use crate::report::{nested_price, nested_row, NestedRow, SessionPricing};
use crate::scan::Role;
use crate::session::{branch_record, request_row, RequestRow};
use crate::totals::{format_rate, rate_json, Totals};
use crate::view::SessionCacheUsage;

/// The `--min-hit-rate` check of one set of totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub passed: bool,
    /// `{min, rate, passed}`.
    pub json: Value,
    /// `cache hit rate 61.0% meets minimum 50.0%`.
    pub message: String,
}

/// A `--min-hit-rate` value (for `usage SESSION` and `usage --corpus`): a fraction from 0 to 1
/// (`0.85`) or a percentage with `%` (`85%`), as the fraction. A bare number above 1 is refused
/// (with the hint to write it with `%`), so a rate has one unit.
pub fn parse_min_hit_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(p) => (p.trim_end(), 100.0),
        None => (t, 1.0),
    };
    let bad = || {
        format!(
            "expected a fraction from 0 to 1 (0.85) or a percentage from 0% to 100% (85%){}",
            if scale == 1.0 && num.parse::<f64>().is_ok_and(|v| v > 1.0 && v <= 100.0) {
                format!("; for {num} percent write {num}%")
            } else {
                String::new()
            }
        )
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    let v = v / scale;
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(bad())
    }
}

impl Threshold {
    /// An undefined rate (nothing sent, or no cache data) cannot show the minimum is met, so it
    /// fails.
    pub fn check(min: f64, t: &Totals) -> Threshold {
        let rate = if t.no_cache_data() {
            None
        } else {
            t.hit_rate()
        };
        let passed = rate.is_some_and(|r| r >= min);
        let shown = if t.no_cache_data() {
            "no cache data".to_owned()
        } else {
            format_rate(rate)
        };
        let mut m = Map::new();
        m.insert("min".into(), f64_to_value(min));
        m.insert("rate".into(), rate_json(rate));
        m.insert("passed".into(), Value::Bool(passed));
        let message = format!(
            "cache hit rate {shown} {} minimum {}",
            if passed { "meets" } else { "is below" },
            format_rate(Some(min))
        );
        Threshold {
            passed,
            json: Value::Object(m),
            message,
        }
    }
}

/// One session's usage along the path to a leaf.
///
/// Built in one pass over the path: each entry is re-read, reduced to its rows and dropped, so
/// what is held is the rows, not the branch's records (a 1,000,000-entry chain holds 500,000
/// rows, not a million records as well).
#[derive(Debug, Clone)]
pub struct SessionUsage<'c> {
    pub view: SessionCacheUsage,
    pub rows: Vec<RequestRow>,
    pub nested: Vec<NestedRow>,
    pub pricer: Pricer<'c>,
    pub pricing: SessionPricing,
    /// Usage fields of the wrong type and malformed nested reports: `(line, message)`.
    pub findings: Vec<(u32, String)>,
    pub session_id: String,
    pub leaf_id: Option<String>,
    /// Entries on the path.
    pub path_entries: usize,
    /// Entries in the file.
    pub entries: usize,
}

impl<'c> SessionUsage<'c> {
    /// Reads the branch to `leaf` (none: an empty branch) and prices it with `catalog`; an error
    /// when an entry cannot be read again (the file changed since it was opened).
    ///
    /// Equal to [`summarize`](crate::summarize), [`request_rows`](crate::request_rows) and
    /// `nested_rows` over [`session_branch`](crate::session_branch) (a test holds them equal):
    /// "in turn" is "after the last user message", a suffix of the rows, so it is set once the
    /// path has been read.
    pub fn build(
        session: &Session,
        leaf: Option<usize>,
        catalog: &'c forge_replay_wire::Catalog,
    ) -> Result<SessionUsage<'c>, ProjectError> {
        let branch_path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
        // At most one row per assistant message: reserved once, so the rows are not copied as
        // they grow (the largest part of what is held on a long chain).
        let assistants = branch_path
            .iter()
            .filter(|&&i| session.entry(i).is_assistant_message())
            .count();
        let mut rows: Vec<RequestRow> = Vec::with_capacity(assistants);
        let mut nested: Vec<NestedRow> = Vec::new();
        let mut findings: Vec<(u32, String)> = Vec::new();
        // Rows and nested rows before the last user message seen so far.
        let (mut rows_before_turn, mut nested_before_turn) = (0, 0);
        let mut cumulative = Totals::default();
        for &i in &branch_path {
            let e = branch_record(session, i)?;
            let Some(m) = &e.message else { continue };
            if m.role == Role::User {
                rows_before_turn = rows.len();
                nested_before_turn = nested.len();
            }
            for msg in m.usage_problems.messages() {
                findings.push((e.line, msg));
            }
            if let Some(NestedReport::Invalid(why)) = &m.nested {
                findings.push((
                    e.line,
                    format!("malformed nested report ignored (invalidCalls): {why}"),
                ));
            }
            if let Some(t) = m.request {
                cumulative.add(&t);
                rows.push(request_row(&e, rows.len(), t, cumulative));
            }
            if m.role == Role::ToolResult {
                if let Some(report) = m.nested {
                    nested.push(nested_row(&e, report, rows.len()));
                }
            }
        }
        let mut view = SessionCacheUsage::default();
        for (k, r) in rows.iter_mut().enumerate() {
            r.in_turn = k >= rows_before_turn;
            view.main_session.add(&r.totals);
            if r.in_turn {
                view.main_turn.add(&r.totals);
            }
            view.last_request = Some(r.totals);
        }
        for (k, n) in nested.iter_mut().enumerate() {
            n.in_turn = k >= nested_before_turn;
            n.report.add_to(&mut view.nested_session);
            if n.in_turn {
                n.report.add_to(&mut view.nested_turn);
            }
        }
        let pricer = Pricer::of(catalog);
        let pricing = SessionPricing::build(&rows, &nested, &pricer);
        Ok(SessionUsage {
            view,
            rows,
            nested,
            pricer,
            pricing,
            findings,
            session_id: session.header().id().to_owned(),
            leaf_id: leaf.and_then(|l| session.entry(l).id()).map(str::to_owned),
            path_entries: branch_path.len(),
            entries: session.entry_count(),
        })
    }

    /// `usage SESSION --format json`: pi-forge's view, hit rates, combined totals, pricing, the
    /// source (`file`, the reader's `diagnostics`), with `requests` the per-request and
    /// nested-report rows, and the threshold check when there is one.
    pub fn to_json(
        &self,
        file: &str,
        diagnostics: &[&Diagnostic],
        requests: bool,
        threshold: Option<&Threshold>,
    ) -> Value {
        let view = &self.view;
        let mut v = match view.to_json() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        v.insert("hitRates".into(), view.hit_rates_json());
        let mut combined = Map::new();
        combined.insert("turn".into(), view.combined_turn().to_json());
        combined.insert("session".into(), view.combined_session().to_json());
        v.insert("combined".into(), Value::Object(combined));
        v.insert(
            "pricing".into(),
            serde_json::to_value(&self.pricing).unwrap_or(Value::Null),
        );
        v.insert(
            "source".into(),
            json!({
                "file": file,
                "sessionId": self.session_id,
                "leaf": self.leaf_id,
                "pathEntries": self.path_entries,
                "entries": self.entries,
                "diagnostics": diagnostics.iter().map(|d| json!({"line": d.line, "severity": d.severity.as_str(), "code": d.code, "message": d.message})).collect::<Vec<_>>(),
                "findings": self.findings.iter().map(|(l, m)| json!({"line": l, "message": m})).collect::<Vec<_>>(),
            }),
        );
        if requests {
            v.insert(
                "requests".into(),
                Value::Array(
                    self.rows
                        .iter()
                        .map(|r| request_json(r, &self.pricer))
                        .collect(),
                ),
            );
            v.insert(
                "nestedReports".into(),
                Value::Array(
                    self.nested
                        .iter()
                        .map(|n| nested_json(n, &self.pricer))
                        .collect(),
                ),
            );
        }
        if let Some(t) = threshold {
            v.insert("threshold".into(), t.json.clone());
        }
        Value::Object(v)
    }
}

fn price_json(p: &Result<Price, Unpriced>) -> (Value, Value) {
    match p {
        Ok(p) => (serde_json::to_value(p).unwrap_or(Value::Null), Value::Null),
        Err(why) => (Value::Null, Value::String(why.to_string())),
    }
}

/// One request row as JSON (`usage --requests --format json`).
pub fn request_json(r: &RequestRow, pricer: &Pricer<'_>) -> Value {
    let mut m = Map::new();
    m.insert("index".into(), json!(r.index));
    m.insert("entryId".into(), json!(r.entry_id));
    m.insert("line".into(), json!(r.line));
    m.insert("timestamp".into(), json!(r.timestamp));
    m.insert("provider".into(), json!(r.provider));
    m.insert("model".into(), json!(r.model));
    m.insert("api".into(), json!(r.api));
    m.insert("stopReason".into(), json!(r.stop_reason));
    m.insert("usage".into(), r.totals.to_json());
    m.insert("cost".into(), f64_to_value(r.cost));
    let (priced, unpriced) = price_json(&r.price(pricer));
    m.insert("priced".into(), priced);
    if !unpriced.is_null() {
        m.insert("unpriced".into(), unpriced);
    }
    m.insert("hitRate".into(), rate_json(r.totals.hit_rate()));
    m.insert("cumulative".into(), r.cumulative.to_json());
    m.insert(
        "cumulativeHitRate".into(),
        rate_json(r.cumulative.hit_rate()),
    );
    m.insert("inTurn".into(), json!(r.in_turn));
    Value::Object(m)
}

/// One nested-report row as JSON.
pub fn nested_json(n: &NestedRow, pricer: &Pricer<'_>) -> Value {
    let mut m = Map::new();
    m.insert("entryId".into(), json!(n.entry_id));
    m.insert("line".into(), json!(n.line));
    let (status, report) = match n.report {
        NestedReport::Invalid(why) => ("invalid", json!({"reason": why})),
        NestedReport::Valid(u) => {
            let mut t = json!({"requests": f64_to_value(u.requests), "input": f64_to_value(u.input), "output": f64_to_value(u.output)});
            if let (Some((r, w)), Value::Object(o)) = (u.cache, &mut t) {
                o.insert("cacheRead".into(), f64_to_value(r));
                o.insert("cacheWrite".into(), f64_to_value(w));
            }
            (
                if u.cache.is_some() {
                    "valid"
                } else {
                    "cache-unknown"
                },
                t,
            )
        }
    };
    m.insert("status".into(), json!(status));
    m.insert("report".into(), report);
    m.insert("provider".into(), json!(n.provider));
    m.insert("model".into(), json!(n.model));
    match nested_price(n, pricer) {
        None => {
            m.insert("priced".into(), Value::Null);
        }
        Some(p) => {
            let (priced, unpriced) = price_json(&p);
            m.insert("priced".into(), priced);
            if !unpriced.is_null() {
                m.insert("unpriced".into(), unpriced);
            }
        }
    }
    m.insert("inTurn".into(), json!(n.in_turn));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_hit_rate_has_one_unit() {
        assert_eq!(parse_min_hit_rate("0.85"), Ok(0.85));
        assert_eq!(parse_min_hit_rate("85%"), Ok(0.85));
        assert_eq!(parse_min_hit_rate("1"), Ok(1.0));
        assert_eq!(parse_min_hit_rate("100%"), Ok(1.0));
        assert_eq!(parse_min_hit_rate("0"), Ok(0.0));
        for bad in ["85", "1.5", "-0.1", "101%", "NaN", "inf", "", "%"] {
            assert!(parse_min_hit_rate(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_undefined_rate_fails_the_threshold() {
        let none = Totals::default();
        let t = Threshold::check(0.1, &none);
        assert!(!t.passed);
        assert_eq!(t.json["passed"], Value::Bool(false));
        let hit = Totals {
            requests: 1.0,
            input: 10.0,
            output: 1.0,
            cache_read: 90.0,
            cache_write: 0.0,
        };
        let t = Threshold::check(0.5, &hit);
        assert!(t.passed, "{}", t.message);
        assert!(t.message.starts_with("cache hit rate 90"), "{}", t.message);
        assert!(!Threshold::check(0.95, &hit).passed);
    }
}
