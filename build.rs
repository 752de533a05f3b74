//! Precomputes the BPE tables that `src/tokens/table.rs` reads in place, so that building a
//! tokenizer at run time costs nothing but parsing a small header (bpe-openai deserializes
//! ~32 MB of hash maps and automata instead: ~70 ms and ~65 MB per process).
//!
//! For each encoding the token list comes from tiktoken-rs (the official `.tiktoken` files).
//! The tables mirror `bpe` 0.2's `BytePairEncoding::from_dictionary`: for every token its
//! longest proper prefix token, the pair of tokens it was merged from, the reverse map from a
//! pair to its merge, and a trie for the longest token starting a text. The format is
//! described in `src/tokens/table.rs`; both sides must change together (see `FORMAT`).
//!
//! It also compiles each encoding's pre-tokenizer patterns (`src/tokens/patterns.rs`) into the
//! full DFA the binary reads in place ([`write_splitter`]).

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

#[path = "src/tokens/patterns.rs"]
mod patterns;

/// Format version written into the header; `src/tokens/table.rs` checks it.
const FORMAT: u32 = 4;
/// No token (in the prefix table and the trie).
const NONE: u32 = u32::MAX;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/patterns.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set"));
    write_splitter(&out, "o200k_base", &patterns::O200K_PATTERNS);
    write_splitter(&out, "cl100k_base", &patterns::CL100K_PATTERNS);
    for (name, core, expected) in [
        ("o200k_base", tiktoken_rs::o200k_base(), 199_998),
        ("cl100k_base", tiktoken_rs::cl100k_base(), 100_256),
    ] {
        let core = core.expect("tiktoken-rs builds its tokenizer");
        let tokens: Vec<Vec<u8>> = (0..)
            .map_while(|id| core.decode_bytes(&[id]).ok())
            .collect();
        assert_eq!(tokens.len(), expected, "{name}: token count");
        let table = Table::new(&tokens);
        std::fs::write(out.join(format!("{name}.bpe")), table.serialize())
            .expect("can write the table");
    }
}

/// Compiles an encoding's pre-tokenizer patterns into the full DFA that
/// `src/tokens/table.rs` reads in place (`NAME.dfa`): compiling them when a process starts took
/// ~10 M instructions (~2 ms), 5% of `ctxc stats` on a 3 MB session and most of it on a small
/// file. Anchored searches only, leftmost-first, in the target's byte order.
fn write_splitter(out: &Path, name: &str, patterns: &[(&str, bool)]) {
    use regex_automata::dfa::{StartKind, dense};
    use regex_automata::nfa::thompson::{self, WhichCaptures};
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(regex_automata::MatchKind::LeftmostFirst)
                .start_kind(StartKind::Anchored),
        )
        .thompson(thompson::Config::new().which_captures(WhichCaptures::None))
        .build_many(&patterns.iter().map(|p| p.0).collect::<Vec<_>>())
        .expect("the pre-tokenizer patterns compile");
    let big = std::env::var("CARGO_CFG_TARGET_ENDIAN").is_ok_and(|e| e == "big");
    let (bytes, pad) = if big {
        dfa.to_bytes_big_endian()
    } else {
        dfa.to_bytes_little_endian()
    };
    std::fs::write(out.join(format!("{name}.dfa")), &bytes[pad..]).expect("can write the DFA");
}

struct Table {
    token_len: Vec<u8>,
    next_prefix: Vec<u32>,
    split: Vec<(u32, u32)>,
    pairs: Vec<u32>,
    trie: Vec<[u32; 2]>,
}

impl Table {
    fn new(tokens: &[Vec<u8>]) -> Table {
        for b in 0..=255u8 {
            assert!(tokens.iter().any(|t| t == &[b]), "byte {b} is not a token");
        }
        let by_bytes: HashMap<&[u8], u32> = tokens
            .iter()
            .enumerate()
            .map(|(id, t)| (t.as_slice(), id as u32))
            .collect();
        let trie = Trie::new(tokens);
        let next_prefix: Vec<u32> = tokens
            .iter()
            .map(|t| trie.longest_prefix(&t[..t.len() - 1]).unwrap_or(NONE))
            .collect();
        // Reverse-engineer the merges, exactly as bpe's `from_dictionary` does.
        let mut split: Vec<(u32, u32)> = Vec::with_capacity(tokens.len());
        let mut pair_lookup: HashMap<(u32, u32), u32> = HashMap::new();
        for (id, token) in tokens.iter().enumerate() {
            let id = id as u32;
            let mut token1 = next_prefix[id as usize];
            while token1 != NONE {
                let rest = &token[tokens[token1 as usize].len()..];
                if let Some(&token2) = by_bytes.get(rest) {
                    if token1 < id
                        && token2 < id
                        && valid_pair(&pair_lookup, &split, token1, token2)
                    {
                        pair_lookup.insert((token1, token2), id);
                        split.push((token1, token2));
                        break;
                    }
                }
                token1 = next_prefix[token1 as usize];
            }
            if token1 == NONE {
                split.push((id, id));
            }
        }
        Table {
            token_len: tokens
                .iter()
                .map(|t| u8::try_from(t.len()).expect("tokens are at most 255 bytes"))
                .collect(),
            next_prefix,
            split,
            pairs: pair_table(&pair_lookup, tokens.len()),
            trie: trie.double_array(),
        }
    }

    /// Header (magic, format, token count, pair slots, trie slots), then the sections in
    /// that order, little-endian: tokens (u64 each, see [`token_record`]), pair slots (u32),
    /// trie slots (6 bytes each, see [`trie_slot`]) and 2 bytes of padding, so that the
    /// run-time side may read every slot as a u64.
    fn serialize(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let put = |out: &mut Vec<u8>, x: u32| out.extend_from_slice(&x.to_le_bytes());
        out.extend_from_slice(b"CTXCBPE\0");
        for x in [
            FORMAT,
            self.token_len.len() as u32,
            self.pairs.len() as u32,
            self.trie.len() as u32,
        ] {
            put(&mut out, x);
        }
        for (id, &len) in self.token_len.iter().enumerate() {
            let record = token_record(len, self.next_prefix[id], self.split[id]);
            out.extend_from_slice(&record.to_le_bytes());
        }
        self.pairs.iter().for_each(|&x| put(&mut out, x));
        for &[base, info] in &self.trie {
            out.extend_from_slice(&trie_slot(base, info).to_le_bytes()[..6]);
        }
        out.extend_from_slice(&[0, 0]);
        out
    }
}

/// bpe's `is_valid_token_pair`: whether BPE would merge `token1 token2` at their boundary
/// the way they are (no other pair across the cut would have been merged first).
fn valid_pair(
    pairs: &HashMap<(u32, u32), u32>,
    split: &[(u32, u32)],
    mut token1: u32,
    mut token2: u32,
) -> bool {
    let mut limit = u32::MAX;
    loop {
        if let Some(&combined) = pairs.get(&(token1, token2)) {
            if combined < limit {
                return false;
            }
        }
        if token1 > token2 {
            limit = token1;
            token1 = split[token1 as usize].1;
            if token1 == limit {
                limit = token2 + 1;
                token2 = split[token2 as usize].0;
                if token2 + 1 == limit {
                    return true;
                }
            }
        } else {
            limit = token2 + 1;
            token2 = split[token2 as usize].0;
            if token2 + 1 == limit {
                limit = token1;
                token1 = split[token1 as usize].1;
                if token1 == limit {
                    return true;
                }
            }
        }
    }
}

/// What BPE needs of a token, in one u64 (one memory access instead of three): its length
/// (8 bits), its next prefix + 1 (0: none), and the two tokens it was merged from (18 bits
/// each). `src/tokens/table.rs` reads records the same way.
fn token_record(len: u8, next_prefix: u32, (a, b): (u32, u32)) -> u64 {
    let prefix = if next_prefix == NONE {
        0
    } else {
        next_prefix + 1
    };
    for x in [prefix, a, b] {
        assert!(x < 1 << TOKEN_BITS, "token ids fit in a record");
    }
    u64::from(len)
        | u64::from(prefix) << 8
        | u64::from(a) << (8 + TOKEN_BITS)
        | u64::from(b) << (8 + 2 * TOKEN_BITS)
}

/// Bits of a trie slot that hold its base; `src/tokens/table.rs` reads slots the same way.
const BASE_BITS: u32 = 19;

/// A double-array slot packed in 48 bits: the base (19 bits), then `info` (label, used bit,
/// token + 1: 27 bits). 6 bytes a slot instead of 8.
fn trie_slot(base: u32, info: u32) -> u64 {
    assert!(base < 1 << BASE_BITS, "trie base fits in its bits");
    assert!(info < 1 << (48 - BASE_BITS), "trie info fits in its bits");
    u64::from(base) | u64::from(info) << BASE_BITS
}

/// The hash of a token pair; `src/tokens/table.rs` computes the same.
fn pair_hash(a: u32, b: u32) -> u64 {
    ((u64::from(a) << 32) | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Bits of a pair slot that hold the merged token; the bits above hold a tag of the pair's
/// hash. `src/tokens/table.rs` reads slots the same way.
const TOKEN_BITS: u32 = 18;

/// Open addressing with linear probing, a power-of-two size at most 40% full (o200k: 2 MB).
/// A slot is one u32: the merged token, tagged with hash bits the slot index does not use
/// (the run-time side confirms a tag match with the token's split, so the pair itself need
/// not be stored: 4 bytes a slot instead of 12); empty slots are `NONE`. 76% full (1 MB)
/// made the 50 MiB rows of the process bench 10-12% slower (longer probes), and Robin Hood
/// hashing at 76% did no better.
fn pair_table(pairs: &HashMap<(u32, u32), u32>, tokens: usize) -> Vec<u32> {
    assert!(tokens <= 1 << TOKEN_BITS, "token ids fit in a pair slot");
    let size = (pairs.len() * 5 / 2).next_power_of_two();
    let mut slots = vec![NONE; size];
    let mut sorted: Vec<_> = pairs.iter().collect();
    sorted.sort();
    for (&(a, b), &merged) in sorted {
        let hash = pair_hash(a, b);
        let mut at = (hash >> 32) as usize & (size - 1);
        while slots[at] != NONE {
            at = (at + 1) & (size - 1);
        }
        slots[at] = pair_tag(hash) | merged;
    }
    slots
}

/// The tag of a pair's hash, in place above the token bits: its top bits, which mix both
/// tokens (the slot index comes from the bits below them).
fn pair_tag(hash: u64) -> u32 {
    ((hash >> (64 - (32 - TOKEN_BITS))) as u32) << TOKEN_BITS
}

/// A plain trie of the tokens, turned into a double array for the run-time side.
struct Trie {
    /// Per node: children (label, node), sorted by label; and the token ending there.
    nodes: Vec<(Vec<(u8, u32)>, u32)>,
}

impl Trie {
    fn new(tokens: &[Vec<u8>]) -> Trie {
        let mut nodes = vec![(Vec::new(), NONE)];
        for (id, token) in tokens.iter().enumerate() {
            let mut at = 0usize;
            for &b in token {
                at = match nodes[at].0.binary_search_by_key(&b, |&(l, _)| l) {
                    Ok(i) => nodes[at].0[i].1 as usize,
                    Err(i) => {
                        let child = nodes.len();
                        nodes[at].0.insert(i, (b, child as u32));
                        nodes.push((Vec::new(), NONE));
                        child
                    }
                };
            }
            nodes[at].1 = id as u32;
        }
        Trie { nodes }
    }

    fn longest_prefix(&self, text: &[u8]) -> Option<u32> {
        let mut at = 0usize;
        let mut best = None;
        for &b in text {
            match self.nodes[at].0.binary_search_by_key(&b, |&(l, _)| l) {
                Ok(i) => at = self.nodes[at].0[i].1 as usize,
                Err(_) => break,
            }
            if self.nodes[at].1 != NONE {
                best = Some(self.nodes[at].1);
            }
        }
        best
    }

    /// Double array: slot `[base, info]`; a node's child by byte `c` is at `base + c` and is
    /// its child iff that slot is used with label `c` (bases are unique, so labels suffice).
    /// `info` = (token + 1) << 9 | used << 8 | label; base 0 = no children. Root at slot 0.
    fn double_array(&self) -> Vec<[u32; 2]> {
        let cap = 2 * self.nodes.len() + 1024;
        let mut slots: Vec<[u32; 2]> = vec![[0, 0]; cap];
        let mut free = FreeList::new(cap);
        let mut base_used = vec![false; cap];
        slots[0] = [0, 1 << 8];
        free.remove(0);
        let mut queue = VecDeque::from([(0usize, 0usize)]);
        while let Some((node, slot)) = queue.pop_front() {
            let children = &self.nodes[node].0;
            let Some(&(first, _)) = children.first() else {
                continue;
            };
            let first = usize::from(first);
            let mut hole = free.head;
            let base = loop {
                assert!(hole < cap, "double array too small");
                let next = free.next[hole];
                if hole > first {
                    let base = hole - first;
                    let fits = !base_used[base]
                        && children.iter().all(|&(c, _)| {
                            let at = base + usize::from(c);
                            at < cap && slots[at][1] == 0
                        });
                    if fits {
                        break base;
                    }
                }
                // A hole that fits nothing after many tries is left empty for good: this keeps
                // the search linear.
                free.fails[hole] += 1;
                if free.fails[hole] > 64 {
                    free.remove(hole);
                }
                hole = next;
            };
            base_used[base] = true;
            slots[slot][0] = base as u32;
            for &(c, child) in children {
                let at = base + usize::from(c);
                let token = self.nodes[child as usize].1;
                let token_bits = if token == NONE { 0 } else { (token + 1) << 9 };
                slots[at][1] = token_bits | 1 << 8 | u32::from(c);
                free.remove(at);
                queue.push_back((child as usize, at));
            }
        }
        // Trim, keeping `base + c` inside the array for every base.
        let max_base = slots.iter().map(|s| s[0] as usize).max().unwrap_or(0);
        let last_used = slots.iter().rposition(|s| s[1] != 0).unwrap_or(0);
        slots.truncate((max_base + 256).max(last_used + 1).min(cap));
        slots.resize((max_base + 256).max(last_used + 1), [0, 0]);
        slots
    }
}

/// The free slots of a double array under construction, as a doubly linked list.
struct FreeList {
    head: usize,
    next: Vec<usize>,
    prev: Vec<usize>,
    listed: Vec<bool>,
    fails: Vec<u8>,
}

impl FreeList {
    fn new(cap: usize) -> FreeList {
        FreeList {
            head: 0,
            next: (1..=cap).collect(),
            prev: (0..cap).map(|i| i.wrapping_sub(1)).collect(),
            listed: vec![true; cap],
            fails: vec![0; cap],
        }
    }

    fn remove(&mut self, i: usize) {
        if !std::mem::replace(&mut self.listed[i], false) {
            return;
        }
        let (prev, next) = (self.prev[i], self.next[i]);
        if prev == usize::MAX {
            self.head = next;
        } else {
            self.next[prev] = next;
        }
        if next < self.prev.len() {
            self.prev[next] = prev;
        }
    }
}
