//! Temporary files that a signal must not leave behind.
//!
//! Every output is written to a `.ctxc-*.tmp` file beside its target and renamed over it. A
//! Ctrl-C, `kill` or a closed terminal (SIGINT, SIGTERM, SIGHUP) used to leave those files —
//! megabytes each — in the user's directories. Temporary files are created through
//! [`create_in`], which records them; [`remove_on_signal`] starts a thread that, on one of those
//! signals, deletes every recorded file and then dies of the signal as the process would have.
//! Creation and clean-up share one lock, so no file can be created after the clean-up ran.
//!
//! A command that can stop between files and report what it did (compact) asks for
//! [`finish_on_interrupt`]: the first Ctrl-C (SIGINT) then only marks the run [`interrupted`],
//! the files in progress are finished and the others left unstarted; a second one, or SIGTERM
//! or SIGHUP, cleans up and ends the process as above.
//!
//! What no handler can clean — a `kill -9`, a crash, a power cut — is left to the next run:
//! each file is created holding an advisory lock (`flock`) for as long as it is open, so a
//! `.ctxc-XXXXXX.tmp` that can be locked has no live writer. The first time a run writes into
//! a directory it removes such files there ([`sweep`]): only ctxc's own names, only regular
//! files (a symlink is neither followed nor removed), and only ones untouched for a minute, so
//! a file another run has just created and not yet locked is left to it.

use crate::human::Shown;
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once};
use std::time::{Duration, SystemTime};

/// The name of a temporary file: this prefix, `RANDOM` letters and digits, this suffix.
const PREFIX: &str = ".ctxc-";
const RANDOM: usize = 6;
const SUFFIX: &str = ".tmp";

/// How long an unlocked temporary file must have been left untouched before it is taken for a
/// dead run's: a live run locks its file right after creating it.
const GRACE: Duration = Duration::from_secs(60);

static LIVE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

fn live() -> MutexGuard<'static, Option<HashSet<PathBuf>>> {
    // A panic elsewhere while holding the lock leaves the set usable.
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file in `dir` (`.ctxc-XXXXXX.tmp`), recorded until it is persisted or dropped.
pub struct TempFile {
    file: Option<tempfile::NamedTempFile>,
    path: PathBuf,
}

/// Creates a recorded temporary file in `dir`, locked while it is open; the first time in a
/// directory, removes the files dead runs left there.
pub fn create_in(dir: &Path) -> Result<TempFile> {
    let mut set = live();
    sweep_once(dir);
    let file = tempfile::Builder::new()
        .prefix(PREFIX)
        .rand_bytes(RANDOM)
        .suffix(SUFFIX)
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.shown()))?;
    // Where locks are not supported the file is still written: only a later clean-up is lost.
    let _ = fs4::FileExt::try_lock(file.as_file());
    let path = file.path().to_path_buf();
    set.get_or_insert_default().insert(path.clone());
    Ok(TempFile {
        file: Some(file),
        path,
    })
}

impl TempFile {
    /// Its name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the file, under a name no clean-up removes (`.ctxc-XXXXXX.kept`, or the temporary
    /// name if it cannot be renamed); returns that name.
    pub fn keep(mut self) -> PathBuf {
        let file = self.file.take().expect("present until persisted");
        forget(&self.path);
        let path = match file.keep() {
            Ok((_, path)) => path,
            Err(e) => {
                // Dropped, the error would delete the file it holds.
                std::mem::forget(e);
                return self.path.clone();
            }
        };
        let kept = path.with_extension("kept");
        match std::fs::rename(&path, &kept) {
            Ok(()) => kept,
            Err(_) => path,
        }
    }

    /// The open file.
    pub fn as_file(&self) -> &std::fs::File {
        self.file
            .as_ref()
            .expect("present until persisted")
            .as_file()
    }

    /// Renames the file to `target`, replacing it.
    pub fn persist(mut self, target: &Path) -> Result<()> {
        let file = self.file.take().expect("present until persisted");
        let result = file.persist(target);
        forget(&self.path);
        result
            .map(drop)
            .map_err(|e| anyhow::Error::new(e.error))
            .with_context(|| format!("renaming into {}", target.shown()))
    }

    /// Renames the file to `target` unless `target` exists (atomically: no check-then-write
    /// race). The error names an existing target.
    pub fn persist_new(mut self, target: &Path) -> Result<()> {
        let file = self.file.take().expect("present until persisted");
        let result = file.persist_noclobber(target);
        forget(&self.path);
        match result {
            Ok(_) => Ok(()),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                anyhow::bail!("{} exists", target.shown())
            }
            Err(e) => Err(anyhow::Error::new(e.error))
                .with_context(|| format!("creating {}", target.shown())),
        }
    }
}

impl std::io::Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file
            .as_mut()
            .expect("present until persisted")
            .write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("present until persisted").flush()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        // NamedTempFile deletes itself when dropped; only the record is ours.
        forget(&self.path);
    }
}

fn forget(path: &Path) {
    if let Some(set) = live().as_mut() {
        set.remove(path);
    }
}

/// Removes the temporary files dead runs left in `dir`, the first time this process writes
/// there (the caller holds the record's lock, so none of this process's own files is unlocked).
fn sweep_once(dir: &Path) {
    static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
    if swept.get_or_insert_default().insert(dir.to_path_buf()) {
        sweep(dir);
    }
}

/// Removes every file in `dir` named like ctxc's temporary files that is a regular file, was
/// left untouched for [`GRACE`] and can be locked (no live run holds it). Returns how many.
pub fn sweep(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| is_temporary(&e.file_name()))
        .filter(|e| remove_if_stale(&e.path()).unwrap_or(false))
        .count()
}

/// Whether `name` is one ctxc gives its temporary files.
fn is_temporary(name: &OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(PREFIX))
        .and_then(|n| n.strip_suffix(SUFFIX))
        .is_some_and(|r| r.len() == RANDOM && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

fn remove_if_stale(path: &Path) -> std::io::Result<bool> {
    let seen = path.symlink_metadata()?;
    let stale = |m: &std::fs::Metadata| {
        m.modified().is_ok_and(|t| {
            SystemTime::now()
                .duration_since(t)
                .is_ok_and(|age| age >= GRACE)
        })
    };
    if !seen.file_type().is_file() || !stale(&seen) {
        return Ok(false);
    }
    // Never through a symlink swapped in since, and never waiting on a FIFO.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let same = |m: &std::fs::Metadata| (m.dev(), m.ino()) == (seen.dev(), seen.ino());
    let opened = file.metadata()?;
    if !same(&opened) || !opened.file_type().is_file() {
        return Ok(false);
    }
    if fs4::FileExt::try_lock(&file).is_err() {
        return Ok(false);
    }
    // Locked: its writer is gone. Removed if the name still holds that file, untouched.
    let now = path.symlink_metadata()?;
    if !same(&now) || !stale(&now) {
        return Ok(false);
    }
    std::fs::remove_file(path)?;
    Ok(true)
}

/// Whether the first SIGINT stops the run between files ([`finish_on_interrupt`]).
static FINISH_ON_INTERRUPT: AtomicBool = AtomicBool::new(false);
/// Set by the first SIGINT when [`FINISH_ON_INTERRUPT`] is.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Makes the first Ctrl-C a request to stop between files: [`interrupted`] turns true, and a
/// line on stderr says so and that a second Ctrl-C stops at once.
pub fn finish_on_interrupt() {
    FINISH_ON_INTERRUPT.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed in a run that [`finish_on_interrupt`]s: start no new file.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// On SIGINT, SIGTERM or SIGHUP: delete every recorded temporary file, then end the process
/// by that signal (exit status 128 + signal number). Idempotent. The first SIGINT only marks
/// the run [`interrupted`] where it [`finish_on_interrupt`]s.
pub fn remove_on_signal() {
    static START: Once = Once::new();
    START.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            for signal in signals.forever() {
                let gently = signal == SIGINT
                    && FINISH_ON_INTERRUPT.load(Ordering::SeqCst)
                    && !INTERRUPTED.swap(true, Ordering::SeqCst);
                if gently {
                    eprintln!(
                        "\nctxc: interrupted: finishing the files in progress and starting no other \
                         (Ctrl-C again stops at once)"
                    );
                    continue;
                }
                // Held until the process is gone: nothing new is created meanwhile.
                let set = live();
                for path in set.iter().flatten() {
                    let _ = std::fs::remove_file(path);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file in `dir` last modified an hour ago.
    fn left_long_ago(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "x").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        path
    }

    #[test]
    fn only_stale_unlocked_temporary_files_of_ctxc_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let dead = left_long_ago(dir.path(), ".ctxc-De4dRn.tmp");
        let held = left_long_ago(dir.path(), ".ctxc-L1veRn.tmp");
        let holder = std::fs::File::open(&held).unwrap();
        fs4::FileExt::try_lock(&holder).unwrap();
        let fresh = dir.path().join(".ctxc-Fr35h0.tmp");
        std::fs::write(&fresh, "x").unwrap();
        let others = [
            ".ctxc-T00long.tmp",
            ".ctxc-Ab_Cd1.tmp",
            "ctxc-Ab1Cd2.tmp",
            "s.jsonl",
        ]
        .map(|n| left_long_ago(dir.path(), n));
        let link = dir.path().join(".ctxc-L1nk00.tmp");
        std::os::unix::fs::symlink(left_long_ago(dir.path(), "target"), &link).unwrap();
        std::fs::create_dir(dir.path().join(".ctxc-D1r000.tmp")).unwrap();
        assert_eq!(sweep(dir.path()), 1);
        assert!(!dead.exists());
        for kept in [&held, &fresh, &link].into_iter().chain(&others) {
            assert!(kept.symlink_metadata().is_ok(), "{} kept", kept.shown());
        }
        assert!(dir.path().join("target").exists() && dir.path().join(".ctxc-D1r000.tmp").exists());
        drop(holder);
        assert_eq!(sweep(dir.path()), 1, "once its run is gone");
        assert!(!held.exists());
    }

    #[test]
    fn a_file_being_written_is_locked() {
        let dir = tempfile::tempdir().unwrap();
        let live = create_in(dir.path()).unwrap();
        let other = std::fs::File::open(live.path()).unwrap();
        assert!(fs4::FileExt::try_lock(&other).is_err());
        live.as_file()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        assert_eq!(sweep(dir.path()), 0);
        assert!(live.path().exists());
    }

    #[test]
    fn files_are_recorded_until_persisted_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let recorded = |p: &Path| live().as_ref().is_some_and(|s| s.contains(p));
        let mut a = create_in(dir.path()).unwrap();
        a.write_all(b"a").unwrap();
        let a_path = a.path.clone();
        assert!(recorded(&a_path));
        a.persist(&dir.path().join("a")).unwrap();
        assert!(!recorded(&a_path));
        let b = create_in(dir.path()).unwrap();
        let b_path = b.path.clone();
        drop(b);
        assert!(!recorded(&b_path) && !b_path.exists());
        std::fs::write(dir.path().join("c"), "old").unwrap();
        let c = create_in(dir.path()).unwrap();
        let err = c.persist_new(&dir.path().join("c")).unwrap_err();
        assert!(err.to_string().ends_with("c exists"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("c")).unwrap(),
            "old"
        );
        let mut d = create_in(dir.path()).unwrap();
        d.write_all(b"d").unwrap();
        let d_path = d.path.clone();
        let kept = d.keep();
        assert!(!recorded(&d_path) && !d_path.exists());
        assert_eq!(kept, d_path.with_extension("kept"));
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "d");
    }
}
