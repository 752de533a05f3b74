//! Object URLs: `s3://BUCKET/KEY`, `gs://BUCKET/KEY`, `az://CONTAINER/KEY` and, read only,
//! `https://HOST/PATH` (`http://` to this machine only). A URL whose key is empty or ends in
//! `/` names a prefix, listed like a directory.

use anyhow::{Result, bail};
use std::fmt;

/// Which kind of store a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scheme {
    /// Amazon S3 and S3-compatible stores (MinIO, Ceph, R2, moto): `s3://`.
    S3,
    /// Google Cloud Storage: `gs://`.
    Gcs,
    /// Azure Blob Storage: `az://`.
    Azure,
    /// A plain web server, read only: `https://` (or `http://` on loopback).
    Http {
        /// Whether the URL said `https`.
        tls: bool,
    },
}

impl Scheme {
    fn prefix(self) -> &'static str {
        match self {
            Scheme::S3 => "s3://",
            Scheme::Gcs => "gs://",
            Scheme::Azure => "az://",
            Scheme::Http { tls: true } => "https://",
            Scheme::Http { tls: false } => "http://",
        }
    }

    /// Whether ctxc may write to this kind of store.
    pub fn writable(self) -> bool {
        !matches!(self, Scheme::Http { .. })
    }
}

/// One object, or a prefix of objects, in a store.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Url {
    /// The kind of store.
    pub scheme: Scheme,
    /// The bucket or container (for `https://`, the host and port).
    pub bucket: String,
    /// The key below the bucket, without a leading `/`; empty for the whole bucket.
    pub key: String,
}

impl Url {
    /// The URL `text` names, or `None` when it is not an object-store URL (a local path).
    pub fn detect(text: &str) -> Option<Result<Url>> {
        const SCHEMES: [(&str, Scheme); 6] = [
            ("s3://", Scheme::S3),
            ("s3a://", Scheme::S3),
            ("gs://", Scheme::Gcs),
            ("az://", Scheme::Azure),
            ("https://", Scheme::Http { tls: true }),
            ("http://", Scheme::Http { tls: false }),
        ];
        let (scheme, rest) = SCHEMES
            .iter()
            .find_map(|(prefix, scheme)| Some((*scheme, text.strip_prefix(prefix)?)))?;
        Some(Url::parse_rest(scheme, rest, text))
    }

    /// The URL a command-line path names, if it is one.
    pub fn of_path(path: &std::path::Path) -> Option<Result<Url>> {
        Url::detect(path.to_str()?)
    }

    fn parse_rest(scheme: Scheme, rest: &str, text: &str) -> Result<Url> {
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            bail!("{text}: no bucket in the URL");
        }
        if key.split('/').any(|s| s == "." || s == "..") {
            bail!("{text}: `.` and `..` are not keys of an object store");
        }
        if let Scheme::Http { tls: false } = scheme {
            let host = bucket.rsplit_once(':').map_or(bucket, |(host, _)| host);
            if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
                bail!("{text}: plain http:// goes only to this machine: use https://");
            }
        }
        Ok(Url {
            scheme,
            bucket: bucket.to_string(),
            key: key.to_string(),
        })
    }

    /// Whether the URL names a prefix (empty key or a trailing `/`) rather than one object.
    pub fn is_prefix(&self) -> bool {
        self.key.is_empty() || self.key.ends_with('/')
    }

    /// The same URL as a prefix: a `/` added unless the key is empty or has one.
    pub fn as_prefix(&self) -> Url {
        let mut url = self.clone();
        if !url.is_prefix() {
            url.key.push('/');
        }
        url
    }

    /// The last segment of the key: what `--glob` patterns are matched against.
    pub fn file_name(&self) -> &str {
        self.key.rsplit('/').next().unwrap_or_default()
    }

    /// `relative` (with `/` separators) below this URL taken as a prefix.
    pub fn join(&self, relative: &str) -> Url {
        let mut url = self.as_prefix();
        url.key.push_str(relative.trim_start_matches('/'));
        url
    }

    /// The same key with its last segment replaced.
    pub fn with_file_name(&self, name: &str) -> Url {
        let mut url = self.clone();
        let dir = url.key.rfind('/').map_or(0, |i| i + 1);
        url.key.truncate(dir);
        url.key.push_str(name);
        url
    }

    /// This key with `suffix` appended (a backup's name).
    pub fn with_suffix(&self, suffix: &str) -> Url {
        let mut url = self.clone();
        url.key.push_str(suffix);
        url
    }

    /// The key below `root` (a prefix, or this object itself), as output trees mirror it; the
    /// file name when this object is not below `root`.
    pub fn below(&self, root: &Url) -> &str {
        let prefix = root.as_prefix();
        if (prefix.scheme, &prefix.bucket) == (self.scheme, &self.bucket) {
            if let Some(rest) = self.key.strip_prefix(&prefix.key) {
                if !rest.is_empty() {
                    return rest;
                }
            }
        }
        self.file_name()
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}/{}", self.scheme.prefix(), self.bucket, self.key)
    }
}

/// In messages a key holding a newline or an escape is printed escaped, as a file name is;
/// `to_string()` stays the real URL, which ctxc reads back.
impl crate::human::Shown for Url {
    fn shown(&self) -> String {
        crate::human::text(&self.to_string()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::detect(text).unwrap().unwrap()
    }

    #[test]
    fn urls_are_told_from_paths_and_split() {
        assert!(Url::detect("dir/a.json").is_none());
        assert!(Url::detect("./s3://x").is_none());
        let u = url("s3://bucket/in/a.jsonl");
        assert_eq!(
            (u.scheme, &*u.bucket, &*u.key),
            (Scheme::S3, "bucket", "in/a.jsonl")
        );
        assert_eq!(u.to_string(), "s3://bucket/in/a.jsonl");
        assert!(!u.is_prefix());
        assert!(url("gs://b").is_prefix());
        assert!(url("az://c/x/").is_prefix());
        assert_eq!(url("s3a://b/k").to_string(), "s3://b/k");
        assert!(Url::detect("s3:///k").unwrap().is_err());
        assert!(Url::detect("s3://b/../k").unwrap().is_err());
        assert!(Url::detect("http://example.com/a").unwrap().is_err());
        assert!(Url::detect("http://127.0.0.1:9000/b/a").unwrap().is_ok());
        assert!(!url("https://h/a").scheme.writable());
    }

    #[test]
    fn keys_are_mirrored_below_their_root() {
        let root = url("s3://b/in");
        let a = url("s3://b/in/sub/a.jsonl");
        assert_eq!(a.below(&root), "sub/a.jsonl");
        assert_eq!(a.below(&a), "a.jsonl");
        assert_eq!(a.below(&url("s3://other/in/")), "a.jsonl");
        assert_eq!(
            url("s3://b/out").join("sub/a.jsonl").to_string(),
            "s3://b/out/sub/a.jsonl"
        );
        assert_eq!(url("s3://b/").join("a").to_string(), "s3://b/a");
        assert_eq!(
            a.with_file_name("a.compact.jsonl").key,
            "in/sub/a.compact.jsonl"
        );
        assert_eq!(a.with_suffix(".bak").key, "in/sub/a.jsonl.bak");
        assert_eq!(a.file_name(), "a.jsonl");
    }
}
