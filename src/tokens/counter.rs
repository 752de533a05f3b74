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
                cache.get_or_count(text, || engine::count(self.encoding, text))
            }
            _ => engine::count(self.encoding, text),
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
    shards: [CachePadded<Mutex<Shard>>; CACHE_SHARDS],
}

impl Default for CountCache {
    fn default() -> Self {
        Self {
            shards: std::array::from_fn(|_| CachePadded::default()),
        }
    }
}

/// One shard's counts and its tally, kept under the shard's lock: shared hit and miss
/// counters would be one cache line that every count of every thread writes to.
#[derive(Default)]
struct Shard {
    counts: HashMap<u64, usize, BuildHasherDefault<HashIsKey>>,
    stats: CacheStats,
}

impl CountCache {
    fn get_or_count(&self, text: &str, count: impl FnOnce() -> usize) -> usize {
        let key = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        let shard = &self.shards[(key >> 58) as usize % CACHE_SHARDS];
        {
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(&n) = shard.counts.get(&key) {
                shard.stats.hits += 1;
                return n;
            }
            shard.stats.misses += 1;
        }
        // Counted outside the lock: two threads may both count a new text, which is harmless.
        let n = count();
        shard
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .counts
            .insert(key, n);
        n
    }

    fn stats(&self) -> CacheStats {
        let mut total = CacheStats::default();
        for shard in &self.shards {
            let stats = shard.lock().unwrap_or_else(PoisonError::into_inner).stats;
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
