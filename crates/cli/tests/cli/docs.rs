//! Doc examples stay true: every `forge-replay` command shown in `README.md` and `docs/**/*.md`
//! is run against the built binary, and its exit code and shown output are checked.
//!
//! The convention (documented in `docs/README.md`, "Commands in these docs are tested"):
//! * Commands live in fenced blocks tagged `console`, `sh`, `bash` or `shell`. Blocks with any
//!   other tag (`text`, `toml`, `json`, …) are never run; synopses with placeholders go there.
//! * In `sh`/`bash`/`shell` blocks, every line that starts with `forge-replay ` (optionally after
//!   `VAR=value` assignments) is a command. `cargo run … -p forge-replay -- ARGS` counts as
//!   `forge-replay ARGS`. Other lines (`scripts/test`, `git …`, comments) are shown, not run.
//! * In `console` blocks, a command line starts with `$ `; the lines after it, up to the next
//!   `$ ` line, are output that must appear in stdout or stderr, in order, each as a substring
//!   of one output line (`...` skips). Lines starting with `$ ` that are not forge-replay
//!   commands are skipped along with their output.
//! * A trailing `# exit N` comment gives the expected exit code (default 0); any other trailing
//!   `# comment` is ignored.
//! * Commands run in a fresh temporary directory per document, in document order, with
//!   `fixtures/`, `scenarios/`, `reports/` and `docs/` of the repository linked in, so relative
//!   paths in the docs work and anything a command writes lands in the temporary directory.
//!   Pipes and redirections are not supported.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::support::repo_root;

/// One command extracted from a document.
#[derive(Debug, Clone, PartialEq)]
struct DocCommand {
    file: String,
    line: usize,
    env: Vec<(String, String)>,
    args: Vec<String>,
    exit: i32,
    expected: Vec<String>,
}

fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Splits a command line like a POSIX shell would for simple words and quotes.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x) => cur.push(x),
                            None => return Err("dangling backslash".into()),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            '|' | '>' | '<' | ';' | '&' | '`' => {
                return Err(format!("`{c}` is not supported in documented commands"));
            }
            '$' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '{' || *n == '(') =>
            {
                return Err("shell expansion is not supported in documented commands".into());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Strips a trailing `# comment`, returning the command text and `# exit N` if present.
fn strip_comment(line: &str) -> (String, Option<i32>) {
    // a `#` that starts a word outside quotes
    let mut quote = None;
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => {
                let comment = line[i + 1..].trim();
                let exit = comment
                    .strip_prefix("exit")
                    .and_then(|n| n.trim().parse::<i32>().ok());
                return (line[..i].trim_end().to_string(), exit);
            }
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    (line.trim_end().to_string(), None)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// Parses `VAR=x forge-replay ARGS` or `cargo run … -- ARGS`; `None` if not a forge-replay command.
/// `(VAR=value assignments, arguments after forge-replay)`.
type Parsed = (Vec<(String, String)>, Vec<String>);

fn parse_command(text: &str) -> Result<Option<Parsed>, String> {
    // Only forge-replay commands must be simple; other shell lines are shown, never parsed.
    let first = text
        .split_whitespace()
        .find(|w| !is_assignment(w))
        .unwrap_or_default();
    if first != "forge-replay" && first != "cargo" {
        return Ok(None);
    }
    let words = split_words(text)?;
    let mut env = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i].split_once('=') {
            Some((k, v)) if is_assignment(&words[i]) => {
                env.push((k.to_string(), v.to_string()));
                i += 1;
            }
            _ => break,
        }
    }
    let rest = &words[i..];
    match rest.first().map(String::as_str) {
        Some("forge-replay") => Ok(Some((env, rest[1..].to_vec()))),
        Some("cargo") if rest.get(1).map(String::as_str) == Some("run") => {
            let is_ours = rest
                .windows(2)
                .any(|w| w[0] == "-p" && w[1] == "forge-replay");
            match rest.iter().position(|w| w == "--") {
                Some(dd) if is_ours => Ok(Some((env, rest[dd + 1..].to_vec()))),
                _ => Ok(None),
            }
        }
        _ => Ok(None),
    }
}

fn extract(file: &Path) -> Result<Vec<DocCommand>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let name = file
        .strip_prefix(repo_root())
        .unwrap_or(file)
        .display()
        .to_string();
    let mut out: Vec<DocCommand> = Vec::new();
    let mut fence: Option<String> = None;
    let mut collecting = false; // console output after a forge-replay command
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let trimmed = raw.trim_start();
        if let Some(tag) = trimmed.strip_prefix("```") {
            if fence.is_none() {
                fence = Some(tag.trim().to_string());
            } else {
                fence = None;
            }
            collecting = false;
            continue;
        }
        let Some(tag) = fence.as_deref() else {
            continue;
        };
        let err = |m: String| format!("{name}:{line_no}: {m}");
        match tag {
            "console" => {
                if let Some(cmd) = trimmed.strip_prefix("$ ") {
                    let (cmd, exit) = strip_comment(cmd);
                    collecting = false;
                    if let Some((env, args)) = parse_command(&cmd).map_err(err)? {
                        out.push(DocCommand {
                            file: name.clone(),
                            line: line_no,
                            env,
                            args,
                            exit: exit.unwrap_or(0),
                            expected: Vec::new(),
                        });
                        collecting = true;
                    }
                } else if collecting {
                    let expect = raw.trim_end();
                    if !expect.trim().is_empty() && expect.trim() != "..." {
                        if let Some(last) = out.last_mut() {
                            last.expected.push(expect.trim().to_string());
                        }
                    }
                }
            }
            "sh" | "bash" | "shell" => {
                let (cmd, exit) = strip_comment(trimmed);
                if cmd.is_empty() {
                    continue;
                }
                if let Some((env, args)) = parse_command(&cmd).map_err(err)? {
                    out.push(DocCommand {
                        file: name.clone(),
                        line: line_no,
                        env,
                        args,
                        exit: exit.unwrap_or(0),
                        expected: Vec::new(),
                    });
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["fixtures", "scenarios", "reports", "docs"] {
        let target = repo_root().join(name);
        if target.exists() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(&target, dir.path().join(name)).expect("symlink");
        }
    }
    dir
}

fn run(cmd: &DocCommand, cwd: &Path) -> Result<(), String> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_forge-replay"));
    // The release comes from the command (or the input), never from the caller's environment.
    c.args(&cmd.args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", crate::support::test_cache_home())
        .env_remove("FORGE_REPLAY_PI");
    for (k, v) in &cmd.env {
        c.env(k, v);
    }
    let out = c.output().map_err(|e| format!("cannot run: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    let show = || {
        let cut = |s: &str| s.chars().take(2000).collect::<String>();
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            cut(&stdout),
            cut(&stderr)
        )
    };
    if code != cmd.exit {
        return Err(format!("exit {code}, expected {}\n{}", cmd.exit, show()));
    }
    let lines: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
    let mut from = 0;
    for want in &cmd.expected {
        match lines[from..].iter().position(|l| l.contains(want.as_str())) {
            Some(i) => from += i + 1,
            None => return Err(format!("output lacks `{want}` (in order)\n{}", show())),
        }
    }
    Ok(())
}

#[test]
fn every_documented_command_runs_as_shown() {
    let mut failures = Vec::new();
    let mut total = 0;
    for file in markdown_files() {
        let cmds = match extract(&file) {
            Ok(c) => c,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let dir = sandbox();
        for cmd in &cmds {
            total += 1;
            if let Err(e) = run(cmd, dir.path()) {
                failures.push(format!(
                    "{}:{}: forge-replay {}\n{e}",
                    cmd.file,
                    cmd.line,
                    cmd.args.join(" ")
                ));
            }
        }
    }
    assert!(total >= 10, "only {total} documented commands found");
    assert!(
        failures.is_empty(),
        "{} of {total} documented commands failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_convention_is_parsed_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("x.md");
    std::fs::write(
        &md,
        "```console\n$ forge-replay models --api x   # exit 2\nerror: x\n...\n$ git status\nnot output\n```\n\n```sh\n# comment\nPI_CACHE_RETENTION=long forge-replay assemble 'a b.json'\ncargo run --release --locked -p forge-replay -- replay s.jsonl\nscripts/test\n```\n\n```text\nforge-replay SESSION [--leaf ID]\n```\n",
    )
    .unwrap();
    let cmds = extract(&md).unwrap();
    assert_eq!(cmds.len(), 3, "{cmds:?}");
    assert_eq!(cmds[0].args, ["models", "--api", "x"]);
    assert_eq!(cmds[0].exit, 2);
    assert_eq!(cmds[0].expected, ["error: x"]);
    assert_eq!(
        cmds[1].env,
        [("PI_CACHE_RETENTION".to_string(), "long".to_string())]
    );
    assert_eq!(cmds[1].args, ["assemble", "a b.json"]);
    assert_eq!(cmds[2].args, ["replay", "s.jsonl"]);
    assert!(parse_command("forge-replay a | head").is_err());
    assert_eq!(parse_command("git clone x && cd y"), Ok(None));
}

/// ARCHITECTURE.md's "Where does X live" table points at files that exist: every
/// `` `<crate>/src/…` `` path in it (with `<api>` standing for any one API) names a file or
/// folder under `crates/`.
#[test]
fn architecture_points_at_files_that_exist() {
    let root = repo_root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut checked = 0;
    let mut missing = Vec::new();
    for piece in text.split('`').skip(1).step_by(2) {
        let Some((krate, rest)) = piece.split_once("/src/") else {
            continue;
        };
        if krate.is_empty() || !krate.bytes().all(|b| b.is_ascii_lowercase()) {
            continue;
        }
        let rel = format!("crates/{krate}/src/{}", rest.replace("<api>", "anthropic"));
        checked += 1;
        if !root.join(&rel).exists() {
            missing.push(rel);
        }
    }
    assert!(
        checked >= 30,
        "only {checked} paths found in ARCHITECTURE.md"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}
