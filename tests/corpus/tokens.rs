//! Token counts against tiktoken-rs on every message text of the corpus.
//!
//! `TokenCounter` counts o200k_base and cl100k_base with bpe-openai and its own per-thread
//! copy of the pre-tokenizer regex (see `src/tokens.rs`); tiktoken-rs is the reference those
//! counts must equal. The unit tests compare them on hand-made samples; this compares them on
//! every distinct part text (and preamble text) of every readable corpus file, where real
//! transcripts bring what samples miss: long tool outputs, odd whitespace, mixed scripts.

use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{self, ReadOptions};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::time::Instant;
use tiktoken_rs::CoreBPE;

/// Texts tiktoken-rs may fail on (its fallible `count` errs when its regex hits the backtrack
/// limit, e.g. on very long whitespace runs) before the test calls the reference unusable.
const MAX_SKIPPED: usize = 10;

/// Mismatches shown in a failure message; the rest are only counted.
const MAX_SHOWN: usize = 20;

/// One distinct text and the first corpus file (in sorted order) it was found in.
struct Text {
    text: String,
    file: String,
}

/// Every distinct part text of every readable corpus file, and how many files were read.
/// Files that are not UTF-8 or that ctxc cannot read (the unsupported ones) are left out:
/// `every_corpus_file_round_trips_byte_for_byte` already accounts for each of them.
fn corpus_texts() -> (Vec<Text>, usize) {
    let mut first_file: HashMap<String, String> = HashMap::new();
    let mut read = 0;
    for rel in super::corpus_files() {
        let Ok(source) = std::fs::read_to_string(super::corpus_dir().join(&rel)) else {
            continue;
        };
        let Ok(t) = transcript::read(source, &ReadOptions::default()) else {
            continue;
        };
        read += 1;
        let parts = t
            .conversations
            .iter()
            .flat_map(|c| c.items.iter().flat_map(|i| &i.parts).chain(&c.preamble));
        for part in parts {
            if !first_file.contains_key(&part.text) {
                first_file.insert(part.text.clone(), rel.clone());
            }
        }
    }
    let mut texts: Vec<Text> = first_file
        .into_iter()
        .map(|(text, file)| Text { text, file })
        .collect();
    // Longest first, so the slowest texts start early and no thread is left with them at the end.
    texts.sort_by(|a, b| b.text.len().cmp(&a.text.len()).then(a.text.cmp(&b.text)));
    (texts, read)
}

/// `text` cut to its first 120 characters, escaped, with its full length.
fn clip(text: &str) -> String {
    let head: String = text.chars().take(120).collect();
    let more = if head.len() < text.len() { "…" } else { "" };
    format!("{head:?}{more} ({} bytes)", text.len())
}

/// Result of comparing one encoding over all texts.
#[derive(Default)]
struct Comparison {
    /// Texts tiktoken-rs could not count.
    skipped: Vec<String>,
    /// `file: text: ours vs tiktoken`, for every text where the counts differ.
    mismatches: Vec<String>,
    /// Tokens of all compared texts (tiktoken's count).
    tokens: usize,
}

impl Comparison {
    fn merge(mut self, other: Comparison) -> Comparison {
        self.skipped.extend(other.skipped);
        self.mismatches.extend(other.mismatches);
        self.tokens += other.tokens;
        self
    }
}

fn compare(encoding: Encoding, reference: &CoreBPE, texts: &[Text]) -> Comparison {
    let counter = TokenCounter::without_cache(encoding).unwrap();
    let no_special = HashSet::new();
    texts
        .par_iter()
        .map(|t| {
            let mut one = Comparison::default();
            match reference.count(&t.text, &no_special) {
                Err(_) => one.skipped.push(format!("{}: {}", t.file, clip(&t.text))),
                Ok(expected) => {
                    let ours = counter.count(&t.text);
                    if ours != expected {
                        one.mismatches.push(format!(
                            "{}: {}: ctxc {ours}, tiktoken-rs {expected}",
                            t.file,
                            clip(&t.text)
                        ));
                    }
                    one.tokens = expected;
                }
            }
            one
        })
        .reduce(Comparison::default, Comparison::merge)
}

#[test]
fn o200k_and_cl100k_counts_equal_tiktoken_on_every_corpus_text() {
    let started = Instant::now();
    let (texts, files) = corpus_texts();
    let bytes: usize = texts.iter().map(|t| t.text.len()).sum();
    // Guards against an empty walk passing vacuously (the corpus has ~80 files, ~70 readable).
    assert!(files >= 70, "only {files} corpus files read");
    assert!(texts.len() >= 5_000, "only {} distinct texts", texts.len());
    println!(
        "{files} files, {} distinct texts, {bytes} bytes, collected in {:.1?}",
        texts.len(),
        started.elapsed()
    );
    let mut failures = Vec::new();
    for (encoding, reference) in [
        (Encoding::O200kBase, tiktoken_rs::o200k_base_singleton()),
        (Encoding::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
    ] {
        let started = Instant::now();
        let result = compare(encoding, reference, &texts);
        println!(
            "{encoding}: {} tokens, {} texts skipped (tiktoken-rs error), {} mismatches, {:.1?}",
            result.tokens,
            result.skipped.len(),
            result.mismatches.len(),
            started.elapsed()
        );
        for skipped in &result.skipped {
            println!("  skipped: {skipped}");
        }
        assert!(
            result.skipped.len() <= MAX_SKIPPED,
            "{encoding}: tiktoken-rs failed on {} texts:\n{}",
            result.skipped.len(),
            result.skipped.join("\n")
        );
        if !result.mismatches.is_empty() {
            let mut shown = result.mismatches;
            shown.sort();
            let total = shown.len();
            shown.truncate(MAX_SHOWN);
            failures.push(format!(
                "{encoding}: {total} texts counted differently (first {}):\n{}",
                shown.len(),
                shown.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What Qwen's tokenizer cuts out before its BPE runs (its added tokens): a text holding one
/// is counted differently by design (ctxc counts it as text), so it is left out.
const QWEN_ADDED: [&str; 5] = ["<|", "<tool_call>", "</tool_call>", "<think>", "</think>"];

#[test]
fn qwen2_counts_equal_qwen3s_own_tokenizer_on_every_corpus_text() {
    let (texts, _) = corpus_texts();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/tokenizers/qwen3/tokenizer.json");
    let reference = ctxc::tokens::HfTokenizer::from_file(&path).unwrap();
    let counter = TokenCounter::without_cache(Encoding::Qwen2).unwrap();
    let (compared, skipped): (Vec<&Text>, Vec<&Text>) = texts
        .iter()
        .partition(|t| !QWEN_ADDED.iter().any(|a| t.text.contains(a)));
    assert!(
        skipped.len() * 50 < texts.len(),
        "{} of {} texts hold an added token",
        skipped.len(),
        texts.len()
    );
    let mismatches: Vec<String> = compared
        .par_iter()
        .filter_map(|t| {
            let expected = reference.count(&t.text).unwrap();
            let ours = counter.count(&t.text);
            (ours != expected).then(|| {
                format!(
                    "{}: {}: ctxc {ours}, tokenizers {expected}",
                    t.file,
                    clip(&t.text)
                )
            })
        })
        .collect();
    println!(
        "qwen2: {} texts compared, {} left out (an added token), {} mismatches",
        compared.len(),
        skipped.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} texts counted differently:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(MAX_SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
