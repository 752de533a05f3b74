//! `ctxc restore ARCHIVE`: rebuild the original transcript, byte-for-byte, from the compacted
//! file an archive names.
//!
//! The compacted file is looked for relative to the archive first (they moved together),
//! then at the absolute path the archive recorded; the first that exists and matches the
//! recorded hash wins. The default destination is the original's path, looked up the same
//! way as the compacted file was found, and only when nothing is there. Every step of the
//! walk back is checked against its recorded hash before anything is written.
//!
//! Exit status: 0 restored, 1 refused or failed (the message says why), 2 usage.

use crate::ExitStatus;
use crate::archive::{self, Archive, Base, Record};
use crate::cli::RestoreArgs;
use anyhow::{Context, Result, anyhow};
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
        Err(Stop::Failed(e)) if is_broken_pipe(&e) => Err(e),
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
        return Ok(path);
    }
    Ok(archive::archive_path(&path, None, None, None))
}

/// The compacted file the restore starts from.
struct Compacted {
    path: PathBuf,
    bytes: Vec<u8>,
    base: Base,
    matches: bool,
}

fn restore(args: &RestoreArgs, quiet: bool) -> Result<(), Stop> {
    let archive_path = archive_of(&args.archive).map_err(Stop::Usage)?;
    let args = &RestoreArgs {
        archive: archive_path,
        output: args.output.clone(),
        ..*args
    };
    let archive = Archive::read(&args.archive).map_err(Stop::Failed)?;
    let records = &archive.records;
    let n = records.len();
    let steps = args.steps.unwrap_or(n);
    if steps == 0 || steps > n {
        return Err(Stop::Usage(anyhow!(
            "--steps {steps}: {} holds {n} compaction{}, so 1 to {n}",
            args.archive.display(),
            plural(n)
        )));
    }
    let last = records.last().expect("archives hold records");
    let compacted = find_compacted(&args.archive, last).map_err(Stop::Failed)?;
    if !compacted.matches && !args.force {
        return Err(Stop::Failed(changed_error(&compacted, last, &args.archive)));
    }
    let undone = archive::undo(records, &compacted.bytes, steps, args.force)
        .map_err(|e| Stop::Failed(anyhow!("restoring from {}: {e}", args.archive.display())))?;
    let target = &records[n - steps];
    let dest = destination(args, target, compacted.base)?;
    write(&dest, &undone.bytes, &compacted.path).map_err(Stop::Failed)?;
    if !compacted.matches {
        warn(&format!(
            "{} did not match the archive: restored from it anyway (--force)",
            compacted.path.display()
        ));
    }
    for mismatch in &undone.mismatches {
        warn(mismatch);
    }
    if !quiet {
        let what = if steps == n {
            "the original".to_string()
        } else {
            format!(
                "the file before the last {steps} compaction{}",
                plural(steps)
            )
        };
        let checked = if undone.mismatches.is_empty() {
            "hash verified"
        } else {
            "NOT verified: it differs from what was compacted"
        };
        eprintln!(
            "ctxc: restored {what} from {} to {} ({} bytes, {steps} of {n} compaction{} undone, {checked})",
            compacted.path.display(),
            dest.map_or("standard output".into(), |p| p.display().to_string()),
            crate::report::thousands(undone.bytes.len() as u64),
            plural(n),
        );
    }
    Ok(())
}

/// The compacted file: the first candidate that exists and matches the archive, else the
/// first that exists.
fn find_compacted(archive_path: &Path, last: &Record) -> Result<Compacted> {
    let candidates = archive::candidates(archive_path, &last.output);
    let mut first: Option<Compacted> = None;
    for (path, base) in &candidates {
        if !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(path)
            .with_context(|| format!("reading the compacted file {}", path.display()))?;
        let matches = archive::hash(&bytes) == last.output.hash;
        let found = Compacted {
            path: path.clone(),
            bytes,
            base: *base,
            matches,
        };
        if matches {
            return Ok(found);
        }
        first.get_or_insert(found);
    }
    first.ok_or_else(|| {
        let looked: Vec<String> = candidates
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect();
        anyhow!(
            "cannot find the compacted file that {} restores from (looked for {})",
            archive_path.display(),
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
        compacted.path.display(),
        archive_path.display(),
        crate::report::thousands(last.output.bytes),
        last.output.hash,
        crate::report::thousands(compacted.bytes.len() as u64),
        archive::hash(&compacted.bytes),
    )
}

/// Where the restored file goes (`None`: standard output).
fn destination(args: &RestoreArgs, target: &Record, base: Base) -> Result<Option<PathBuf>, Stop> {
    let (path, chosen) = match &args.output {
        Some(p) if p.as_os_str() == "-" => return Ok(None),
        Some(p) => (p.clone(), true),
        None => {
            let path = archive::resolve(&args.archive, &target.input, base).ok_or_else(|| {
                Stop::Usage(anyhow!(
                    "the original was read from standard input, so it has no path: name \
                     where to write it with -o FILE (or -o - for standard output)"
                ))
            })?;
            (path, false)
        }
    };
    if path.exists() && !args.force_overwrite {
        let hint = if chosen {
            "--force-overwrite replaces it"
        } else {
            "restore never overwrites it by default: write elsewhere with -o FILE, or replace \
             it with --force-overwrite"
        };
        return Err(Stop::Failed(anyhow!("{} exists ({hint})", path.display())));
    }
    Ok(Some(path))
}

/// Writes the restored bytes atomically (with the compacted file's permissions), or to
/// standard output.
fn write(dest: &Option<PathBuf>, bytes: &[u8], like: &Path) -> Result<()> {
    let Some(path) = dest else {
        return crate::output::write_stdout(bytes);
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    crate::discover::write_atomic(path, bytes, Some(like))
        .with_context(|| format!("writing the restored file {}", path.display()))
}

fn warn(message: &str) {
    eprintln!("ctxc: warning: {message}");
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
