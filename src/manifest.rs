//! `compact --resume-from MANIFEST`: a run that a crash, `kill -9` or a preempted node stopped
//! is run again and redoes only what it had not finished.
//!
//! The manifest is JSON lines, one entry per file, appended (and flushed to disk) just before
//! the file's output is written: the input's identity (path, size, modification time; for an
//! object in a store, its URL, size and ETag), a digest
//! of the settings, where the output goes, the hash of the output and the file's report. On a
//! re-run with the same settings, a file is finished when its destination holds exactly that
//! output (and, but in place, the input is the same size and age): it is skipped and its report
//! taken from the manifest, so the run's report and outputs end as an uninterrupted run's. Any
//! other file is redone; a destination the manifest names may be replaced, since this run's
//! earlier attempt wrote it. A torn last line (a kill while appending) is ignored.
//!
//! **A manifest in a bucket** (`--resume-from s3://bucket/run/manifest.jsonl`): an object
//! cannot be appended to, so each entry is an object of its own, `KEY.parts/RUN-SEQ.jsonl`,
//! written (whole, like any object) before the output as a line is flushed. A run reads the
//! manifest object and every part below `KEY.parts/`; when it ends it folds the parts into the
//! manifest object (one `PUT`, conditional on the version it read, retried when another run
//! folded meanwhile) and removes them. A run that was killed leaves its parts, which the next
//! run reads and folds.

use crate::human::Shown;
use crate::report::compact::FileReport;
use crate::store::{self, Url};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// One file the run was about to write.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    input: String,
    size: u64,
    /// Modification time of the input, nanoseconds since the epoch.
    modified_ns: i128,
    /// The ETag of an input in an object store (which says its version, as the time does
    /// not); absent for files, so their manifests read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    etag: Option<String>,
    /// [`settings_digest`] of the run.
    settings: String,
    /// The destination (`None`: a dry run).
    output: Option<String>,
    /// xxh3-128 of the output bytes.
    output_hash: String,
    report: FileReport,
    /// A Parquet dataset's reports, one per row (its `report` is then empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rows: Option<Vec<FileReport>>,
}

/// An open manifest: what earlier runs recorded, and the file new entries go to.
pub struct Manifest {
    path: PathBuf,
    settings: String,
    earlier: HashMap<String, Entry>,
    /// The destinations of `earlier`, looked up once per file of a run.
    outputs: HashSet<String>,
    sink: Sink,
}

/// Where new entries go.
enum Sink {
    /// A file, appended to.
    File(Mutex<File>),
    /// A manifest object: an object per entry below its parts prefix.
    Object(Parts),
}

/// The entries of a run with its manifest in a bucket.
struct Parts {
    /// The manifest object.
    url: Url,
    /// This run's name among the parts: its start time and process, so keys sort by run.
    run: String,
    /// The entries written so far.
    seq: AtomicU64,
}

impl Parts {
    /// The prefix the entries of every run go below.
    fn prefix(url: &Url) -> Url {
        url.with_suffix(".parts/")
    }
}

/// How the input looks on disk (or in its store) now.
pub struct Identity {
    size: u64,
    modified_ns: i128,
    etag: Option<String>,
}

impl Identity {
    /// The identity of the file at `path`, if it can be read.
    pub fn of(path: &Path) -> Option<Identity> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Identity {
            size: meta.len(),
            modified_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            etag: None,
        })
    }

    /// The identity of an object, from what its store says of it: size and ETag.
    pub fn of_object(meta: &crate::store::Meta) -> Identity {
        Identity {
            size: meta.size,
            modified_ns: 0,
            etag: meta.etag.clone(),
        }
    }
}

/// A digest of the settings that decide a file's output: the same settings give the same
/// bytes, other settings redo every file.
pub fn settings_digest(settings: &serde_json::Value, extra: &str) -> String {
    let text = format!("{} {settings} {extra}", env!("CARGO_PKG_VERSION"));
    crate::archive::hash(text.as_bytes())
}

impl Manifest {
    /// Opens (or creates) the manifest at `path` (a file, or an object named by its URL) for
    /// a run with these settings.
    pub fn open(path: &Path, settings: String) -> Result<Manifest> {
        if let Some(url) = Url::of_path(path) {
            return Manifest::open_object(path, url?, settings);
        }
        let earlier = match std::fs::read_to_string(path) {
            Ok(text) => parse(&text, path, &settings)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => HashMap::new(),
            Err(e) => {
                return Err(e).with_context(|| format!("reading the manifest {}", path.shown()));
            }
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening the manifest {}", path.shown()))?;
        // A torn line of a killed run holds nothing finished: cut it, so the next entry starts
        // on a line of its own.
        let bytes = std::fs::read(path)?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            file.set_len(keep as u64)
                .with_context(|| format!("cutting a torn line of {}", path.shown()))?;
        }
        Ok(Manifest {
            path: path.to_path_buf(),
            settings,
            outputs: earlier.values().filter_map(|e| e.output.clone()).collect(),
            earlier,
            sink: Sink::File(Mutex::new(file)),
        })
    }

    /// [`Manifest::open`] for a manifest object: the object and the parts below it.
    fn open_object(path: &Path, url: Url, settings: String) -> Result<Manifest> {
        let (text, _, _) =
            read_object(&url).with_context(|| format!("reading the manifest {}", path.shown()))?;
        let earlier = parse(&text, path, &settings)?;
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        Ok(Manifest {
            path: path.to_path_buf(),
            settings,
            outputs: earlier.values().filter_map(|e| e.output.clone()).collect(),
            earlier,
            sink: Sink::Object(Parts {
                url,
                run: format!("{started:020}-{}", std::process::id()),
                seq: AtomicU64::new(0),
            }),
        })
    }

    /// Ends the run's use of the manifest: a manifest object takes in the parts below it (this
    /// run's and any a killed run left), which are then removed. A file has nothing to do.
    pub fn finish(&self) -> Result<()> {
        let Sink::Object(parts) = &self.sink else {
            return Ok(());
        };
        let url = &parts.url;
        for _ in 0..5 {
            let (text, version, folded) = read_object(url)?;
            if folded.is_empty() {
                return Ok(());
            }
            let written = match &version {
                Some(read) => match store::update(url, text.as_bytes(), read) {
                    Ok(_) => true,
                    Err(store::UpdateError::Changed) => false,
                    Err(store::UpdateError::Unsupported(why)) => anyhow::bail!(
                        "{url}: the store cannot write conditionally ({why}), so the entries \
                         of two runs could be lost: they stay below {}",
                        Parts::prefix(url),
                        url = url.shown()
                    ),
                    Err(store::UpdateError::Other(e)) => return Err(e),
                },
                None => store::create(url, text.as_bytes())? == store::Created::New,
            };
            if written {
                for part in &folded {
                    store::delete(part)?;
                }
                return Ok(());
            }
        }
        anyhow::bail!(
            "{url}: other runs kept changing it while this one folded its entries in: they \
             stay below {}, where the next run reads them",
            Parts::prefix(url),
            url = url.shown()
        )
    }

    /// How many files earlier runs recorded with these settings.
    pub fn recorded(&self) -> usize {
        self.earlier.len()
    }

    /// The report of `input` when an earlier run finished it: its destination holds the output
    /// recorded, and the input is as it was (unless it is the destination: in place).
    pub fn finished(
        &self,
        input: &str,
        now: Option<&Identity>,
        output: Option<&Path>,
    ) -> Option<FileReport> {
        self.finished_entry(input, now, output)
            .filter(|e| e.rows.is_none())
            .map(|e| e.report.clone())
    }

    /// Like [`Manifest::finished`] for a dataset: the reports of its rows.
    pub fn finished_rows(
        &self,
        input: &str,
        now: Option<&Identity>,
        output: Option<&Path>,
    ) -> Option<Vec<FileReport>> {
        self.finished_entry(input, now, output)?.rows.clone()
    }

    fn finished_entry(
        &self,
        input: &str,
        now: Option<&Identity>,
        output: Option<&Path>,
    ) -> Option<&Entry> {
        let entry = self.earlier.get(input)?;
        if entry.output.as_deref() != output.map(|p| p.to_string_lossy()).as_deref() {
            return None;
        }
        // `input` is named as reports name it (`Input::display`).
        let in_place = output.is_some_and(|o| crate::human::path(o) == input);
        let same_input = now.is_some_and(|n| {
            n.size == entry.size && n.modified_ns == entry.modified_ns && n.etag == entry.etag
        });
        if !in_place && !same_input {
            return None;
        }
        // Hashed in pieces: a dataset may not fit in memory.
        let done = match output {
            Some(path) => output_hash(path).is_some_and(|hash| hash == entry.output_hash),
            None => true,
        };
        done.then_some(entry)
    }

    /// Whether an earlier attempt of this run was about to write `output` (so it may be
    /// replaced).
    pub fn names_output(&self, output: &Path) -> bool {
        self.outputs.contains(&*output.to_string_lossy())
    }

    /// Records that `input` is about to be written to `output`, flushed to disk first.
    pub fn record(
        &self,
        input: &str,
        identity: Option<&Identity>,
        output: Option<&Path>,
        bytes: &[u8],
        report: &FileReport,
    ) -> Result<()> {
        let hash = crate::archive::hash(bytes);
        self.append(input, identity, output, hash, report.clone())
    }

    /// Records that the dataset `input` is about to be written to `output`, whose bytes hash
    /// to `output_hash` ([`crate::archive::hash`]), with the reports of its rows: `rows`
    /// writes them, as JSON separated by commas, straight into the manifest.
    pub fn record_rows(
        &self,
        input: &str,
        identity: Option<&Identity>,
        output: Option<&Path>,
        output_hash: String,
        rows: &dyn Fn(&mut dyn Write) -> Result<()>,
    ) -> Result<()> {
        let entry = self.entry(input, identity, output, output_hash, FileReport::default());
        let head = serde_json::to_string(&entry)?;
        let head = head.strip_suffix('}').expect("an entry is an object");
        self.write_entry(&|out| {
            out.write_all(head.as_bytes())?;
            out.write_all(b",\"rows\":[")?;
            rows(out)?;
            Ok(out.write_all(b"]}\n")?)
        })
    }

    /// Writes one entry (a line, by `write`) where it is kept for good before the output is
    /// written: appended to the file and flushed to disk, or as an object of its own.
    fn write_entry(&self, write: &dyn Fn(&mut dyn Write) -> Result<()>) -> Result<()> {
        match &self.sink {
            Sink::File(file) => {
                let file = file.lock().unwrap_or_else(|e| e.into_inner());
                let mut out = std::io::BufWriter::new(&*file);
                write(&mut out)
                    .and_then(|()| Ok(out.flush()?))
                    .and_then(|()| Ok(file.sync_data()?))
            }
            Sink::Object(parts) => {
                let mut line = Vec::new();
                write(&mut line).and_then(|()| {
                    let seq = parts.seq.fetch_add(1, Ordering::Relaxed);
                    let key = format!("{}-{seq:010}.jsonl", parts.run);
                    store::put(&Parts::prefix(&parts.url).join(&key), &line).map(drop)
                })
            }
        }
        .with_context(|| format!("writing the manifest {}", self.path.shown()))?;
        crate::failpoint::hit("manifest-entry");
        Ok(())
    }

    fn entry(
        &self,
        input: &str,
        identity: Option<&Identity>,
        output: Option<&Path>,
        output_hash: String,
        report: FileReport,
    ) -> Entry {
        Entry {
            input: input.to_string(),
            size: identity.map_or(0, |i| i.size),
            modified_ns: identity.map_or(0, |i| i.modified_ns),
            etag: identity.and_then(|i| i.etag.clone()),
            settings: self.settings.clone(),
            output: output.map(|p| p.to_string_lossy().into_owned()),
            output_hash,
            report,
            rows: None,
        }
    }

    fn append(
        &self,
        input: &str,
        identity: Option<&Identity>,
        output: Option<&Path>,
        output_hash: String,
        report: FileReport,
    ) -> Result<()> {
        let entry = self.entry(input, identity, output, output_hash, report);
        let mut line = serde_json::to_string(&entry)?;
        line.push('\n');
        self.write_entry(&|out| Ok(out.write_all(line.as_bytes())?))
    }
}

/// What a manifest object holds with the parts below it folded in (in the order of their
/// keys: by run, then by entry), the version of the object read (`None`: not there yet), and
/// the parts folded.
fn read_object(url: &Url) -> Result<(String, Option<store::Meta>, Vec<Url>)> {
    let (mut text, version) = match store::get(url, u64::MAX) {
        Ok((bytes, meta)) => (bytes, Some(meta)),
        Err(e) if e.0 == "no such object" => (Vec::new(), None),
        Err(e) => anyhow::bail!("{url}: {}", e.0, url = url.shown()),
    };
    let mut folded = Vec::new();
    for (part, _) in store::list(&Parts::prefix(url))? {
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        match store::get(&part, u64::MAX) {
            Ok((bytes, _)) => text.extend_from_slice(&bytes),
            // Folded and removed by another run meanwhile: in the object now.
            Err(e) if e.0 == "no such object" => continue,
            Err(e) => anyhow::bail!("{part}: {}", e.0),
        }
        folded.push(part);
    }
    let text = String::from_utf8(text)
        .map_err(|_| anyhow::anyhow!("{url} is not UTF-8", url = url.shown()))?;
    Ok((text, version, folded))
}

/// The hash ([`crate::archive::hash`]) of what a destination (a file, hashed in pieces, or an
/// object named by its URL) holds now, if it can be read.
fn output_hash(path: &Path) -> Option<String> {
    match crate::store::Url::of_path(path) {
        Some(url) => crate::store::get(&url.ok()?, u64::MAX)
            .ok()
            .map(|(bytes, _)| crate::archive::hash(&bytes)),
        None => File::open(path)
            .and_then(|f| crate::archive::hash_file(&f))
            .ok()
            .map(|(_, hash)| hash),
    }
}

/// The entries of `text` with these settings, the last one per input; a torn last line is
/// skipped, any other bad line is an error naming it.
fn parse(text: &str, path: &Path, settings: &str) -> Result<HashMap<String, Entry>> {
    let mut entries = HashMap::new();
    let lines: Vec<&str> = text.lines().collect();
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Entry>(line) {
            Ok(mut entry) if entry.settings == settings => {
                // Reports keep their retention as its counts.
                for report in
                    std::iter::once(&mut entry.report).chain(entry.rows.iter_mut().flatten())
                {
                    report.retention = report.retention_counts.into();
                }
                entries.insert(entry.input.clone(), entry);
            }
            Ok(_) => {}
            Err(_) if k + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(e) => anyhow::bail!(
                "{}:{}: not a manifest entry of ctxc compact --resume-from: {e}",
                path.shown(),
                k + 1
            ),
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_skipped_and_other_bad_lines_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.jsonl");
        let m = Manifest::open(&path, "s1".into()).unwrap();
        let input = dir.path().join("a.json");
        std::fs::write(&input, "[]").unwrap();
        let out = dir.path().join("a.out.json");
        std::fs::write(&out, "[1]").unwrap();
        let id = Identity::of(&input);
        let name = input.to_string_lossy().into_owned();
        m.record(
            &name,
            id.as_ref(),
            Some(&out),
            b"[1]",
            &FileReport::default(),
        )
        .unwrap();
        drop(m);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"input\": \"torn");
        std::fs::write(&path, &text).unwrap();
        let m = Manifest::open(&path, "s1".into()).unwrap();
        assert_eq!(m.recorded(), 1);
        assert!(m.finished(&name, id.as_ref(), Some(&out)).is_some());
        assert!(m.names_output(&out));
        // Other settings, or an output that changed: not finished.
        let other = Manifest::open(&path, "s2".into()).unwrap();
        assert!(other.finished(&name, id.as_ref(), Some(&out)).is_none());
        std::fs::write(&out, "[2]").unwrap();
        assert!(m.finished(&name, id.as_ref(), Some(&out)).is_none());
        // The torn line was cut; a bad line in the middle is an error with its line number.
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("}\n"));
        std::fs::write(&path, "{\"input\": \"torn\n{}\n").unwrap();
        let err = Manifest::open(&path, "s1".into())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("m.jsonl:1:"), "{err}");
    }
}
