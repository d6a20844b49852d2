//! Appendix C: snapshot fingerprint vectors and the UTF-16 key-sort check.

use forge_replay_capability::event::{patch, snapshot_fingerprint, Scope, Source};
use forge_replay_capability::fingerprint::{canonical_json, fingerprint};
use forge_replay_model::json;
use serde_json::{json, Value};

use crate::{bound, unbound};

fn snapshot_object(
    source: &Source,
    name: Option<&str>,
    content: &str,
    add: &[&str],
    remove: &[&str],
) -> Value {
    let mut v =
        json!({"type":"pi-forge.capability-snapshot","schemaVersion":1,"source":source.to_value()});
    if let Some(n) = name {
        v["name"] = json!(n);
    }
    v["content"] = json!(content);
    v["tools"] = patch(add, remove).to_value();
    v
}

#[test]
fn manual_rule_1() {
    let s = snapshot_object(&Source::Manual, None, "Rule 1", &[], &[]);
    assert_eq!(
        canonical_json(&s),
        r#"{"content":"Rule 1","schemaVersion":1,"source":{"kind":"manual"},"tools":{"add":[],"remove":[]},"type":"pi-forge.capability-snapshot"}"#
    );
    assert_eq!(
        fingerprint(&s),
        "sha256:v1:67be0ff032917a3601a19eded9b0b3d5c780f3aabd74f50f9da9c78c79ec9b3f"
    );
    assert_eq!(
        snapshot_fingerprint(&Source::Manual, None, "Rule 1", &patch(&[], &[])),
        "sha256:v1:67be0ff032917a3601a19eded9b0b3d5c780f3aabd74f50f9da9c78c79ec9b3f"
    );
}

#[test]
fn manual_with_tools() {
    assert_eq!(
        snapshot_fingerprint(
            &Source::Manual,
            None,
            "System directive for coding",
            &patch(&["read_file"], &["bash"])
        ),
        "sha256:v1:6c9626c8781b776568b3db878a9686027ba1eeacdb73a9558362c93decad31e7"
    );
}

#[test]
fn unbound_review() {
    let src = unbound(Scope::Project, "review");
    let content = "List findings, evidence, and risks. Do not directly edit files.";
    let remove = ["bash", "powershell", "write", "edit"];
    assert_eq!(
        canonical_json(&snapshot_object(
            &src,
            Some("Review"),
            content,
            &[],
            &remove
        )),
        format!(
            r#"{{"content":"{content}","name":"Review","schemaVersion":1,"source":{{"key":{{"id":"review","scope":"project"}},"kind":"capability"}},"tools":{{"add":[],"remove":["bash","powershell","write","edit"]}},"type":"pi-forge.capability-snapshot"}}"#
        )
    );
    assert_eq!(
        snapshot_fingerprint(&src, Some("Review"), content, &patch(&[], &remove)),
        "sha256:v1:e946ac6168e76d45d03c1c64da06b654bf915509be2ef4eb4ff9a46b313f92fa"
    );
}

#[test]
fn bound_strict() {
    let src = bound(
        Scope::Global,
        "strict",
        (Scope::Project, "default"),
        "bind-1",
    );
    assert_eq!(
        canonical_json(&snapshot_object(
            &src,
            Some("Test Mode"),
            "Roundtrip content",
            &["t1"],
            &["t2"]
        )),
        r#"{"content":"Roundtrip content","name":"Test Mode","schemaVersion":1,"source":{"binding":{"id":"bind-1","preset":{"id":"default","scope":"project"}},"key":{"id":"strict","scope":"global"},"kind":"capability"},"tools":{"add":["t1"],"remove":["t2"]},"type":"pi-forge.capability-snapshot"}"#
    );
    assert_eq!(
        snapshot_fingerprint(
            &src,
            Some("Test Mode"),
            "Roundtrip content",
            &patch(&["t1"], &["t2"])
        ),
        "sha256:v1:28ea137b371f4057c6ff9e9e146fe44fbe931e438a4dd83fa10cee6726f59641"
    );
}

#[test]
fn manual_tool_only() {
    assert_eq!(
        snapshot_fingerprint(&Source::Manual, None, "", &patch(&["ls"], &[])),
        "sha256:v1:f504310e8a904a9f54520026f2266517154f21c9dfd8d6629ccc730b38a56f3e"
    );
}

#[test]
fn unicode_content() {
    let content = "Règle — ünïcødé 😀 \"q\" \\ \n\t\u{1} \u{2028}";
    let s = snapshot_object(&Source::Manual, None, content, &[], &[]);
    assert!(canonical_json(&s)
        .starts_with("{\"content\":\"Règle — ünïcødé 😀 \\\"q\\\" \\\\ \\n\\t\\u0001 \u{2028}\""));
    assert_eq!(
        snapshot_fingerprint(&Source::Manual, None, content, &patch(&[], &[])),
        "sha256:v1:d3bb151213b9c68f1e39a01e25ce82461a79e5189ef3a4d60408bf7089a843c3"
    );
}

#[test]
fn key_sort_is_utf16() {
    let v = json::parse(r#"{"😀":1,"\uffff":2,"a":3,"B":4}"#).unwrap();
    assert_eq!(
        canonical_json(&v),
        "{\"B\":4,\"a\":3,\"😀\":1,\"\u{ffff}\":2}"
    );
}

#[test]
fn numbers_are_javascript_numbers() {
    let v = json::parse(r#"{"a":-0,"b":2.0,"c":1e21,"d":0.1,"e":[1e-7]}"#).unwrap();
    assert_eq!(
        canonical_json(&v),
        r#"{"a":0,"b":2,"c":1e+21,"d":0.1,"e":[1e-7]}"#
    );
}

#[test]
fn activation_id_is_not_part_of_the_fingerprint() {
    use forge_replay_capability::event::make_snapshot;
    let a = make_snapshot("act-1", Source::Manual, None, "x", patch(&[], &[]));
    let b = make_snapshot("act-2", Source::Manual, None, "x", patch(&[], &[]));
    assert_eq!(a.fingerprint, b.fingerprint);
}

#[test]
fn lone_surrogates_are_escaped_like_json_stringify() {
    // Expected value computed with Node 22 (JSON.stringify escapes lone surrogates).
    let v = json::parse(r#""a\ud800b \udc00""#).unwrap();
    let content = v.as_str().unwrap();
    assert_eq!(
        snapshot_fingerprint(&Source::Manual, None, content, &patch(&[], &[])),
        "sha256:v1:9b9d5724ce3fb4323569b6fcc706ebc4369101c21292a159a9d834c187e60176"
    );
    // A lone surrogate is one UTF-16 unit for the length limits.
    assert_eq!(forge_replay_model::js::len(content), 5);
}
