//! Error reporting shared by every crate.

/// An error and its `source()` chain on one line, `outer: inner: …`, as messages that name file,
/// line and cause are printed.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(cause) = src {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        src = cause.source();
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn causes_follow_the_message() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read x.jsonl")]
        struct Read(#[source] std::io::Error);
        assert_eq!(
            super::chain(&Read(std::io::Error::other("denied"))),
            "cannot read x.jsonl: denied"
        );
    }
}
