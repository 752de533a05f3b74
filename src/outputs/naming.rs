//! What outputs are named: `NAME.compact.EXT` beside the input, trees mirrored under
//! `--out-dir`, and ctxc's own outputs told from inputs (which a directory walk leaves out).

use crate::store::Url;
use std::path::{Path, PathBuf};

/// The infix of compacted outputs written beside their input: `a.jsonl` → `a.compact.jsonl`.
pub const OUTPUT_INFIX: &str = "compact";

/// The infix of repaired outputs written beside their input: `a.jsonl` → `a.repaired.jsonl`.
pub const REPAIRED_INFIX: &str = "repaired";

/// Where the compacted copy of `input` goes by default: beside it, `NAME.compact.EXT`.
pub fn beside(input: &Path) -> PathBuf {
    beside_as(input, OUTPUT_INFIX)
}

/// `NAME.INFIX.EXT` beside `input` (`NAME.INFIX` without an extension).
pub fn beside_as(input: &Path, infix: &str) -> PathBuf {
    let stem = input.file_stem().unwrap_or_default().to_string_lossy();
    let name = match input.extension() {
        Some(ext) => format!("{stem}.{infix}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{infix}"),
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
        || name.contains(&format!(".{REPAIRED_INFIX}."))
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
}
