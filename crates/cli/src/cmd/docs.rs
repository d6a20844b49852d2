//! `forge-replay completions SHELL` and `forge-replay man [--out DIR]`: generated from the clap
//! definitions ([`crate::args::Cli`]), so they cannot drift from the commands.

use clap::CommandFactory;

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::out;
use crate::Exit;

pub fn completions(args: CompletionsArgs) -> anyhow::Result<Exit> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "forge-replay", &mut script);
    // Generated from our own definitions: no input data in it.
    out::print_frame(&script)?;
    Ok(Exit::Ok)
}

/// The page of one command (`forge-replay-cache-explain.1` for `cache explain`).
fn page(cmd: clap::Command) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    clap_mangen::Man::new(cmd)
        .source(concat!("forge-replay ", env!("CARGO_PKG_VERSION")))
        .render(&mut bytes)?;
    Ok(bytes)
}

/// Every leaf and group below a built `cmd`, with its page name (clap's display name,
/// `forge-replay-cache-explain`).
fn pages(cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
    // clap's own `help` subcommands have no page.
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = sub
            .get_display_name()
            .unwrap_or_else(|| sub.get_name())
            .to_string();
        out.push((name, sub.clone()));
        pages(sub, out);
    }
}

pub fn man(args: ManArgs) -> anyhow::Result<Exit> {
    let mut cmd = Cli::command();
    cmd.build();
    match &args.out {
        None => out::print_frame(&page(cmd)?)?,
        Some(dir) => {
            let mut all = vec![("forge-replay".to_string(), cmd.clone())];
            pages(&cmd, &mut all);
            // The pages are one set: a previous `man --out` is replaced whole.
            let mut set = forge_replay_io::DirSet::begin(dir, "man")?;
            for (name, c) in &all {
                set.write(&format!("{name}.1"), &page(c.clone())?)?;
            }
            set.commit()?;
            out::note!("wrote {} man pages to {}", all.len(), dir.display());
        }
    }
    Ok(Exit::Ok)
}
