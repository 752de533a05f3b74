//! `ctxc compact`: inputs → the pipeline, in parallel → outputs written atomically → report.
//! One file's failure is reported and counted; the others go on.

use super::compact_report::{CompactReport, FileReport, SCHEMA_VERSION, table, totals};
use crate::ExitStatus;
use crate::cli::CompactArgs;
use crate::config::{TokenSettings, trigger_settings};
use crate::discover::{self, Input};
use crate::pipeline::{self, Settings, Target};
use crate::progress::Progress;
use crate::report::{self, OutputFormat};
use crate::strategy::{StrategyName, StrategySettings};
use crate::summarizer::extractive::Extractive;
use crate::transcript::{self, ReadOptions};
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where a file's output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Destination {
    /// A file.
    File(PathBuf),
    /// Standard output.
    Stdout,
    /// Nowhere (`--dry-run`).
    Nowhere,
}

/// Runs `ctxc compact`.
pub fn run(args: &CompactArgs, quiet: bool) -> Result<ExitStatus> {
    let tokens = TokenSettings::from_args(&args.tokens)?;
    let triggers = trigger_settings(&args.triggers, &tokens, args.force)?;
    let counter = tokens.counter()?;
    let target = target(args)?;
    let strategies = if args.strategy.is_empty() {
        vec![StrategyName::Adaptive]
    } else {
        args.strategy.clone()
    };
    let mut strategy = StrategySettings {
        keep_payloads: args.keep_payloads,
        ..StrategySettings::default()
    };
    if let Some(n) = args.summary_max_tokens {
        strategy.summary_max_tokens = n;
    }
    let summarizer = Extractive;
    let settings = Settings {
        read: ReadOptions {
            format: args.input.format,
            messages_path: args.input.messages_path.clone(),
        },
        triggers,
        target,
        strategies: strategies.clone(),
        strategy,
        summarizer: &summarizer,
        counter: &counter,
    };
    let (inputs, errors) = discover::discover(&args.input.inputs, &args.input.globs)?;
    let inputs: Vec<Input> = inputs
        .into_iter()
        .filter(|i| !matches!(i, Input::File(p) if named_by_walk(p, &args.input.inputs) && discover::is_ctxc_output(p)))
        .collect();
    let destinations = destinations(args, &inputs)?;
    let progress = Progress::new(inputs.len(), quiet);
    let mut files: Vec<FileReport> = errors
        .into_iter()
        .map(|e| FileReport::failed(e.path, e.message))
        .collect();
    let done: Vec<FileReport> = inputs
        .par_iter()
        .zip(&destinations)
        .map(|(input, dest)| {
            let report = compact_file(input, dest, &settings, args.force_overwrite);
            progress.advance();
            report
        })
        .collect();
    files.extend(done);
    // Unusable paths among the others, all in path order.
    files.sort_by(|a, b| a.path.cmp(&b.path));
    progress.finish();
    for f in files.iter().filter(|f| f.error.is_some()) {
        progress.warn(&format!("{}: {}", f.path, f.error.as_deref().unwrap_or("")));
    }
    let report = CompactReport {
        schema_version: SCHEMA_VERSION,
        tokenizer: tokens,
        strategies,
        summarizer: summarizer_name(&settings),
        dry_run: args.dry_run,
        totals: totals(&files),
        files,
    };
    let to_stderr = destinations.contains(&Destination::Stdout);
    print(&report, args.report.format(), quiet, to_stderr)?;
    Ok(if report.totals.failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

fn summarizer_name(settings: &Settings) -> String {
    settings.summarizer.name().to_string()
}

/// Whether `path` was found by walking a directory (not named on the command line).
fn named_by_walk(path: &Path, given: &[PathBuf]) -> bool {
    !given.iter().any(|g| g == path)
}

fn target(args: &CompactArgs) -> Result<Target> {
    Ok(match (args.target_tokens, args.target_ratio) {
        (Some(n), _) => Target::Tokens(n),
        (None, Some(r)) if r > 0.0 && r <= 1.0 => Target::Ratio(r),
        (None, Some(r)) => bail!("--target-ratio must be above 0 and at most 1, got {r}"),
        (None, None) => Target::Threshold,
    })
}

/// Each input's destination; an error when the options cannot work for these inputs.
fn destinations(args: &CompactArgs, inputs: &[Input]) -> Result<Vec<Destination>> {
    if args.dry_run {
        return Ok(vec![Destination::Nowhere; inputs.len()]);
    }
    if let Some(output) = &args.output {
        if inputs.len() != 1 {
            bail!(
                "-o/--output takes one input, got {}: use the default outputs beside each input",
                inputs.len()
            );
        }
        let dest = if output.as_os_str() == "-" {
            Destination::Stdout
        } else {
            Destination::File(output.clone())
        };
        return Ok(vec![dest]);
    }
    Ok(inputs
        .iter()
        .map(|input| match input {
            Input::Stdin => Destination::Stdout,
            Input::File(path) => Destination::File(discover::beside(path)),
        })
        .collect())
}

/// Reads, compacts and writes one input; every failure ends up in its report.
fn compact_file(
    input: &Input,
    dest: &Destination,
    settings: &Settings,
    overwrite: bool,
) -> FileReport {
    let started = Instant::now();
    let path = input.display();
    let result = (|| -> Result<FileReport> {
        check_destination(input, dest, overwrite)?;
        let text =
            discover::load(input).map_err(|e| anyhow::anyhow!(locate(e.line, &e.message)))?;
        let t = transcript::read(text, &settings.read).map_err(|e| {
            let first = &e.findings[0];
            anyhow::anyhow!(locate(first.line, &first.message))
        })?;
        let outcome = pipeline::run(&t, settings)?;
        write(dest, &outcome.output, input)?;
        let mut report = FileReport::of(path.clone(), &t, &outcome);
        report.output = match dest {
            Destination::File(p) => Some(p.display().to_string()),
            Destination::Stdout => Some("-".into()),
            Destination::Nowhere => None,
        };
        Ok(report)
    })();
    let mut report = result.unwrap_or_else(|e| FileReport::failed(path, format!("{e:#}")));
    report.time_ms = started.elapsed().as_millis() as u64;
    report
}

/// Refuses to overwrite an input, or an existing output without `--force-overwrite`.
fn check_destination(input: &Input, dest: &Destination, overwrite: bool) -> Result<()> {
    let Destination::File(out) = dest else {
        return Ok(());
    };
    if let Input::File(path) = input {
        let same = match (path.canonicalize(), out.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same {
            bail!(
                "the output {} is the input itself: ctxc never overwrites its input",
                out.display()
            );
        }
    }
    if out.exists() && !overwrite {
        bail!(
            "the output {} exists (use --force-overwrite to replace it)",
            out.display()
        );
    }
    Ok(())
}

fn write(dest: &Destination, output: &str, input: &Input) -> Result<()> {
    match dest {
        Destination::Nowhere => Ok(()),
        Destination::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(output.as_bytes())?;
            out.flush().context("writing to standard output")
        }
        Destination::File(path) => {
            let like = match input {
                Input::File(p) => Some(p.as_path()),
                Input::Stdin => None,
            };
            discover::write_atomic(path, output.as_bytes(), like)
        }
    }
}

fn locate(line: usize, message: &str) -> String {
    if line == 0 {
        message.to_string()
    } else {
        format!("line {line}: {message}")
    }
}

fn print(report: &CompactReport, format: OutputFormat, quiet: bool, to_stderr: bool) -> Result<()> {
    if quiet && format == OutputFormat::Table {
        return Ok(());
    }
    let text = report::render(format, report, &table(report))?;
    if to_stderr {
        std::io::stderr().lock().write_all(text.as_bytes())?;
    } else {
        std::io::stdout().lock().write_all(text.as_bytes())?;
    }
    Ok(())
}
