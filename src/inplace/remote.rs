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

use crate::human::Shown;
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
        bail!(
            "--in-place cannot replace {url}: http(s):// URLs are read only",
            url = url.shown()
        );
    }
    let (bytes, read) = store::get(url, limit).map_err(|e| anyhow!("{}", e.0))?;
    if read.etag.is_none() {
        bail!(
            "{url}: the store gave no ETag for it, so a change made while ctxc works could not \
             be told: not compacted in place (use -o or --out-dir)",
            url = url.shown()
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

    /// Replaces the object with `bytes`, if it is still the version read. A write whose
    /// outcome is unknown (its reply lost, or refused on a retry after it landed) is settled
    /// by reading back what the object holds: the output (done, and a note says so), the
    /// version read (failed: nothing changed), or neither, or what cannot be told.
    pub fn replace(&self, bytes: &[u8]) -> Result<(), ReplaceError> {
        crate::failpoint::pause("remote-replace");
        let (error, refused) = match store::update(&self.url, bytes, &self.read) {
            Ok(_) => return Ok(()),
            Err(UpdateError::Changed) => (
                anyhow!(
                    "{} changed since ctxc read it (it is no longer version {}): left as it is, \
                 nothing lost",
                    self.url,
                    self.read.etag.as_deref().unwrap_or_default()
                ),
                true,
            ),
            Err(UpdateError::Unsupported(why)) => {
                return Err(ReplaceError {
                    error: anyhow!(
                        "{}: the store does not support conditional writes ({why}), so a change \
                         made meanwhile could be overwritten: not replaced (use -o or --out-dir)",
                        self.url
                    ),
                    not_written: true,
                });
            }
            Err(UpdateError::Other(e)) => (e, false),
        };
        match self.holds_now(bytes) {
            Holds::Output => {
                self.notes.borrow_mut().push(format!(
                    "the store's answer to the write was lost ({error:#}); read back, {} holds \
                     the output: replaced",
                    self.url
                ));
                Ok(())
            }
            Holds::Original => Err(ReplaceError {
                error,
                not_written: true,
            }),
            // Refused (`412`): this write is not what the object holds, whether or not an
            // earlier try of it landed and was overwritten since.
            Holds::Other(_) if refused => Err(ReplaceError {
                error,
                not_written: true,
            }),
            Holds::Other(what) => Err(ReplaceError {
                error: error.context(format!(
                    "whether the write landed is not known: read back, {} {what}",
                    self.url
                )),
                not_written: false,
            }),
        }
    }

    /// What the object holds now, next to the version read and the output `bytes`.
    fn holds_now(&self, bytes: &[u8]) -> Holds {
        let meta = match store::head(&self.url) {
            Ok(Some(meta)) => meta,
            Ok(None) => return Holds::Other("is gone".into()),
            Err(e) => return Holds::Other(format!("could not be read back ({e:#})")),
        };
        if meta.etag.is_some() && meta.etag == self.read.etag {
            return Holds::Original;
        }
        if meta.size == bytes.len() as u64 {
            if meta.etag.as_deref() == Some(store::md5_etag(bytes).as_str()) {
                return Holds::Output;
            }
            match store::get(&self.url, meta.size) {
                Ok((held, _)) if held == bytes => return Holds::Output,
                Ok(_) => {}
                Err(e) => return Holds::Other(format!("could not be read back ({})", e.0)),
            }
        }
        Holds::Other("holds neither the version read nor the output (another writer?)".into())
    }
}

/// What an object holds after a write whose outcome was unknown.
enum Holds {
    Output,
    Original,
    /// Neither, or what could not be told: why.
    Other(String),
}

/// Why [`Claim::replace`] did not replace the object.
#[derive(Debug)]
pub struct ReplaceError {
    /// What to report.
    pub error: anyhow::Error,
    /// Whether the output is known not to be in place (the object holds the version read, or
    /// the store refused the write and holds something else): an archive record written for
    /// the replacement can then be put back. Otherwise it stays pending, for `restore` and the
    /// next run to settle against what the object holds.
    pub not_written: bool,
}
