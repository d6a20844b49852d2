//! Error reporting shared by every crate.

use std::borrow::Cow;

/// An error and its `source()` chain on one line, `outer: inner: …`, as messages that name file,
/// line and cause are printed; a location a cause repeats is said once ([`once_located`]).
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(cause) = src {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        src = cause.source();
    }
    match once_located(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(shorter) => shorter,
    }
}

/// `<file>: <cause>`, unless the cause already starts with the file.
pub fn with_path(path: &std::path::Path, cause: &str) -> String {
    let shown = path.display().to_string();
    if cause.starts_with(&shown) {
        cause.to_string()
    } else {
        format!("{shown}: {cause}")
    }
}

/// An error chain (`outer: cause: cause`) whose causes repeat a location already said
/// (`file:5: entry 4: cannot build the context: file:5: cannot parse entry: …`) says it once.
/// A location is the line's first part (`file` or `file:5`) or any later part that is a
/// `file:LINE` without spaces; a later part that repeats one is dropped.
pub fn once_located(message: &str) -> Cow<'_, str> {
    let parts: Vec<&str> = message.split(": ").collect();
    let is_location = |k: usize, part: &str| {
        k == 0
            || part.rsplit_once(':').is_some_and(|(path, line)| {
                !path.is_empty()
                    && !path.contains(char::is_whitespace)
                    && !line.is_empty()
                    && line.bytes().all(|b| b.is_ascii_digit())
            })
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut kept: Vec<&str> = Vec::with_capacity(parts.len());
    for (k, part) in parts.iter().enumerate() {
        // The last part is the cause itself, never dropped.
        // A part that repeats a location said before is dropped, whether or not it has a line
        // (`file: cannot replay: file: cannot select the leaf: …`).
        if k + 1 < parts.len() && !part.is_empty() {
            if seen.contains(part) {
                continue;
            }
            if is_location(k, part) {
                seen.push(part);
            }
        }
        kept.push(part);
    }
    if kept.len() == parts.len() {
        Cow::Borrowed(message)
    } else {
        Cow::Owned(kept.join(": "))
    }
}

#[cfg(test)]
mod tests {
    use super::once_located;

    #[test]
    fn with_path_names_the_file_once() {
        let p = std::path::Path::new("a/s.jsonl");
        assert_eq!(super::with_path(p, "bad line"), "a/s.jsonl: bad line");
        assert_eq!(super::with_path(p, "a/s.jsonl:3: bad"), "a/s.jsonl:3: bad");
    }

    #[test]
    fn a_repeated_location_is_said_once() {
        assert_eq!(
            once_located("s.jsonl:5: entry 4: cannot build: s.jsonl:5: cannot parse entry: deep"),
            "s.jsonl:5: entry 4: cannot build: cannot parse entry: deep"
        );
        assert_eq!(
            once_located("cannot replay s.jsonl: s.jsonl:5: entry 4: x: s.jsonl:5: cannot parse"),
            "cannot replay s.jsonl: s.jsonl:5: entry 4: x: cannot parse"
        );
        // The file alone, repeated by a cause that has no line either.
        assert_eq!(
            once_located("s.jsonl: cannot replay the requests: s.jsonl: cannot select: no id"),
            "s.jsonl: cannot replay the requests: cannot select: no id"
        );
        assert_eq!(
            once_located("s.jsonl: error: s.jsonl: cannot read: s.jsonl: no such file"),
            "s.jsonl: error: cannot read: no such file"
        );
        // Different locations, and text that only looks like one, are kept as they are.
        let kept = "a.toml:3: b.json:3: step 2: column 3: x";
        assert_eq!(once_located(kept), kept);
        assert_eq!(once_located("no location"), "no location");
        assert_eq!(once_located("f: f"), "f: f");
    }

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
