//! `forge-replay verify [SCENARIO|DIR]...`: scenarios × models compared with their goldens.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use forge_replay_engine::diff;
use forge_replay_engine::golden::GoldenStore;
use forge_replay_engine::replay::REPRESENTATIVE_MODELS;
use forge_replay_engine::scenario;
use forge_replay_engine::verify::{self, MismatchKind, Outcome, VerifyOptions};
use forge_replay_model::json;

use crate::args::{TextOrJson, VerifyArgs};
use crate::out::{self, outln, Out};
use crate::Exit;

fn targets(args: &VerifyArgs) -> Vec<String> {
    if let Some(m) = &args.models {
        return m
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
    }
    // clap accepts only `all` and the ten API names.
    REPRESENTATIVE_MODELS
        .iter()
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
    let models = targets(&args);
    // `--pi` (or FORGE_REPLAY_PI) follows one release for every scenario; otherwise each follows
    // its own `pi`, else the default.
    let pi = args.pi.requested()?.map(|(r, _)| r);
    let catalog = forge_replay_wire::Catalog::builtin(
        pi.unwrap_or(forge_replay_model::release::PiRelease::DEFAULT),
    );
    let opts = VerifyOptions {
        pi,
        scenarios: scenarios.clone(),
        models,
        catalog,
        store: GoldenStore::new(
            args.golden_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("fixtures/golden")),
        )
        .redacting(out::redacting()),
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
    }
    let summary = verify::summarize(&cases);
    let color = std::io::stdout().is_terminal();
    let mut w = Out::stdout();
    match args.format {
        TextOrJson::Json => {
            w.json(&(json::stringify_pretty(&verify::report_json(&cases)) + "\n"))?
        }
        TextOrJson::Text => {
            for c in &cases {
                match &c.outcome {
                    Outcome::Pass => {}
                    Outcome::Blessed(n) if *n > 0 => outln!(
                        w,
                        "blessed {} × {}: {n} file(s) written",
                        c.scenario,
                        c.model
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
                "{} case(s), {} request(s): {} passed, {} failed, {} errors{}",
                summary.cases,
                summary.requests,
                summary.passed,
                summary.failed,
                summary.errors,
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
