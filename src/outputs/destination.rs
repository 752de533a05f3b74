//! [`Destination`]: where one output goes, decided before anything is read. Every command that
//! writes a transcript or a dataset (compact, repair, convert, restore) names its output with
//! one, and writes a whole output through [`Destination::write`].

use super::{atomic, stdout};
use crate::human::Shown;
use crate::inplace::Claim;
use crate::store::{self, Url};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// Where an output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Standard output (`-o -`, or standard input's output).
    Stdout,
    /// A file, written atomically (`atomic.rs`).
    File(PathBuf),
    /// The input file itself (`--in-place`), replaced under the lock its [`Claim`] holds
    /// (`src/inplace/`). An object replaced in place is [`Destination::Remote`] with its
    /// claim: a store has no lock, its replacement is a conditional put.
    InPlace(PathBuf),
    /// An object in a store, shown only once whole (`store.rs`).
    Remote(Url),
    /// Nowhere (`--dry-run`).
    Nowhere,
}

impl Destination {
    /// What `-o PATH` names: `-` standard output, an object URL, else a file.
    pub fn of_output(output: &Path) -> Result<Destination> {
        if output.as_os_str() == "-" {
            return Ok(Destination::Stdout);
        }
        Destination::of_path(output)
    }

    /// A file or an object (a path holding an object's URL, as reports and archives name
    /// objects).
    pub fn of_path(path: &Path) -> Result<Destination> {
        Ok(match Url::of_path(path) {
            Some(url) => Destination::Remote(url?),
            None => Destination::File(path.to_path_buf()),
        })
    }

    /// The file or object written, named as in reports and manifests.
    pub fn name(&self) -> Option<PathBuf> {
        match self {
            Destination::File(path) | Destination::InPlace(path) => Some(path.clone()),
            Destination::Remote(url) => Some(PathBuf::from(url.to_string())),
            Destination::Stdout | Destination::Nowhere => None,
        }
    }

    /// Writes a whole output: atomically to a file (its directory made, `like`'s permissions
    /// kept), through `claim` in place, whole to an object or to standard output.
    pub fn write(&self, bytes: &[u8], like: Option<&Path>, claim: Option<&Claim>) -> Result<()> {
        match self {
            Destination::Stdout => stdout::write_stdout(bytes),
            Destination::File(path) => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.shown()))?;
                }
                atomic::write_atomic(path, bytes, like)
            }
            Destination::InPlace(path) => match claim {
                Some(claim) => claim.replace(bytes),
                None => bail!("{} is replaced in place only under its lock", path.shown()),
            },
            Destination::Remote(url) => store::put(url, bytes).map(drop),
            Destination::Nowhere => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_flag_names_stdout_an_object_or_a_file() {
        assert_eq!(
            Destination::of_output(Path::new("-")).unwrap(),
            Destination::Stdout
        );
        assert_eq!(
            Destination::of_output(Path::new("d/a.jsonl")).unwrap(),
            Destination::File("d/a.jsonl".into())
        );
        let remote = Destination::of_output(Path::new("s3://b/k.jsonl")).unwrap();
        assert!(matches!(&remote, Destination::Remote(_)), "{remote:?}");
        assert_eq!(remote.name(), Some(PathBuf::from("s3://b/k.jsonl")));
        assert_eq!(Destination::Nowhere.name(), None);
    }

    #[test]
    fn a_file_is_written_whole_its_directory_made_and_in_place_needs_its_lock() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new/dir/out.jsonl");
        Destination::File(out.clone())
            .write(b"{}\n", None, None)
            .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"{}\n");
        let unlocked = Destination::InPlace(out.clone()).write(b"x", None, None);
        assert!(unlocked.is_err());
        assert_eq!(std::fs::read(&out).unwrap(), b"{}\n", "left as it was");
    }
}
