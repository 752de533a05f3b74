//! `ctxc compact`: settings → inputs (sharded) → the pipeline, in parallel → outputs written
//! atomically, to files or objects (and archives, beside them) → report. One file's failure is reported and counted; the others
//! go on, unless `--fail-fast`.

use crate::ExitStatus;
use crate::api::{self, Failed};
use crate::archive::{self, ArchiveJob};
use crate::cli::CompactArgs;
use crate::config::CompactConfig;
use crate::dataset::{self, Sniffed};
use crate::discover::{self, Input};
use crate::human::Shown;
use crate::human::thousands;
use crate::inplace;
use crate::manifest::{Identity, Manifest};
use crate::pipeline::{Outcome, Settings};
use crate::progress::Progress;
use crate::report::Columns;
use crate::report::compact::{CompactReport, FileReport, SCHEMA_VERSION, Status, Tally};
use crate::report::compact_table::table;
use crate::report::{self, OutputFormat};
use crate::shard::{self, Shard};
use crate::store::{self, Url};
use crate::transcript::Transcript;
use crate::workers;
use anyhow::{Context, Result, bail};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

mod jobs;
mod parquet;
mod printing;
mod repairing;
mod setup;
mod spool;

use jobs::*;
use printing::*;
use setup::{open_manifest, summarizer};

use spool::{Spool, Spooled};

/// An input read for replacing in place, which holds what the replacement must check.
enum Claim {
    /// A local file, locked.
    File(inplace::Claim),
    /// An object, with the version read.
    Object(inplace::remote::Claim),
}

impl Claim {
    fn notes(&self) -> Vec<String> {
        match self {
            Claim::File(claim) => claim.notes(),
            Claim::Object(claim) => claim.notes(),
        }
    }
}

/// What the run does with outputs, beyond the pipeline.
struct Conduct<'a> {
    args: &'a CompactArgs,
    /// `--resume-from`.
    manifest: Option<&'a Manifest>,
    config: &'a CompactConfig,
    progress: &'a Progress,
    stop: AtomicBool,
    bytes_done: AtomicU64,
    bytes_total: u64,
    /// Where reports go as they come.
    spool: &'a Spool,
    /// Outputs going up to object storage in the background, whose reports wait for them.
    uploads: std::sync::Mutex<Vec<Landing>>,
    /// Standard output's reader closed it early: the run ends quietly with exit 0.
    reader_gone: AtomicBool,
}

/// An output object uploading in the background ([`store::put_later`]) while its file's
/// thread goes on to the next: the file's report, ready but for the upload, waits here, and
/// the upload's failure fails it as a failed write would ([`Conduct::land`]).
struct Landing {
    job: usize,
    path: String,
    started: Instant,
    report: FileReport,
    url: Url,
    upload: store::Upload,
    /// The archive's record, pending until the output is in place.
    pending: Option<archive::Pending>,
}

/// What the run did to an input before the pipeline read it: the input is the transcript
/// read and then `torn`, or `repaired`'s original.
#[derive(Clone, Copy)]
struct Before<'a> {
    /// The torn last line left out (`--drop-torn-tail`).
    torn: Option<&'a str>,
    /// The repair made (`--repair`).
    repaired: Option<&'a repairing::Repaired>,
}

/// What [`Conduct::write`] did with an output.
enum Wrote {
    /// Written (where to, when anywhere).
    Done(Option<String>),
    /// An object still uploading.
    Uploading(Uploading),
}

/// An output object still uploading, with its archive's pending record.
struct Uploading {
    url: Url,
    upload: store::Upload,
    pending: Option<archive::Pending>,
}

/// The warning for `--in-place` with neither `--archive` nor `--backup`: what it replaces is
/// gone.
fn unkept_originals(args: &CompactArgs) -> Option<&'static str> {
    (args.outputs.in_place
        && !args.dry_run
        && !args.archive
        && !args.repair
        && args.outputs.backup.is_none())
        .then_some(
            "--in-place without --archive or --backup: the originals of the files compacted will not be kept (--archive lets `ctxc restore` rebuild them)",
        )
}

/// The folders this run writes into, which a walk of its inputs leaves out.
fn own_folders(args: &CompactArgs) -> Vec<std::path::PathBuf> {
    [&args.outputs.out_dir, &args.archive_dir]
        .into_iter()
        .flatten()
        .cloned()
        .collect()
}

/// Runs `ctxc compact`.
pub fn run(args: &CompactArgs, quiet: bool, verbose: u8) -> Result<ExitStatus> {
    let config = CompactConfig::resolve(args)?;
    // The tokenizer builds while the inputs are found.
    let (counter, found) = rayon::join(
        || config.tokens.counter(),
        || discover::discover(&args.input.inputs, &args.input.globs, &own_folders(args)),
    );
    let counter = counter?;
    let (inputs, errors) = found?.reported(quiet);
    let mut jobs = jobs(args, inputs)?;
    prepare_remote(&mut jobs, args);
    if args.confirm && !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        bail!("--confirm asks at a terminal, and standard input or error is not one");
    }
    let bytes_total: u64 = jobs
        .iter()
        .filter_map(|j| match &j.input {
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            // Listing gave sizes, but a request per object just for the progress bar is not
            // worth it: objects count when read.
            Input::Stdin | Input::Remote(_) => None,
        })
        .sum();
    // The remote-summarization notice is a safety disclosure: printed even with -q.
    let summarizer = summarizer(&config, (jobs.len(), bytes_total), args.dry_run)?;
    let settings = config.pipeline(summarizer.as_ref(), &counter);
    if !quiet && let Some(warning) = unkept_originals(args) {
        crate::human::warn(warning);
    }
    let manifest = open_manifest(args, &config, &jobs)?;
    let progress = Progress::with_bytes(jobs.len(), bytes_total, quiet, verbose);
    if let Some(m) = manifest.as_ref().filter(|m| m.recorded() > 0) {
        progress.log(
            1,
            &format!(
                "--resume-from: {} file(s) recorded by an earlier run with these settings",
                m.recorded()
            ),
        );
    }
    let spool = Spool::new()?;
    // The first Ctrl-C lets the files in progress finish and starts no other: what was done
    // is then printed and written to --report, as at the end of any run. (At a --confirm
    // prompt, Ctrl-C stops at once, as a user who presses it there means.)
    if !args.confirm {
        crate::outputs::tempfiles::finish_on_interrupt();
    }
    let conduct = Conduct {
        args,
        manifest: manifest.as_ref(),
        config: &config,
        progress: &progress,
        stop: AtomicBool::new(false),
        bytes_done: AtomicU64::new(0),
        bytes_total,
        spool: &spool,
        uploads: Default::default(),
        reader_gone: AtomicBool::new(false),
    };
    // Paths that could not be opened: I/O errors, which exit 2 as ripgrep's do.
    let unopened = errors.iter().filter(|e| e.unopened).count();
    for e in errors {
        spool.add(usize::MAX, &FileReport::failed(e.path, e.message));
    }
    if args.confirm {
        // Questions come one at a time, in order.
        jobs.iter().for_each(|job| conduct.file(job, &settings));
    } else {
        workers::in_order(
            &jobs,
            |job| conduct.file(job, &settings),
            |job, why| conduct.panicked(job, why),
        );
    }
    // Every output in place (or failed) before anything is reported.
    conduct.land_all();
    let reader_gone = conduct.reader_gone.load(Ordering::Relaxed);
    let interrupted = crate::outputs::tempfiles::interrupted();
    let spooled = spool.finish()?;
    progress.finish();
    // A manifest in a bucket folds in this run's entries; when it cannot, they stay where the
    // next run reads them.
    if let Some(Err(e)) = manifest.as_ref().map(Manifest::finish) {
        progress.warn(&format!("{e:#}"));
    }
    // One pass over the reports: totals, failures, resume commands.
    let mut tally = Tally::default();
    let (mut failures, mut resumes) = (Vec::new(), Vec::new());
    spooled.each(|f| {
        tally.add(&f);
        if f.status == Status::Failed {
            failures.push(f.error_message().unwrap_or_default());
        }
        if let Some(command) = f.resume {
            resumes.push((f.path, command));
        }
        Ok(())
    })?;
    if reader_gone {
        return Err(crate::output::ReaderGone.into());
    }
    for failure in &failures {
        progress.warn(failure);
    }
    // Like a failed file, a summarizer that failed is said even with -q: the run "worked", but
    // not with the summaries asked for.
    for failure in tally.summary_failures() {
        progress.warn(&failure.note());
    }
    // The report without its files, which are printed from the spool.
    let report = CompactReport {
        schema_version: SCHEMA_VERSION,
        tokenizer: config.tokens.clone(),
        strategies: config.strategies.clone(),
        summarizer: summarizer.name().to_string(),
        dry_run: args.dry_run,
        interrupted,
        totals: tally.totals(),
        files: Vec::new(),
    };
    let transcript_on_stdout = !args.dry_run && jobs.iter().any(|j| j.dest == Destination::Stdout);
    // Nothing could be opened: the errors above are all there is to say.
    if !(jobs.is_empty() && unopened > 0) {
        print(
            &report,
            &spooled,
            args.report.format(),
            quiet,
            transcript_on_stdout,
        )?;
    }
    if !quiet {
        for (path, command) in &resumes {
            eprintln!("ctxc: {path}: resume it with: {command}");
        }
    }
    if let Some(path) = &args.report_file {
        write_report_file(&report, &spooled, path)?;
    }
    Ok(if interrupted {
        ExitStatus::Interrupted
    } else if unopened > 0 {
        ExitStatus::Error
    } else if report.totals.failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

impl Conduct<'_> {
    /// A write to standard output that failed because its reader is gone marks the run so
    /// (it then exits 0, saying nothing), and fails this file as [`crate::output::ReaderGone`].
    fn stop_on_reader_gone(&self, written: Result<()>) -> Result<()> {
        match written {
            Err(e) if crate::output::is_broken_pipe(&e) => {
                self.reader_gone.store(true, Ordering::Relaxed);
                Err(crate::output::ReaderGone.into())
            }
            other => other,
        }
    }

    /// Where this run writes `job`'s output: nowhere in a dry run.
    fn dest<'j>(&self, job: &'j Job) -> &'j Destination {
        if self.args.dry_run {
            &NOWHERE
        } else {
            &job.dest
        }
    }

    /// Reads, compacts and writes one input; every failure ends up in its report. A dataset
    /// has one report per row. The reports go to the spool.
    fn file(&self, job: &Job, settings: &Settings) {
        let path = job.input.display();
        if crate::outputs::tempfiles::interrupted() {
            self.progress.advance();
            let skipped =
                FileReport::skipped(path, "not started: the run was interrupted (Ctrl-C)");
            self.spool.add(job.id, &skipped);
            return;
        }
        if self.args.fail_fast && self.stop.load(Ordering::Relaxed) {
            self.progress.advance();
            let skipped = FileReport::skipped(path, "an earlier file failed (--fail-fast)");
            self.spool.add(job.id, &skipped);
            return;
        }
        let started = Instant::now();
        // Counted as done once the file is (the total is of the same sizes), so that the bar
        // follows the work and not the read.
        let size = match &job.input {
            Input::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Input::Stdin | Input::Remote(_) => 0,
        };
        let limit = self.args.input.limit.max_input_bytes;
        // An object replaced in place is read once, with its version: that claim is what the
        // replacement is conditional on.
        let sniffed = match &job.input {
            Input::Remote(url) if self.args.outputs.in_place && !self.args.dry_run => {
                inplace::remote::claim(url, limit)
                    .map(|(claim, bytes)| (dataset::sniff_bytes(bytes), Some(claim)))
                    .map_err(|e| discover::LoadError {
                        line: 0,
                        message: format!("{e:#}"),
                    })
                    .and_then(|(sniffed, claim)| Ok((sniffed?, claim)))
            }
            // A file replaced in place is read whole under its claim (`load`).
            Input::File(path) if self.args.outputs.in_place => {
                dataset::sniff_head(path).map(|sniffed| (sniffed, None))
            }
            input => dataset::sniff(input, limit).map(|sniffed| (sniffed, None)),
        };
        let reports = match sniffed {
            // A dataset's rows are reported as they are done.
            Ok((Sniffed::Parquet(file), claim)) => self.dataset(job, file, claim, settings),
            Ok((Sniffed::Other(read), claim)) => {
                let mut report = match self.compact(job, read, claim, settings) {
                    Ok((report, None)) => report,
                    Ok((report, Some(uploading))) => {
                        // Reported once the object is in place.
                        return self.defer(Landing {
                            job: job.id,
                            path,
                            started,
                            report,
                            url: uploading.url,
                            upload: uploading.upload,
                            pending: uploading.pending,
                        });
                    }
                    Err(f) => f.into_report(&path),
                };
                report.time_ms = started.elapsed().as_millis() as u64;
                vec![report]
            }
            Err(e) => {
                vec![Failed::at("read", e.line)(anyhow::anyhow!(e.message)).into_report(&path)]
            }
        };
        for report in reports {
            self.emit(job, &report);
        }
        self.progress.advance();
        let done = self.bytes_done.fetch_add(size, Ordering::Relaxed) + size;
        self.progress.bytes(done, self.bytes_total);
    }

    /// Reports a job whose [`Conduct::file`] panicked as failed, in place of any row it had
    /// reported: whatever it was writing was dropped on the way out.
    fn panicked(&self, job: &Job, why: String) {
        self.spool.retract(job.id);
        self.emit(job, &FileReport::failed(job.input.display(), why));
        self.progress.advance();
    }

    /// Keeps a file whose output is uploading until the upload is over; lands the uploads
    /// that are over already.
    fn defer(&self, landing: Landing) {
        let finished = {
            let mut uploads = self.uploads.lock().unwrap_or_else(|e| e.into_inner());
            uploads.push(landing);
            let (finished, going): (Vec<Landing>, Vec<Landing>) = std::mem::take(&mut *uploads)
                .into_iter()
                .partition(|l| l.upload.is_finished());
            *uploads = going;
            finished
        };
        for landing in finished {
            self.land(landing);
        }
    }

    /// Waits for every upload still going on, and reports their files.
    fn land_all(&self) {
        let uploads = std::mem::take(&mut *self.uploads.lock().unwrap_or_else(|e| e.into_inner()));
        for landing in uploads {
            self.land(landing);
        }
    }

    /// A file's report once its output's upload is over: as [`Conduct::compact`] reports a
    /// write done, or failed (the archive's record put back).
    fn land(&self, l: Landing) {
        let written = l.upload.wait().map(drop);
        let mut report = match self.settle(written, l.pending) {
            Ok(()) => {
                let mut report = l.report;
                self.finish(&mut report, Some(l.url.to_string()));
                report
            }
            Err(error) => Failed {
                step: "write",
                line: 0,
                error,
                report: Some(Box::new(l.report)),
            }
            .into_report(&l.path),
        };
        report.time_ms = l.started.elapsed().as_millis() as u64;
        self.emit_id(l.job, &report);
        self.progress.advance();
    }

    /// Settles an archive's pending record once its output was put in place, or was not:
    /// committed after the write, put back after a failed one. Only the failed write is an
    /// error: the output is in place, so a pending record that cannot be marked committed is
    /// read as committed (it matches the file), and that only warns.
    fn settle(&self, written: Result<()>, pending: Option<archive::Pending>) -> Result<()> {
        match (written, pending) {
            (Ok(()), Some(pending)) => {
                let archive = pending.path().to_path_buf();
                if let Err(e) = pending.commit() {
                    self.progress.warn(&format!(
                        "{}: {e:#} (its last record stays pending, which is read right)",
                        crate::human::path(&archive)
                    ));
                }
                Ok(())
            }
            (Ok(()), None) => Ok(()),
            (Err(e), Some(pending)) => {
                if let Err(back) = pending.roll_back() {
                    self.progress.warn(&format!("{back:#}"));
                }
                Err(e)
            }
            (Err(e), None) => Err(e),
        }
    }

    /// Settles the pending records a stopped run left in the archives that follow this
    /// in-place input, and says so.
    fn settle_pending(&self, job: &Job) -> Result<()> {
        let Input::File(input) = &job.input else {
            return Ok(());
        };
        let settled =
            archive::settle_pending(input, self.args.archive_dir.as_deref(), job.root.as_deref())?;
        for done in settled {
            self.progress.warn(&match done {
                archive::Settled::Committed(path) => format!(
                    "{}: the last compaction of a run that was stopped reached {}: now recorded as done",
                    crate::human::path(&path),
                    crate::human::path(input)
                ),
                archive::Settled::Dropped(path) => format!(
                    "{}: the last compaction of a run that was stopped never reached {}: left out",
                    crate::human::path(&path),
                    crate::human::path(input)
                ),
            });
        }
        Ok(())
    }

    /// [`Conduct::settle`] for an object replaced in place: a write whose outcome could not be
    /// told (the object read back held neither the input nor the output) leaves the archive's
    /// record pending, which `restore` and the next run settle against what the object holds.
    fn settle_replace(
        &self,
        replaced: Result<(), inplace::remote::ReplaceError>,
        pending: Option<archive::Pending>,
    ) -> Result<()> {
        match (replaced, pending) {
            (Ok(()), pending) => self.settle(Ok(()), pending),
            (Err(e), pending) if e.not_written => self.settle(Err(e.error), pending),
            (Err(e), Some(pending)) => Err(e.error.context(format!(
                "the archive {} keeps this compaction's record pending: `ctxc restore` reads it \
                 against what the object holds",
                crate::human::path(pending.path())
            ))),
            (Err(e), None) => Err(e.error),
        }
    }

    /// How an input looks now, for the `--resume-from` manifest: a file's size and time, or
    /// (only when there is a manifest: it costs a request) an object's size and ETag.
    fn identity(&self, input: &Input) -> Option<Identity> {
        match input {
            Input::File(p) => Identity::of(p),
            Input::Remote(url) if self.manifest.is_some() => store::head(url)
                .ok()
                .flatten()
                .map(|meta| Identity::of_object(&meta)),
            Input::Remote(_) | Input::Stdin => None,
        }
    }

    /// A report done: logged, counted for `--fail-fast`, and spooled.
    fn emit(&self, job: &Job, report: &FileReport) {
        self.emit_id(job.id, report);
    }

    /// [`Conduct::emit`], for the job of this id.
    fn emit_id(&self, job: usize, report: &FileReport) {
        if report.status == Status::Failed {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.log(report);
        self.spool.add(job, report);
    }

    /// Compacts one transcript file (whose bytes, for standard input, were already `read`).
    /// An output object may still be uploading: its report is then final only once the
    /// upload is over ([`Conduct::land`]).
    fn compact(
        &self,
        job: &Job,
        read: Option<Vec<u8>>,
        claimed: Option<inplace::remote::Claim>,
        settings: &Settings,
    ) -> Result<(FileReport, Option<Uploading>), Failed> {
        let path = job.input.display();
        let identity = self.identity(&job.input);
        let dest = self.dest(job).name();
        let dest = dest.as_deref();
        if let Some(m) = self.manifest {
            if let Some(report) = m.finished(&path, identity.as_ref(), dest) {
                self.progress.log(
                    1,
                    &format!("{path}: finished by an earlier run (--resume-from): skipped"),
                );
                return Ok((report, None));
            }
        }
        let replaceable = dest.is_some_and(|d| self.manifest.is_some_and(|m| m.names_output(d)));
        let existing = check_destination(job, &self.args.outputs, replaceable)
            .map_err(Failed::at("write", 0))?;
        let (claim, text) = self.load(job, read, claimed)?;
        self.progress
            .stage(&format!("compacting {}", base_name(&path)));
        // A repair leaves a torn last line out itself (to the archive).
        let (text, repaired) = match self.args.repair {
            true => repairing::repair(text, &self.config.read),
            false => (text, None),
        };
        let (text, torn) = api::torn_tail(text, self.args.drop_torn_tail)?;
        // The same steps, and failures, as a library call's (`crate::api::compact_text`).
        let (t, plans) = api::plan(text, settings, self.args.on_findings())?;
        let outcome = api::finish(&t, plans, settings)?;
        let mut report = FileReport::of(path.clone(), &t, &outcome);
        let read = &settings.read;
        let messages = report.messages_before;
        if let Some(warning) =
            crate::transcript::named_format_found_nothing(t.format, &t.source, read, messages)
        {
            self.progress.warn(&format!("warning: {path}: {warning}"));
        }
        if let Some(repaired) = &repaired {
            repairing::report(&mut report, repaired);
        }
        for warning in &report.warnings {
            self.progress.warn(&format!("{path}:{warning}"));
        }
        if let Some((line, fragment)) = &torn {
            let bytes = fragment.len();
            // The file is written without the line, even when nothing else changed.
            report.status = Status::Compacted;
            report.bytes_before += bytes;
            report.notes.push(if self.args.archive {
                format!("torn last line {line} ({bytes} bytes, not valid JSON) left out; the archive keeps it")
            } else {
                format!("torn last line {line} ({bytes} bytes, not valid JSON) dropped: not kept anywhere (--archive keeps it)")
            });
        }
        if self.args.confirm && !self.confirmed(&report).map_err(Failed::at("write", 0))? {
            report.status = Status::Skipped;
            report
                .notes
                .push("not written: declined at the prompt".into());
            return Ok((report, None));
        }
        if let Some(m) = self.manifest {
            let mut done = report.clone();
            self.finish(&mut done, dest.map(|p| p.to_string_lossy().into_owned()));
            m.record(
                &path,
                identity.as_ref(),
                dest,
                outcome.output.as_bytes(),
                &done,
            )
            .map_err(Failed::at("write", 0))?;
        }
        if !self.args.dry_run {
            self.progress
                .stage(&format!("writing {}", base_name(&path)));
        }
        let torn_fragment = torn.as_ref().map(|(_, fragment)| fragment.as_str());
        let written = if existing {
            // Named as the real run names it (a dry run writes nowhere, but looked there).
            let there = job.dest.name().unwrap_or_default();
            self.existing(job, &outcome)
                .inspect(|_| {
                    report.notes.push(format!(
                        "the output {} was there already, byte for byte this result: left as it is",
                        there.shown()
                    ))
                })
                .map(Wrote::Done)
        } else {
            let before = Before {
                torn: torn_fragment,
                repaired: repaired.as_ref(),
            };
            self.write(job, &t, before, &outcome, claim.as_ref())
        };
        report.notes.extend(claim.iter().flat_map(Claim::notes));
        match written {
            Ok(Wrote::Done(output)) => {
                self.finish(&mut report, output);
                Ok((report, None))
            }
            Ok(Wrote::Uploading(uploading)) => Ok((report, Some(uploading))),
            Err(error) => Err(Failed {
                step: "write",
                line: 0,
                error,
                report: Some(Box::new(report)),
            }),
        }
    }

    /// A written file's report: where the output went, and how to resume the session.
    fn finish(&self, report: &mut FileReport, output: Option<String>) {
        // Compacted or not, the user came to get the session going again. In place the output
        // is the input under its real name (`report.path` is the name as printed, escaped).
        if self.args.outputs.in_place && !self.args.dry_run {
            let real = output.as_deref().unwrap_or(&report.path);
            report.resume = crate::sessions::resume_command_of(Path::new(real));
        }
        report.output = output;
    }

    /// The input's text; for `--in-place`, read under the file's lock (an object: with its
    /// ETag, `claimed` with the bytes `read`), which the returned claim holds until the input
    /// is replaced. A dry run claims a file too, to see a lock another run holds.
    fn load(
        &self,
        job: &Job,
        read: Option<Vec<u8>>,
        claimed: Option<inplace::remote::Claim>,
    ) -> Result<(Option<Claim>, String), Failed> {
        let in_place = self.args.outputs.in_place && !self.args.dry_run;
        let limit = self.args.input.limit.max_input_bytes;
        let (claim, bytes) = match &job.input {
            Input::File(path) if self.args.outputs.in_place => {
                let (claim, bytes) = inplace::claim(path, limit).map_err(Failed::at("read", 0))?;
                (Some(Claim::File(claim)), bytes)
            }
            Input::Remote(url) if in_place => {
                let (claim, bytes) = match (claimed, read) {
                    (Some(claim), Some(bytes)) => (claim, bytes),
                    _ => inplace::remote::claim(url, limit).map_err(Failed::at("read", 0))?,
                };
                (Some(Claim::Object(claim)), bytes)
            }
            input => {
                let bytes = match read {
                    Some(bytes) => bytes,
                    None => discover::load_bytes(input, limit)
                        .map_err(|e| Failed::at("read", e.line)(anyhow::anyhow!(e.message)))?,
                };
                (None, bytes)
            }
        };
        let text = discover::utf8(bytes)
            .map_err(|e| Failed::at("read", e.line)(anyhow::anyhow!(e.message)))?;
        Ok((claim, text))
    }

    /// An output found at the destination before the run: the run is done when it holds
    /// exactly `outcome`'s bytes (the same command run again), and refused when not. Returns
    /// the output's name; a dry run checks the same.
    fn existing(&self, job: &Job, outcome: &Outcome) -> Result<Option<String>> {
        let want = outcome.output.as_bytes();
        let (name, same) = match &job.dest {
            Destination::File(path) | Destination::InPlace(path) => {
                let same = std::fs::metadata(path).is_ok_and(|m| m.len() == want.len() as u64)
                    && std::fs::read(path).is_ok_and(|b| b == want);
                (path.to_string_lossy().into_owned(), same)
            }
            Destination::Remote(url) => {
                let same = match store::head(url)? {
                    Some(meta) if meta.size == want.len() as u64 => {
                        store::get(url, meta.size).is_ok_and(|(bytes, _)| bytes == want)
                    }
                    _ => false,
                };
                (url.to_string(), same)
            }
            Destination::Stdout | Destination::Nowhere => return Ok(None),
        };
        if !same {
            return Err(output_exists(&crate::human::text(&name)));
        }
        Ok((!self.args.dry_run).then_some(name))
    }

    /// Writes the output (and backup, and archive); returns where the output went, or the
    /// upload of an output object still going on (its archive record pending until it is
    /// over). A dry run writes nothing, and fails where the write would be refused.
    fn write(
        &self,
        job: &Job,
        t: &Transcript,
        before: Before,
        outcome: &Outcome,
        claim: Option<&Claim>,
    ) -> Result<Wrote> {
        // The input as it was: the transcript read, and the torn line left out of it, or
        // what the repair changed.
        let original = match (before.torn, before.repaired) {
            (_, Some(repaired)) => std::borrow::Cow::Borrowed(repaired.step.original.as_str()),
            (Some(fragment), None) => std::borrow::Cow::Owned(format!("{}{fragment}", t.source)),
            (None, None) => std::borrow::Cow::Borrowed(t.source.as_str()),
        };
        if self.args.dry_run {
            self.preview(job, &original, outcome, claim)?;
            return Ok(Wrote::Done(None));
        }
        let like = match &job.input {
            Input::File(p) => Some(p.as_path()),
            Input::Stdin | Input::Remote(_) => None,
        };
        // What the archive names as the input: a file's path, an object's URL.
        let input_name = job.input_name();
        let archive_input = input_name.as_deref();
        // The archive first, its new record pending: when it cannot be written, neither is
        // the output; it is committed once the output is in place, and put back when the
        // output could not be.
        let begin_archive = |output: &Path| -> Result<Option<archive::Pending>> {
            if !repairing::archives(self.args.archive, before.repaired) {
                return Ok(None);
            }
            archive::begin(&ArchiveJob {
                input: archive_input,
                output,
                archive_dir: self.args.archive_dir.as_deref(),
                input_root: job.root.as_deref(),
                original: t,
                torn: before.torn,
                repair: before.repaired.map(|r| &r.step),
                outcome,
                settings: super::config::effective_json(self.config),
            })
            .map(Some)
        };
        let done = |name: String| Ok(Wrote::Done(Some(name)));
        match self.dest(job) {
            Destination::Nowhere => Ok(Wrote::Done(None)),
            Destination::Remote(url) => {
                let bytes = outcome.output.as_bytes();
                let name = PathBuf::from(url.to_string());
                match claim {
                    Some(Claim::Object(claim)) => {
                        // An unchanged object is left alone: no backup, no rewrite.
                        if outcome.output == *original {
                            return done(url.to_string());
                        }
                        if let Some(suffix) = &self.args.outputs.backup {
                            claim.backup(suffix, original.as_bytes())?;
                        }
                        let pending = begin_archive(&name)?;
                        self.settle_replace(claim.replace(bytes), pending)?;
                        done(url.to_string())
                    }
                    _ => {
                        // Uploaded while the thread goes on; settled when it is over.
                        let pending = begin_archive(&name)?;
                        let upload = match store::put_later(url, bytes.to_vec()) {
                            Ok(upload) => upload,
                            // Settled at once: the archive put back, the error returned.
                            Err(e) => {
                                return self.settle(Err(e), pending).map(|()| Wrote::Done(None));
                            }
                        };
                        Ok(Wrote::Uploading(Uploading {
                            url: url.clone(),
                            upload,
                            pending,
                        }))
                    }
                }
            }
            Destination::Stdout => {
                let written = crate::output::write_stdout(outcome.output.as_bytes());
                self.stop_on_reader_gone(written)?;
                done("-".into())
            }
            Destination::File(path) | Destination::InPlace(path) => {
                let claim = match claim {
                    Some(Claim::File(claim)) => Some(claim),
                    _ => None,
                };
                if let Some(claim) = claim {
                    // A record a stopped run left pending is settled while the file still
                    // tells whether that run's output reached it.
                    self.settle_pending(job)?;
                    // An unchanged file is left alone: no backup, no rewrite.
                    if outcome.output == *original {
                        return done(path.to_string_lossy().into_owned());
                    }
                    if let Some(suffix) = &self.args.outputs.backup {
                        claim.backup(suffix, original.as_bytes())?;
                    }
                }
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.shown()))?;
                }
                let pending = begin_archive(path)?;
                let written = match claim {
                    Some(claim) => claim.replace(outcome.output.as_bytes()),
                    None => crate::outputs::write_atomic(path, outcome.output.as_bytes(), like),
                };
                self.settle(written, pending)?;
                done(path.to_string_lossy().into_owned())
            }
        }
    }

    /// What a dry run can see of the refusals a real write would meet: a backup that is there
    /// and differs, a directory it cannot write in. (An existing output is
    /// [`Conduct::existing`]'s; a lock held, [`Conduct::load`]'s.)
    fn preview(
        &self,
        job: &Job,
        original: &str,
        outcome: &Outcome,
        claim: Option<&Claim>,
    ) -> Result<()> {
        if let (Some(Claim::File(claim)), Some(suffix)) = (claim, &self.args.outputs.backup) {
            if outcome.output != original {
                claim.check_backup(suffix, original.as_bytes())?;
            }
        }
        if let Destination::File(path) | Destination::InPlace(path) = &job.dest {
            if claim.is_none() || outcome.output != original {
                crate::outputs::check_writable_beside(path)?;
            }
        }
        Ok(())
    }

    /// Asks whether to write this file's output.
    fn confirmed(&self, report: &FileReport) -> Result<bool> {
        let question = format!(
            "write {} ({}: {} → {} tokens)? [y/N] ",
            report.path,
            report.status.name(),
            report.context_tokens_before,
            report.context_tokens_after
        );
        let mut answer = String::new();
        self.progress.warn(question.trim_end());
        std::io::stdin().read_line(&mut answer)?;
        Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
    }

    /// `-v`: one line per file with seed 004's monitoring fields; `-vv`: one per step.
    fn log(&self, r: &FileReport) {
        // The window the file was measured against; the run's when it failed before that.
        let window = match r.context_window {
            0 => self.config.tokens.context_window,
            w => w,
        }
        .max(1);
        // The figure `stats` shows: the provider's, calibrated, when the file records usage.
        let (tokens, which) = match r.calibrated_tokens_before {
            Some(n) if !self.args.triggers.raw_tokens => (n, "provider"),
            _ => (r.context_tokens_before, "ctxc count"),
        };
        let usage = 100.0 * tokens as f64 / window as f64;
        let triggers = if r.triggers.is_empty() {
            "none".into()
        } else {
            r.triggers.join("+")
        };
        self.progress.log(
            1,
            &format!(
                "{}: {} trigger={triggers} usage={usage:.0}% of {window} ({which}) messages={}→{} tokens={}→{} summaries={} summaryTokens={} timeMs={}",
                r.path,
                r.status.name(),
                r.messages_before,
                r.messages_after,
                r.context_tokens_before,
                r.context_tokens_after,
                r.summaries,
                r.summary_tokens,
                r.time_ms
            ),
        );
        for step in &r.steps {
            self.progress.log(
                2,
                &format!(
                    "{}: step {} tokens {}→{} ({}{})",
                    r.path,
                    step.strategy,
                    thousands(step.tokens_before as u64),
                    thousands(step.tokens_after as u64),
                    crate::human::plural(step.conversations, "conversation"),
                    step.thinking_dropped
                        .map(|n| format!(
                            ", {} dropped",
                            crate::human::plural(n, "old thinking block")
                        ))
                        .unwrap_or_default()
                ),
            );
        }
    }
}

/// The last part of a path or URL as printed, for the progress bar's one line.
fn base_name(path: &str) -> &str {
    path.rsplit('/')
        .find(|part| !part.is_empty())
        .unwrap_or(path)
}
