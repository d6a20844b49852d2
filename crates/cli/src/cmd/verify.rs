//! `forge-replay verify [SCENARIO|DIR]...`: scenarios × models compared with their goldens.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use forge_replay_engine::golden::GoldenStore;
use forge_replay_engine::golden_tree::{golden_root, may_bless_into};
use forge_replay_engine::replay::representative_models;
use forge_replay_engine::scenario;
use forge_replay_engine::verify::{self, Outcome, VerifyOptions};
use forge_replay_model::json;

use crate::args::{TextOrJson, VerifyArgs};
use crate::out::{self, Out};
use crate::Exit;

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
        TextOrJson::Text => w.text(&verify::report_text(&cases, color))?,
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
