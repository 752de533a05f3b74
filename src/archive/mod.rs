//! Compaction archives (seed 004): everything a compaction changed, kept so `ctxc restore`
//! can rebuild the original byte-for-byte, and `ctxc archive show` can say what was done.
//!
//! `ctxc compact --archive` writes `NAME.ctxc-archive.json` for every output it writes —
//! also when nothing changed, so that a chain of compactions never has a gap. The archive
//! holds one record per compaction, oldest first; compacting an archived output appends to
//! its archive's records (see [`begin`]), in generations that are never dropped
//! ([`chain`]). A record, shortened:
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

mod chain;
mod delta;
mod model;
mod paths;
pub mod place;
mod record;
mod undo;

pub use chain::{first_of_generation, holds_output, link, settle};
pub use delta::apply;
pub use model::{
    Action, Archive, ConversationRecord, DATASET_SCHEMA_VERSION, DatasetRecord, Edit, FileRef,
    KIND, Piece, Record, RowRestore, SCHEMA_VERSION, SUFFIX, StepRecord, hash, hash_of,
};
pub use paths::{Base, archive_name, archive_path, candidates, resolve};
pub use record::{conversations, dataset_record, file_ref_of, record, triggers};
pub use undo::{Undone, undo};

use crate::human::Shown;
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
    /// The input's torn last line, left out of the transcript read (`--drop-torn-tail`): the
    /// input is `original`'s source and then this.
    pub torn: Option<&'a str>,
    /// The repair made before the compaction (`compact --repair`): the input is its
    /// `original`, and `original`'s source is the repaired text.
    pub repair: Option<&'a RepairStep>,
    /// What the pipeline did.
    pub outcome: &'a Outcome<'a>,
    /// The effective settings, as shown by `ctxc config show --json`.
    pub settings: serde_json::Value,
}

/// A repair made in the same run as the compaction that follows it (`compact --repair`): it
/// is archived as a record of its own before the compaction's, so `restore` walks back
/// through both to the damaged input.
pub struct RepairStep {
    /// The input as it was, damaged.
    pub original: String,
    /// The repairs made, kept as the record's settings (`{"command": …, "repairs": …}`).
    pub repairs: serde_json::Value,
    /// Pieces that rebuild `original` from the repaired text.
    pub restore: Vec<Piece>,
}

/// One compacted Parquet dataset to archive: where its files are, and its record (built by
/// the caller from its rows, with [`FileRef`]s of the input and the output as written).
pub struct DatasetJob<'a> {
    /// The input file (`None` for standard input).
    pub input: Option<&'a Path>,
    /// Where the compacted dataset is written.
    pub output: &'a Path,
    /// `--archive-dir`, if given.
    pub archive_dir: Option<&'a Path>,
    /// The command-line path the input was found under.
    pub input_root: Option<&'a Path>,
    /// The record, its `dataset` set.
    pub record: Record,
}

/// Where a compaction's files are.
#[derive(Clone, Copy)]
struct Places<'a> {
    input: Option<&'a Path>,
    output: &'a Path,
    archive_dir: Option<&'a Path>,
    input_root: Option<&'a Path>,
}

/// An archive written with its newest record pending: [`Pending::commit`] it once the output
/// is in place, [`Pending::roll_back`] when the output could not be written.
pub struct Pending {
    path: PathBuf,
    archive: Archive,
    /// The archive file as it was, if there was one.
    before: Option<Vec<u8>>,
    /// The version of the archive this run last read or wrote: it writes only over that one.
    version: place::Version,
    /// The file whose permissions the archive takes.
    like: PathBuf,
}

/// Writes the archive of a compaction, its new record pending.
///
/// When the input is a file an archive already follows — the archive beside it
/// (`STEM.ctxc-archive.json`), where this run's `--archive-dir` would hold it, or this output's
/// own archive — the new record joins that archive's records: in the same generation when the
/// input is still its last output, else in the next one (see [`chain`]). An archive is only
/// started over when it is this output's and records a compaction of this very input (a
/// re-run): nothing it kept is lost then.
pub fn begin(job: &ArchiveJob) -> Result<Pending> {
    let mut new = record(job.original, job.outcome, job.settings.clone());
    ensure_restorable(&mut new, job);
    let source = match job.torn {
        // The input is the file with its torn line: restoring rebuilds it, line and all.
        Some(fragment) => {
            let source = format!("{}{fragment}", job.original.source);
            new.restore.push(Piece::Text(fragment.to_string()));
            new.input = record::file_ref(source.as_bytes());
            new.changed = true;
            std::borrow::Cow::Owned(source)
        }
        None => std::borrow::Cow::Borrowed(job.original.source.as_str()),
    };
    new.output_copy = Some(job.outcome.output.to_string());
    let places = Places {
        input: job.input,
        output: job.output,
        archive_dir: job.archive_dir,
        input_root: job.input_root,
    };
    let Some(step) = job.repair else {
        return start(vec![new], places, Some(&source));
    };
    // The repaired text lived only in memory: no file holds it, and no copy is needed.
    let mut repaired = repair_record(
        &step.original,
        &job.original.source,
        &new.format,
        step.repairs.clone(),
        step.restore.clone(),
    );
    repaired.output_copy = None;
    start(vec![repaired, new], places, Some(&step.original))
}

/// One repaired file to archive (`ctxc repair`): what `restore` needs to give back the
/// damaged original.
pub struct RepairJob<'a> {
    /// The input file (`None` for standard input).
    pub input: Option<&'a Path>,
    /// Where the repaired output was written.
    pub output: &'a Path,
    /// `--archive-dir`, if given.
    pub archive_dir: Option<&'a Path>,
    /// The command-line path the input was found under.
    pub input_root: Option<&'a Path>,
    /// The input's text.
    pub original: &'a str,
    /// The repaired text.
    pub repaired: &'a str,
    /// The format it was read as.
    pub format: &'a str,
    /// The repairs made, kept as the record's settings (`{"command": "repair", "repairs": …}`).
    pub repairs: serde_json::Value,
    /// Pieces that rebuild `original` from `repaired`.
    pub restore: Vec<Piece>,
}

/// Writes the archive of a repair, its new record pending; it joins an earlier archive as
/// [`begin`] says.
pub fn begin_repair(job: RepairJob) -> Result<Pending> {
    let new = repair_record(
        job.original,
        job.repaired,
        job.format,
        job.repairs,
        job.restore,
    );
    let places = Places {
        input: job.input,
        output: job.output,
        archive_dir: job.archive_dir,
        input_root: job.input_root,
    };
    start(vec![new], places, Some(job.original))
}

/// The record of a repair of `original` into `repaired`; `restore` is checked to rebuild the
/// original (else the whole original is kept, so the archive is still exact).
fn repair_record(
    original: &str,
    repaired: &str,
    format: &str,
    repairs: serde_json::Value,
    mut restore: Vec<Piece>,
) -> Record {
    let rebuilt = delta::apply(&restore, repaired.as_bytes(), false);
    if rebuilt.as_deref().ok() != Some(original.as_bytes()) {
        debug_assert!(false, "repair restore pieces do not rebuild the input");
        restore = vec![Piece::Text(original.to_string())];
    }
    Record {
        ctxc_version: env!("CARGO_PKG_VERSION").into(),
        time: crate::time::now(),
        format: format.into(),
        input: record::file_ref(original.as_bytes()),
        output: record::file_ref(repaired.as_bytes()),
        changed: original != repaired,
        triggers: vec!["repair".into()],
        settings: repairs,
        conversations: Vec::new(),
        restore,
        generation: 1,
        previous_output: None,
        output_copy: Some(repaired.to_string()),
        pending: false,
        dataset: None,
    }
}

/// Writes the archive of a dataset's compaction, its new record pending. It joins an earlier
/// archive as [`begin`] says; a dataset keeps no copy of its output (a file of any size), so a
/// dataset rewritten since its last compaction starts a generation that cannot link back.
pub fn begin_dataset(job: DatasetJob) -> Result<Pending> {
    let places = Places {
        input: job.input,
        output: job.output,
        archive_dir: job.archive_dir,
        input_root: job.input_root,
    };
    start(vec![job.record], places, None)
}

/// Writes the archive with the `new` records (one run's: a compaction, or a repair and the
/// compaction of its result) pending, after the records it joins. The first new record's
/// input is the run's input, the last one's output the run's output. `source`: the input's
/// text, to link a new generation back to the last one.
fn start(mut new: Vec<Record>, places: Places, source: Option<&str>) -> Result<Pending> {
    let path = archive_path(
        places.output,
        places.archive_dir,
        places.input,
        places.input_root,
    );
    let last = new.len() - 1;
    new[0].input.path = places.input.map(absolute_string);
    new[last].output.path = Some(absolute_string(places.output));
    let mut records = earlier_records(places, source, &path, &mut new[0])?;
    check_target(&path, &new[last].output)?;
    let generation = new[0].generation;
    for r in &mut new {
        r.generation = generation;
        r.pending = true;
    }
    records.extend(new);
    for r in &mut records {
        paths::set_relative(&mut r.input, &path);
        paths::set_relative(&mut r.output, &path);
    }
    let (before, version) = place::read_versioned(&path)
        .with_context(|| format!("reading the archive {}", path.shown()))?;
    // The archive holds the input's content: it gets the input's permissions.
    let like = places
        .input
        .filter(|p| place::url(p).is_none() && p.is_file())
        .unwrap_or(places.output);
    let mut pending = Pending {
        path,
        archive: Archive::new(records),
        before,
        version,
        like: like.to_path_buf(),
    };
    if !pending.write()? {
        bail!(
            "the archive {} changed while ctxc was adding to it (another run on the same \
             file?): nothing written, left as it is",
            pending.path.shown()
        );
    }
    crate::failpoint::hit("archive-pending");
    Ok(pending)
}

/// The size and [`hash`] of a file's bytes, read in pieces (a dataset may not fit in memory).
pub fn hash_file(file: &std::fs::File) -> std::io::Result<(u64, String)> {
    hash_prefix(file, u64::MAX)
}

/// The size and [`hash`] of the first `limit` bytes of a file (fewer when it is shorter).
fn hash_prefix(file: &std::fs::File, limit: u64) -> std::io::Result<(u64, String)> {
    use std::os::unix::fs::FileExt;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    while at < limit {
        let want = (limit - at).min(buf.len() as u64) as usize;
        let n = file.read_at(&mut buf[..want], at)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        at += n as u64;
    }
    Ok((at, model::hash_of(hasher.digest128())))
}

/// Whether the file (or object) at `path` holds the record's output, or begins with it; read
/// in pieces.
pub fn file_holds_output(path: &Path, record: &Record) -> bool {
    file_holds(path, &record.output)
}

/// Whether the file (or object) at `path` holds the file `named`, or begins with it.
fn file_holds(path: &Path, named: &FileRef) -> bool {
    place::begins_with(path, named.bytes, &named.hash)
}

/// What settling an archive's pending records did ([`settle_pending`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The run's records are kept, now committed: its output reached the file.
    Committed(PathBuf),
    /// The run's records were dropped: its output never reached the file.
    Dropped(PathBuf),
}

/// Settles, and writes back, the pending records a stopped run left in the archives that
/// follow `input` (beside it, or where this run's `--archive-dir` holds it), before an
/// in-place run changes the file and the pending records could no longer be told apart.
/// An archive left with no record (its only run never reached the file) is removed.
pub fn settle_pending(
    input: &Path,
    archive_dir: Option<&Path>,
    input_root: Option<&Path>,
) -> Result<Vec<Settled>> {
    let mut settled = Vec::new();
    for candidate in paths::earlier_candidates(input, archive_dir, input_root) {
        if place::url(&candidate).is_some() || !candidate.is_file() {
            continue;
        }
        // Not an archive ctxc can read: left alone, and refused where it matters.
        let Ok(mut archive) = Archive::read(&candidate) else {
            continue;
        };
        if !archive.records.last().is_some_and(|r| r.pending) {
            continue;
        }
        let dropped = chain::settle(&mut archive.records, &candidate);
        let written = if archive.records.is_empty() {
            place::remove(&candidate)
        } else {
            place::write(&candidate, archive.to_json().as_bytes(), Some(input))
        };
        written.with_context(|| format!("settling the archive {}", candidate.shown()))?;
        settled.push(match dropped {
            true => Settled::Dropped(candidate),
            false => Settled::Committed(candidate),
        });
    }
    Ok(settled)
}

impl Pending {
    /// The archive's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Marks the new record committed; earlier records give up their output copies, which the
    /// new record's restore data now rebuilds. An archive another run wrote meanwhile is
    /// never written over blindly (see `commit_over`).
    pub fn commit(mut self) -> Result<PathBuf> {
        crate::failpoint::hit("output-in-place");
        let n = self.archive.records.len();
        for r in &mut self.archive.records[..n - 1] {
            r.output_copy = None;
        }
        // A repair and its compaction, written in one run, are pending together.
        for r in &mut self.archive.records {
            r.pending = false;
        }
        if !self.write()? {
            self.commit_over()?;
        }
        crate::failpoint::hit("archive-committed");
        Ok(self.path)
    }

    /// Commits after another run wrote the archive since this one's pending write (two runs
    /// on one object, the other's replace refused): the archive is read again and settled
    /// against what the object holds (the other run's pending record, whose output never
    /// landed, drops out). When it still holds this run's record (kept by a run that read
    /// the output), nothing is to do; when it holds this run's earlier records and nothing
    /// after them, this run's archive is written over it, only while it is that version.
    fn commit_over(&mut self) -> Result<()> {
        let last = self.archive.records.last().cloned();
        for _ in 0..3 {
            let (bytes, version) = place::read_versioned(&self.path)?;
            let mut now = match bytes {
                Some(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    Archive::parse(&text, &self.path)?.records
                }
                None => Vec::new(),
            };
            chain::settle_reached(&mut now, &self.path);
            if now
                .iter()
                .any(|r| last.as_ref().is_some_and(|l| same_record(r, l)))
            {
                return Ok(());
            }
            let ours = &self.archive.records;
            let leads =
                now.len() < ours.len() && now.iter().zip(ours).all(|(a, b)| same_record(a, b));
            if !leads {
                break;
            }
            self.version = version;
            if self.write()? {
                return Ok(());
            }
        }
        bail!(
            "the archive {} was rewritten by another run meanwhile: this compaction's record \
             could not be added (its output is in place)",
            self.path.shown()
        )
    }

    /// Puts the archive back as it was: the output never reached its place. An archive that
    /// another run wrote since is that run's, and left as it is.
    pub fn roll_back(self) -> Result<()> {
        match &self.before {
            Some(bytes) => {
                place::write_if(&self.path, bytes, Some(&self.like), &self.version).map(drop)
            }
            None => place::remove_if(&self.path, &self.version).map(drop),
        }
        .with_context(|| format!("putting back the archive {}", self.path.shown()))
    }

    /// Writes the archive over the version this run saw; `false` when another was there.
    fn write(&mut self) -> Result<bool> {
        let written = place::write_if(
            &self.path,
            self.archive.to_json().as_bytes(),
            Some(&self.like),
            &self.version,
        )
        .with_context(|| format!("writing the archive {}", self.path.shown()))?;
        Ok(match written {
            Some(version) => {
                self.version = version;
                true
            }
            None => false,
        })
    }
}

/// Whether two records are one compaction's (as read back from an archive another run wrote).
fn same_record(a: &Record, b: &Record) -> bool {
    (&a.input.hash, &a.output.hash, &a.time, a.generation)
        == (&b.input.hash, &b.output.hash, &b.time, b.generation)
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

/// The records `new` joins, with its generation (and link back) set: those of an archive that
/// follows the input, or of this output's own archive at `target`.
fn earlier_records(
    job: Places,
    source: Option<&str>,
    target: &Path,
    new: &mut Record,
) -> Result<Vec<Record>> {
    let Some(input) = job.input else {
        return Ok(Vec::new());
    };
    let mut places = paths::earlier_candidates(input, job.archive_dir, job.input_root);
    if !places.iter().any(|p| p == target) {
        places.push(target.to_path_buf());
    }
    for candidate in places {
        let there = place::exists(&candidate).with_context(|| {
            format!(
                "looking for the earlier compactions of {} at {}",
                input.shown(),
                candidate.shown()
            )
        })?;
        if !there {
            continue;
        }
        let mut earlier = Archive::read(&candidate).with_context(|| {
            format!(
                "{} may hold the earlier compactions of {} (move it away to start a new archive)",
                candidate.shown(),
                input.shown()
            )
        })?;
        chain::settle(&mut earlier.records, &candidate);
        let Some(last) = earlier.records.last() else {
            continue;
        };
        if last.output.hash == new.input.hash {
            new.generation = last.generation;
            return Ok(earlier.records);
        }
        let is_target = candidate == target;
        let follows = if is_target { job.output } else { input };
        if !names(&candidate, &last.output, follows) {
            continue;
        }
        let rerun =
            is_target && last.generation == 1 && earlier.records[0].input.hash == new.input.hash;
        if rerun {
            continue;
        }
        new.generation = last.generation + 1;
        // A dataset's earlier output is not text to link.
        new.previous_output = source.and_then(|source| {
            chain::last_output(&earlier.records, source.as_bytes(), &candidate)
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .map(|previous| chain::link(source, &previous))
        });
        return Ok(earlier.records);
    }
    Ok(Vec::new())
}

/// Whether the file a record names (looked up from the archive at `archive`) is `file`.
fn names(archive: &Path, named: &FileRef, file: &Path) -> bool {
    let file = paths::absolute(file);
    paths::candidates(archive, named)
        .iter()
        .any(|(p, _)| paths::absolute(p) == file)
}

/// Refuses to replace an archive that belongs to another output (two outputs with one stem,
/// such as `a.compact.json` and `a.compact.jsonl`) or a file that is not an archive.
fn check_target(path: &Path, output: &FileRef) -> Result<()> {
    if !place::exists(path)? {
        return Ok(());
    }
    let existing =
        Archive::read(path).with_context(|| format!("not replacing {}", path.shown()))?;
    let theirs = existing.records.last().and_then(|r| r.output.path.clone());
    if theirs.is_some() && theirs != output.path {
        bail!(
            "the archive {} belongs to {}, not to {}: not replacing it (use --archive-dir, or \
             move one of them)",
            path.shown(),
            theirs.unwrap_or_default(),
            output.path.as_deref().unwrap_or_default()
        );
    }
    Ok(())
}
