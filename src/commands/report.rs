//! `ctxc report merge`: combine the JSON reports of shards (or machines) into one, as if one
//! run had processed every file: files in path order, totals and retention recomputed from
//! the per-file counts.

use crate::ExitStatus;
use crate::cli::ReportCommand;
use crate::human::Shown;
use crate::report;
use crate::report::Columns;
use crate::report::compact::{CompactReport, totals};
use crate::report::compact_table::table;
use anyhow::{Context, Result, bail};
use std::path::Path;

/// Runs `ctxc report ...`.
pub fn run(command: &ReportCommand) -> Result<ExitStatus> {
    let ReportCommand::Merge { reports, output } = command;
    let parts = reports
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>>>()?;
    if let Some(twice) = counted_twice(&parts, reports) {
        eprintln!("ctxc: {twice}");
        return Ok(ExitStatus::Failure);
    }
    let merged = merge(parts)?;
    let text = report::render(
        output.format(),
        &merged,
        &table(&merged, Columns::of(output.format())),
    )?;
    crate::output::write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// Reads one report: a file, or standard input for `-`.
fn read(path: &Path) -> Result<CompactReport> {
    let text = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("reading a report from standard input")?;
        text
    } else {
        std::fs::read_to_string(path)
            .with_context(|| format!("reading the report {}", path.shown()))?
    };
    serde_json::from_str(&text).map_err(|e| {
        // The place first, `path:line:column:` as every other input error, and out of the
        // message, which serde_json ends with it. Column 0: nothing read on that line yet.
        let (line, column) = (e.line(), e.column());
        let message = e
            .to_string()
            .replacen(&format!(" at line {line} column {column}"), "", 1);
        let place = match (line, column) {
            (0, _) => String::new(),
            (line, 0) => format!(":{line}"),
            (line, column) => format!(":{line}:{column}"),
        };
        anyhow::anyhow!(
            "{}{place}: not a JSON report of `ctxc compact --json`: {message}",
            path.shown()
        )
    })
}

/// A file that two reports both count (a shard run twice, or overlapping runs), named with
/// both reports: merging would count it twice.
fn counted_twice(parts: &[CompactReport], paths: &[std::path::PathBuf]) -> Option<String> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (k, part) in parts.iter().enumerate() {
        for file in &part.files {
            if let Some(first) = seen.insert(&file.path, k) {
                return Some(format!(
                    "{} is counted twice: in {} and in {} (merge one report per shard)",
                    file.path,
                    paths[first].shown(),
                    paths[k].shown()
                ));
            }
        }
    }
    None
}

/// One report out of several; they must share a schema and a tokenizer to add up.
pub fn merge(parts: Vec<CompactReport>) -> Result<CompactReport> {
    let mut parts = parts.into_iter();
    let Some(mut merged) = parts.next() else {
        bail!("no report to merge");
    };
    for part in parts {
        if part.schema_version != merged.schema_version {
            bail!(
                "reports of schema versions {} and {} cannot be merged",
                merged.schema_version,
                part.schema_version
            );
        }
        if part.tokenizer != merged.tokenizer {
            bail!(
                "reports counted with different tokenizers cannot be merged: their token counts do not add up"
            );
        }
        merged.dry_run |= part.dry_run;
        merged.interrupted |= part.interrupted;
        merged.files.extend(part.files);
    }
    for file in &mut merged.files {
        file.retention = file.retention_counts.into();
    }
    // As a single run orders them: a dataset's rows by index.
    merged
        .files
        .sort_by(|a, b| crate::dataset::report_order(&a.path, &b.path));
    merged.totals = totals(&merged.files);
    Ok(merged)
}
