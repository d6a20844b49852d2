//! [T-PCW] prompt-cache warnings (spec §7).

use forge_replay_capability::warning::{
    common_prefix_len, format_prompt_cache_warning, WarningUsage,
};

#[test]
fn goldens() {
    assert_eq!(
        format_prompt_cache_warning("abcdefghijklmnopqrst", "abcdefghijDIFFERENT", Some(WarningUsage { cache_read: 42, reported: true })).unwrap(),
        "Switching will change the system prompt. Common prefix with current prompt: ~3 tokens (50%). The remaining ~2 tokens of history will be re-processed. Last request read ~42 tokens from cache."
    );
    assert_eq!(
        format_prompt_cache_warning("abcdefgh", "xyz", None).unwrap(),
        "Switching replaces the system prompt entirely; the full prompt prefix (~2 tokens) will be re-processed."
    );
    assert_eq!(format_prompt_cache_warning("same", "same", None), None);
    assert_eq!(common_prefix_len("system OLD", "system NEW"), 7);
    // Not reported: no suffix.
    assert!(!format_prompt_cache_warning(
        "ab",
        "ac",
        Some(WarningUsage {
            cache_read: 5,
            reported: false
        })
    )
    .unwrap()
    .contains("Last request"));
    // Code points, not UTF-16 units.
    assert_eq!(common_prefix_len("😀a", "😀b"), 1);
}
