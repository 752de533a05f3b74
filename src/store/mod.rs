//! Object storage (`s3://`, `gs://`, `az://`, read-only `https://`) for the synchronous CLI.
//!
//! The rest of ctxc never sees async code: this module owns the runtime and the clients
//! ([`client`]) and offers blocking calls — list a prefix, head, get (capped like a local read),
//! put (atomic), create (only where nothing is) and update (only while the object is still the
//! version that was read). Every error names the object's URL.
//!
//! **Atomic writes.** An object store shows an object only once its upload is complete, so a
//! single `PUT` is already atomic. Outputs larger than [`PART_SIZE`] go up as a multipart
//! upload, which becomes the object when it is completed; a failed upload is aborted. A
//! process killed mid-upload leaves an incomplete upload (billed, never visible at the key)
//! for the bucket's lifecycle rule to remove.
//!
//! **Conditional writes.** [`update`] sends `If-Match` with the ETag read: a store that holds
//! another version refuses, and ctxc reports the object as changed. A store that cannot do
//! conditional writes is named in the error; nothing is overwritten blindly.

mod aws_profile;
mod client;
mod prefetch;
mod raw_list;
mod url;

pub use prefetch::start as prefetch;

pub use url::{Scheme, Url};

use crate::human::Shown;
use anyhow::{Context, Result, anyhow, bail};
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::{
    Error as StoreError, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
};
use std::sync::Arc;

/// Uploads larger than this go up in parts of this size (S3's parts must be at least 5 MiB
/// but the last, and there are at most 10,000 of them: 80 GB, past any `--max-input-bytes`).
pub const PART_SIZE: usize = 8 << 20;

/// Parts of one upload in flight at once.
const PARTS_IN_FLIGHT: usize = 4;

/// What a store says about an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// Its size in bytes.
    pub size: u64,
    /// Its entity tag: the version a conditional write names.
    pub etag: Option<String>,
}

impl From<&object_store::ObjectMeta> for Meta {
    fn from(meta: &object_store::ObjectMeta) -> Meta {
        Meta {
            size: meta.size,
            etag: meta.e_tag.clone(),
        }
    }
}

/// The objects below `prefix` (a prefix URL, or a key taken as one), sorted by key; directory
/// markers (keys ending in `/`) left out, and so are the keys this client cannot address
/// ([`Listing::odd`]).
pub fn list(prefix: &Url) -> Result<Vec<(Url, Meta)>> {
    let listed = list_with_times(prefix)?;
    Ok(listed
        .into_iter()
        .map(|(url, meta, _)| (url, meta))
        .collect())
}

/// [`list`], with each object's last-modified time in seconds since the epoch (what a session
/// store in a bucket orders its sessions by).
pub fn list_with_times(prefix: &Url) -> Result<Vec<(Url, Meta, u64)>> {
    Ok(listing(prefix)?.objects)
}

/// What a listing found.
#[derive(Debug, Default)]
pub struct Listing {
    /// The objects, with their last-modified times, sorted by key.
    pub objects: Vec<(Url, Meta, u64)>,
    /// Objects whose keys this client cannot address exactly (an empty segment, a `.` or `..`
    /// segment, a control character): never read, and never written, since the client would
    /// send another key, another object's. Sorted; each with why ([`odd_key`]).
    pub odd: Vec<Url>,
}

/// Why the client cannot address `url`'s key, for a message that names it.
pub fn odd_key(url: &Url) -> String {
    format!(
        "{}, which this client cannot address exactly (it would read or write another key): \
         skipped",
        raw_list::why_odd(&url.key)
    )
}

/// [`list_with_times`], and the keys it leaves out. object_store's listing fails as a whole
/// on one key it cannot address; on S3 the prefix is then listed again by hand, keeping
/// every key raw ([`raw_list`]), so that one odd key does not stop the prefix.
pub fn listing(prefix: &Url) -> Result<Listing> {
    let prefix = prefix.as_prefix();
    let store = client::store(&prefix)?;
    let key = client::key(&prefix)?;
    let key = (!prefix.key.is_empty()).then_some(key);
    let listed: Vec<object_store::ObjectMeta> =
        match client::block_on(store.list(key.as_ref()).try_collect()) {
            Ok(listed) => listed,
            Err(e @ StoreError::InvalidPath { .. }) => match client::s3(&prefix)? {
                Some(s3) => return raw_listing(&s3, &prefix),
                None => return Err(explain(&e, &prefix, "listing")),
            },
            Err(e) => return Err(explain(&e, &prefix, "listing")),
        };
    let objects = listed
        .iter()
        .filter(|m| !m.location.as_ref().ends_with('/'))
        .map(|m| {
            let url = Url {
                key: m.location.as_ref().to_string(),
                ..prefix.clone()
            };
            let modified = u64::try_from(m.last_modified.timestamp()).unwrap_or(0);
            (url, Meta::from(m), modified)
        })
        .collect();
    Ok(sorted(Listing {
        objects,
        odd: Vec::new(),
    }))
}

/// The S3 listing of `prefix` by raw keys, split into what the client addresses and not.
fn raw_listing(s3: &client::S3, prefix: &Url) -> Result<Listing> {
    let raw = client::block_on(raw_list::list(s3, &prefix.key))
        .map_err(|e| anyhow!("listing {prefix}: {e:#}"))?;
    let mut listing = Listing::default();
    for object in raw.into_iter().filter(|o| !o.key.ends_with('/')) {
        let url = Url {
            key: object.key.clone(),
            ..prefix.clone()
        };
        if raw_list::addressable(&object.key) {
            let meta = Meta {
                size: object.size,
                etag: object.etag,
            };
            listing.objects.push((url, meta, object.modified));
        } else {
            listing.odd.push(url);
        }
    }
    Ok(sorted(listing))
}

/// `listing` sorted by key, its sizes remembered (see [`listed`]).
fn sorted(mut listing: Listing) -> Listing {
    listing.objects.sort_by(|a, b| a.0.cmp(&b.0));
    listing.odd.sort();
    remember_sizes(&listing.objects);
    listing
}

/// The sizes and ETags listings gave: the read-ahead's budget, and what a read must bring.
type Listed = std::sync::Mutex<std::collections::HashMap<Url, (u64, Option<String>)>>;

fn sizes() -> &'static Listed {
    static SIZES: std::sync::OnceLock<Listed> = std::sync::OnceLock::new();
    SIZES.get_or_init(Default::default)
}

fn remember_sizes(listed: &[(Url, Meta, u64)]) {
    let mut sizes = sizes().lock().unwrap_or_else(|e| e.into_inner());
    for (url, meta, _) in listed {
        sizes.insert(url.clone(), (meta.size, meta.etag.clone()));
    }
}

fn known_size(url: &Url) -> Option<u64> {
    listed(url).map(|(size, _)| size)
}

/// The size and ETag a listing gave for `url`.
fn listed(url: &Url) -> Option<(u64, Option<String>)> {
    let sizes = sizes().lock().unwrap_or_else(|e| e.into_inner());
    sizes.get(url).cloned()
}

/// The objects of `prefix`'s bucket whose keys start with its key (not only whole segments),
/// as a set: what [`head`] would find, for many keys in one request.
pub fn keys_below(prefix: &Url) -> Result<std::collections::HashSet<Url>> {
    let dir = prefix.with_file_name("");
    let listed = list(&dir)?;
    Ok(listed
        .into_iter()
        .map(|(url, _)| url)
        .filter(|url| url.key.starts_with(&prefix.key))
        .collect())
}

/// What is at `url`: `None` when no object is there.
pub fn head(url: &Url) -> Result<Option<Meta>> {
    let store = client::store(url)?;
    let key = client::key(url)?;
    match client::block_on(store.head(&key)) {
        Ok(meta) => Ok(Some(Meta::from(&meta))),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(explain(&e, url, "reading")),
    }
}

/// Why an object could not be read, with the message to print after its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetError(pub String);

/// The bytes of the object at `url` and the version they are, refused without reading them
/// when the store says it is larger than `limit` (and, should it grow while read, past it).
pub fn get(url: &Url, limit: u64) -> Result<(Vec<u8>, Meta), GetError> {
    match prefetch::take(url) {
        Some(fetched) => fetched,
        None => client::block_on(get_async(url.clone(), limit)),
    }
}

/// Reads of one object tried before a read that keeps coming back short fails it.
const READ_TRIES: usize = 3;

/// [`get`], as a future that owns what it needs: retried while the bytes received fall short
/// of what the store says the object holds ([`whole`]), then failed.
async fn get_async(url: Url, limit: u64) -> Result<(Vec<u8>, Meta), GetError> {
    let mut short = String::new();
    for _ in 0..READ_TRIES {
        let (bytes, meta) = get_once(&url, limit).await?;
        match whole(&url, bytes.len() as u64, &md5_etag(&bytes), &meta).await {
            Ok(()) => return Ok((bytes, meta)),
            Err(why) => short = why,
        }
    }
    Err(GetError(cut_short(&short)))
}

/// The error of a read that came back short every time.
fn cut_short(why: &str) -> String {
    format!("{why}, on each of {READ_TRIES} reads: not read (a read cut short is never compacted)")
}

/// One read of the object at `url`.
async fn get_once(url: &Url, limit: u64) -> Result<(Vec<u8>, Meta), GetError> {
    let store = client::store(url).map_err(|e| GetError(format!("{e:#}")))?;
    let key = client::key(url).map_err(|e| GetError(format!("{e:#}")))?;
    let fail = |e: StoreError| {
        GetError(match e {
            StoreError::NotFound { .. } => "no such object".to_string(),
            e => format!("{:#}", explain(&e, url, "reading")),
        })
    };
    let got = store.get(&key).await.map_err(fail)?;
    let meta = Meta::from(&got.meta);
    if meta.size > limit {
        return Err(GetError(format!(
            "larger than --max-input-bytes ({limit} bytes): {} bytes, not read",
            meta.size
        )));
    }
    let mut bytes = Vec::with_capacity(meta.size as usize);
    let mut body = got.into_stream();
    while let Some(chunk) = body.next().await {
        bytes.extend_from_slice(&chunk.map_err(fail)?);
        if bytes.len() as u64 > limit {
            return Err(GetError(format!(
                "larger than --max-input-bytes ({limit} bytes): the rest was not read"
            )));
        }
    }
    Ok((bytes, meta))
}

/// Whether `read` bytes with this MD5 (as an ETag) are the whole object the read's `meta`
/// names: the size its listing gave (same version), its ETag when that is a single `PUT`'s
/// MD5, and otherwise what a `HEAD` says. An ETag that is no MD5 (SSE-KMS) is not taken as
/// a short read while the size agrees. `Err`: what was received against what is there.
async fn whole(url: &Url, read: u64, md5: &str, meta: &Meta) -> Result<(), String> {
    let short = |size: u64, from: &str| {
        Err(format!(
            "{read} bytes received, but {from} says the object holds {size}"
        ))
    };
    if let Some((size, _)) = listed(url).filter(|(_, etag)| *etag == meta.etag) {
        return if size == read {
            Ok(())
        } else {
            short(size, "its listing")
        };
    }
    if meta.etag.as_deref() == Some(md5) {
        return Ok(());
    }
    let store = client::store(url).map_err(|e| format!("{e:#}"))?;
    let key = client::key(url).map_err(|e| format!("{e:#}"))?;
    match store.head(&key).await {
        Ok(now) if now.e_tag == meta.etag && now.size != read => short(now.size, "HEAD"),
        // Another version since (or a server whose HEAD names versions otherwise), or no
        // HEAD: nothing more to tell by.
        _ => Ok(()),
    }
}

/// The first `n` bytes of the object at `url` (fewer when it is shorter); `None` when no
/// object is there.
pub fn head_bytes(url: &Url, n: u64) -> Result<Option<Vec<u8>>> {
    let Some(meta) = head(url)? else {
        return Ok(None);
    };
    let store = client::store(url)?;
    let key = client::key(url)?;
    let end = n.min(meta.size);
    if end == 0 {
        return Ok(Some(Vec::new()));
    }
    match client::block_on(store.get_range(&key, 0..end)) {
        Ok(bytes) => Ok(Some(bytes.to_vec())),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(explain(&e, url, "reading")),
    }
}

/// The object at `url`, streamed into an unnamed temporary file (read back from its start),
/// with the version it is: for what may not fit in memory (a dataset). Retried, then failed,
/// while the bytes received fall short of the object (see `whole`).
pub fn download(url: &Url) -> Result<(std::fs::File, Meta)> {
    use std::io::Seek;
    let mut short = String::new();
    for _ in 0..READ_TRIES {
        let mut file = tempfile::tempfile().context("creating a temporary file")?;
        let (read, md5, meta) = client::block_on(download_once(url, &mut file))?;
        match client::block_on(whole(url, read, &md5, &meta)) {
            Ok(()) => {
                file.rewind()?;
                return Ok((file, meta));
            }
            Err(why) => short = why,
        }
    }
    bail!("reading {url}: {}", cut_short(&short), url = url.shown())
}

/// One read of the object at `url` into `file`: the bytes received, their MD5 (as an ETag)
/// and the version read.
async fn download_once(url: &Url, file: &mut std::fs::File) -> Result<(u64, String, Meta)> {
    use md5::Digest;
    use std::io::Write;
    let store = client::store(url)?;
    let key = client::key(url)?;
    let got = store
        .get(&key)
        .await
        .map_err(|e| explain(&e, url, "reading"))?;
    let meta = Meta::from(&got.meta);
    let mut body = got.into_stream();
    let (mut read, mut md5) = (0u64, md5::Md5::new());
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| explain(&e, url, "reading"))?;
        md5.update(&chunk);
        read += chunk.len() as u64;
        file.write_all(&chunk)
            .with_context(|| format!("reading {url} into a temporary file", url = url.shown()))?;
    }
    Ok((read, format!("\"{:x}\"", md5.finalize()), meta))
}

/// Removes the object at `url` (nothing there is not an error).
pub fn delete(url: &Url) -> Result<()> {
    writable(url)?;
    let store = client::store(url)?;
    let key = client::key(url)?;
    match client::block_on(store.delete(&key)) {
        Ok(()) | Err(StoreError::NotFound { .. }) => Ok(()),
        Err(e) => Err(explain(&e, url, "removing")),
    }
}

/// Writes `bytes` to `url`, replacing what is there; the object appears only once complete
/// (multipart above [`PART_SIZE`], aborted on failure).
pub fn put(url: &Url, bytes: &[u8]) -> Result<Meta> {
    writable(url)?;
    let store = client::store(url)?;
    client::block_on(put_async(store, url.clone(), Bytes::copy_from_slice(bytes)))
}

/// [`put`], as a future that owns what it needs.
async fn put_async(store: Arc<dyn ObjectStore>, url: Url, bytes: Bytes) -> Result<Meta> {
    let key = client::key(&url)?;
    let size = bytes.len() as u64;
    let written = if bytes.len() <= PART_SIZE {
        store
            .put_opts(&key, PutPayload::from(bytes), PutOptions::default())
            .await
            .map_err(|e| explain(&e, &url, "writing"))?
    } else {
        let parts = (0..bytes.len()).step_by(PART_SIZE).map(|at| {
            Ok(PutPayload::from(
                bytes.slice(at..bytes.len().min(at + PART_SIZE)),
            ))
        });
        multipart(&*store, &key, parts)
            .await
            .with_context(|| format!("writing {url}", url = url.shown()))?
    };
    crate::failpoint::hit("remote-put");
    Ok(Meta {
        size,
        etag: written.e_tag,
    })
}

/// Uploads started by [`put_later`] and not finished, at most.
const UPLOADS_IN_FLIGHT: usize = 8;

/// Bytes of the uploads started by [`put_later`] and not finished, at most (but always at
/// least one upload), in KiB.
const UPLOAD_KIB: u32 = 64 << 10;

/// An upload under way in the background ([`put_later`]).
pub struct Upload {
    task: tokio::task::JoinHandle<Result<Meta>>,
}

impl Upload {
    /// Whether it is over, one way or the other ([`Upload::wait`] will not wait).
    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Waits until it is over: the object's version, or why nothing was written.
    pub fn wait(self) -> Result<Meta> {
        match client::block_on(self.task) {
            Ok(written) => written,
            Err(e) => Err(anyhow!("the upload stopped: {e}")),
        }
    }
}

/// Starts writing `bytes` to `url` as [`put`] does, in the background, and returns once the
/// upload is under way: what the caller does next overlaps it. When
/// [`UPLOADS_IN_FLIGHT`] uploads or 64 MiB are under way already, it waits for room first, so
/// memory holds a bounded number of outputs. The object still appears only once complete.
pub fn put_later(url: &Url, bytes: Vec<u8>) -> Result<Upload> {
    use tokio::sync::Semaphore;
    static COUNT: Semaphore = Semaphore::const_new(UPLOADS_IN_FLIGHT);
    static KIB: Semaphore = Semaphore::const_new(UPLOAD_KIB as usize);
    writable(url)?;
    let store = client::store(url)?;
    let kib = u32::try_from(bytes.len().div_ceil(1024))
        .unwrap_or(u32::MAX)
        .clamp(1, UPLOAD_KIB);
    let permits = client::block_on(async {
        let count = COUNT.acquire().await?;
        let kib = KIB.acquire_many(kib).await?;
        Ok::<_, tokio::sync::AcquireError>((count, kib))
    })
    .map_err(|e| anyhow!("writing {url}: {e}", url = url.shown()))?;
    let url = url.clone();
    let task = client::spawn_task(async move {
        let written = put_async(store, url, Bytes::from(bytes)).await;
        drop(permits);
        written
    });
    Ok(Upload { task })
}

/// Writes what `file` holds (from its start) to `url` like [`put`], reading it a part at a
/// time: memory holds the parts in flight, not the file.
pub fn put_file(url: &Url, file: &mut std::fs::File) -> Result<Meta> {
    use std::io::{Read, Seek};
    writable(url)?;
    let store = client::store(url)?;
    let key = client::key(url)?;
    let size = file.metadata()?.len();
    file.rewind()?;
    let parts = std::iter::from_fn(|| {
        let mut part = Vec::with_capacity(PART_SIZE);
        match (&mut *file).take(PART_SIZE as u64).read_to_end(&mut part) {
            Ok(0) => None,
            Ok(_) => Some(Ok(PutPayload::from(Bytes::from(part)))),
            Err(e) => Some(Err(e)),
        }
    });
    let written = if size <= PART_SIZE as u64 {
        let mut all = Vec::with_capacity(size as usize);
        file.read_to_end(&mut all)?;
        client::block_on(store.put_opts(&key, payload(&all), PutOptions::default()))
            .map_err(|e| explain(&e, url, "writing"))?
    } else {
        client::block_on(multipart(&*store, &key, parts))
            .with_context(|| format!("writing {url}", url = url.shown()))?
    };
    crate::failpoint::hit("remote-put");
    Ok(Meta {
        size,
        etag: written.e_tag,
    })
}

/// Whether [`create`] wrote the object or found one there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// Written.
    New,
    /// Something was there already; nothing was written.
    Exists,
}

/// Writes `bytes` to `url` only if no object is there (`If-None-Match: *`).
pub fn create(url: &Url, bytes: &[u8]) -> Result<Created> {
    writable(url)?;
    let store = client::store(url)?;
    let key = client::key(url)?;
    let opts = PutOptions::from(PutMode::Create);
    match client::block_on(store.put_opts(&key, payload(bytes), opts)) {
        Ok(_) => Ok(Created::New),
        Err(StoreError::AlreadyExists { .. } | StoreError::Precondition { .. }) => {
            Ok(Created::Exists)
        }
        Err(e @ (StoreError::NotImplemented { .. } | StoreError::NotSupported { .. })) => {
            Err(anyhow!(
                "{url}: this store does not support conditional writes ({e}), so ctxc cannot \
                 write without risking an overwrite",
                url = url.shown()
            ))
        }
        Err(e) => Err(explain(&e, url, "writing")),
    }
}

/// Why [`update`] did not write.
#[derive(Debug)]
pub enum UpdateError {
    /// The object is no longer the version read (or is gone).
    Changed,
    /// The store cannot write conditionally (or gave no ETag to condition on).
    Unsupported(String),
    /// Anything else.
    Other(anyhow::Error),
}

/// Replaces the object at `url` with `bytes` only while it is still the version `read`
/// (`If-Match` on its ETag). One `PUT`: up to the store's single-upload size (5 GiB on S3).
pub fn update(url: &Url, bytes: &[u8], read: &Meta) -> Result<Meta, UpdateError> {
    writable(url).map_err(UpdateError::Other)?;
    let Some(etag) = read.etag.clone() else {
        return Err(UpdateError::Unsupported(
            "the store gave no ETag when the object was read".into(),
        ));
    };
    let store = client::store(url).map_err(UpdateError::Other)?;
    let key = client::key(url).map_err(UpdateError::Other)?;
    let mode = PutMode::Update(object_store::UpdateVersion {
        e_tag: Some(etag),
        version: None,
    });
    match client::block_on(store.put_opts(&key, payload(bytes), PutOptions::from(mode))) {
        Ok(written) => Ok(Meta {
            size: bytes.len() as u64,
            etag: written.e_tag,
        }),
        Err(StoreError::Precondition { .. } | StoreError::NotFound { .. }) => {
            Err(UpdateError::Changed)
        }
        Err(e @ (StoreError::NotImplemented { .. } | StoreError::NotSupported { .. })) => {
            Err(UpdateError::Unsupported(e.to_string()))
        }
        Err(e) => Err(UpdateError::Other(explain(&e, url, "writing"))),
    }
}

/// The ETag a store gives an object written in one `PUT` (without SSE-KMS): its bytes' MD5,
/// in hex, quoted.
pub fn md5_etag(bytes: &[u8]) -> String {
    use md5::Digest;
    format!("\"{:x}\"", md5::Md5::digest(bytes))
}

fn writable(url: &Url) -> Result<()> {
    if !url.scheme.writable() {
        bail!(
            "{url}: http(s):// URLs are read only: write to s3://, gs:// or az://",
            url = url.shown()
        );
    }
    Ok(())
}

fn payload(bytes: &[u8]) -> PutPayload {
    PutPayload::from(Bytes::copy_from_slice(bytes))
}

/// Uploads `parts` (in order), a few at a time, and completes the upload; any failure aborts
/// it, so that nothing partial is ever kept.
async fn multipart(
    store: &dyn ObjectStore,
    key: &object_store::path::Path,
    parts: impl Iterator<Item = std::io::Result<PutPayload>>,
) -> Result<object_store::PutResult> {
    let mut upload = store.put_multipart(key).await?;
    let done = upload_parts(&mut *upload, parts).await;
    let done = match done {
        Ok(()) => upload.complete().await.map_err(anyhow::Error::new),
        Err(e) => Err(e),
    };
    match done {
        Ok(result) => Ok(result),
        Err(e) => {
            let error = e.context("the multipart upload failed and was aborted");
            match upload.abort().await {
                Ok(()) => Err(error),
                Err(abort) => Err(error.context(format!(
                    "the incomplete upload could not be aborted either ({abort}): it is not \
                     visible at the key; the bucket's lifecycle rule removes it"
                ))),
            }
        }
    }
}

/// Sends every part, at most [`PARTS_IN_FLIGHT`] at a time; stops at the first failure.
async fn upload_parts(
    upload: &mut dyn object_store::MultipartUpload,
    mut parts: impl Iterator<Item = std::io::Result<PutPayload>>,
) -> Result<()> {
    let mut in_flight = futures_util::stream::FuturesOrdered::new();
    loop {
        while in_flight.len() < PARTS_IN_FLIGHT {
            match parts.next() {
                Some(part) => in_flight.push_back(upload.put_part(part?)),
                None => break,
            }
        }
        match in_flight.next().await {
            Some(sent) => sent?,
            None => return Ok(()),
        }
        crate::failpoint::hit("upload-part");
    }
}

/// An `object_store` error as ctxc words it: what was being done, on which object.
fn explain(e: &StoreError, url: &Url, doing: &str) -> anyhow::Error {
    if let Some(why) = client::no_credentials(e) {
        return anyhow!("{doing} {url}: {why}", url = url.shown());
    }
    if e.to_string().contains("NoSuchBucket") {
        return anyhow!(
            "{doing} {url}: no such bucket: {}",
            url.bucket,
            url = url.shown()
        );
    }
    match e {
        // A write finds no bucket; a read, no object (or no bucket: S3 says which, in `e`).
        StoreError::NotFound { .. } if doing == "writing" => {
            anyhow!(
                "{doing} {url}: no such bucket ({})",
                client::first_line(&e.to_string()),
                url = url.shown()
            )
        }
        StoreError::NotFound { .. } => anyhow!("{doing} {url}: no such object", url = url.shown()),
        StoreError::Precondition { .. } => {
            anyhow!(
                "{doing} {url}: the object changed meanwhile ({e})",
                url = url.shown()
            )
        }
        _ => anyhow!("{doing} {url}: {e}", url = url.shown()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_holding_a_newline_is_named_escaped() {
        let url = Url::detect("s3://b/in/a\nctxc: ok.jsonl").unwrap().unwrap();
        let gone = StoreError::NotFound {
            path: url.key.clone(),
            source: "gone".into(),
        };
        assert_eq!(
            explain(&gone, &url, "reading").to_string(),
            r"reading s3://b/in/a\nctxc: ok.jsonl: no such object"
        );
    }
    use object_store::memory::InMemory;

    fn parts(texts: &[Option<&str>]) -> impl Iterator<Item = std::io::Result<PutPayload>> {
        let parts: Vec<_> = texts
            .iter()
            .map(|t| match t {
                Some(text) => Ok(payload(text.as_bytes())),
                None => Err(std::io::Error::other("the disk went away")),
            })
            .collect();
        parts.into_iter()
    }

    #[test]
    fn a_multipart_upload_appears_whole_or_not_at_all() {
        let store = InMemory::new();
        let key = object_store::path::Path::from("out/a.jsonl");
        let failed = parts(&[Some("one "), None, Some("three")]);
        let err = client::block_on(multipart(&store, &key, failed)).unwrap_err();
        assert!(
            format!("{err:#}").contains("failed and was aborted"),
            "{err:#}"
        );
        assert!(
            client::block_on(store.head(&key)).is_err(),
            "nothing at the key"
        );
        let whole = parts(&[Some("one "), Some("two "), Some("three")]);
        client::block_on(multipart(&store, &key, whole)).unwrap();
        let got = client::block_on(async { store.get(&key).await?.bytes().await }).unwrap();
        assert_eq!(&got[..], b"one two three");
    }
}
