//! Opening input files without hanging: only regular files are read.
//!
//! Opening a FIFO for reading blocks until a writer appears, and reading a device or a socket
//! may never end, so every input forge-replay reads (sessions, cases, scenarios, catalogs,
//! capability files, goldens, files found by a directory walk) goes through [`open`] or
//! [`read`]: the path is checked with `stat` *before* it is opened, opened non-blocking where
//! the platform allows, and checked again on the open handle (so a path swapped in between is
//! still refused). The refusal is an [`std::io::Error`] of kind `InvalidInput` whose message
//! names the kind of file (`is a FIFO (named pipe), not a regular file`), so callers keep their
//! own error types and report it with the path. Directories are left to the operating system
//! (reading one fails as it always did), so existing messages for them do not change.

use std::fs::{File, FileType, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// What kind of non-regular file this is (`None` for a regular file or a directory).
pub fn special_kind(ft: &FileType) -> Option<&'static str> {
    if ft.is_file() || ft.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
        if ft.is_char_device() {
            return Some("a character device");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
    }
    Some("not a regular file")
}

/// The error for a special file.
fn refusal(kind: &str) -> io::Error {
    let what = if kind == "not a regular file" {
        "is not a regular file".to_string()
    } else {
        format!("is {kind}, not a regular file")
    };
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// Whether `e` is the refusal of a special file by [`check`], [`open`] or [`read`].
pub fn is_refusal(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::InvalidInput && e.to_string().contains("not a regular file")
}

/// `stat(path)` (following symlinks) and the refusal of a FIFO, socket or device.
pub fn check(path: &Path) -> io::Result<Metadata> {
    let meta = std::fs::metadata(path)?;
    if let Some(kind) = special_kind(&meta.file_type()) {
        return Err(refusal(kind));
    }
    Ok(meta)
}

/// `O_NONBLOCK`, where it is known without libc: opening a FIFO that slipped past the first
/// check then returns at once instead of waiting for a writer.
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "loongarch64",
        target_arch = "s390x"
    )
))]
const O_NONBLOCK: Option<i32> = Some(0o4000);
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
const O_NONBLOCK: Option<i32> = Some(0x4);
#[cfg(not(any(
    all(
        any(target_os = "linux", target_os = "android"),
        any(
            target_arch = "x86_64",
            target_arch = "x86",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64",
            target_arch = "loongarch64",
            target_arch = "s390x"
        )
    ),
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
)))]
const O_NONBLOCK: Option<i32> = None;

/// Opens a file for reading; a FIFO, socket or device is refused before it is opened.
pub fn open(path: &Path) -> io::Result<File> {
    check(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    if let Some(flag) = O_NONBLOCK {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(flag);
    }
    #[cfg(not(unix))]
    let _ = O_NONBLOCK;
    let file = options.open(path)?;
    let ft = file.metadata()?.file_type();
    if let Some(kind) = special_kind(&ft) {
        return Err(refusal(kind));
    }
    Ok(file)
}

/// [`std::fs::read`] that refuses a FIFO, socket or device.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open(path)?;
    let mut out = Vec::new();
    file.read_to_end(&mut out)?;
    Ok(out)
}

/// [`std::fs::read_to_string`] that refuses a FIFO, socket or device, and says where a file
/// stops being UTF-8 (`invalid UTF-8 at line 3, column 7`).
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let bytes = read(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // The prefix is UTF-8: its lines and the characters of the last one place the bad byte.
        let text = std::str::from_utf8(valid).unwrap_or_default();
        let line = text.matches('\n').count() + 1;
        let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("invalid UTF-8 at line {line}, column {column}"),
        )
    })
}

/// The directories a walk has entered, by identity (device and inode on Unix, the canonical
/// path elsewhere), so a walk that follows symlinks enters each directory once: a link back up
/// the tree (`sub/up -> ..`) is not walked until the path is too long, and two links to one
/// directory do not find its files twice. Every directory walk (`check`, `usage --corpus`,
/// `upgrade`, `report providers --sessions`, scenario directories) uses one.
#[derive(Debug, Default)]
pub struct VisitedDirs {
    seen: std::collections::HashSet<DirId>,
}

#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = std::path::PathBuf;

impl VisitedDirs {
    pub fn new() -> Self {
        Self::default()
    }

    /// True the first time `dir` (whatever path reaches it) is seen, false after; also true
    /// for a directory whose identity cannot be read (the walk reports it when it reads it).
    pub fn first_visit(&mut self, dir: &Path) -> bool {
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt as _;
            std::fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()))
        };
        #[cfg(not(unix))]
        let id = std::fs::canonicalize(dir).ok();
        match id {
            Some(id) => self.seen.insert(id),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "hi").unwrap();
        assert_eq!(read_to_string(&f).unwrap(), "hi");
        // A directory fails as std's read does, not as a refusal.
        let e = read(dir.path()).unwrap_err();
        assert!(!is_refusal(&e));
        assert_eq!(
            e.kind(),
            std::fs::read(dir.path()).unwrap_err().kind(),
            "{e}"
        );
        assert_eq!(
            read(&dir.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.json");
        std::fs::write(&p, b"{\n  \"a\": \"\xc3\xa9\xff\"\n}").unwrap();
        let e = read_to_string(&p).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(e.to_string(), "invalid UTF-8 at line 2, column 10");
        std::fs::write(&p, b"\xff").unwrap();
        assert_eq!(
            read_to_string(&p).unwrap_err().to_string(),
            "invalid UTF-8 at line 1, column 1"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_is_visited_once_whatever_path_reaches_it() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::os::unix::fs::symlink("..", sub.join("up")).unwrap();
        let mut v = VisitedDirs::new();
        assert!(v.first_visit(dir.path()));
        assert!(v.first_visit(&sub));
        assert!(!v.first_visit(&sub.join("up")), "the link back up");
        assert!(!v.first_visit(&sub.join("up/sub")));
        assert!(v.first_visit(&dir.path().join("missing")));
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused() {
        let e = read(Path::new("/dev/null")).unwrap_err();
        assert_eq!(e.to_string(), "is a character device, not a regular file");
    }
}
