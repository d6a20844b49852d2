//! `toolResult.details.forgeNestedUsage`: pi-forge's strict nested-usage parser.

use serde_json::Value;

use crate::totals::{NestedTotals, Totals};

/// `FORGE_NESTED_USAGE_KEY`.
pub const FORGE_NESTED_USAGE_KEY: &str = "forgeNestedUsage";

const ALLOWED: [&str; 6] = [
    "schemaVersion",
    "requests",
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
];

/// Every rule [`check_forge_nested_usage`] names for a malformed value (the index stores a
/// malformed report by its position here).
pub(crate) const INVALID_REASONS: [&str; 10] = [
    "forgeNestedUsage is not an object",
    "forgeNestedUsage has a key outside the schemaVersion 1 contract",
    "forgeNestedUsage.schemaVersion is not 1",
    "forgeNestedUsage.requests is not a count",
    "forgeNestedUsage.input is not a count",
    "forgeNestedUsage.output is not a count",
    "forgeNestedUsage has only one of cacheRead and cacheWrite",
    "forgeNestedUsage.cacheRead is not a count",
    "forgeNestedUsage.cacheWrite is not a count",
    "forgeNestedUsage reports tokens for zero requests",
];

/// A valid `ForgeNestedUsage` (schemaVersion 1). `cache` is `Some((cacheRead, cacheWrite))` when
/// the producer reported both cache counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForgeNestedUsage {
    pub requests: f64,
    pub input: f64,
    pub output: f64,
    pub cache: Option<(f64, f64)>,
}

/// What one tool result's `forgeNestedUsage` value amounts to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NestedReport {
    /// Malformed value: counted in `invalidCalls`, otherwise ignored. The text says which rule of
    /// `parseForgeNestedUsage` it breaks (for the file:line listing; pi-forge gives no reason).
    Invalid(&'static str),
    /// A valid report.
    Valid(ForgeNestedUsage),
}

impl NestedReport {
    /// Classifies a `forgeNestedUsage` value.
    pub fn from_value(value: &Value) -> NestedReport {
        check_forge_nested_usage(value).map_or_else(NestedReport::Invalid, NestedReport::Valid)
    }

    /// `true` for a malformed report.
    pub fn is_invalid(&self) -> bool {
        matches!(self, NestedReport::Invalid(_))
    }

    /// The report's tokens when it is valid and has both cache counts.
    pub fn known_totals(&self) -> Option<Totals> {
        match self {
            NestedReport::Valid(u) => u.cache.map(|(read, write)| Totals {
                requests: u.requests,
                input: u.input,
                output: u.output,
                cache_read: read,
                cache_write: write,
            }),
            NestedReport::Invalid(_) => None,
        }
    }

    /// Forge's `addNested` for a details object that has the key.
    pub fn add_to(&self, target: &mut NestedTotals) {
        match self {
            NestedReport::Invalid(_) => target.invalid_calls += 1.0,
            NestedReport::Valid(u) => match u.cache {
                None => target.cache_unknown_calls += 1.0,
                Some((read, write)) => {
                    target.calls += 1.0;
                    target.totals.add(&Totals {
                        requests: u.requests,
                        input: u.input,
                        output: u.output,
                        cache_read: read,
                        cache_write: write,
                    });
                }
            },
        }
    }
}

/// `Number.isSafeInteger(v) && v >= 0` on a JSON value.
fn count(v: Option<&Value>) -> Option<f64> {
    let f = forge_replay_model::json::number_to_f64(v?.as_number()?);
    (f.is_finite() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0 && f >= 0.0)
        .then_some(if f == 0.0 { 0.0 } else { f })
}

/// `parseForgeNestedUsage`: `None` for any malformed value.
pub fn parse_forge_nested_usage(value: &Value) -> Option<ForgeNestedUsage> {
    check_forge_nested_usage(value).ok()
}

/// [`parse_forge_nested_usage`] with the rule a malformed value breaks.
pub fn check_forge_nested_usage(value: &Value) -> Result<ForgeNestedUsage, &'static str> {
    let raw = value
        .as_object()
        .ok_or("forgeNestedUsage is not an object")?;
    if raw.keys().any(|k| !ALLOWED.contains(&k.as_str())) {
        return Err("forgeNestedUsage has a key outside the schemaVersion 1 contract");
    }
    match raw.get("schemaVersion") {
        Some(Value::Number(n)) if forge_replay_model::json::number_to_f64(n) == 1.0 => {}
        _ => return Err("forgeNestedUsage.schemaVersion is not 1"),
    }
    let requests = count(raw.get("requests")).ok_or("forgeNestedUsage.requests is not a count")?;
    let input = count(raw.get("input")).ok_or("forgeNestedUsage.input is not a count")?;
    let output = count(raw.get("output")).ok_or("forgeNestedUsage.output is not a count")?;
    // `!== undefined`: a JSON `null` is present (and then fails the count check).
    let read = raw.get("cacheRead");
    let write = raw.get("cacheWrite");
    if read.is_some() != write.is_some() {
        return Err("forgeNestedUsage has only one of cacheRead and cacheWrite");
    }
    let cache = match (read, write) {
        (Some(_), Some(_)) => Some((
            count(read).ok_or("forgeNestedUsage.cacheRead is not a count")?,
            count(write).ok_or("forgeNestedUsage.cacheWrite is not a count")?,
        )),
        _ => None,
    };
    if requests == 0.0 {
        let supplied = [
            Some(input),
            Some(output),
            cache.map(|c| c.0),
            cache.map(|c| c.1),
        ];
        if supplied.iter().flatten().any(|&c| c > 0.0) {
            return Err("forgeNestedUsage reports tokens for zero requests");
        }
    }
    Ok(ForgeNestedUsage {
        requests,
        input,
        output,
        cache,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({"schemaVersion": 1, "requests": 2, "input": 3, "output": 4, "cacheRead": 5, "cacheWrite": 6})
    }

    fn with(key: &str, v: Value) -> Value {
        let mut o = valid();
        o.as_object_mut().unwrap().insert(key.into(), v);
        o
    }

    #[test]
    fn every_rule_is_listed_for_the_index() {
        let cases = [
            json!([1]),
            with("extra", json!(1)),
            with("schemaVersion", json!(2)),
            with("requests", json!(-1)),
            with("input", json!(0.5)),
            with("output", json!("1")),
            json!({"schemaVersion": 1, "requests": 1, "input": 1, "output": 1, "cacheRead": 1}),
            with("cacheRead", json!(null)),
            with("cacheWrite", json!(1.5)),
            json!({"schemaVersion": 1, "requests": 0, "input": 1, "output": 0}),
        ];
        let mut seen = Vec::new();
        for c in &cases {
            let why = check_forge_nested_usage(c).expect_err("malformed");
            assert!(INVALID_REASONS.contains(&why), "{why}");
            seen.push(why);
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), INVALID_REASONS.len());
    }

    #[test]
    fn accepts_the_contract() {
        assert_eq!(
            parse_forge_nested_usage(&valid()),
            Some(ForgeNestedUsage {
                requests: 2.0,
                input: 3.0,
                output: 4.0,
                cache: Some((5.0, 6.0))
            })
        );
        let zero = json!({"schemaVersion": 1, "requests": 0, "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0});
        assert!(parse_forge_nested_usage(&zero).is_some());
        let no_cache = json!({"schemaVersion": 1, "requests": 1, "input": 2, "output": 3});
        assert_eq!(parse_forge_nested_usage(&no_cache).unwrap().cache, None);
        // 1.0 is the integer 1 in JavaScript.
        assert!(parse_forge_nested_usage(
            &json!({"schemaVersion": 1.0, "requests": 1.0, "input": 0, "output": 0})
        )
        .is_some());
    }

    #[test]
    fn rejects_malformed_reports() {
        let mut no_read = valid();
        no_read.as_object_mut().unwrap().remove("cacheRead");
        let mut no_write = valid();
        no_write.as_object_mut().unwrap().remove("cacheWrite");
        let invalid = [
            with("requests", json!(0)),
            json!({"schemaVersion": 1, "requests": 0, "input": 1, "output": 0}),
            with("requests", json!(-1)),
            with("input", json!(-1)),
            with("output", Value::Null), // NaN serialises as null
            with("cacheRead", json!(1e300 * 10.0)),
            with("requests", json!(1.5)),
            no_read,
            no_write,
            with("schemaVersion", json!(2)),
            with("extra", json!(true)),
            with("cacheRead", Value::Null),
            with("requests", json!(9_007_199_254_740_992u64)),
            with("input", json!("3")),
            json!([]),
            json!(null),
            json!(0),
            json!("x"),
        ];
        for v in invalid {
            assert_eq!(parse_forge_nested_usage(&v), None, "{v}");
        }
    }
}
