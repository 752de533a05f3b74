//! Where an archive, and the files its records name, are: a local path, or an object in a
//! store named by its URL (kept in a `Path` as the URL's text, as reports and manifests name
//! objects). Every read and write of the archive code goes through here, so archives sit
//! beside outputs in a bucket as they do on a disk; an object is written whole (one `PUT`, or
//! a completed multipart upload) or not at all, as a file is renamed into place.

use crate::human::Shown;
use crate::outputs::Destination;
use crate::store::{self, Url};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The object `path` names, when it is an object URL.
pub fn url(path: &Path) -> Option<Url> {
    Url::of_path(path).and_then(Result::ok)
}

/// The object `path` names, or the file.
pub fn destination(path: PathBuf) -> Destination {
    match url(&path) {
        Some(url) => Destination::Remote(url),
        None => Destination::File(path),
    }
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
            Err(e) => Err(anyhow::anyhow!("{url}: {}", e.0, url = url.shown())),
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
    destination(path.to_path_buf()).write(bytes, like, None)
}

/// Which version of an archive a run last saw, for writing it only while it still is that
/// version: two runs on one object must not write over each other's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Version {
    /// No object was there.
    Absent,
    /// The object's ETag.
    Etag(String),
    /// A local file (its input's lock keeps other runs out), or a store that gave no ETag.
    Untold,
}

/// The bytes at `path` (`None` when nothing is there) and the version they are.
pub fn read_versioned(path: &Path) -> Result<(Option<Vec<u8>>, Version)> {
    let Some(url) = url(path) else {
        return Ok((read(path)?, Version::Untold));
    };
    match store::get(&url, u64::MAX) {
        Ok((bytes, meta)) => Ok((
            Some(bytes),
            meta.etag.map_or(Version::Untold, Version::Etag),
        )),
        Err(e) if e.0 == "no such object" => Ok((None, Version::Absent)),
        Err(e) => Err(anyhow::anyhow!("{url}: {}", e.0, url = url.shown())),
    }
}

/// [`write`], only while what is at `path` is still the version `seen` (an object: `If-Match`,
/// or `If-None-Match: *` where there was none; a file is written as [`write`] does). The
/// version written, or `None` when another was there. A write refused on a retry after it
/// landed is told by the ETag of the bytes.
pub fn write_if(
    path: &Path,
    bytes: &[u8],
    like: Option<&Path>,
    seen: &Version,
) -> Result<Option<Version>> {
    let Some(url) = url(path) else {
        write(path, bytes, like)?;
        return Ok(Some(Version::Untold));
    };
    let written = match seen {
        Version::Untold => return store::put(&url, bytes).map(|m| Some(version_of(m.etag))),
        Version::Absent => match store::create(&url, bytes)? {
            store::Created::New => store::head(&url)?.map(|m| version_of(m.etag)),
            store::Created::Exists => None,
        },
        Version::Etag(etag) => {
            let read = store::Meta {
                size: 0,
                etag: Some(etag.clone()),
            };
            match store::update(&url, bytes, &read) {
                Ok(meta) => Some(version_of(meta.etag)),
                Err(store::UpdateError::Changed) => None,
                Err(store::UpdateError::Unsupported(why)) => {
                    anyhow::bail!(
                        "{url}: the store cannot write conditionally ({why})",
                        url = url.shown()
                    )
                }
                Err(store::UpdateError::Other(e)) => return Err(e),
            }
        }
    };
    if written.is_some() {
        return Ok(written);
    }
    // Refused: unless what is there now is these very bytes (an earlier try that landed).
    let ours = store::md5_etag(bytes);
    Ok(store::head(&url)?
        .filter(|m| m.etag.as_deref() == Some(ours.as_str()))
        .map(|m| version_of(m.etag)))
}

fn version_of(etag: Option<String>) -> Version {
    etag.map_or(Version::Untold, Version::Etag)
}

/// Removes the file or object at `path` while it is still the version `seen` (an object's
/// ETag is looked at just before). Whether it was removed.
pub fn remove_if(path: &Path, seen: &Version) -> Result<bool> {
    if let (Some(url), Version::Etag(etag)) = (url(path), seen) {
        let now = store::head(&url)?;
        if now.and_then(|m| m.etag).as_ref() != Some(etag) {
            return Ok(false);
        }
    }
    remove(path).map(|()| true)
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
