//! Library discovery (spec §1.1) and resolution (§1.5), plus the UNKNOWN choices we pin.

use std::path::PathBuf;

use forge_replay_capability::binding::resolve_bindings;
use forge_replay_capability::discovery::{read_scope_dir, Catalog, Roots};
use forge_replay_capability::event::Scope;
use forge_replay_capability::fingerprint::sha256_hex;
use serde_json::json;

fn library() -> PathBuf {
    forge_replay_testkit::fixture("capabilities/library")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const VALID: &str = r#"{"schemaVersion":1,"type":"pi-forge.capability","id":"ID","content":"x"}"#;

#[test]
fn fixture_library_listing() {
    let dir = library().join(".pi/forge/capabilities");
    let items = read_scope_dir(&dir, Scope::Project).unwrap();
    let names: Vec<String> = items
        .iter()
        .map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // Hidden files and non-JSON files are skipped; names in JS sort order.
    assert_eq!(
        names,
        vec![
            "bad-tools.json",
            "broken.json",
            "dup-a.json",
            "dup-b.json",
            "ls-only.json",
            "review.json"
        ]
    );
    let review = items.iter().find(|c| c.key.id == "review").unwrap();
    assert!(review.is_usable());
    let raw = std::fs::read(dir.join("review.json")).unwrap();
    assert_eq!(
        review.source_revision.as_deref(),
        Some(sha256_hex(&raw).as_str())
    );
    let broken = items
        .iter()
        .find(|c| c.path.ends_with("broken.json"))
        .unwrap();
    assert_eq!(broken.key.id, "broken");
    for dup in items.iter().filter(|c| c.key.id == "dup") {
        assert_eq!(
            dup.diagnostics.last().unwrap().message,
            "Duplicate project capability id: \"dup\" appears in multiple files (dup-a.json, dup-b.json)."
        );
    }
}

#[test]
fn project_shadows_global_but_fails_closed() {
    let root = scratch("shadow");
    let global = root.join("global");
    let project = root.join("project");
    std::fs::create_dir_all(global.join("capabilities")).unwrap();
    std::fs::create_dir_all(project.join(".pi/forge/capabilities")).unwrap();
    std::fs::write(global.join("capabilities/a.json"), VALID.replace("ID", "a")).unwrap();
    std::fs::write(global.join("capabilities/b.json"), VALID.replace("ID", "b")).unwrap();
    std::fs::write(
        project.join(".pi/forge/capabilities/a.json"),
        VALID.replace("ID", "a"),
    )
    .unwrap();
    std::fs::write(
        project.join(".pi/forge/capabilities/b.json"),
        r#"{"schemaVersion":1,"type":"pi-forge.capability","id":"b","content":""}"#,
    )
    .unwrap();
    let cat = Catalog::discover(&Roots {
        project: Some(project.clone()),
        global: Some(global.clone()),
    })
    .unwrap();
    // Global entries first, then project entries.
    assert_eq!(
        cat.entries
            .iter()
            .map(|c| c.key.to_string())
            .collect::<Vec<_>>(),
        vec!["global:a", "global:b", "project:a", "project:b"]
    );
    assert_eq!(cat.resolve("a").unwrap().key.scope, Scope::Project);
    assert_eq!(cat.resolve("global:a").unwrap().key.scope, Scope::Global);
    // An unusable project file does not fall back to the global one.
    assert_eq!(
        cat.resolve("b").unwrap_err(),
        "Capability capability \"project:b\" has errors: Capability capability must have non-empty content or at least one tool effect (add or remove)."
    );
    assert_eq!(cat.resolve("global:b").unwrap().key.scope, Scope::Global);
    assert_eq!(
        cat.resolve("zzz").unwrap_err(),
        "Capability capability \"zzz\" not found."
    );
    assert_eq!(
        cat.resolve("project:zzz").unwrap_err(),
        "Capability capability \"project:zzz\" not found."
    );
    // Bindings: bare refs inherit the preset's scope (no shadowing).
    let r = resolve_bindings(
        &cat,
        &json!({"scope":"global","id":"p"}),
        &json!([{"ref":"a","overrides":{"appendContent":"more"}}]),
    )
    .unwrap();
    assert_eq!(r[0].reference.to_string(), "global:a");
    assert_eq!(r[0].capability.content, "x\n\nmore");
    assert_eq!(
        resolve_bindings(
            &cat,
            &json!({"scope":"project","id":"p"}),
            &json!([{"ref":"a"},{"ref":"global:a"}])
        )
        .unwrap_err(),
        "Duplicate binding id \"a\" at index 1."
    );
    assert_eq!(
        resolve_bindings(&cat, &json!({"scope":"x","id":"p"}), &json!([])).unwrap_err(),
        "Invalid preset scope. Expected \"global\" or \"project\"."
    );
    assert_eq!(
        resolve_bindings(&cat, &json!({"scope":"project","id":"p"}), &json!({})).unwrap_err(),
        "Bindings must be an array."
    );
    // UNKNOWN wrapper text of a per-binding schema error (pinned).
    assert_eq!(
        resolve_bindings(
            &cat,
            &json!({"scope":"project","id":"p"}),
            &json!([{"ref":"a","x":1}])
        )
        .unwrap_err(),
        "Invalid binding at index 0: Unsupported binding field: x"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[cfg(unix)]
#[test]
fn symlinks_directories_and_missing_dirs() {
    let root = scratch("links");
    let dir = root.join("caps");
    std::fs::create_dir_all(dir.join("sub.json")).unwrap();
    std::fs::write(root.join("target.json"), VALID.replace("ID", "linked")).unwrap();
    std::os::unix::fs::symlink(root.join("target.json"), dir.join("link.json")).unwrap();
    std::os::unix::fs::symlink(root.join("missing.json"), dir.join("broken.json")).unwrap();
    std::os::unix::fs::symlink(root.join("caps"), dir.join("dirlink.json")).unwrap();
    let items = read_scope_dir(&dir, Scope::Project).unwrap();
    let keys: Vec<String> = items.iter().map(|c| c.key.to_string()).collect();
    // A link to a file is followed; a broken link faults; directories (and links to them) are skipped.
    assert_eq!(keys, vec!["project:broken", "project:linked"]);
    assert!(items[0].diagnostics[0]
        .message
        .starts_with("Failed to read capability: ENOENT: no such file or directory"));
    assert!(read_scope_dir(&root.join("nope"), Scope::Global)
        .unwrap()
        .is_empty());
    let big = root.join("big");
    std::fs::create_dir_all(&big).unwrap();
    std::fs::write(big.join("x.json"), vec![b' '; 1024 * 1024 + 1]).unwrap();
    let items = read_scope_dir(&big, Scope::Project).unwrap();
    assert_eq!(
        items[0].diagnostics[0].message,
        "Capability capability file size (1048577 bytes) exceeds 1MiB limit."
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn global_dir_defaults_to_home_pi_forge() {
    // UNKNOWN (§9): globalForgeDir() resolution; we follow Forge's docs (`~/.pi/forge`).
    if let Some(home) = std::env::var_os("HOME") {
        assert_eq!(
            Roots::default_global(),
            Some(PathBuf::from(home).join(".pi").join("forge"))
        );
    }
}
