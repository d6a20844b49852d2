//! [T-TOOLPOL] effective tool computation (spec §5.10).

use forge_replay_capability::event::patch;
use forge_replay_capability::resource::ToolPatch;
use forge_replay_capability::tools::{compute_effective, reconcile_baseline, ToolPolicy};

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn add_and_remove_over_baseline() {
    let reg = s(&["read", "bash", "edit", "write", "grep"]);
    let base = s(&["read", "bash", "edit", "write"]);
    let p = patch(&["grep"], &["bash"]);
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &base, Some(&reg), &[&p]),
        s(&["read", "edit", "write", "grep"])
    );
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &base, Some(&reg), &[]),
        base
    );
}

#[test]
fn removal_always_wins() {
    let reg = s(&["read", "grep"]);
    let same = patch(&["grep"], &["grep"]);
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &s(&["read"]), Some(&reg), &[&same]),
        s(&["read"])
    );
    let a = patch(&["grep"], &[]);
    let b = patch(&[], &["grep"]);
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &s(&["read"]), Some(&reg), &[&a, &b]),
        s(&["read"])
    );
}

#[test]
fn shared_removals_stay_until_all_off() {
    let reg = s(&["read", "bash"]);
    let p1 = patch(&[], &["bash"]);
    let p2 = patch(&[], &["bash"]);
    let both: Vec<&ToolPatch> = vec![&p1, &p2];
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &reg, Some(&reg), &both),
        s(&["read"])
    );
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &reg, Some(&reg), &[&p2]),
        s(&["read"])
    );
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &reg, Some(&reg), &[]),
        reg
    );
}

#[test]
fn external_changes_are_reconciled() {
    // Active was [read, bash] with bash removed by a patch → lastApplied [read]; the user then
    // added `custom` → current [read, custom]; turning the patch off yields [read, bash, custom].
    let baseline = reconcile_baseline(
        &s(&["read", "bash"]),
        &s(&["read", "custom"]),
        &s(&["read"]),
    );
    assert_eq!(baseline, s(&["read", "bash", "custom"]));
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &baseline, None, &[]),
        s(&["read", "bash", "custom"])
    );
}

#[test]
fn selective_allow_and_wildcards() {
    let reg = s(&["read", "bash", "grep", "find", "ls"]);
    let allow = ToolPolicy {
        allow: Some(s(&["grep", "find", "ls"])),
        ..Default::default()
    };
    let p = patch(&[], &["find"]);
    assert_eq!(
        compute_effective(&allow, &s(&["read"]), Some(&reg), &[&p]),
        s(&["grep", "ls"])
    );
    assert_eq!(
        compute_effective(&allow, &s(&["read"]), Some(&reg), &[]),
        s(&["grep", "find", "ls"])
    );
    let wild = ToolPolicy {
        allow: Some(s(&["*", "grep"])),
        ..Default::default()
    };
    let p = patch(&["grep"], &["bash"]);
    assert_eq!(
        compute_effective(&wild, &s(&["read", "bash"]), Some(&reg), &[&p]),
        s(&["read", "grep"])
    );
    let deny = ToolPolicy {
        deny: Some(s(&["bash"])),
        ..Default::default()
    };
    let p = patch(&["bash"], &[]);
    assert_eq!(
        compute_effective(&deny, &s(&["read"]), Some(&reg), &[&p]),
        s(&["read"])
    );
}

#[test]
fn initial_list_sets_the_base() {
    let reg = s(&["read", "write"]);
    let p = ToolPolicy {
        initial: Some(s(&["read"])),
        ..Default::default()
    };
    assert_eq!(
        compute_effective(&p, &s(&["read", "write"]), Some(&reg), &[]),
        s(&["read"])
    );
}

#[test]
fn unregistered_adds_are_ignored_when_the_registry_is_known() {
    let reg = s(&["read"]);
    let p = patch(&["ghost"], &[]);
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &s(&["read"]), Some(&reg), &[&p]),
        s(&["read"])
    );
    // Offline (registry unknown): every name counts as registered.
    assert_eq!(
        compute_effective(&ToolPolicy::default(), &s(&["read"]), None, &[&p]),
        s(&["read", "ghost"])
    );
}
