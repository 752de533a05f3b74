//! `ctxc restore ARCHIVE`: rebuild the original transcript, byte-for-byte, from the compacted
//! file an archive names.
//!
//! The compacted file is looked for relative to the archive first (they moved together),
//! then at the absolute path the archive recorded; the first that exists and matches the
//! recorded hash wins. The default destination is the original's path, looked up the same
//! way as the compacted file was found, and only when nothing is there. Every step of the
//! walk back is checked against its recorded hash before anything is written.
//!
//! An archive of several generations (the file changed after a compaction and was compacted
//! again) restores the first original by default, `--generation N` the file as generation N
//! began, `--steps N` the file before the last N compactions. When the compacted file has
//! changed or is gone, the archive's own copy of the last output is the starting point; a
//! last compaction still marked pending counts only when the file holds its output.
//!
//! The archive, the files it names and the destination may each be a local file or an object
//! named by its URL ([`crate::archive::place`]); an object is written whole or not at all.
//!
//! A file compacted in place is restored over itself, its undo: the compacted file is kept
//! first as `NAME.EXT.compacted` (never over another file), under the guards of `compact
//! --in-place` (locked; refused while another process holds it open for writing or when it
//! changes meanwhile). Any other existing destination is refused unless --force-overwrite.
//!
//! Exit status: 0 restored, 1 refused or failed (the message says why), 2 usage.

use crate::ExitStatus;
use crate::archive::{self, Archive, Base, Record, place};
use crate::cli::RestoreArgs;
use crate::human::{Shown, plural, warn};
use crate::outputs::Destination;
use anyhow::{Context, Result, anyhow, bail};
use std::path::{Path, PathBuf};

/// Why a restore did not happen.
enum Stop {
    /// Bad arguments for this archive: exit 2.
    Usage(anyhow::Error),
    /// Refused or failed: exit 1.
    Failed(anyhow::Error),
}

/// Runs `ctxc restore`.
pub fn run(args: &RestoreArgs, quiet: bool) -> Result<ExitStatus> {
    match restore(args, quiet) {
        Ok(()) => Ok(ExitStatus::Success),
        Err(Stop::Usage(e)) => Err(e),
        Err(Stop::Failed(e)) if crate::output::is_broken_pipe(&e) => Err(e),
        Err(Stop::Failed(e)) => {
            eprintln!("ctxc: {e:#}");
            Ok(ExitStatus::Failure)
        }
    }
}

/// The archive `arg` names: a path, or a session reference (`@ID`), which names the archive
/// an in-place compaction left beside the session.
pub(crate) fn archive_of(arg: &Path) -> Result<PathBuf> {
    let resolved = crate::sessions::resolve_all(std::slice::from_ref(&arg.to_path_buf()))?;
    let path = resolved
        .into_iter()
        .next()
        .unwrap_or_else(|| arg.to_path_buf());
    if path == arg {
        return Ok(beside(path));
    }
    Ok(archive::archive_path(&path, None, None, None))
}

/// A compacted file given where its archive is asked for (`ctxc restore small.parquet`): the
/// archive beside it, when there is one; any other path as it is.
fn beside(path: PathBuf) -> PathBuf {
    let archive = archive::archive_path(&path, None, None, None);
    if path.to_string_lossy().ends_with(archive::SUFFIX) || !place::is_file(&archive) {
        return path;
    }
    // A dataset is not read whole to find out; any other file is an archive if it reads as one.
    let parquet = place::starts_with(&path, crate::dataset::PARQUET_MAGIC);
    if parquet || (place::is_file(&path) && Archive::read(&path).is_err()) {
        return archive;
    }
    path
}

/// Why `path` could not be read as an archive: when it is not one by name and no archive is
/// beside it (`ctxc restore small.parquet` for a file never compacted with `--archive`), that
/// the archive is missing, rather than why the file itself is no archive.
fn no_archive(path: &Path, error: anyhow::Error) -> anyhow::Error {
    let beside = archive::archive_path(path, None, None, None);
    let named = path.to_string_lossy().ends_with(archive::SUFFIX);
    if named || !place::exists(path).unwrap_or(false) || place::exists(&beside).unwrap_or(true) {
        return error;
    }
    let missing = format!(
        "{} has no archive: {} is missing",
        crate::human::path(path),
        crate::human::path(&beside)
    );
    // Why a text file is no archive helps (a transcript given); a binary file's does not.
    if !format!("{error:#}").contains("not UTF-8") {
        return anyhow!("{missing}, and {error:#}");
    }
    anyhow!(
        "{missing} (restore takes the archive that `compact --archive` wrote, or the \
         compacted file it sits beside)"
    )
}

/// The bytes the restore starts from: the last compaction's output.
struct Compacted {
    /// The file they were read from (`None`: the archive's own copy).
    path: Option<PathBuf>,
    bytes: Vec<u8>,
    base: Base,
    /// Whether they are the recorded output.
    matches: bool,
    /// Why they are not simply the compacted file, for the closing message.
    note: Option<String>,
}

fn restore(args: &RestoreArgs, quiet: bool) -> Result<(), Stop> {
    let archive_path = archive_of(&args.archive).map_err(Stop::Usage)?;
    let args = &RestoreArgs {
        archive: archive_path,
        output: args.output.clone(),
        ..*args
    };
    let mut archive =
        Archive::read(&args.archive).map_err(|e| Stop::Failed(no_archive(&args.archive, e)))?;
    let dropped = archive::settle(&mut archive.records, &args.archive);
    if dropped {
        warn(format!(
            "{}: its last compaction never reached its file (the run was stopped or refused): \
             left out",
            args.archive.shown()
        ));
    }
    let records = &archive.records;
    if records.is_empty() {
        return Err(Stop::Failed(anyhow!(
            "{} records no compaction that reached its file: there is nothing to restore",
            args.archive.shown()
        )));
    }
    let n = records.len();
    let target = target_record(args, records)?;
    let steps = n - target;
    let last = records.last().expect("not empty");
    if last.dataset.is_some() {
        return restore_dataset(args, records, target, quiet);
    }
    let compacted = find_compacted(&args.archive, last, args.force).map_err(Stop::Failed)?;
    if !compacted.matches && !args.force {
        return Err(Stop::Failed(changed_error(&compacted, last, &args.archive)));
    }
    let undone = archive::undo(records, &compacted.bytes, steps, args.force)
        .map_err(|e| Stop::Failed(anyhow!("restoring from {}: {e}", args.archive.shown())))?;
    let dest = destination(
        args,
        &records[target],
        compacted.base,
        compacted.path.as_deref(),
        Some(&undone.bytes),
    )?;
    let dest = match dest {
        Decided::Write(dest) => dest,
        Decided::Done(path) => {
            if !quiet {
                eprintln!(
                    "ctxc: {} already holds {}, byte for byte (restored before?): nothing written",
                    path.shown(),
                    what(records, target)
                );
            }
            return Ok(());
        }
    };
    let like = compacted.path.as_deref().unwrap_or(&args.archive);
    let kept = match &dest {
        Destination::InPlace(path) => {
            Some(replace_compacted(path, &compacted.bytes, &undone.bytes).map_err(Stop::Failed)?)
        }
        _ => {
            write(&dest, &undone.bytes, like).map_err(Stop::Failed)?;
            None
        }
    };
    if !compacted.matches {
        warn(format!(
            "{} did not match the archive: restored from it anyway (--force)",
            compacted.path.as_deref().unwrap_or(Path::new("?")).shown()
        ));
    }
    for mismatch in &undone.mismatches {
        warn(mismatch);
    }
    if !quiet {
        let from = compacted.path.as_ref().map_or_else(
            || "the archive's copy of the compacted file".to_string(),
            |p| p.shown().to_string(),
        );
        let checked = if undone.mismatches.is_empty() {
            "hash verified"
        } else {
            "NOT verified: it differs from what was compacted"
        };
        eprintln!(
            "ctxc: restored {} from {from} to {} ({} bytes, {steps} of {} undone, {checked})",
            what(records, target),
            dest.name()
                .map_or("standard output".into(), |p| p.shown().to_string()),
            crate::human::thousands(undone.bytes.len() as u64),
            plural(n, "compaction"),
        );
        match (&kept, &compacted.note) {
            (Some(backup), Some(_)) => eprintln!(
                "ctxc: the compacted file, with what was appended to it since, is kept as {}",
                backup.shown()
            ),
            (Some(backup), None) => {
                eprintln!("ctxc: the compacted file is kept as {}", backup.shown())
            }
            (None, Some(note)) => eprintln!("ctxc: {note}"),
            (None, None) => {}
        }
        let generations = last.generation;
        if target == 0 && generations > 1 {
            let which = match generations {
                2 => "--generation 2 restores it".to_string(),
                g => format!("--generation 2 to {g} restore it"),
            };
            eprintln!(
                "ctxc: the file changed after it was compacted and was compacted again: \
                 {which} as it was before that"
            );
        }
    }
    Ok(())
}

/// Restores a Parquet dataset to the input of `records[target]`: written again from the
/// compacted dataset with the changed rows put back, value-identical (not byte-identical).
fn restore_dataset(
    args: &RestoreArgs,
    records: &[Record],
    target: usize,
    quiet: bool,
) -> Result<(), Stop> {
    let n = records.len();
    let last = &records[n - 1];
    let (path, base, matches) = find_compacted_dataset(&args.archive, last, args.force)?;
    let dest = match destination(args, &records[target], base, Some(&path), None)? {
        Decided::Write(dest) => dest,
        // Not decided without the restored bytes: a dataset is written as the same path.
        Decided::Done(path) => Destination::File(path),
    };
    let fail = |e: anyhow::Error| Stop::Failed(e);
    // Restored over itself (compacted in place): locked, and replaced only while unchanged.
    let claim = match &dest {
        Destination::InPlace(p) => {
            let claim = crate::inplace::claim_file(p, u64::MAX).map_err(fail)?;
            let backup = backup_path(&claim.target);
            if backup.symlink_metadata().is_ok() {
                return Err(fail(refused_backup(&backup, &claim.target)));
            }
            Some(claim)
        }
        _ => None,
    };
    let dest = dest.name();
    let compacted = match &claim {
        Some(claim) => claim.file(),
        None => place::open(&path)
            .with_context(|| format!("reading the compacted dataset {}", path.shown())),
    }
    .map_err(fail)?;
    // An object is written from an unnamed temporary file, uploaded whole.
    let to_object = dest.as_deref().and_then(place::url);
    let tmp = match (&dest, &claim) {
        (_, Some(claim)) => Some(claim.temp().map_err(fail)?),
        (Some(dest), None) if to_object.is_none() => {
            Some(crate::outputs::atomic::temp_beside(dest).map_err(fail)?)
        }
        _ => None,
    };
    let unnamed = match &tmp {
        Some(_) => None,
        None => Some(tempfile::tempfile().map_err(|e| fail(e.into()))?),
    };
    let out = tmp
        .as_ref()
        .map(|t| t.as_file())
        .or(unnamed.as_ref())
        .expect("one of them");
    let restored = crate::dataset::restore::undo(&records[target..], compacted, out, args.force)
        .map_err(|e| Stop::Failed(anyhow!("restoring from {}: {e:#}", args.archive.shown())))?;
    let mut kept = None;
    match (tmp, dest.as_ref()) {
        (Some(tmp), Some(_)) if claim.is_some() => {
            let claim = claim.as_ref().expect("matched");
            kept = Some(claim.backup_file(COMPACTED_SUFFIX).map_err(fail)?);
            claim.replace_with(tmp).map_err(fail)?;
        }
        (Some(tmp), Some(dest)) => {
            crate::outputs::atomic::persist(tmp, Some(&path), dest)
                .with_context(|| format!("writing the restored dataset {}", dest.shown()))
                .map_err(fail)?;
        }
        _ if to_object.is_some() => {
            let url = to_object.as_ref().expect("checked");
            let mut file = unnamed.expect("the object's");
            crate::store::put_file(url, &mut file)
                .with_context(|| format!("writing the restored dataset {url}", url = url.shown()))
                .map_err(fail)?;
        }
        _ => {
            use std::io::{Seek, Write};
            let mut file = unnamed.expect("standard output's");
            let mut stdout = std::io::stdout().lock();
            file.rewind()
                .and_then(|()| std::io::copy(&mut file, &mut stdout))
                .and_then(|_| stdout.flush())
                .map_err(|e| fail(e.into()))?;
        }
    }
    if !matches {
        warn(format!(
            "{} did not match the archive: restored from it anyway (--force)",
            path.shown()
        ));
    }
    for mismatch in &restored.mismatches {
        warn(mismatch);
    }
    if !quiet {
        let checked = if restored.mismatches.is_empty() && matches {
            "every row's values verified"
        } else {
            "NOT verified: it differs from what was compacted"
        };
        eprintln!(
            "ctxc: restored {} from {} to {} ({} rows, {} put back; {} of {} \
             undone, {checked}; a dataset comes back value-identical, not byte-identical)",
            what(records, target),
            path.shown(),
            dest.map_or("standard output".into(), |p| p.shown().to_string()),
            crate::human::thousands(restored.rows),
            crate::human::thousands(restored.restored as u64),
            n - target,
            plural(n, "compaction"),
        );
        if let Some(backup) = &kept {
            eprintln!("ctxc: the compacted dataset is kept as {}", backup.shown());
        }
    }
    Ok(())
}

/// The compacted dataset the last record wrote: the first file it names that holds exactly
/// its output; with `force`, else the first that exists (and whether it matches).
fn find_compacted_dataset(
    archive_path: &Path,
    last: &Record,
    force: bool,
) -> Result<(PathBuf, Base, bool), Stop> {
    let candidates = archive::candidates(archive_path, &last.output);
    let exact =
        |p: &Path| place::size(p) == Some(last.output.bytes) && archive::file_holds_output(p, last);
    if let Some((path, base)) = candidates.iter().find(|(p, _)| exact(p)) {
        return Ok((path.clone(), *base, true));
    }
    let Some((path, base)) = candidates.iter().find(|(p, _)| place::is_file(p)) else {
        let looked: Vec<String> = candidates
            .iter()
            .map(|(p, _)| p.shown().to_string())
            .collect();
        return Err(Stop::Failed(anyhow!(
            "cannot find the compacted dataset that {} restores from (looked for {}); an \
             archive keeps no copy of a dataset",
            archive_path.shown(),
            looked.join(" and ")
        )));
    };
    if !force {
        return Err(Stop::Failed(anyhow!(
            "{} has changed since it was compacted: it does not match the archive {} \
             (expected {} bytes, {}). Restoring from it would not give back the original; \
             --force restores anyway and says which rows do not match",
            path.shown(),
            archive_path.shown(),
            crate::human::thousands(last.output.bytes),
            last.output.hash,
        )));
    }
    Ok((path.clone(), *base, false))
}

/// The record whose input is restored: from `--steps`, `--generation`, else the first.
fn target_record(args: &RestoreArgs, records: &[Record]) -> Result<usize, Stop> {
    let n = records.len();
    if let Some(steps) = args.steps {
        if steps == 0 || steps > n {
            return Err(Stop::Usage(anyhow!(
                "--steps {steps}: {} holds {}, so 1 to {n}",
                args.archive.shown(),
                plural(n, "compaction")
            )));
        }
        return Ok(n - steps);
    }
    let Some(g) = args.generation else {
        return Ok(0);
    };
    let generations = records[n - 1].generation;
    archive::first_of_generation(records, g).ok_or_else(|| {
        Stop::Usage(anyhow!(
            "--generation {g}: {} holds {}, so 1 to {generations}",
            args.archive.shown(),
            plural(generations as usize, "generation")
        ))
    })
}

/// What a restore to the input of `records[target]` gives back, in words.
fn what(records: &[Record], target: usize) -> String {
    let generations = records[records.len() - 1].generation;
    let g = records[target].generation;
    let first_of_its_generation = archive::first_of_generation(records, g) == Some(target);
    match (target, first_of_its_generation) {
        (0, _) if generations == 1 => "the original".into(),
        (0, _) => format!("the original (generation 1 of {generations})"),
        (_, true) => format!("generation {g} of {generations}, as it was before its compaction"),
        (_, false) => {
            let undone = records.len() - target;
            format!("the file before the last {}", plural(undone, "compaction"))
        }
    }
}

/// The last compaction's output: the first file the archive names that holds it (or starts
/// with it: appended to since), else the archive's own copy, else the first file that exists
/// (restored from only with `--force`, which also prefers that file, as it is now, to the
/// copy).
fn find_compacted(archive_path: &Path, last: &Record, force: bool) -> Result<Compacted> {
    let candidates = archive::candidates(archive_path, &last.output);
    let mut first: Option<Compacted> = None;
    for (path, base) in &candidates {
        if place::url(path).is_none() && !path.is_file() {
            continue;
        }
        let read = place::read(path)
            .with_context(|| format!("reading the compacted file {}", path.shown()))?;
        let Some(mut bytes) = read else {
            continue;
        };
        let holds = archive::holds_output(&bytes, last);
        let note = (holds && bytes.len() as u64 > last.output.bytes).then(|| {
            format!(
                "{} has {} bytes more than it was compacted to (appended since): they are not \
                 part of this restore, and are still there",
                path.shown(),
                crate::human::thousands(bytes.len() as u64 - last.output.bytes)
            )
        });
        if holds {
            bytes.truncate(last.output.bytes as usize);
        }
        let found = Compacted {
            path: Some(path.clone()),
            bytes,
            base: *base,
            matches: holds,
            note,
        };
        if holds {
            return Ok(found);
        }
        first.get_or_insert(found);
    }
    if let Some(copy) = last
        .output_copy
        .as_ref()
        .filter(|_| !(force && first.is_some()))
    {
        let seen = first.as_ref().and_then(|f| f.path.as_ref());
        return Ok(Compacted {
            path: None,
            bytes: copy.clone().into_bytes(),
            base: Base::Archive,
            matches: archive::hash(copy.as_bytes()) == last.output.hash,
            note: Some(match seen {
                Some(p) => format!(
                    "{} changed since it was compacted: restored from the archive's copy",
                    p.shown()
                ),
                None => "the compacted file is gone: restored from the archive's copy".into(),
            }),
        });
    }
    first.ok_or_else(|| {
        let looked: Vec<String> = candidates
            .iter()
            .map(|(p, _)| p.shown().to_string())
            .collect();
        anyhow!(
            "cannot find the compacted file that {} restores from (looked for {})",
            archive_path.shown(),
            if looked.is_empty() {
                "nothing: the archive names no file".into()
            } else {
                looked.join(" and ")
            }
        )
    })
}

fn changed_error(compacted: &Compacted, last: &Record, archive_path: &Path) -> anyhow::Error {
    anyhow!(
        "{} has changed since it was compacted: it does not match the archive {} (expected \
         {} bytes, {}; found {} bytes, {}). Restoring from it would not give back the \
         original; --force restores anyway, applying the archive to the file as it is now, \
         and says whether the result still matches the original",
        compacted
            .path
            .as_deref()
            .unwrap_or(Path::new("the archive's copy"))
            .shown(),
        archive_path.shown(),
        crate::human::thousands(last.output.bytes),
        last.output.hash,
        crate::human::thousands(compacted.bytes.len() as u64),
        archive::hash(&compacted.bytes),
    )
}

/// Where the restored file goes: written to a [`Destination`] (over the compacted file itself,
/// [`Destination::InPlace`], when it was compacted in place: it is kept as a backup first), or
/// nowhere, since the default destination holds the restored bytes already.
enum Decided {
    Write(Destination),
    Done(PathBuf),
}

/// Where the restored file goes. `compacted`: the file the restore reads, which the default
/// destination may be (a file compacted in place): it is then restored over. `restored`: the
/// bytes to write, when a default destination holding them already is done.
fn destination(
    args: &RestoreArgs,
    target: &Record,
    base: Base,
    compacted: Option<&Path>,
    restored: Option<&[u8]>,
) -> Result<Decided, Stop> {
    let (path, chosen) = match &args.output {
        Some(p) if p.as_os_str() == "-" => return Ok(Decided::Write(Destination::Stdout)),
        Some(p) => (p.clone(), true),
        None => {
            let path = archive::resolve(&args.archive, &target.input, base).ok_or_else(|| {
                Stop::Usage(anyhow!(
                    "the original was read from standard input, so it has no path: name \
                     where to write it with -o FILE (or -o - for standard output)"
                ))
            })?;
            confined(&path, compacted.unwrap_or(&args.archive), &args.archive)?;
            (path, false)
        }
    };
    if !chosen && !args.force_overwrite && restored.is_some_and(|r| holds_exactly(&path, r)) {
        return Ok(Decided::Done(path));
    }
    if !chosen && !args.force_overwrite && compacted.is_some_and(|c| same_file(c, &path)) {
        return Ok(Decided::Write(Destination::InPlace(path)));
    }
    let exists = place::exists(&path).map_err(Stop::Failed)?;
    if exists && !args.force_overwrite {
        let hint = if chosen {
            "--force-overwrite replaces it"
        } else {
            "restore never overwrites it by default: write elsewhere with -o FILE, or replace \
             it with --force-overwrite"
        };
        return Err(Stop::Failed(anyhow!("{} exists ({hint})", path.shown())));
    }
    Ok(Decided::Write(place::destination(path)))
}

/// Refuses a default destination outside the directory of `home` (the compacted file, or the
/// archive when its copy is restored from): an archive (from a shared bucket, a tarball) is
/// untrusted input, so the paths it records never choose where a file is written: `-o` does.
fn confined(path: &Path, home: &Path, archive: &Path) -> Result<(), Stop> {
    let named = matches!(
        path.components().next_back(),
        Some(std::path::Component::Normal(_))
    );
    if named && directory_of(path).is_some_and(|d| Some(d) == directory_of(home)) {
        return Ok(());
    }
    Err(Stop::Failed(anyhow!(
        "the archive {} names {} as the original's place, outside the directory of {}: an \
         archive does not choose where restore writes; name the destination with -o FILE",
        crate::human::path(archive),
        crate::human::path(path),
        crate::human::path(home)
    )))
}

/// The directory a file or object is in, resolved (`None` when it does not exist).
fn directory_of(path: &Path) -> Option<String> {
    if let Some(url) = place::url(path) {
        let url = url.to_string();
        return url.rfind('/').map(|at| url[..at].to_string());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = parent.canonicalize().ok()?;
    Some(dir.to_string_lossy().into_owned())
}

/// Whether the file at `path` holds exactly `bytes`.
fn holds_exactly(path: &Path, bytes: &[u8]) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
        && std::fs::read(path).is_ok_and(|b| b == bytes)
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// What is appended to a file compacted in place to name its backup when it is restored.
pub const COMPACTED_SUFFIX: &str = ".compacted";

/// Restores over the compacted file at `path`, which held `compacted` (or begins with it),
/// after keeping it as `NAME.EXT.compacted`: locked, and only while it is unchanged and no
/// other process holds it open for writing, as `compact --in-place` replaces a file. Returns
/// the backup's path.
fn replace_compacted(path: &Path, compacted: &[u8], restored: &[u8]) -> Result<PathBuf> {
    let (claim, now) = crate::inplace::claim(path, u64::MAX)?;
    if !now.starts_with(compacted) {
        bail!(
            "{} changed while ctxc was restoring it: left as it is",
            claim.target.shown()
        );
    }
    let backup = backup_path(&claim.target);
    if backup.symlink_metadata().is_ok() && std::fs::read(&backup).ok().as_deref() != Some(&now) {
        return Err(refused_backup(&backup, &claim.target));
    }
    let backup = claim.backup(COMPACTED_SUFFIX, &now)?;
    claim.replace(restored)?;
    Ok(backup)
}

/// Where the compacted file at `target` is kept when it is restored over.
fn backup_path(target: &Path) -> PathBuf {
    let mut backup = target.as_os_str().to_os_string();
    backup.push(COMPACTED_SUFFIX);
    PathBuf::from(backup)
}

/// Why a file compacted in place is not restored over: its backup's name is taken.
fn refused_backup(backup: &Path, target: &Path) -> anyhow::Error {
    anyhow!(
        "{} exists: restoring over {} keeps the compacted file there first, and never \
         overwrites a file (move it away, or write the restored file elsewhere with -o FILE); \
         {} was left as it is",
        backup.shown(),
        target.shown(),
        target.shown()
    )
}

/// Writes the restored bytes atomically (with the compacted file's permissions), whole to an
/// object, or to standard output.
fn write(dest: &Destination, bytes: &[u8], like: &Path) -> Result<()> {
    let written = dest.write(bytes, Some(like), None);
    match dest.name() {
        Some(path) => {
            written.with_context(|| format!("writing the restored file {}", path.shown()))
        }
        // Standard output's own error (a reader gone early is no failure).
        None => written,
    }
}
