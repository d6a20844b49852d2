//! Effective tool computation (spec §5.10): preset policy as a ceiling, capability patches in
//! activation order, removal always wins.

use crate::resource::ToolPatch;

/// A preset's tool policy `{allow?, deny?, initial?}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    pub allow: Option<Vec<String>>,
    pub deny: Option<Vec<String>>,
    pub initial: Option<Vec<String>>,
}

impl ToolPolicy {
    fn allow_effective(&self) -> bool {
        self.allow
            .as_ref()
            .is_some_and(|a| a.iter().any(|p| p != "*"))
    }

    /// `hasResourcePolicy(P)`: `allow` has a pattern other than `"*"`, or `deny` is non-empty.
    pub fn has_resource_policy(&self) -> bool {
        self.allow_effective() || self.deny.as_ref().is_some_and(|d| !d.is_empty())
    }

    /// `applyResourcePolicy(names, P)`.
    pub fn apply(&self, names: Vec<String>) -> Vec<String> {
        if !self.has_resource_policy() {
            return names;
        }
        if self.allow_effective() {
            let allow = self.allow.as_deref().unwrap_or_default();
            names
                .into_iter()
                .filter(|n| allow.iter().any(|p| pattern_matches(p, n)))
                .collect()
        } else {
            let deny = self.deny.as_deref().unwrap_or_default();
            names
                .into_iter()
                .filter(|n| !deny.iter().any(|p| pattern_matches(p, n)))
                .collect()
        }
    }
}

/// Tool pattern: `"*"` = all; no `*` = exact (case-sensitive); else an anchored glob where `*`
/// matches any run and everything else is literal.
pub fn pattern_matches(pattern: &str, name: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    if !pattern.contains('*') {
        return pattern == name;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = name;
    let last = parts.len() - 1;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == last {
            return rest.ends_with(part);
        } else if let Some(at) = rest.find(part) {
            rest = &rest[at + part.len()..];
        } else {
            return false;
        }
    }
    rest.is_empty()
}

/// `computeEffective(P, baseline)` with registered tools `registered` (`None` or empty = treat
/// every name as registered: offline replay does not know Pi's tool registry).
pub fn compute_effective(
    policy: &ToolPolicy,
    baseline: &[String],
    registered: Option<&[String]>,
    patches: &[&ToolPatch],
) -> Vec<String> {
    let registered = registered.filter(|r| !r.is_empty());
    let known = |n: &str| registered.is_none_or(|r| r.iter().any(|x| x == n));
    let source: Vec<String> = baseline.iter().filter(|n| known(n)).cloned().collect();
    let base = if let Some(initial) = &policy.initial {
        initial.iter().filter(|n| known(n)).cloned().collect()
    } else if policy.has_resource_policy() {
        let allow_all_registered = policy
            .allow
            .as_ref()
            .is_some_and(|a| !a.is_empty() && !a.iter().any(|p| p == "*"));
        let pool = match (allow_all_registered, registered) {
            (true, Some(r)) => r.to_vec(),
            _ => source,
        };
        policy.apply(pool)
    } else {
        source
    };
    let mut eff = base;
    for p in patches {
        for n in &p.add {
            if known(n) && !eff.contains(n) {
                eff.push(n.clone());
            }
        }
    }
    let removed: Vec<&String> = patches.iter().flat_map(|p| p.remove.iter()).collect();
    let mut res: Vec<String> = eff.into_iter().filter(|n| !removed.contains(&n)).collect();
    if policy.has_resource_policy() {
        res = policy.apply(res);
        res.retain(|n| !removed.contains(&n));
    }
    res
}

/// `baseline' = baseline ∪ (current − lastApplied) − (lastApplied − current)` (baseline order,
/// then newly adopted current names).
pub fn reconcile_baseline(
    baseline: &[String],
    current: &[String],
    last_applied: &[String],
) -> Vec<String> {
    let dropped: Vec<&String> = last_applied
        .iter()
        .filter(|n| !current.contains(n))
        .collect();
    let mut out: Vec<String> = baseline
        .iter()
        .filter(|n| !dropped.contains(n))
        .cloned()
        .collect();
    for n in current {
        if !last_applied.contains(n) && !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_are_anchored() {
        assert!(pattern_matches("gr*", "grep"));
        assert!(pattern_matches("*ep", "grep"));
        assert!(pattern_matches("g*e*p", "grep"));
        assert!(!pattern_matches("g*x", "grep"));
        assert!(!pattern_matches("rep", "grep"));
        assert!(pattern_matches("a.b*", "a.bc"));
        assert!(!pattern_matches("a.b*", "axbc"));
    }
}
