//! Atomic writes: a temporary file in the target's directory ([`tempfiles`](super::tempfiles),
//! which a signal does not leave behind), flushed to disk, then renamed over the target. Every
//! file ctxc writes, in place too ([`crate::inplace`]), is put in place this way.

use super::tempfiles::{self, TempFile};
use crate::human::Shown;
use anyhow::{Context, Result};
use std::path::Path;

/// The directory a file at `path` is written in (`.` for a bare name).
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A temporary file in `dir`, to be renamed over a file there.
pub fn temp_in(dir: &Path) -> Result<TempFile> {
    tempfiles::create_in(dir)
}

/// A temporary file in `path`'s directory, which is created if need be.
pub fn temp_beside(path: &Path) -> Result<TempFile> {
    let dir = dir_of(path);
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.shown()))?;
    temp_in(dir)
}

/// Renames `tmp` over `path`, with the permissions of `like` (the input) if given.
pub fn persist(tmp: TempFile, like: Option<&Path>, path: &Path) -> Result<()> {
    if let Some(meta) = like.and_then(|p| std::fs::metadata(p).ok()) {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .with_context(|| format!("setting permissions of {}", path.shown()))?;
    }
    tmp.persist(path)
}

/// Writes to `path` what `write` writes to a buffered temporary file in its directory (which
/// must exist), flushed to disk, then renamed over it.
pub fn write_streamed(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> Result<()>,
) -> Result<()> {
    use std::io::Write;
    let tmp = temp_in(dir_of(path))?;
    let mut out = std::io::BufWriter::new(tmp.as_file());
    write(&mut out)?;
    out.flush()?;
    drop(out);
    tmp.as_file().sync_all()?;
    tmp.persist(path)
}

/// Whether `path` could be written as [`write_atomic`] writes it, the directories above it
/// made as needed (for a dry run): its nearest existing ancestor must be a directory this
/// process may write in. Writes nothing.
pub fn check_writable_beside(path: &Path) -> Result<()> {
    let mut dir = dir_of(path);
    while dir.symlink_metadata().is_err() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p,
            _ => return Ok(()),
        }
    }
    if !dir.is_dir() {
        anyhow::bail!(
            "cannot write {}: {} is not a directory",
            path.shown(),
            dir.shown()
        );
    }
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{Access, access};
        if let Err(e) = access(dir, Access::WRITE_OK | Access::EXEC_OK) {
            let e = std::io::Error::from(e);
            anyhow::bail!("cannot write {}: {}: {e}", path.shown(), dir.shown());
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the target. Keeps the permissions of `like` (the input) if given.
pub fn write_atomic(path: &Path, bytes: &[u8], like: Option<&Path>) -> Result<()> {
    use std::io::Write;
    let mut tmp = temp_in(dir_of(path))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .with_context(|| format!("writing {}", path.shown()))?;
    if let Some(permissions) = like
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.permissions())
    {
        tmp.as_file()
            .set_permissions(permissions)
            .with_context(|| format!("setting permissions of {}", path.shown()))?;
    }
    tmp.persist(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_replace_and_keep_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.json");
        std::fs::write(&input, "[]").unwrap();
        let out = dir.path().join("out.json");
        write_atomic(&out, b"one", Some(&input)).unwrap();
        write_atomic(&out, b"two", Some(&input)).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "two");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 2, "no temporary file is left behind");
    }
}
