//! `ctxc archive show ARCHIVE [--json | --summary]`: what each compaction of an archive did — per
//! conversation and step, which original lines were summarized (with the summary), dropped,
//! masked, truncated or stripped, and tokens and messages before and after.
//!
//! The text view is for a terminal: an indented list, summaries clipped to one line, files
//! named as seen from the archive. `--summary` is one line per compaction. `--json` has
//! everything but the settings and the restore data, summaries in full.

use crate::ExitStatus;
use crate::archive::{Archive, ConversationRecord, Edit, FileRef, Piece, Record, StepRecord};
use crate::cli::ArchiveCommand;
use crate::human::Shown;
use crate::human::thousands;
use crate::repair::Repair;
use anyhow::Result;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// Characters of a summary shown in the text view.
const SUMMARY_CLIP: usize = 80;

/// Runs `ctxc archive ...`.
pub fn run(command: &ArchiveCommand) -> Result<ExitStatus> {
    match command {
        ArchiveCommand::Show {
            archive,
            json,
            summary,
        } => show(archive, *json, *summary),
    }
}

fn show(path: &Path, json: bool, summary: bool) -> Result<ExitStatus> {
    let path = &super::restore::archive_of(path)?;
    let archive = match Archive::read(path) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ctxc: {e:#}");
            return Ok(ExitStatus::Failure);
        }
    };
    let text = if json {
        let mut text = serde_json::to_string_pretty(&View::of(path, &archive))?;
        text.push('\n');
        text
    } else if summary {
        render_summary(path, &archive)
    } else {
        render(path, &archive)
    };
    crate::output::write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// `--json`: the archive without settings and restore data.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct View<'a> {
    schema_version: u32,
    archive: String,
    records: Vec<RecordView<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordView<'a> {
    compaction: usize,
    generation: u32,
    /// Written before its output was put in place and never confirmed (a stopped run).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pending: bool,
    ctxc_version: &'a str,
    time: &'a str,
    format: &'a str,
    input: &'a FileRef,
    output: &'a FileRef,
    changed: bool,
    triggers: &'a [String],
    /// Original bytes the archive keeps for this compaction.
    archived_bytes: usize,
    /// A Parquet dataset's compaction: its conversation column and rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    dataset: Option<DatasetView<'a>>,
    /// A repair's record (`ctxc repair`, `compact --repair`): every repair made.
    #[serde(skip_serializing_if = "Option::is_none")]
    repairs: Option<Vec<Repair>>,
    conversations: &'a [ConversationRecord],
}

/// The repairs a repair's record keeps in its settings; `None` for a compaction's.
fn repairs_of(r: &Record) -> Option<Vec<Repair>> {
    if r.triggers != ["repair"] {
        return None;
    }
    serde_json::from_value(r.settings.get("repairs")?.clone()).ok()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DatasetView<'a> {
    column: &'a str,
    rows: u64,
    /// Rows whose conversation the compaction changed (and the archive gives back).
    changed_rows: usize,
}

impl<'a> DatasetView<'a> {
    fn of(r: &'a Record) -> Option<Self> {
        r.dataset.as_ref().map(|d| DatasetView {
            column: &d.column,
            rows: d.rows,
            changed_rows: d.changed.len(),
        })
    }
}

impl<'a> View<'a> {
    fn of(path: &Path, archive: &'a Archive) -> Self {
        View {
            schema_version: archive.schema_version,
            archive: path.to_string_lossy().into_owned(),
            records: archive
                .records
                .iter()
                .enumerate()
                .map(|(k, r)| RecordView {
                    compaction: k + 1,
                    generation: r.generation,
                    pending: r.pending,
                    ctxc_version: &r.ctxc_version,
                    time: &r.time,
                    format: &r.format,
                    input: &r.input,
                    output: &r.output,
                    changed: r.changed,
                    triggers: &r.triggers,
                    archived_bytes: r.archived_bytes(),
                    dataset: DatasetView::of(r),
                    repairs: repairs_of(r),
                    conversations: &r.conversations,
                })
                .collect(),
        }
    }
}

/// Both views' first line: the archive, how many compactions it holds, of which input.
fn heading(path: &Path, archive: &Archive) -> String {
    let repairs = archive
        .records
        .iter()
        .filter(|r| repairs_of(r).is_some())
        .count();
    let compactions = archive.records.len() - repairs;
    let steps: Vec<String> = [(compactions, "compaction"), (repairs, "repair")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}{}", if n == 1 { "" } else { "s" }))
        .collect();
    format!(
        "{}: {} of {}\n",
        path.shown(),
        steps.join(" and "),
        name(&archive.records[0].input)
    )
}

/// The text view.
fn render(path: &Path, archive: &Archive) -> String {
    let n = archive.records.len();
    let mut out = heading(path, archive);
    let generations = archive.records[n - 1].generation;
    for (k, record) in archive.records.iter().enumerate() {
        out.push('\n');
        if k > 0 && record.generation != archive.records[k - 1].generation {
            let _ = writeln!(
                out,
                "generation {} of {generations}: {}",
                record.generation,
                how_it_began(record, &archive.records[k - 1])
            );
        }
        let names = [
            match k > 0 && repaired_in_memory(&archive.records, k - 1) {
                true => IN_MEMORY,
                false => name(&record.input),
            },
            match repaired_in_memory(&archive.records, k) {
                true => IN_MEMORY,
                false => name(&record.output),
            },
        ];
        render_record(&mut out, (k + 1, n), names, record);
    }
    out
}

/// `--summary`: the heading, then one line per compaction.
fn render_summary(path: &Path, archive: &Archive) -> String {
    let n = archive.records.len();
    let mut out = heading(path, archive);
    for (k, r) in archive.records.iter().enumerate() {
        let _ = writeln!(out, "{}", summary_line((k + 1, n), r));
    }
    out
}

/// `compaction 2/3 2026-… claude-code: 12,034 → 5,120 ctxc tokens, 80 → 41 messages, 310,221 →
/// 98,004 bytes; summarized 2, masked 14 (triggers: target)`: edits counted by kind.
fn summary_line((k, n): (usize, usize), r: &Record) -> String {
    let sum = |f: fn(&ConversationRecord) -> usize| r.conversations.iter().map(f).sum::<usize>();
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for e in r
        .conversations
        .iter()
        .flat_map(|c| &c.steps)
        .flat_map(|s| &s.edits)
    {
        match kinds.iter_mut().find(|(name, _)| *name == e.action.name()) {
            Some((_, count)) => *count += 1,
            None => kinds.push((e.action.name(), 1)),
        }
    }
    let edits = match kinds.is_empty() {
        true if r.changed => String::new(),
        true => "; unchanged".into(),
        false => {
            let each: Vec<String> = kinds.iter().map(|(k, c)| format!("{k} {c}")).collect();
            format!("; {}", each.join(", "))
        }
    };
    let kind = if repairs_of(r).is_some() {
        "repair"
    } else {
        "compaction"
    };
    format!(
        "{kind} {k}/{n} {} {}: {} → {} ctxc tokens, {} → {} messages, {} → {} bytes{edits}{}{}",
        r.time,
        r.format,
        thousands(sum(|c| c.tokens_before) as u64),
        thousands(sum(|c| c.tokens_after) as u64),
        thousands(sum(|c| c.messages_before) as u64),
        thousands(sum(|c| c.messages_after) as u64),
        thousands(r.input.bytes),
        thousands(r.output.bytes),
        match r.triggers.is_empty() {
            true => String::new(),
            false => format!(" (triggers: {})", r.triggers.join(", ")),
        },
        if r.pending { " (pending)" } else { "" }
    )
}

/// How the file changed between `before`'s output and `record`'s input, which began a new
/// generation.
fn how_it_began(record: &Record, before: &Record) -> String {
    let compaction = "the file changed after the compaction before";
    match record.previous_output.as_deref() {
        Some([Piece::Copy([0, end])]) if *end as u64 == before.output.bytes => format!(
            "{compaction} ({} bytes appended)",
            thousands(record.input.bytes - before.output.bytes)
        ),
        Some(pieces) => {
            let kept: usize = pieces
                .iter()
                .map(|p| match p {
                    Piece::Text(t) => t.len(),
                    Piece::Copy(_) => 0,
                })
                .sum();
            format!(
                "{compaction} (rewritten; the archive keeps the {} bytes that differ)",
                thousands(kept as u64)
            )
        }
        None => format!(
            "{compaction} (rewritten, and not kept: the generations before cannot be restored)"
        ),
    }
}

/// Record `k` of `n` (from 1), its input and output named `names`.
fn render_record(out: &mut String, (k, n): (usize, usize), names: [&str; 2], r: &Record) {
    let repairs = repairs_of(r);
    let _ = writeln!(
        out,
        "{} {k} of {n}: {}, ctxc {}, {}{}",
        if repairs.is_some() {
            "repair"
        } else {
            "compaction"
        },
        r.time,
        r.ctxc_version,
        r.format,
        if r.pending {
            " (pending: its output never reached the file unless the file holds it)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "  {} ({} bytes) → {} ({} bytes){}",
        names[0],
        thousands(r.input.bytes),
        names[1],
        thousands(r.output.bytes),
        if r.changed { "" } else { ", unchanged" }
    );
    let triggers = if r.triggers.is_empty() {
        "none".to_string()
    } else {
        r.triggers.join(", ")
    };
    let _ = writeln!(
        out,
        "  triggers: {triggers}; original bytes kept: {}",
        thousands(r.archived_bytes() as u64)
    );
    // A dataset's repairs each say their row.
    let rows = r.settings["repairs"].as_array();
    for (k, repair) in repairs.iter().flatten().enumerate() {
        match rows.and_then(|rows| rows.get(k)?["row"].as_u64()) {
            Some(row) => _ = writeln!(out, "  row {row}, line {repair}"),
            None => _ = writeln!(out, "  line {repair}"),
        }
    }
    if let Some(d) = DatasetView::of(r) {
        let _ = writeln!(
            out,
            "  dataset: {} rows, column {}; {} row{} changed, restored value-identical",
            thousands(d.rows),
            d.column,
            thousands(d.changed_rows as u64),
            if d.changed_rows == 1 { "" } else { "s" }
        );
    }
    for c in &r.conversations {
        render_conversation(out, c);
    }
}

fn render_conversation(out: &mut String, c: &ConversationRecord) {
    // A dataset's row: `#row=N`, then where in the row's conversation.
    let place = match c.location.strip_prefix("#row=") {
        Some(row) => {
            let (n, inner) = row.split_at(
                row.find(|ch: char| !ch.is_ascii_digit())
                    .unwrap_or(row.len()),
            );
            let inner = if inner.is_empty() {
                String::new()
            } else {
                format!(" {inner}")
            };
            format!("row {n}{inner}")
        }
        None if c.location.is_empty() => format!("conversation ({})", lines(c.lines)),
        None => format!("conversation {} ({})", c.location, lines(c.lines)),
    };
    let _ = writeln!(
        out,
        "  {place}: {} → {} tokens{}, {} → {} messages{}",
        thousands(c.tokens_before as u64),
        thousands(c.tokens_after as u64),
        c.target_tokens.map_or(String::new(), |t| format!(
            " (target {})",
            thousands(t as u64)
        )),
        c.messages_before,
        c.messages_after,
        if c.edited { "" } else { ", left as it was" }
    );
    if let Some(why) = &c.shortfall {
        let _ = writeln!(out, "    short of the target: {why}");
    }
    for step in &c.steps {
        render_step(out, step);
    }
}

fn render_step(out: &mut String, s: &StepRecord) {
    if !s.changed {
        let _ = writeln!(out, "    {}: no change", s.strategy);
        return;
    }
    let _ = writeln!(
        out,
        "    {}: {} → {} tokens, {} → {} messages",
        s.strategy,
        thousands(s.tokens_before as u64),
        thousands(s.tokens_after as u64),
        s.messages_before,
        s.messages_after
    );
    for e in &s.edits {
        render_edit(out, e);
    }
}

fn render_edit(out: &mut String, e: &Edit) {
    let count = e.items[1] - e.items[0] + 1;
    let _ = write!(
        out,
        "      {:<11}{} ({count} item{}, {} bytes)",
        e.action.name(),
        lines(e.lines),
        if count == 1 { "" } else { "s" },
        thousands(e.bytes as u64)
    );
    if let Some(summary) = &e.summary {
        let _ = write!(out, ": {}", clip(summary));
    }
    out.push('\n');
}

/// A file as seen from the archive.
fn name(f: &FileRef) -> &str {
    f.relative_to_archive
        .as_deref()
        .or(f.path.as_deref())
        .unwrap_or("<stdin>")
}

/// What `compact --repair` compacted: the repaired text, never written, so no path names it.
const IN_MEMORY: &str = "the repaired text (in memory)";

/// Whether record `k` (0-based) is a repair whose output only the next record read.
fn repaired_in_memory(records: &[Record], k: usize) -> bool {
    let r = &records[k];
    k + 1 < records.len()
        && repairs_of(r).is_some()
        && r.output.path.is_none()
        && records[k + 1].input.path.is_none()
        && records[k + 1].input.hash == r.output.hash
}

fn lines([first, last]: [usize; 2]) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}-{last}")
    }
}

/// A summary on one line: whitespace runs become one space, long text ends in `…`.
fn clip(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= SUMMARY_CLIP {
        return format!("\"{flat}\"");
    }
    let head: String = flat.chars().take(SUMMARY_CLIP - 1).collect();
    format!("\"{}…\"", head.trim_end())
}
