//! `ctxc compact` on a Parquet dataset: each row's conversation through the same pipeline as
//! a JSON file, one report per row, and the dataset written once (atomically, like any output)
//! with the compacted conversations in place of the old ones.

use super::{BROKEN_PIPE, Conduct, Destination, Failed, Job, check_destination, is_broken_pipe};
use crate::commands::compact_report::{FileReport, Status};
use crate::dataset::{self, Dataset, Row, Written};
use crate::pipeline::Settings;
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

impl Conduct<'_> {
    /// Compacts every row of a dataset and writes it to the job's destination.
    pub(super) fn dataset(&self, job: &Job, file: File, settings: &Settings) -> Vec<FileReport> {
        let path = job.input.display();
        let failed = |step, e: anyhow::Error| vec![Failed::at(step, 0)(e).into_report(&path)];
        if let Err(e) = self.refuse_for_dataset() {
            return failed("write", e);
        }
        if let Err(e) = check_destination(job, &self.args.outputs, false) {
            return failed("write", e);
        }
        let dataset = match Dataset::open(file, self.args.input.column.as_deref()) {
            Ok(d) => d,
            Err(e) => return failed("read", e),
        };
        let output = match &job.dest {
            Destination::File(p) => Some(p.display().to_string()),
            Destination::Remote(url) => Some(url.to_string()),
            Destination::Stdout => Some("-".to_string()),
            Destination::Nowhere => None,
        };
        let each = |row: Row| self.row(&path, row, settings, output.as_deref());
        let written = match &job.dest {
            Destination::Nowhere => dataset.rewrite::<_, std::io::Sink>(None, each),
            Destination::Stdout => {
                let mut out = BufWriter::new(std::io::stdout());
                let rows = dataset.rewrite(Some(&mut out), each);
                match rows.and_then(|rows| out.flush().map(|()| rows).map_err(Into::into)) {
                    Err(e) if is_broken_pipe(&e) => Err(anyhow::anyhow!(BROKEN_PIPE)),
                    other => other,
                }
            }
            Destination::File(out) => write_file(&dataset, job, out, each),
            Destination::Remote(url) => write_object(&dataset, url, each),
        };
        match written {
            Ok(rows) => rows.into_iter().map(row_report).collect(),
            Err(e) => failed("write", e),
        }
    }

    /// What a dataset cannot go through yet, refused before anything is read.
    fn refuse_for_dataset(&self) -> Result<()> {
        let args = self.args;
        if args.dry_run {
            return Ok(());
        }
        if args.outputs.in_place {
            bail!(
                "--in-place does not replace a Parquet dataset yet: use -o FILE or --out-dir DIR"
            );
        }
        if args.archive {
            bail!("--archive does not keep what is compacted out of a Parquet dataset yet");
        }
        if args.confirm {
            bail!("--confirm does not ask about a Parquet dataset yet");
        }
        Ok(())
    }

    /// One row through the pipeline: its report, and its compacted text when it changed.
    fn row(
        &self,
        path: &str,
        row: Row,
        settings: &Settings,
        output: Option<&str>,
    ) -> (FileReport, Option<String>) {
        let path = dataset::row_path(path, row.index);
        let started = Instant::now();
        let planned = crate::api::plan(row.text.into(), settings, !self.args.allow_findings)
            .and_then(|(t, plans)| {
                let outcome = crate::api::finish(&t, plans, settings)?;
                let report = FileReport::of(path.clone(), &t, &outcome);
                Ok((report, outcome.changed.then(|| outcome.output.into_owned())))
            });
        let (mut report, text) = match planned {
            Ok((mut report, text)) => {
                report.output = output.map(str::to_string);
                (report, text)
            }
            Err(f) => (f.into_report(&path), None),
        };
        report.time_ms = started.elapsed().as_millis() as u64;
        (report, text)
    }
}

/// A row's report, failed when its compacted conversation could not be written back.
fn row_report((report, written): (FileReport, Written)) -> FileReport {
    match written {
        Written::Refused(why) if report.status != Status::Failed => {
            report.fail("write", 0, format!("{why}; the row is left as it was"))
        }
        _ => report,
    }
}

/// Writes the dataset to an unnamed temporary file, then uploads it (in parts, so that the
/// object appears only once complete).
fn write_object<R: Send>(
    dataset: &Dataset,
    url: &crate::store::Url,
    each: impl Fn(Row) -> (R, Option<String>) + Sync,
) -> Result<Vec<(R, Written)>> {
    let mut tmp = tempfile::tempfile().context("creating a temporary file for the dataset")?;
    let mut writer = BufWriter::new(&tmp);
    let rows = dataset.rewrite(Some(&mut writer), each)?;
    writer
        .flush()
        .with_context(|| format!("writing the dataset for {url}"))?;
    drop(writer);
    crate::store::put_file(url, &mut tmp)?;
    Ok(rows)
}

/// Writes the dataset to a temporary file beside `out`, renamed over it once complete.
fn write_file<R: Send>(
    dataset: &Dataset,
    job: &Job,
    out: &std::path::Path,
    each: impl Fn(Row) -> (R, Option<String>) + Sync,
) -> Result<Vec<(R, Written)>> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = crate::tempfiles::create_in(dir)?;
    let mut writer = BufWriter::new(tmp.as_file());
    let rows = dataset.rewrite(Some(&mut writer), each)?;
    writer
        .flush()
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("writing {}", out.display()))?;
    drop(writer);
    if let crate::discover::Input::File(input) = &job.input {
        if let Ok(meta) = std::fs::metadata(input) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .with_context(|| format!("setting permissions of {}", out.display()))?;
        }
    }
    tmp.persist(out)?;
    Ok(rows)
}
