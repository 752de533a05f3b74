//! The `ctxc repair` report: every repair as `path:line: what was wrong → what was done` and
//! a row per file (table), the same as JSON or YAML (camelCase, `schemaVersion`), or as
//! Markdown tables.

use super::{FileRepair, Status};
use crate::human::{plural, thousands};
use crate::report::{self, OutputFormat, TERMINAL_PATH_WIDTH, TERMINAL_WIDTH, short_path};
use anyhow::Result;
use serde::Serialize;
use std::fmt::Write;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    schema_version: u32,
    dry_run: bool,
    files: &'a [FileRepair],
    totals: Totals,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Totals {
    files: usize,
    repaired: usize,
    clean: usize,
    incomplete: usize,
    failed: usize,
    repairs: usize,
}

fn totals(files: &[FileRepair]) -> Totals {
    let count = |s: Status| files.iter().filter(|f| f.status == s).count();
    Totals {
        files: files.len(),
        repaired: count(Status::Repaired),
        clean: count(Status::Clean),
        incomplete: count(Status::Incomplete),
        failed: count(Status::Failed),
        repairs: files.iter().map(|f| f.repairs.len()).sum(),
    }
}

/// The report in `format`; a table for a terminal fits [`report::TERMINAL_WIDTH`] columns.
pub fn render(
    files: &[FileRepair],
    format: OutputFormat,
    dry_run: bool,
    terminal: bool,
) -> Result<String> {
    let report = Report {
        schema_version: 1,
        dry_run,
        files,
        totals: totals(files),
    };
    Ok(match format {
        OutputFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        OutputFormat::Yaml => serde_yaml::to_string(&report)?,
        OutputFormat::Markdown => markdown(files, dry_run),
        OutputFormat::Table => table(files, dry_run, terminal),
    })
}

/// What a file's status reads as, in a dry run too.
fn status_word(file: &FileRepair, dry_run: bool) -> &'static str {
    if file.status == Status::Incomplete && file.repairs.is_empty() {
        return "not repaired";
    }
    match (file.status, dry_run) {
        (Status::Repaired, true) => "to repair",
        (Status::Repaired, false) => "repaired",
        (Status::Clean, _) => "clean",
        (Status::Incomplete, true) => "to repair, partly",
        (Status::Incomplete, false) => "partly repaired",
        (Status::Failed, _) => "failed",
    }
}

/// The table's columns.
const HEADER: [&str; 6] = [
    "FILE",
    "STATUS",
    "REPAIRS",
    "BYTES BEFORE",
    "BYTES AFTER",
    "OUTPUT",
];

fn located(path: &str, lines: &str) -> String {
    match lines {
        "" | "0" => path.to_string(),
        lines => format!("{path}:{lines}"),
    }
}

fn table(files: &[FileRepair], dry_run: bool, terminal: bool) -> String {
    let home = std::env::var("HOME").ok();
    // On a terminal: paths shortened (`~` for home) and each line wrapped at 120 columns.
    let path = |p: &str, max: usize| match terminal {
        true => short_path(p, home.as_deref(), max),
        false => p.to_string(),
    };
    let mut lines = Vec::new();
    for file in files {
        let at = |lines: &str| located(&path(&file.path, TERMINAL_PATH_WIDTH), lines);
        for r in &file.repairs {
            lines.push(format!("{}: {} → {}", at(&r.lines()), r.fault, r.action));
        }
        for f in &file.not_repaired {
            let line = f.line.to_string();
            lines.push(format!("{}: not repaired: {}", at(&line), f.message));
        }
    }
    let mut out = String::new();
    for line in &lines {
        let wrapped = match terminal {
            true => report::wrapped(line, TERMINAL_WIDTH),
            false => vec![line.clone()],
        };
        for line in wrapped {
            let _ = writeln!(out, "{line}");
        }
    }
    let mut rows: Vec<[String; 6]> = files.iter().map(|f| row(f, dry_run)).collect();
    if terminal {
        fit_paths(&mut rows, files, &path);
    }
    let header = HEADER.map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, w))| match i {
                2..=4 => format!("{cell:>w$}"),
                _ => format!("{cell:<w$}"),
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    for file in files {
        if let Some(resume) = &file.resume {
            let _ = writeln!(out, "resume {}: {resume}", file.path);
        }
    }
    out
}

/// The FILE and OUTPUT cells of `rows` with their paths shortened by `path` to what the
/// other columns leave of the terminal's width, shared between the two.
fn fit_paths(rows: &mut [[String; 6]], files: &[FileRepair], path: &dyn Fn(&str, usize) -> String) {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([HEADER[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let others: usize = (1..=4).map(|i| width(i) + 2).sum::<usize>() + 2;
    let room = TERMINAL_WIDTH.saturating_sub(others);
    let each = (room / 2).clamp(24, TERMINAL_PATH_WIDTH);
    for (row, f) in rows.iter_mut().zip(files) {
        row[0] = path(&f.path, each);
        if f.error.is_none() {
            row[5] = match (&f.output, &f.archive) {
                (Some(o), Some(a)) => {
                    format!("{} (archive {})", path(o, each / 2), path(a, each / 2))
                }
                (Some(o), None) => path(o, each),
                _ => row[5].clone(),
            };
        }
    }
}

fn row(f: &FileRepair, dry_run: bool) -> [String; 6] {
    let output = match (&f.output, &f.archive, &f.error) {
        (_, _, Some(e)) => e.clone(),
        (Some(o), Some(a), _) => format!("{o} (archive {a})"),
        (Some(o), None, _) => o.clone(),
        (None, _, _) => f.notes.first().cloned().unwrap_or_else(|| "-".into()),
    };
    [
        f.path.clone(),
        status_word(f, dry_run).into(),
        thousands(f.repairs.len() as u64),
        thousands(f.bytes_before as u64),
        thousands(f.bytes_after as u64),
        output,
    ]
}

fn markdown(files: &[FileRepair], dry_run: bool) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = String::new();
    for file in files {
        let _ = writeln!(out, "### `{}`: {}\n", file.path, status_word(file, dry_run));
        if let Some(error) = &file.error {
            let _ = writeln!(out, "Failed: {}\n", cell(error));
            continue;
        }
        if file.repairs.is_empty() && file.not_repaired.is_empty() {
            let _ = writeln!(out, "Nothing to repair.\n");
            continue;
        }
        let _ = writeln!(out, "| line | what was wrong | what was done |");
        let _ = writeln!(out, "|---:|---|---|");
        for r in &file.repairs {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                r.lines(),
                cell(&r.fault),
                cell(&r.action)
            );
        }
        for f in &file.not_repaired {
            let _ = writeln!(out, "| {} | {} | not repaired |", f.line, cell(&f.message));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", totals_line(files, dry_run));
    out
}

/// One line over every file (a dataset's rows are counted as rows).
pub fn totals_line(files: &[FileRepair], dry_run: bool) -> String {
    let t = totals(files);
    let verb = if dry_run { "would make" } else { "made" };
    let rows = files
        .iter()
        .filter(|f| crate::dataset::is_row_path(&f.path))
        .count();
    let inputs = match (t.files - rows, rows) {
        (files, 0) => plural(files, "file"),
        (0, rows) => plural(rows, "row"),
        (files, rows) => format!("{}, {}", plural(files, "file"), plural(rows, "row")),
    };
    format!(
        "{inputs}: {} repaired, {} clean, {} partly repaired, {} failed; {verb} {}",
        t.repaired,
        t.clean,
        t.incomplete,
        t.failed,
        plural(t.repairs, "repair")
    )
}
