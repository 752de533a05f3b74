//! Where archives go and how the files they name are found again.
//!
//! An archive is `NAME.ctxc-archive.json`, NAME being the output's file stem, beside the
//! output, or under `--archive-dir` at the input's place in the input tree. Records keep
//! each file's absolute path and the same path relative to the archive; `restore` looks
//! relative to the archive first (the archive moved together with its files), then at the
//! absolute path (only the archive moved).

use super::model::{FileRef, SUFFIX};
use std::path::{Component, Path, PathBuf};

/// The archive of `output`: beside it, or under `archive_dir` mirroring the input tree.
pub fn archive_path(
    output: &Path,
    archive_dir: Option<&Path>,
    input: Option<&Path>,
    input_root: Option<&Path>,
) -> PathBuf {
    let name = archive_name(output);
    match (archive_dir, input) {
        (Some(dir), Some(input)) => {
            crate::outputs::mirrored(dir, input, input_root).with_file_name(name)
        }
        (Some(dir), None) => dir.join(name),
        (None, _) => output.with_file_name(name),
    }
}

/// `NAME.ctxc-archive.json` for a file `NAME.EXT`.
pub fn archive_name(file: &Path) -> String {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    format!("{stem}{SUFFIX}")
}

/// Where an earlier compaction's archive of `input` may be: beside it, and under
/// `archive_dir` where this run would put it.
pub fn earlier_candidates(
    input: &Path,
    archive_dir: Option<&Path>,
    input_root: Option<&Path>,
) -> Vec<PathBuf> {
    let mut candidates = vec![input.with_file_name(archive_name(input))];
    if let Some(dir) = archive_dir {
        let there = archive_path(input, Some(dir), Some(input), input_root);
        if !candidates.contains(&there) {
            candidates.push(there);
        }
    }
    candidates
}

/// `path` made absolute, symbolic links resolved when it exists.
pub fn absolute(path: &Path) -> PathBuf {
    if let Some(url) = super::place::url(path) {
        return PathBuf::from(url.to_string());
    }
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    // Not there yet (an archive about to be written): resolve its directory.
    if let (Some(parent), Some(name)) = (path.parent(), path.file_name()) {
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        if let Ok(dir) = parent.canonicalize() {
            return dir.join(name);
        }
    }
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `to` relative to the directory `from` (both absolute); `None` when they share no root.
pub fn relative(from: &Path, to: &Path) -> Option<PathBuf> {
    match (super::place::url(from), super::place::url(to)) {
        (None, None) => {}
        // An object's directory is a prefix: `from` named with a trailing `/`.
        (Some(from), Some(to)) => {
            return super::place::url_relative(&from.join("x"), &to).map(PathBuf::from);
        }
        _ => return None,
    }
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut rel = PathBuf::new();
    for _ in common..from.len() {
        rel.push("..");
    }
    for c in &to[common..] {
        rel.push(c.as_os_str());
    }
    Some(rel)
}

/// Fills in the file's path relative to the archive at `archive`.
pub fn set_relative(file: &mut FileRef, archive: &Path) {
    if let Some(archive) = super::place::url(archive) {
        file.relative_to_archive = file
            .path
            .as_deref()
            .and_then(|p| super::place::url(Path::new(p)))
            .and_then(|to| super::place::url_relative(&archive, &to));
        return;
    }
    let dir = absolute(archive)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    file.relative_to_archive = file
        .path
        .as_deref()
        .and_then(|p| relative(&dir, Path::new(p)))
        .map(|p| p.to_string_lossy().into_owned());
}

/// How a file named by a record was looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// Relative to the archive's directory.
    Archive,
    /// At the absolute path recorded.
    Recorded,
}

/// Where the file a record names may be, in the order `restore` tries them.
pub fn candidates(archive: &Path, file: &FileRef) -> Vec<(PathBuf, Base)> {
    let dir = archive.parent().unwrap_or(Path::new(""));
    let mut found = Vec::new();
    if let Some(rel) = &file.relative_to_archive {
        match super::place::url(archive) {
            Some(url) => {
                if let Some(url) = super::place::url_join(&url, rel) {
                    found.push((PathBuf::from(url.to_string()), Base::Archive));
                }
            }
            None => found.push((dir.join(rel), Base::Archive)),
        }
    }
    if let Some(path) = &file.path {
        let path = PathBuf::from(path);
        if !found.iter().any(|(p, _)| absolute(p) == path) {
            found.push((path, Base::Recorded));
        }
    }
    found
}

/// The file a record names, looked up the way `base` says.
pub fn resolve(archive: &Path, file: &FileRef, base: Base) -> Option<PathBuf> {
    candidates(archive, file)
        .into_iter()
        .find(|(_, b)| *b == base)
        .or_else(|| candidates(archive, file).into_iter().next())
        .map(|(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_are_named_after_the_output_stem() {
        let out = Path::new("d/a.compact.jsonl");
        assert_eq!(
            archive_path(out, None, Some(Path::new("d/a.jsonl")), None),
            Path::new("d/a.compact.ctxc-archive.json")
        );
        assert_eq!(
            archive_path(
                out,
                Some(Path::new("arch")),
                Some(Path::new("in/sub/a.jsonl")),
                Some(Path::new("in"))
            ),
            Path::new("arch/sub/a.compact.ctxc-archive.json")
        );
        assert_eq!(
            archive_path(out, Some(Path::new("arch")), None, None),
            Path::new("arch/a.compact.ctxc-archive.json")
        );
    }

    #[test]
    fn relative_paths_climb_and_descend() {
        let rel = |a: &str, b: &str| relative(Path::new(a), Path::new(b)).unwrap();
        assert_eq!(
            rel("/w/arch/sub", "/w/in/sub/a.jsonl"),
            Path::new("../../in/sub/a.jsonl")
        );
        assert_eq!(rel("/w", "/w/a.jsonl"), Path::new("a.jsonl"));
    }
}
