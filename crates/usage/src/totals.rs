//! Token totals and the cache hit rate, with pi-forge's JavaScript number semantics.
//!
//! Every field is an `f64` because Forge sums JavaScript numbers (doubles): fractional token counts
//! are kept as-is and sums round as doubles do.

use forge_replay_model::json::f64_to_value;
use serde_json::{Map, Value};

/// `CacheUsageTotals`: `{requests, input, output, cacheRead, cacheWrite}`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub requests: f64,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

/// `NestedUsageTotals`: [`Totals`] plus the three call counters.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NestedTotals {
    pub totals: Totals,
    /// Tool results carrying a valid report with cache counts (included in `totals`).
    pub calls: f64,
    /// Valid reports without cache counts (excluded from `totals`).
    pub cache_unknown_calls: f64,
    /// Malformed reports (ignored).
    pub invalid_calls: f64,
}

impl Totals {
    /// Field-wise `target += value`, in Forge's order.
    pub fn add(&mut self, value: &Totals) {
        self.requests += value.requests;
        self.input += value.input;
        self.output += value.output;
        self.cache_read += value.cache_read;
        self.cache_write += value.cache_write;
    }

    /// Field-wise sum of two totals.
    pub fn plus(&self, other: &Totals) -> Totals {
        let mut t = *self;
        t.add(other);
        t
    }

    /// `cacheHitRate`: `cacheRead / (input + cacheRead + cacheWrite)`, `None` when nothing was sent.
    pub fn hit_rate(&self) -> Option<f64> {
        hit_rate(self.input, self.cache_read, self.cache_write)
    }

    /// `true` when prompt tokens were sent but the provider reported no cache counts at all.
    pub fn no_cache_data(&self) -> bool {
        self.input > 0.0 && self.cache_read == 0.0 && self.cache_write == 0.0
    }

    /// The JSON object `{requests, input, output, cacheRead, cacheWrite}` (JS key order).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        self.write_json(&mut m);
        Value::Object(m)
    }

    fn write_json(&self, m: &mut Map<String, Value>) {
        m.insert("requests".into(), f64_to_value(self.requests));
        m.insert("input".into(), f64_to_value(self.input));
        m.insert("output".into(), f64_to_value(self.output));
        m.insert("cacheRead".into(), f64_to_value(self.cache_read));
        m.insert("cacheWrite".into(), f64_to_value(self.cache_write));
    }
}

impl NestedTotals {
    /// The JSON object with the totals' keys followed by `calls, cacheUnknownCalls, invalidCalls`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        self.totals.write_json(&mut m);
        m.insert("calls".into(), f64_to_value(self.calls));
        m.insert(
            "cacheUnknownCalls".into(),
            f64_to_value(self.cache_unknown_calls),
        );
        m.insert("invalidCalls".into(), f64_to_value(self.invalid_calls));
        Value::Object(m)
    }

    /// `true` when no tool result carried a `forgeNestedUsage` key (the UI's `No data`).
    pub fn is_empty(&self) -> bool {
        self.calls + self.cache_unknown_calls + self.invalid_calls == 0.0
    }
}

/// `cacheRead / (input + cacheRead + cacheWrite)` when the denominator is positive.
pub fn hit_rate(input: f64, cache_read: f64, cache_write: f64) -> Option<f64> {
    let prompt = input + cache_read + cache_write;
    (prompt > 0.0).then(|| cache_read / prompt)
}

/// Forge's display: `—` when undefined, else `(rate * 100).toFixed(1) + "%"`.
pub fn format_rate(rate: Option<f64>) -> String {
    match rate {
        None => "\u{2014}".to_string(),
        Some(r) => format!("{:.1}%", r * 100.0),
    }
}

/// Display for a totals row: `—` when nothing was sent, `no cache data` when the provider reported
/// zero cache counts, else the percentage.
pub fn format_totals_rate(t: &Totals) -> String {
    if t.no_cache_data() {
        "no cache data".to_string()
    } else {
        format_rate(t.hit_rate())
    }
}

/// A rate as a JSON number, or `null` when undefined.
pub fn rate_json(rate: Option<f64>) -> Value {
    rate.map(f64_to_value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_rate_guards_denominator() {
        assert_eq!(hit_rate(0.0, 0.0, 0.0), None);
        assert_eq!(hit_rate(20.0, 60.0, 20.0), Some(0.6));
        assert_eq!(format_rate(None), "—");
    }

    #[test]
    fn ui_golden_strings() {
        // Golden values from pi-forge's browser test (spec §8).
        assert_eq!(format_rate(hit_rate(11.0, 51794.0, 6578.0)), "88.7%");
        assert_eq!(format_rate(hit_rate(45.0, 111885.0, 16359.0)), "87.2%");
        assert_eq!(format_rate(hit_rate(2.0, 11010.0, 5349.0)), "67.3%");
        assert_eq!(format_rate(hit_rate(10.0, 900.0, 90.0)), "90.0%");
    }

    #[test]
    fn zero_cache_counts_are_no_cache_data() {
        let t = Totals {
            requests: 1.0,
            input: 5.0,
            ..Totals::default()
        };
        assert_eq!(t.hit_rate(), Some(0.0));
        assert_eq!(format_totals_rate(&t), "no cache data");
        assert_eq!(format_totals_rate(&Totals::default()), "—");
    }
}
