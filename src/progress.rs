//! Progress on stderr: a bar only when stderr is a terminal, warnings always.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over files that hides itself when stderr is not a terminal (CI, pipes).
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `files` inputs; hidden when `quiet` or stderr is not a terminal.
    pub fn new(files: usize, quiet: bool) -> Self {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = if visible {
            ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{spinner} {pos}/{len} files {wide_bar} {elapsed}")
                .expect("the template is valid"),
        );
        Progress { bar }
    }

    /// Marks one input done.
    pub fn advance(&self) {
        self.bar.inc(1);
    }

    /// Prints a warning on stderr without tearing the bar, even when the bar is hidden.
    pub fn warn(&self, message: &str) {
        self.bar.suspend(|| eprintln!("ctxc: {message}"));
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
