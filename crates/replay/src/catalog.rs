//! The model catalog a command follows: a release's built-in catalog, with a user file
//! (`--catalog`, the shape of Pi's `models-store.json`) layered on top ([`load`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use forge_replay_model::release::PiRelease;
use forge_replay_wire::{Catalog, CatalogError};

/// Why the catalog cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadCatalogError {
    #[error("{}: cannot read catalog", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Bad(#[from] CatalogError),
}

/// `release`'s built-in catalog, with the user catalog at `user` layered on top when given.
pub fn load(
    release: PiRelease,
    user: Option<&Path>,
) -> Result<Cow<'static, Catalog>, LoadCatalogError> {
    let Some(path) = user else {
        return Ok(Cow::Borrowed(Catalog::builtin(release)));
    };
    let text = forge_replay_session::input::read_to_string(path).map_err(|source| {
        LoadCatalogError::Read {
            path: path.to_path_buf(),
            source,
        }
    })?;
    Ok(Cow::Owned(Catalog::with_user_file(
        release,
        &text,
        &path.display().to_string(),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_without_a_file_and_a_read_error_naming_the_file() {
        let c = load(PiRelease::DEFAULT, None).unwrap();
        assert!(matches!(c, Cow::Borrowed(_)));
        assert_eq!(c.release(), PiRelease::DEFAULT);
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.json");
        let e = load(PiRelease::DEFAULT, Some(&missing)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: cannot read catalog", missing.display())
        );
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "not json").unwrap();
        assert!(matches!(
            load(PiRelease::DEFAULT, Some(&bad)),
            Err(LoadCatalogError::Bad(_))
        ));
    }
}
