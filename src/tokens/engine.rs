//! The tokenizers behind [`TokenCounter`].

use super::*;

/// Builds what `encoding` needs so that errors surface in [`TokenCounter::new`].
pub(super) fn prepare(encoding: Encoding) -> Result<()> {
    match encoding {
        Encoding::O200kBase | Encoding::Cl100kBase => bpe::prepare(encoding),
        Encoding::P50kBase | Encoding::R50kBase => tiktoken(encoding).map(|_| ()),
        Encoding::Estimate => Ok(()),
        open => open_weight(open).map(|_| ()),
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
        open => match open_weight(open) {
            Ok(core) => core.count(text),
            Err(_) => super::estimate::count(text),
        },
    }
}

/// An open-weight vocabulary, by its name in the `tiktoken` crate (the same names ctxc
/// uses); built once per process by the crate itself.
fn open_weight(encoding: Encoding) -> Result<&'static tiktoken::CoreBpe> {
    tiktoken::get_encoding(encoding.name())
        .with_context(|| format!("the {encoding} vocabulary is not compiled in"))
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
    use crate::tokens::ascii::Rules;
    use crate::tokens::patterns::{CL100K_PATTERNS, O200K_PATTERNS};
    use crate::tokens::table::{PieceCache, Scratch, Splitter, Table};
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
        /// The encoder's buffers, and each encoding's recent pieces (o200k, cl100k).
        static SCRATCH: RefCell<(Scratch, [PieceCache; 2])> = RefCell::default();
    }

    fn shared(encoding: Encoding) -> &'static Result<Shared, String> {
        let (cell, bytes, dfa, patterns, rules) = match encoding {
            Encoding::Cl100kBase => (
                &CL100K,
                CL100K_TABLE,
                CL100K_DFA,
                &CL100K_PATTERNS,
                Rules::Cl100k,
            ),
            _ => (
                &O200K,
                O200K_TABLE,
                O200K_DFA,
                &O200K_PATTERNS,
                Rules::O200k,
            ),
        };
        cell.get_or_init(|| {
            let table = Table::parse(bytes).ok_or("the embedded table is damaged")?;
            let splitter = Splitter::new(&dfa.0, patterns, rules)
                .map_err(|e| format!("the embedded pre-tokenizer: {e}"))?;
            Ok(Shared { table, splitter })
        })
    }

    /// The encoding's pre-tokenizer (for tests; the embedded one is known to be sound).
    #[cfg(test)]
    pub(in super::super) fn splitter(encoding: Encoding) -> &'static Splitter {
        &shared(encoding).as_ref().expect("embedded tables").splitter
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
        SCRATCH.with_borrow_mut(|(scratch, pieces)| {
            let cache = &mut pieces[usize::from(encoding == Encoding::Cl100kBase)];
            let mut total = 0;
            shared.splitter.for_each_piece(text, |piece| {
                total += shared.table.count_piece(piece.as_bytes(), scratch, cache);
            });
            total
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use regex_automata::dfa::dense::DFA;

        /// What `Splitter::new` skips: every transition of the embedded DFAs is checked.
        #[test]
        fn the_embedded_dfas_pass_the_full_check() {
            for (bytes, patterns) in [
                (&O200K_DFA.0, O200K_PATTERNS.len()),
                (&CL100K_DFA.0, CL100K_PATTERNS.len()),
            ] {
                let (dfa, _) = DFA::<&[u32]>::from_bytes(bytes).expect("a sound DFA");
                assert_eq!(regex_automata::dfa::Automaton::pattern_len(&dfa), patterns);
            }
        }
    }
}

/// The ASCII rules against the DFA they stand in for: every piece of every string in the
/// corpus, every corpus file as one text, and random text of the characters each rule turns
/// on (ASCII and the non-ASCII ones that continue letters, digits and white space).
#[cfg(test)]
mod ascii_tests {
    use super::bpe::splitter;
    use super::*;
    use serde_json::Value;

    const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");

    fn pieces(text: &str, by_dfa: bool, encoding: Encoding) -> Vec<String> {
        let mut out = Vec::new();
        let splitter = splitter(encoding);
        if by_dfa {
            splitter.for_each_piece_by_dfa(text, |p| out.push(p.to_string()));
        } else {
            splitter.for_each_piece(text, |p| out.push(p.to_string()));
        }
        out
    }

    fn assert_same_pieces(text: &str) {
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let (fast, dfa) = (pieces(text, false, encoding), pieces(text, true, encoding));
            assert_eq!(fast, dfa, "{encoding} on {text:?}");
        }
    }

    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(list) => list.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => {
                for (key, v) in map {
                    out.push(key.clone());
                    strings(v, out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_ascii_rules_cut_the_corpus_as_the_dfa_does() {
        let paths: Vec<_> = walkdir::WalkDir::new(CORPUS)
            .into_iter()
            .flatten()
            .map(walkdir::DirEntry::into_path)
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "json" || e == "jsonl" || e == "traj")
            })
            .collect();
        assert!(paths.len() > 50, "the corpus is missing: {CORPUS}");
        let mut texts = 0;
        for path in paths {
            let raw = std::fs::read_to_string(&path).unwrap_or_default();
            assert_same_pieces(&raw);
            let mut found = Vec::new();
            match serde_json::from_str::<Value>(&raw) {
                Ok(value) => strings(&value, &mut found),
                Err(_) => raw
                    .lines()
                    .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                    .for_each(|value| strings(&value, &mut found)),
            }
            texts += found.len();
            found.iter().for_each(|text| assert_same_pieces(text));
        }
        assert!(texts > 100_000, "{texts} strings");
    }

    #[test]
    fn the_ascii_rules_cut_random_text_as_the_dfa_does() {
        const ALPHABET: [&str; 44] = [
            "a", "Z", "s", "S", "t", "l", "L", "e", "r", "v", "m", "d", "q", "'", " ", "  ", "\t",
            "\n", "\r", "\x0b", "\x0c", "0", "7", "/", "(", "-", "\x00", "\x7f", "é", "É", "ǅ",
            "\u{0301}", "\u{00a0}", "\u{0085}", "²", "漢", "😀", "—", "ſ", "\u{212a}", "ʰ",
            "\u{2028}", "’", "\u{3000}",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let len = (next() % 16) as usize + 1;
            let text: String = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            assert_same_pieces(&text);
        }
    }
}
