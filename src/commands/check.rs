//! `ctxc check`: parse and validate transcripts, print findings as `path:line: message`.

use crate::ExitStatus;
use crate::cli::CheckArgs;
use crate::discover::{self, Input};
use crate::transcript::{self, Finding, ReadOptions};
use rayon::prelude::*;
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
    files: usize,
    valid: usize,
    invalid: usize,
}

/// Runs `ctxc check`.
pub fn run(args: &CheckArgs, quiet: bool) -> anyhow::Result<ExitStatus> {
    let (inputs, errors) = discover::discover(&args.input.inputs, &args.input.globs)?;
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
        })
        .collect();
    results.extend(
        inputs
            .par_iter()
            .map(|input| check_input(input, &opts, args.input.limit.max_input_bytes))
            .collect::<Vec<_>>(),
    );

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
            for finding in &file.findings {
                writeln!(out, "{}", locate(&file.path, finding))?;
            }
        }
    }
    crate::output::write_stdout(&out)?;
    let t = totals(&results);
    if !quiet && !args.json {
        eprintln!(
            "ctxc: checked {} file{}: {} valid, {} with findings",
            t.files,
            if t.files == 1 { "" } else { "s" },
            t.valid,
            t.invalid
        );
    }
    Ok(if t.invalid == 0 {
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

fn totals(results: &[FileCheck]) -> Totals {
    let valid = results.iter().filter(|r| r.valid).count();
    Totals {
        files: results.len(),
        valid,
        invalid: results.len() - valid,
    }
}

fn check_input(input: &Input, opts: &ReadOptions, limit: u64) -> FileCheck {
    let path = input.display();
    let (format, findings) = match discover::load(input, limit) {
        Err(e) => (None, vec![Finding::new(e.line, e.message)]),
        Ok(text) => match transcript::read(text, opts) {
            Err(e) => (None, e.findings),
            Ok(t) => (Some(t.format.to_string()), transcript::check(&t)),
        },
    };
    FileCheck {
        path,
        format,
        valid: findings.is_empty(),
        findings,
    }
}
