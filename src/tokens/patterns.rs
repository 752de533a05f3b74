//! The pre-tokenizers' patterns, shared with `build.rs` (which `include!`s this file and
//! compiles them into the DFAs embedded in the binary): the patterns of bpe-openai 0.3.2
//! (src/lib.rs), tiktoken's with the look-ahead `\s+(?!\S)` rewritten as `\s+\s` minus its
//! last character. The tests compare our counts with bpe-openai's and tiktoken-rs's.

/// o200k_base's patterns, leftmost-first, and whether each is the look-ahead one.
pub const O200K_PATTERNS: [(&str, bool); 3] = [
    (
        concat!(
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "|\\p{N}{1,3}",
            "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
            "|\\s*[\\r\\n]+",
            "|\\s+$",
        ),
        false,
    ),
    (LOOKAHEAD_PAT, true),
    (SPACE_PAT, false),
];

/// cl100k_base's patterns, as [`O200K_PATTERNS`].
pub const CL100K_PATTERNS: [(&str, bool); 3] = [
    (
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$",
        false,
    ),
    (LOOKAHEAD_PAT, true),
    (SPACE_PAT, false),
];

const LOOKAHEAD_PAT: &str = "\\s+\\s";
const SPACE_PAT: &str = "\\s+";
