//! The `forge-replay` command line: argument parsing, output and exit codes.
//!
//! All work happens in the library crates. Each subcommand lives in its own module under
//! [`cmd`], turns parsed arguments into library calls and maps the outcome to an [`Exit`] code:
//! 0 ok, 1 findings or differences, 2 bad input or usage.

use clap::Parser;

pub mod args;
pub mod cmd;
mod exit;

pub use exit::Exit;

/// Runs the CLI with the process arguments and returns the exit code.
pub fn run() -> i32 {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cmd::dispatch(cli) {
        Ok(exit) => exit.code(),
        Err(err) => {
            if is_broken_pipe(&err) {
                return 0;
            }
            eprintln!("forge-replay: error: {err:#}");
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
