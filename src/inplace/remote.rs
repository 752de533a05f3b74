//! `--in-place` on an object: the same promises as for a local file, kept with what object
//! stores offer instead of locks and renames.
//! - the object is read once, with its ETag: the version that is compacted;
//! - the backup (`KEY` + suffix) is written from exactly the bytes read, only where no object is
//!   (`If-None-Match: *`); one that holds exactly those bytes already (a run interrupted after
//!   writing it) is kept as the backup, and a note says so; any other object there is never
//!   overwritten, and the input is refused;
//! - the compacted object replaces the input only while the input is still the version read
//!   (`If-Match` on its ETag): an object changed meanwhile — another writer, a second ctxc — is
//!   refused, naming it, and left as it is. A store that cannot write conditionally is refused
//!   the same way rather than overwritten blindly.

use crate::store::{self, Created, Meta, UpdateError, Url};
use anyhow::{Result, anyhow, bail};
use std::cell::RefCell;

/// An object read for replacing in place: its URL and the version read.
pub struct Claim {
    /// The object.
    pub url: Url,
    read: Meta,
    notes: RefCell<Vec<String>>,
}

/// Reads the object at `url` (at most `limit` bytes) with the version it is.
pub fn claim(url: &Url, limit: u64) -> Result<(Claim, Vec<u8>)> {
    if !url.scheme.writable() {
        bail!("--in-place cannot replace {url}: http(s):// URLs are read only");
    }
    let (bytes, read) = store::get(url, limit).map_err(|e| anyhow!("{}", e.0))?;
    if read.etag.is_none() {
        bail!(
            "{url}: the store gave no ETag for it, so a change made while ctxc works could not \
             be told: not compacted in place (use -o or --out-dir)"
        );
    }
    let claim = Claim {
        url: url.clone(),
        read,
        notes: RefCell::default(),
    };
    Ok((claim, bytes))
}

impl Claim {
    /// Writes `original` (the bytes read) to the key + `suffix`, only where no object is; an
    /// object there that holds exactly `original` is kept as the backup (and said so), any
    /// other refuses the input.
    pub fn backup(&self, suffix: &str, original: &[u8]) -> Result<Url> {
        let backup = self.url.with_suffix(suffix);
        match store::create(&backup, original)? {
            Created::New => Ok(backup),
            Created::Exists => {
                let same = store::get(&backup, original.len() as u64)
                    .is_ok_and(|(held, _)| held == original);
                if !same {
                    bail!(
                        "the backup {backup} exists: ctxc never overwrites a backup, and this one \
                         differs from the object (move it away or pick another --backup suffix); \
                         {} was left as it is",
                        self.url
                    );
                }
                self.notes.borrow_mut().push(format!(
                    "the backup {backup} was there already, byte for byte this object (left by \
                     an interrupted run?): kept as the backup"
                ));
                Ok(backup)
            }
        }
    }

    /// What the report should say about this object.
    pub fn notes(&self) -> Vec<String> {
        self.notes.borrow().clone()
    }

    /// Replaces the object with `bytes`, if it is still the version read.
    pub fn replace(&self, bytes: &[u8]) -> Result<()> {
        crate::failpoint::pause("remote-replace");
        match store::update(&self.url, bytes, &self.read) {
            Ok(_) => Ok(()),
            Err(UpdateError::Changed) => Err(anyhow!(
                "{} changed since ctxc read it (it is no longer version {}): left as it is, \
                 nothing lost",
                self.url,
                self.read.etag.as_deref().unwrap_or_default()
            )),
            Err(UpdateError::Unsupported(why)) => Err(anyhow!(
                "{}: the store does not support conditional writes ({why}), so a change made \
                 meanwhile could be overwritten: not replaced (use -o or --out-dir)",
                self.url
            )),
            Err(UpdateError::Other(e)) => Err(e),
        }
    }
}
