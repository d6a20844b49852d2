//! `cache explain` on a real Pi 1.6.0 Anthropic session with message threads: a thread
//! `continue` sends only the new messages on the wire, but the server holds the earlier ones, so
//! explain (which compares the full `onPayload` requests) must not see a cache break there.

use forge_replay_engine::replay::{replay, ReplayOptions};
use forge_replay_model::release::PiRelease;
use forge_replay_session::Session;
use forge_replay_usage::explain::{explain, ExplainOptions};
use forge_replay_wire::thread::ThreadForm;
use forge_replay_wire::Catalog;

#[test]
fn a_thread_continue_is_not_a_cache_break() {
    let path = forge_replay_testkit::fixture(
        "releases/1.6.0/agent/anthropic-thread-continue/session.jsonl",
    );
    let (session, _) = Session::open(&path).unwrap();
    let catalog = Catalog::builtin(PiRelease::V1_6_0);
    // Up to the fourth reply: create, continue, continue, create (after a thread_not_found
    // fallback), continue.
    let leaf = "0000000d".to_string();
    let mut ropts = ReplayOptions::new(catalog);
    ropts.leaf = Some(leaf.clone());
    let requests = replay(&session, &ropts).unwrap();
    let forms: Vec<Option<&str>> = requests
        .iter()
        .map(|r| r.thread.as_ref().map(ThreadForm::name))
        .collect();
    assert_eq!(
        forms,
        [
            Some("create"),
            Some("continue"),
            Some("continue"),
            Some("create"),
            Some("continue")
        ]
    );
    assert_eq!(
        requests[3]
            .thread_fallback
            .as_ref()
            .map(|f| f.reason.as_str()),
        Some("thread_not_found")
    );
    let continued_body = &requests[1].wire.as_ref().unwrap().body();
    assert!(continued_body.get("system").is_none() && continued_body.get("tools").is_none());
    assert_eq!(continued_body["messages"].as_array().map(Vec::len), Some(1));
    let mut opts = ExplainOptions::new(catalog);
    opts.leaf = Some(leaf);
    let e = explain(&session, &opts).unwrap().to_json();
    let text = e.to_string();
    assert_eq!(
        text.matches("\"cause\"").count(),
        0,
        "explain sees a break along a continued thread: {text}"
    );
}
