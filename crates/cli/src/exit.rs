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
}
