//! Fuzz oracle `usage_scanner`: the usage crate's hand-written line scanner answers exactly as
//! its serde path does.
//!
//! [`forge_replay_usage::scan::parse_line`] runs the fast scanner and falls back to serde when the
//! scanner declines; [`forge_replay_usage::scan::parse_line_serde`] is serde alone. On every line
//! of the input (split on `\n`, decoded as Pi decodes a file) both must give the same record, or
//! the same error. Records are compared through `Debug`, which tells `-0` from `0`.
//!
//! Shared by `fuzz/fuzz_targets/usage_scanner.rs` and `crates/usage/tests/usage.rs`.

use forge_replay_usage::scan::{parse_line, parse_line_serde};

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    for (n, bytes) in data.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(bytes);
        if forge_replay_model::js::trim(&text).is_empty() {
            continue;
        }
        let line = u32::try_from(n + 1).unwrap_or(u32::MAX);
        let fast = parse_line(&text, line);
        let serde = parse_line_serde(&text, line);
        match (&fast, &serde) {
            (Ok(a), Ok(b)) => assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "the fast scanner differs from serde on line {line}: {text:?}"
            ),
            (Err(a), Err(b)) => assert_eq!(
                a.to_string(),
                b.to_string(),
                "different errors on line {line}: {text:?}"
            ),
            (Ok(a), Err(e)) => {
                panic!("the fast scanner accepted a line serde refuses ({e}): {a:?} from {text:?}")
            }
            (Err(e), Ok(b)) => {
                panic!("parse_line refused a line serde accepts ({e}): {b:?} from {text:?}")
            }
        }
    }
}
