//! `ctxc repair` on a Parquet dataset: each row's conversation repaired as its file would be
//! ([`crate::repair`]), one report per row (`PATH#row=N`), and the dataset written once, a row
//! group at a time, with the repaired conversations in place of the damaged ones: every other
//! column, the schema, its metadata, the row groups and the codecs as they were read.
//!
//! A row that cannot be read or repaired is reported and keeps its value; the others go on.
//! The dataset is written as compact writes one ([`crate::dataset::Dataset::rewrite`]): to a
//! temporary file beside its destination, then the archive with its record pending (each
//! changed row's original, see [`crate::archive::DatasetRecord`]), the rename (in place: under
//! the file's lock, refused when the file changed or another process holds it open for
//! writing; a dataset none of whose rows changed is left alone), and the record committed.

use super::{FileRepair, Status, assess, root_of};
use crate::archive::{self, DatasetJob, DatasetRecord, FileRef, RowRestore};
use crate::cli::RepairArgs;
use crate::dataset::{self, Dataset, Done, Rewritten, Row, Written};
use crate::discover::Input;
use crate::human::Shown;
use crate::inplace::{self, Claim};
use crate::outputs::Destination;
use crate::outputs::atomic::{persist, temp_beside};
use crate::outputs::tempfiles::TempFile;
use crate::repair;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// What the rows left: their reports, and for an archive the changed rows' restore data.
#[derive(Default)]
struct Rows {
    reports: Vec<FileRepair>,
    changed: Vec<RowRestore>,
    /// The repairs of the changed rows, each with its row, for the archive's record.
    repairs: Vec<serde_json::Value>,
    replaced: usize,
    /// Whether each report's row was replaced, in report order.
    changed_rows: Vec<bool>,
}

impl Rows {
    /// Takes a row as it went back into the dataset (a sink of [`Dataset::rewrite`]).
    fn add(&mut self, done: Done<FileRepair>) -> Result<()> {
        let Done {
            index,
            result: mut report,
            written,
            text,
            stored,
        } = done;
        let replaced = written == Written::Replaced;
        match written {
            Written::Refused(why) => {
                report = report.fail(0, format!("{why}: the row keeps its value"));
            }
            Written::Replaced => {
                self.replaced += 1;
                // Each repair with its row: `archive show` names both.
                for repair in &report.repairs {
                    let mut value = serde_json::json!(repair);
                    value["row"] = index.into();
                    self.repairs.push(value);
                }
                if let (Some(stored), Some(text)) = (stored, text) {
                    self.changed.push(RowRestore {
                        row: index as u64,
                        hash: archive::hash(text.as_bytes()),
                        restore: archive::link(&stored, text),
                    });
                }
            }
            Written::Kept => {}
        }
        self.changed_rows.push(replaced);
        self.reports.push(report);
        Ok(())
    }

    /// Says in the rows' reports where the dataset went: each row that did not fail is in
    /// `output`; the archive and `notes` (a backup found in place) belong to the rows changed.
    fn written(&mut self, output: &Option<String>, archive: Option<&str>, notes: &[String]) {
        for (report, &changed) in self.reports.iter_mut().zip(&self.changed_rows) {
            if report.status == Status::Failed {
                continue;
            }
            report.output.clone_from(output);
            if changed {
                report.archive = archive.map(str::to_string);
                report.notes.extend_from_slice(notes);
            }
        }
    }
}

/// Repairs every row of the dataset `file` (the input, as sniffed) and writes it to `dest`;
/// returns the rows' reports, or one report on the input when the dataset as a whole failed.
pub(super) fn repair(
    input: &Input,
    file: File,
    args: &RepairArgs,
    opts: &repair::Options,
    dest: &Destination,
) -> Vec<FileRepair> {
    let path = input.display();
    match repair_rows(input, file, args, opts, dest) {
        Ok(rows) => rows.reports,
        Err(e) => vec![FileRepair::new(path).fail(0, format!("{e:#}"))],
    }
}

fn repair_rows(
    input: &Input,
    file: File,
    args: &RepairArgs,
    opts: &repair::Options,
    dest: &Destination,
) -> Result<Rows> {
    let path = input.display();
    let limit = args.input.limit.max_input_bytes;
    // In place, the file is locked and read through the claim: the inode checked before the
    // rename is the one repaired.
    let claim = match dest {
        Destination::InPlace(p) if !args.dry_run => Some(inplace::claim_file(p, limit)?),
        _ => None,
    };
    let file = match &claim {
        Some(claim) => claim.file()?,
        None => file,
    };
    let archiving = !args.no_archive
        && !args.dry_run
        && matches!(dest, Destination::File(_) | Destination::InPlace(_));
    let input_ref = match archiving {
        true => {
            let (bytes, hash) =
                archive::hash_file(&file).with_context(|| format!("reading {path}"))?;
            Some(archive::file_ref_of(bytes, hash))
        }
        false => None,
    };
    let mut dataset = Dataset::open(file, args.input.column.as_deref(), limit)?;
    if archiving {
        dataset.keep_originals();
    }
    let output = dest.name().map(|p| p.shown());
    let each = |row: Row| repair_row(&path, row, args, opts);
    let mut rows = Rows::default();
    let target = match dest {
        _ if args.dry_run => None,
        Destination::File(p) | Destination::InPlace(p) => Some(p),
        Destination::Stdout => {
            let mut out = BufWriter::new(std::io::stdout());
            dataset.rewrite(Some(&mut out), each, |d| rows.add(d))?;
            out.flush()?;
            rows.written(&Some("-".into()), None, &[]);
            return Ok(rows);
        }
        Destination::Remote(_) | Destination::Nowhere => None,
    };
    let Some(target) = target else {
        dataset.rewrite::<_, std::io::Sink>(None, each, |d| rows.add(d))?;
        return Ok(rows);
    };
    let tmp = match &claim {
        Some(claim) => claim.temp()?,
        None => temp_beside(target)?,
    };
    let mut writer = BufWriter::new(tmp.as_file());
    let read = dataset
        .rewrite(Some(&mut writer), each, |d| rows.add(d))
        .and_then(|read| {
            writer.flush()?;
            drop(writer);
            tmp.as_file().sync_all()?;
            Ok(read)
        })
        .with_context(|| format!("writing {}", target.shown()))?;
    let staged = Staged {
        input,
        args,
        out: target,
        column: dataset.column_name(),
        read,
        input_ref,
    };
    let Some(archive) = place(staged, tmp, claim.as_ref(), &mut rows)? else {
        return Ok(rows);
    };
    let notes = claim.as_ref().map(Claim::notes).unwrap_or_default();
    rows.written(&output, archive.as_deref(), &notes);
    Ok(rows)
}

/// One row repaired: its report, and its repaired text when it changed (a row that fails, or
/// whose repair would add a fault, keeps its value).
fn repair_row(
    path: &str,
    row: Row,
    args: &RepairArgs,
    opts: &repair::Options,
) -> (FileRepair, Option<String>) {
    let report = FileRepair::new(dataset::row_path(path, row.index));
    let repaired = match repair::repair(row.text, opts) {
        Ok(repaired) => repaired,
        Err(e) => {
            let first = &e.findings[0];
            return (report.fail(first.line, first.message.clone()), None);
        }
    };
    let (report, output) = assess(report, row.text, repaired, &args.input.format);
    let changed = report.status != Status::Failed && output != row.text;
    (report, changed.then_some(output))
}

/// A dataset written to a temporary file, to be put in place.
struct Staged<'a> {
    input: &'a Input,
    args: &'a RepairArgs,
    out: &'a Path,
    column: &'a str,
    read: Rewritten,
    /// The input's size and hash, when it is archived.
    input_ref: Option<FileRef>,
}

/// Puts the dataset written to `tmp` at its destination, with its backup and archive;
/// returns where the archive went, `None` when nothing was put in place. In place, a dataset none of whose rows changed is left
/// alone; an output that is there already is left as it is when it holds exactly these
/// bytes (the same command run again), and refused otherwise unless `--force-overwrite`.
fn place(
    w: Staged,
    tmp: TempFile,
    claim: Option<&Claim>,
    rows: &mut Rows,
) -> Result<Option<Option<String>>> {
    if claim.is_some() && rows.replaced == 0 {
        return Ok(None);
    }
    if claim.is_none() && w.out.exists() {
        let same = std::fs::read(w.out).ok() == Some(crate::dataset::read_whole(tmp.as_file())?);
        if same {
            return Ok(Some(None));
        }
        if !w.args.outputs.force_overwrite {
            bail!(
                "{} exists and differs from this repair: not replacing it (--force-overwrite \
                 replaces it)",
                w.out.shown()
            );
        }
    }
    if let (Some(claim), Some(suffix)) = (claim, &w.args.outputs.backup) {
        claim.backup_file(suffix)?;
    }
    let input = match w.input {
        Input::File(p) => Some(p.as_path()),
        Input::Stdin | Input::Remote(_) => None,
    };
    let pending = match (&w.input_ref, rows.replaced) {
        (Some(input_ref), 1..) => Some(begin_archive(&w, input_ref.clone(), &tmp, rows, input)?),
        _ => None,
    };
    let written = match claim {
        Some(claim) => claim.replace_with(tmp),
        None => persist(tmp, input, w.out),
    };
    match (written, pending) {
        (Ok(()), Some(pending)) => Ok(Some(Some(pending.commit()?.shown()))),
        (Ok(()), None) => Ok(Some(None)),
        (Err(e), Some(pending)) => {
            pending.roll_back()?;
            Err(e)
        }
        (Err(e), None) => Err(e),
    }
}

/// The archive of a repaired dataset, its record pending: each changed row's restore data,
/// and the repairs made, each with its row, kept as the record's settings (as a file's are).
fn begin_archive(
    w: &Staged,
    input_ref: FileRef,
    tmp: &TempFile,
    rows: &mut Rows,
    input: Option<&Path>,
) -> Result<archive::Pending> {
    let (bytes, hash) = archive::hash_file(tmp.as_file())
        .with_context(|| format!("reading back {}", w.out.shown()))?;
    let dataset = DatasetRecord {
        column: w.column.to_string(),
        rows: w.read.rows,
        values_hash: w.read.values_hash.clone(),
        changed: std::mem::take(&mut rows.changed),
    };
    let settings = serde_json::json!({
        "command": "repair",
        "repairs": std::mem::take(&mut rows.repairs),
    });
    let mut record = archive::dataset_record(
        (input_ref, archive::file_ref_of(bytes, hash)),
        Vec::new(),
        settings,
        dataset,
    );
    record.triggers = vec!["repair".into()];
    let root = input.and_then(|p| root_of(p, &w.args.input.inputs));
    archive::begin_dataset(DatasetJob {
        input,
        output: w.out,
        archive_dir: w.args.archive_dir.as_deref(),
        input_root: root.as_deref(),
        record,
    })
}
