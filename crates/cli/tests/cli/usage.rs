//! `forge-replay usage` and `forge-replay gen-corpus`.

use std::process::{Command, Output};

use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_forge-replay"));
    c.env_remove("FORGE_REPLAY_PI")
        .env("XDG_CACHE_HOME", crate::support::test_cache_home());
    c
}

fn fixture(name: &str) -> String {
    forge_replay_testkit::fixture("usage")
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn session_json_has_pi_forge_shape() {
    let o = run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json_of(&o);
    let keys: Vec<&str> = v["main"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["turn", "session", "lastRequest"]);
    assert_eq!(
        serde_json::to_string(&v["main"]["session"]).unwrap(),
        r#"{"requests":3,"input":60,"output":6,"cacheRead":150,"cacheWrite":30}"#
    );
    assert_eq!(
        serde_json::to_string(&v["nested"]["turn"]).unwrap(),
        r#"{"requests":3,"input":7,"output":9,"cacheRead":7,"cacheWrite":1,"calls":2,"cacheUnknownCalls":1,"invalidCalls":0}"#
    );
    assert_eq!(v["hitRates"]["main"]["session"], serde_json::json!(0.625));
}

#[test]
fn session_table_and_requests() {
    let o = run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--format",
        "text",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("62.5%"), "{text}");
    assert!(text.contains("main · last request"), "{text}");
    let o = run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--requests",
        "--format",
        "csv",
    ]);
    let csv = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    // Issue 19.3: an export is numbers, not display strings: RFC 3339 UTC timestamps,
    // provider and model apart, integer token counts, rates as fractions, costs in dollars.
    assert_eq!(
        lines[0],
        "index,entry,timestamp,provider,model,input,cache_read,cache_write,output,hit_rate,cumulative_hit_rate,cost,priced"
    );
    // Pi recorded no cost; pi-ai 0.87.1 prices claude-opus-4-8 at $5/$25/$0.50/$6.25 per MTok:
    // 30 input + 10 cache write + 3 output = $0.000150 + $0.0000625 + $0.000075.
    assert_eq!(
        lines[3],
        "2,0000000b,2026-01-01T00:00:11.000Z,anthropic,claude-opus-4-8,30,0,10,3,0,0.625,0,0.0002875",
        "{csv}"
    );
    assert!(
        !csv.contains('%') && !csv.contains('$') && !csv.contains(".0,"),
        "{csv}"
    );
    let o = run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--requests",
        "--format",
        "md",
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("| # | entry |"));
}

#[test]
fn leaf_selects_another_branch_and_no_cache_data_is_named() {
    let o = run(&[
        "usage",
        &fixture("t-usage-branch-with-sibling.jsonl"),
        "--leaf",
        "sib00002",
        "--format",
        "text",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no cache data"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("t-usage-branch-with-sibling.jsonl:7:"));
    let o = run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--leaf",
        "missing",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn min_hit_rate_gates() {
    let f = fixture("t-usage-branch.jsonl");
    assert_eq!(
        run(&["usage", &f, "--min-hit-rate", "0.6"]).status.code(),
        Some(0)
    );
    let o = run(&["usage", &f, "--min-hit-rate", "0.7", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json_of(&o)["threshold"]["passed"], Value::Bool(false));
    assert_eq!(
        run(&["usage", &f, "--min-hit-rate", "70%"]).status.code(),
        Some(1)
    );
    assert_eq!(
        run(&["usage", &f, "--min-hit-rate", "60%"]).status.code(),
        Some(0)
    );
    assert_eq!(
        run(&["usage", &f, "--min-hit-rate", "-1"]).status.code(),
        Some(2)
    );
    // One unit: a number without `%` is a fraction, so 70 and 1.5 are refused, not read as
    // percentages (1.5 used to mean 1.5 % while 1 meant 100 %).
    for bad in ["70", "1.5", "101%", "x"] {
        let o = run(&["usage", &f, "--min-hit-rate", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with(&format!(
                "forge-replay: error: invalid value '{bad}' for '--min-hit-rate <RATE>'"
            )),
            "{err}"
        );
    }
    assert!(
        String::from_utf8_lossy(&run(&["usage", &f, "--min-hit-rate", "70"]).stderr)
            .contains("for 70 percent write 70%")
    );
}

#[test]
fn bad_input_exits_2() {
    assert_eq!(
        run(&["usage", "/nonexistent/x.jsonl"]).status.code(),
        Some(2)
    );
    // Exactly one of SESSION and --corpus (clap says which).
    let o = run(&["usage"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("forge-replay: error: the following required arguments were not provided:")
            && err.contains("<SESSION>"),
        "{err}"
    );
    let f = fixture("t-usage-branch.jsonl");
    let o = run(&["usage", &f, "--corpus", "/tmp"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(
            "forge-replay: error: the argument '[SESSION]' cannot be used with '--corpus"
        ),
        "{err}"
    );
}

#[test]
fn corpus_with_forks_bad_lines_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("sessions");
    let o = run(&[
        "gen-corpus",
        "--out",
        corpus.to_str().unwrap(),
        "--sessions",
        "20",
        "--entries",
        "80",
        "--seed",
        "3",
        "--forks",
        "0.3",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // One unreadable-as-JSON line and one non-session file must not abort the run.
    let proj = corpus.join("--home-dev-broken--");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(
        proj.join("bad.jsonl"),
        "{\"type\":\"session\",\"version\":3,\"id\":\"b\",\"cwd\":\"/b\"}\n{oops\n",
    )
    .unwrap();
    std::fs::write(proj.join("other.jsonl"), "{\"hello\":1}\n").unwrap();

    let parquet = dir.path().join("pq");
    let csv = dir.path().join("req.csv");
    let o = run(&[
        "usage",
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "json",
        "--by",
        "day",
        "--parquet",
        parquet.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json_of(&o);
    assert_eq!(v["files"], 22);
    assert_eq!(v["notSessions"], 1);
    assert!(v["forks"].as_u64().unwrap() > 0);
    assert!(v["forkCopies"]["requests"].as_f64().unwrap() > 0.0);
    assert_eq!(v["badLines"].as_array().unwrap().len(), 1);
    assert_eq!(v["badLines"][0]["line"], 2);
    let total = v["totals"]["requests"].as_f64().unwrap();
    let parts =
        v["active"]["requests"].as_f64().unwrap() + v["abandoned"]["requests"].as_f64().unwrap();
    assert_eq!(total, parts);
    let grouped: f64 = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["requests"].as_f64().unwrap())
        .sum();
    assert_eq!(grouped, total);
    // Hive layout: day=YYYY-MM-DD/part-0.parquet, plus the hidden completion marker (hive
    // readers skip hidden files) listing every partition.
    let days: Vec<String> = std::fs::read_dir(&parquet)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".forge-replay-set")
        .collect();
    let marker = std::fs::read_to_string(parquet.join(".forge-replay-set")).unwrap();
    assert!(
        marker.starts_with("forge-replay set v1\nkind: parquet-dataset\n"),
        "{marker}"
    );
    assert_eq!(
        marker.matches("\nfile: day=").count(),
        days.len(),
        "{marker}"
    );
    assert!(
        !days.is_empty() && days.iter().all(|d| d.starts_with("day=20")),
        "{days:?}"
    );
    assert!(parquet.join(&days[0]).join("part-0.parquet").is_file());
    // One row per request (`kind` main or subagent) and one per nested report (`kind` nested).
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = csv_text.lines().next().unwrap().split(',').collect();
    let kind = header
        .iter()
        .position(|c| *c == "kind")
        .expect("kind column");
    let kinds: Vec<&str> = csv_text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(kind).unwrap())
        .collect();
    let count = |k: &str| kinds.iter().filter(|x| **x == k).count() as f64;
    assert_eq!(count("main"), total);
    assert_eq!(
        count("subagent"),
        v["subagents"]["totals"]["requests"].as_f64().unwrap()
    );
    let n = &v["nested"]["totals"];
    let reports = n["calls"].as_f64().unwrap()
        + n["cacheUnknownCalls"].as_f64().unwrap()
        + n["invalidCalls"].as_f64().unwrap();
    assert!(reports > 0.0);
    assert_eq!(count("nested"), reports);
    assert_eq!(kinds.len() as f64, total + count("subagent") + reports);

    // Filters narrow; the threshold fails on an impossible minimum.
    let o = run(&[
        "usage",
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "json",
        "--model",
        "gpt",
        "--min-hit-rate",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let f = json_of(&o);
    assert!(f["totals"]["requests"].as_f64().unwrap() < total);
    assert!(f["groups"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["key"].as_str().unwrap().contains("gpt")));
}

#[test]
fn corpus_default_dir_comes_from_pi_coding_agent_dir() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&[
        "gen-corpus",
        "--out",
        dir.path().join("sessions").to_str().unwrap(),
        "--sessions",
        "3",
        "--entries",
        "40",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let o = bin()
        .args(["usage", "--corpus", "--format", "json"])
        .env("PI_CODING_AGENT_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(json_of(&o)["sessions"], 3);
}

#[test]
fn plots_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("s.png");
    let o = run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    let svg = dir.path().join("s.svg");
    run(&[
        "usage",
        &fixture("t-usage-branch.jsonl"),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}

/// Issue 19.3: exports are numbers: integer token counts (never `14.0`), RFC 3339 UTC
/// timestamps, and `--by model` keys `provider/model`, so one model id served by two providers is
/// two rows.
#[test]
fn corpus_exports_are_typed_and_models_keep_their_provider() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("sessions");
    std::fs::create_dir_all(&corpus).unwrap();
    for (name, provider) in [("a", "openai"), ("b", "azure-openai-responses")] {
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{name}","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/p"}}"#
        );
        let entry = format!(
            r#"{{"type":"message","id":"e-{name}","parentId":null,"timestamp":"2026-01-02T03:04:05.678Z","message":{{"role":"assistant","content":[],"api":"openai-responses","provider":"{provider}","model":"gpt-5.5","usage":{{"input":14,"output":3,"cacheRead":7,"cacheWrite":0}},"stopReason":"stop"}}}}"#
        );
        std::fs::write(
            corpus.join(format!("{name}.jsonl")),
            format!("{header}\n{entry}\n"),
        )
        .unwrap();
    }
    let csv = dir.path().join("r.csv");
    let ndjson = dir.path().join("r.json");
    let o = run(&[
        "usage",
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "csv",
        "--csv",
        csv.to_str().unwrap(),
        "--json",
        ndjson.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let groups = String::from_utf8_lossy(&o.stdout);
    let keys: Vec<&str> = groups
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(
        keys,
        ["azure-openai-responses/gpt-5.5", "openai/gpt-5.5", "total"],
        "{groups}"
    );
    // The rate of 7 cached of 21 prompt tokens, as a number.
    assert!(groups.contains(",0.3333333333333333,"), "{groups}");
    assert!(!groups.contains('%') && !groups.contains('$'), "{groups}");

    let rows = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = rows.lines().next().unwrap().split(',').collect();
    let first: Vec<&str> = rows.lines().nth(1).unwrap().split(',').collect();
    let col = |name: &str| first[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("timestamp"), "2026-01-02T03:04:05.678Z", "{rows}");
    assert_eq!(col("input"), "14", "{rows}");
    assert_eq!(col("cache_read"), "7", "{rows}");
    assert_eq!(col("requests"), "1", "{rows}");

    let line: Value = serde_json::from_str(
        std::fs::read_to_string(&ndjson)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(line["timestamp"], "2026-01-02T03:04:05.678Z");
    assert!(line["input"].is_u64(), "{line}");
    assert_eq!(line["input"], 14);
}

/// `--cache DIR` keeps the incremental index there and gives the same output as `--no-cache`,
/// on the first run, on a re-run and after an append; `--pi` prices every session alike.
#[test]
fn corpus_index_and_pi_flags() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let cache = dir.path().join("idx");
    let o = run(&[
        "gen-corpus",
        "--out",
        corpus.to_str().unwrap(),
        "--sessions",
        "8",
        "--entries",
        "40",
        "--seed",
        "5",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = corpus.to_str().unwrap();
    let plain = run(&["usage", "--corpus", c, "--format", "json", "--no-cache"]);
    assert!(plain.status.success());
    let with = |extra: &[&str]| {
        let mut a = vec!["usage", "--corpus", c, "--format", "json", "--cache"];
        a.push(cache.to_str().unwrap());
        a.extend_from_slice(extra);
        let o = run(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o
    };
    assert_eq!(json_of(&with(&[])), json_of(&plain), "first run");
    let written: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(written.len(), 1, "one index file");
    assert_eq!(
        json_of(&with(&[])),
        json_of(&plain),
        "re-run from the index"
    );
    // Grow one session by a copy of its last line under a new id.
    let file = std::fs::read_dir(&corpus)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let mut next = last.clone();
    next["parentId"] = last["id"].clone();
    next["id"] = "appended1".into();
    std::fs::write(&file, format!("{text}{next}\n")).unwrap();
    let plain = run(&["usage", "--corpus", c, "--format", "json", "--no-cache"]);
    assert_eq!(json_of(&with(&[])), json_of(&plain), "after an append");
    // --pi: one release for every session.
    let v = json_of(&with(&["--pi", "1.3.0"]));
    assert_eq!(v["pricing"]["release"], "1.3.0");
    assert_eq!(v["pricing"]["releases"][0]["release"], "1.3.0");
    let v = json_of(&plain);
    assert_eq!(v["pricing"]["release"], "0.87.1");
}

/// A `--since`/`--until` day the month does not have is a bad argument (exit 2, naming the flag),
/// not silently the next month's day.
#[test]
fn a_day_the_month_lacks_is_refused() {
    for (flag, day) in [("--since", "2026-02-30"), ("--until", "20260431")] {
        crate::support::Test::new()
            .env("XDG_CACHE_HOME", crate::support::test_cache_home())
            .args(["usage", "--corpus", &fixture(""), flag, day])
            .status(2)
            .stderr_contains(format!(
                "forge-replay: error: invalid value '{day}' for '{flag} <DAY>'"
            ))
            .stdout("")
            .run();
    }
}

/// A flag of the other mode is refused (exit 2, clap naming both), never silently ignored: a
/// `--csv` beside a session file wrote nothing and exited 0, a `--leaf` beside `--corpus` reported
/// the whole corpus.
#[test]
fn a_flag_of_the_other_mode_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("t-usage-branch.jsonl");
    let out = dir.path().join("x.out");
    let out = out.to_str().unwrap();
    let corpus_only: [&[&str]; 12] = [
        &["--csv", out],
        &["--json", out],
        &["--parquet", out],
        &["--by", "day"],
        &["--since", "2026-01-01"],
        &["--until", "2026-01-01"],
        &["--model", "opus"],
        &["--project", "x"],
        &["--breaks"],
        &["--cache", out],
        &["--no-cache"],
        &["--breaks", "--no-cache"],
    ];
    for flags in corpus_only {
        let mut args = vec!["usage", session.as_str()];
        args.extend_from_slice(flags);
        crate::support::Test::new()
            .env("XDG_CACHE_HOME", crate::support::test_cache_home())
            .args(&args)
            .status(2)
            .stderr_contains("forge-replay: error: the argument '[SESSION]' cannot be used with")
            .stderr_contains(flags[0])
            .stdout("")
            .run();
    }
    let corpus = fixture("");
    let session_only: [&[&str]; 2] = [&["--leaf", "00000003"], &["--requests"]];
    for flags in session_only {
        let mut args = vec!["usage", "--corpus", corpus.as_str()];
        args.extend_from_slice(flags);
        crate::support::Test::new()
            .env("XDG_CACHE_HOME", crate::support::test_cache_home())
            .args(&args)
            .status(2)
            .stderr_contains("cannot be used with")
            .stdout("")
            .run();
    }
    assert!(!std::path::Path::new(out).exists(), "nothing written");
}

/// A bad output is refused before anything is printed or written: `usage SESSION --plot x.txt`
/// printed the whole report and then exited 2; `usage --corpus --csv ok.csv --json DIR` (or a
/// foreign `--parquet` directory, or a bad `--plot`) wrote ok.csv and then exited 2.
#[test]
fn a_bad_output_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let foreign = dir.path().join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let session = fixture("t-usage-branch.jsonl");
    for plot in [p("plot.txt"), p("")] {
        crate::support::Test::new()
            .args(["usage", &session, "--plot", &plot])
            .status(2)
            .stdout("")
            .stderr_contains(format!("forge-replay: error: plotting {plot}"))
            .run();
    }
    let corpus = fixture("");
    let ok = p("ok.csv");
    let bad: [(&str, String, String); 4] = [
        (
            "--json",
            p(""),
            format!("writing {}: cannot write {}: is a directory", p(""), p("")),
        ),
        (
            "--parquet",
            p("foreign"),
            format!("writing {}", p("foreign")),
        ),
        (
            "--plot",
            p("plot.txt"),
            format!("plotting {}", p("plot.txt")),
        ),
        (
            "--json",
            p("ok.csv/x.json"),
            format!("writing {}", p("ok.csv/x.json")),
        ),
    ];
    std::fs::write(&ok, "old").unwrap();
    for (flag, target, message) in bad {
        crate::support::Test::new()
            .env("XDG_CACHE_HOME", crate::support::test_cache_home())
            .args(["usage", "--corpus", &corpus, "--csv", &ok, flag, &target])
            .status(2)
            .stdout("")
            .stderr_contains(format!("forge-replay: error: {message}"))
            .stderr_not_contains("wrote ")
            .run();
        assert_eq!(
            std::fs::read_to_string(&ok).unwrap(),
            "old",
            "{flag} {target}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&foreign).unwrap().count(),
        1,
        "the foreign directory is untouched"
    );
}
