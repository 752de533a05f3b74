//! The reports of a run, kept on disk as they come: a dataset has one report per row (about
//! 2.6 KB each in memory), so a run over a dataset of many rows would otherwise hold them all
//! until the end. Each report is appended to an unnamed temporary file as one JSON line; memory
//! keeps only where each line is and its path, for the report's order. At the end the totals
//! are counted, and the report printed, one line at a time: a JSON report is streamed (the
//! same text as the whole report printed at once); a table, Markdown or YAML report reads
//! the reports back to lay them out.

use crate::report::compact::{CompactReport, FileReport};
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// The reports written so far.
pub(super) struct Spool {
    inner: Mutex<Inner>,
}

struct Inner {
    file: BufWriter<File>,
    at: u64,
    index: Vec<Entry>,
    /// The first report that could not be written: the run fails with it at the end.
    error: Option<anyhow::Error>,
}

impl Inner {
    fn add(&mut self, job: usize, report: &FileReport) -> Result<()> {
        let line = serde_json::to_string(report)?;
        self.file
            .write_all(line.as_bytes())
            .context("writing the report to a temporary file")?;
        let entry = Entry {
            path: report.path.as_str().into(),
            job,
            offset: self.at,
            len: u32::try_from(line.len()).context("a report entry over 4 GB")?,
        };
        self.at += line.len() as u64;
        self.index.push(entry);
        Ok(())
    }
}

/// Where one report is.
struct Entry {
    path: Box<str>,
    /// The job that wrote it.
    job: usize,
    offset: u64,
    len: u32,
}

impl Spool {
    pub(super) fn new() -> Result<Spool> {
        let file = tempfile::tempfile().context("creating a temporary file for the report")?;
        Ok(Spool {
            inner: Mutex::new(Inner {
                file: BufWriter::new(file),
                at: 0,
                index: Vec::new(),
                error: None,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds job `job`'s report (a failure to is kept for [`Spool::finish`]).
    pub(super) fn add(&self, job: usize, report: &FileReport) {
        let mut inner = self.lock();
        if let Err(e) = inner.add(job, report) {
            inner.error.get_or_insert(e);
        }
    }

    /// Drops the reports job `job` added (a dataset that could not be written after all).
    pub(super) fn retract(&self, job: usize) {
        self.lock().index.retain(|e| e.job != job);
    }

    /// Calls `each` on every report job `job` added, in the order they came.
    pub(super) fn each_of(&self, job: usize, each: impl FnMut(&str) -> Result<()>) -> Result<()> {
        let mut inner = self.lock();
        inner.file.flush()?;
        let places: Vec<(u64, u32)> = inner
            .index
            .iter()
            .filter(|e| e.job == job)
            .map(|e| (e.offset, e.len))
            .collect();
        read_each(inner.file.get_ref(), places.into_iter(), each)
    }

    /// The reports, in the report's order: by file, then a dataset's rows by index (then as
    /// they came, for a path reported twice).
    pub(super) fn finish(self) -> Result<Spooled> {
        let Inner {
            file,
            mut index,
            error,
            ..
        } = self.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = error {
            return Err(e);
        }
        let file = file.into_inner().map_err(|e| e.into_error())?;
        index.sort_by(|a, b| {
            crate::dataset::report_order(&a.path, &b.path).then(a.offset.cmp(&b.offset))
        });
        Ok(Spooled {
            file,
            places: index.into_iter().map(|e| (e.offset, e.len)).collect(),
        })
    }
}

/// The reports of a finished run, in order.
pub(super) struct Spooled {
    file: File,
    places: Vec<(u64, u32)>,
}

impl Spooled {
    /// Calls `each` on every report, in order.
    pub(super) fn each(&self, mut each: impl FnMut(FileReport) -> Result<()>) -> Result<()> {
        read_each(&self.file, self.places.iter().copied(), |line| {
            let mut report: FileReport =
                serde_json::from_str(line).context("reading back the report")?;
            // Written as its counts.
            report.retention = report.retention_counts.into();
            each(report)
        })
    }

    /// All reports, in order.
    pub(super) fn all(&self) -> Result<Vec<FileReport>> {
        let mut all = Vec::with_capacity(self.places.len());
        self.each(|r| {
            all.push(r);
            Ok(())
        })?;
        Ok(all)
    }

    /// Writes `head` (a report whose `files` are empty) with these reports as its files, as
    /// `serde_json::to_string_pretty` writes a whole report, and a final newline.
    pub(super) fn write_json(&self, head: &CompactReport, out: &mut dyn Write) -> Result<()> {
        let text = serde_json::to_string_pretty(head)?;
        let empty = "\"files\": []";
        let at = text.find(empty).expect("the report has files") + empty.len() - 2;
        out.write_all(&text.as_bytes()[..at])?;
        if self.places.is_empty() {
            out.write_all(b"[]")?;
        } else {
            out.write_all(b"[\n")?;
            let mut first = true;
            self.each(|report| {
                if !first {
                    out.write_all(b",\n")?;
                }
                first = false;
                let pretty = serde_json::to_string_pretty(&report.public())?;
                for (i, line) in pretty.lines().enumerate() {
                    if i > 0 {
                        out.write_all(b"\n")?;
                    }
                    out.write_all(b"    ")?;
                    out.write_all(line.as_bytes())?;
                }
                Ok(())
            })?;
            out.write_all(b"\n  ]")?;
        }
        out.write_all(&text.as_bytes()[at + 2..])?;
        out.write_all(b"\n")?;
        Ok(())
    }
}

fn read_each(
    file: &File,
    places: impl Iterator<Item = (u64, u32)>,
    mut each: impl FnMut(&str) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    for (offset, len) in places {
        buf.resize(len as usize, 0);
        file.read_exact_at(&mut buf, offset)
            .context("reading back the report")?;
        each(std::str::from_utf8(&buf)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::compact::{SCHEMA_VERSION, Status, totals};

    fn report(files: Vec<FileReport>) -> CompactReport {
        CompactReport {
            schema_version: SCHEMA_VERSION,
            tokenizer: crate::config::TokenSettings::from_args(&Default::default()).unwrap(),
            strategies: Vec::new(),
            summarizer: "extractive".into(),
            dry_run: false,
            interrupted: false,
            totals: totals(&files),
            files,
        }
    }

    fn file(path: &str, status: Status) -> FileReport {
        FileReport {
            path: path.into(),
            status,
            notes: vec!["a note\nover two lines".into()],
            triggers: vec!["force".into()],
            ..FileReport::default()
        }
    }

    #[test]
    fn a_streamed_json_report_is_the_report_printed_at_once_in_the_report_order() {
        for n in [0, 1, 3] {
            let files: Vec<FileReport> = [
                file("d.parquet#row=10", Status::Compacted),
                file("d.parquet#row=2", Status::Failed),
                file("a.json", Status::Unchanged),
            ]
            .into_iter()
            .take(n)
            .collect();
            let spool = Spool::new().unwrap();
            for (job, f) in files.iter().enumerate() {
                spool.add(job % 2, f);
            }
            let spooled = spool.finish().unwrap();
            let mut sorted = files.clone();
            sorted.sort_by(|a, b| crate::dataset::report_order(&a.path, &b.path));
            let whole = report(sorted);
            // The head has the totals, not the files.
            let mut head = report(Vec::new());
            head.totals = whole.totals.clone();
            let whole = serde_json::to_string_pretty(&whole).unwrap() + "\n";
            let mut streamed = Vec::new();
            spooled.write_json(&head, &mut streamed).unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), whole, "{n} files");
        }
    }

    #[test]
    fn a_jobs_reports_are_read_back_and_retracted() {
        let spool = Spool::new().unwrap();
        spool.add(0, &file("a.parquet#row=0", Status::Compacted));
        spool.add(1, &file("b.json", Status::Compacted));
        spool.add(0, &file("a.parquet#row=1", Status::Compacted));
        let mut lines = Vec::new();
        spool
            .each_of(0, |line| {
                lines.push(serde_json::from_str::<FileReport>(line)?.path);
                Ok(())
            })
            .unwrap();
        assert_eq!(lines, ["a.parquet#row=0", "a.parquet#row=1"]);
        spool.retract(0);
        let paths: Vec<String> = spool
            .finish()
            .unwrap()
            .all()
            .unwrap()
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(paths, ["b.json"]);
    }
}
