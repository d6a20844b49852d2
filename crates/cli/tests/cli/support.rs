//! A small builder for running the `forge-replay` binary and checking its output.
//!
//! ```ignore
//! Test::new()
//!     .args(["context", &fixture("sessions/branches/session.jsonl")])
//!     .stdout_contains("\"leafId\"")
//!     .status(0)
//!     .run();
//! ```

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// A path under the repository's `fixtures/` directory.
pub fn fixture(rel: &str) -> String {
    forge_replay_testkit::fixtures_root()
        .join(rel)
        .display()
        .to_string()
}

/// The repository root.
/// The cache home every test run of the binary uses (`usage --corpus` keeps its index there),
/// so tests never write into the user's cache.
pub fn test_cache_home() -> PathBuf {
    std::env::temp_dir().join(format!("forge-replay-test-cache-{}", std::process::id()))
}

pub fn repo_root() -> PathBuf {
    forge_replay_testkit::repo_root()
}

#[derive(Debug)]
enum Expect {
    Exact(String),
    Contains(String),
    NotContains(String),
    Json(Value),
}

/// One invocation of the binary and what it must print and return.
#[derive(Debug)]
pub struct Test {
    args: Vec<OsString>,
    current_dir: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    stdout: Vec<Expect>,
    stderr: Vec<Expect>,
    status: Option<i32>,
    /// Kill the child and fail after this long (a hang becomes a failure, not a stuck suite).
    deadline: Option<std::time::Duration>,
}

impl Default for Test {
    fn default() -> Self {
        Self::new()
    }
}

impl Test {
    pub fn new() -> Self {
        Test {
            args: Vec::new(),
            current_dir: None,
            env: Vec::new(),
            stdout: Vec::new(),
            stderr: Vec::new(),
            status: Some(0),
            deadline: None,
        }
    }

    /// Fails (after killing the child) when the command has not finished within `secs`.
    pub fn within(mut self, secs: u64) -> Self {
        self.deadline = Some(std::time::Duration::from_secs(secs));
        self
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.current_dir = Some(dir.into());
        self
    }

    pub fn env(mut self, k: impl Into<OsString>, v: impl Into<OsString>) -> Self {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Stdout must be exactly this.
    pub fn stdout(mut self, s: impl Into<String>) -> Self {
        self.stdout.push(Expect::Exact(s.into()));
        self
    }

    pub fn stdout_contains(mut self, s: impl Into<String>) -> Self {
        self.stdout.push(Expect::Contains(s.into()));
        self
    }

    pub fn stdout_not_contains(mut self, s: impl Into<String>) -> Self {
        self.stdout.push(Expect::NotContains(s.into()));
        self
    }

    /// Stdout must parse as JSON equal to this value.
    pub fn stdout_json(mut self, v: Value) -> Self {
        self.stdout.push(Expect::Json(v));
        self
    }

    /// Stderr must be exactly this.
    pub fn stderr(mut self, s: impl Into<String>) -> Self {
        self.stderr.push(Expect::Exact(s.into()));
        self
    }

    pub fn stderr_contains(mut self, s: impl Into<String>) -> Self {
        self.stderr.push(Expect::Contains(s.into()));
        self
    }

    pub fn stderr_not_contains(mut self, s: impl Into<String>) -> Self {
        self.stderr.push(Expect::NotContains(s.into()));
        self
    }

    /// Expected exit code (default 0).
    pub fn status(mut self, code: i32) -> Self {
        self.status = Some(code);
        self
    }

    /// Accept any exit code.
    pub fn any_status(mut self) -> Self {
        self.status = None;
        self
    }

    /// Runs the binary and asserts every expectation; returns the output for further checks.
    pub fn run(self) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_forge-replay"));
        // The release comes from the test (or the input), never from the caller's environment.
        cmd.args(&self.args)
            .env_remove("FORGE_REPLAY_PI")
            .env("XDG_CACHE_HOME", test_cache_home());
        if let Some(d) = &self.current_dir {
            cmd.current_dir(d);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = match self.deadline {
            None => cmd.output().expect("run forge-replay"),
            Some(limit) => output_within(cmd, limit, &self.args),
        };
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let shown = || {
            format!(
                "command: forge-replay {}\n~~~ status: {:?}\n~~~ stdout:\n{}\n~~~ stderr:\n{}\n~~~",
                self.args
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(" "),
                out.status.code(),
                truncate(&stdout),
                truncate(&stderr)
            )
        };
        if let Some(code) = self.status {
            assert_eq!(
                out.status.code(),
                Some(code),
                "unexpected exit code\n{}",
                shown()
            );
        }
        for (name, text, expects) in [
            ("stdout", &stdout, &self.stdout),
            ("stderr", &stderr, &self.stderr),
        ] {
            for e in expects {
                match e {
                    Expect::Exact(s) => assert_eq!(text, s, "{name} differs\n{}", shown()),
                    Expect::Contains(s) => {
                        assert!(text.contains(s.as_str()), "{name} lacks {s:?}\n{}", shown())
                    }
                    Expect::NotContains(s) => {
                        assert!(!text.contains(s.as_str()), "{name} has {s:?}\n{}", shown())
                    }
                    Expect::Json(v) => {
                        let got: Value = forge_replay_model::json::parse(text)
                            .unwrap_or_else(|e| panic!("{name} is not JSON ({e})\n{}", shown()));
                        assert_eq!(&got, v, "{name} JSON differs\n{}", shown());
                    }
                }
            }
        }
        out
    }
}

/// [`Command::output`] with a watchdog: the child is killed when it outlives `limit`.
fn output_within(mut cmd: Command, limit: std::time::Duration, args: &[OsString]) -> Output {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run forge-replay");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "forge-replay {} did not finish within {limit:?} (a hang)",
                args.iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

fn truncate(s: &str) -> String {
    if s.len() <= 4000 {
        s.to_string()
    } else {
        let mut end = 4000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    }
}
