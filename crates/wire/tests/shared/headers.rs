//! Which headers a comparison with pi-ai's goldens leaves out. Shared by the wire golden test
//! and the `upgrade` test in `crates/replay` (included with `#[path]`).

/// Headers the comparison leaves out: credentials (fixtures never record them) and the
/// machine-dependent `user-agent`.
pub fn unchecked_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "user-agent"
        || n == "authorization"
        || n == "x-api-key"
        || n == "api-key"
        || n == "x-goog-api-key"
        || n == "chatgpt-account-id"
        || ["key", "token", "secret", "credential", "auth"]
            .iter()
            .any(|w| n.contains(w))
}
