//! `ctxc compact`'s report as a table: a narrow one for terminals (120 columns with paths
//! shortened, one token figure per file, no strategy list) and the full one for markdown, where
//! width costs nothing (both token counts and the steps each file took).

use super::compact::{CompactReport, FileReport, Status, SummaryFailure, summary_failures};
use crate::human::thousands;
use crate::report::{Columns, Table};
use crate::retention::Retention;

fn percent(ratio: f64) -> String {
    format!("{:.0}%", ratio * 100.0)
}

fn retention_cell(r: &Retention) -> String {
    r.counts()
        .iter()
        .map(|(_, t)| {
            if t.total == 0 {
                "-".to_string()
            } else {
                percent(t.ratio())
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `100 100 - 100`: the KEPT% cell, `-` where the original had none of a kind.
fn kept_cell(r: &Retention) -> String {
    r.counts()
        .iter()
        .map(|(_, t)| {
            if t.total == 0 {
                "-".to_string()
            } else {
                format!("{:.0}", t.ratio() * 100.0)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `2.9 MB→439.5 kB`.
fn size_arrow(before: usize, after: usize) -> String {
    format!(
        "{}→{}",
        crate::human::bytes(before as u64),
        crate::human::bytes(after as u64)
    )
}

fn arrow(before: usize, after: usize) -> String {
    format!("{}→{}", thousands(before as u64), thousands(after as u64))
}

/// `167,094→80,311` in provider tokens, `-` when the file records no usage.
fn calibrated_cell(f: &FileReport) -> String {
    match (f.calibrated_tokens_before, f.calibrated_tokens_after) {
        (Some(before), Some(after)) => arrow(before, after),
        _ => "-".into(),
    }
}

/// The figure the trigger, TARGET and SAVED use: the provider's (marked `*`) where the file
/// records usage, else ctxc's own count.
fn tokens_cell(f: &FileReport) -> String {
    match (f.calibrated_tokens_before, f.calibrated_tokens_after) {
        (Some(before), Some(after)) => format!("{}*", arrow(before, after)),
        _ => arrow(f.context_tokens_before, f.context_tokens_after),
    }
}

/// The steps that changed something (the one step when there was only one).
fn steps_cell(f: &FileReport) -> String {
    let steps: Vec<&str> = f
        .steps
        .iter()
        .filter(|s| s.tokens_after < s.tokens_before || f.steps.len() == 1)
        .map(|s| s.strategy.name())
        .collect();
    if steps.is_empty() {
        "-".into()
    } else {
        steps.join(",")
    }
}

fn status_cell(f: &FileReport, dry_run: bool) -> String {
    match &f.failed_step {
        Some(step) => format!("failed ({step})"),
        None if dry_run && f.status == Status::Compacted => "would compact".into(),
        None => f.status.name().into(),
    }
}

/// A file that failed before it was measured has no figures, not zeros.
fn has_figures(f: &FileReport) -> bool {
    f.measured() || f.status != Status::Failed
}

/// One file's row.
fn row(f: &FileReport, dry_run: bool, columns: Columns) -> Vec<String> {
    let figure = |cell: String| if has_figures(f) { cell } else { "-".into() };
    let saved = figure(percent(f.provider_saved_ratio.unwrap_or(f.saved_ratio)));
    let target = f.target_tokens.map_or("-".into(), |t| thousands(t as u64));
    let head = [
        f.path.clone(),
        f.format.clone().unwrap_or_else(|| "-".into()),
        status_cell(f, dry_run),
    ];
    match columns {
        Columns::Narrow => head
            .into_iter()
            .chain([
                figure(size_arrow(f.bytes_before, f.bytes_after)),
                figure(tokens_cell(f)),
                saved,
                kept_cell(&f.retention),
            ])
            .collect(),
        Columns::Wide => head
            .into_iter()
            .chain([
                figure(thousands(f.bytes_before as u64)),
                figure(thousands(f.bytes_after as u64)),
                figure(thousands(f.context_tokens_before as u64)),
                figure(thousands(f.context_tokens_after as u64)),
                calibrated_cell(f),
                saved,
                target,
                steps_cell(f),
                retention_cell(&f.retention),
            ])
            .collect(),
    }
}

/// The total row.
fn total_row(report: &CompactReport, columns: Columns) -> Vec<String> {
    let t = &report.totals;
    let files = format!(
        "TOTAL ({} {})",
        t.files,
        if t.files == 1 { "file" } else { "files" }
    );
    let done = if report.dry_run {
        "would compact"
    } else {
        "compacted"
    };
    let saved = percent(t.provider_saved_ratio.unwrap_or(t.saved_ratio));
    let calibrated = match (t.calibrated_tokens_before, t.calibrated_tokens_after) {
        (Some(before), Some(after)) => Some(arrow(before, after)),
        _ => None,
    };
    match columns {
        Columns::Narrow => {
            // How many were compacted is the closing line's: beside TOTAL it would widen FILE.
            let failed = if t.failed == 0 {
                String::new()
            } else {
                format!(", {} failed", t.failed)
            };
            let label = format!(
                "TOTAL ({} {}{failed})",
                t.files,
                if t.files == 1 { "file" } else { "files" },
            );
            // The provider's figures where files record usage, ctxc's for the others: what
            // the total SAVED is computed on.
            let tokens = match calibrated {
                Some(cell) => format!("{cell}*"),
                None => arrow(t.context_tokens_before, t.context_tokens_after),
            };
            vec![
                label,
                String::new(),
                String::new(),
                size_arrow(t.bytes_before, t.bytes_after),
                tokens,
                saved,
                kept_cell(&t.retention),
            ]
        }
        Columns::Wide => vec![
            files,
            String::new(),
            format!("{} {done}, {} failed", t.compacted, t.failed),
            thousands(t.bytes_before as u64),
            thousands(t.bytes_after as u64),
            thousands(t.context_tokens_before as u64),
            thousands(t.context_tokens_after as u64),
            calibrated.unwrap_or_default(),
            saved,
            String::new(),
            String::new(),
            retention_cell(&t.retention),
        ],
    }
}

fn headers(report: &CompactReport, columns: Columns) -> (Vec<String>, Vec<bool>) {
    let estimated = if report.tokenizer.exact {
        ""
    } else {
        " (est.)"
    };
    let named = |cols: &[(&str, bool)]| {
        cols.iter()
            .map(|(name, numeric)| (name.to_string(), *numeric))
            .unzip()
    };
    let (mut names, numeric): (Vec<String>, Vec<bool>) = match columns {
        Columns::Narrow => named(&[
            ("FILE", false),
            ("FORMAT", false),
            ("STATUS", false),
            ("BYTES", true),
            ("TOKENS", true),
            ("SAVED", true),
            ("KEPT% p c e u", false),
        ]),
        Columns::Wide => named(&[
            ("FILE", false),
            ("FORMAT", false),
            ("STATUS", false),
            ("BYTES BEFORE", true),
            ("BYTES AFTER", true),
            ("TOKENS BEFORE", true),
            ("TOKENS AFTER", true),
            ("PROVIDER BEFORE→AFTER", true),
            ("SAVED", true),
            ("TARGET", true),
            ("STEPS", false),
            ("RETENTION p/c/e/u", false),
        ]),
    };
    let tokens = if columns == Columns::Narrow { 4 } else { 5 };
    names[tokens].push_str(estimated);
    (names, numeric)
}

/// The lines under the table: repairs, per-file notes, unchanged files folded into one line,
/// summary failures, then the legend (each line at most about 120 characters).
fn notes(report: &CompactReport, columns: Columns) -> Vec<String> {
    let mut notes = vec![String::new()];
    let mut untriggered = Vec::new();
    for f in &report.files {
        // As `ctxc repair` names them: `path:line: what was wrong → what was done`.
        for repair in &f.repairs {
            notes.push(format!("{}:{repair}", f.path));
        }
        for note in &f.notes {
            if let Some(why) = note.strip_prefix(NO_TRIGGER) {
                untriggered.push((f.path.as_str(), why));
            } else {
                notes.push(format!("{}: {note}", f.path));
            }
        }
    }
    notes.extend(untriggered_note(untriggered));
    notes.extend(
        summary_failures(&report.files)
            .iter()
            .map(SummaryFailure::note),
    );
    let encoding = format!(
        "tokens: {}{}",
        report.tokenizer.encoding,
        if report.tokenizer.exact {
            " (exact)"
        } else {
            " (estimated: no public tokenizer for this model)"
        }
    );
    match columns {
        Columns::Narrow => {
            notes.push(format!(
                "{encoding}; * = the provider's count, calibrated on the usage the file records"
            ));
            notes.push(
                "SAVED is on TOKENS; KEPT% = paths, commands, error lines and user requests kept".into(),
            );
            notes.push("ctxc's own counts: -v; each file's steps: -vv; its target and every figure: --json".into());
        }
        Columns::Wide => notes.push(format!(
            "{encoding}; provider = calibrated on the usage the file records (the token trigger and target use it; --raw-tokens: ctxc's counts); SAVED is in provider tokens where there are any (ctxc's counts in --json savedRatio, the provider's in providerSavedRatio); retention p/c/e/u = file paths, commands, error lines, user requests kept"
        )),
    }
    let t = &report.totals;
    if report.interrupted {
        notes.push(format!(
            "interrupted: {} of {} done, {} not started (skipped; --report and --json say which)",
            t.files - t.skipped,
            crate::human::plural(t.files, "file"),
            t.skipped
        ));
    }
    notes.push(match (columns, report.dry_run) {
        (Columns::Narrow, true) => format!(
            "dry run: {} of {} would be compacted; nothing was written",
            t.compacted,
            crate::human::plural(t.files, "file")
        ),
        (Columns::Narrow, false) => format!(
            "{} of {} compacted",
            t.compacted,
            crate::human::plural(t.files, "file")
        ),
        (Columns::Wide, true) => "dry run: nothing was written".into(),
        (Columns::Wide, false) => return notes,
    });
    notes
}

/// The report as a table with `columns`.
pub fn table(report: &CompactReport, columns: Columns) -> Table {
    let (headers, numeric) = headers(report, columns);
    Table {
        headers,
        numeric,
        rows: report
            .files
            .iter()
            .map(|f| row(f, report.dry_run, columns))
            .collect(),
        total: Some(total_row(report, columns)),
        notes: notes(report, columns),
    }
}

/// How [`crate::trigger::why_not`]'s note begins.
pub(super) const NO_TRIGGER: &str = "no trigger fired:";

/// The notes of files no trigger fired for: one such file's note as it is, several folded
/// into one line (each file's reason stays in `--json`).
fn untriggered_note(notes: Vec<(&str, &str)>) -> Option<String> {
    match notes.as_slice() {
        [] => None,
        [(path, why)] => Some(format!("{path}: {NO_TRIGGER}{why}")),
        [(path, why), ..] => Some(format!(
            "{} files unchanged, {NO_TRIGGER} the first, {path}:{why}; --target-ratio, --target-tokens or --force compacts them anyway, --json gives each file's reason",
            notes.len()
        )),
    }
}
