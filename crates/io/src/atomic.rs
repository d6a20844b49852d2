//! The one atomic file writer: a temporary file in the target's directory, `fsync`, rename.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use crate::temp::{clean_once, fresh_id, temp_name};
use crate::WriteError;

/// The directory a path is written in (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Flushes a directory's entries to disk (best effort: not every platform can open a directory).
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

/// A temporary path beside `path` (`w` role), after cleaning the directory's stale entries.
fn prepare(path: &Path) -> Result<(PathBuf, PathBuf), WriteError> {
    let dir = parent_dir(path);
    std::fs::create_dir_all(&dir).map_err(WriteError::io(&dir))?;
    clean_once(&dir);
    let label = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    let tmp = dir.join(temp_name(&fresh_id(), "w", &label));
    Ok((dir, tmp))
}

/// Renames a finished temporary file over `path`, or removes it when writing failed.
fn finish<E: From<WriteError>>(
    path: &Path,
    dir: &Path,
    tmp: &Path,
    result: Result<(), E>,
) -> Result<(), E> {
    let result = result.and_then(|()| {
        // Files written by other code (write_atomic_via) are flushed here.
        let f = File::open(tmp).map_err(WriteError::io(path))?;
        f.sync_all().map_err(WriteError::io(path))?;
        std::fs::rename(tmp, path).map_err(WriteError::io(path))?;
        sync_dir(dir);
        Ok(())
    });
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    result
}

/// Whether a file could be written at `path`, without writing or creating anything (for a
/// command to refuse a bad output before it does its work, so a failure never leaves some of its
/// outputs written): refused when `path` is a directory, or when the nearest existing ancestor
/// is not a directory. Whatever this lets through can still fail when written (permissions, a
/// full disk).
pub fn check_file_target(path: &Path) -> Result<(), WriteError> {
    let refuse = |msg: String| {
        Err(WriteError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(msg),
        })
    };
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return refuse("is a directory".into());
    }
    let mut ancestor = parent_dir(path);
    loop {
        match std::fs::metadata(&ancestor) {
            Ok(m) if m.is_dir() => return Ok(()),
            Ok(_) => return refuse(format!("{} is not a directory", ancestor.display())),
            Err(_) => match ancestor.parent() {
                Some(up) if !up.as_os_str().is_empty() => ancestor = up.to_path_buf(),
                _ => return Ok(()),
            },
        }
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory (created with its
/// parents), flushed to disk, then renamed over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_with(path, |w| w.write_all(bytes).map_err(WriteError::io(path)))
}

/// [`write_atomic`] for content produced by a writer function (streamed exports).
pub fn write_atomic_with<E: From<WriteError>>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<(), E> {
    let (dir, tmp) = prepare(path)?;
    let result = (|| {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(WriteError::io(path))?;
        let mut w = BufWriter::with_capacity(256 * 1024, file);
        write(&mut w)?;
        w.flush().map_err(WriteError::io(path))?;
        Ok(())
    })();
    finish(path, &dir, &tmp, result)
}

/// [`write_atomic`] for libraries that only write to a path of their own (a plotting backend):
/// `write` is given the temporary path (it ends with the target's file name, extension included).
pub fn write_atomic_via<E: From<WriteError>>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let (dir, tmp) = prepare(path)?;
    let result = write(&tmp);
    finish(path, &dir, &tmp, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_replace_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/out.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(names(&dir.path().join("sub")), ["out.json"]);
    }

    #[test]
    fn a_failed_writer_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.csv");
        write_atomic(&p, b"old").unwrap();
        let r: Result<(), WriteError> = write_atomic_with(&p, |w| {
            w.write_all(b"half").unwrap();
            Err(WriteError::io(&p)(std::io::Error::other("boom")))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["out.csv"]);
    }

    #[test]
    fn via_gets_a_temporary_path_with_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("plot.svg");
        write_atomic_via(&p, |tmp: &Path| {
            assert!(tmp.to_string_lossy().ends_with("plot.svg"));
            assert_ne!(tmp, p);
            std::fs::write(tmp, "<svg/>").map_err(WriteError::io(tmp))
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "<svg/>");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stale_temporaries_are_removed_on_the_first_write() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(temp_name("4194304-0", "w", "out.json"));
        std::fs::write(&stale, "partial").unwrap();
        write_atomic(&dir.path().join("out.json"), b"x").unwrap();
        assert!(!stale.exists());
    }

    /// A target that can never be written (a directory, or below a file) is refused before
    /// anything is written; a new file in new directories is fine, and nothing is created.
    #[test]
    fn check_file_target_refuses_what_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_file_target(dir.path()).unwrap_err();
        assert_eq!(
            forge_replay_chain(&e),
            format!("cannot write {}: is a directory", dir.path().display())
        );
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        check_file_target(&file).unwrap();
        let below = file.join("sub/out.csv");
        let e = check_file_target(&below).unwrap_err();
        assert_eq!(
            forge_replay_chain(&e),
            format!(
                "cannot write {}: {} is not a directory",
                below.display(),
                file.display()
            )
        );
        let new = dir.path().join("a/b/out.csv");
        check_file_target(&new).unwrap();
        assert!(!dir.path().join("a").exists());
        check_file_target(Path::new("out-in-cwd.csv")).unwrap();
    }

    fn forge_replay_chain(e: &WriteError) -> String {
        let mut s = e.to_string();
        let mut cur = std::error::Error::source(e);
        while let Some(c) = cur {
            s.push_str(&format!(": {c}"));
            cur = c.source();
        }
        s
    }
}
