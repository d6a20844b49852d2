use std::path::PathBuf;

use forge_replay_session::Session;
use forge_replay_usage::explain::Cause;
use forge_replay_wire::Catalog;

use super::html::{escape, render, tokens, usd};
use super::*;

fn fixture(name: &str) -> PathBuf {
    forge_replay_testkit::fixtures_root().join(name)
}

fn report(name: &str) -> SessionReport {
    let (session, diags) = Session::open(fixture(name)).expect("fixture opens");
    build(
        &session,
        &diags,
        &ReportOptions::new(Catalog::builtin(
            forge_replay_model::release::PiRelease::V0_87_1,
        )),
    )
    .expect("builds")
}

#[test]
fn the_page_renders_as_html_or_json_and_says_what_was_written() {
    let r = report("cache/report/session.jsonl");
    assert_eq!(r.render(false), render(&r));
    let doc = r.render(true);
    assert!(doc.starts_with('{') && doc.ends_with("}\n"));
    let said = r.wrote(std::path::Path::new("r.html"));
    assert!(said.starts_with("wrote r.html (9 requests, "), "{said}");
}

#[test]
fn the_report_fixture_has_its_requests_breaks_and_nested_usage() {
    let r = report("cache/report/session.jsonl");
    assert_eq!(r.requests.len(), 9);
    let causes: Vec<(usize, Cause)> = r.breaks.iter().map(|b| (b.request, b.cause)).collect();
    assert_eq!(
        causes,
        [
            (3, Cause::ToolChange),
            (5, Cause::ThinkingChange),
            (6, Cause::ModelSwitch),
            (8, Cause::Compaction)
        ]
    );
    // Request 1 returned the sub-agent's report: 9800 / (1600 + 9800 + 2100).
    assert_eq!(r.requests[1].nested.calls, 1.0);
    assert_eq!(
        format!("{:.4}", r.requests[1].nested_hit_rate().unwrap()),
        "0.7259"
    );
    assert_eq!(r.requests[1].cumulative_nested.cache_read, 9800.0);
    assert_eq!(r.requests[8].cumulative_nested.cache_read, 9800.0);
    // 4000 / (10 + 4000 + 180).
    assert_eq!(
        format!("{:.4}", r.requests[1].hit_rate().unwrap()),
        "0.9547"
    );
    // Every request after the first has a payload diff; the first has none.
    assert_eq!(r.requests[0].diff, RequestDiff::First);
    for q in &r.requests[1..] {
        assert!(
            matches!(q.diff, RequestDiff::Changes { .. }),
            "request {}",
            q.index
        );
    }
    // The model switch changes the payload's model; the thinking change its thinking block.
    let RequestDiff::Changes { text, .. } = &r.requests[6].diff else {
        unreachable!()
    };
    assert!(text.contains("$.model"), "{text}");
    assert_eq!(
        r.summary.models,
        ["anthropic/claude-sonnet-4-6", "openai/gpt-5.5"]
    );
    assert_eq!(r.summary.main.requests, 9.0);
    assert_eq!(r.summary.nested.calls, 1.0);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn the_tree_marks_the_active_path_the_label_and_the_abandoned_branch() {
    let r = report("cache/report/session.jsonl");
    fn rows<'a>(items: &'a [TreeItem], out: &mut Vec<(&'a TreeRow, bool)>, in_branch: bool) {
        for i in items {
            match i {
                TreeItem::Row(row) => out.push((row, in_branch)),
                TreeItem::Branch { items, on_path, .. } => rows(items, out, in_branch || !on_path),
            }
        }
    }
    let mut all = Vec::new();
    rows(&r.tree, &mut all, false);
    assert_eq!(all.len(), r.entries);
    let ask = all.iter().find(|(row, _)| row.id == "00000004").unwrap().0;
    assert_eq!(ask.label.as_deref(), Some("triage <1>"));
    assert!(ask.on_path);
    let abandoned = all.iter().find(|(row, _)| row.id == "0000000c").unwrap();
    assert!(!abandoned.0.on_path && abandoned.0.leaf && abandoned.1);
    let fork = all.iter().find(|(row, _)| row.id == "00000009").unwrap().0;
    assert_eq!(fork.branches, 2);
    let leaf = all.iter().find(|(row, _)| row.id == "00000020").unwrap().0;
    assert!(leaf.active_leaf && leaf.default_leaf && leaf.request == Some(8));
    let kinds: Vec<TreeKind> = all.iter().map(|(row, _)| row.kind).collect();
    for k in [
        TreeKind::ModelChange,
        TreeKind::Compaction,
        TreeKind::BranchSummary,
        TreeKind::Label,
        TreeKind::Thinking,
    ] {
        assert!(kinds.contains(&k), "{k:?}");
    }
}

#[test]
fn another_leaf_moves_the_active_path() {
    let (session, diags) = Session::open(fixture("cache/report/session.jsonl")).unwrap();
    let mut opts = ReportOptions::new(Catalog::builtin(
        forge_replay_model::release::PiRelease::V0_87_1,
    ));
    opts.leaf = Some("0000000c".into());
    let r = build(&session, &diags, &opts).unwrap();
    assert_eq!(r.requests.len(), 4);
    assert_eq!(r.leaf_id.as_deref(), Some("0000000c"));
    assert!(r.breaks.is_empty());
    opts.leaf = Some("nowhere".into());
    let err = build(&session, &diags, &opts).unwrap_err();
    assert!(error_chain(&err).contains("no entry with id \"nowhere\""));
}

#[test]
fn a_request_that_cannot_be_rebuilt_is_a_note_not_a_failure() {
    let r = report("cache/stopped/session.jsonl");
    assert!(!r.requests.is_empty());
    assert!(
        r.notes.iter().any(|n| n.contains("could not be rebuilt")),
        "{:?}",
        r.notes
    );
    let last = r.requests.last().unwrap();
    assert!(matches!(last.diff, RequestDiff::Unavailable(_)));
    let html = render(&r);
    assert!(html.contains("could not be rebuilt"));
}

#[test]
fn session_text_is_escaped_everywhere() {
    let html = render(&report("cache/report/session.jsonl"));
    // The user's message and the label carry markup.
    assert!(!html.contains("<script>alert(1)"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; fr"));
    assert!(html.contains("label: triage &lt;1&gt;"));
    // In the embedded data no `<` survives either.
    let data = html.split("id=\"report-data\">").nth(1).unwrap();
    let data = data.split("</script>").next().unwrap();
    assert!(!data.contains('<'));
    // One script block per purpose: the error trap, the data and the charts.
    assert_eq!(html.matches("<script").count(), 3);
    assert!(!html.contains("http://") || !html.contains("src=\"http"));
    assert!(!html.contains(" src="));
    assert!(!html.contains("<link"));
}

#[test]
fn rendering_is_deterministic() {
    let a = render(&report("cache/report/session.jsonl"));
    let b = render(&report("cache/report/session.jsonl"));
    assert_eq!(a, b);
}

#[test]
fn number_formats() {
    assert_eq!(tokens(0.0), "0");
    assert_eq!(tokens(999.0), "999");
    assert_eq!(tokens(1000.0), "1,000");
    assert_eq!(tokens(1234567.0), "1,234,567");
    assert_eq!(tokens(-1234.0), "-1,234");
    assert_eq!(tokens(12.5), "12.5");
    assert_eq!(usd(0.0), "$0.00");
    assert_eq!(usd(0.01234), "$0.0123");
    assert_eq!(usd(12.345), "$12.35");
    assert_eq!(
        escape("<a href='x'>&\"</a>"),
        "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
    );
}

/// Regression snapshot of our own page (not a Pi golden): the whole HTML of the report fixture.
/// Review a change with `cargo insta review`.
#[test]
fn regression_snapshot_of_the_report_page() {
    let mut r = report("cache/report/session.jsonl");
    r.file = "fixtures/cache/report/session.jsonl".into();
    insta::assert_snapshot!("cache-report-page", render(&r));
}
