//! `ctxc check`: parse and validate transcripts, print findings as `path:line: message`.

use crate::ExitStatus;
use crate::cli::CheckArgs;
use crate::dataset::{self, Sniffed};
use crate::discover::{self, Input};
use crate::transcript::{self, Finding, ReadOptions};
use crate::workers;
use serde::Serialize;
use std::io::Write;

/// The verdict on one input.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileCheck {
    /// The input as named on the command line (or found in a directory).
    pub path: String,
    /// The format it was read as, when it could be read.
    pub format: Option<String>,
    /// Whether there were no findings.
    pub valid: bool,
    /// What is wrong, by line.
    pub findings: Vec<Finding>,
    /// Whether it could not be opened or read at all (an I/O error, not a finding).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonReport<'a> {
    schema_version: u32,
    files: &'a [FileCheck],
    totals: Totals,
}

#[derive(Serialize)]
struct Totals {
    /// Inputs checked (read, whatever was found).
    files: usize,
    valid: usize,
    invalid: usize,
    /// Inputs that could not be opened or read: I/O errors, counted apart.
    unreadable: usize,
}

/// Runs `ctxc check`.
pub fn run(args: &CheckArgs, quiet: bool) -> anyhow::Result<ExitStatus> {
    let (inputs, errors) =
        discover::discover(&args.input.inputs, &args.input.globs, &[])?.reported(quiet);
    discover::read_ahead(&inputs, args.input.limit.max_input_bytes);
    let opts = ReadOptions {
        format: args.input.format,
        messages_path: args.input.messages_path.clone(),
    };
    let mut results: Vec<FileCheck> = errors
        .into_iter()
        .map(|e| FileCheck {
            path: e.path,
            format: None,
            valid: false,
            findings: vec![Finding::new(0, e.message)],
            unreadable: e.unopened,
        })
        .collect();
    let check = |input: &Input| {
        check_input(
            input,
            &opts,
            args.input.column.as_deref(),
            args.input.limit.max_input_bytes,
        )
    };
    let panicked = |input: &Input, why: String| {
        vec![verdict(input.display(), None, vec![Finding::new(0, why)])]
    };
    let checked = workers::in_order(&inputs, check, panicked);
    results.extend(checked.into_iter().flatten());

    let mut out = Vec::new();
    if args.json {
        let report = JsonReport {
            schema_version: 1,
            files: &results,
            totals: totals(&results),
        };
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for file in &results {
            for line in text_lines(&file.path, &file.findings) {
                writeln!(out, "{line}")?;
            }
        }
    }
    crate::output::write_stdout(&out)?;
    let t = totals(&results);
    if !quiet && !args.json {
        let unreadable = match t.unreadable {
            0 => String::new(),
            n => format!("; {} could not be read", crate::human::plural(n, "file")),
        };
        eprintln!(
            "ctxc: checked {}: {} valid, {} with findings{unreadable}",
            crate::human::plural(t.files, "file"),
            t.valid,
            t.invalid
        );
    }
    // As ripgrep: an input that could not be read is an error (2), findings are 1.
    Ok(if t.unreadable > 0 {
        ExitStatus::Error
    } else if t.invalid == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// `path:line: message`, or `path: message` for a finding about the whole file.
pub fn locate(path: &str, finding: &Finding) -> String {
    if finding.line == 0 {
        format!("{path}: {}", finding.message)
    } else {
        format!("{path}:{}: {}", finding.line, finding.message)
    }
}

/// A file's findings as text: a run of records repeating a run of records the same way (a
/// replayed block) is one line, as `repair` names the block it drops; `--json` keeps each.
fn text_lines(path: &str, findings: &[Finding]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut at = 0;
    while at < findings.len() {
        let end = block_end(findings, at);
        lines.push(match block(path, &findings[at..=end]) {
            Some(line) => line,
            None => locate(path, &findings[at]),
        });
        at = end + 1;
    }
    lines
}

/// The last finding of the replayed block that starts at `at` (`at` itself if none does).
fn block_end(findings: &[Finding], at: usize) -> usize {
    let mut end = at;
    while let Some(next) = findings.get(end + 1) {
        let prev = &findings[end];
        match (prev.repeats, next.repeats) {
            (Some((first, how)), Some((next_first, next_how)))
                if next.line == prev.line + 1 && next_first == first + 1 && next_how == how =>
            {
                end += 1
            }
            _ => break,
        }
    }
    end
}

/// `path:12-20: 9 records replay lines 3-11 (same uuid): replayed history`, as `repair` names
/// the block, for a run of more than one repeat.
fn block(path: &str, run: &[Finding]) -> Option<String> {
    let [start, .., end] = run else { return None };
    let ((first, how), (last, _)) = (start.repeats?, end.repeats?);
    Some(format!(
        "{path}:{}-{}: {} records replay lines {first}-{last} ({how}): replayed history",
        start.line,
        end.line,
        run.len(),
    ))
}

fn totals(results: &[FileCheck]) -> Totals {
    let valid = results.iter().filter(|r| r.valid).count();
    let unreadable = results.iter().filter(|r| r.unreadable).count();
    Totals {
        files: results.len() - unreadable,
        valid,
        invalid: results.len() - unreadable - valid,
        unreadable,
    }
}

/// The verdict on an input: one per row of a dataset.
fn check_input(
    input: &Input,
    opts: &ReadOptions,
    column: Option<&str>,
    limit: u64,
) -> Vec<FileCheck> {
    let path = input.display();
    let text = match dataset::sniff(input, limit) {
        Ok(Sniffed::Parquet(file)) => return check_dataset(path, file, opts, (column, limit)),
        Ok(Sniffed::Other(Some(bytes))) => discover::utf8(bytes),
        Ok(Sniffed::Other(None)) => discover::load(input, limit),
        Err(e) => Err(e),
    };
    vec![match text {
        Err(e) => verdict(path, None, vec![Finding::new(e.line, e.message)]),
        Ok(text) => check_text(path, text, opts),
    }]
}

fn check_text(path: String, text: String, opts: &ReadOptions) -> FileCheck {
    match transcript::read(text.clone(), opts) {
        Err(e) => match crate::repair::check_rest(&text, opts) {
            // Lines that are not JSON hide nothing else: the rest is checked too.
            Some((format, mut rest)) => {
                let mut findings = e.findings;
                findings.append(&mut rest);
                transcript::sort_findings(&mut findings);
                verdict(path, Some(format.to_string()), findings)
            }
            None => verdict(path, None, e.findings),
        },
        Ok(t) => {
            let messages = t.conversations.iter().map(|c| c.items.len()).sum();
            if let Some(warning) =
                transcript::named_format_found_nothing(t.format, &t.source, opts, messages)
            {
                crate::human::warn(format!("{path}: {warning}"));
            }
            let findings = transcript::check(&t);
            verdict(path, Some(t.format.to_string()), findings)
        }
    }
}

/// A dataset's rows, each checked as a JSON file holding its conversation would be (lines
/// are those of the row's JSON text); a dataset that cannot be read is one verdict.
fn check_dataset(
    path: String,
    file: std::fs::File,
    opts: &ReadOptions,
    (column, limit): (Option<&str>, u64),
) -> Vec<FileCheck> {
    let checked = dataset::Dataset::open(file, column, limit).and_then(|d| {
        d.read(|row| check_text(dataset::row_path(&path, row.index), row.text.into(), opts))
    });
    checked.unwrap_or_else(|e| vec![verdict(path, None, vec![Finding::new(0, format!("{e:#}"))])])
}

fn verdict(path: String, format: Option<String>, findings: Vec<Finding>) -> FileCheck {
    FileCheck {
        path,
        format,
        valid: findings.is_empty(),
        findings,
        unreadable: false,
    }
}
