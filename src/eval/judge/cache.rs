//! Replies kept by the digest of the request that got them, so a second `ctxc eval --judge`
//! over the same inputs, strategies and model costs nothing. A request is the endpoint and the
//! whole body sent (model, prompt, limit), so any change to what would be asked asks again.
//!
//! One JSON file per reply, `DIR/xx/DIGEST.json` (xxh3-128 of the request: a cache key, not a
//! security boundary), written atomically; only replies that passed the checks are kept.
//! The default directory is the user's cache dir (`~/.cache/ctxc/judge` on Linux); deleting
//! it clears the cache.

use crate::human::Shown;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A reply as it was received, with what it cost then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The reply's text.
    pub reply: String,
    /// Prompt tokens it cost when it was asked.
    pub prompt_tokens: u64,
    /// Completion tokens it cost when it was asked.
    pub completion_tokens: u64,
}

/// The directory of cached replies.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The default directory: `ctxc/judge` in the user's cache dir.
    pub fn default_dir() -> Option<PathBuf> {
        dirs::cache_dir().map(|d| d.join("ctxc").join("judge"))
    }

    /// A cache in `dir`, created if missing.
    pub fn open(dir: &Path) -> Result<Cache> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the judge cache {}", dir.shown()))?;
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    /// The key of a request to `url` with `body`.
    pub fn key(url: &str, body: &serde_json::Value) -> String {
        let request = format!("{url}\n{body}");
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(request.as_bytes()))
    }

    /// The entry for `key`, if one was kept and reads.
    pub fn get(&self, key: &str) -> Option<Entry> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Keeps `entry` under `key`.
    pub fn put(&self, key: &str, entry: &Entry) -> Result<()> {
        let path = self.path(key);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.shown()))?;
        }
        crate::outputs::write_atomic(&path, &serde_json::to_vec(entry)?, None)
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_under_their_key() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("judge")).unwrap();
        let body = serde_json::json!({"model": "m", "messages": []});
        let key = Cache::key("http://127.0.0.1/v1/chat/completions", &body);
        assert_eq!(key.len(), 32);
        assert_ne!(key, Cache::key("http://127.0.0.1/v1/messages", &body));
        assert_eq!(cache.get(&key), None);
        let entry = Entry {
            reply: "1: 5 5 5 5 5 5".into(),
            prompt_tokens: 10,
            completion_tokens: 2,
        };
        cache.put(&key, &entry).unwrap();
        assert_eq!(cache.get(&key), Some(entry));
    }
}
