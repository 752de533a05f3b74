//! [`TokenCounter`]: one per run, shared by reference across threads, with the content-hash
//! cache in front of the engines (see the module header of [`crate::tokens`]).

use super::*;
use crossbeam_utils::CachePadded;

/// Counts tokens for one encoding. Build one per run and share it by reference.
///
/// `Sync`: the heavy tokenizer state lives in per-thread and process-wide statics, the cache
/// behind sharded locks.
pub struct TokenCounter {
    encoding: Encoding,
    cache: Option<CountCache>,
}

/// How the content-hash cache has been used since the counter was built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to tokenize.
    pub misses: u64,
}

impl TokenCounter {
    /// A counter with the content-hash cache. Fails if the tokenizer cannot be built.
    pub fn new(encoding: Encoding) -> Result<Self> {
        Self::build(encoding, true)
    }

    /// A counter that tokenizes every text, for tests and measurements.
    pub fn without_cache(encoding: Encoding) -> Result<Self> {
        Self::build(encoding, false)
    }

    fn build(encoding: Encoding, cached: bool) -> Result<Self> {
        engine::prepare(encoding).with_context(|| format!("building the {encoding} tokenizer"))?;
        Ok(Self {
            encoding,
            cache: cached.then(CountCache::default),
        })
    }

    /// Number of tokens in `text`. Special tokens such as `<|endoftext|>` count as ordinary
    /// text. Never panics, whatever the size or content of `text`.
    pub fn count(&self, text: &str) -> usize {
        match &self.cache {
            Some(cache) if text.len() >= CACHE_MIN_BYTES => {
                cache.get_or_count(text, |text| engine::count(self.encoding, text))
            }
            _ => engine::count(self.encoding, text),
        }
    }

    /// Tokens of each of `texts`, in order: what [`count`](Self::count) gives for each.
    ///
    /// Threads that read copies of one file at once (a corpus shipped twice, a session and
    /// its fork) meet the same texts at about the same moment. Here a text that another
    /// thread is tokenizing right now is passed over and taken from the cache at the end,
    /// while this thread tokenizes the texts after it: two threads on one file then share
    /// its new texts instead of each tokenizing all of them.
    pub fn count_all(&self, texts: &[&str]) -> Vec<usize> {
        match &self.cache {
            Some(cache) => cache.count_all(texts, |text| engine::count(self.encoding, text)),
            None => texts
                .iter()
                .map(|text| engine::count(self.encoding, text))
                .collect(),
        }
    }

    /// The encoding this counter counts with.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Whether counts are exact tokenizer counts (false for [`Encoding::Estimate`]).
    pub fn is_exact(&self) -> bool {
        self.encoding.is_exact()
    }

    /// Tokens the chat format adds per message ([`TOKENS_PER_MESSAGE`]); add
    /// [`TOKENS_PER_REPLY`] once per conversation.
    pub fn message_overhead(&self) -> usize {
        TOKENS_PER_MESSAGE
    }

    /// Cache hits and misses so far (all zero without a cache).
    pub fn cache_stats(&self) -> CacheStats {
        self.cache
            .as_ref()
            .map(CountCache::stats)
            .unwrap_or_default()
    }
}

const CACHE_SHARDS: usize = 64;

/// xxh3-64 of a text → its token count, in shards so threads rarely wait on one lock, each
/// on its own cache line so that one shard's writes do not stall readers of its neighbours.
struct CountCache {
    shards: [CachePadded<(Mutex<Shard>, Condvar)>; CACHE_SHARDS],
}

impl Default for CountCache {
    fn default() -> Self {
        Self {
            shards: std::array::from_fn(|_| CachePadded::default()),
        }
    }
}

/// A text a thread that needs its count now waits for, when another thread is tokenizing
/// it, rather than tokenizing it too; shorter ones take less time to count than to wait for.
const WAIT_MIN_BYTES: usize = 4096;

/// A text's entry: its count, or a claim by the thread tokenizing it now.
#[derive(Clone, Copy)]
enum Entry {
    Counted(usize),
    Claimed,
}

/// What the cache says of a text.
enum Lookup {
    Counted(usize),
    /// Another thread is tokenizing it.
    Claimed,
    /// Now claimed by the caller, who must [`CountCache::settle`] it.
    Missing,
}

/// One shard's counts and its tally, kept under the shard's lock: shared hit and miss
/// counters would be one cache line that every count of every thread writes to.
#[derive(Default)]
struct Shard {
    entries: HashMap<u64, Entry, BuildHasherDefault<HashIsKey>>,
    stats: CacheStats,
    /// Threads waiting on the shard's condition variable for a claimed text.
    waiting: usize,
}

impl CountCache {
    fn get_or_count(&self, text: &str, count: impl FnOnce(&str) -> usize) -> usize {
        let key = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        match self.lookup(key) {
            Lookup::Counted(n) => n,
            Lookup::Missing => self.settle(key, count(text)),
            Lookup::Claimed if text.len() >= WAIT_MIN_BYTES => self.wait_for(key, text, count),
            // Counted alongside the claimer: the same number either way.
            Lookup::Claimed => count(text),
        }
    }

    fn count_all(&self, texts: &[&str], count: impl Fn(&str) -> usize) -> Vec<usize> {
        let mut counts = vec![0; texts.len()];
        let mut passed_over = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            if text.len() < CACHE_MIN_BYTES {
                counts[i] = count(text);
                continue;
            }
            let key = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
            counts[i] = match self.lookup(key) {
                Lookup::Counted(n) => n,
                Lookup::Missing => self.settle(key, count(text)),
                Lookup::Claimed => {
                    passed_over.push((i, key));
                    continue;
                }
            };
        }
        for (i, key) in passed_over {
            counts[i] = self.wait_for(key, texts[i], &count);
        }
        counts
    }

    fn shard(&self, key: u64) -> &(Mutex<Shard>, Condvar) {
        &self.shards[(key >> 58) as usize % CACHE_SHARDS]
    }

    /// The entry of `key`; a missing one is claimed for the caller.
    fn lookup(&self, key: u64) -> Lookup {
        let mut shard = self
            .shard(key)
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match shard.entries.get(&key) {
            Some(&Entry::Counted(n)) => {
                shard.stats.hits += 1;
                Lookup::Counted(n)
            }
            Some(Entry::Claimed) => Lookup::Claimed,
            None => {
                shard.stats.misses += 1;
                shard.entries.insert(key, Entry::Claimed);
                Lookup::Missing
            }
        }
    }

    /// Records the count of a text the caller claimed, and wakes whoever waits for it.
    fn settle(&self, key: u64, n: usize) -> usize {
        let (lock, ready) = self.shard(key);
        let mut shard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        shard.entries.insert(key, Entry::Counted(n));
        if shard.waiting > 0 {
            ready.notify_all();
        }
        n
    }

    /// The count of a text another thread claimed, once it is there. Tokenizing never blocks,
    /// so every claim is settled and the wait ends; were the claimer to unwind, its claim
    /// would stay, so the text is counted here after a while rather than waited for forever.
    fn wait_for(&self, key: u64, text: &str, count: impl FnOnce(&str) -> usize) -> usize {
        let (lock, ready) = self.shard(key);
        let mut shard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        loop {
            if let Some(&Entry::Counted(n)) = shard.entries.get(&key) {
                shard.stats.hits += 1;
                return n;
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                drop(shard);
                return count(text);
            }
            shard.waiting += 1;
            shard = ready
                .wait_timeout(shard, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            shard.waiting -= 1;
        }
    }

    fn stats(&self) -> CacheStats {
        let mut total = CacheStats::default();
        for shard in &self.shards {
            let stats = shard.0.lock().unwrap_or_else(PoisonError::into_inner).stats;
            total.hits += stats.hits;
            total.misses += stats.misses;
        }
        total
    }
}

/// The keys are already xxh3 hashes, so the map uses them as they are.
#[derive(Default)]
struct HashIsKey(u64);

impl Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
