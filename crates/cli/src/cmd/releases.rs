//! `forge-replay releases [--pi R] [--format text|md|json]`: the supported Pi releases and, per
//! release, every behaviour it changes, from the table the code follows
//! (`forge_replay_model::release::CHANGES`). `--format md` is `docs/releases.md` (a test keeps the
//! committed page equal to it).

use std::io::Write as _;

use forge_replay_model::json;
use forge_replay_model::release::{ChangeInfo, Layer, PiRelease, CHANGES, MARKERS};
use forge_replay_wire::catalog::manifest;
use forge_replay_wire::Catalog;
use serde_json::{json, Value};

use crate::args::{Format, ReleasesArgs};
use crate::Exit;

const LAYERS: [Layer; 5] = [
    Layer::Catalog,
    Layer::Shared,
    Layer::Api,
    Layer::Agent,
    Layer::Session,
];

pub fn run(args: ReleasesArgs) -> anyhow::Result<Exit> {
    let only = args.pi.as_deref().map(PiRelease::parse).transpose()?;
    let releases: Vec<PiRelease> = PiRelease::ALL
        .into_iter()
        .filter(|r| only.is_none_or(|o| o == *r))
        .collect();
    let text = match Format::or_default(args.format) {
        Format::Text => text(&releases),
        Format::Md => markdown(),
        _ => json::stringify_pretty(&to_json(&releases)) + "\n",
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(Exit::Ok)
}

/// What a release's catalog is: manifest schema, generation time, chat and other models.
fn catalog_line(r: PiRelease) -> String {
    let m = json::parse(manifest(r)).unwrap_or(Value::Null);
    let cat = Catalog::builtin(r);
    let other = cat.other_models().len();
    format!(
        "pi-ai catalog: manifest schema {}, generated {}, {} chat models{}",
        m["schemaVersion"],
        m["generatedAt"].as_str().unwrap_or("?"),
        cat.len(),
        if other > 0 {
            format!(" (+{other} image and classifier models)")
        } else {
            String::new()
        }
    )
}

fn previous(r: PiRelease) -> Option<PiRelease> {
    PiRelease::ALL.into_iter().rev().find(|p| *p < r)
}

fn role(r: PiRelease) -> &'static str {
    match (r == PiRelease::DEFAULT, r == PiRelease::LATEST) {
        (true, true) => " (default, newest supported)",
        (true, false) => " (default)",
        (false, true) => " (newest supported)",
        (false, false) => "",
    }
}

fn apis(c: &ChangeInfo) -> String {
    if c.apis.is_empty() {
        String::new()
    } else {
        format!(" [{}]", c.apis.join(", "))
    }
}

fn text(releases: &[PiRelease]) -> String {
    let mut out = String::new();
    for r in releases {
        out.push_str(&format!("Pi {r}{}\n  {}\n", role(*r), catalog_line(*r)));
        let Some(prev) = previous(*r) else {
            out.push_str("  the base release: the changes of later releases are against it\n\n");
            continue;
        };
        let changes: Vec<&ChangeInfo> = r.introduced().collect();
        out.push_str(&format!(
            "  {} against {prev}:\n",
            forge_replay_model::text::count(changes.len(), "change", "changes")
        ));
        for layer in LAYERS {
            let of: Vec<&&ChangeInfo> = changes.iter().filter(|c| c.layer == layer).collect();
            if of.is_empty() {
                continue;
            }
            out.push_str(&format!("  {}\n", layer.name()));
            for c in of {
                out.push_str(&format!(
                    "    {}{}\n      {}\n      follows {}\n",
                    c.name,
                    apis(c),
                    c.summary,
                    c.follows
                ));
            }
        }
        out.push('\n');
    }
    out.push_str("Session markers (what tells which release wrote a session):\n");
    for m in MARKERS {
        out.push_str(&format!("  {} ({}): {}\n", m.name, m.since, m.what));
    }
    out
}

fn to_json(releases: &[PiRelease]) -> Value {
    let rows: Vec<Value> = releases
        .iter()
        .map(|r| {
            let m = json::parse(manifest(*r)).unwrap_or(Value::Null);
            let cat = Catalog::builtin(*r);
            let changes: Vec<Value> = r
                .introduced()
                .map(|c| {
                    json!({"name": c.name, "layer": c.layer.name(), "apis": c.apis,
                           "summary": c.summary, "follows": c.follows})
                })
                .collect();
            json!({
                "version": r.version(),
                "default": *r == PiRelease::DEFAULT,
                "latest": *r == PiRelease::LATEST,
                "against": previous(*r).map(PiRelease::version),
                "catalog": {"schemaVersion": m["schemaVersion"], "generatedAt": m["generatedAt"],
                            "chatModels": cat.len(), "otherModels": cat.other_models().len()},
                "changes": changes,
            })
        })
        .collect();
    let markers: Vec<Value> = MARKERS
        .iter()
        .map(|m| json!({"name": m.name, "since": m.since, "what": m.what}))
        .collect();
    json!({"releases": rows, "markers": markers})
}

/// `docs/releases.md`.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Pi releases\n\n\
<!-- Generated by `forge-replay releases --format md` from the table the code follows \
(crates/model/src/release.rs); do not edit by hand. A test fails when this page is stale. -->\n\n\
forge-replay follows one Pi release at a time: its pi-ai catalog, its request assembly for every \
API, its agent loop. Each behaviour difference between releases is written down once, with a name \
and the package function it follows; the code asks for it by name. This page lists them.\n\n\
## Choosing the release\n\n\
- `--pi RELEASE` on `assemble`, `replay`, `context`, `usage`, `cache explain`, `check`, `verify`, \
`models`, `report providers`, `report session` (and `capabilities`); else the environment variable `FORGE_REPLAY_PI`.\n\
- Otherwise what the input says: a case file's or scenario's `\"pi\"`; for a session, the release \
whose markers it holds (listed below), said on stderr. `--pi` against contrary evidence is a \
warning, and the release asked for is followed.\n\
- Otherwise the default, **0.87.1**: every case file, scenario and golden written before releases \
existed follows it, and a session without any marker of a later release was written by it.\n\
- An unknown release is exit 2, naming the supported ones.\n\n\
```console\n\
$ forge-replay releases --pi 1.6.0 --format text\n\
Pi 1.6.0 (newest supported)\n\
$ forge-replay models --pi 1.5.2 # exit 2\n\
unknown Pi release \"1.5.2\"; supported releases: 0.87.1, 1.3.0, 1.6.0\n\
```\n\n",
    );
    out.push_str(
        "## What a replay assumes\n\n\
A session records each response, not everything the agent knew when it sent the request. Where \
the file leaves a choice, replay takes the following (see [verify.md](verify.md)):\n\n\
- **Model**: the one recorded on each response. Under a 1.3 virtual model the response names the \
physical model its router picked, so the request replays as that model.\n\
- **Thinking level**: the one the response recorded (1.3 writes `thinkingLevel` on every \
response). A 0.87.1 response records none; then the live agent's level: `/tree` navigation \
restores messages and tools from the path but keeps the agent's model and thinking level \
(`navigateTree`), so the last level set in the file before the request holds, on whatever \
branch. A session reopened between a navigation and the next request restores its path's level \
instead; the file does not record that, so replay assumes no reopening, says on stderr where the \
two readings differ, and `--after-tree path` takes the path's.\n\
- **Hidden declarations** (1.3): none. A `prepareLoadout` hook can hide declarations from every \
request; the session does not record which, and `replay --hide-declarations NAME,...` names them.\n\
- **API key**: an API key of the provider's usual kind. For OpenAI Responses from 1.3 that is an \
`sk-` key: 1.3 takes any other credential for a ChatGPT sign-in and drops `max_output_tokens`, \
`temperature` and the prompt-cache fields.\n\
- **A session continued by a newer Pi**: followed as the newest release it shows (a note says how \
many earlier responses an older release wrote); every request is rebuilt as that release.\n\
- **A 0.87.1 session replayed as 1.3.0** (`--pi 1.3.0`, a what-if): a model of provider \
`azure-openai-responses` is `azure`'s, and the session's old responses of that provider count as \
another provider's, as they do in Pi 1.3.\n\n",
    );
    out.push_str("## Releases\n\n| release | | catalog |\n|---|---|---|\n");
    for r in PiRelease::ALL {
        out.push_str(&format!(
            "| {r} | {} | {} |\n",
            role(r).trim().trim_matches(['(', ')']),
            catalog_line(r).trim_start_matches("pi-ai catalog: ")
        ));
    }
    out.push('\n');
    for r in PiRelease::ALL {
        let Some(prev) = previous(r) else { continue };
        let changes: Vec<&ChangeInfo> = r.introduced().collect();
        out.push_str(&format!(
            "## {r}: {} changes against {prev}\n\n",
            changes.len()
        ));
        for layer in LAYERS {
            let of: Vec<&&ChangeInfo> = changes.iter().filter(|c| c.layer == layer).collect();
            if of.is_empty() {
                continue;
            }
            let mut title = layer.name().to_string();
            title[..1].make_ascii_uppercase();
            out.push_str(&format!(
                "### {title}\n\n| change | APIs | what changed | follows |\n|---|---|---|---|\n"
            ));
            for c in of {
                out.push_str(&format!(
                    "| `{}` | {} | {} | {} |\n",
                    c.name,
                    if c.apis.is_empty() {
                        "all".to_string()
                    } else {
                        c.apis.join(", ")
                    },
                    c.summary.replace('|', "\\|"),
                    c.follows
                ));
            }
            out.push('\n');
        }
    }
    out.push_str(
        "## Session markers\n\n\
No release writes its version into a session file. What a release writes that older ones do \
not tells them apart; the newest release whose markers a session holds is the one that wrote \
it. Markers of releases this build does not support yet are recognised, and such a session is \
followed as the newest supported release, with a warning.\n\n\
| marker | first written by | what |\n|---|---|---|\n",
    );
    for m in MARKERS {
        out.push_str(&format!("| `{}` | {} | {} |\n", m.name, m.since, m.what));
    }
    out.push_str(&format!(
        "\n{} changes in all. See [wire.md](wire.md) for request assembly, [session.md](session.md) \
for how sessions are read, and [fixtures.md](fixtures.md) for the goldens of each release.\n",
        CHANGES.len()
    ));
    out
}
