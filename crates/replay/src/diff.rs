//! Structural JSON diff: added, removed and changed values named by JSON path.
//!
//! [`diff`] walks two [`Value`]s in step. Objects are compared key by key (the left side's key
//! order first, then keys only on the right). Arrays are aligned with a Myers diff over the
//! serialized elements, so one inserted message shows as one addition instead of a cascade of
//! changes; replaced runs of equal length are compared element by element. Paths look like
//! `$.messages[3].content[0].text`: for removed values the index is the left side's, for added and
//! changed values the right side's.
//!
//! [`render_text`] prints a [`Diff`] for people (long or multi-line strings as unified text diffs,
//! ANSI colour only when asked), [`render_json`] for machines.

use std::fmt::Write as _;

use forge_replay_model::json;
use serde_json::{json, Map, Value};
use similar::{capture_diff_slices, Algorithm, ChangeTag, DiffOp, TextDiff};

/// Strings at least this long (UTF-8 bytes) are shown as unified text diffs.
const LONG_STRING: usize = 80;

/// One difference between the left (expected) and right (actual) value.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Present only on the right.
    Added { path: String, value: Value },
    /// Present only on the left.
    Removed { path: String, value: Value },
    /// Present on both sides with different values (at least one side not a container of the
    /// same kind).
    Changed {
        path: String,
        from: Value,
        to: Value,
    },
}

impl Change {
    /// The JSON path of the change.
    pub fn path(&self) -> &str {
        match self {
            Change::Added { path, .. }
            | Change::Removed { path, .. }
            | Change::Changed { path, .. } => path,
        }
    }

    /// `added`, `removed` or `changed`.
    pub fn op(&self) -> &'static str {
        match self {
            Change::Added { .. } => "added",
            Change::Removed { .. } => "removed",
            Change::Changed { .. } => "changed",
        }
    }
}

/// The changes between two values, in document order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diff {
    pub changes: Vec<Change>,
}

impl Diff {
    /// True when the two values were equal.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The first differing path, if any.
    pub fn first_path(&self) -> Option<&str> {
        self.changes.first().map(Change::path)
    }
}

/// Compares `left` (expected) with `right` (actual).
pub fn diff(left: &Value, right: &Value) -> Diff {
    let mut out = Vec::new();
    let mut path = String::from("$");
    walk(left, right, &mut path, &mut out);
    Diff { changes: out }
}

fn walk(a: &Value, b: &Value, path: &mut String, out: &mut Vec<Change>) {
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => walk_object(ma, mb, path, out),
        (Value::Array(va), Value::Array(vb)) => walk_array(va, vb, path, out),
        _ => {
            if !values_equal(a, b) {
                out.push(Change::Changed {
                    path: path.clone(),
                    from: a.clone(),
                    to: b.clone(),
                });
            }
        }
    }
}

/// Equality with JavaScript number semantics (`1` and `1.0` are the same double).
fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || json::number_to_f64(x) == json::number_to_f64(y)
        }
        _ => a == b,
    }
}

fn walk_object(
    ma: &Map<String, Value>,
    mb: &Map<String, Value>,
    path: &mut String,
    out: &mut Vec<Change>,
) {
    for (k, va) in ma {
        let len = path.len();
        push_key(path, k);
        match mb.get(k) {
            Some(vb) => walk(va, vb, path, out),
            None => out.push(Change::Removed {
                path: path.clone(),
                value: va.clone(),
            }),
        }
        path.truncate(len);
    }
    for (k, vb) in mb {
        if !ma.contains_key(k) {
            let len = path.len();
            push_key(path, k);
            out.push(Change::Added {
                path: path.clone(),
                value: vb.clone(),
            });
            path.truncate(len);
        }
    }
}

fn walk_array(va: &[Value], vb: &[Value], path: &mut String, out: &mut Vec<Change>) {
    if va.len() == vb.len() && va.len() <= 1 {
        for (i, (x, y)) in va.iter().zip(vb).enumerate() {
            with_index(path, i, |p| walk(x, y, p, out));
        }
        return;
    }
    let ka: Vec<String> = va.iter().map(json::stringify).collect();
    let kb: Vec<String> = vb.iter().map(json::stringify).collect();
    for op in capture_diff_slices(Algorithm::Myers, &ka, &kb) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => removed_run(va, old_index, old_index + old_len, path, out),
            DiffOp::Insert {
                new_index, new_len, ..
            } => added_run(vb, new_index, new_index + new_len, path, out),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let common = old_len.min(new_len);
                let pairs = va[old_index..old_index + common]
                    .iter()
                    .zip(&vb[new_index..new_index + common]);
                for (k, (x, y)) in pairs.enumerate() {
                    with_index(path, new_index + k, |p| walk(x, y, p, out));
                }
                removed_run(va, old_index + common, old_index + old_len, path, out);
                added_run(vb, new_index + common, new_index + new_len, path, out);
            }
        }
    }
}

fn removed_run(va: &[Value], from: usize, to: usize, path: &mut String, out: &mut Vec<Change>) {
    for (i, value) in va.iter().enumerate().take(to).skip(from) {
        with_index(path, i, |p| {
            out.push(Change::Removed {
                path: p.clone(),
                value: value.clone(),
            })
        });
    }
}

fn added_run(vb: &[Value], from: usize, to: usize, path: &mut String, out: &mut Vec<Change>) {
    for (j, value) in vb.iter().enumerate().take(to).skip(from) {
        with_index(path, j, |p| {
            out.push(Change::Added {
                path: p.clone(),
                value: value.clone(),
            })
        });
    }
}

fn with_index(path: &mut String, i: usize, f: impl FnOnce(&mut String)) {
    let len = path.len();
    let _ = write!(path, "[{i}]");
    f(path);
    path.truncate(len);
}

/// Appends `.key` or `["key"]` (when the key is not an identifier).
fn push_key(path: &mut String, key: &str) {
    let ident = !key.is_empty()
        && key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        path.push('.');
        path.push_str(key);
    } else {
        path.push('[');
        json::write_string(path, key);
        path.push(']');
    }
}

/// The diff as it may be shown ([`forge_replay_model::redact`]): a change at or under a secret
/// key shows `"[redacted]"` on both sides (the change itself is still reported), every other
/// value is redacted as all output is. The comparison is made before, on the real values.
pub fn redacted(d: &Diff) -> Diff {
    use forge_replay_model::redact::{is_secret_key, redact_value, REDACTED};
    let shown = |path: &str, v: &Value| {
        if path_keys(path).iter().any(|k| is_secret_key(k)) {
            Value::String(REDACTED.into())
        } else {
            redact_value(v)
        }
    };
    Diff {
        changes: d
            .changes
            .iter()
            .map(|c| match c {
                Change::Added { path, value } => Change::Added {
                    path: path.clone(),
                    value: shown(path, value),
                },
                Change::Removed { path, value } => Change::Removed {
                    path: path.clone(),
                    value: shown(path, value),
                },
                Change::Changed { path, from, to } => Change::Changed {
                    path: path.clone(),
                    from: shown(path, from),
                    to: shown(path, to),
                },
            })
            .collect(),
    }
}

/// The object keys along a path written by [`push_key`] (`$.a["b c"][3].d` → `a`, `b c`, `d`).
fn path_keys(path: &str) -> Vec<String> {
    let b = path.as_bytes();
    let mut keys = Vec::new();
    let mut i = usize::from(b.first() == Some(&b'$'));
    while i < b.len() {
        match b[i] {
            b'.' => {
                let n = b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$'))
                    .count();
                keys.push(path[i + 1..i + 1 + n].to_string());
                i += 1 + n;
            }
            b'[' if b.get(i + 1) == Some(&b'"') => {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                match json::parse(&path[i + 1..(end + 1).min(b.len())]) {
                    Ok(Value::String(k)) => keys.push(k),
                    _ => keys.push(path[i + 2..end].to_string()),
                }
                i = end + 2;
            }
            _ => i += 1,
        }
    }
    keys
}

/// Options for [`render_text`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    /// Emit ANSI colours (only when the output is a terminal).
    pub color: bool,
    /// Stop after this many changes (0 = all).
    pub max_changes: usize,
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// Renders a diff for people: one block per change, long strings as unified text diffs.
pub fn render_text(d: &Diff, opts: RenderOptions) -> String {
    let mut s = String::new();
    let paint = |s: &mut String, colour: &str, text: &str| {
        if opts.color {
            let _ = write!(s, "{colour}{text}{RESET}");
        } else {
            s.push_str(text);
        }
    };
    let limit = if opts.max_changes == 0 {
        usize::MAX
    } else {
        opts.max_changes
    };
    for c in d.changes.iter().take(limit) {
        match c {
            Change::Added { path, value } => {
                paint(&mut s, GREEN, &format!("+ {path}: {}", short(value)));
                s.push('\n');
            }
            Change::Removed { path, value } => {
                paint(&mut s, RED, &format!("- {path}: {}", short(value)));
                s.push('\n');
            }
            Change::Changed { path, from, to } => {
                paint(&mut s, YELLOW, &format!("~ {path}"));
                s.push('\n');
                match (from, to) {
                    (Value::String(x), Value::String(y)) if is_long(x) || is_long(y) => {
                        let td = TextDiff::from_lines(x.as_str(), y.as_str());
                        for hunk in td.unified_diff().context_radius(2).iter_hunks() {
                            paint(&mut s, CYAN, &format!("    {}", hunk.header()));
                            s.push('\n');
                            for change in hunk.iter_changes() {
                                let (sign, colour) = match change.tag() {
                                    ChangeTag::Delete => ("-", RED),
                                    ChangeTag::Insert => ("+", GREEN),
                                    ChangeTag::Equal => (" ", ""),
                                };
                                let line = change.value();
                                let line = line.strip_suffix('\n').unwrap_or(line);
                                let text = format!("    {sign}{line}");
                                if colour.is_empty() {
                                    s.push_str(&text);
                                } else {
                                    paint(&mut s, colour, &text);
                                }
                                s.push('\n');
                                if change.missing_newline() {
                                    s.push_str("    \\ No newline at end of text\n");
                                }
                            }
                        }
                    }
                    _ => {
                        paint(&mut s, RED, &format!("    - {}", short(from)));
                        s.push('\n');
                        paint(&mut s, GREEN, &format!("    + {}", short(to)));
                        s.push('\n');
                    }
                }
            }
        }
    }
    if d.changes.len() > limit {
        let _ = writeln!(s, "… {} more changes", d.changes.len() - limit);
    }
    s
}

fn is_long(s: &str) -> bool {
    s.len() >= LONG_STRING || s.contains('\n')
}

/// One-line JSON, cut at 200 characters.
fn short(v: &Value) -> String {
    let text = json::stringify(v);
    if text.chars().count() > 200 {
        let cut: String = text.chars().take(200).collect();
        format!("{cut}… ({} bytes)", text.len())
    } else {
        text
    }
}

/// What `diff A B` prints for people: `equal`, or the two files' names (`--- a`, `+++ b`), the
/// changes of `shown` (the diff as it may be shown, its secrets redacted) and how many there are.
pub fn report_text(a: &std::path::Path, b: &std::path::Path, shown: &Diff, color: bool) -> String {
    if shown.is_empty() {
        return "equal\n".to_string();
    }
    let opts = RenderOptions {
        color,
        max_changes: 0,
    };
    let changes = forge_replay_model::text::count(shown.changes.len(), "change", "changes");
    format!(
        "--- {}\n+++ {}\n{}{changes}\n",
        a.display(),
        b.display(),
        render_text(shown, opts)
    )
}

/// Renders a diff as `{"equal", "changes": [{"op","path","value"|"from","to"}]}`.
pub fn render_json(d: &Diff) -> Value {
    let changes: Vec<Value> = d
        .changes
        .iter()
        .map(|c| match c {
            Change::Added { path, value } => json!({"op": "added", "path": path, "value": value}),
            Change::Removed { path, value } => {
                json!({"op": "removed", "path": path, "value": value})
            }
            Change::Changed { path, from, to } => {
                json!({"op": "changed", "path": path, "from": from, "to": to})
            }
        })
        .collect();
    json!({"equal": d.is_empty(), "changes": changes})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_both_files_and_counts_the_changes() {
        let (a, b) = (
            std::path::Path::new("a.json"),
            std::path::Path::new("b.json"),
        );
        assert_eq!(report_text(a, b, &Diff::default(), false), "equal\n");
        let d = diff(&json!({"x": 1}), &json!({"x": 2}));
        let text = report_text(a, b, &d, false);
        assert!(text.starts_with("--- a.json\n+++ b.json\n"), "{text}");
        assert!(
            text.ends_with("\n1 change\n") || text.ends_with("1 change\n"),
            "{text}"
        );
    }

    #[test]
    fn equal_values_have_no_changes() {
        let a = json!({"a": [1, 2, {"b": "x"}], "n": 1.0});
        let b = json!({"a": [1, 2, {"b": "x"}], "n": 1});
        assert!(diff(&a, &b).is_empty());
    }

    #[test]
    fn names_paths_of_nested_changes() {
        let a =
            json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]});
        let b =
            json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "ho"}]}]});
        let d = diff(&a, &b);
        assert_eq!(d.first_path(), Some("$.messages[0].content[0].text"));
        assert_eq!(d.changes[0].op(), "changed");
    }

    #[test]
    fn inserted_array_element_is_one_addition() {
        let a = json!({"m": ["a", "b", "c", "d"]});
        let b = json!({"m": ["a", "x", "b", "c", "d"]});
        let d = diff(&a, &b);
        assert_eq!(
            d.changes,
            vec![Change::Added {
                path: "$.m[1]".into(),
                value: json!("x")
            }]
        );
    }

    #[test]
    fn removed_and_added_keys() {
        let a = json!({"a": 1, "weird key": 2});
        let b = json!({"a": 1, "c": 3});
        let d = diff(&a, &b);
        assert_eq!(d.changes[0].path(), "$[\"weird key\"]");
        assert_eq!(d.changes[0].op(), "removed");
        assert_eq!(d.changes[1].path(), "$.c");
        assert_eq!(d.changes[1].op(), "added");
    }

    #[test]
    fn long_strings_render_as_unified_diff() {
        let a = json!({"s": "line one\nline two\nline three\n"});
        let b = json!({"s": "line one\nline 2\nline three\n"});
        let text = render_text(&diff(&a, &b), RenderOptions::default());
        assert!(text.contains("~ $.s"), "{text}");
        assert!(text.contains("    -line two"), "{text}");
        assert!(text.contains("    +line 2"), "{text}");
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn colour_only_when_asked() {
        let d = diff(&json!(1), &json!(2));
        let text = render_text(
            &d,
            RenderOptions {
                color: true,
                max_changes: 0,
            },
        );
        assert!(text.contains('\x1b'));
    }

    #[test]
    fn redacted_diffs_hide_both_sides_of_a_secret() {
        let a = json!({"headers": {"Authorization": "Bearer one"}, "args": {"x-api-key": "a"},
                       "m": [{"weird key": {"apiKey": "old"}}], "text": "hi", "n": {"password": "p1"}});
        let b = json!({"headers": {"Authorization": "Bearer two"}, "args": {"x-api-key": "b"},
                       "m": [{"weird key": {"apiKey": "new"}}], "text": "ho", "n": {}});
        let d = diff(&a, &b);
        assert_eq!(d.changes.len(), 5);
        let r = redacted(&d);
        let text = render_text(&r, RenderOptions::default());
        for secret in ["one", "two", "\"a\"", "\"b\"", "old", "new", "p1"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(text.contains("~ $.headers.Authorization"), "{text}");
        assert!(text.contains("~ $.m[0][\"weird key\"].apiKey"), "{text}");
        assert!(text.contains("\"ho\""), "{text}");
        assert_eq!(path_keys("$.a[\"b\\\"c\"][3].d"), ["a", "b\"c", "d"]);
    }

    #[test]
    fn replaced_runs_recurse() {
        let a = json!([{"k": 1}, {"k": 2}, {"k": 3}]);
        let b = json!([{"k": 1}, {"k": 5}, {"k": 3}]);
        let d = diff(&a, &b);
        assert_eq!(d.changes.len(), 1);
        assert_eq!(d.changes[0].path(), "$[1].k");
    }
}
