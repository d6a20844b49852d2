/// Process exit codes shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Exit {
    /// Everything was equal / clean.
    Ok = 0,
    /// Findings, differences or a threshold missed.
    Findings = 1,
    /// Unreadable or invalid input, or a usage error.
    BadInput = 2,
}

impl Exit {
    /// The numeric process exit code.
    pub fn code(self) -> i32 {
        self as i32
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
