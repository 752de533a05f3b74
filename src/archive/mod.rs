//! Compaction archives (seed 004): everything a compaction changed, kept so `ctxc restore`
//! can rebuild the original byte-for-byte, and `ctxc archive show` can say what was done.
//!
//! `ctxc compact --archive` writes `NAME.ctxc-archive.json` for every output it writes —
//! also when nothing changed, so that a chain of compactions never has a gap. The archive
//! holds one record per compaction, oldest first; compacting an archived output appends to
//! its archive's records (see [`write_for`]). A record, shortened:
//!
//! ```json
//! {
//!   "schemaVersion": 1,
//!   "kind": "ctxc-archive",
//!   "records": [{
//!     "ctxcVersion": "0.1.0", "time": "2025-01-31T12:34:56Z", "format": "claude-code",
//!     "input":  {"path": "/w/a.jsonl", "relativeToArchive": "a.jsonl",
//!                "bytes": 81234, "hash": "xxh3-128:…"},
//!     "output": {"path": "/w/a.compact.jsonl", "relativeToArchive": "a.compact.jsonl",
//!                "bytes": 30210, "hash": "xxh3-128:…"},
//!     "changed": true, "triggers": ["force"], "settings": {…},
//!     "conversations": [{"location": "", "lines": [1, 120], "triggers": ["force"],
//!       "edited": true, "targetTokens": 9000, "tokensBefore": 18000, "tokensAfter": 8700,
//!       "messagesBefore": 96, "messagesAfter": 31,
//!       "steps": [{"strategy": "sliding-window", "changed": true,
//!         "tokensBefore": 18000, "tokensAfter": 8700, "messagesBefore": 96, "messagesAfter": 31,
//!         "edits": [{"action": "summarized", "items": [3, 70], "lines": [4, 71],
//!                    "bytes": 50120, "summary": "## Task overview…"}]}]}],
//!     "restore": [[0, 1804], "…original lines 4 to 71…", [5021, 30210]]
//!   }]
//! }
//! ```
//!
//! `restore` rebuilds the record's input from its output ([`delta`] says why it is a diff);
//! `items` and `lines` are inclusive, items 0-based within the conversation, lines 1-based
//! in the record's input. Hashes are xxh3-128: they detect a changed file, and a
//! cryptographic hash would add nothing while the archive itself is not signed.

mod delta;
mod model;
mod paths;
mod record;
mod time;
mod undo;

pub use model::{
    Action, Archive, ConversationRecord, Edit, FileRef, KIND, Piece, Record, SCHEMA_VERSION,
    SUFFIX, StepRecord, hash,
};
pub use paths::{Base, archive_name, archive_path, candidates, resolve};
pub use record::record;
pub use time::rfc3339;
pub use undo::{Undone, undo};

use crate::pipeline::Outcome;
use crate::transcript::Transcript;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// One compacted file to archive.
pub struct ArchiveJob<'a> {
    /// The input file (`None` for standard input).
    pub input: Option<&'a Path>,
    /// Where the compacted output was written.
    pub output: &'a Path,
    /// `--archive-dir`, if given.
    pub archive_dir: Option<&'a Path>,
    /// The command-line path the input was found under (a directory, or the file itself), so
    /// archives under `--archive-dir` mirror the input tree.
    pub input_root: Option<&'a Path>,
    /// The transcript as read.
    pub original: &'a Transcript,
    /// What the pipeline did.
    pub outcome: &'a Outcome<'a>,
    /// The effective settings, as shown by `ctxc config show --json`.
    pub settings: serde_json::Value,
}

/// Writes the archive of a compaction; returns its path.
///
/// When the input is itself the output of an archived compaction — an archive beside it
/// (`STEM.ctxc-archive.json`) or where this run's `--archive-dir` would hold it, whose last
/// record's output hash is the input's hash — the new archive holds that archive's records
/// followed by this one. An existing archive at the target path is replaced only when it is
/// this output's (a re-run, or the chain being extended in place).
pub fn write_for(job: &ArchiveJob) -> Result<PathBuf> {
    let path = archive_path(job.output, job.archive_dir, job.input, job.input_root);
    let mut new = record(job.original, job.outcome, job.settings.clone());
    ensure_restorable(&mut new, job);
    new.input.path = job.input.map(absolute_string);
    new.output.path = Some(absolute_string(job.output));
    let mut records = earlier_records(job, &new.input.hash)?;
    check_target(&path, &new.output)?;
    records.push(new);
    for r in &mut records {
        paths::set_relative(&mut r.input, &path);
        paths::set_relative(&mut r.output, &path);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    // The archive holds the input's content: it gets the input's permissions.
    let like = job.input.filter(|p| p.is_file()).unwrap_or(job.output);
    crate::discover::write_atomic(
        &path,
        Archive::new(records).to_json().as_bytes(),
        Some(like),
    )
    .with_context(|| format!("writing the archive {}", path.display()))?;
    Ok(path)
}

/// Checks that the record's pieces rebuild the input; if they ever did not (a bug), keeps
/// the whole input instead, so the archive is still exact.
fn ensure_restorable(record: &mut Record, job: &ArchiveJob) {
    let rebuilt = delta::apply(&record.restore, job.outcome.output.as_bytes(), false);
    if rebuilt.as_deref().ok() != Some(job.original.source.as_bytes()) {
        debug_assert!(false, "restore pieces do not rebuild the input");
        record.restore = vec![Piece::Text(job.original.source.clone())];
    }
}

fn absolute_string(path: &Path) -> String {
    paths::absolute(path).to_string_lossy().into_owned()
}

/// The records of the compactions that produced the input, if it came from one.
fn earlier_records(job: &ArchiveJob, input_hash: &str) -> Result<Vec<Record>> {
    let Some(input) = job.input else {
        return Ok(Vec::new());
    };
    for candidate in paths::earlier_candidates(input, job.archive_dir, job.input_root) {
        if !candidate.is_file() {
            continue;
        }
        let earlier = Archive::read(&candidate).with_context(|| {
            format!(
                "{} may hold the earlier compactions of {} (move it away to start a new archive)",
                candidate.display(),
                input.display()
            )
        })?;
        let last = earlier.records.last().expect("archives hold records");
        if last.output.hash == input_hash {
            return Ok(earlier.records);
        }
    }
    Ok(Vec::new())
}

/// Refuses to replace an archive that belongs to another output (two outputs with one stem,
/// such as `a.compact.json` and `a.compact.jsonl`) or a file that is not an archive.
fn check_target(path: &Path, output: &FileRef) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let existing =
        Archive::read(path).with_context(|| format!("not replacing {}", path.display()))?;
    let theirs = existing.records.last().and_then(|r| r.output.path.clone());
    if theirs.is_some() && theirs != output.path {
        bail!(
            "the archive {} belongs to {}, not to {}: not replacing it (use --archive-dir, or \
             move one of them)",
            path.display(),
            theirs.unwrap_or_default(),
            output.path.as_deref().unwrap_or_default()
        );
    }
    Ok(())
}
