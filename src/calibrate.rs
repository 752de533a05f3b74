//! Context tokens as the provider counts them (DESIGN "Which tokens").
//!
//! ctxc counts exactly what the transcript holds; the provider counts more — a system prompt
//! and tool definitions the client never stores, in its own tokenizer. When the transcript
//! records the provider's usage per call (Claude Code `message.usage`, Codex `token_count`,
//! OpenAI `usage`), each call gives a pair: the prompt size the provider reported, and ctxc's
//! count of the items that call was sent. From those pairs this module fits the provider's
//! tokenizer ratio and fixed overhead, and predicts the prompt of the next call: the last
//! reported prompt is exact, so only what came after it is estimated with the ratio. After a
//! compaction by ctxc the last report no longer describes the output, and the fit
//! (`overhead + ratio × count`) predicts it instead.
//!
//! Counts come from [`crate::count`]'s per-item counts as running sums: no text is counted twice.

use crate::count::part_tokens;
use crate::tokens::{TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, TokenCounter};
use crate::transcript::{Conversation, Format, Kind, Role};
use serde::Serialize;
use std::collections::HashSet;

/// Claude's tokens per o200k token on Claude Code content, used when a file holds no usage
/// (the median over the corpus's Claude Code sessions; see README "Which tokens").
pub const DEFAULT_CLAUDE_RATIO: f64 = 1.33;

/// Tokens Claude Code sends with every request but never stores (system prompt and tool
/// definitions), used when a file holds no usage (corpus median; see README).
pub const DEFAULT_CLAUDE_OVERHEAD: f64 = 26_000.0;

/// A tokenizer ratio outside this range means the pairs are not what they seem (a file
/// whose calls were sent history stored elsewhere); the fit then keeps the default ratio.
const RATIO_RANGE: std::ops::RangeInclusive<f64> = 0.5..=3.0;

/// One model call the transcript recorded usage for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// The first item the call was sent: its latest compact boundary, else 0.
    pub start: usize,
    /// One past the last item the call was sent (its own reply excluded).
    pub end: usize,
    /// The prompt tokens the provider reported (input plus cache writes and reads).
    pub prompt: u64,
}

/// The calls of `conv` with reported usage, in order. A reply's usage is on its first record
/// (Claude Code, OpenAI: the call was sent everything before it) or on an event after the
/// reply (Codex `token_count`: the call was sent everything up to the last input before it).
pub fn calls(conv: &Conversation) -> Vec<Call> {
    let mut calls = Vec::new();
    let mut start = 0;
    let mut input_end = 0;
    for (i, item) in conv.items.iter().enumerate() {
        if item.boundary {
            start = i;
            input_end = i;
        }
        if let Some(usage) = item.usage.filter(|u| u.prompt_tokens() > 0) {
            let end = if item.role == Role::Assistant {
                i
            } else {
                input_end
            };
            let call = Call {
                start,
                end,
                prompt: usage.prompt_tokens(),
            };
            // Codex repeats a `token_count` event when only its rate limits changed.
            if calls.last() != Some(&call) {
                calls.push(call);
            }
        }
        if item.kind != Kind::NonContext && item.role != Role::Assistant {
            input_end = i + 1;
        }
    }
    calls
}

/// Running sums of per-item counts: `sums[i]` = tokens of items `0..i`.
pub fn running_sums(items: &[usize]) -> Vec<u64> {
    let mut sums = Vec::with_capacity(items.len() + 1);
    let mut total = 0u64;
    sums.push(0);
    for &n in items {
        total += n as u64;
        sums.push(total);
    }
    sums
}

/// ctxc's count of what `call` was sent, from the running sums of the item counts and the
/// preamble's count (the same total [`crate::count::ConversationTokens::total`] makes).
pub fn call_tokens(call: &Call, sums: &[u64], preamble: usize) -> u64 {
    sums[call.end] - sums[call.start] + (preamble + TOKENS_PER_REPLY) as u64
}

/// A pair of one call: ctxc's count and the provider's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// ctxc's count of what the call was sent.
    pub counted: f64,
    /// The prompt the provider reported.
    pub reported: f64,
    /// Whether this call was sent the same context as the previous pair plus more (no
    /// boundary between them), so their difference is text ctxc counted.
    pub continues: bool,
}

/// The pairs of a conversation's calls, given its per-item counts and preamble count.
pub fn pairs(conv: &Conversation, items: &[usize], preamble: usize) -> Vec<Pair> {
    let sums = running_sums(items);
    let mut previous: Option<Call> = None;
    calls(conv)
        .into_iter()
        .map(|call| {
            let continues = previous.is_some_and(|p| p.start == call.start && p.end <= call.end);
            previous = Some(call);
            Pair {
                counted: call_tokens(&call, &sums, preamble) as f64,
                reported: call.prompt as f64,
                continues,
            }
        })
        .collect()
}

/// What a provider is assumed to add when the file reports nothing to fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    /// Provider tokens per counted token.
    pub ratio: f64,
    /// Tokens sent with every request but never stored.
    pub overhead: f64,
}

impl Prior {
    /// Exact tokenizers (OpenAI models counted with their own encoding): nothing added
    /// beyond what the fit finds.
    pub const EXACT: Prior = Prior {
        ratio: 1.0,
        overhead: 0.0,
    };

    /// The prior for a transcript of `format` whose model is `model` (if named), and whether
    /// it is a documented estimate worth reporting without usage (Claude: no public tokenizer).
    pub fn for_transcript(format: Format, model: Option<&str>) -> (Prior, bool) {
        let claude_model = model.is_some_and(|m| m.to_ascii_lowercase().contains("claude"));
        match format {
            Format::ClaudeCode => (
                Prior {
                    ratio: DEFAULT_CLAUDE_RATIO,
                    overhead: DEFAULT_CLAUDE_OVERHEAD,
                },
                true,
            ),
            // The Messages API stores its system prompt and tools: only the ratio differs.
            Format::Anthropic => (
                Prior {
                    ratio: DEFAULT_CLAUDE_RATIO,
                    overhead: 0.0,
                },
                true,
            ),
            _ if claude_model => (
                Prior {
                    ratio: DEFAULT_CLAUDE_RATIO,
                    overhead: 0.0,
                },
                true,
            ),
            _ => (Prior::EXACT, false),
        }
    }
}

/// Where a calibration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// Fitted on usage the transcript records.
    Usage,
    /// The documented default for a model without a public tokenizer: an estimate.
    Default,
}

/// The last reported call, when nothing since has restarted the context: its count and prompt.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Anchor {
    counted: f64,
    reported: f64,
}

/// How provider tokens relate to ctxc's count for one conversation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    /// Fitted on usage, or the default.
    pub source: Source,
    /// Calls with usage the fit used.
    pub calls: usize,
    /// Tokens the provider adds to every request (system prompt, tools not stored).
    pub overhead: f64,
    /// Provider tokens per counted token.
    pub ratio: f64,
    /// Median relative error of `overhead + ratio × count` against the reported prompts of the
    /// file's own calls (none for the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit_error: Option<f64>,
    #[serde(skip)]
    anchor: Option<Anchor>,
}

impl Calibration {
    /// The default calibration of `prior`, an estimate.
    pub fn default_of(prior: Prior) -> Self {
        Calibration {
            source: Source::Default,
            calls: 0,
            overhead: prior.overhead,
            ratio: prior.ratio,
            fit_error: None,
            anchor: None,
        }
    }

    /// Fits `pairs` (none: no calibration). With `anchored`, the last pair is the exact
    /// starting point of predictions; without, predictions use the fit alone.
    pub fn from_pairs(pairs: &[Pair], prior: Prior, anchored: bool) -> Option<Self> {
        let last = pairs.last()?;
        let (ratio, overhead) = fit(pairs).unwrap_or_else(|| {
            let residuals = pairs
                .iter()
                .map(|p| p.reported - prior.ratio * p.counted)
                .collect();
            (prior.ratio, median(residuals))
        });
        let errors = pairs
            .iter()
            .map(|p| ((overhead + ratio * p.counted) - p.reported).abs() / p.reported)
            .collect();
        Some(Calibration {
            source: Source::Usage,
            calls: pairs.len(),
            overhead,
            ratio,
            fit_error: Some(median(errors)),
            anchor: anchored.then_some(Anchor {
                counted: last.counted,
                reported: last.reported,
            }),
        })
    }

    /// The provider tokens of a context ctxc counts as `counted`: the last reported prompt plus
    /// the ratio times what came after it, or the fit when there is no anchor.
    pub fn predict(&self, counted: usize) -> usize {
        let counted = counted as f64;
        let tokens = match self.anchor {
            Some(a) => a.reported + self.ratio * (counted - a.counted),
            None => self.overhead + self.ratio * counted,
        };
        tokens.max(0.0).round() as usize
    }

    /// The provider tokens of a new context (a compaction's output) ctxc counts as `counted`.
    pub fn predict_fresh(&self, counted: usize) -> usize {
        (self.overhead + self.ratio * counted as f64)
            .max(0.0)
            .round() as usize
    }

    /// The count ctxc must reach for a new context to be `provider` tokens by the fit: how a
    /// target in provider tokens becomes a target for the strategies.
    pub fn counted_for(&self, provider: usize) -> usize {
        ((provider as f64 - self.overhead) / self.ratio)
            .max(0.0)
            .floor() as usize
    }

    /// Whether the figure is an estimate rather than a fit on reported usage.
    pub fn is_estimate(&self) -> bool {
        self.source == Source::Default
    }
}

/// Least squares `reported ≈ overhead + ratio × counted`, when the pairs are enough to fit a
/// slope and it is plausible.
fn fit(pairs: &[Pair]) -> Option<(f64, f64)> {
    if pairs.len() < 3 {
        return None;
    }
    let n = pairs.len() as f64;
    let mx = pairs.iter().map(|p| p.counted).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.reported).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.counted - mx).powi(2)).sum();
    let sxy: f64 = pairs
        .iter()
        .map(|p| (p.counted - mx) * (p.reported - my))
        .sum();
    // Calls whose counts barely differ say nothing about the slope.
    if sxx < n * 1_000.0 {
        return None;
    }
    let ratio = sxy / sxx;
    RATIO_RANGE
        .contains(&ratio)
        .then_some((ratio, my - ratio * mx))
}

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Per-item counts with the history before the latest compact boundary counted too: calls made
/// before a compaction were sent it, and their pairs need it. Items in the live context keep
/// the count already made; only history (which the context count skips) is counted here.
pub fn with_history(counter: &TokenCounter, conv: &Conversation, items: &[usize]) -> Vec<usize> {
    let mut seen = HashSet::new();
    conv.items
        .iter()
        .zip(items)
        .map(|(item, &n)| {
            if item.in_context || item.kind == Kind::NonContext {
                return n;
            }
            let first = item.message_id.as_deref().is_none_or(|id| seen.insert(id));
            let overhead = if first { TOKENS_PER_MESSAGE } else { 0 };
            overhead
                + item
                    .parts
                    .iter()
                    .map(|p| part_tokens(counter, p))
                    .sum::<usize>()
        })
        .collect()
}

/// The calibration of `conv` whose per-item context counts are `items` (history uncounted, as
/// [`crate::count`] leaves it) and preamble count `preamble`: fitted on its calls, anchored on
/// the last one when no boundary came after it; else `prior` when it is worth reporting.
pub fn conversation(
    counter: &TokenCounter,
    conv: &Conversation,
    items: &[usize],
    preamble: usize,
    prior: (Prior, bool),
) -> Option<Calibration> {
    let calls = calls(conv);
    let Some(last) = calls.last() else {
        return prior.1.then(|| Calibration::default_of(prior.0));
    };
    let live_start = conv.items.iter().rposition(|i| i.boundary).unwrap_or(0);
    let has_history = conv
        .items
        .iter()
        .any(|i| !i.in_context && i.kind != Kind::NonContext);
    let all = if has_history && calls.iter().any(|c| c.start < live_start) {
        with_history(counter, conv, items)
    } else {
        items.to_vec()
    };
    let pairs = pairs(conv, &all, preamble);
    Calibration::from_pairs(&pairs, prior.0, last.start == live_start)
}
