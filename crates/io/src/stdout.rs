//! Standard output as a writer whose errors name it: `stdout: No space left on device`, where
//! a bare OS error would leave the reader guessing which stream or file failed.

use std::io::{StdoutLock, Write};

/// Locked stdout whose write errors name it (`stdout: No space left on device`), keeping the
/// OS error's kind (a broken pipe is still recognised) and the OS error as the source.
pub struct Stdout(StdoutLock<'static>);

impl Stdout {
    /// Locked stdout, unbuffered (a caller that redacts wraps it).
    pub fn locked() -> Stdout {
        Stdout(std::io::stdout().lock())
    }
}

/// The failing stream of a [`Stdout`] write error; its source is the OS error.
#[derive(Debug)]
struct StdoutError(std::io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout")
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// `e` named as stdout's, of the same kind.
fn named(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), StdoutError(e))
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(named)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.write_all(buf).map_err(named)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_error_keeps_its_kind_and_its_cause() {
        let e = named(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
        assert_eq!(e.to_string(), "stdout");
        let cause = std::error::Error::source(e.get_ref().unwrap()).unwrap();
        assert_eq!(cause.to_string(), "broken pipe");
    }
}
