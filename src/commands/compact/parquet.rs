//! `ctxc compact` on a Parquet dataset: each row's conversation through the same pipeline as
//! a JSON file, one report per row, and the dataset written once (atomically, like any output)
//! with the compacted conversations in place of the old ones.
//!
//! The dataset goes to a temporary file beside its destination a row group at a time; then,
//! as for a file: the `--resume-from` entry, the backup (`--in-place --backup`, copied from the
//! claimed file), the archive with its record pending (`--archive`: each changed row's
//! original, see [`crate::archive::DatasetRecord`]), the rename (in place: under the file's
//! lock, refused when the file changed or another process holds it open for writing), and
//! the archive's record committed. To an object, the same steps with an unnamed temporary
//! file, uploaded whole in place of the rename: in parts to a new key, or, in place, the backup
//! written from the object as read and the object replaced in one `PUT` conditional on the
//! version read (see [`crate::inplace::remote`]).

use super::{Conduct, Destination, Failed, Job, check_destination, output_exists};
use crate::archive::{self, ConversationRecord, DatasetJob, DatasetRecord, FileRef, RowRestore};
use crate::dataset::{self, Dataset, Done, Rewritten, Row, Written};
use crate::discover::Input;
use crate::human::Shown;
use crate::inplace::{self, Claim};
use crate::manifest::Identity;
use crate::outputs::atomic::{persist, temp_beside};
use crate::outputs::tempfiles::TempFile;
use crate::pipeline::{Outcome, Settings};
use crate::report::compact::{FileReport, Status};
use crate::transcript::Transcript;
use anyhow::{Context, Result, anyhow};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// What a row hands back: its report, and (for an archive) what happened to its
/// conversations.
type RowResult = (FileReport, Vec<ConversationRecord>);

/// What the rows of a dataset left for its archive (their reports are spooled as they come).
#[derive(Default)]
struct Rows {
    /// For an archive: what happened to the conversations of the rows written back.
    conversations: Vec<ConversationRecord>,
    /// For an archive: the changed rows' restore data.
    changed: Vec<RowRestore>,
    /// Rows whose compacted conversation was written.
    replaced: usize,
}

impl Rows {
    /// Keeps what the archive needs of a row; returns its report.
    fn add(&mut self, done: Done<RowResult>) -> FileReport {
        let Done {
            index,
            result: (report, conversations),
            written,
            text,
            stored,
        } = done;
        if !matches!(written, Written::Refused(_)) {
            self.conversations.extend(conversations);
        }
        if written == Written::Replaced {
            self.replaced += 1;
            if let (Some(stored), Some(text)) = (stored, text) {
                self.changed.push(RowRestore {
                    row: index as u64,
                    hash: archive::hash(text.as_bytes()),
                    restore: archive::link(&stored, text),
                });
            }
        }
        row_report((report, written))
    }
}

impl Conduct<'_> {
    /// Compacts every row of a dataset and writes it to the job's destination. The rows'
    /// reports go to the spool as their row groups are done; what is returned is left to
    /// report (a dataset that failed as a whole, or the rows an earlier run finished).
    /// `object`: an object compacted in place, claimed (read with its version) by the caller.
    pub(super) fn dataset(
        &self,
        job: &Job,
        file: File,
        object: Option<inplace::remote::Claim>,
        settings: &Settings,
    ) -> Vec<FileReport> {
        let path = job.input.display();
        let failed = |f: Failed| vec![f.into_report(&path)];
        if self.args.confirm && !self.args.dry_run {
            let refused = anyhow!("--confirm does not ask about a Parquet dataset yet");
            return failed(Failed::at("write", 0)(refused));
        }
        let identity = self.identity(&job.input);
        let dest = self.dest(job).name();
        let dest = dest.as_deref();
        if let Some(m) = self.manifest {
            if let Some(reports) = m.finished_rows(&path, identity.as_ref(), dest) {
                self.progress.log(
                    1,
                    &format!("{path}: finished by an earlier run (--resume-from): skipped"),
                );
                return reports;
            }
        }
        let replaceable = dest.is_some_and(|d| self.manifest.is_some_and(|m| m.names_output(d)));
        // A dataset's output that is there already is compared with this run's once written,
        // as a file's is: the same command run again is done, anything else refused.
        let existing = match check_destination(job, &self.args.outputs, replaceable) {
            Err(e) => return failed(Failed::at("write", 0)(e)),
            Ok(existing) => existing,
        };
        let conduct = (object, existing);
        match self.compact_dataset(job, file, conduct, settings, identity.as_ref()) {
            Ok(()) => Vec::new(),
            Err(f) => {
                // Its rows were reported as done: the dataset as a whole failed instead.
                self.spool.retract(job.id);
                failed(f)
            }
        }
    }

    /// `existing`: the output was there before the run ([`Conduct::left_as_is`]).
    fn compact_dataset(
        &self,
        job: &Job,
        file: File,
        (object, existing): (Option<inplace::remote::Claim>, bool),
        settings: &Settings,
        identity: Option<&Identity>,
    ) -> Result<(), Failed> {
        let path = job.input.display();
        let read = Failed::at("read", 0);
        let in_place = self.args.outputs.in_place && !self.args.dry_run;
        // In place, the file is locked and read through the claim: the inode checked before
        // the rename is the one compacted.
        let claim = match &job.input {
            Input::File(p) if in_place => {
                Some(inplace::claim_file(p, self.args.input.limit.max_input_bytes).map_err(&read)?)
            }
            _ => None,
        };
        let file = match &claim {
            Some(claim) => claim.file().map_err(&read)?,
            None => file,
        };
        // A repaired row is archived as any compacted one is: `restore` gives its damaged value
        // back. Which rows need repair is known only once they are read.
        let archiving = (self.args.archive || self.args.repair)
            && matches!(
                self.dest(job),
                Destination::File(_) | Destination::InPlace(_) | Destination::Remote(_)
            );
        let input_ref = if archiving {
            let (bytes, hash) = archive::hash_file(&file)
                .with_context(|| format!("reading {path}"))
                .map_err(&read)?;
            Some(archive::file_ref_of(bytes, hash))
        } else {
            None
        };
        // An object compacted in place: its bytes as read are kept for the backup.
        let mut file_copy = object
            .as_ref()
            .map(|_| file.try_clone().context("keeping the object as read"));
        let limit = self.args.input.limit.max_input_bytes;
        let column = self.args.input.column.as_deref();
        let mut dataset = Dataset::open(file, column, limit).map_err(&read)?;
        if archiving {
            dataset.keep_originals();
        }
        let output = match self.dest(job) {
            Destination::File(p) | Destination::InPlace(p) => {
                Some(p.to_string_lossy().into_owned())
            }
            Destination::Remote(url) => Some(url.to_string()),
            Destination::Stdout => Some("-".to_string()),
            Destination::Nowhere => None,
        };
        let each = |row: Row| self.row(&path, row, settings, output.as_deref(), archiving);
        let mut rows = Rows::default();
        let sink = |done: Done<RowResult>| {
            let report = rows.add(done);
            for warning in &report.warnings {
                self.progress.warn(&format!("{}:{warning}", report.path));
            }
            self.emit(job, &report);
            Ok(())
        };
        let write = Failed::at("write", 0);
        match self.dest(job) {
            // A dry run whose output is there already writes to a temporary file, to compare.
            Destination::Nowhere if existing => {
                let tmp = tempfile::tempfile()
                    .context("creating a temporary file for the dataset")
                    .map_err(&write)?;
                let mut writer = BufWriter::new(&tmp);
                let read = dataset.rewrite(Some(&mut writer), each, sink);
                read.and_then(|_| Ok(writer.flush()?)).map_err(&write)?;
                drop(writer);
                self.left_as_is(job, None, &tmp).map_err(&write)?;
            }
            Destination::Nowhere => {
                dataset
                    .rewrite::<_, std::io::Sink>(None, each, sink)
                    .map_err(&write)?;
            }
            Destination::Stdout => {
                let mut out = BufWriter::new(std::io::stdout());
                let written = dataset.rewrite(Some(&mut out), each, sink);
                let written = written.and_then(|_| out.flush().map_err(Into::into));
                self.stop_on_reader_gone(written).map_err(&write)?;
            }
            Destination::File(out) | Destination::InPlace(out) => {
                let tmp = match &claim {
                    Some(claim) => claim.temp(),
                    None => temp_beside(out),
                }
                .map_err(&write)?;
                let mut writer = BufWriter::new(tmp.as_file());
                let read = dataset.rewrite(Some(&mut writer), each, sink);
                let read = read
                    .and_then(|read| {
                        writer.flush()?;
                        drop(writer);
                        tmp.as_file().sync_all()?;
                        Ok(read)
                    })
                    .with_context(|| format!("writing {}", out.shown()))
                    .map_err(&write)?;
                if existing {
                    return self
                        .left_as_is(job, identity, tmp.as_file())
                        .map_err(&write);
                }
                let staged = Staged {
                    job,
                    out,
                    dataset: &dataset,
                    read,
                    input_ref,
                    identity,
                };
                self.place(staged, tmp, claim.as_ref(), &mut rows)
                    .map_err(&write)?;
            }
            Destination::Remote(url) => {
                // Written whole to an unnamed temporary file, then uploaded (in parts: the
                // object appears only once complete).
                let mut tmp = tempfile::tempfile()
                    .context("creating a temporary file for the dataset")
                    .map_err(&write)?;
                // In place, the object as read, for its backup.
                let original = match &object {
                    Some(_) => Some(file_copy.take().expect("kept").map_err(&write)?),
                    None => None,
                };
                let mut writer = BufWriter::new(&tmp);
                let read = dataset
                    .rewrite(Some(&mut writer), each, sink)
                    .and_then(|read| {
                        writer.flush()?;
                        Ok(read)
                    })
                    .with_context(|| format!("writing the dataset for {url}", url = url.shown()))
                    .map_err(&write)?;
                drop(writer);
                if existing {
                    return self.left_as_is(job, identity, &tmp).map_err(&write);
                }
                // In place, a dataset none of whose rows changed is left alone: no backup, no
                // rewrite.
                if object.is_some() && rows.replaced == 0 {
                    return Ok(());
                }
                let (bytes, hash) = archive::hash_file(&tmp)
                    .with_context(|| {
                        format!("reading back the dataset for {url}", url = url.shown())
                    })
                    .map_err(&write)?;
                let name = std::path::PathBuf::from(url.to_string());
                self.record_rows(job, identity, &name, hash.clone())
                    .map_err(&write)?;
                let mut staged = Staged {
                    job,
                    out: &name,
                    dataset: &dataset,
                    read,
                    input_ref,
                    identity,
                };
                if let (Some(claim), Some(original)) = (&object, original) {
                    // In place: the backup first, then the object replaced only while it is
                    // the version read.
                    if let Some(suffix) = &self.args.outputs.backup {
                        let original = crate::dataset::read_whole(&original)
                            .with_context(|| {
                                format!("reading back {url} as read", url = url.shown())
                            })
                            .map_err(&write)?;
                        claim.backup(suffix, &original).map_err(&write)?;
                    }
                    let pending = self
                        .begin_archive(&mut staged, &mut rows, (bytes, hash))
                        .map_err(&write)?;
                    let written = crate::dataset::read_whole(&tmp)
                        .with_context(|| {
                            format!("reading back the dataset for {url}", url = url.shown())
                        })
                        .map_err(|error| inplace::remote::ReplaceError {
                            error,
                            not_written: true,
                        })
                        .and_then(|compacted| claim.replace(&compacted));
                    self.settle_replace(written, pending).map_err(&write)?;
                    for note in claim.notes() {
                        self.progress.warn(&format!("{path}: {note}"));
                    }
                    return Ok(());
                }
                let pending = self
                    .begin_archive(&mut staged, &mut rows, (bytes, hash))
                    .map_err(&write)?;
                let written = crate::store::put_file(url, &mut tmp).map(drop);
                self.settle(written, pending).map_err(&write)?;
            }
        }
        Ok(())
    }

    /// A dataset whose output was there before the run, now `written` to a temporary file:
    /// done when the output holds exactly those bytes (the same command run again), with its
    /// `--resume-from` entry (`identity`: the input's, for a real run); refused otherwise.
    /// The output is left as it is either way.
    fn left_as_is(&self, job: &Job, identity: Option<&Identity>, written: &File) -> Result<()> {
        let name = job.dest.name().unwrap_or_default();
        let (size, hash) = archive::hash_file(written).context("reading back the dataset")?;
        let there = match &job.dest {
            Destination::File(path) | Destination::InPlace(path) => std::fs::metadata(path)
                .is_ok_and(|m| m.len() == size)
                .then(|| File::open(path).and_then(|f| crate::dataset::read_whole(&f)))
                .transpose()?,
            Destination::Remote(url) => match crate::store::head(url)? {
                Some(meta) if meta.size == size => {
                    Some(crate::store::get(url, size).map_err(|e| anyhow!(e.0))?.0)
                }
                _ => None,
            },
            Destination::Stdout | Destination::Nowhere => None,
        };
        if there
            .is_none_or(|there| there != crate::dataset::read_whole(written).unwrap_or_default())
        {
            return Err(output_exists(&name.shown()));
        }
        if identity.is_some() {
            self.record_rows(job, identity, &name, hash)?;
        }
        self.progress.log(
            1,
            &format!(
                "{}: the output {} was there already, byte for byte this result: left as it is",
                job.input.display(),
                name.shown()
            ),
        );
        Ok(())
    }

    /// The `--resume-from` entry of a dataset about to be written to `out` (a file, or an
    /// object named by its URL), with its rows' reports streamed from the spool.
    fn record_rows(
        &self,
        job: &Job,
        identity: Option<&Identity>,
        out: &Path,
        hash: String,
    ) -> Result<()> {
        let Some(m) = self.manifest else {
            return Ok(());
        };
        let reports = |out: &mut dyn Write| {
            let mut first = true;
            self.spool.each_of(job.id, |line| {
                if !std::mem::take(&mut first) {
                    out.write_all(b",")?;
                }
                Ok(out.write_all(line.as_bytes())?)
            })
        };
        m.record_rows(&job.input.display(), identity, Some(out), hash, &reports)
    }

    /// Puts a dataset written to `tmp` at its destination, with its manifest entry, backup
    /// and archive, as a file's are.
    fn place(
        &self,
        mut w: Staged,
        tmp: TempFile,
        claim: Option<&Claim>,
        rows: &mut Rows,
    ) -> Result<()> {
        let path = w.job.input.display();
        // In place, a dataset none of whose rows changed is left alone: no backup, no rewrite.
        if claim.is_some() && rows.replaced == 0 {
            return Ok(());
        }
        let (bytes, hash) = archive::hash_file(tmp.as_file())
            .with_context(|| format!("reading back {}", w.out.shown()))?;
        self.record_rows(w.job, w.identity, w.out, hash.clone())?;
        if let (Some(claim), Some(suffix)) = (claim, &self.args.outputs.backup) {
            claim.backup_file(suffix)?;
        }
        let input = match &w.job.input {
            Input::File(p) => Some(p.as_path()),
            Input::Stdin | Input::Remote(_) => None,
        };
        let pending = self.begin_archive(&mut w, rows, (bytes, hash))?;
        let written = match claim {
            Some(claim) => claim.replace_with(tmp),
            None => persist(tmp, input, w.out),
        };
        self.settle(written, pending)?;
        // The rows were reported before the backup was looked at.
        for note in claim.iter().flat_map(|c| c.notes()) {
            self.progress.warn(&format!("{path}: {note}"));
        }
        Ok(())
    }

    /// The archive of a dataset about to be put in place, its new record pending (committed
    /// once the output is in place, put back when it could not be); `None` without
    /// `--archive`. `output`: the size and hash of the dataset written.
    fn begin_archive(
        &self,
        w: &mut Staged,
        rows: &mut Rows,
        (bytes, hash): (u64, String),
    ) -> Result<Option<archive::Pending>> {
        let Some(input_ref) = w.input_ref.take() else {
            return Ok(None);
        };
        let dataset = DatasetRecord {
            column: w.dataset.column_name().to_string(),
            rows: w.read.rows,
            values_hash: w.read.values_hash.clone(),
            changed: std::mem::take(&mut rows.changed),
        };
        let record = archive::dataset_record(
            (input_ref, archive::file_ref_of(bytes, hash)),
            std::mem::take(&mut rows.conversations),
            super::super::config::effective_json(self.config),
            dataset,
        );
        let input = w.job.input_name();
        archive::begin_dataset(DatasetJob {
            input: input.as_deref(),
            output: w.out,
            archive_dir: self.args.archive_dir.as_deref(),
            input_root: w.job.root.as_deref(),
            record,
        })
        .map(Some)
    }

    /// One row through the pipeline ([`crate::api::compact_row_with`]): its report, what
    /// happened to its conversations (for an archive), and its compacted text when it changed.
    fn row(
        &self,
        path: &str,
        row: Row,
        settings: &Settings,
        output: Option<&str>,
        archiving: bool,
    ) -> (RowResult, Option<String>) {
        let path = dataset::row_path(path, row.index);
        let row_index = row.index;
        let also = |t: &Transcript, outcome: &Outcome| {
            let mut conversations = Vec::new();
            if archiving {
                conversations = archive::conversations(t, outcome);
                for c in &mut conversations {
                    c.location = format!("#row={row_index}{}", c.location);
                }
            }
            conversations
        };
        let (text, repaired) = match self.args.repair {
            true => {
                let (text, repaired) =
                    super::repairing::repair(row.text.to_string(), &self.config.read);
                (std::borrow::Cow::Owned(text), repaired)
            }
            false => (std::borrow::Cow::Borrowed(row.text), None),
        };
        let ((mut report, conversations), mut compacted) =
            crate::api::compact_row_with(path, &text, settings, self.args.on_findings(), also);
        if let Some(repaired) = repaired.filter(|_| report.status != Status::Failed) {
            super::repairing::report(&mut report, &repaired);
            // Written back repaired, even when the compaction changed nothing more.
            compacted.get_or_insert(text.into_owned());
        }
        if report.status != Status::Failed {
            report.output = output.map(str::to_string);
        }
        ((report, conversations), compacted)
    }
}

/// A dataset written to a temporary file, to be put in place.
struct Staged<'a> {
    job: &'a Job,
    out: &'a Path,
    dataset: &'a Dataset,
    read: Rewritten,
    /// The input's size and hash, when it is archived.
    input_ref: Option<FileRef>,
    identity: Option<&'a Identity>,
}

/// A row's report, failed when its compacted conversation could not be written back.
fn row_report((report, written): (FileReport, Written)) -> FileReport {
    crate::api::row_report(report, written)
}
