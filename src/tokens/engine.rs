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

/// o200k and cl100k: tables and pre-tokenizer DFAs read in place from the binary
/// ([`super::table`]), scratch buffers per thread.
mod bpe {
    use super::*;
    use crate::tokens::patterns::{CL100K_PATTERNS, O200K_PATTERNS};
    use crate::tokens::table::{Scratch, Splitter, Table};
    use std::cell::RefCell;

    static O200K_TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.bpe"));
    static CL100K_TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bpe"));

    /// The DFAs are arrays of `u32`, read in place: their bytes must be 4-byte aligned.
    #[repr(C, align(4))]
    struct Aligned<T: ?Sized>(T);

    static O200K_DFA: &Aligned<[u8]> =
        &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.dfa")));
    static CL100K_DFA: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
        env!("OUT_DIR"),
        "/cl100k_base.dfa"
    )));

    /// What one encoding shares between threads: read-only, built once per process.
    struct Shared {
        table: Table,
        splitter: Splitter,
    }

    static O200K: OnceLock<Result<Shared, String>> = OnceLock::new();
    static CL100K: OnceLock<Result<Shared, String>> = OnceLock::new();

    thread_local! {
        static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    }

    fn shared(encoding: Encoding) -> &'static Result<Shared, String> {
        let (cell, bytes, dfa, patterns) = match encoding {
            Encoding::Cl100kBase => (&CL100K, CL100K_TABLE, CL100K_DFA, &CL100K_PATTERNS),
            _ => (&O200K, O200K_TABLE, O200K_DFA, &O200K_PATTERNS),
        };
        cell.get_or_init(|| {
            let table = Table::parse(bytes).ok_or("the embedded table is damaged")?;
            let splitter = Splitter::new(&dfa.0, patterns)
                .map_err(|e| format!("the embedded pre-tokenizer: {e}"))?;
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
        SCRATCH.with_borrow_mut(|scratch| {
            let mut total = 0;
            shared.splitter.for_each_piece(text, |piece| {
                total += shared.table.count(piece.as_bytes(), scratch);
            });
            total
        })
    }
}
