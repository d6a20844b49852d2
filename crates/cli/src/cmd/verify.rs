//! `forge-replay verify [SCENARIO|DIR]...`: scenarios × models compared with their goldens.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use forge_replay_engine::diff;
use forge_replay_engine::golden::GoldenStore;
use forge_replay_engine::replay::representative_models;
use forge_replay_engine::scenario;
use forge_replay_engine::verify::{self, MismatchKind, Outcome, VerifyOptions};
use forge_replay_model::json;

use crate::args::{TextOrJson, VerifyArgs};
use crate::out::{self, outln, Out};
use crate::Exit;
use forge_replay_model::text::count;

fn targets(args: &VerifyArgs, catalog: &forge_replay_wire::Catalog) -> Vec<String> {
    if let Some(m) = &args.models {
        return m
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
    }
    // clap accepts only `all` and the ten API names.
    representative_models(catalog)
        .into_iter()
        .filter(|(api, _)| args.apis.is_empty() || args.apis.iter().any(|a| a == "all" || a == api))
        .map(|(_, m)| m.to_string())
        .collect()
}

pub fn run(args: VerifyArgs) -> anyhow::Result<Exit> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths.clone()
    };
    let scenarios = match scenario::discover(&paths) {
        Ok(s) if !s.is_empty() => s,
        Ok(_) => {
            out::error!("no scenario files under {paths:?}");
            return Ok(Exit::BadInput);
        }
        Err(e) => {
            out::error!("{}", crate::cmd::error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    let root = match golden_root(args.golden_dir.as_deref(), &scenarios) {
        Ok(r) => r,
        Err(e) => {
            out::error!("{e}");
            return Ok(Exit::BadInput);
        }
    };
    if args.bless {
        if let Err(e) = may_bless_into(&root, &scenarios) {
            out::error!("{e}");
            return Ok(Exit::BadInput);
        }
    }
    // `--pi` (or FORGE_REPLAY_PI) follows one release for every scenario; otherwise each follows
    // its own `pi`, else the default.
    let pi = args.pi.requested()?.map(|(r, _)| r);
    let catalog = forge_replay_wire::Catalog::builtin(
        pi.unwrap_or(forge_replay_model::release::PiRelease::DEFAULT),
    );
    let models = targets(&args, catalog);
    let opts = VerifyOptions {
        pi,
        scenarios: scenarios.clone(),
        models,
        catalog,
        store: GoldenStore::new(root).redacting(out::redacting()),
        bless: args.bless,
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new(scenarios.len() as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} scenarios {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let result = verify::verify_with_progress(&opts, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let mut cases = match result {
        Ok(c) => c,
        Err(e) => {
            out::error!("{}", crate::cmd::error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    if out::redacting() {
        verify::redact_cases(&mut cases);
    }
    if let Some(j) = &args.junit {
        forge_replay_io::write_atomic(j, out::text(&verify::junit_xml(&cases)).as_bytes())?;
        out::note!("wrote {}", j.display());
    }
    let summary = verify::summarize(&cases);
    let color = std::io::stdout().is_terminal();
    let mut w = Out::stdout();
    match args.format.text_or_json() {
        TextOrJson::Json => {
            w.json(&(json::stringify_pretty(&verify::report_json(&cases)) + "\n"))?
        }
        TextOrJson::Text => {
            for c in &cases {
                match &c.outcome {
                    Outcome::Pass => {}
                    Outcome::Blessed(n) if *n > 0 => outln!(
                        w,
                        "blessed {} × {}: {} written",
                        c.scenario,
                        c.model,
                        count(*n, "file", "files")
                    )?,
                    Outcome::Blessed(_) => {}
                    // The cause is the error line on stderr (below).
                    Outcome::Error(_) => outln!(w, "ERROR {} × {}", c.scenario, c.model)?,
                    Outcome::Fail(ms) => {
                        outln!(
                            w,
                            "FAIL {} × {} ({})",
                            c.scenario,
                            c.model,
                            c.scenario_file.display()
                        )?;
                        for m in ms {
                            outln!(w, "  {}", m.summary())?;
                            if let MismatchKind::Changed(d) = &m.kind {
                                let text = diff::render_text(
                                    d,
                                    diff::RenderOptions {
                                        color,
                                        max_changes: 40,
                                    },
                                );
                                for line in text.lines() {
                                    outln!(w, "    {line}")?;
                                }
                            }
                        }
                    }
                }
            }
            outln!(
                w,
                "{}, {}: {} passed, {} failed, {}{}",
                count(summary.cases, "case", "cases"),
                count(summary.requests, "request", "requests"),
                summary.passed,
                summary.failed,
                count(summary.errors, "error", "errors"),
                if summary.blessed > 0 {
                    format!(", {} blessed", summary.blessed)
                } else {
                    String::new()
                }
            )?;
        }
    }
    w.flush()?;
    // Each case that could not run: one error line on stderr (it is also in the report above).
    for c in &cases {
        if let Outcome::Error(m) = &c.outcome {
            out::error!("{}", crate::cmd::check::with_path(&c.scenario_file, m));
        }
    }
    Ok(if summary.errors > 0 {
        Exit::BadInput
    } else if summary.failed > 0 {
        Exit::Findings
    } else {
        Exit::Ok
    })
}

/// Where goldens live, below a project root: `<root>/fixtures/golden`.
const GOLDEN_TREE: &str = "fixtures/golden";

/// The golden tree of these scenarios: `--golden-dir`, or else the `fixtures/golden` of the
/// nearest directory at or above the scenarios that has one (never the working directory as
/// such). All scenarios of one run must lead to the same tree.
fn golden_root(explicit: Option<&Path>, scenarios: &[PathBuf]) -> Result<PathBuf, String> {
    if let Some(dir) = explicit {
        return Ok(dir.to_path_buf());
    }
    let mut found: Option<(PathBuf, &Path)> = None;
    let mut first_missing = None;
    for s in scenarios {
        if !s.is_file() {
            // Reported as that case's error; it says nothing about where goldens are.
            first_missing.get_or_insert(s);
            continue;
        }
        let tree = nearest_tree(s).ok_or_else(|| {
            format!(
                "{}: no {GOLDEN_TREE} directory beside or above this scenario; pass --golden-dir DIR",
                s.display()
            )
        })?;
        match &found {
            None => found = Some((tree, s)),
            Some((t, other)) if *t != tree => {
                return Err(format!(
                    "{}: its goldens are in {}, those of {} in {}; verify them separately or pass --golden-dir DIR",
                    s.display(),
                    tree.display(),
                    other.display(),
                    t.display()
                ))
            }
            Some(_) => {}
        }
    }
    match (found, first_missing) {
        (Some((tree, _)), _) => Ok(tree),
        // Only unreadable scenarios: each is an error case and no golden is read or written.
        (None, Some(s)) => Ok(s.parent().unwrap_or(Path::new("")).join(GOLDEN_TREE)),
        (None, None) => Err("no scenarios".into()),
    }
}

/// `<dir>/fixtures/golden` of the nearest ancestor of the scenario's directory that has one;
/// shown relative to the working directory when it is below it.
fn nearest_tree(scenario: &Path) -> Option<PathBuf> {
    let dir = scenario
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).ok()?;
    let tree = dir
        .ancestors()
        .map(|a| a.join(GOLDEN_TREE))
        .find(|t| t.is_dir())?;
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    Some(
        match cwd.and_then(|c| tree.strip_prefix(c).ok().map(Path::to_path_buf)) {
            Some(rel) => rel,
            None => tree,
        },
    )
}

/// `--bless` writes only into a tree that is new (absent or empty), or holds the goldens of at
/// least one of these scenarios, or is the tree of the project the scenarios belong to
/// (`<root>/scenarios/…` beside `<root>/fixtures/golden`). Anything else is most likely another
/// project's tree.
fn may_bless_into(root: &Path, scenarios: &[PathBuf]) -> Result<(), String> {
    let entries: Vec<std::ffi::OsString> = match std::fs::read_dir(root) {
        Ok(rd) => rd
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .filter(|n| !forge_replay_io::is_temp_name(n))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(format!(
                "{}: cannot read the golden tree: {e}",
                root.display()
            ))
        }
    };
    if entries.is_empty() {
        return Ok(());
    }
    let project = root
        .parent()
        .and_then(Path::parent)
        .filter(|_| root.ends_with(GOLDEN_TREE))
        .map(|p| p.join("scenarios"))
        .and_then(|p| std::fs::canonicalize(p).ok());
    for s in scenarios {
        if let (Some(project), Ok(file)) = (&project, std::fs::canonicalize(s)) {
            if file.starts_with(project) {
                return Ok(());
            }
        }
        if let Ok(loaded) = scenario::load(s) {
            if root.join(loaded.name()).is_dir() {
                return Ok(());
            }
        }
    }
    Err(format!(
        "{}: this golden tree holds none of these scenarios' goldens; refusing to bless into it (pass --golden-dir DIR for their own tree)",
        root.display()
    ))
}
