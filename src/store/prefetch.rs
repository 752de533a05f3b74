//! Read-ahead for a batch of objects: while the CPU works on one transcript, the next ones are
//! already on their way, a few at a time and a bounded number of bytes ahead, so a run over a
//! bucket is not a run over request latencies.
//!
//! [`start`] registers the batch; [`take`] hands an object's bytes to the thread that reads it
//! (waiting for its request, or making it, when the read-ahead has not got there). An object
//! never taken (a file skipped before it is read) only holds back the read-ahead, never a
//! reader: each reader drives its own request when need be.

use super::{GetError, Meta, Url, client};
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Requests in flight at once.
const IN_FLIGHT: usize = 8;

/// Bytes fetched ahead of the readers, at most (but always at least one object).
const AHEAD: u64 = 64 << 20;

type Fetched = Result<Arc<(Vec<u8>, Meta)>, GetError>;

struct Entry {
    fetch: Shared<BoxFuture<'static, Fetched>>,
    /// The size the listing gave (an estimate for the budget).
    size: u64,
    /// (the read-ahead started it, a reader took it)
    state: Mutex<(bool, bool)>,
}

fn entries() -> &'static Mutex<HashMap<Url, Arc<Entry>>> {
    static ENTRIES: OnceLock<Mutex<HashMap<Url, Arc<Entry>>>> = OnceLock::new();
    ENTRIES.get_or_init(Mutex::default)
}

/// Bytes started by the read-ahead and not yet taken.
static AHEAD_NOW: AtomicU64 = AtomicU64::new(0);

/// Starts reading `urls` ahead, in this order, each capped at `limit` bytes.
pub fn start(urls: &[Url], limit: u64) {
    let mut batch = Vec::new();
    {
        let mut map = entries().lock().unwrap_or_else(|e| e.into_inner());
        for url in urls {
            let fetch = super::get_async(url.clone(), limit)
                .map(|got| got.map(Arc::new))
                .boxed()
                .shared();
            let entry = Arc::new(Entry {
                fetch,
                size: super::known_size(url).unwrap_or(super::PART_SIZE as u64),
                state: Mutex::new((false, false)),
            });
            map.insert(url.clone(), Arc::clone(&entry));
            batch.push(entry);
        }
    }
    client::spawn(async move {
        let slots = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
        for entry in batch {
            while AHEAD_NOW.load(Ordering::SeqCst) > 0
                && AHEAD_NOW.load(Ordering::SeqCst) + entry.size > AHEAD
            {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                return;
            };
            {
                let mut state = entry.state.lock().unwrap_or_else(|e| e.into_inner());
                if state.1 {
                    continue;
                }
                state.0 = true;
                AHEAD_NOW.fetch_add(entry.size, Ordering::SeqCst);
            }
            let fetch = entry.fetch.clone();
            tokio::spawn(async move {
                // The result stays with the entry (its other clone) until a reader takes it.
                let _ = fetch.await;
                drop(slot);
            });
        }
    });
}

/// The object at `url`, if it was registered for read-ahead: its bytes (waiting for them, or
/// fetching them now).
pub fn take(url: &Url) -> Option<Result<(Vec<u8>, Meta), GetError>> {
    let entry = entries()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(url)?;
    {
        let mut state = entry.state.lock().unwrap_or_else(|e| e.into_inner());
        state.1 = true;
        if state.0 {
            AHEAD_NOW.fetch_sub(entry.size, Ordering::SeqCst);
        }
    }
    let fetched = client::block_on(entry.fetch.clone());
    drop(entry);
    Some(fetched.map(|got| Arc::try_unwrap(got).unwrap_or_else(|got| (*got).clone())))
}
