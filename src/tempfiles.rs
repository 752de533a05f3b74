//! Temporary files that a signal must not leave behind.
//!
//! Every output is written to a `.ctxc-*.tmp` file beside its target and renamed over it. A
//! Ctrl-C, `kill` or a closed terminal (SIGINT, SIGTERM, SIGHUP) used to leave those files —
//! megabytes each — in the user's directories. Temporary files are created through
//! [`create_in`], which records them; [`remove_on_signal`] starts a thread that, on one of those
//! signals, deletes every recorded file and then dies of the signal as the process would have.
//! Creation and clean-up share one lock, so no file can be created after the clean-up ran.

use anyhow::{Context, Result};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

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

/// Creates a recorded temporary file in `dir`.
pub fn create_in(dir: &Path) -> Result<TempFile> {
    let mut set = live();
    let file = tempfile::Builder::new()
        .prefix(".ctxc-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
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
            .with_context(|| format!("renaming into {}", target.display()))
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
                anyhow::bail!("{} exists", target.display())
            }
            Err(e) => Err(anyhow::Error::new(e.error))
                .with_context(|| format!("creating {}", target.display())),
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

/// On SIGINT, SIGTERM or SIGHUP: delete every recorded temporary file, then end the process
/// by that signal (exit status 128 + signal number). Idempotent.
pub fn remove_on_signal() {
    static START: Once = Once::new();
    START.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
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
