//! `assemble_messages` over borrowed messages against `assemble_with` over the context, on every
//! committed case under `fixtures/` (goldens of every release, the bench contexts, and each
//! request of a multi-request case), for each supported release (both build forms under the
//! case's own release): the two results must be equal field by field.
//!
//! A context without `systemPrompt` and `tools` (what replay builds) hands `assemble_messages`
//! references into its own `messages`. A context with them hands it `normalize_context`'s
//! transcript, which is what `assemble_with` assembles for it.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use forge_replay_model::json::stringify;
use forge_replay_model::release::PiRelease;
use forge_replay_wire::{
    assemble_messages, assemble_resumed, assemble_with, normalize_context, Api, AssembleError,
    Assembled, Build, CaseFile, Catalog, Entry, Env, ModelSpec, Resume, WireRequest,
};
use serde_json::{Map, Value};

use super::{first_difference, repo};

/// Every `*.case.json` under `dir`, sorted.
fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            case_files(&p, out);
        } else if p.to_string_lossy().ends_with(".case.json") {
            out.push(p);
        }
    }
}

/// The release a case file's folder follows: `fixtures/releases/<release>/…`, else 0.87.1.
fn folder_release(path: &Path) -> PiRelease {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .windows(2)
        .find(|w| w[0] == "releases")
        .and_then(|w| PiRelease::parse(&w[1]).ok())
        .unwrap_or(PiRelease::V0_87_1)
}

/// One request to assemble both ways.
struct Request {
    at: String,
    /// The case's own release (its `"pi"`, else its folder's).
    release: PiRelease,
    model: ModelSpec,
    context: Value,
    options: Map<String, Value>,
    entry: Entry,
    env: Env,
}

fn requests() -> Vec<Request> {
    let mut files = Vec::new();
    case_files(&repo().join("fixtures"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no case files under fixtures/");
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: read: {e}", path.display()));
        let at = path
            .strip_prefix(repo())
            .unwrap_or(&path)
            .display()
            .to_string();
        let file = CaseFile::parse(&text).unwrap_or_else(|e| panic!("{at}: {e}"));
        match file {
            CaseFile::Single(c) => out.push(Request {
                release: c.pi.unwrap_or_else(|| folder_release(&path)),
                at,
                model: c.model,
                context: c.context,
                options: c.options,
                entry: c.entry,
                env: c.env,
            }),
            CaseFile::Sequence(s) => {
                let release = s.pi.unwrap_or_else(|| folder_release(&path));
                for (i, r) in s.requests.into_iter().enumerate() {
                    out.push(Request {
                        at: format!("{at} requests[{i}]"),
                        release,
                        model: r.model.unwrap_or_else(|| s.model.clone()),
                        context: r.context,
                        options: r.options,
                        entry: r.entry,
                        env: s.env.clone(),
                    });
                }
            }
        }
    }
    out
}

/// The first field where `b` differs from `a`, if any. Both structs are taken apart without
/// `..`, so a field added to either fails to compile here until it is compared.
fn divergence(a: &Assembled, b: &Assembled) -> Option<String> {
    let Assembled {
        api,
        payload,
        wire,
        thread,
        strict_tools_disabled,
        has_preferred_strict_tools,
        // Which request built what, not what was built: it differs by design.
        reuse: _,
    } = a;
    if *api != b.api {
        return Some(format!("api: {api} vs {}", b.api));
    }
    if let Some(d) = first_difference(payload, &b.payload, "$.payload") {
        return Some(d);
    }
    // Same JSON is not enough: key order and number spelling must agree too.
    if stringify(payload) != stringify(&b.payload) {
        return Some("$.payload: same JSON, different text".into());
    }
    match (wire, &b.wire) {
        (None, None) => {}
        (Some(x), Some(y)) => {
            let WireRequest {
                url,
                method,
                headers,
                body_text,
            } = x;
            if *url != y.url {
                return Some(format!("wire.url: {url} vs {}", y.url));
            }
            if *method != y.method {
                return Some(format!("wire.method: {method} vs {}", y.method));
            }
            if *headers != y.headers {
                return Some(format!("wire.headers: {headers:?} vs {:?}", y.headers));
            }
            if *body_text != y.body_text {
                let at = body_text
                    .bytes()
                    .zip(y.body_text.bytes())
                    .position(|(p, q)| p != q)
                    .unwrap_or(body_text.len().min(y.body_text.len()));
                return Some(format!("wire.body_text: bytes differ at {at}"));
            }
        }
        (x, y) => {
            return Some(format!(
                "wire: {} vs {}",
                if x.is_some() { "a request" } else { "none" },
                if y.is_some() { "a request" } else { "none" }
            ))
        }
    }
    if *thread != b.thread {
        return Some(format!("thread: {thread:?} vs {:?}", b.thread));
    }
    if *strict_tools_disabled != b.strict_tools_disabled {
        return Some(format!(
            "strict_tools_disabled: {strict_tools_disabled} vs {}",
            b.strict_tools_disabled
        ));
    }
    if *has_preferred_strict_tools != b.has_preferred_strict_tools {
        return Some(format!(
            "has_preferred_strict_tools: {has_preferred_strict_tools} vs {}",
            b.has_preferred_strict_tools
        ));
    }
    None
}

/// The outcome of both entry points, or why they differ.
fn compare(
    with: Result<Assembled, AssembleError>,
    messages: Result<Assembled, AssembleError>,
) -> Result<Option<Api>, String> {
    match (with, messages) {
        (Ok(a), Ok(b)) => match divergence(&a, &b) {
            None => Ok(Some(a.api)),
            Some(d) => Err(d),
        },
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Ok(None),
        (a, b) => Err(format!(
            "assemble_with {} vs assemble_messages {}",
            a.map_or_else(|e| format!("error {e}"), |_| "assembled".into()),
            b.map_or_else(|e| format!("error {e}"), |_| "assembled".into())
        )),
    }
}

/// Whether the context has a `systemPrompt` or `tools` key (null or not).
fn has_prompt_or_tools(context: &Value) -> bool {
    ["systemPrompt", "tools"]
        .iter()
        .any(|k| context.get(k).is_some())
}

/// The transcript a case's context hands `assemble_messages`: its own `messages` (borrowed), or
/// `normalizeContext`'s list when it has a `systemPrompt` or `tools` (owned). `None` for a
/// context without a transcript array, refused by `assemble_with` before any transcript exists
/// (`$.context.messages`), and for a null `systemPrompt`/`tools`, refused before
/// `normalizeContext`.
fn transcript_of(context: &Value) -> Option<Cow<'_, [Value]>> {
    if has_prompt_or_tools(context) {
        let null = ["systemPrompt", "tools"]
            .iter()
            .any(|k| context.get(k).is_some_and(Value::is_null));
        match normalize_context(context) {
            Ok(m) if !null => Some(Cow::Owned(m)),
            _ => None,
        }
    } else {
        context
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| Cow::Borrowed(m.as_slice()))
    }
}

#[test]
fn borrowed_messages_assemble_like_the_context() {
    let builds = [
        Build::default(),
        Build {
            disable_preferred_strict_tools: true,
            ..Build::default()
        },
    ];
    let mut failures = Vec::new();
    let (mut plain, mut prompted, mut assembled, mut refused, mut skipped) = (0, 0, 0, 0, 0);
    let mut apis = BTreeSet::new();
    let mut releases = BTreeSet::new();
    for r in requests() {
        let Some(messages) = transcript_of(&r.context) else {
            skipped += 1;
            continue;
        };
        match messages {
            Cow::Owned(_) => prompted += 1,
            Cow::Borrowed(_) => plain += 1,
        }
        let refs: Vec<&Value> = messages.iter().collect();
        for release in PiRelease::ALL {
            // A case follows its own release; the other releases see the same request too (a
            // model their catalog lacks is a catalog error, the same for both entry points).
            let Ok(model) = Catalog::builtin(release).resolve(&r.model) else {
                continue;
            };
            // Both build forms under the case's own release; the default one under the others.
            let forms = if release == r.release {
                &builds[..]
            } else {
                &builds[..1]
            };
            for &build in forms {
                let with = assemble_with(
                    release, &model, &r.context, &r.options, r.entry, &r.env, build,
                );
                let borrowed =
                    assemble_messages(release, &model, &refs, &r.options, r.entry, &r.env, build);
                match compare(with, borrowed) {
                    Ok(Some(api)) => {
                        assembled += 1;
                        apis.insert(api);
                        releases.insert(release);
                    }
                    Ok(None) => refused += 1,
                    Err(d) => failures.push(format!(
                        "{} (pi {release}, own pi {}, {build:?}): {d}",
                        r.at, r.release
                    )),
                }
            }
        }
    }
    eprintln!(
        "assemble_messages vs assemble_with: {plain} plain contexts, {prompted} with systemPrompt/tools (normalized), {skipped} without a transcript; {assembled} equal requests, {refused} equal refusals"
    );
    assert!(
        failures.is_empty(),
        "{} difference(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(plain > 0 && prompted > 0 && refused > 0);
    assert_eq!(apis, Api::ALL.into_iter().collect(), "APIs assembled");
    assert_eq!(releases, PiRelease::ALL.into_iter().collect());
}

/// Architecture Invariant (the incremental path produces what the full path produces), on the
/// wire side: `assemble_resumed` over a transcript that grows request by request (each one
/// sharing all of the previous one), then shrinks to half and grows again, equals
/// `assemble_messages` of every prefix, on every committed case under every release; refusals
/// included, so a rejected request in the middle of a walk is covered too.
#[test]
fn resumed_assembly_is_assembly_from_scratch_on_growing_transcripts() {
    let mut failures = Vec::new();
    let (mut assembled, mut refused, mut resumed, mut kept) = (0, 0, 0, 0);
    let mut apis = BTreeSet::new();
    for r in requests() {
        let Some(messages) = transcript_of(&r.context) else {
            continue;
        };
        let refs: Vec<&Value> = messages.iter().collect();
        let n = refs.len();
        // Every prefix of a short transcript; about eight of a long one.
        let step = (n / 8).max(1);
        let mut lengths: Vec<usize> = (0..=n).step_by(step).collect();
        if lengths.last() != Some(&n) {
            lengths.push(n);
        }
        let back: Vec<usize> = lengths.iter().copied().filter(|&k| k >= n / 2).collect();
        lengths.extend(back);
        for release in PiRelease::ALL {
            let Ok(model) = Catalog::builtin(release).resolve(&r.model) else {
                continue;
            };
            let mut resume = Resume::default();
            let mut previous = 0;
            let mut previous_list: Option<(u64, Vec<String>)> = None;
            for &k in &lengths {
                let shared = previous.min(k);
                previous = k;
                resumed += usize::from(shared > 0);
                let build = Build::default();
                let from_scratch = assemble_messages(
                    release,
                    &model,
                    &refs[..k],
                    &r.options,
                    r.entry,
                    &r.env,
                    build,
                );
                let carried = assemble_resumed(
                    release,
                    &model,
                    &refs[..k],
                    &r.options,
                    r.entry,
                    &r.env,
                    build,
                    &mut resume,
                    shared,
                );
                // The payload goes back to the resume, so the next request is built in it; what
                // it says it kept of the previous one's messages is checked text for text.
                let back = carried.as_ref().ok().map(|a| {
                    let list = message_texts(&a.payload);
                    if a.reuse.after != 0 {
                        let n = a.reuse.kept;
                        match &previous_list {
                            Some((token, before)) if *token == a.reuse.after => {
                                if n > before.len() || n > list.len() || list[..n] != before[..n] {
                                    failures.push(format!(
                                        "{} (pi {release}) first {k}: kept {n} messages that differ",
                                        r.at
                                    ));
                                }
                                kept += n;
                            }
                            _ => failures.push(format!(
                                "{} (pi {release}) first {k}: kept after an unknown request",
                                r.at
                            )),
                        }
                    }
                    previous_list = Some((a.reuse.token, list));
                    (a.reuse.token, a.payload.clone())
                });
                match compare(from_scratch, carried) {
                    Ok(Some(api)) => {
                        assembled += 1;
                        apis.insert(api);
                    }
                    Ok(None) => refused += 1,
                    Err(d) => failures.push(format!(
                        "{} (pi {release}) first {k} of {n} messages, {shared} shared: {d}",
                        r.at
                    )),
                }
                if let Some((token, payload)) = back {
                    resume.recycle(token, payload);
                }
            }
        }
    }
    eprintln!(
        "assemble_resumed vs assemble_messages: {assembled} equal requests, {refused} equal refusals, {resumed} with a shared prefix, {kept} messages kept from a previous payload"
    );
    assert!(
        failures.is_empty(),
        "{} difference(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(refused > 0 && resumed > 1000);
    assert!(
        kept > 100,
        "only {kept} messages kept from a previous payload"
    );
    assert_eq!(apis, Api::ALL.into_iter().collect(), "APIs assembled");
}

/// Each item of a payload's `messages` as text (empty when it has none).
fn message_texts(payload: &Value) -> Vec<String> {
    payload["messages"]
        .as_array()
        .map(|a| a.iter().map(stringify).collect())
        .unwrap_or_default()
}

/// The comparison itself: requests that differ in any one field are reported, naming the field.
#[test]
fn divergence_names_each_field() {
    let text =
        std::fs::read_to_string(repo().join("fixtures/wire/bench/anthropic-messages.case.json"))
            .expect("bench case");
    let CaseFile::Single(c) = CaseFile::parse(&text).expect("case") else {
        panic!("a single case");
    };
    let release = PiRelease::V1_6_0;
    let model = Catalog::builtin(release).resolve(&c.model).expect("model");
    let a = assemble_with(
        release,
        &model,
        &c.context,
        &c.options,
        c.entry,
        &c.env,
        Build::default(),
    )
    .expect("assembles");
    assert_eq!(divergence(&a, &a.clone()), None);
    let changed = |f: &dyn Fn(&mut Assembled)| {
        let mut b = a.clone();
        f(&mut b);
        divergence(&a, &b).unwrap_or_default()
    };
    assert!(changed(&|b| b.api = Api::PiMessages).starts_with("api:"));
    assert!(changed(&|b| b.payload["max_tokens"] = Value::from(1)).starts_with("$.payload"));
    assert!(changed(&|b| b.wire = None).starts_with("wire:"));
    let wire = |f: &dyn Fn(&mut WireRequest)| {
        changed(&|b| {
            if let Some(w) = &mut b.wire {
                f(w)
            }
        })
    };
    assert!(wire(&|w| w.url.push('x')).starts_with("wire.url"));
    assert!(wire(&|w| w.method = "GET".into()).starts_with("wire.method"));
    assert!(wire(&|w| {
        w.headers.insert("x".into(), "y".into());
    })
    .starts_with("wire.headers"));
    assert!(wire(&|w| w.body_text.push(' ')).starts_with("wire.body_text"));
    assert!(
        a.thread.is_some(),
        "a 1.6 Anthropic request has thread settings"
    );
    assert!(changed(&|b| b.thread = None).starts_with("thread:"));
    assert!(changed(&|b| b.strict_tools_disabled ^= true).starts_with("strict_tools_disabled"));
    assert!(changed(&|b| b.has_preferred_strict_tools ^= true)
        .starts_with("has_preferred_strict_tools"));
    // Dropping the last message is caught on the real path, not only on hand-made values.
    let refs: Vec<&Value> = c.context["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .collect();
    let shorter = assemble_messages(
        release,
        &model,
        &refs[..refs.len() - 1],
        &c.options,
        c.entry,
        &c.env,
        Build::default(),
    );
    assert!(compare(Ok(a), shorter).is_err());
}

/// `Build::without_body` changes nothing but the body: on every committed case under every
/// release, the request built without it equals the full one with its `body_text` emptied
/// (payload, URL, method, headers, thread and strict flags, refusals), and a fetch request's
/// full body is not empty.
#[test]
fn a_request_without_its_body_is_the_same_request() {
    let mut failures = Vec::new();
    let (mut compared, mut bodies) = (0, 0);
    for r in requests() {
        for release in PiRelease::ALL {
            let Ok(model) = Catalog::builtin(release).resolve(&r.model) else {
                continue;
            };
            let build = |b: Build| {
                assemble_with(release, &model, &r.context, &r.options, r.entry, &r.env, b)
            };
            let full = build(Build::default());
            let without = build(Build {
                without_body: true,
                ..Build::default()
            });
            let emptied = full.map(|mut a| {
                if let Some(w) = a.wire.as_mut() {
                    bodies += usize::from(!w.body_text.is_empty());
                    w.body_text.clear();
                }
                a
            });
            match compare(emptied, without) {
                Ok(_) => compared += 1,
                Err(d) => failures.push(format!("{} (pi {release}): {d}", r.at)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        compared > 1000 && bodies > 1000,
        "{compared} compared, {bodies} bodies"
    );
}
