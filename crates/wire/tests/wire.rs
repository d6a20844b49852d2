//! Golden tests: every `<name>.case.json` of a golden folder is assembled and compared with
//! `<name>.expected.json`, which the real pi-ai of the case's release produced (tools/pi-oracle).
//! `payload` and `wire.body` must be equal as JSON, our body bytes must equal `JSON.stringify` of
//! pi-ai's body (`wire.bodyText` when the fixture records it), and our wire headers must be pi-ai's
//! (fixtures keep only non-volatile, credential-free ones; `user-agent` is the machine's and is
//! not compared). Expected errors (`error` with no payload) must be refused with the same message.
//! A multi-request case (`requests`, one process: Anthropic message threads) is compared request by
//! request: payload, the thread form and request the endpoint answered, the requests it rejected
//! before, and the `anthropic_thread_fallback` diagnostic pi-ai recorded.
//!
//! Folders: `fixtures/wire` (0.87.1) and `fixtures/releases/<release>/wire` for every other
//! supported release; a case's `"pi"` names its release, else the folder's. `WIRE_GOLDENS_DIR`
//! runs the same comparison over any directory of oracle outputs (ad-hoc sweeps), as
//! `WIRE_GOLDENS_PI` (default 0.87.1) for cases without `"pi"`.
//!
//! Cases whose API builder is not written yet are reported and skipped. Goldens of a release that
//! is being added and not reproduced yet are listed in `tests/pending/<release>.txt`: a listed
//! case that differs is reported as pending, a listed case that is equal fails the test (the list
//! only shrinks).

use std::path::{Path, PathBuf};

use forge_replay_model::json::{parse, stringify};
use forge_replay_model::release::PiRelease;
use forge_replay_model::rng::XorShift64;
use forge_replay_wire::{
    assemble_case, assemble_sequence, AssembleError, Case, CaseFile, Catalog, Sequence,
};
use serde_json::Value;

struct Golden {
    name: String,
    case: PathBuf,
    expected: PathBuf,
    /// The release of the folder (a case's own `"pi"` wins).
    release: PiRelease,
}

fn repo() -> PathBuf {
    forge_replay_testkit::repo_root()
}

/// The golden folders and their releases: `WIRE_GOLDENS_DIR` alone, or every committed one.
fn folders() -> Vec<(PathBuf, PiRelease)> {
    if let Some(dir) = std::env::var_os("WIRE_GOLDENS_DIR") {
        // `WIRE_GOLDENS_PI=<release>`: the release of cases that do not name one.
        let release = std::env::var("WIRE_GOLDENS_PI").map_or(PiRelease::DEFAULT, |v| {
            PiRelease::parse(&v).unwrap_or_else(|e| panic!("WIRE_GOLDENS_PI: {e}"))
        });
        return vec![(PathBuf::from(dir), release)];
    }
    let mut out = vec![(repo().join("fixtures/wire"), PiRelease::V0_87_1)];
    for r in PiRelease::ALL {
        let dir = repo().join(format!("fixtures/releases/{r}/wire"));
        if r != PiRelease::V0_87_1 && dir.is_dir() {
            out.push((dir, r));
        }
    }
    out
}

fn goldens_in(dir: &Path, release: PiRelease) -> Vec<Golden> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if let Some(stem) = name.strip_suffix(".case.json") {
                let expected = dir.join(format!("{stem}.expected.json"));
                if expected.exists() {
                    out.push(Golden {
                        name: stem.to_string(),
                        case: p.clone(),
                        expected,
                        release,
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn goldens() -> Vec<Golden> {
    folders()
        .into_iter()
        .flat_map(|(dir, r)| goldens_in(&dir, r))
        .collect()
}

/// The JSON path of the first difference between two values, with both sides.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = format!("{path}.{k}");
                match y.get(k) {
                    None => return Some(format!("{p}: only in ours ({})", short(v))),
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, &p) {
                            return Some(d);
                        }
                    }
                }
            }
            for (k, w) in y {
                if !x.contains_key(k) {
                    return Some(format!("{path}.{k}: only in pi-ai's ({})", short(w)));
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(v, w, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            if x.len() != y.len() {
                return Some(format!(
                    "{path}: length {} (ours) vs {} (pi-ai)",
                    x.len(),
                    y.len()
                ));
            }
            None
        }
        _ => {
            if stringify(a) == stringify(b) {
                None
            } else {
                Some(format!("{path}: ours {} vs pi-ai {}", short(a), short(b)))
            }
        }
    }
}

fn short(v: &Value) -> String {
    let s = stringify(v);
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

#[path = "shared/headers.rs"]
mod headers;
use headers::unchecked_header;

/// `assemble_messages` over borrowed messages equals `assemble_with` on every case.
#[path = "wire/borrowed.rs"]
mod borrowed;

/// Checks one golden; `Ok(false)` when its API is not implemented yet.
fn check(g: &Golden) -> Result<bool, String> {
    let case_text = std::fs::read_to_string(&g.case).map_err(|e| format!("read case: {e}"))?;
    let exp_text =
        std::fs::read_to_string(&g.expected).map_err(|e| format!("read expected: {e}"))?;
    let expected = parse(&exp_text).map_err(|e| format!("expected: {e}"))?;
    let case = match CaseFile::parse(&case_text).map_err(|e| format!("case: {e}"))? {
        CaseFile::Single(c) => c,
        CaseFile::Sequence(s) => return check_sequence(g, &s, &expected),
    };
    let release = case.pi.unwrap_or(g.release);
    let result = assemble_case(&case, Catalog::builtin(release));
    let exp_payload = expected.get("payload").cloned().unwrap_or(Value::Null);
    if exp_payload.is_null() {
        let want = expected.get("error").and_then(Value::as_str).unwrap_or("");
        return match result {
            Err(AssembleError::Rejected { message }) if message == want => Ok(true),
            Err(AssembleError::Unsupported { .. }) => Ok(false),
            Err(e) => Err(format!("expected refusal {want:?}, got error {e}")),
            Ok(_) => Err(format!("expected refusal {want:?}, got a payload")),
        };
    }
    let got = match result {
        Ok(a) => a,
        Err(AssembleError::Unsupported { .. }) => return Ok(false),
        Err(e) => return Err(format!("assembly failed: {e}")),
    };
    if let Some(api) = expected.get("api").and_then(Value::as_str) {
        if api != got.api.name() {
            return Err(format!("api: ours {} vs pi-ai {api}", got.api));
        }
    }
    if let Some(d) = first_difference(&got.payload, &exp_payload, "$.payload") {
        return Err(d);
    }
    let exp_wire = expected.get("wire").cloned().unwrap_or(Value::Null);
    match (&got.wire, &exp_wire) {
        (None, Value::Null) => {}
        (Some(_), Value::Null) => {
            return Err("$.wire: ours has a wire request, pi-ai's is null".into())
        }
        (None, _) => return Err("$.wire: ours is null, pi-ai sent a request".into()),
        (Some(w), e) => check_wire(w, e, expected.get("bodyText"), "$.wire")?,
    }
    Ok(true)
}

/// Compares one HTTP request with pi-ai's (`e`: `{url, method, headers, body, bodyText?}`;
/// `body_text`: the golden's separate `bodyText`, if any), naming the path under `at`.
fn check_wire(
    w: &forge_replay_wire::WireRequest,
    e: &Value,
    body_text: Option<&Value>,
    at: &str,
) -> Result<(), String> {
    if let Some(url) = e.get("url").and_then(Value::as_str) {
        if url != w.url {
            return Err(format!("{at}.url: ours {} vs pi-ai {url}", w.url));
        }
    }
    if let Some(want) = e.get("headers").and_then(Value::as_object) {
        for (k, v) in want {
            if !unchecked_header(k) && w.headers.get(k).map(String::as_str) != v.as_str() {
                return Err(format!(
                    "{at}.headers[{k:?}]: ours {:?} vs pi-ai {v}",
                    w.headers.get(k)
                ));
            }
        }
        if let Some(k) = w
            .headers
            .keys()
            .find(|k| !unchecked_header(k) && !want.contains_key(k.as_str()))
        {
            return Err(format!("{at}.headers[{k:?}]: only in ours"));
        }
    }
    let body = e.get("body").cloned().unwrap_or(Value::Null);
    if let Some(d) = first_difference(&w.body(), &body, &format!("{at}.body")) {
        return Err(d);
    }
    let want_text = e
        .get("bodyText")
        .or(body_text)
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| stringify(&body));
    if w.body_text != want_text {
        let at_byte = w
            .body_text
            .char_indices()
            .zip(want_text.chars())
            .find(|((_, a), b)| a != b)
            .map(|((i, _), _)| i)
            .unwrap_or(w.body_text.len().min(want_text.len()));
        let from = at_byte.saturating_sub(40);
        let snippet = |s: &str| {
            s.get(from..(at_byte + 40).min(s.len()))
                .unwrap_or("")
                .to_string()
        };
        return Err(format!(
            "{at}.bodyText: bytes differ at {at_byte}: ours …{}… vs pi-ai …{}…",
            snippet(&w.body_text),
            snippet(&want_text)
        ));
    }
    Ok(())
}

/// Checks a multi-request golden: per request the `onPayload` object, the request the endpoint
/// answered (its thread form, URL, headers, body and bytes), the ones it rejected before, and
/// the fallback diagnostic pi-ai recorded.
fn check_sequence(g: &Golden, seq: &Sequence, expected: &Value) -> Result<bool, String> {
    let release = seq.pi.unwrap_or(g.release);
    let steps = assemble_sequence(seq, Catalog::builtin(release)).map_err(|e| e.to_string())?;
    let want = expected
        .get("requests")
        .and_then(Value::as_array)
        .ok_or("expected: no `requests`")?;
    if want.len() != steps.len() {
        return Err(format!(
            "$.requests: {} requests (ours) vs {} (pi-ai)",
            steps.len(),
            want.len()
        ));
    }
    for (i, (step, e)) in steps.iter().zip(want).enumerate() {
        let at = format!("$.requests[{i}]");
        let step = match step {
            Ok(s) => s,
            Err(AssembleError::Unsupported { .. }) => return Ok(false),
            Err(err) => {
                if e.get("payload").is_some_and(Value::is_null) && e.get("error").is_some() {
                    continue;
                }
                return Err(format!("{at}: assembly failed: {err}"));
            }
        };
        if let Some(d) = first_difference(
            &step.assembled.payload,
            e.get("payload").unwrap_or(&Value::Null),
            &format!("{at}.payload"),
        ) {
            return Err(d);
        }
        // Every `onPayload` object when there were several (a strict-tools fallback rebuilds the
        // params): the rejected first attempt's, then the resend's.
        let payloads = e
            .get("payloads")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        match (&step.strict_fallback, payloads) {
            (None, []) => {}
            (Some(f), [first, last]) => {
                if let Some(d) =
                    first_difference(&f.rejected_payload, first, &format!("{at}.payloads[0]"))
                {
                    return Err(d);
                }
                if let Some(d) =
                    first_difference(&step.assembled.payload, last, &format!("{at}.payloads[1]"))
                {
                    return Err(d);
                }
            }
            (f, p) => {
                return Err(format!(
                    "{at}.payloads: ours {} vs pi-ai {}",
                    if f.is_some() { 2 } else { 1 },
                    p.len().max(1)
                ))
            }
        }
        // The golden's `wire` is the last request the stub saw: the answered one, or the
        // rejected one of a request that failed; `rejected` the ones before it.
        let (last, rejected_before) = match &step.exchange.sent {
            Some(a) => (Some(a), &step.exchange.rejected[..]),
            None => match step.exchange.rejected.split_last() {
                Some((a, before)) => (Some(a), before),
                None => (None, &[][..]),
            },
        };
        let want_thread = e.get("thread").cloned().unwrap_or(Value::Null);
        let got_thread = last
            .and_then(|a| a.thread.as_ref())
            .map_or(Value::Null, |t| Value::String(t.name().into()));
        if got_thread != want_thread {
            return Err(format!(
                "{at}.thread: ours {got_thread} vs pi-ai {want_thread}"
            ));
        }
        let exp_wire = e.get("wire").cloned().unwrap_or(Value::Null);
        match (last, &exp_wire) {
            (None, Value::Null) => {}
            (Some(a), e_wire) if !e_wire.is_null() => {
                check_wire(&a.wire, e_wire, e.get("bodyText"), &format!("{at}.wire"))?
            }
            (ours, _) => {
                return Err(format!(
                    "{at}.wire: ours {} vs pi-ai {}",
                    if ours.is_some() { "sent" } else { "none" },
                    if exp_wire.is_null() { "none" } else { "sent" }
                ))
            }
        }
        let rejected = e
            .get("rejected")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if rejected.len() != rejected_before.len() {
            return Err(format!(
                "{at}.rejected: {} (ours) vs {} (pi-ai)",
                rejected_before.len(),
                rejected.len()
            ));
        }
        for (j, (a, r)) in rejected_before.iter().zip(rejected).enumerate() {
            let kind = a
                .thread
                .as_ref()
                .map_or(Value::Null, |t| Value::String(t.name().into()));
            if r.get("thread") != Some(&kind) {
                return Err(format!("{at}.rejected[{j}].thread: ours {kind}"));
            }
            check_wire(&a.wire, r, None, &format!("{at}.rejected[{j}]"))?;
        }
        let diags: Vec<&Value> = e
            .pointer("/reply/diagnostics")
            .and_then(Value::as_array)
            .map(|d| {
                d.iter()
                    .filter(|d| d["type"] == "anthropic_thread_fallback")
                    .collect()
            })
            .unwrap_or_default();
        match (&step.exchange.fallback, diags.as_slice()) {
            (None, []) => {}
            (Some(f), [d]) => {
                if d.pointer("/details/reason").and_then(Value::as_str) != Some(f.reason.as_str())
                    || d.pointer("/error/message").and_then(Value::as_str)
                        != Some(f.message.as_str())
                {
                    return Err(format!(
                        "{at}.reply.diagnostics: ours {} / {} vs pi-ai {}",
                        f.reason,
                        f.message,
                        stringify(d)
                    ));
                }
            }
            (f, d) => {
                return Err(format!(
                    "{at}.reply.diagnostics: ours {:?} vs pi-ai {} fallback diagnostic(s)",
                    f.as_ref().map(|f| &f.reason),
                    d.len()
                ))
            }
        }
        let strict: Vec<&Value> = e
            .pointer("/reply/diagnostics")
            .and_then(Value::as_array)
            .map(|d| {
                d.iter()
                    .filter(|d| {
                        d["type"] == forge_replay_wire::strict::ANTHROPIC_DIAGNOSTIC
                            || d["type"] == forge_replay_wire::strict::BEDROCK_DIAGNOSTIC
                    })
                    .collect()
            })
            .unwrap_or_default();
        match (&step.strict_fallback, strict.as_slice()) {
            (None, []) => {}
            (Some(f), [d])
                if d["type"] == f.diagnostic
                    && d.pointer("/error/message").and_then(Value::as_str)
                        == Some(f.message.as_str())
                    && d.pointer("/details/reason").and_then(Value::as_str)
                        == Some("strict_tool_limits_exceeded") => {}
            (f, d) => {
                return Err(format!(
                    "{at}.reply.diagnostics: ours {:?} vs pi-ai {}",
                    f.as_ref().map(|f| (f.diagnostic, &f.message)),
                    d.iter()
                        .map(|d| stringify(d))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    Ok(true)
}

/// The goldens of `release` not reproduced yet (`tests/pending/<release>.txt`, one case name per
/// line). Empty when the file is absent, or when `WIRE_GOLDENS_DIR` names an ad-hoc folder.
fn pending(release: PiRelease) -> std::collections::BTreeSet<String> {
    if std::env::var_os("WIRE_GOLDENS_DIR").is_some() {
        return Default::default();
    }
    let path = repo().join(format!("crates/wire/tests/pending/{release}.txt"));
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn goldens_match_pi_ai() {
    let mut failures = Vec::new();
    for (dir, release) in folders() {
        let goldens = goldens_in(&dir, release);
        assert!(!goldens.is_empty(), "no goldens under {}", dir.display());
        let pending = pending(release);
        let mut skipped = Vec::new();
        let mut passed = 0;
        let mut different = 0;
        let mut still_pending = 0;
        for g in &goldens {
            let listed = pending.contains(g.name.as_str());
            match (check(g), listed) {
                (Ok(true), false) => passed += 1,
                (Ok(true), true) => failures.push(format!(
                    "{}: {}: equal now; remove it from crates/wire/tests/pending/{release}.txt",
                    dir.display(),
                    g.name
                )),
                (Ok(false), _) => skipped.push(g.name.clone()),
                (Err(_), true) => still_pending += 1,
                (Err(e), false) => {
                    different += 1;
                    failures.push(format!("{}: {}: {e}", dir.display(), g.name));
                }
            }
        }
        eprintln!(
            "wire goldens {} (pi {release} unless a case names one): {passed} equal, {different} different, {still_pending} pending, {} skipped (builder not written yet: {})",
            dir.display(),
            skipped.len(),
            skipped.join(", ")
        );
    }
    assert!(
        failures.is_empty(),
        "{} golden(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn first_difference_names_the_path() {
    let a = serde_json::json!({"x": [1, {"y": 2}]});
    let b = serde_json::json!({"x": [1, {"y": 3}]});
    assert_eq!(
        first_difference(&a, &b, "$").unwrap(),
        "$.x[1].y: ours 2 vs pi-ai 3"
    );
    assert!(first_difference(&a, &a, "$").is_none());
}

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count_nodes).sum(),
        Value::Object(m) => m.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// Replaces the `target`-th node (pre-order) with `with`.
fn replace_nth(v: &mut Value, target: &mut usize, with: &Value) -> bool {
    if *target == 0 {
        *v = with.clone();
        return true;
    }
    *target -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| replace_nth(x, target, with)),
        Value::Object(m) => m.values_mut().any(|x| replace_nth(x, target, with)),
        _ => false,
    }
}

/// Bad input never panics: every fixture case with random nodes replaced by random JSON either
/// fails to parse (with a JSON path), is refused, or assembles.
#[test]
fn mutated_cases_never_panic() {
    let junk = [
        Value::Null,
        serde_json::json!(0),
        serde_json::json!(-1.5e300),
        serde_json::json!(""),
        serde_json::json!("\u{f0000}x"),
        serde_json::json!([]),
        serde_json::json!({}),
        serde_json::json!(true),
        serde_json::json!([{"type": "toolCall"}]),
        serde_json::json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "thinkingSignature": "{"}]}),
        serde_json::json!({"type": "image"}),
        serde_json::json!("{\"v\":1}"),
    ];
    let mut rng = XorShift64::new(0x9E37_79B9_7F4A_7C15);
    let mut runs = 0;
    for g in goldens().iter().step_by(2).take(200) {
        let Ok(text) = std::fs::read_to_string(&g.case) else {
            continue;
        };
        let Ok(base) = parse(&text) else { continue };
        let nodes = count_nodes(&base);
        for _ in 0..12 {
            let mut v = base.clone();
            for _ in 0..1 + rng.index(3) {
                let mut t = rng.index(nodes);
                let with = &junk[rng.index(junk.len())];
                replace_nth(&mut v, &mut t, with);
            }
            let name = g.name.clone();
            let outcome = std::panic::catch_unwind(|| {
                if let Ok(case) = Case::from_value(&v) {
                    let release = case.pi.unwrap_or(g.release);
                    let _ = assemble_case(&case, Catalog::builtin(release));
                }
            });
            assert!(
                outcome.is_ok(),
                "{name}: panicked on mutated case {}",
                stringify(&v)
            );
            runs += 1;
        }
    }
    assert!(runs > 0);
}
