//! The `forge-replay` command line: argument parsing, output and exit codes.
//!
//! All work happens in the library crates. Each subcommand lives in its own module under
//! [`cmd`], turns parsed arguments into library calls and maps the outcome to an [`Exit`] code:
//! 0 ok, 1 findings or differences, 2 bad input or usage.

use clap::Parser;

pub mod args;
pub mod cmd;
mod exit;
pub mod out;
pub mod release;

pub use exit::Exit;

/// Runs the CLI with the process arguments and returns the exit code.
pub fn run() -> i32 {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                let _ = e.print();
                return 0;
            }
            // Usage errors echo the arguments: redacted like every other output (whether
            // `--no-redact` was given is not known yet).
            // One prefix for every failure: clap's `error: …` becomes `forge-replay: error: …`.
            let text = e.to_string();
            let text = match text.strip_prefix("error: ") {
                Some(rest) => format!("forge-replay: error: {rest}"),
                None => text,
            };
            #[allow(clippy::disallowed_macros)]
            {
                eprint!("{}", forge_replay_model::redact::text(&text));
            }
            return 2;
        }
    };
    out::set_redact(!cli.no_redact);
    if cli.no_redact {
        out::warn_unredacted();
    }
    match cmd::dispatch(cli) {
        Ok(exit) => exit.code(),
        Err(err) => {
            if is_broken_pipe(&err) {
                return 0;
            }
            out::error!("{err:#}");
            Exit::BadInput.code()
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
