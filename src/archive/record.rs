//! Building a compaction record from what the pipeline did: per conversation the triggers and
//! token and message counts, per step what changed — found by comparing the plan after the
//! step with the plan before it — and the restore pieces.

use super::delta;
use super::model::{
    Action, ConversationRecord, DatasetRecord, Edit, FileRef, Record, StepRecord, hash,
};
use crate::engine::Compaction;
use crate::json::LineIndex;
use crate::pipeline::{ConversationResult, Outcome};
use crate::plan::Plan;
use crate::transcript::{Conversation, OutItem, Transcript};
use std::collections::HashMap;

/// The record of compacting `original` into `outcome.output`, with no paths yet.
pub fn record(original: &Transcript, outcome: &Outcome, settings: serde_json::Value) -> Record {
    let conversations = conversations(original, outcome);
    let triggers = triggers(&conversations);
    Record {
        ctxc_version: env!("CARGO_PKG_VERSION").into(),
        time: crate::time::now(),
        format: original.format.name().into(),
        input: file_ref(original.source.as_bytes()),
        output: file_ref(outcome.output.as_bytes()),
        changed: outcome.changed,
        triggers,
        settings,
        conversations,
        restore: delta::pieces(original, outcome),
        generation: 1,
        previous_output: None,
        output_copy: None,
        pending: false,
        dataset: None,
    }
}

/// The record of compacting a Parquet dataset: its files, what happened to the
/// conversations of its rows, and their restore data; no paths yet.
pub fn dataset_record(
    files: (FileRef, FileRef),
    conversations: Vec<ConversationRecord>,
    settings: serde_json::Value,
    dataset: DatasetRecord,
) -> Record {
    let (input, output) = files;
    Record {
        ctxc_version: env!("CARGO_PKG_VERSION").into(),
        time: crate::time::now(),
        format: "parquet".into(),
        input,
        output,
        changed: !dataset.changed.is_empty(),
        triggers: triggers(&conversations),
        settings,
        conversations,
        restore: Vec::new(),
        generation: 1,
        previous_output: None,
        output_copy: None,
        pending: false,
        dataset: Some(dataset),
    }
}

/// A file's size and hash, no paths yet.
pub fn file_ref_of(bytes: u64, hash: String) -> FileRef {
    FileRef {
        path: None,
        relative_to_archive: None,
        bytes,
        hash,
    }
}

/// What happened to each conversation compaction ran on (those where a trigger fired).
pub fn conversations(original: &Transcript, outcome: &Outcome) -> Vec<ConversationRecord> {
    let lines = LineIndex::new(&original.source);
    outcome
        .conversations
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.triggers.is_empty() || r.compaction.is_some())
        .map(|(c, r)| {
            let edited = outcome.spans.get(c).is_some_and(Option::is_some);
            conversation(&original.conversations[c], r, edited, &lines)
        })
        .collect()
}

/// The triggers that fired in any of `conversations`, in order of first appearance.
pub fn triggers(conversations: &[ConversationRecord]) -> Vec<String> {
    let mut triggers: Vec<String> = Vec::new();
    for name in conversations.iter().flat_map(|c| &c.triggers) {
        if !triggers.contains(name) {
            triggers.push(name.clone());
        }
    }
    triggers
}

pub(super) fn file_ref(bytes: &[u8]) -> FileRef {
    FileRef {
        path: None,
        relative_to_archive: None,
        bytes: bytes.len() as u64,
        hash: hash(bytes),
    }
}

fn conversation(
    conv: &Conversation,
    r: &ConversationResult,
    edited: bool,
    lines: &LineIndex,
) -> ConversationRecord {
    let steps = r
        .compaction
        .as_ref()
        .map(|k| steps(conv, k, r.before.events, lines))
        .unwrap_or_default();
    ConversationRecord {
        location: r.location.clone(),
        lines: line_range(lines, conv.span.start, conv.span.end),
        triggers: r.triggers.iter().map(|t| t.name().to_string()).collect(),
        edited,
        target_tokens: r.target_tokens,
        tokens_before: r.before.tokens,
        tokens_after: r.tokens_after,
        messages_before: r.before.events,
        messages_after: r.messages_after,
        shortfall: r
            .compaction
            .as_ref()
            .and_then(|k| k.shortfall.as_ref().map(ToString::to_string)),
        steps,
    }
}

fn steps(
    conv: &Conversation,
    k: &Compaction,
    messages_before: usize,
    lines: &LineIndex,
) -> Vec<StepRecord> {
    let keep_all = Plan {
        items: (0..conv.items.len()).map(OutItem::Keep).collect(),
    };
    let mut previous = &keep_all;
    let mut messages = messages_before;
    let mut records = Vec::with_capacity(k.steps.len());
    for (i, step) in k.steps.iter().enumerate() {
        let after = k.plan_after(i);
        let edits = after.map_or_else(Vec::new, |after| edits(conv, previous, after, lines));
        records.push(StepRecord {
            strategy: step.strategy.name().into(),
            changed: step.changed,
            tokens_before: step.tokens_before,
            tokens_after: step.tokens_after,
            messages_before: messages,
            messages_after: step.messages_after,
            edits,
        });
        messages = step.messages_after;
        if let Some(after) = after {
            previous = after;
        }
    }
    records
}

/// What turned `before` into `after`: new summaries, and runs of items dropped, masked,
/// truncated or stripped, in original order.
fn edits(conv: &Conversation, before: &Plan, after: &Plan, lines: &LineIndex) -> Vec<Edit> {
    let n = conv.items.len();
    let mut action: Vec<Option<Action>> = vec![None; n];
    let (was, is) = (covered(before, n), covered(after, n));
    for i in 0..n {
        if was[i] && !is[i] {
            action[i] = Some(Action::Dropped);
        }
    }
    // Output items stand for disjoint original ranges, so the range names one in each plan.
    let old: HashMap<(usize, usize), &OutItem> = before
        .items
        .iter()
        .map(|o| ((o.originals().start, o.originals().end), o))
        .collect();
    let mut edits = Vec::new();
    for out in &after.items {
        let range = out.originals();
        if old.get(&(range.start, range.end)) == Some(&out) {
            continue;
        }
        match out {
            OutItem::Summary { text, replaces } if !replaces.is_empty() => {
                let mut edit = edit(conv, Action::Summarized, replaces.clone(), lines);
                edit.summary = Some(text.clone());
                edits.push(edit);
            }
            OutItem::ReplaceResult(i, _) => action[*i] = Some(Action::Masked),
            OutItem::ReplaceText(i, _)
            | OutItem::DropThinking(i)
            | OutItem::ReplaceArguments(i, _) => action[*i] = Some(Action::Truncated),
            OutItem::Strip(i) => action[*i] = Some(Action::Stripped),
            OutItem::Summary { .. } | OutItem::Keep(_) => {}
        }
    }
    let mut i = 0;
    while i < n {
        let Some(a) = action[i] else {
            i += 1;
            continue;
        };
        let end = (i..n).find(|&j| action[j] != Some(a)).unwrap_or(n);
        edits.push(edit(conv, a, i..end, lines));
        i = end;
    }
    edits.sort_by_key(|e| (e.items[0], e.action));
    edits
}

/// Which original items a plan still stands for (kept, edited or summarized).
fn covered(plan: &Plan, n: usize) -> Vec<bool> {
    let mut covered = vec![false; n];
    for out in &plan.items {
        out.originals().for_each(|i| covered[i] = true);
    }
    covered
}

fn edit(
    conv: &Conversation,
    action: Action,
    items: std::ops::Range<usize>,
    lines: &LineIndex,
) -> Edit {
    let (first, last) = (&conv.items[items.start], &conv.items[items.end - 1]);
    Edit {
        action,
        items: [items.start, items.end - 1],
        lines: line_range(lines, first.span.start, last.span.end),
        bytes: conv.items[items].iter().map(|i| i.span.len()).sum(),
        summary: None,
    }
}

/// First and last line of the bytes `start..end`.
fn line_range(lines: &LineIndex, start: usize, end: usize) -> [usize; 2] {
    [lines.line_of(start), lines.line_of(end.max(start + 1) - 1)]
}
