//! Conduct on stderr: a progress bar only when stderr is a terminal, warnings always, levelled
//! logs with `-v` / `-vv`. No colour is ever written, so `NO_COLOR` holds trivially and logs
//! stay greppable in CI.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over files (and bytes) that hides itself when stderr is not a terminal.
pub struct Progress {
    bar: ProgressBar,
    verbose: u8,
}

impl Progress {
    /// A bar for `files` inputs; hidden when `quiet` or stderr is not a terminal.
    pub fn new(files: usize, quiet: bool) -> Self {
        Self::with_bytes(files, 0, quiet, 0)
    }

    /// A bar for `files` inputs of `bytes` bytes in all, logging at `verbose` level.
    pub fn with_bytes(files: usize, bytes: u64, quiet: bool, verbose: u8) -> Self {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = if visible {
            ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        let template = if bytes > 0 {
            "{spinner} {pos}/{len} files {wide_bar} {msg} {elapsed}"
        } else {
            "{spinner} {pos}/{len} files {wide_bar} {elapsed}"
        };
        bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
        Progress { bar, verbose }
    }

    /// Marks one input done.
    pub fn advance(&self) {
        self.bar.inc(1);
    }

    /// Shows bytes done so far beside the bar.
    pub fn bytes(&self, done: u64, total: u64) {
        self.bar.set_message(format!(
            "{:.1}/{:.1} MB",
            done as f64 / 1e6,
            total as f64 / 1e6
        ));
    }

    /// Prints a warning on stderr without tearing the bar, even when the bar is hidden.
    pub fn warn(&self, message: &str) {
        self.bar.suspend(|| eprintln!("ctxc: {message}"));
    }

    /// Logs `message` when running with at least `level` `-v`s (`info` at 1, `debug` at 2).
    pub fn log(&self, level: u8, message: &str) {
        if self.verbose >= level {
            let name = if level >= 2 { "debug" } else { "info" };
            self.bar.suspend(|| eprintln!("ctxc: [{name}] {message}"));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
