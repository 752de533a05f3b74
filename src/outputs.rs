//! Where outputs go and how they are written: `NAME.compact.EXT` beside the input, trees
//! mirrored under `--out-dir`, ctxc's own outputs told from inputs, and atomic writes (a
//! temporary file in the target's directory, renamed over it). Shared by compaction, archives,
//! restore and session listings, so none of them reaches into input discovery for it.

use crate::human::Shown;
use crate::store::Url;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The infix of compacted outputs written beside their input: `a.jsonl` → `a.compact.jsonl`.
pub const OUTPUT_INFIX: &str = "compact";

/// Where the compacted copy of `input` goes by default: beside it, `NAME.compact.EXT`.
pub fn beside(input: &Path) -> PathBuf {
    let stem = input.file_stem().unwrap_or_default().to_string_lossy();
    let name = match input.extension() {
        Some(ext) => format!("{stem}.{OUTPUT_INFIX}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{OUTPUT_INFIX}"),
    };
    input.with_file_name(name)
}

/// `dir` + the input's path below its root (its file name when it was named directly): output
/// trees mirror input trees.
pub fn mirrored(dir: &Path, input: &Path, root: Option<&Path>) -> PathBuf {
    let relative = match root {
        Some(root) if root != input => input.strip_prefix(root).unwrap_or(input),
        _ => Path::new(input.file_name().unwrap_or_default()),
    };
    dir.join(relative)
}

/// Whether a file found in a directory is one of ctxc's own outputs, which a second run over
/// the same directory must not take as input.
pub fn is_ctxc_output(path: &Path) -> bool {
    is_ctxc_output_name(&path.file_name().unwrap_or_default().to_string_lossy())
}

/// [`is_ctxc_output`] of a file (or object) name: a compacted or repaired output, an
/// archive, a backup (`.bak`), a session `restore` set aside (`.compacted`), a temporary file.
pub fn is_ctxc_output_name(name: &str) -> bool {
    name.contains(&format!(".{OUTPUT_INFIX}."))
        || name.contains(".repaired.")
        || name.ends_with(".ctxc-archive.json")
        || name.ends_with(".bak")
        || name.ends_with(".compacted")
        || (name.starts_with(".ctxc-") && name.ends_with(".tmp"))
}

/// [`beside`] for an object: `NAME.compact.EXT` under the same prefix.
pub fn beside_remote(input: &Url) -> Url {
    let local = beside(Path::new(input.file_name()));
    input.with_file_name(&local.to_string_lossy())
}

/// Whether `path` could be written as [`write_atomic`] writes it, the directories above it
/// made as needed (for a dry run): its nearest existing ancestor must be a directory this
/// process may write in. Writes nothing.
pub fn check_writable_beside(path: &Path) -> Result<()> {
    let mut dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
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
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = crate::tempfiles::create_in(dir)?;
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
    fn outputs_go_beside_their_input() {
        assert_eq!(
            beside(Path::new("d/a.jsonl")),
            Path::new("d/a.compact.jsonl")
        );
        assert_eq!(beside(Path::new("a.b.json")), Path::new("a.b.compact.json"));
        assert_eq!(beside(Path::new("noext")), Path::new("noext.compact"));
        assert!(is_ctxc_output(Path::new("d/a.compact.jsonl")));
        assert!(!is_ctxc_output(Path::new("d/compact.jsonl")));
    }

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
