//! Safe derived paths: names that come from input data never leave their root.
//!
//! forge-replay builds file and directory names from what it reads: a scenario's `name`, a model
//! id (as a slug), an entry id in a `replay --out` file name. Each one must be a single safe path
//! component ([`check_component`]) or a relative path of safe components ([`check_relative`]),
//! and the place it names must not lead out of its root through a symlink ([`check_inside`]).
//! The checks run before anything is written; a failure names the field and the value.
//!
//! A safe component is non-empty, not `.` or `..`, has no `/`, `\` or control character, does not
//! start with `.` (hidden names, and forge-replay's own temporary names, are reserved), and is
//! at most [`MAX_COMPONENT`] bytes (so a temporary name built from it still fits in the 255 bytes
//! file systems allow).

use std::path::{Component, Path, PathBuf};

/// Longest component accepted, in bytes.
pub const MAX_COMPONENT: usize = 200;

/// A derived name that is not safe to use as a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} {value:?} {reason}")]
pub struct UnsafePath {
    /// What the name is (`scenario name`, `model`, `entry id`, …).
    pub field: String,
    /// The name as given (cut to 120 characters).
    pub value: String,
    /// Why it is refused.
    pub reason: String,
}

fn unsafe_path(field: &str, value: &str, reason: impl Into<String>) -> UnsafePath {
    let mut shown: String = value.chars().take(120).collect();
    if shown.len() < value.len() {
        shown.push('…');
    }
    UnsafePath {
        field: field.to_string(),
        value: shown,
        reason: reason.into(),
    }
}

/// Checks that `value` is one safe path component (see the module docs).
pub fn check_component(field: &str, value: &str) -> Result<(), UnsafePath> {
    let bad = |reason: &str| Err(unsafe_path(field, value, reason));
    if value.is_empty() {
        return bad("is empty; it must be a file or directory name");
    }
    if value == "." || value == ".." {
        return bad("is `.` or `..`; it must name a file or directory of its own");
    }
    if value.contains('/') || value.contains('\\') {
        return bad("contains a path separator; it must be one file or directory name");
    }
    if value.chars().any(char::is_control) {
        return bad("contains a control character");
    }
    if value.starts_with('.') {
        return bad("starts with `.` (hidden and temporary names are reserved)");
    }
    if value.len() > MAX_COMPONENT {
        return Err(unsafe_path(
            field,
            value,
            format!(
                "is {} bytes long; at most {MAX_COMPONENT} are allowed",
                value.len()
            ),
        ));
    }
    Ok(())
}

/// Checks that `value` is a relative path of safe components separated by `/` (`a`, `group/a`)
/// and returns it as a path. Absolute paths, `.`, `..` and empty components are refused, so the
/// path stays inside whatever root it is joined to.
pub fn check_relative(field: &str, value: &str) -> Result<PathBuf, UnsafePath> {
    if value.is_empty() {
        return Err(unsafe_path(
            field,
            value,
            "is empty; it must be a file or directory name",
        ));
    }
    let p = Path::new(value);
    if value.starts_with('/')
        || value.starts_with('\\')
        || p.is_absolute()
        || p.components()
            .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
    {
        return Err(unsafe_path(
            field,
            value,
            "is an absolute path; it must be relative to its directory",
        ));
    }
    let mut out = PathBuf::new();
    for part in value.split('/') {
        check_component(field, part).map_err(|mut e| {
            e.value = unsafe_path(field, value, "").value;
            e.reason = if part == ".." {
                "escapes its directory with `..`".to_string()
            } else if part.is_empty() {
                "has an empty path component".to_string()
            } else {
                format!("has a component {part:?} that {}", e.reason)
            };
            e
        })?;
        out.push(part);
    }
    Ok(out)
}

/// Checks that `root.join(rel)` does not lead outside `root` through a symlink: the deepest part
/// of it that exists must resolve to a place inside the resolved `root`. `rel` must already have
/// passed [`check_relative`] (no `..`). A `root` that does not exist yet is fine.
pub fn check_inside(field: &str, root: &Path, rel: &Path) -> Result<(), UnsafePath> {
    let Ok(real_root) = root.canonicalize() else {
        return Ok(());
    };
    let mut at = root.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Err(_) => return Ok(()),
            Ok(_) => {
                let real = at.canonicalize().map_err(|e| {
                    unsafe_path(
                        field,
                        &rel.to_string_lossy(),
                        format!("cannot be resolved ({e})"),
                    )
                })?;
                if !real.starts_with(&real_root) {
                    return Err(unsafe_path(
                        field,
                        &rel.to_string_lossy(),
                        format!(
                            "leads outside {} through a symlink (to {})",
                            root.display(),
                            real.display()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// [`check_relative`] and [`check_inside`] in one: the checked path joined to `root`.
pub fn resolve_inside(field: &str, root: &Path, value: &str) -> Result<PathBuf, UnsafePath> {
    let rel = check_relative(field, value)?;
    check_inside(field, root, &rel)?;
    Ok(root.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components() {
        for ok in [
            "a",
            "01-read-first",
            "anthropic--claude-opus-4-8",
            "x.y",
            "é",
        ] {
            check_component("name", ok).unwrap();
        }
        for (bad, why) in [
            ("", "is empty"),
            (".", "`.` or `..`"),
            ("..", "`.` or `..`"),
            ("a/b", "path separator"),
            ("a\\b", "path separator"),
            ("/etc", "path separator"),
            ("a\nb", "control character"),
            ("a\0b", "control character"),
            (".hidden", "starts with `.`"),
            (".forge-replay-tmp.1-1.w.x", "starts with `.`"),
        ] {
            let e = check_component("name", bad).unwrap_err();
            assert!(e.to_string().contains(why), "{bad:?}: {e}");
        }
        let long = "x".repeat(MAX_COMPONENT + 1);
        let e = check_component("scenario name", &long).unwrap_err();
        assert!(e.to_string().contains("201 bytes long"), "{e}");
        assert!(e.to_string().starts_with("scenario name \"xxx"), "{e}");
        check_component("name", &"x".repeat(MAX_COMPONENT)).unwrap();
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            check_relative("name", "group/a").unwrap(),
            PathBuf::from("group/a")
        );
        for (bad, why) in [
            ("", "is empty"),
            ("/abs/dir", "absolute path"),
            ("\\abs", "absolute path"),
            ("../../x", "escapes its directory with `..`"),
            ("a/../b", "escapes its directory with `..`"),
            ("a/./b", "\".\""),
            (".", "\".\""),
            ("a//b", "empty path component"),
            ("a/", "empty path component"),
        ] {
            let e = check_relative("scenario name", bad).unwrap_err();
            assert!(e.to_string().contains(why), "{bad:?}: {e}");
            assert!(e.to_string().starts_with("scenario name "), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("inner")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("inner"), root.join("inlink")).unwrap();
        resolve_inside("name", &root, "inner/x").unwrap();
        resolve_inside("name", &root, "inlink/x").unwrap();
        resolve_inside("name", &root, "new/x").unwrap();
        let e = resolve_inside("name", &root, "link/x").unwrap_err();
        assert!(e.to_string().contains("through a symlink"), "{e}");
        // A root that does not exist yet has nothing to escape through.
        resolve_inside("name", &dir.path().join("missing"), "a").unwrap();
    }
}
