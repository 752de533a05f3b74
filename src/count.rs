//! Context tokens: what the model would be sent for a conversation, counted once per item.
//!
//! Counted: the chat format's per-message overhead (once per logical message, so Claude Code's
//! split assistant records are one message), text, thinking, tool names and arguments, tool
//! results, tool definitions and top-level system prompts. Not counted, but reported as
//! stored-only bytes: records that never reach the model (progress, snapshots, metadata),
//! history before the latest compact boundary, and duplicate copies such as Claude Code's
//! `toolUseResult`. An embedded image or document counts [`MEDIA_TOKENS`]: providers bill media
//! by pixels or pages, which a transcript does not record, so ctxc counts the least any provider
//! charges for an image.

use crate::tokens::{TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, TokenCounter};
use crate::transcript::{Conversation, Item, Kind, PartKind, Transcript};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Conversations with at least this many texts are counted in parallel, [`CHUNK_TEXTS`] at a
/// time, so one huge file keeps every core busy instead of one.
const PARALLEL_TEXTS: usize = 256;
const CHUNK_TEXTS: usize = 64;

/// Token counts of one conversation, per item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationTokens {
    /// Tokens of each item (0 for items that never reach the model).
    pub items: Vec<usize>,
    /// Tokens of the preamble (tool definitions, top-level system prompt).
    pub preamble: usize,
}

impl ConversationTokens {
    /// Everything the model would be sent, reply priming included.
    pub fn total(&self) -> usize {
        self.preamble + self.items.iter().sum::<usize>() + TOKENS_PER_REPLY
    }
}

/// Counts every item of `conv`: what [`item_tokens`] gives for each, its texts counted
/// together ([`TokenCounter::count_all`]).
pub fn count_conversation(counter: &TokenCounter, conv: &Conversation) -> ConversationTokens {
    let first = first_of_message(conv);
    let texts: Vec<&str> = conv
        .preamble
        .iter()
        .map(|p| p.text.as_str())
        .chain(
            conv.items
                .iter()
                .filter(|item| item.in_context)
                .flat_map(|item| &item.parts)
                .filter(|part| part.kind != PartKind::Media)
                .map(|part| part.text.as_str()),
        )
        .collect();
    let counts: Vec<usize> = if texts.len() >= PARALLEL_TEXTS {
        texts
            .par_chunks(CHUNK_TEXTS)
            .flat_map_iter(|chunk| counter.count_all(chunk))
            .collect()
    } else {
        counter.count_all(&texts)
    };
    let (preamble, mut counts) = counts.split_at(conv.preamble.len());
    let mut next_count = |_: &str| {
        let (n, rest) = counts.split_first().expect("one count per text");
        counts = rest;
        *n
    };
    let items = conv
        .items
        .iter()
        .zip(first)
        .map(|(item, pays_overhead)| {
            if item.in_context {
                tokens_with(item, pays_overhead, &mut next_count)
            } else {
                0
            }
        })
        .collect();
    ConversationTokens {
        items,
        preamble: preamble.iter().sum(),
    }
}

/// Tokens an embedded image or document is counted as: OpenAI's base price of a low-detail
/// image, the least any provider charges (a 1,000 × 1,000 screenshot costs ~1,300 with
/// Anthropic, ~765 with OpenAI at high detail).
pub const MEDIA_TOKENS: usize = 85;

/// Tokens of one part.
pub fn part_tokens(counter: &TokenCounter, part: &crate::transcript::Part) -> usize {
    if part.kind == PartKind::Media {
        MEDIA_TOKENS
    } else {
        counter.count(&part.text)
    }
}

/// Tokens of one item; `pays_overhead` is false for the later records of a logical message.
pub fn item_tokens(counter: &TokenCounter, item: &Item, pays_overhead: bool) -> usize {
    if !item.in_context {
        return 0;
    }
    message_tokens(counter, item, pays_overhead)
}

/// Tokens of an item's parts, plus the per-message overhead when `pays_overhead`, whether or
/// not the item is in the live context (history a call before a compaction was sent).
pub fn message_tokens(counter: &TokenCounter, item: &Item, pays_overhead: bool) -> usize {
    tokens_with(item, pays_overhead, |text| counter.count(text))
}

/// [`message_tokens`], with each non-media part's text counted by `text_tokens`.
fn tokens_with(
    item: &Item,
    pays_overhead: bool,
    mut text_tokens: impl FnMut(&str) -> usize,
) -> usize {
    let overhead = if pays_overhead { TOKENS_PER_MESSAGE } else { 0 };
    let parts: usize = item
        .parts
        .iter()
        .map(|part| match part.kind {
            PartKind::Media => MEDIA_TOKENS,
            _ => text_tokens(&part.text),
        })
        .sum();
    overhead + parts
}

/// For each item, whether it pays its logical message's overhead: the first in-context record
/// of the message that is not thinking, else its first one. Old thinking records may be
/// dropped while the rest of their response stays (`trim-outputs`), and the rest's count
/// must not change when they go.
pub fn first_of_message(conv: &Conversation) -> Vec<bool> {
    let items = &conv.items;
    let mut payer: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate().filter(|(_, i)| i.in_context) {
        if let Some(id) = &item.message_id {
            let at = payer.entry(id.as_str()).or_insert(i);
            if items[*at].kind == Kind::Thinking && item.kind != Kind::Thinking {
                *at = i;
            }
        }
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match &item.message_id {
            Some(id) if item.in_context => payer[id.as_str()] == i,
            _ => true,
        })
        .collect()
}

/// Bytes stored in the file that never reach the model.
pub fn stored_only_bytes(conv: &Conversation) -> usize {
    conv.items
        .iter()
        .map(|item| {
            if item.in_context {
                item.stored_only_bytes
            } else {
                item.span.len()
            }
        })
        .sum()
}

/// Context tokens broken down three ways.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// By role (`user`, `assistant`, `tool`, ...; `preamble` for tool definitions and system).
    pub by_role: BTreeMap<String, u64>,
    /// By item kind (`user`, `assistant`, `tool_call`, `tool_result`, `thinking`, ...).
    pub by_kind: BTreeMap<String, u64>,
    /// By tool name: the calls' names and arguments plus their results.
    pub by_tool: BTreeMap<String, u64>,
}

impl Breakdown {
    /// Adds a conversation's counts.
    pub fn add(
        &mut self,
        counter: &TokenCounter,
        conv: &Conversation,
        tokens: &ConversationTokens,
    ) {
        if tokens.preamble > 0 {
            *self.by_role.entry("preamble".into()).or_default() += tokens.preamble as u64;
            *self.by_kind.entry("preamble".into()).or_default() += tokens.preamble as u64;
        }
        let tool_of = tool_names(conv);
        for (item, &n) in conv.items.iter().zip(&tokens.items) {
            if n == 0 {
                continue;
            }
            *self.by_role.entry(item.role.name().into()).or_default() += n as u64;
            *self.by_kind.entry(item.kind.name().into()).or_default() += n as u64;
            self.add_tools(counter, item, &tool_of);
        }
    }

    fn add_tools(&mut self, counter: &TokenCounter, item: &Item, tool_of: &HashMap<&str, &str>) {
        if item.kind == Kind::ToolResult {
            let tokens: usize = item
                .parts
                .iter()
                .filter(|p| p.kind == PartKind::ToolResult)
                .map(|p| counter.count(&p.text))
                .sum();
            let name = item
                .results
                .first()
                .and_then(|id| tool_of.get(id.as_str()))
                .unwrap_or(&"(unknown)");
            *self.by_tool.entry(name.to_string()).or_default() += tokens as u64;
        }
        // A call's name and arguments parts come in pairs, in call order.
        let calls = item.parts.iter().filter(|p| p.kind == PartKind::ToolName);
        let args = item
            .parts
            .iter()
            .filter(|p| p.kind == PartKind::ToolArguments);
        for (name, arguments) in calls.zip(args) {
            let tokens = counter.count(&name.text) + counter.count(&arguments.text);
            *self.by_tool.entry(name.text.clone()).or_default() += tokens as u64;
        }
    }

    /// Adds another breakdown into this one.
    pub fn merge(&mut self, other: &Breakdown) {
        for (mine, theirs) in [
            (&mut self.by_role, &other.by_role),
            (&mut self.by_kind, &other.by_kind),
            (&mut self.by_tool, &other.by_tool),
        ] {
            for (k, v) in theirs {
                // A key is cloned only the first time: the totals of a 1,296-file run
                // merge tens of thousands of entries into a few dozen.
                match mine.get_mut(k) {
                    Some(sum) => *sum += v,
                    None => {
                        mine.insert(k.clone(), *v);
                    }
                }
            }
        }
    }
}

/// Call id → tool name, for attributing results to their tool.
pub fn tool_names(conv: &Conversation) -> HashMap<&str, &str> {
    conv.items
        .iter()
        .flat_map(|item| &item.calls)
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect()
}

/// Counts of a whole transcript.
#[derive(Debug, Clone)]
pub struct TranscriptTokens {
    /// Per conversation, in order.
    pub conversations: Vec<ConversationTokens>,
}

/// Counts every conversation of `t`.
pub fn count_transcript(counter: &TokenCounter, t: &Transcript) -> TranscriptTokens {
    TranscriptTokens {
        conversations: t
            .conversations
            .par_iter()
            .map(|c| count_conversation(counter, c))
            .collect(),
    }
}
