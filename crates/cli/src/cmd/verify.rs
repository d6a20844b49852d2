//! `forge-replay verify [SCENARIO|DIR]...`: scenarios × models compared with their goldens.

use std::io::IsTerminal as _;

use forge_replay_engine::verify::{self, Outcome, VerifyOptions};
use forge_replay_model::error::with_path;

use crate::args::{TextOrJson, VerifyArgs};
use crate::out;
use crate::Exit;

pub fn run(args: VerifyArgs) -> anyhow::Result<Exit> {
    let inputs = verify::inputs(&args.paths, args.golden_dir.as_deref(), args.bless)?;
    // `--pi` (or FORGE_REPLAY_PI) follows one release for every scenario; otherwise each follows
    // its own `pi`, else the default.
    let pi = args.pi.requested()?.map(|(r, _)| r);
    // clap accepts only `all` and the ten API names.
    let models = (args.models.as_deref(), args.apis.as_slice());
    let opts = VerifyOptions::new(inputs, pi, models, args.bless, out::redacting());
    let bar = std::io::stderr().is_terminal().then(|| {
        out::progress_bar(
            opts.scenarios.len(),
            "{bar:30} {pos}/{len} scenarios {elapsed}",
        )
    });
    let result = verify::verify_with_progress(&opts, &|| bar.iter().for_each(|b| b.inc(1)));
    bar.iter().for_each(|b| b.finish_and_clear());
    let mut cases = result?;
    if out::redacting() {
        verify::redact_cases(&mut cases);
    }
    if let Some(j) = &args.junit {
        forge_replay_io::write_atomic(j, out::text(&verify::junit_xml(&cases)).as_bytes())?;
        out::note!("wrote {}", j.display());
    }
    let summary = verify::summarize(&cases);
    let color = std::io::stdout().is_terminal();
    match args.format.text_or_json() {
        TextOrJson::Json => out::print_json(&verify::report_json(&cases))?,
        TextOrJson::Text => out::print_text(&verify::report_text(&cases, color))?,
    }
    // Each case that could not run: one error line on stderr (it is also in the report above).
    for c in &cases {
        if let Outcome::Error(m) = &c.outcome {
            out::error!("{}", with_path(&c.scenario_file, m));
        }
    }
    Ok(Exit::of(summary.errors > 0, summary.failed > 0))
}
