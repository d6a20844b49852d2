//! `assemble CASE`: a case file read as input ([`forge_replay_session::input`]: never a FIFO or
//! device), parsed ([`CaseFile::parse`]) and every request it holds assembled for a catalog
//! ([`assemble_case`], [`assemble_sequence`]). Each error names the file, and the request of a
//! sequence, before the cause.

use std::path::Path;

use forge_replay_model::error::chain as error_chain;
use forge_replay_model::release::PiRelease;
use forge_replay_wire::{
    assemble_case, assemble_sequence, AssembleError, Assembled, Case, CaseFile, Catalog, Step,
};
use serde_json::{json, Value};

/// Why a case file gives no request. Said by its message alone (the causes are part of it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaseFileError {
    #[error("{path}: cannot read: {cause}")]
    Read { path: String, cause: String },
    #[error("{path}: malformed case: {cause}")]
    Malformed { path: String, cause: String },
    /// pi-ai itself refuses the request (`at`: `request N: ` of a sequence, else empty).
    #[error("{path}: {at}pi-ai {release} refuses this request: {message}")]
    Refused {
        path: String,
        at: String,
        release: PiRelease,
        message: String,
    },
    #[error("{path}: {at}{cause}")]
    Assemble {
        path: String,
        at: String,
        cause: String,
    },
}

/// A case file's requests, assembled.
#[derive(Debug, Clone)]
pub enum AssembledCase {
    /// One request, with the case it was assembled from.
    Single(Box<(Case, Assembled)>),
    /// The requests of a sequence, in order.
    Sequence(Vec<Step>),
}

/// Reads and parses the case file at `path`.
pub fn read(path: &Path) -> Result<CaseFile, CaseFileError> {
    let shown = path.display().to_string();
    let text =
        forge_replay_session::input::read_to_string(path).map_err(|e| CaseFileError::Read {
            path: shown.clone(),
            cause: e.to_string(),
        })?;
    CaseFile::parse(&text).map_err(|e| CaseFileError::Malformed {
        path: shown,
        cause: e.to_string(),
    })
}

/// Assembles every request of `case` (read from `path`) as the catalog's release.
pub fn assemble(
    path: &Path,
    case: CaseFile,
    catalog: &Catalog,
) -> Result<AssembledCase, CaseFileError> {
    let release = catalog.release();
    let path = path.display().to_string();
    let failed = |at: String, e: AssembleError| match e {
        AssembleError::Rejected { message } => CaseFileError::Refused {
            path: path.clone(),
            at,
            release,
            message,
        },
        e => CaseFileError::Assemble {
            path: path.clone(),
            at,
            cause: error_chain(&e),
        },
    };
    match case {
        CaseFile::Sequence(mut seq) => {
            seq.pi = Some(release);
            let steps = assemble_sequence(&seq, catalog).map_err(|e| failed(String::new(), e))?;
            let mut requests = Vec::with_capacity(steps.len());
            for (i, step) in steps.into_iter().enumerate() {
                requests.push(step.map_err(|e| failed(format!("request {i}: "), e))?);
            }
            Ok(AssembledCase::Sequence(requests))
        }
        CaseFile::Single(mut case) => {
            case.pi = Some(release);
            let assembled = assemble_case(&case, catalog).map_err(|e| failed(String::new(), e))?;
            Ok(AssembledCase::Single(Box::new((case, assembled))))
        }
    }
}

impl AssembledCase {
    /// `{"api", "payload", "wire"}` of one request ([`Assembled::to_json`]), or of a sequence
    /// `{"api", "requests": [...]}` ([`Step::to_json`]).
    pub fn to_json(&self) -> Value {
        match self {
            AssembledCase::Single(single) => single.1.to_json(),
            AssembledCase::Sequence(steps) => {
                let api = steps.first().map_or("", |s| s.assembled.api.name());
                let requests: Vec<Value> = steps.iter().map(Step::to_json).collect();
                json!({ "api": api, "requests": requests })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_or_malformed_case_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing.case.json");
        let err = read(&missing).unwrap_err();
        assert!(matches!(&err, CaseFileError::Read { .. }), "{err}");
        assert!(err
            .to_string()
            .starts_with(&format!("{}: cannot read: ", missing.display())));
        let bad = tmp.path().join("bad.case.json");
        std::fs::write(&bad, "{").unwrap();
        let err = read(&bad).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: malformed case: ", bad.display())),
            "{err}"
        );
    }

    #[test]
    fn a_refusal_names_the_release_and_the_request() {
        let err = CaseFileError::Refused {
            path: "c.json".into(),
            at: "request 1: ".into(),
            release: PiRelease::DEFAULT,
            message: "no".into(),
        };
        assert_eq!(
            err.to_string(),
            "c.json: request 1: pi-ai 0.87.1 refuses this request: no"
        );
    }
}
