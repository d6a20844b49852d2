//! Where Pi keeps its sessions: `$PI_CODING_AGENT_DIR/sessions` when that variable is set and
//! not empty, else `~/.pi/agent/sessions` (pi-coding-agent's `getAgentDir()` + `sessions`);
//! [`paths_or_pi_sessions`] is the default of the commands that read many sessions.

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

/// Why there is no sessions directory to read ([`paths_or_pi_sessions`]).
#[derive(Debug, thiserror::Error)]
pub enum SessionsDirError {
    #[error("{}: Pi's sessions directory does not exist (set PI_CODING_AGENT_DIR, or give session files or directories)", .0.display())]
    Missing(PathBuf),
    #[error("no sessions directory (set PI_CODING_AGENT_DIR or HOME, or give session files or directories)")]
    Unset,
}

/// The paths given, or else Pi's sessions directory ([`pi_sessions_dir`]), as the commands that
/// read many sessions (`check`, `upgrade`, `report providers --sessions`) default to it.
pub fn paths_or_pi_sessions(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SessionsDirError> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    match pi_sessions_dir() {
        Some(d) if d.is_dir() => Ok(vec![d]),
        Some(d) => Err(SessionsDirError::Missing(d)),
        None => Err(SessionsDirError::Unset),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_paths_are_kept_and_errors_name_the_directory() {
        let given = vec![PathBuf::from("a"), PathBuf::from("b/c.jsonl")];
        assert_eq!(paths_or_pi_sessions(&given).unwrap(), given);
        let missing = SessionsDirError::Missing(PathBuf::from("/x/sessions")).to_string();
        assert!(missing.starts_with("/x/sessions: Pi's sessions directory does not exist"));
    }
}
