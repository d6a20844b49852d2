//! Prompt-cache warnings shown on `/preset use` and `/profile use` (spec §7).

/// The message when no prompt has been compiled yet.
pub const CANNOT_ESTIMATE: &str = "Switching may change the system prompt; prompt cache impact cannot be estimated until a request has been compiled.";

/// Usage of the last request, for the warning's suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarningUsage {
    pub cache_read: u64,
    /// `cacheStatus === "reported"`.
    pub reported: bool,
}

/// `commonPrefixLength(a, b)` in code points.
pub fn common_prefix_len(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

fn approx_tokens(chars: usize) -> u64 {
    if chars > 0 {
        (chars as u64).div_ceil(4).max(1)
    } else {
        0
    }
}

/// `formatPromptCacheWarning(current, next, usage)`; `None` when the prompts are identical.
pub fn format_prompt_cache_warning(
    current: &str,
    next: &str,
    usage: Option<WarningUsage>,
) -> Option<String> {
    if current == next {
        return None;
    }
    let cur_len = current.chars().count();
    let prefix = common_prefix_len(current, next);
    let current_tokens = approx_tokens(cur_len);
    let prefix_tokens = approx_tokens(prefix);
    let remaining = current_tokens.saturating_sub(prefix_tokens);
    let retention = if cur_len > 0 {
        ((prefix as f64 / cur_len as f64) * 100.0 + 0.5).floor()
    } else {
        0.0
    };
    let suffix = match usage {
        Some(u) if u.reported => format!(" Last request read ~{} tokens from cache.", u.cache_read),
        _ => String::new(),
    };
    Some(if prefix > 0 {
        format!(
            "Switching will change the system prompt. Common prefix with current prompt: ~{prefix_tokens} tokens ({retention}%). The remaining ~{remaining} tokens of history will be re-processed.{suffix}"
        )
    } else {
        format!(
            "Switching replaces the system prompt entirely; the full prompt prefix (~{current_tokens} tokens) will be re-processed.{suffix}"
        )
    })
}

/// `cacheStatus` of a request: reported iff it or an earlier request of the same
/// `provider/model` read or wrote cache.
pub fn cache_status_reported<'a>(
    requests: impl IntoIterator<Item = (&'a str, u64, u64)>,
    index: usize,
) -> bool {
    let reqs: Vec<(&str, u64, u64)> = requests.into_iter().collect();
    let Some(&(model, read, write)) = reqs.get(index) else {
        return false;
    };
    read > 0
        || write > 0
        || reqs[..index]
            .iter()
            .any(|(m, r, w)| *m == model && (*r > 0 || *w > 0))
}
