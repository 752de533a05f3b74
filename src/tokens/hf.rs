//! A Hugging Face `tokenizer.json`, counted by the `tokenizers` crate: the same engine, file
//! and settings a trainer loads, so a count here is the length of the token list the trainer
//! makes from the same text.
//!
//! Counts are of the text alone (`add_special_tokens = false`), as transformers tokenizes a
//! rendered chat template: whatever BOS or EOS a model wants is written by its template.
//!
//! **Cache.** A trainer's text is cut at every added token (`<|im_start|>`, `<tool_call>`)
//! before anything else runs, and each piece between them is tokenized on its own. So where
//! no added token strips spaces, must stand alone as a word, or matches normalized text
//! (Qwen, Llama 3...: [`HfTokenizer::splits_exactly`]), a text's count is the sum of its
//! pieces' counts plus one per added token, and each piece is counted once, by its xxh3
//! hash: `fit` renders a sample many times while it chooses where a segment ends, and each
//! time only the new turn's pieces are tokenized. Elsewhere every text is tokenized whole.

use aho_corasick::{AhoCorasick, MatchKind};
use anyhow::{Context, Result, anyhow};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// One tokenizer read from a `tokenizer.json`. `Sync`: share it by reference across threads.
pub struct HfTokenizer {
    inner: tokenizers::Tokenizer,
    name: String,
    /// The added tokens, where cutting at them gives the tokenizer's own pieces.
    added: Option<AhoCorasick>,
    /// Each piece's count, by its xxh3-64 hash.
    pieces: Mutex<HashMap<u64, usize>>,
}

impl HfTokenizer {
    /// Reads `path`; the error names the file and says what is wrong with it.
    pub fn from_file(path: &Path) -> Result<Self> {
        let shown = crate::human::Shown::shown(path);
        let mut inner = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("reading the tokenizer {shown}"))?;
        // A file saved with truncation or padding on would count what a trainer cut or
        // padded, not the sample: both are the trainer's own settings, not the vocabulary's.
        inner
            .with_truncation(None)
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("reading the tokenizer {shown}"))?;
        inner.with_padding(None);
        let added = splits_exactly(&inner)
            .then(|| {
                let mut tokens: Vec<String> = inner
                    .get_added_tokens_decoder()
                    .into_values()
                    .map(|t| t.content)
                    .collect();
                tokens.sort();
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(tokens)
                    .ok()
            })
            .flatten();
        Ok(HfTokenizer {
            inner,
            name: shown,
            added,
            pieces: Mutex::default(),
        })
    }

    /// The file it was read from, as shown in reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Tokens in `text`, special tokens written in it (`<|im_start|>`) counting as one each.
    pub fn count(&self, text: &str) -> Result<usize> {
        let Some(added) = &self.added else {
            return self.encode(text);
        };
        let mut total = 0;
        let mut from = 0;
        for m in added.find_iter(text) {
            total += self.piece(&text[from..m.start()])? + 1;
            from = m.end();
        }
        Ok(total + self.piece(&text[from..])?)
    }

    /// A piece with no added token in it, counted once.
    fn piece(&self, text: &str) -> Result<usize> {
        if text.is_empty() {
            return Ok(0);
        }
        let key = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        let lock = || self.pieces.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&n) = lock().get(&key) {
            return Ok(n);
        }
        let n = self.encode(text)?;
        lock().insert(key, n);
        Ok(n)
    }

    /// Tokens in `text`, tokenized whole.
    fn encode(&self, text: &str) -> Result<usize> {
        let encoding = self
            .inner
            .encode_fast(text, false)
            .map_err(|e| anyhow!("tokenizing with {}: {e}", self.name))?;
        Ok(encoding.len())
    }
}

/// Whether cutting a text at its added tokens gives the pieces the tokenizer itself
/// tokenizes: no added token strips the spaces beside it, must stand alone as a word, or
/// is matched in normalized text.
fn splits_exactly(t: &tokenizers::Tokenizer) -> bool {
    t.get_added_tokens_decoder()
        .values()
        .all(|a| !a.lstrip && !a.rstrip && !a.single_word && !a.normalized)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qwen3() -> HfTokenizer {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tokenizers/qwen3/tokenizer.json");
        HfTokenizer::from_file(&path).unwrap()
    }

    #[test]
    fn counts_qwen3_text_and_its_special_tokens() {
        let t = qwen3();
        assert_eq!(t.count("").unwrap(), 0);
        // Each special token is one token, however long its text.
        assert_eq!(t.count("<|im_start|>").unwrap(), 1);
        assert_eq!(t.count("<|im_start|>user\nhi<|im_end|>\n").unwrap(), 6);
        // Qwen's vocabulary holds a token for "Hello" and one for " world".
        assert_eq!(t.count("Hello world").unwrap(), 2);
    }

    #[test]
    fn counting_by_pieces_equals_tokenizing_whole() {
        let t = qwen3();
        assert!(t.added.is_some(), "Qwen3's added tokens cut cleanly");
        let texts = [
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n  hi  there<|im_end|>\n",
            "<tool_call>\n{\"name\": \"ls\"}\n</tool_call><|im_end|><|im_end|>x<think>\n\n</think>\n\n",
            "no added tokens at all, just prose: café 漢字 😀\n\n\n   ",
            "<|im_start|><|im_start|>",
        ];
        for text in texts {
            // Twice: the second count comes from the cache.
            for _ in 0..2 {
                assert_eq!(t.count(text).unwrap(), t.encode(text).unwrap(), "{text:?}");
            }
        }
    }

    #[test]
    fn a_file_that_is_not_a_tokenizer_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokenizer.json");
        std::fs::write(&path, "{\"model\": 3}").unwrap();
        let err = HfTokenizer::from_file(&path).err().unwrap();
        let text = format!("{err:#}");
        assert!(text.contains("tokenizer.json"), "{text}");
    }
}
