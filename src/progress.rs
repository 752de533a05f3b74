//! Conduct on stderr: a progress bar only when stderr is a terminal, warnings always, levelled
//! logs with `-v` / `-vv`. No colour is ever written, so `NO_COLOR` holds trivially and logs
//! stay greppable in CI.
//!
//! The bar shows the rate and an ETA: files per second, and with a byte total (compact) the
//! megabytes read per second and an ETA from the bytes left, since files can differ in size by
//! orders of magnitude; without one (stats, sessions), an ETA from the files left.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A progress bar over files (and bytes) that hides itself when stderr is not a terminal.
pub struct Progress {
    bar: ProgressBar,
    verbose: u8,
    started: Instant,
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
            "{spinner} {pos}/{len} files {wide_bar} {files_per_sec}, ETA {eta} {elapsed}"
        };
        let style = ProgressStyle::with_template(template)
            .expect("the template is valid")
            .with_key(
                "files_per_sec",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1} files/s", state.per_sec());
                },
            );
        bar.set_style(style);
        if visible {
            // The spinner and the elapsed time move while one large file is worked on.
            bar.enable_steady_tick(Duration::from_millis(100));
            if bytes > 0 {
                bar.set_message(bytes_message(0, bytes, 0, Duration::ZERO));
            }
        }
        Progress {
            bar,
            verbose,
            started: Instant::now(),
        }
    }

    /// Marks one input done.
    pub fn advance(&self) {
        self.bar.inc(1);
    }

    /// Names what the one file of a one-file run is going through (`compacting PATH`), so a
    /// large file's bar says what it waits on; with several files the bar's counts say it.
    pub fn stage(&self, stage: &str) {
        if self.bar.length() == Some(1) {
            self.bar.set_message(stage.to_string());
        }
    }

    /// Shows bytes done so far beside the bar, their rate and the time left at that rate.
    pub fn bytes(&self, done: u64, total: u64) {
        let files = self.bar.position();
        self.bar
            .set_message(bytes_message(done, total, files, self.started.elapsed()));
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

/// `12.3/45.6 MB, 4.1 MB/s, 2.0 files/s, ETA 8 seconds`: `done` of `total` bytes and `files`
/// files after `elapsed`.
fn bytes_message(done: u64, total: u64, files: u64, elapsed: Duration) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    let mut text = format!("{:.1}/{:.1} MB", mb(done), mb(total));
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 && done > 0 {
        let rate = done as f64 / secs;
        let left = Duration::from_secs_f64(total.saturating_sub(done) as f64 / rate);
        let _ = write!(
            text,
            ", {:.1} MB/s, {:.1} files/s, ETA {}",
            rate / 1e6,
            files as f64 / secs,
            indicatif::HumanDuration(left)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_message_has_a_rate_and_an_eta() {
        let at = |secs| bytes_message(20_000_000, 100_000_000, 6, Duration::from_secs(secs));
        assert_eq!(
            at(4),
            "20.0/100.0 MB, 5.0 MB/s, 1.5 files/s, ETA 16 seconds"
        );
        assert_eq!(
            bytes_message(0, 100_000_000, 0, Duration::ZERO),
            "0.0/100.0 MB"
        );
    }
}
