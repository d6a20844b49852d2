//! Bad input: each defect from issue 2 gives the warning or error Pi's behaviour implies, with
//! file, line and cause, and nothing panics.

use std::io::Write;
use std::path::{Path, PathBuf};

use forge_replay_session::{ReadError, Session, Severity};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
const USER: &str = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#;
const ASSISTANT: &str = r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"api":"x","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":2}}"#;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

fn diags_text(path: &Path) -> (Session, Vec<String>) {
    let (s, d) = Session::open(path).unwrap();
    let texts = d.iter().map(|d| d.display(path).to_string()).collect();
    (s, texts)
}

fn has(texts: &[String], needle: &str) -> bool {
    texts.iter().any(|t| t.contains(needle))
}

#[test]
fn truncated_last_line_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEADER}\n{USER}\n{}", &ASSISTANT[..60]);
    let p = write(dir.path(), "t.jsonl", text.as_bytes());
    let (s, d) = diags_text(&p);
    assert_eq!(s.entries().len(), 1);
    assert!(has(&d, "t.jsonl:3: warning: truncated last line"), "{d:?}");
    assert_eq!(s.context(s.default_leaf()).unwrap().messages.len(), 1);
}

#[test]
fn blank_and_non_json_lines_are_skipped_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEADER}\n\n   \t\n{USER}\nnot json at all\n{ASSISTANT}\n");
    let p = write(dir.path(), "b.jsonl", text.as_bytes());
    let (s, d) = diags_text(&p);
    assert_eq!(s.entries().len(), 2);
    assert!(has(&d, "b.jsonl:2: warning: blank line skipped"), "{d:?}");
    assert!(has(&d, "b.jsonl:3: warning: blank line skipped"), "{d:?}");
    assert!(has(&d, "b.jsonl:5: warning: line is not JSON"), "{d:?}");
    assert_eq!(s.entry(1).line(), 6);
}

#[test]
fn invalid_utf8_is_decoded_with_replacement_characters_as_node_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = format!("{HEADER}\n").into_bytes();
    // Bad bytes inside a JSON string: the line still parses (with U+FFFD), as in Node.
    bytes.extend_from_slice(
        br#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"#,
    );
    bytes.extend_from_slice(&[0xff, 0xc3]);
    bytes.extend_from_slice(b"y\",\"timestamp\":1}}\n");
    // Bad bytes outside a string: the line is not JSON and is skipped.
    bytes.extend_from_slice(&[0xfe, b'{', b'\n']);
    let p = write(dir.path(), "u.jsonl", &bytes);
    let (s, d) = diags_text(&p);
    assert!(has(&d, "u.jsonl:2: warning: invalid UTF-8"), "{d:?}");
    assert!(has(&d, "u.jsonl:3: warning: line is not JSON"), "{d:?}");
    let p = s.context(s.default_leaf()).unwrap();
    assert_eq!(p.messages[0]["content"], "x\u{fffd}\u{fffd}y");
}

#[test]
fn empty_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "e.jsonl", b"");
    let e = Session::open(&p).unwrap_err();
    assert!(matches!(e, ReadError::Empty { .. }));
    assert!(
        e.to_string()
            .contains("e.jsonl: empty file, not a pi session"),
        "{e}"
    );
}

#[test]
fn missing_header_is_not_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "h.jsonl",
        format!("\n{USER}\n{ASSISTANT}\n").as_bytes(),
    );
    let e = Session::open(&p).unwrap_err();
    assert!(
        e.to_string().contains(
            "h.jsonl:2: not a pi session: the first JSON line must be a `session` header with a string `id`, found an entry of type \"message\""
        ),
        "{e}"
    );
    let p = write(dir.path(), "h2.jsonl", br#"{"type":"session","id":7}"#);
    assert!(Session::open(&p)
        .unwrap_err()
        .to_string()
        .contains("without a string `id`"));
}

#[test]
fn version_4_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "v4.jsonl",
        br#"{"v":4,"kind":"header","id":"x","storageVersion":1,"createdAt":0,"cwd":"/"}
"#,
    );
    let e = Session::open(&p).unwrap_err();
    assert!(matches!(e, ReadError::UnsupportedVersion { line: 1, .. }));
    assert!(
        e.to_string()
            .contains("v4.jsonl:1: unsupported session version 4"),
        "{e}"
    );
    let p = write(
        dir.path(),
        "v4b.jsonl",
        format!("{}\n", HEADER.replace("\"version\":3", "\"version\":4")).as_bytes(),
    );
    let e = Session::open(&p).unwrap_err();
    assert!(
        e.to_string()
            .contains("v4b.jsonl:1: unsupported session version 4"),
        "{e}"
    );
}

#[test]
fn a_100_mb_single_line_is_read() {
    // One 100 MB line of non-JSON after a valid session: skipped with a warning, quickly.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    f.write_all(format!("{HEADER}\n{USER}\n").as_bytes())
        .unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..100 {
        f.write_all(&chunk).unwrap();
    }
    f.write_all(b"\n").unwrap();
    f.flush().unwrap();
    drop(f);
    let (s, d) = diags_text(&p);
    assert_eq!(s.entries().len(), 1);
    assert!(has(&d, "big.jsonl:3: warning: line is not JSON"), "{d:?}");
}

#[test]
fn binary_garbage_is_not_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes.push((x & 0xff) as u8);
    }
    let p = write(dir.path(), "bin.jsonl", &bytes);
    let e = Session::open(&p).unwrap_err();
    // A stray digit in the garbage is valid JSON, so Pi may stop at that line instead.
    assert!(matches!(e, ReadError::NotASession { .. }), "{e}");
    assert!(e.to_string().contains(": not a pi session: "), "{e}");
    let p = write(
        dir.path(),
        "bin2.jsonl",
        &[0xff, 0xfe, 0x00, 0x01, b'\n', 0x80],
    );
    let e = Session::open(&p).unwrap_err();
    assert!(
        e.to_string()
            .contains("bin2.jsonl:1: not a pi session: no line is JSON"),
        "{e}"
    );
}

#[test]
fn directories_and_missing_paths_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = Session::open(dir.path()).unwrap_err();
    assert!(matches!(e, ReadError::IsDirectory { .. }));
    assert!(
        e.to_string()
            .ends_with(": is a directory, not a session file"),
        "{e}"
    );
    let e = Session::open(dir.path().join("nope.jsonl")).unwrap_err();
    assert!(matches!(e, ReadError::NotFound { .. }));
    assert!(e.to_string().ends_with("nope.jsonl: no such file"), "{e}");
}

#[test]
fn lone_surrogates_survive_reading_and_projection() {
    let dir = tempfile::tempdir().unwrap();
    let user = USER.replace(r#""content":"hi""#, r#""content":"a\ud800b\udc00""#);
    let p = write(
        dir.path(),
        "s.jsonl",
        format!("{HEADER}\n{user}\n").as_bytes(),
    );
    let (s, _) = Session::open(&p).unwrap();
    let proj = s.context(s.default_leaf()).unwrap();
    let out = forge_replay_model::json::stringify(&proj.messages[0]);
    assert!(out.contains(r#""content":"a\ud800b\udc00""#), "{out}");
}

#[test]
fn tree_defects_are_reported_with_lines() {
    let dir = tempfile::tempdir().unwrap();
    let e = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"custom","customType":"x","id":"{id}","parentId":{parent},"timestamp":"t"}}"#
        )
    };
    let text = [
        HEADER.to_string(),
        e("r", "null"),
        e("a", "\"c\""),
        e("b", "\"a\""),
        e("c", "\"b\""),
        e("o", "\"gone\""),
        e("r", "\"o\""),
        e("s", "\"s\""),
    ]
    .join("\n");
    let p = write(dir.path(), "tree.jsonl", format!("{text}\n").as_bytes());
    let (s, d) = Session::open(&p).unwrap();
    let find = |code: &str| {
        d.iter()
            .find(|d| d.code == code)
            .map(|d| (d.line, d.severity))
    };
    assert_eq!(find("cycle"), Some((Some(5), Severity::Error)), "{d:?}");
    assert_eq!(find("missing-parent"), Some((Some(6), Severity::Warning)));
    assert_eq!(find("duplicate-id"), Some((Some(7), Severity::Error)));
    assert_eq!(find("self-parent"), Some((Some(8), Severity::Error)));
    // Every path terminates even though Pi would loop.
    for i in 0..s.entries().len() {
        assert!(s.path_to(i).len() <= s.entries().len());
        s.context(Some(i)).unwrap();
    }
}

#[test]
fn non_object_and_falsy_lines_follow_pi() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEADER}\n{USER}\nnull\n0\n[1,2]\n");
    let p = write(dir.path(), "v.jsonl", text.as_bytes());
    let (s, d) = diags_text(&p);
    // `null` and `0` are skipped; `[1,2]` is kept as an entry and becomes the default leaf.
    assert_eq!(s.entries().len(), 2);
    assert!(
        has(&d, "v.jsonl:3: warning: line is JSON null, which Pi skips"),
        "{d:?}"
    );
    assert!(
        has(&d, "v.jsonl:5: warning: line is an array, not an object"),
        "{d:?}"
    );
    let p = s.context(s.default_leaf()).unwrap();
    assert!(p.messages.is_empty());
}

/// The session keeps an index, not the text: a file changed after it was opened is an error
/// naming the file and line when an entry is read again, never a silently different context.
#[test]
fn a_file_changed_after_opening_is_an_error_not_a_different_context() {
    use forge_replay_session::ProjectError;
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEADER}\n{USER}\n{ASSISTANT}\n");
    let p = write(dir.path(), "c.jsonl", text.as_bytes());
    let (s, _) = Session::open(&p).unwrap();
    assert_eq!(s.context(s.default_leaf()).unwrap().messages.len(), 2);

    // Same length, one byte different on line 3 ("yo" → "yu").
    write(
        dir.path(),
        "c.jsonl",
        text.replace("\"yo\"", "\"yu\"").as_bytes(),
    );
    let e = s.context(s.default_leaf()).unwrap_err();
    assert!(matches!(e, ProjectError::Changed { line: 3, .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("c.jsonl:3: the file changed since it was read"),
        "{msg}"
    );

    // Truncated: the line is no longer there at all.
    write(dir.path(), "c.jsonl", format!("{HEADER}\n").as_bytes());
    let e = s.context(s.default_leaf()).unwrap_err();
    assert!(matches!(e, ProjectError::Changed { .. }), "{e:?}");

    // Put back as it was: the same session projects again.
    write(dir.path(), "c.jsonl", text.as_bytes());
    assert_eq!(s.context(s.default_leaf()).unwrap().messages.len(), 2);
}
