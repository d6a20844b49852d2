//! Fuzz oracle `wire_case`: the case reader and request assembly on all ten APIs.
//!
//! [`Case::parse`] never panics. A case it accepts is assembled, as every supported Pi release,
//! for its own model (when that release's catalog resolves it) and, with the same context,
//! options, entry and environment, for one catalog model of each of the ten APIs. Every assembly either succeeds or returns an error
//! (pi-ai's refusal text, never a panic); it is deterministic; and a wire body is the
//! `JSON.stringify` text of a JSON value: it parses, and writing that value again gives the same
//! bytes.
//!
//! Shared by `fuzz/fuzz_targets/wire_case.rs` and `crates/wire/tests/wire.rs`.

use std::collections::BTreeMap;

use forge_replay_model::json;
use forge_replay_model::release::PiRelease;
use forge_replay_wire::{assemble, Assembled, Case, Catalog, Env, Model, ModelSpec};

/// One catalog model per API, in `Api::ALL` order.
const MODELS: [(&str, &[&str]); 10] = [
    ("moonshotai", &["kimi-k3"]),
    ("mistral", &["mistral-large-latest"]),
    ("openai", &["gpt-5.5"]),
    ("azure-openai-responses", &["gpt-5.5"]),
    // 1.6.0 dropped gpt-5.5 from the Codex catalog.
    ("openai-codex", &["gpt-5.5", "gpt-5.6-sol"]),
    ("anthropic", &["claude-opus-4-8"]),
    ("amazon-bedrock", &["anthropic.claude-opus-4-8"]),
    ("google", &["gemini-2.5-pro"]),
    ("google-vertex", &["gemini-2.5-flash"]),
    ("radius", &["balanced"]),
];

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(case) = Case::parse(text) else {
        return;
    };
    // Azure needs a resource name (or a base URL) to build a URL at all.
    let mut vars: BTreeMap<String, String> = case.env.vars().clone();
    vars.entry("AZURE_OPENAI_RESOURCE_NAME".into())
        .or_insert_with(|| "fuzz".into());
    let env = Env::new(vars);
    for release in PiRelease::ALL {
        let catalog = Catalog::builtin(release);
        if let Ok(model) = catalog.resolve(&case.model) {
            let first = assembled(release, &model, &case, &case.env);
            let again = assembled(release, &model, &case, &case.env);
            assert_eq!(
                first, again,
                "{release}: assembly is not deterministic: {text:?}"
            );
        }
        for (api, (provider, ids)) in forge_replay_wire::Api::ALL.into_iter().zip(MODELS) {
            let resolve = |id: &str| {
                catalog.resolve(&ModelSpec::Catalog {
                    provider: provider.into(),
                    id: id.into(),
                    overrides: None,
                })
            };
            let model = ids
                .iter()
                .find_map(|id| resolve(id).ok())
                .unwrap_or_else(|| {
                    panic!("{release}: no catalog model of {provider} among {ids:?}")
                });
            assert_eq!(
                model.api(),
                Some(api),
                "{provider}/{} is not on {api}",
                model.id()
            );
            assembled(release, &model, &case, &env);
        }
    }
}

/// Assembles the case on `model` and checks the wire body; the result as comparable text.
fn assembled(release: PiRelease, model: &Model, case: &Case, env: &Env) -> String {
    match assemble(
        release,
        model,
        &case.context,
        &case.options,
        case.entry,
        env,
    ) {
        Ok(a) => {
            body_is_stringify_text(&a);
            json::stringify(&a.to_json())
        }
        Err(e) => format!("error: {e}"),
    }
}

fn body_is_stringify_text(a: &Assembled) {
    let Some(wire) = &a.wire else {
        return;
    };
    let body = json::parse(&wire.body_text).unwrap_or_else(|e| {
        panic!(
            "{}: the wire body is not JSON ({e}): {:?}",
            a.api, wire.body_text
        )
    });
    assert_eq!(
        json::stringify(&body),
        wire.body_text,
        "{}: the wire body is not JSON.stringify text",
        a.api
    );
}
