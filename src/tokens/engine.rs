//! The tokenizers behind [`TokenCounter`].

use super::*;

/// Builds what `encoding` needs so that errors surface in [`TokenCounter::new`].
pub(super) fn prepare(encoding: Encoding) -> Result<()> {
    match encoding {
        Encoding::O200kBase | Encoding::Cl100kBase => bpe::prepare(encoding),
        Encoding::P50kBase | Encoding::R50kBase => tiktoken(encoding).map(|_| ()),
        Encoding::Estimate => Ok(()),
    }
}

pub(super) fn count(encoding: Encoding, text: &str) -> usize {
    match encoding {
        Encoding::O200kBase | Encoding::Cl100kBase => bpe::count(encoding, text),
        Encoding::P50kBase | Encoding::R50kBase => match tiktoken(encoding) {
            Ok(core) => count_tiktoken(core, text),
            Err(_) => super::estimate::count(text),
        },
        Encoding::Estimate => super::estimate::count(text),
    }
}

static P50K: OnceLock<CoreBPE> = OnceLock::new();
static R50K: OnceLock<CoreBPE> = OnceLock::new();

fn tiktoken(encoding: Encoding) -> Result<&'static CoreBPE> {
    let (cell, build): (_, fn() -> Result<CoreBPE>) = match encoding {
        Encoding::P50kBase => (&P50K, tiktoken_rs::p50k_base),
        _ => (&R50K, tiktoken_rs::r50k_base),
    };
    if let Some(core) = cell.get() {
        return Ok(core);
    }
    let core = build()?;
    Ok(cell.get_or_init(|| core))
}

/// Chunks tried after a whole-text failure; each failing chunk is retried 8× smaller.
const FIRST_CHUNK: usize = 64 * 1024;
const MIN_CHUNK: usize = 256;

pub(super) fn count_tiktoken(core: &CoreBPE, text: &str) -> usize {
    let no_special = HashSet::new();
    core.count(text, &no_special)
        .unwrap_or_else(|_| count_chunked(core, text, FIRST_CHUNK, &no_special))
}

fn count_chunked(core: &CoreBPE, text: &str, max: usize, no_special: &HashSet<&str>) -> usize {
    chunks(text, max)
        .map(|chunk| match core.count(chunk, no_special) {
            Ok(n) => n,
            Err(_) if max > MIN_CHUNK => count_chunked(core, chunk, max / 8, no_special),
            Err(_) => super::estimate::count(chunk),
        })
        .sum()
}

/// Splits `text` into pieces of at most `max` bytes (one char more at worst), preferably
/// just before a space that follows a non-space: every encoding's pre-tokenizer cuts
/// there too, so counting the pieces separately gives the exact total.
pub(super) fn chunks(text: &str, max: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = chunk_end(rest, max);
        let (chunk, tail) = rest.split_at(cut);
        rest = tail;
        Some(chunk)
    })
}

fn chunk_end(text: &str, max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let bytes = text.as_bytes();
    let after_non_space = |i: usize| {
        text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
    };
    let exact = (1..=max)
        .rev()
        .find(|&i| bytes[i] == b' ' && after_non_space(i));
    exact.unwrap_or_else(|| {
        (max..=text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len())
    })
}

/// o200k and cl100k: tables read in place from the binary ([`super::table`]), one
/// pre-tokenizer regex per process, a search cache and scratch buffers per thread.
mod bpe {
    use super::*;
    use crate::tokens::table::{Scratch, Splitter, Table};
    use regex_automata::hybrid::dfa::Cache;
    use std::cell::RefCell;

    // The pre-tokenizers of bpe-openai 0.3.2 (src/lib.rs), tiktoken's patterns with the
    // look-ahead `\s+(?!\S)` rewritten as `\s+\s` minus its last character. The tests
    // compare our counts with bpe-openai's and tiktoken-rs's.
    const O200K_PAT1: &str = concat!(
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|\\p{N}{1,3}",
        "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "|\\s*[\\r\\n]+",
        "|\\s+$",
    );
    const CL100K_PAT1: &str = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$";
    const LOOKAHEAD_PAT: &str = "\\s+\\s";
    const SPACE_PAT: &str = "\\s+";

    static O200K_TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.bpe"));
    static CL100K_TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bpe"));

    /// What one encoding shares between threads: read-only, built once per process.
    struct Shared {
        table: Table,
        splitter: Splitter,
    }

    static O200K: OnceLock<Result<Shared, String>> = OnceLock::new();
    static CL100K: OnceLock<Result<Shared, String>> = OnceLock::new();

    thread_local! {
        static O200K_CACHE: OnceCell<RefCell<Cache>> = const { OnceCell::new() };
        static CL100K_CACHE: OnceCell<RefCell<Cache>> = const { OnceCell::new() };
        static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    }

    fn shared(encoding: Encoding) -> &'static Result<Shared, String> {
        let (cell, bytes, pat1) = match encoding {
            Encoding::Cl100kBase => (&CL100K, CL100K_TABLE, CL100K_PAT1),
            _ => (&O200K, O200K_TABLE, O200K_PAT1),
        };
        cell.get_or_init(|| {
            let table = Table::parse(bytes).ok_or("the embedded table is damaged")?;
            let patterns = [(pat1, false), (LOOKAHEAD_PAT, true), (SPACE_PAT, false)];
            let splitter =
                Splitter::new(&patterns).map_err(|e| format!("pre-tokenizer regex: {e}"))?;
            Ok(Shared { table, splitter })
        })
    }

    /// Builds the shared table and pre-tokenizer, reporting errors.
    pub(in super::super) fn prepare(encoding: Encoding) -> Result<()> {
        shared(encoding)
            .as_ref()
            .map(|_| ())
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    pub(in super::super) fn count(encoding: Encoding, text: &str) -> usize {
        let Ok(shared) = shared(encoding) else {
            return super::super::estimate::count(text);
        };
        let key = match encoding {
            Encoding::Cl100kBase => &CL100K_CACHE,
            _ => &O200K_CACHE,
        };
        key.with(|cache| {
            let mut cache = cache.get_or_init(|| shared.splitter.cache()).borrow_mut();
            SCRATCH.with_borrow_mut(|scratch| {
                let mut total = 0;
                shared.splitter.for_each_piece(&mut cache, text, |piece| {
                    total += shared.table.count(piece.as_bytes(), scratch);
                });
                total
            })
        })
    }
}
