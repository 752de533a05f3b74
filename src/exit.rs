//! How a run ends: the exit status every command returns, and the rule that combines
//! per-input results (the worse wins), as ruff's `ExitStatus` and fd's `ExitCode` do.

/// How a run ended, as the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// 0: everything went well.
    Success = 0,
    /// 1: some input failed or has findings; the others were processed.
    Failure = 1,
    /// 2: usage or configuration error; nothing was processed.
    Error = 2,
    /// 130 (128 + SIGINT): Ctrl-C stopped the run; what was done before is reported.
    Interrupted = 130,
}

impl ExitStatus {
    /// The worse of two statuses, for combining per-file results.
    pub fn merge(self, other: ExitStatus) -> ExitStatus {
        self.max(other)
    }
}
