//! Where an archive, and the files its records name, are: a local path, or an object in a
//! store named by its URL (kept in a `Path` as the URL's text, as reports and manifests name
//! objects). Every read and write of the archive code goes through here, so archives sit
//! beside outputs in a bucket as they do on a disk; an object is written whole (one `PUT`, or
//! a completed multipart upload) or not at all, as a file is renamed into place.

use crate::human::Shown;
use crate::store::{self, Url};
use anyhow::{Context, Result};
use std::path::Path;

/// The object `path` names, when it is an object URL.
pub fn url(path: &Path) -> Option<Url> {
    Url::of_path(path).and_then(Result::ok)
}

/// Whether a file or an object is at `path` (a store that cannot be asked is an error).
pub fn exists(path: &Path) -> Result<bool> {
    match url(path) {
        Some(url) => Ok(store::head(&url)?.is_some()),
        None => Ok(path.exists()),
    }
}

/// Whether a regular file, or an object, is at `path` (`false` when it cannot be told).
pub fn is_file(path: &Path) -> bool {
    match url(path) {
        Some(url) => store::head(&url).is_ok_and(|m| m.is_some()),
        None => path.is_file(),
    }
}

/// The bytes at `path`; `None` when nothing is there.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    match url(path) {
        Some(url) => match store::get(&url, u64::MAX) {
            Ok((bytes, _)) => Ok(Some(bytes)),
            Err(e) if e.0 == "no such object" => Ok(None),
            Err(e) => Err(anyhow::anyhow!("{url}: {}", e.0)),
        },
        None => match std::fs::read(path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.shown())),
        },
    }
}

/// Writes `bytes` to `path` atomically (a file: renamed into place with `like`'s
/// permissions, its directory created; an object: shown only once whole).
pub fn write(path: &Path, bytes: &[u8], like: Option<&Path>) -> Result<()> {
    if let Some(url) = url(path) {
        return store::put(&url, bytes).map(drop);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.shown()))?;
    }
    crate::outputs::write_atomic(path, bytes, like)
}

/// Removes the file or object at `path`.
pub fn remove(path: &Path) -> Result<()> {
    match url(path) {
        Some(url) => store::delete(&url),
        None => std::fs::remove_file(path).with_context(|| format!("removing {}", path.shown())),
    }
}

/// The file at `path` opened for reading; an object is first copied to a temporary file.
pub fn open(path: &Path) -> Result<std::fs::File> {
    match url(path) {
        Some(url) => store::download(&url).map(|(file, _)| file),
        None => std::fs::File::open(path).with_context(|| format!("reading {}", path.shown())),
    }
}

/// The size of what is at `path`, if anything is.
pub fn size(path: &Path) -> Option<u64> {
    match url(path) {
        Some(url) => store::head(&url).ok().flatten().map(|m| m.size),
        None => std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len()),
    }
}

/// Whether what is at `path` starts with `magic` (only that much of an object is read).
pub fn starts_with(path: &Path, magic: &[u8]) -> bool {
    match url(path) {
        Some(url) => store::head_bytes(&url, magic.len() as u64)
            .ok()
            .flatten()
            .is_some_and(|head| head == magic),
        None => {
            let mut head = vec![0u8; magic.len()];
            std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok()
                && head == magic
        }
    }
}

/// Whether the file or object at `path` begins with `bytes` bytes whose [`super::hash`] is
/// `hash` (a record's output, or more written after it); read in pieces (an object through a
/// temporary file).
pub fn begins_with(path: &Path, bytes: u64, hash: &str) -> bool {
    if size(path).is_none_or(|n| n < bytes) {
        return false;
    }
    let Ok(file) = open(path) else {
        return false;
    };
    super::hash_prefix(&file, bytes).is_ok_and(|(n, h)| n == bytes && h == hash)
}

/// `relative` (with `/` separators, `..` climbing) from the directory of the object `base`.
pub fn url_join(base: &Url, relative: &str) -> Option<Url> {
    let mut segments: Vec<&str> = base.key.split('/').collect();
    segments.pop();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            part => segments.push(part),
        }
    }
    Some(Url {
        key: segments.join("/"),
        ..base.clone()
    })
}

/// The object `to` relative to the directory of the object `from`, when both are in one
/// bucket.
pub fn url_relative(from: &Url, to: &Url) -> Option<String> {
    if (from.scheme, &from.bucket) != (to.scheme, &to.bucket) {
        return None;
    }
    let mut dir: Vec<&str> = from.key.split('/').collect();
    dir.pop();
    let to: Vec<&str> = to.key.split('/').collect();
    let common = dir.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; dir.len() - common];
    parts.extend(&to[common..]);
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(text: &str) -> Url {
        Url::detect(text).unwrap().unwrap()
    }

    #[test]
    fn objects_are_found_relative_to_an_archive_in_a_bucket() {
        let archive = u("s3://b/out/sub/a.ctxc-archive.json");
        for (to, rel) in [
            ("s3://b/out/sub/a.jsonl", "a.jsonl"),
            ("s3://b/in/a.jsonl", "../../in/a.jsonl"),
            ("s3://b/out/sub/deeper/a.jsonl", "deeper/a.jsonl"),
        ] {
            assert_eq!(url_relative(&archive, &u(to)).as_deref(), Some(rel));
            assert_eq!(url_join(&archive, rel), Some(u(to)));
        }
        assert_eq!(url_relative(&archive, &u("s3://other/a.jsonl")), None);
        assert_eq!(url_relative(&archive, &u("gs://b/out/a.jsonl")), None);
        assert_eq!(url_join(&u("s3://b/a.json"), "../x"), None);
    }
}
