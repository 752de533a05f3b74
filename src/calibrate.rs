//! Context tokens as the provider counts them (DESIGN "Which tokens").
//!
//! ctxc counts exactly what the transcript holds; the provider counts more — a system prompt
//! and tool definitions the client never stores, in its own tokenizer. When the transcript
//! records the provider's usage per call (Claude Code `message.usage`, Codex `token_count`,
//! OpenAI `usage`), each call gives a pair: the prompt size the provider reported, and ctxc's
//! count of the items that call was sent. From those pairs this module fits the provider's
//! tokenizer ratio (a least-squares slope) and its fixed overhead, and predicts the prompt of
//! the next call: the last reported prompt is exact, so only what came after it is estimated
//! with the ratio. A compaction's output is predicted the same way: the hidden overhead stays,
//! and what ctxc removed or added counts at the ratio.
//!
//! Counts come from [`crate::count`]'s per-item counts as running sums: no text is counted twice.

use crate::count::message_tokens;
use crate::tokens::{TOKENS_PER_REPLY, TokenCounter};
use crate::transcript::{Conversation, Format, Kind, Role, holds_edit_marker};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashSet;

/// Claude's tokens per o200k token on Claude Code content, used when a file holds no usage.
/// The corpus's Claude Code sessions fit 1.2–1.4; with [`DEFAULT_CLAUDE_OVERHEAD`] this
/// predicts their 318 calls at a median error of 7.6%, 24% at the 90th percentile
/// (`cargo test --test corpus calibrate -- --nocapture`).
pub const DEFAULT_CLAUDE_RATIO: f64 = 1.33;

/// Tokens Claude Code sends with every request but never stores (system prompt and tool
/// definitions), used when a file holds no usage: the first calls of the corpus's main
/// sessions reported ~25,900 more than 1.33 × ctxc's count.
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
///
/// A call whose context holds a ctxc summary, or a message ctxc cut or masked, is left out:
/// its usage was recorded before ctxc compacted the file, for what ctxc since removed. Fitted,
/// such a call would pair the old prompt with the new, smaller count, and the output would
/// seem to keep every provider token it had. (Its difference to a later call sent the same
/// edits still measures the tokenizer ratio: [`Usage`] fits the slope on those too.)
pub fn calls(conv: &Conversation) -> Vec<Call> {
    calls_at(conv)
        .into_iter()
        .filter(|c| c.edit.is_none())
        .map(|c| c.call)
        .collect()
}

/// One recorded call: the item its usage is on, the call, and the latest ctxc edit it was
/// sent (none: its usage still describes what the file holds).
#[derive(Debug, Clone, Copy)]
struct Recorded {
    at: usize,
    call: Call,
    edit: Option<usize>,
}

/// Every call of `conv` with reported usage, edited contexts included.
fn calls_at(conv: &Conversation) -> Vec<Recorded> {
    let mut calls: Vec<Recorded> = Vec::new();
    let mut start = 0;
    let mut input_end = 0;
    let mut ctxc_edit = None;
    for (i, item) in conv.items.iter().enumerate() {
        if item.boundary {
            start = i;
            input_end = i;
        }
        if item.ctxc_summary || edited_by_ctxc(item) {
            ctxc_edit = Some(i);
        }
        let edit = ctxc_edit.filter(|&e| e >= start);
        if let Some(usage) = item
            .usage
            .as_deref()
            .copied()
            .filter(|u| u.prompt_tokens() > 0)
        {
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
            if calls.last().is_none_or(|last| last.call != call) {
                calls.push(Recorded { at: i, call, edit });
            }
        }
        if item.kind != Kind::NonContext && item.role != Role::Assistant {
            input_end = i + 1;
        }
    }
    calls
}

/// Whether ctxc left a note in the item in place of something it removed.
fn edited_by_ctxc(item: &crate::transcript::Item) -> bool {
    item.parts.iter().any(|p| holds_edit_marker(&p.text))
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
}

/// The pairs of a conversation's calls, given its per-item counts and preamble count: those
/// whose usage describes what the file holds ([`calls`], [`accounted_for`]).
pub fn pairs(conv: &Conversation, items: &[usize], preamble: usize) -> Vec<Pair> {
    let sums = running_sums(items);
    calls(conv)
        .into_iter()
        .map(|call| Pair {
            counted: call_tokens(&call, &sums, preamble) as f64,
            reported: call.prompt as f64,
        })
        .filter(accounted_for)
        .collect()
}

/// Tokens a client may send with a request beyond what its transcript stores (system prompt,
/// tool definitions, memory files), far above any seen: the corpus's Claude Code sessions and
/// subagent files hide 12,000–36,000 (fitted overheads), Codex instructions are stored. A
/// compaction or subagent side file (`subagents/agent-acompact-*.jsonl`) records the usage of
/// the parent context it was forked with: 169,248 reported for a file of 5,795 tokens, 166,000
/// above its own messages at the default ratio.
const MAX_HIDDEN: f64 = 100_000.0;

/// Whether a call's usage is one the file's own messages can account for: at most
/// [`MAX_HIDDEN`] above the largest plausible ratio × ctxc's count of what it was sent. Usage
/// far above that is not this file's context (the parent's, of a side file); fitted, it would
/// price the file at the parent's size and set compaction a target of 0.
fn accounted_for(pair: &Pair) -> bool {
    pair.reported <= MAX_HIDDEN + RATIO_RANGE.end() * pair.counted
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

/// How provider tokens relate to ctxc's count for one conversation: `overhead + ratio × count`,
/// the line through the last reported call with the fitted ratio — so the last reported prompt
/// is reproduced exactly and only what came after it is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    /// Fitted on usage, or the default.
    pub source: Source,
    /// Calls with usage the fit used.
    pub calls: usize,
    /// Tokens the provider adds to every request (system prompt, tools not stored): the last
    /// reported prompt less `ratio ×` ctxc's count of it.
    pub overhead: f64,
    /// Provider tokens per counted token: the least-squares slope over the calls.
    pub ratio: f64,
    /// Median relative error of predicting each of the file's calls from the ones before it
    /// (none for the default, or with a single call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit_error: Option<f64>,
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
        }
    }

    /// Fits `pairs`, in call order (none: no calibration, for no pairs or pairs that fit no
    /// line with a non-negative overhead and a plausible ratio).
    pub fn from_pairs(pairs: &[Pair], prior: Prior) -> Option<Self> {
        Self::fit(pairs, &[], prior)
    }

    /// Fits `pairs` (calls whose usage describes what the file holds, in call order) with the
    /// slope measured on them and on `edited`: calls sent a context ctxc has since edited,
    /// grouped by the edits they were sent. Within a group each prompt holds the same removed
    /// tokens, so differences between its calls still measure the ratio; the line goes
    /// through the last of `pairs`, whose prompt is what the file holds.
    fn fit(pairs: &[Pair], edited: &[Sums], prior: Prior) -> Option<Self> {
        let last = pairs.last()?;
        let mut sums = Sums::default();
        let mut errors = Vec::new();
        for (k, pair) in pairs.iter().enumerate() {
            if let Some(previous) = k.checked_sub(1).map(|j| pairs[j]) {
                let ratio = sums.ratio().unwrap_or(prior.ratio);
                let predicted = previous.reported + ratio * (pair.counted - previous.counted);
                errors.push((predicted - pair.reported).abs() / pair.reported);
            }
            sums.add(pair);
        }
        let mut ratio = slope(std::iter::once(&sums).chain(edited)).unwrap_or(prior.ratio);
        let mut overhead = last.reported - ratio * last.counted;
        if overhead < 0.0 {
            // The provider adds to what ctxc counts, never takes away: a line with a negative
            // overhead predicts nothing at all for a context small enough (a compacted one).
            // Through the last call and the origin, if that ratio is plausible; else the usage
            // does not describe what the file holds (hand-written usage, say) and fits nothing.
            ratio = last.reported / last.counted;
            overhead = 0.0;
            if !RATIO_RANGE.contains(&ratio) {
                return None;
            }
        }
        Some(Calibration {
            source: Source::Usage,
            calls: pairs.len(),
            overhead,
            ratio,
            fit_error: (!errors.is_empty()).then(|| median(errors)),
        })
    }

    /// The provider tokens of a context ctxc counts as `counted`.
    pub fn predict(&self, counted: usize) -> usize {
        (self.overhead + self.ratio * counted as f64)
            .max(0.0)
            .round() as usize
    }

    /// The count ctxc must reach for a context to be `provider` tokens: how a target in
    /// provider tokens becomes a target for the strategies.
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

/// Running sums for a least-squares slope of reported on counted.
#[derive(Default)]
struct Sums {
    n: f64,
    x: f64,
    y: f64,
    xx: f64,
    xy: f64,
}

impl Sums {
    fn add(&mut self, p: &Pair) {
        self.n += 1.0;
        self.x += p.counted;
        self.y += p.reported;
        self.xx += p.counted * p.counted;
        self.xy += p.counted * p.reported;
    }

    /// The slope, when the calls are enough to fit one and it is plausible.
    fn ratio(&self) -> Option<f64> {
        slope([self])
    }

    /// The centred sums of squares and products: (Sxx, Sxy).
    fn centred(&self) -> (f64, f64) {
        if self.n == 0.0 {
            return (0.0, 0.0);
        }
        (
            self.xx - self.x * self.x / self.n,
            self.xy - self.x * self.y / self.n,
        )
    }
}

/// The least-squares slope shared by `groups` of calls, each with its own intercept (the
/// within-group estimator; one group: the plain slope), when they are enough to fit one and
/// it is plausible.
fn slope<'s>(groups: impl IntoIterator<Item = &'s Sums>) -> Option<f64> {
    let (mut n, mut free, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
    for group in groups.into_iter().filter(|g| g.n > 0.0) {
        let (xx, xy) = group.centred();
        n += group.n;
        free += group.n - 1.0;
        sxx += xx;
        sxy += xy;
    }
    // Fewer than three calls, or counts that barely differ, say nothing about the slope.
    if free < 2.0 || sxx < n * 1_000.0 {
        return None;
    }
    let ratio = sxy / sxx;
    RATIO_RANGE.contains(&ratio).then_some(ratio)
}

fn median(mut values: Vec<f64>) -> f64 {
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
            message_tokens(counter, item, first)
        })
        .collect()
}

/// The calibration of `conv` whose per-item context counts are `items` (history uncounted, as
/// [`crate::count`] leaves it) and preamble count `preamble`: fitted on its calls; without
/// calls, `prior` when it is worth reporting.
pub fn conversation(
    counter: &TokenCounter,
    conv: &Conversation,
    items: &[usize],
    preamble: usize,
    prior: (Prior, bool),
) -> Option<Calibration> {
    Usage::of(counter, conv, items, preamble).fit(prior)
}

/// The usage a conversation records, paired with ctxc's counts: what its fits are made of.
#[derive(Debug, Clone, Default)]
pub struct Usage {
    /// Each call whose usage the file's messages can account for, in call order.
    calls: Vec<Paired>,
}

/// One call of [`Usage`].
#[derive(Debug, Clone, Copy)]
struct Paired {
    /// The item its usage is recorded on.
    at: usize,
    /// The first item it was sent.
    start: usize,
    /// The latest ctxc edit it was sent (none: its usage describes what the file holds).
    edit: Option<usize>,
    pair: Pair,
}

impl Usage {
    /// The usage of `conv` whose per-item context counts are `items` (history uncounted, as
    /// [`crate::count`] leaves it) and preamble count `preamble`.
    pub fn of(
        counter: &TokenCounter,
        conv: &Conversation,
        items: &[usize],
        preamble: usize,
    ) -> Usage {
        let calls = calls_at(conv);
        if calls.is_empty() {
            return Usage::default();
        }
        let live_start = conv.items.iter().rposition(|i| i.boundary).unwrap_or(0);
        let has_history = conv
            .items
            .iter()
            .any(|i| !i.in_context && i.kind != Kind::NonContext);
        let all = if has_history && calls.iter().any(|c| c.call.start < live_start) {
            Cow::Owned(with_history(counter, conv, items))
        } else {
            Cow::Borrowed(items)
        };
        let sums = running_sums(&all);
        let calls = calls
            .iter()
            .map(|c| Paired {
                at: c.at,
                start: c.call.start,
                edit: c.edit,
                pair: Pair {
                    counted: call_tokens(&c.call, &sums, preamble) as f64,
                    reported: c.call.prompt as f64,
                },
            })
            .filter(|c| accounted_for(&c.pair))
            .collect();
        Usage { calls }
    }

    /// The fit over every call; without one, `prior` when it is worth reporting.
    pub fn fit(&self, prior: (Prior, bool)) -> Option<Calibration> {
        self.fit_grouped(|c| Some(c.edit), prior.0)
            .or_else(|| prior.1.then(|| Calibration::default_of(prior.0)))
    }

    /// The fit `stats` makes of a compaction's output: its line through the last call the
    /// compaction left as it was, before every change (`changes`: the items whose context
    /// it changed, in order), its slope also measured on the later calls it keeps (`kept`),
    /// grouped by the latest change each was sent. None without such a first call.
    pub fn fit_output(
        &self,
        changes: &[usize],
        kept: impl Fn(usize) -> bool,
        prior: Prior,
    ) -> Option<Calibration> {
        self.fit_grouped(
            |c| {
                let since = changes.partition_point(|&x| x < c.start);
                let upto = changes.partition_point(|&x| x <= c.at);
                let change = changes[since..upto].last().copied();
                kept(c.at).then(|| c.edit.max(change))
            },
            prior,
        )
    }

    /// The fit over the calls `group` keeps: `Some(None)` for a call whose usage describes
    /// what the file holds, `Some(Some(e))` for one sent ctxc's edit `e` (fitted for the slope
    /// only, with the others sent the same edits).
    fn fit_grouped(
        &self,
        group: impl Fn(&Paired) -> Option<Option<usize>>,
        prior: Prior,
    ) -> Option<Calibration> {
        let mut fresh = Vec::new();
        let mut edited: Vec<(usize, Sums)> = Vec::new();
        for call in &self.calls {
            match group(call) {
                None => {}
                Some(None) => fresh.push(call.pair),
                Some(Some(e)) => match edited.iter_mut().find(|(g, _)| *g == e) {
                    Some((_, sums)) => sums.add(&call.pair),
                    None => {
                        let mut sums = Sums::default();
                        sums.add(&call.pair);
                        edited.push((e, sums));
                    }
                },
            }
        }
        let edited: Vec<Sums> = edited.into_iter().map(|(_, s)| s).collect();
        Calibration::fit(&fresh, &edited, prior)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ReadOptions, read};

    fn conv(text: &str, format: Format) -> Conversation {
        let opts = ReadOptions {
            format: Some(format),
            ..Default::default()
        };
        read(text.to_string(), &opts)
            .unwrap()
            .conversations
            .remove(0)
    }

    #[test]
    fn a_claude_code_call_is_sent_what_precedes_its_first_record_and_restarts_at_a_boundary() {
        let usage = r#""usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":7}"#;
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#.to_string(),
            format!(r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{{"id":"m1","role":"assistant","content":[{{"type":"text","text":"a"}}],{usage}}}}}"#),
            format!(r#"{{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{{"id":"m1","role":"assistant","content":[{{"type":"text","text":"b"}}],{usage}}}}}"#),
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"content":"Conversation compacted"}"#.to_string(),
            r#"{"type":"user","uuid":"u2","parentUuid":"b","message":{"role":"user","content":"again"}}"#.to_string(),
            format!(r#"{{"type":"assistant","uuid":"a3","parentUuid":"u2","message":{{"id":"m2","role":"assistant","content":[{{"type":"text","text":"c"}}],{usage}}}}}"#),
        ]
        .join("\n");
        let calls = calls(&conv(&text, Format::ClaudeCode));
        let want = |start, end| Call {
            start,
            end,
            prompt: 115,
        };
        // One call per response (split records share message.id), the second after the boundary.
        assert_eq!(calls, [want(0, 1), want(3, 5)]);
    }

    #[test]
    fn a_codex_call_is_sent_everything_up_to_the_last_input_before_its_token_count() {
        let count = |input: u64| {
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":40,"output_tokens":3}}}}}}}}"#
            )
        };
        let text = [
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run ls"}]}}"#.to_string(),
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#.to_string(),
            count(100),
            count(100),
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a b"}}"#.to_string(),
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#.to_string(),
            count(130),
        ]
        .join("\n");
        let calls = calls(&conv(&text, Format::Codex));
        // The repeated event is one call; each call excludes its own reply.
        let want = |end, prompt| Call {
            start: 0,
            end,
            prompt,
        };
        assert_eq!(calls, [want(1, 100), want(5, 130)]);
    }

    #[test]
    fn an_openai_assistant_message_carries_the_usage_of_the_call_that_wrote_it() {
        let text = r#"[{"role":"user","content":"hi"},
            {"role":"assistant","content":"hello","usage":{"prompt_tokens":120,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":100}}},
            {"role":"user","content":"more"},
            {"role":"assistant","content":"sure","usage":{"input_tokens":140,"output_tokens":4}}]"#;
        let conv = conv(text, Format::OpenAi);
        let usage = conv.items[1].usage.as_deref().copied().unwrap();
        assert_eq!(
            (usage.input_tokens, usage.cache_read_input_tokens),
            (20, 100)
        );
        let want = |end, prompt| Call {
            start: 0,
            end,
            prompt,
        };
        assert_eq!(calls(&conv), [want(1, 120), want(3, 140)]);
    }

    #[test]
    fn the_fit_recovers_ratio_and_overhead_and_reproduces_the_last_prompt() {
        let pairs: Vec<Pair> = [1_000.0, 5_000.0, 9_000.0, 20_000.0]
            .iter()
            .map(|&c| Pair {
                counted: c,
                reported: 26_000.0 + 1.3 * c,
            })
            .collect();
        let c = Calibration::from_pairs(&pairs, Prior::EXACT).unwrap();
        assert!((c.ratio - 1.3).abs() < 1e-9, "{c:?}");
        assert!((c.overhead - 26_000.0).abs() < 1e-6, "{c:?}");
        assert_eq!(c.predict(20_000), 52_000);
        assert_eq!(c.counted_for(52_000), 20_000);
        // Two calls are too few for a slope: the prior's ratio through the last call.
        let two = Calibration::from_pairs(&pairs[..2], Prior::EXACT).unwrap();
        assert_eq!((two.ratio, two.predict(5_000)), (1.0, 32_500));
        assert_eq!(Calibration::from_pairs(&[], Prior::EXACT), None);
    }

    #[test]
    fn a_fit_never_has_a_negative_overhead() {
        // Usage below ctxc's counts (hand-written, or a file grown since): with the prior's
        // ratio, the line through the last call reaches 0 at half its count. Through the
        // origin instead.
        let pairs: Vec<Pair> = [(1_000.0, 900.0), (3_000.0, 2_000.0)]
            .iter()
            .map(|&(counted, reported)| Pair { counted, reported })
            .collect();
        let prior = Prior {
            ratio: DEFAULT_CLAUDE_RATIO,
            overhead: DEFAULT_CLAUDE_OVERHEAD,
        };
        let c = Calibration::from_pairs(&pairs, prior).unwrap();
        assert_eq!(c.overhead, 0.0, "{c:?}");
        assert_eq!((c.predict(3_000), c.predict(300)), (2_000, 200));
        // Usage far below any plausible ratio describes nothing the file holds.
        let tiny = [Pair {
            counted: 600.0,
            reported: 78.0,
        }];
        assert_eq!(Calibration::from_pairs(&tiny, prior), None);
    }

    #[test]
    fn a_call_sent_what_ctxc_since_cut_is_left_out_and_an_output_fit_stops_at_its_first_change() {
        let usage = |input: u64| {
            format!(
                r#""usage":{{"input_tokens":{input},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":7}}"#
            )
        };
        let assistant = |n: usize, input: u64| {
            format!(
                r#"{{"type":"assistant","uuid":"a{n}","parentUuid":"u{n}","message":{{"id":"m{n}","role":"assistant","content":[{{"type":"text","text":"a"}}],{}}}}}"#,
                usage(input)
            )
        };
        let user = |n: usize, text: &str| {
            format!(
                r#"{{"type":"user","uuid":"u{n}","parentUuid":null,"message":{{"role":"user","content":"{text}"}}}}"#
            )
        };
        let text = [
            user(1, "hi"),
            assistant(1, 100),
            user(
                2,
                "[ctxc: output of Bash masked, 2,345 tokens in 120 lines]",
            ),
            assistant(2, 3_000),
        ]
        .join("\n");
        let conv = conv(&text, Format::ClaudeCode);
        // The second call was sent the masked output in full: its usage describes that.
        assert_eq!(calls(&conv).len(), 1);
        let counter = TokenCounter::new(crate::tokens::Encoding::O200kBase).unwrap();
        let counts = crate::count::count_conversation(&counter, &conv);
        let usage = Usage::of(&counter, &conv, &counts.items, counts.preamble);
        // It still counts for the slope, with the calls sent the same edit.
        assert_eq!(usage.calls.len(), 2);
        assert_eq!(usage.calls[1].edit, Some(2));
        // A change at or before the first call leaves no call describing the output.
        assert!(usage.fit_output(&[1], |_| true, Prior::EXACT).is_none());
        assert_eq!(
            usage.fit_output(&[2], |_| true, Prior::EXACT),
            usage.fit((Prior::EXACT, false))
        );
    }

    #[test]
    fn without_usage_only_claude_gets_a_default_estimate() {
        let (claude, report) = Prior::for_transcript(Format::ClaudeCode, None);
        assert!(report && claude.ratio == DEFAULT_CLAUDE_RATIO);
        assert!(Prior::for_transcript(Format::OpenAi, Some("claude-sonnet-4-5")).1);
        assert!(!Prior::for_transcript(Format::OpenAi, Some("gpt-4o")).1);
    }
}
