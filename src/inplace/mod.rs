//! `--in-place` without ever losing a transcript.
//!
//! Replacing the user's only copy is the one write ctxc cannot take back, so it is guarded:
//! - the file is locked (an advisory `flock`) from before it is read until it is replaced, and a
//!   second ctxc on the same file refuses at once rather than compacting it twice;
//! - a symlink is followed: the file it points to is replaced, the link stays a link;
//! - a backup is written from exactly the bytes that were read, and never over an existing
//!   file — a second run with `--backup` refuses instead of replacing the original's only copy;
//!   one that holds exactly those bytes already (a run interrupted after writing it) is kept
//!   as the backup, and a note says so;
//! - just before the atomic rename the file must still be what was read (same inode, size,
//!   modification time and content hash): a live session appended to meanwhile is left alone;
//!   if a write slips in between that check and the rename, the file as it then was (with the
//!   appended records) is put back;
//! - a file another process holds open for writing is refused, naming it (pid and command):
//!   an agent that keeps its descriptor open would go on writing to the replaced inode, and
//!   lose it all. On Linux a lease, held from the last check through the rename, also catches
//!   a writer that opens the file meanwhile: the original is then swapped back under its name
//!   before that writer's `open` goes on ([`writers`]);
//! - the replacement keeps the original's owner, group and mode.

pub mod remote;
mod writers;

use crate::human::Shown;
use crate::outputs::{atomic, tempfiles};
use anyhow::{Context, Result, bail};
use std::cell::RefCell;
use std::fs::{File, Metadata};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A locked input, with what was read from it.
pub struct Claim {
    /// The file that is replaced: the input, or the file its symlink points to.
    pub target: PathBuf,
    /// Holds the advisory lock (released when dropped) and the original inode.
    file: File,
    /// Its metadata when read.
    read: Metadata,
    /// A hash of the bytes read.
    hash: u64,
    /// What the report should say about this file (a backup found in place).
    notes: RefCell<Vec<String>>,
}

/// Follows `path` to the file it names, locks it and reads it (a regular file of at most
/// `max_bytes`).
pub fn claim(path: &Path, max_bytes: u64) -> Result<(Claim, Vec<u8>)> {
    let (target, mut file, opened) = lock(path, max_bytes)?;
    // A file that cannot start JSON (a file of NULs) is refused before it is read whole.
    crate::discover::probe_start(&file).map_err(|e| anyhow::anyhow!(e.message))?;
    let mut bytes = Vec::with_capacity(opened.len() as usize);
    file.read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", target.shown()))?;
    let read = file.metadata()?;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let claim = checked(target, file, read, hash)?;
    Ok((claim, bytes))
}

/// Like [`claim`], for a file not to be held in memory (a Parquet dataset): locked and
/// checked the same, hashed in pieces; it is read through [`Claim::file`].
pub fn claim_file(path: &Path, max_bytes: u64) -> Result<Claim> {
    let (target, file, _) = lock(path, max_bytes)?;
    let read = file.metadata()?;
    let hash = hash_of(&file).with_context(|| format!("reading {}", target.shown()))?;
    checked(target, file, read, hash)
}

/// The file `path` names, opened and locked, and its metadata.
fn lock(path: &Path, max_bytes: u64) -> Result<(PathBuf, File, Metadata)> {
    let target =
        std::fs::canonicalize(path).with_context(|| format!("resolving {}", path.shown()))?;
    let file = File::open(&target).with_context(|| format!("opening {}", target.shown()))?;
    // fs4 rather than std's File::try_lock, which needs Rust 1.89 (the crate supports 1.85).
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(fs4::TryLockError::WouldBlock) => bail!(
            "another ctxc is compacting {} in place (it holds the file's lock): left to it",
            target.shown()
        ),
        Err(fs4::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", target.shown()));
        }
    }
    // Locked, but maybe after another run replaced the file: then this is the old inode.
    let now = std::fs::metadata(&target)?;
    let opened = file.metadata()?;
    if (now.dev(), now.ino()) != (opened.dev(), opened.ino()) {
        bail!(
            "{} was replaced while ctxc opened it (another run?): left as it is",
            target.shown()
        );
    }
    crate::discover::check_regular(&opened, max_bytes).map_err(anyhow::Error::msg)?;
    Ok((target, file, opened))
}

/// The claim of a file read with this metadata and hash, once it is seen unchanged and held
/// open for writing by no one.
fn checked(target: PathBuf, file: File, read: Metadata, hash: u64) -> Result<Claim> {
    let claim = Claim {
        target,
        file,
        read,
        hash,
        notes: RefCell::default(),
    };
    claim.unchanged(claim.read.len())?;
    // Refused now rather than after the work and the backup; replace() looks again.
    if let Some(holders) = writers::probe(&claim.file) {
        return Err(writers::held(&claim.target, &holders));
    }
    Ok(claim)
}

/// The xxh3-64 of a file's bytes, read in pieces from its start (whatever its offset).
fn hash_of(file: &File) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = file.read_at(&mut buf, at)?;
        if n == 0 {
            return Ok(hasher.digest());
        }
        hasher.update(&buf[..n]);
        at += n as u64;
    }
}

impl Claim {
    /// Writes `original` (the bytes read) to the target's name + `suffix`; refuses when that
    /// file exists, unless it holds exactly `original` (a run stopped after writing it): that
    /// one is the backup, and a note says so.
    pub fn backup(&self, suffix: &str, original: &[u8]) -> Result<PathBuf> {
        self.backup_with(
            suffix,
            |path| holds_exactly(path, original),
            || self.written(original),
        )
    }

    /// Like [`Claim::backup`], copying the claimed file in pieces (a dataset): the copy must
    /// hash as the file did when claimed.
    pub fn backup_file(&self, suffix: &str) -> Result<PathBuf> {
        let same = |path: &Path| {
            nofollow(path).is_some_and(|f| {
                f.metadata().is_ok_and(|m| m.len() == self.read.len())
                    && hash_of(&f).is_ok_and(|h| h == self.hash)
            })
        };
        self.backup_with(suffix, same, || {
            let mut tmp = self.temp()?;
            (&self.file).seek(std::io::SeekFrom::Start(0))?;
            let mut from = std::io::BufReader::new(&self.file);
            std::io::copy(&mut from, &mut tmp)
                .and_then(|_| tmp.flush())
                .with_context(|| format!("writing beside {}", self.target.shown()))?;
            if hash_of(tmp.as_file())? != self.hash {
                bail!(
                    "{} changed while ctxc was copying it to its backup: left as it is",
                    self.target.shown()
                );
            }
            self.seal(&tmp)?;
            Ok(tmp)
        })
    }

    /// Whether [`Claim::backup`] would be refused (for a dry run): it writes nothing.
    pub fn check_backup(&self, suffix: &str, original: &[u8]) -> Result<()> {
        let path = self.backup_path(suffix);
        if path.symlink_metadata().is_ok() && !holds_exactly(&path, original) {
            return Err(self.backup_differs(&path));
        }
        Ok(())
    }

    /// The target's name + `suffix`.
    fn backup_path(&self, suffix: &str) -> PathBuf {
        let mut name = self.target.as_os_str().to_os_string();
        name.push(suffix);
        PathBuf::from(name)
    }

    fn backup_differs(&self, path: &Path) -> anyhow::Error {
        anyhow::anyhow!(
            "the backup {} exists: ctxc never overwrites a backup, and this one differs from the file (move it away or pick another --backup suffix); {} was left as it is",
            path.shown(),
            self.target.shown()
        )
    }

    /// The backup at the target's name + `suffix`, written by `write` unless a file is there
    /// already: kept when `same` says it holds the original, else refused.
    fn backup_with(
        &self,
        suffix: &str,
        same: impl Fn(&Path) -> bool,
        write: impl FnOnce() -> Result<tempfiles::TempFile>,
    ) -> Result<PathBuf> {
        let path = self.backup_path(suffix);
        if path.symlink_metadata().is_ok() {
            if same(&path) {
                self.notes.borrow_mut().push(format!(
                    "the backup {} was there already, byte for byte this file (left by an interrupted run?): kept as the backup",
                    path.shown()
                ));
                return Ok(path);
            }
            return Err(self.backup_differs(&path));
        }
        let tmp = write()?;
        tmp.persist_new(&path).with_context(|| {
            format!(
                "writing the backup {} (never overwritten); {} was left as it is",
                path.shown(),
                self.target.shown()
            )
        })?;
        Ok(path)
    }

    /// The claimed file, to read (another handle on the inode that was claimed).
    pub fn file(&self) -> Result<File> {
        self.file
            .try_clone()
            .with_context(|| format!("reading {}", self.target.shown()))
    }

    /// A temporary file beside the target, for [`Claim::replace_with`]: the replacement is
    /// put in place as every output is ([`atomic`]), once the checks below pass.
    pub fn temp(&self) -> Result<tempfiles::TempFile> {
        let dir = self.target.parent().unwrap_or(Path::new("."));
        atomic::temp_in(dir)
    }

    /// What the report should say about this file.
    pub fn notes(&self) -> Vec<String> {
        self.notes.borrow().clone()
    }

    /// Replaces the target with `bytes`, if it still holds exactly what was read and no other
    /// process holds it open for writing.
    pub fn replace(&self, bytes: &[u8]) -> Result<()> {
        self.replace_with(self.written(bytes)?)
    }

    /// Like [`Claim::replace`], with the new content written to `tmp` (from [`Claim::temp`]):
    /// it gets the target's owner, group and mode, and is flushed to disk first.
    pub fn replace_with(&self, tmp: tempfiles::TempFile) -> Result<()> {
        self.seal(&tmp)?;
        let read_len = self.read.len();
        // Before the last check: under a lease no write can come after it unseen.
        let exclusion = writers::exclude(&self.file);
        // A file that changed says so first (a writer holding it is then no news).
        self.unchanged(read_len)?;
        match exclusion {
            writers::Exclusion::Held(holders) => {
                return Err(writers::held(&self.target, &holders));
            }
            #[cfg(target_os = "linux")]
            writers::Exclusion::Lease(lease) => return self.swap_in(tmp, lease),
            writers::Exclusion::Unseen => {}
        }
        tmp.persist(&self.target)?;
        // A write that landed between the check and the rename went to the old inode, which
        // the lock's handle still holds: put that file back rather than lose it.
        let after = self.file.metadata()?;
        if after.len() != read_len || after.modified().ok() != self.read.modified().ok() {
            let mut old = Vec::new();
            let mut file = &self.file;
            file.seek(std::io::SeekFrom::Start(0))?;
            file.read_to_end(&mut old)?;
            self.written(&old)?.persist(&self.target)?;
            bail!(
                "{} changed while it was being replaced: the original, with what was written to it, is back in place and nothing was compacted",
                self.target.shown()
            );
        }
        Ok(())
    }

    /// Puts `tmp` in the target's place, the lease held: the names are exchanged, so the
    /// original stays linked (under the temporary name, removed with `tmp`) until the lease
    /// shows that no one opened it for writing meanwhile; if someone did, the names are
    /// exchanged back before that writer's `open`, which waits for the lease, goes on.
    #[cfg(target_os = "linux")]
    fn swap_in(&self, tmp: tempfiles::TempFile, lease: writers::Lease) -> Result<()> {
        if writers::exchange(tmp.path(), &self.target).is_err() {
            // A filesystem without the exchange: a last look at the lease, then a plain rename.
            if lease.broken() {
                return Err(writers::opened_meanwhile(&self.target));
            }
            return tmp.persist(&self.target);
        }
        if !lease.broken() {
            return Ok(());
        }
        if let Err(e) = writers::exchange(tmp.path(), &self.target) {
            // Never let the temporary file's removal take the original with it.
            let kept = tmp.keep();
            return Err(anyhow::Error::new(e).context(format!(
                "{} was opened for writing while ctxc replaced it, and the original could not be put back: it is kept as {} (move it over {})",
                self.target.shown(),
                kept.shown(),
                self.target.shown()
            )));
        }
        drop(tmp);
        drop(lease);
        Err(writers::opened_meanwhile(&self.target))
    }

    /// Fails unless the target is still the inode, size, modification time and content that
    /// were read.
    fn unchanged(&self, read_len: u64) -> Result<()> {
        let changed = |what: &str| {
            anyhow::anyhow!(
                "{} changed while ctxc was reading or compacting it ({what}; a live session still being written?): left as it is, nothing lost",
                self.target.shown()
            )
        };
        let now = std::fs::metadata(&self.target)
            .with_context(|| format!("reading {}", self.target.shown()))?;
        if (now.dev(), now.ino()) != (self.read.dev(), self.read.ino()) {
            return Err(changed("replaced by another file"));
        }
        if now.len() != read_len {
            return Err(changed(&format!(
                "{} bytes when read, {} now",
                read_len,
                now.len()
            )));
        }
        if now.modified().ok() != self.read.modified().ok() {
            return Err(changed("modified since read"));
        }
        let content = File::open(&self.target)
            .and_then(|f| hash_of(&f))
            .with_context(|| format!("reading {}", self.target.shown()))?;
        if content != self.hash {
            return Err(changed("its content differs from what was read"));
        }
        Ok(())
    }

    /// A temporary file beside the target holding `bytes`, with the target's owner, group and
    /// mode, flushed to disk.
    fn written(&self, bytes: &[u8]) -> Result<tempfiles::TempFile> {
        let mut tmp = self.temp()?;
        tmp.write_all(bytes)
            .with_context(|| format!("writing beside {}", self.target.shown()))?;
        self.seal(&tmp)?;
        Ok(tmp)
    }

    /// Gives a temporary file the target's owner, group and mode, and flushes it to disk.
    fn seal(&self, tmp: &tempfiles::TempFile) -> Result<()> {
        let mine = tmp.as_file().metadata()?;
        if (mine.uid(), mine.gid()) != (self.read.uid(), self.read.gid()) {
            std::os::unix::fs::fchown(tmp.as_file(), Some(self.read.uid()), Some(self.read.gid()))
                .with_context(|| {
                    format!(
                        "keeping the owner {}:{} of {}: left as it is",
                        self.read.uid(),
                        self.read.gid(),
                        self.target.shown()
                    )
                })?;
        }
        let mode = std::fs::Permissions::from_mode(self.read.mode() & 0o7777);
        tmp.as_file()
            .set_permissions(mode)
            .and_then(|_| tmp.as_file().sync_all())
            .with_context(|| format!("writing beside {}", self.target.shown()))
    }
}

/// `path` opened for reading if it is a regular file (not through a symlink).
fn nofollow(path: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    file.metadata()
        .is_ok_and(|m| m.file_type().is_file())
        .then_some(file)
}

/// Whether `path` is a regular file (not through a symlink) holding exactly `bytes`.
fn holds_exactly(path: &Path, bytes: &[u8]) -> bool {
    let Some(mut file) = nofollow(path) else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.len() == bytes.len() as u64) {
        return false;
    }
    let mut held = Vec::with_capacity(bytes.len());
    file.read_to_end(&mut held).is_ok() && held == bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "one\n").unwrap();
        let (claim, bytes) = claim(&path, u64::MAX).unwrap();
        assert_eq!(bytes, b"one\n");
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"two\n")
            .unwrap();
        let err = claim.replace(b"x").unwrap_err();
        assert!(err.to_string().contains("changed while"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[test]
    fn backups_are_never_overwritten_and_modes_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "original").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let (claim, bytes) = claim(&path, u64::MAX).unwrap();
        let backup = claim.backup(".bak", &bytes).unwrap();
        claim.replace(b"compacted").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o7777;
        assert_eq!(mode(&path), 0o640);
        assert_eq!(mode(&backup), 0o640);
        drop(claim);
        let (again, bytes) = super::claim(&path, u64::MAX).unwrap();
        let err = again.backup(".bak", &bytes).unwrap_err();
        assert!(
            err.to_string().contains("never overwrites a backup"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "original");
    }

    /// A run stopped after writing the backup: the next one takes a backup holding exactly
    /// the file as its own, and says so.
    #[test]
    fn a_backup_identical_to_the_file_is_kept_as_the_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "original").unwrap();
        let (claim, bytes) = claim(&path, u64::MAX).unwrap();
        let backup = claim.backup(".bak", &bytes).unwrap();
        drop(claim);
        let (again, bytes) = super::claim(&path, u64::MAX).unwrap();
        assert_eq!(again.backup(".bak", &bytes).unwrap(), backup);
        assert!(
            again.notes()[0].contains("was there already"),
            "{:?}",
            again.notes()
        );
        again.replace(b"compacted").unwrap();
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "original");
        // Not through a symlink, even to an identical file.
        std::fs::write(dir.path().join("copy"), "compacted").unwrap();
        std::fs::remove_file(&backup).unwrap();
        std::os::unix::fs::symlink(dir.path().join("copy"), &backup).unwrap();
        let (third, bytes) = super::claim(&path, u64::MAX).unwrap();
        assert!(third.backup(".bak", &bytes).is_err());
    }

    #[test]
    fn a_second_claim_is_refused_while_the_first_holds_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "x").unwrap();
        let first = claim(&path, u64::MAX).unwrap();
        let err = claim(&path, u64::MAX).err().unwrap();
        assert!(err.to_string().contains("holds the file's lock"), "{err}");
        drop(first);
        assert!(claim(&path, u64::MAX).is_ok());
    }

    /// A writer that opens the file between the last check and the rename: its `open` waits
    /// for the lease, the original is swapped back under its name, and what it writes is kept.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_writer_opening_during_the_rename_writes_to_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "one\n").unwrap();
        let (claim, _) = claim(&path, u64::MAX).unwrap();
        let tmp = claim.written(b"compacted\n").unwrap();
        let writers::Exclusion::Lease(lease) = writers::exclude(&claim.file) else {
            panic!("no lease");
        };
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(b"two\n").unwrap();
            })
        };
        let started = std::time::Instant::now();
        while !lease.broken() && started.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let err = claim.swap_in(tmp, lease).unwrap_err();
        assert!(
            err.to_string().contains("opened for writing while"),
            "{err}"
        );
        writer.join().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }

    #[test]
    fn a_symlink_is_followed_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("link.json");
        std::fs::write(&real, "before").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let (claim, _) = claim(&link, u64::MAX).unwrap();
        claim.replace(b"after").unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "after");
    }
}
