//! `summarizeSessionCacheUsage`: pi-forge's session cache-usage view over one branch.

use serde_json::{Map, Value};

use crate::scan::{EntryRecord, Role};
use crate::totals::{rate_json, NestedTotals, Totals};

/// `SessionCacheUsageView`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionCacheUsage {
    pub main_turn: Totals,
    pub main_session: Totals,
    /// The last usage-bearing assistant request on the branch.
    pub last_request: Option<Totals>,
    pub nested_turn: NestedTotals,
    pub nested_session: NestedTotals,
}

/// Index of the first in-turn entry: one past the last user message, 0 when there is none.
pub fn turn_start<'a>(
    branch: impl DoubleEndedIterator<Item = &'a EntryRecord> + ExactSizeIterator,
) -> usize {
    let n = branch.len();
    branch
        .rev()
        .position(|e| e.message.as_ref().is_some_and(|m| m.role == Role::User))
        .map_or(0, |from_end| n - from_end)
}

/// Summarizes the branch (root to leaf), exactly as pi-forge does.
pub fn summarize(branch: &[&EntryRecord]) -> SessionCacheUsage {
    let start = turn_start(branch.iter().copied());
    let mut view = SessionCacheUsage::default();
    for (index, entry) in branch.iter().enumerate() {
        let Some(message) = &entry.message else {
            continue;
        };
        let in_turn = index >= start;
        if let Some(request) = &message.request {
            view.main_session.add(request);
            if in_turn {
                view.main_turn.add(request);
            }
            view.last_request = Some(*request);
        }
        if message.role == Role::ToolResult {
            if let Some(report) = &message.nested {
                report.add_to(&mut view.nested_session);
                if in_turn {
                    report.add_to(&mut view.nested_turn);
                }
            }
        }
    }
    view
}

impl SessionCacheUsage {
    /// `main` as pi-forge builds it: `{turn, session}` then `lastRequest` when present.
    pub fn main_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("turn".into(), self.main_turn.to_json());
        m.insert("session".into(), self.main_session.to_json());
        if let Some(last) = &self.last_request {
            m.insert("lastRequest".into(), last.to_json());
        }
        Value::Object(m)
    }

    /// `nested`: `{turn, session}`.
    pub fn nested_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("turn".into(), self.nested_turn.to_json());
        m.insert("session".into(), self.nested_session.to_json());
        Value::Object(m)
    }

    /// The view exactly as pi-forge returns it: `{main, nested}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("main".into(), self.main_json());
        m.insert("nested".into(), self.nested_json());
        Value::Object(m)
    }

    /// Known-data sums of main and nested (the panel's "Combined known data" lines).
    pub fn combined_turn(&self) -> Totals {
        self.main_turn.plus(&self.nested_turn.totals)
    }

    /// See [`SessionCacheUsage::combined_turn`].
    pub fn combined_session(&self) -> Totals {
        self.main_session.plus(&self.nested_session.totals)
    }

    /// Hit rates of every total (`null` when undefined):
    /// `{main: {turn, session, lastRequest}, nested: {turn, session}, combined: {turn, session}}`.
    pub fn hit_rates_json(&self) -> Value {
        let pair = |turn: &Totals, session: &Totals| {
            let mut m = Map::new();
            m.insert("turn".into(), rate_json(turn.hit_rate()));
            m.insert("session".into(), rate_json(session.hit_rate()));
            m
        };
        let mut main = pair(&self.main_turn, &self.main_session);
        main.insert(
            "lastRequest".into(),
            rate_json(self.last_request.and_then(|t| t.hit_rate())),
        );
        let nested = pair(&self.nested_turn.totals, &self.nested_session.totals);
        let combined = pair(&self.combined_turn(), &self.combined_session());
        let mut m = Map::new();
        m.insert("main".into(), Value::Object(main));
        m.insert("nested".into(), Value::Object(nested));
        m.insert("combined".into(), Value::Object(combined));
        Value::Object(m)
    }
}
