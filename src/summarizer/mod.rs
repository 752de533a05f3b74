//! Summarizers: turn a span of a conversation into the text of one summary message.
//!
//! The engine asks for a summary through [`Summarizer`]; `extractive` (the default) builds it
//! offline from the span itself. What is sent to a model passes the seed-003 safety
//! truncation ([`safety_truncate`]): above 200,000 characters only the head 20% and the tail
//! 30% are kept, with a visible marker where the middle was. The extractive summarizer sends
//! nothing, so it reads the whole span, entry by entry.

pub mod artifacts;
pub mod extractive;
pub mod llm;
pub mod redact;
pub mod render;

use crate::tokens::TokenCounter;
use crate::transcript::Item;
use anyhow::Result;
pub use extractive::EntryMemo;
use llm::OnFailure;
use std::borrow::Cow;

/// Summarizer input above this many characters is truncated (seed 003).
pub const MAX_SAFE_CHARS: usize = 200_000;
/// Share of the input kept from its start.
pub const HEAD_SHARE: f64 = 0.2;
/// Share of the input kept from its end.
pub const TAIL_SHARE: f64 = 0.3;

/// What a summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A span of older history; recent messages stay verbatim beside it.
    Span,
    /// The whole conversation but what is preserved (the last resort).
    Full,
}

/// One request for a summary.
pub struct SummaryRequest<'a> {
    /// The messages to summarize, in order (earlier summaries included).
    pub entries: &'a [Cow<'a, Item>],
    /// What the summary stands for.
    pub scope: Scope,
    /// The conversation's records the entries stand for, by index (end exclusive): the
    /// intro names them, so a summary reads the same wherever its conversation sits (alone,
    /// one of many in a file, or handed over as a list), where file lines would not.
    pub records: std::ops::Range<usize>,
    /// The summary's token budget (`summary_max_tokens`).
    pub max_tokens: usize,
    /// The run's token counter, to keep within the budget.
    pub counter: &'a TokenCounter,
    /// What the conversation's entries gave earlier summaries, for a summarizer that reads
    /// them the same way each time (`extractive`); `None` reads every entry afresh.
    pub memo: Option<&'a EntryMemo>,
}

/// A summary and what it cost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The text, without ctxc's summary marker.
    pub text: String,
    /// Requests made to a model (0 for `extractive`).
    pub llm_calls: usize,
    /// Prompt tokens the model reported.
    pub prompt_tokens: u64,
    /// Completion tokens the model reported.
    pub completion_tokens: u64,
    /// Set when the configured summarizer failed and a fallback wrote this summary.
    pub fallback: Option<Fallback>,
    /// The summarizer failed and its fallback is truncation: remove the span without a
    /// summary (`text` is then empty).
    pub drop_span: bool,
}

/// Why the configured summarizer failed for one summary, and what stood in for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fallback {
    /// The failure in a few words, alike for every request that failed alike (`401
    /// Unauthorized`): the run's warning counts conversations by it.
    pub cause: String,
    /// What stood in: [`OnFailure::Extractive`] or [`OnFailure::Truncate`].
    pub used: OnFailure,
    /// The whole account, for the report: provider, attempts, the server's message, what
    /// was done instead.
    pub detail: String,
}

/// Writes summaries.
pub trait Summarizer: Sync {
    /// The name used in reports.
    fn name(&self) -> &str;

    /// Summarizes the request's entries.
    fn summarize(&self, request: &SummaryRequest) -> Result<Summary>;

    /// Whether the same request always gets the same summary (then a second run gives the
    /// same bytes; the corpus tests prove it for the offline summarizer).
    fn deterministic(&self) -> bool {
        true
    }

    /// Whether summarizing costs nothing but this process's work (no service is called): then
    /// a file's conversations may be compacted while the rest is still read and checked, even
    /// though a later bad line fails the file.
    fn local(&self) -> bool {
        true
    }
}

/// `text` cut to its head 20% and tail 30% when longer than [`MAX_SAFE_CHARS`] characters,
/// with a marker saying how much was left out. When even half the text is over the limit, the
/// head and tail are scaled down to fill the limit in the same 2:3 proportion.
pub fn safety_truncate(text: &str) -> Cow<'_, str> {
    let chars = text.chars().count();
    if chars <= MAX_SAFE_CHARS {
        return Cow::Borrowed(text);
    }
    let (head, tail) = head_tail_chars(chars);
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(b, _)| b);
    let tail_start = text
        .char_indices()
        .nth(chars - tail)
        .map_or(text.len(), |(b, _)| b);
    let omitted = chars - head - tail;
    Cow::Owned(format!(
        "{}\n{}\n{}",
        &text[..head_end],
        omission_marker(omitted),
        &text[tail_start..]
    ))
}

/// Characters kept from the head and the tail of an input of `chars` characters.
pub fn head_tail_chars(chars: usize) -> (usize, usize) {
    let head = (chars as f64 * HEAD_SHARE) as usize;
    let tail = (chars as f64 * TAIL_SHARE) as usize;
    if head + tail <= MAX_SAFE_CHARS {
        return (head, tail);
    }
    let head = (MAX_SAFE_CHARS as f64 * HEAD_SHARE / (HEAD_SHARE + TAIL_SHARE)) as usize;
    (head, MAX_SAFE_CHARS - head)
}

/// The visible marker where the middle of an over-long input was dropped.
pub fn omission_marker(omitted_chars: usize) -> String {
    format!(
        "[... ctxc: {} characters from the middle of this span were over the summarizer's {}-character input limit and left out ...]",
        crate::human::thousands(omitted_chars as u64),
        crate::human::thousands(MAX_SAFE_CHARS as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_input_is_untouched() {
        let text = "x".repeat(MAX_SAFE_CHARS);
        assert!(matches!(safety_truncate(&text), Cow::Borrowed(_)));
    }

    #[test]
    fn long_input_keeps_head_20_and_tail_30_percent() {
        let text: String = (0..300_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let out = safety_truncate(&text);
        assert!(out.starts_with(&text[..60_000]));
        assert!(out.ends_with(&text[300_000 - 90_000..]));
        assert!(
            out.contains("150,000 characters from the middle"),
            "{}",
            &out[59_990..60_200]
        );
        // A huge input fills the limit 2:3.
        let huge = "é".repeat(1_000_000);
        let out = safety_truncate(&huge);
        assert_eq!(out.chars().filter(|&c| c == 'é').count(), MAX_SAFE_CHARS);
        assert_eq!(head_tail_chars(1_000_000), (80_000, 120_000));
    }
}
