//! o200k_base and cl100k_base counted straight from tables embedded in the binary.
//!
//! `build.rs` precomputes, from the official token lists, the tables of `bpe` 0.2's
//! backtracking encoder (the algorithm behind bpe-openai: linear time, tiktoken's counts),
//! and this module reads them in place: building a [`Table`] parses a 24-byte header, and a
//! run only touches the pages it uses. bpe-openai deserializes ~32 MB into hash maps and
//! automata instead: ~70 ms and ~65 MB per process, before the first token.
//!
//! The pre-tokenizer is a full DFA per encoding, compiled by `build.rs` and read in place
//! too: no regex is compiled at run time, and searches need no cache. Pieces of ASCII text
//! are cut by hand ([`super::ascii`]) at a fraction of the DFA's cost.

use regex_automata::dfa::Automaton;
use regex_automata::dfa::dense::DFA;
use regex_automata::{Anchored, Input};

use super::ascii::{AsciiRun, Rules};

/// Must match `FORMAT` in build.rs.
const FORMAT: u32 = 4;
/// No token.
const NONE: u32 = u32::MAX;
/// Bits of a token id in pair slots and token records (must match build.rs).
const TOKEN_BITS: u32 = 18;
const TOKEN_MASK: u32 = (1 << TOKEN_BITS) - 1;
/// A trie slot: the base in the low bits, then the label, the used bit, and token + 1
/// (must match build.rs).
const BASE_BITS: u32 = 19;
const USED: u64 = 1 << 8;

/// A BPE table read in place from bytes laid out by build.rs.
pub(super) struct Table {
    /// Per token, a u64: length, next prefix + 1, and split (see build.rs `token_record`).
    tokens: &'static [u8],
    pairs: &'static [u8],
    pair_mask: usize,
    trie: &'static [u8],
}

fn u32_at(bytes: &[u8], i: usize) -> u32 {
    let b: [u8; 4] = bytes[4 * i..4 * i + 4].try_into().expect("4 bytes");
    u32::from_le_bytes(b)
}

impl Table {
    /// Reads the header and cuts the sections; `None` if the bytes are not a table.
    pub(super) fn parse(bytes: &'static [u8]) -> Option<Table> {
        let header = bytes.get(..24)?;
        if &header[..8] != b"CTXCBPE\0" || u32_at(&header[8..], 0) != FORMAT {
            return None;
        }
        let [tokens, pair_slots, trie_slots] = [1, 2, 3].map(|i| u32_at(&header[8..], i) as usize);
        let (records, rest) = bytes[24..].split_at_checked(8 * tokens)?;
        let (pairs, rest) = rest.split_at_checked(4 * pair_slots)?;
        let (trie, rest) = rest.split_at_checked(6 * trie_slots + 2)?;
        (rest.is_empty()
            && tokens <= 1 << TOKEN_BITS
            && pair_slots.is_power_of_two()
            && trie_slots >= 256)
            .then_some(Table {
                tokens: records,
                pairs,
                pair_mask: pair_slots - 1,
                trie,
            })
    }

    /// The token's record: length, next prefix + 1 and split (build.rs `token_record`).
    fn record(&self, token: u32) -> u64 {
        let i = 8 * token as usize;
        u64::from_le_bytes(self.tokens[i..i + 8].try_into().expect("8 bytes"))
    }

    fn token_len(&self, token: u32) -> usize {
        (self.record(token) & 0xFF) as usize
    }

    fn next_prefix(&self, token: u32) -> Option<u32> {
        let prefix = (self.record(token) >> 8) as u32 & TOKEN_MASK;
        prefix.checked_sub(1)
    }

    fn split(&self, token: u32) -> (u32, u32) {
        let record = self.record(token);
        let a = (record >> (8 + TOKEN_BITS)) as u32 & TOKEN_MASK;
        let b = (record >> (8 + 2 * TOKEN_BITS)) as u32 & TOKEN_MASK;
        (a, b)
    }

    /// The token merged from `a b`, if BPE has that merge. A slot holds the merged token
    /// under a tag of the pair's hash; a tag match is confirmed by the token's split.
    fn pair(&self, a: u32, b: u32) -> Option<u32> {
        let hash = ((u64::from(a) << 32) | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let tag = ((hash >> (64 - (32 - TOKEN_BITS))) as u32) << TOKEN_BITS;
        let mut at = (hash >> 32) as usize & self.pair_mask;
        loop {
            let slot = u32_at(self.pairs, at);
            if slot == NONE {
                return None;
            }
            if slot & !TOKEN_MASK == tag {
                let merged = slot & TOKEN_MASK;
                if self.split(merged) == (a, b) {
                    return Some(merged);
                }
            }
            at = (at + 1) & self.pair_mask;
        }
    }

    /// The longest token `text` starts with (`None` only for an empty text: every byte is
    /// a token).
    fn longest_prefix(&self, text: &[u8]) -> Option<u32> {
        let mut slot = 0usize;
        let mut best = None;
        for &c in text {
            let base = (self.trie_slot(slot) & ((1 << BASE_BITS) - 1)) as usize;
            if base == 0 {
                break;
            }
            let child = base + usize::from(c);
            let info = self.trie_slot(child) >> BASE_BITS;
            if info & (USED | 0xFF) != USED | u64::from(c) {
                break;
            }
            slot = child;
            if info >> 9 != 0 {
                best = Some((info >> 9) as u32 - 1);
            }
        }
        best
    }

    /// Double-array slot `i`: 48 bits read as the low bits of a u64 (the section ends with 2
    /// bytes of padding for the last slot).
    fn trie_slot(&self, i: usize) -> u64 {
        let b: [u8; 8] = self.trie[6 * i..6 * i + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(b) & ((1 << 48) - 1)
    }

    /// bpe's `is_valid_token_pair`: whether BPE would leave `token1 token2` as they are
    /// across their boundary.
    fn valid_pair(&self, mut token1: u32, mut token2: u32) -> bool {
        let mut limit = u32::MAX;
        loop {
            if self.pair(token1, token2).is_some_and(|m| m < limit) {
                return false;
            }
            if token1 > token2 {
                limit = token1;
                token1 = self.split(token1).1;
                if token1 == limit {
                    limit = token2 + 1;
                    token2 = self.split(token2).0;
                    if token2 + 1 == limit {
                        return true;
                    }
                }
            } else {
                limit = token2 + 1;
                token2 = self.split(token2).0;
                if token2 + 1 == limit {
                    limit = token1;
                    token1 = self.split(token1).1;
                    if token1 == limit {
                        return true;
                    }
                }
            }
        }
    }

    /// Tokens of one pre-tokenized piece: bpe's backtracking encoder, with `scratch` reused
    /// across pieces instead of two allocations per piece.
    pub(super) fn count(&self, text: &[u8], scratch: &mut Scratch) -> usize {
        if text.len() <= 1 {
            return text.len();
        }
        let Scratch { tokens, reachable } = scratch;
        tokens.clear();
        reachable.clear();
        reachable.resize((text.len() + 1).div_ceil(64), u64::MAX);
        let is_set = |bits: &[u64], i: usize| bits[i / 64] & (1 << (i % 64)) != 0;
        let mut pos = 0;
        let mut next = self.longest_prefix(text);
        while let Some(mut token) = next {
            let last = tokens.last().copied();
            loop {
                let end = pos + self.token_len(token);
                if is_set(reachable, end) && last.is_none_or(|l| self.valid_pair(l, token)) {
                    tokens.push(token);
                    pos = end;
                    next = self.longest_prefix(&text[end..]);
                    break;
                } else if let Some(shorter) = self.next_prefix(token) {
                    token = shorter;
                } else {
                    // No token fits here after `last`: mark this position dead, back up.
                    reachable[pos / 64] &= !(1 << (pos % 64));
                    tokens.pop();
                    pos -= last.map_or(0, |t| self.token_len(t));
                    next = last;
                    break;
                }
            }
        }
        tokens.len()
    }
}

/// Pieces of up to this many bytes are remembered in a [`PieceCache`].
const CACHED_PIECE_MAX: usize = 16;
/// Slots of a [`PieceCache`] (a power of two): 96 KB a thread and encoding.
const PIECE_SLOTS: usize = 4096;

/// Recent short pieces and their token counts, for one thread and encoding: words, runs of
/// spaces and punctuation recur all through a transcript, and a hit (hash and compare two
/// words) costs a fraction of walking the trie. Direct-mapped: a colliding piece replaces the
/// slot's. Allocated on first use.
#[derive(Default)]
pub(super) struct PieceCache {
    slots: Vec<PieceSlot>,
}

/// A piece zero-padded to 16 bytes, its length (0: an empty slot) and its count.
#[derive(Clone, Copy, Default)]
struct PieceSlot {
    key: [u64; 2],
    len: u8,
    count: u8,
}

impl Table {
    /// [`Table::count`] of one piece, remembered in `cache` when it is short.
    pub(super) fn count_piece(
        &self,
        piece: &[u8],
        scratch: &mut Scratch,
        cache: &mut PieceCache,
    ) -> usize {
        if piece.len() <= 1 || piece.len() > CACHED_PIECE_MAX {
            return self.count(piece, scratch);
        }
        if cache.slots.is_empty() {
            cache.slots = vec![PieceSlot::default(); PIECE_SLOTS];
        }
        let mut padded = [0u8; CACHED_PIECE_MAX];
        padded[..piece.len()].copy_from_slice(piece);
        let word = |i: usize| u64::from_le_bytes(padded[i..i + 8].try_into().expect("8 bytes"));
        let key = [word(0), word(8)];
        let hash = (key[0] ^ key[1].rotate_left(23) ^ piece.len() as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut cache.slots[(hash >> (64 - PIECE_SLOTS.trailing_zeros())) as usize];
        if usize::from(slot.len) == piece.len() && slot.key == key {
            return usize::from(slot.count);
        }
        let count = self.count(piece, scratch);
        // A piece of at most 16 bytes has at most 16 tokens: the count fits a byte.
        *slot = PieceSlot {
            key,
            len: piece.len() as u8,
            count: count as u8,
        };
        count
    }
}

/// Per-thread buffers of [`Table::count`].
#[derive(Default)]
pub(super) struct Scratch {
    tokens: Vec<u32>,
    /// Bit i clear: no encoding of the text's first i bytes continues to the end.
    reachable: Vec<u64>,
}

/// A pre-tokenizer: the encoding's split patterns, the last character of a look-ahead
/// pattern's match given back (bpe-openai's trick for tiktoken's `\s+(?!\S)`).
pub(super) struct Splitter {
    dfa: DFA<&'static [u32]>,
    lookahead: Vec<bool>,
    /// The same patterns decided by hand on ASCII text.
    rules: Rules,
}

impl Splitter {
    /// The DFA `build.rs` compiled from `patterns` (leftmost-first, anchored searches only:
    /// every search starts where the last piece ended, so the end of the match and its
    /// pattern are all a piece needs). `dfa` must be 4-byte aligned: checked, with its header
    /// ([`embedded_dfa`]).
    pub(super) fn new(
        dfa: &'static [u8],
        patterns: &[(&str, bool)],
        rules: Rules,
    ) -> Result<Splitter, String> {
        let (dfa, _) = embedded_dfa(dfa).map_err(|e| e.to_string())?;
        if dfa.pattern_len() != patterns.len() {
            return Err("the embedded DFA does not match its patterns".into());
        }
        Ok(Splitter {
            dfa,
            lookahead: patterns.iter().map(|p| p.1).collect(),
            rules,
        })
    }

    /// Calls `f` on each piece of `text`, in order: decided on ASCII by hand where the
    /// bytes allow ([`AsciiRun`]), else by the DFA.
    pub(super) fn for_each_piece(&self, text: &str, mut f: impl FnMut(&str)) {
        let bytes = text.as_bytes();
        let mut last = 0;
        // The first non-ASCII byte at or after `last`.
        let mut wide = first_non_ascii(bytes, 0);
        while last < text.len() {
            if wide < last {
                wide = first_non_ascii(bytes, last);
            }
            let ascii = (last < wide)
                .then(|| AsciiRun::new(&bytes[..wide], wide == bytes.len()))
                .and_then(|run| run.piece_end(self.rules, last));
            let end = ascii.unwrap_or_else(|| self.dfa_piece_end(text, last));
            f(&text[last..end]);
            last = end;
        }
    }

    /// Calls `f` on each piece of `text` as the DFA alone cuts it (what the ASCII rules are
    /// tested against).
    #[cfg(test)]
    pub(super) fn for_each_piece_by_dfa(&self, text: &str, mut f: impl FnMut(&str)) {
        let mut last = 0;
        while last < text.len() {
            let end = self.dfa_piece_end(text, last);
            f(&text[last..end]);
            last = end;
        }
    }

    /// The end of the piece of `text` that starts at `last`, by the DFA.
    fn dfa_piece_end(&self, text: &str, last: usize) -> usize {
        let input = Input::new(&text[last..]).anchored(Anchored::Yes);
        // The DFA has no quit bytes (no Unicode word boundary), so an error is as impossible
        // as no match.
        let Ok(Some(m)) = self.dfa.try_search_fwd(&input) else {
            // The patterns match any non-empty text; never loop forever if not.
            return text.len();
        };
        let mut end = last + m.offset();
        if self.lookahead[m.pattern().as_usize()] {
            let dropped = text[last..end]
                .chars()
                .next_back()
                .map_or(0, char::len_utf8);
            end -= dropped;
        }
        if end == last {
            // A look-ahead pattern must keep one character; never loop forever if not.
            end = last + text[last..].chars().next().map_or(1, char::len_utf8);
        }
        end
    }
}

/// The DFA in `bytes`, an array `build.rs` wrote into the binary, read without walking every
/// transition (`DFA::from_bytes` does: 6.5 M instructions, 5% of `stats` of a 3 MB session).
#[allow(unsafe_code)]
fn embedded_dfa(
    bytes: &'static [u8],
) -> Result<(DFA<&'static [u32]>, usize), regex_automata::util::wire::DeserializeError> {
    // SAFETY: `bytes` are constants that build.rs wrote with `to_bytes_native_endian` of a DFA
    // it built, with the regex-automata this binary links (Cargo.lock holds one version).
    // `from_bytes_unchecked` still checks their header, version, endianness, alignment and
    // sizes; the transitions it trusts are checked in full by the test
    // `tokens::engine::bpe::tests::the_embedded_dfas_pass_the_full_check`, on the bytes
    // every build writes alike.
    unsafe { DFA::from_bytes_unchecked(bytes) }
}

/// The index of the first byte of `bytes` at or after `from` that is not ASCII, or the length.
fn first_non_ascii(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from..];
    let mut i = 0;
    while let Some(word) = rest.get(i..i + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        if word & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    from + i
        + rest[i..]
            .iter()
            .position(|&c| !c.is_ascii())
            .unwrap_or(rest.len() - i)
}
