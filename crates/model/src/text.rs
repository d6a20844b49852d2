//! Small helpers for text people read.

/// `1 file`, `2 files`, `0 files`: a count with its noun in the right number.
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// [`plural`] for a `usize` count.
pub fn count(n: usize, one: &str, many: &str) -> String {
    plural(n as u64, one, many)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1, "file", "files"), "1 file");
        assert_eq!(count(0, "file", "files"), "0 files");
        assert_eq!(plural(2u32, "error", "errors"), "2 errors");
    }
}
