/// Process exit codes shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything was equal / clean.
    Ok,
    /// Findings, differences or a threshold missed.
    Findings,
    /// Unreadable or invalid input, or a usage error.
    BadInput,
}

impl Exit {
    /// The numeric process exit code.
    pub fn code(self) -> i32 {
        match self {
            Exit::Ok => 0,
            Exit::Findings => 1,
            Exit::BadInput => 2,
        }
    }

    /// The worst outcome of a run: [`Exit::BadInput`] when some input could not be used, else
    /// [`Exit::Findings`] when there are findings, else [`Exit::Ok`].
    pub fn of(bad_input: bool, findings: bool) -> Exit {
        match (bad_input, findings) {
            (true, _) => Exit::BadInput,
            (false, true) => Exit::Findings,
            (false, false) => Exit::Ok,
        }
    }

    /// [`Exit::Findings`] when there are findings, else [`Exit::Ok`].
    pub fn findings_if(findings: bool) -> Exit {
        Exit::of(false, findings)
    }
}
