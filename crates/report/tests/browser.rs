//! The session report in a real browser: headless Chromium loads the page from a `file://` URL,
//! its script runs, and the script-filled DOM (`--dump-dom`) must show the fixture's numbers with
//! no script error and no console message.
//!
//! The browser is `$FORGE_REPLAY_CHROMIUM`, else the first of `chromium`, `chromium-browser`,
//! `google-chrome` on `PATH` (Debian: `apt-get install chromium`; `.ci/run` installs it). Without
//! one the test is skipped with a message, unless `FORGE_REPLAY_REQUIRE_BROWSER=1` (set by
//! `.ci/run` when it has a browser), where a missing browser fails.
//!
//! The expected numbers are worked out by hand from `fixtures/cache/report.toml`'s usage, not
//! taken from our output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use forge_replay_report::session::{build, html, ReportOptions};
use forge_replay_session::Session;
use forge_replay_wire::Catalog;

fn browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FORGE_REPLAY_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// Runs the browser on `page`; returns (DOM, stderr).
fn dump_dom(chromium: &Path, page: &Path, profile: &Path) -> (String, String) {
    let dir = page.parent().unwrap();
    let out_path = dir.join("dom.html");
    let err_path = dir.join("stderr.txt");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            assert!(status.success(), "chromium failed ({status}):\n{stderr}");
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (
        std::fs::read_to_string(&out_path).unwrap(),
        std::fs::read_to_string(&err_path).unwrap_or_default(),
    )
}

/// The attributes of every `<name …>` start tag, in document order.
fn tags(dom: &str, name: &str) -> Vec<BTreeMap<String, String>> {
    let open = format!("<{name} ");
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(at) = rest.find(&open) {
        let tag = &rest[at + open.len()..];
        let end = tag.find('>').unwrap_or(tag.len());
        let mut attrs = BTreeMap::new();
        let mut s = &tag[..end];
        while let Some(eq) = s.find("=\"") {
            let key = s[..eq].trim().to_string();
            let value_start = eq + 2;
            let close = s[value_start..]
                .find('"')
                .map_or(s.len(), |c| value_start + c);
            attrs.insert(key, s[value_start..close].to_string());
            s = &s[(close + 1).min(s.len())..];
        }
        out.push(attrs);
        rest = &tag[end..];
    }
    out
}

/// The content of the element with `id`, up to the first `</`.
fn text_of(dom: &str, id: &str) -> String {
    inner(dom, id, "</")
}

/// The content of the element with `id`, up to `close`.
fn inner(dom: &str, id: &str, close: &str) -> String {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element #{id}"));
    let rest = &dom[at..];
    let start = rest.find('>').unwrap() + 1;
    let end = rest[start..].find(close).map_or(rest.len(), |e| start + e);
    rest[start..end].to_string()
}

#[test]
fn the_session_report_renders_in_chromium_with_the_fixture_numbers() {
    let Some(chromium) = browser() else {
        assert!(
            std::env::var_os("FORGE_REPLAY_REQUIRE_BROWSER").is_none(),
            "FORGE_REPLAY_REQUIRE_BROWSER is set but no chromium was found"
        );
        eprintln!(
            "SKIPPED the_session_report_renders_in_chromium: no chromium on PATH (apt-get install \
             chromium, or set FORGE_REPLAY_CHROMIUM)"
        );
        return;
    };
    let fixture = forge_replay_testkit::fixture("cache/report/session.jsonl");
    let (session, diagnostics) = Session::open(&fixture).unwrap();
    let report = build(
        &session,
        &diagnostics,
        &ReportOptions::new(Catalog::builtin(
            forge_replay_model::release::PiRelease::V0_87_1,
        )),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    std::fs::write(&page, html::render(&report)).unwrap();
    let (dom, stderr) = dump_dom(&chromium, &page, &dir.path().join("profile"));

    // The script ran to its end and recorded no error; nothing was logged to the console.
    let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE")).collect();
    let body = &tags(&dom, "body")[0];
    assert_eq!(
        body["data-status"],
        "ready",
        "script errors: {:?}; console: {console:#?}",
        text_of(&dom, "script-errors")
    );
    assert_eq!(text_of(&dom, "script-errors"), "");
    assert!(console.is_empty(), "console output: {console:#?}");

    // Hit-rate chart: one bar per request with its main hit rate.
    let rects = tags(&dom, "rect");
    let hits: Vec<&str> = rects
        .iter()
        .filter(|a| a.get("class").is_some_and(|c| c.starts_with("bar")))
        .map(|a| a["data-hit"].as_str())
        .collect();
    assert_eq!(
        hits,
        ["0.0", "95.5", "97.0", "0.0", "97.4", "25.5", "0.0", "99.2", "58.8"]
    );
    // The sub-agent's report at request 1: 9800 / (1600 + 9800 + 2100).
    let nested: Vec<(String, String)> = tags(&dom, "path")
        .into_iter()
        .filter(|a| a.get("class").map(String::as_str) == Some("nested"))
        .map(|a| (a["data-request"].clone(), a["data-nested"].clone()))
        .collect();
    assert_eq!(nested, [("1".to_string(), "72.6".to_string())]);
    // One marker per confirmed break, with its cause.
    let markers: Vec<(String, String)> = tags(&dom, "path")
        .into_iter()
        .filter(|a| a.get("class").map(String::as_str) == Some("break-marker"))
        .map(|a| (a["data-request"].clone(), a["data-cause"].clone()))
        .collect();
    let expected: Vec<(String, String)> = [
        (3, "tool-change"),
        (5, "thinking-change"),
        (6, "model-switch"),
        (8, "compaction"),
    ]
    .iter()
    .map(|(r, c)| (r.to_string(), c.to_string()))
    .collect();
    assert_eq!(markers, expected);
    // Session hit rate so far at the last request: 19644 / (5034 + 19644 + 13010).
    assert_eq!(text_of(&dom, "hit-end"), "52.1%");

    // Cumulative chart: four kinds stacked per request, the totals at the end.
    let stacks = rects
        .iter()
        .filter(|a| a.get("class").is_some_and(|c| c.starts_with("stack")))
        .count();
    // Requests 0 and 3 read nothing; request 6 wrote nothing: every other cell is drawn.
    assert!(stacks >= 9 * 3, "{stacks} stacked cells");
    assert_eq!(text_of(&dom, "tokens-end"), "37,978 tokens");
    let caption = text_of(&dom, "cum-caption");
    assert!(
        caption.contains("main 37,978 tokens") && caption.contains("with nested 51,898"),
        "{caption}"
    );

    // The readout shows the last request until another is hovered.
    let readout = inner(&dom, "readout", "</div>");
    assert!(readout.contains("request <b>8 (00000020)</b>"), "{readout}");
    assert!(readout.contains("main hit <b>58.8%</b>"), "{readout}");
    assert!(readout.contains("break <b>compaction</b>"), "{readout}");

    // The static summary is there too.
    assert!(dom.contains("<h3>Main agent · hit rate</h3><p class=\"big\">52.1%</p>"));
    assert!(dom.contains("<h3>Nested · hit rate</h3><p class=\"big\">72.6%</p>"));
}
