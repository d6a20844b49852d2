//! Where Pi keeps its sessions: `$PI_CODING_AGENT_DIR/sessions` when that variable is set and
//! not empty, else `~/.pi/agent/sessions` (pi-coding-agent's `getAgentDir()` + `sessions`).

use std::path::PathBuf;

/// Pi's sessions directory, or `None` when neither `PI_CODING_AGENT_DIR` nor `HOME` is set.
pub fn pi_sessions_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("sessions"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".pi/agent/sessions"))
}
