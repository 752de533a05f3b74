//! One transcript's text in, its compacted text and report out: what `ctxc compact` does to
//! one file, without files, for library callers (the Python package in `python/`).
//!
//! `ctxc compact` runs each file through [`plan`] and [`finish`] too, so a caller gets the
//! CLI's output bytes, report figures and error messages. Settings are the settings file's
//! keys ([`Layer`]), over the defaults: no settings file and no `CTXC_*` variable is read.

use crate::commands::compact_report::FileReport;
use crate::config::{CompactConfig, Layer};
use crate::count::count_transcript;
use crate::pipeline::{self, Outcome, PlanFailure, Plans, Settings};
use crate::strategy::StrategySettings;
use crate::summarizer::extractive::Extractive;
use crate::tokens::TokenCounter;
use crate::transcript::{self, Finding, Format, ReadOptions, Transcript};
use std::time::Instant;

/// Why a transcript failed: the step (`parse`, `check`, `compact`; `settings` for settings
/// no transcript could be compacted with), the line (0 for none), the error, and what was
/// measured before it failed.
#[derive(Debug)]
pub struct Failed {
    /// The step that failed.
    pub step: &'static str,
    /// The line of the input the error is about (0: none).
    pub line: usize,
    /// What went wrong, as `ctxc compact` reports it.
    pub error: anyhow::Error,
    /// The report so far, when the file was measured.
    pub report: Option<Box<FileReport>>,
}

impl Failed {
    /// A failure at `step`, `line`, from an error.
    pub fn at(step: &'static str, line: usize) -> impl Fn(anyhow::Error) -> Failed {
        move |error| Failed {
            step,
            line,
            error,
            report: None,
        }
    }

    /// The failed report of `path`, with what was measured before the failure.
    pub fn into_report(self, path: &str) -> FileReport {
        let report = self.report.map_or_else(
            || FileReport {
                path: path.to_string(),
                ..FileReport::default()
            },
            |r| *r,
        );
        report.fail(self.step, self.line, format!("{:#}", self.error))
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{:#}", self.error),
            line => write!(f, "line {line}: {:#}", self.error),
        }
    }
}

/// Reads, checks and plans `text` ([`pipeline::read_and_plan`]); a failure says the step and
/// line as `ctxc compact` reports them.
pub fn plan(
    text: String,
    settings: &Settings,
    refuse_findings: bool,
) -> Result<(Transcript, Plans), Failed> {
    pipeline::read_and_plan(text, settings, refuse_findings).map_err(|failure| match failure {
        PlanFailure::Read(e) => {
            let first = &e.findings[0];
            Failed::at("parse", first.line)(anyhow::anyhow!(first.message.clone()))
        }
        PlanFailure::Findings(findings) => {
            let first = &findings[0];
            let more = match findings.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            Failed::at("check", first.line)(anyhow::anyhow!(
                "{}{more}: the input fails `ctxc check`, so it is not compacted (--allow-findings compacts it anyway)",
                first.message
            ))
        }
        PlanFailure::Compact(e) => Failed::at("compact", 0)(e),
    })
}

/// Compacts what [`plan`] planned ([`pipeline::finish`]).
pub fn finish<'t>(
    t: &'t Transcript,
    plans: Plans,
    settings: &Settings,
) -> Result<Outcome<'t>, Failed> {
    pipeline::finish(t, plans, settings).map_err(|e| match e.downcast::<pipeline::Unwritable>() {
        Ok(pipeline::Unwritable(finding)) => Failed::at("check", finding.line)(anyhow::anyhow!(
            "{}: compaction cannot work around it, so the input is not compacted, even with --allow-findings",
            finding.message
        )),
        Err(e) => Failed::at("compact", 0)(e),
    })
}

/// What a call compacts with, besides the text.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The name the report gives the input (`path`).
    pub name: String,
    /// The format (detected when `None`) and the message lists' JSON pointer.
    pub read: ReadOptions,
    /// Settings-file keys; unset keys take their defaults.
    pub settings: Layer,
    /// Compact even when no trigger fires (`--force`).
    pub force: bool,
    /// Compact an input with findings (`--allow-findings`).
    pub allow_findings: bool,
}

/// A compacted transcript.
#[derive(Debug, Clone)]
pub struct Compacted {
    /// The output text, in the input's format and layout.
    pub output: String,
    /// The report `ctxc compact --json` gives for the file (`output` unset).
    pub report: FileReport,
}

/// The validated settings of `options` (only the extractive summarizer: a call never sends a
/// transcript anywhere).
pub fn config(options: &Options) -> Result<CompactConfig, Failed> {
    let config = CompactConfig::from_layer(options.settings.clone(), options.force)
        .map_err(Failed::at("settings", 0))?;
    if config.summarizer.kind != "extractive" {
        return Err(Failed::at("settings", 0)(anyhow::anyhow!(
            "summarizer '{}': only the extractive summarizer is available in a library call",
            config.summarizer.kind
        )));
    }
    Ok(config)
}

/// Compacts one transcript's text as `ctxc compact` compacts a file holding it.
pub fn compact_text(text: String, options: &Options) -> Result<Compacted, Failed> {
    let started = Instant::now();
    let config = config(options)?;
    let counter = config.tokens.counter().map_err(Failed::at("settings", 0))?;
    let settings = Settings {
        read: options.read.clone(),
        triggers: config.triggers.clone(),
        target: config.target,
        strategies: config.strategies.clone(),
        strategy: StrategySettings {
            drop_stored: false,
            step_plans: false,
            ..config.strategy.clone()
        },
        summarizer: &Extractive,
        counter: &counter,
    };
    let (t, plans) = plan(text, &settings, !options.allow_findings)?;
    let outcome = finish(&t, plans, &settings)?;
    let mut report = FileReport::of(options.name.clone(), &t, &outcome);
    report.time_ms = started.elapsed().as_millis() as u64;
    Ok(Compacted {
        output: outcome.output.into_owned(),
        report,
    })
}

/// Reads `text` as a transcript; the first finding when it cannot be read.
fn read(text: String, read: &ReadOptions) -> Result<Transcript, Finding> {
    transcript::read(text, read).map_err(|mut e| e.findings.swap_remove(0))
}

/// The context tokens of a transcript's text, summed over its conversations, as `ctxc stats`
/// counts them (`contextTokens`).
pub fn count_transcript_text(
    text: String,
    read_options: &ReadOptions,
    counter: &TokenCounter,
) -> Result<usize, Finding> {
    let t = read(text, read_options)?;
    Ok(count_transcript(counter, &t)
        .conversations
        .iter()
        .map(|c| c.total())
        .sum())
}

/// What `ctxc check` finds in a transcript's text, and the format it was read as.
pub fn check_text(text: String, read_options: &ReadOptions) -> (Option<Format>, Vec<Finding>) {
    match transcript::read(text, read_options) {
        Err(e) => (None, e.findings),
        Ok(t) => {
            let findings = transcript::check(&t);
            (Some(t.format), findings)
        }
    }
}
