//! Old thinking, dropped whole (the near-free rung, with `trim-outputs`): a thinking block is
//! signed, so editing it would break its `signature`; the Messages API accepts a request whose
//! earlier assistant turns come without their thinking (it needs only the latest turn's, which
//! the current turn keeps). Claude Code writes each block of a response as a record of its own
//! sharing `message.id`, so there a block goes by dropping its record (the writer re-links the
//! chain around it); in an Anthropic message the blocks go from its content
//! ([`OutItem::DropThinking`]). A message always keeps its other content, never left empty,
//! and the most recent few thinking blocks stay, like the most recent outputs.

use super::{Context, compactable};
use crate::plan::Plan;
use crate::transcript::{Kind, OutItem, PartKind};
use std::collections::HashMap;

/// How old thinking goes from one plan position.
enum Drop {
    /// The whole record: a thinking record whose response keeps other records.
    Record,
    /// The message's thinking blocks; the rest of the message stays.
    Blocks,
}

/// The positions in `plan` of thinking that may go, oldest first, all but the most recent
/// `keep_recent`.
fn droppable(cx: &Context, plan: &Plan, keep_recent: usize) -> Vec<(usize, Drop)> {
    let s = cx.subject;
    let kept = |at: usize| plan.items[at].kept().map(|i| &s.conv.items[i]);
    // Records of each response in the plan that are not thinking: they keep its message.
    let mut rest: HashMap<&str, usize> = HashMap::new();
    for at in 0..plan.items.len() {
        if let Some(item) = kept(at).filter(|i| i.in_context && i.kind != Kind::Thinking) {
            if let Some(id) = &item.message_id {
                *rest.entry(id.as_str()).or_default() += 1;
            }
        }
    }
    let thinking: Vec<(usize, Drop)> = cx
        .units(plan)
        .iter()
        .filter(|u| compactable(u))
        .flat_map(|u| u.elements.clone())
        .filter_map(|at| {
            let item = kept(at).filter(|i| i.in_context)?;
            let thinks = item.parts.iter().any(|p| p.kind == PartKind::Thinking);
            let id = item.message_id.as_deref();
            if item.kind == Kind::Thinking && id.is_some_and(|id| rest.contains_key(id)) {
                Some((at, Drop::Record))
            } else if thinks
                && item.kind != Kind::Thinking
                && s.drops_thinking_blocks
                && matches!(plan.items[at], OutItem::Keep(_))
            {
                Some((at, Drop::Blocks))
            } else {
                None
            }
        })
        .collect();
    let old = thinking.len().saturating_sub(keep_recent);
    thinking.into_iter().take(old).collect()
}

/// `plan` without its old thinking (see [`droppable`]).
pub fn drop_old(cx: &Context, mut plan: Plan, keep_recent: usize) -> Plan {
    for (at, how) in droppable(cx, &plan, keep_recent).into_iter().rev() {
        match how {
            Drop::Record => {
                plan.items.remove(at);
            }
            Drop::Blocks => {
                let i = plan.items[at].originals().start;
                plan.items[at] = OutItem::DropThinking(i);
            }
        }
    }
    plan
}

/// How many thinking blocks the model was sent under `before` and is no longer sent under
/// `after` without a summary standing in for them: what a step's report line counts.
pub fn dropped(s: &crate::plan::Subject, before: &Plan, after: &Plan) -> usize {
    let blocks = |i: usize| {
        let item = &s.conv.items[i];
        let n = item.parts.iter().filter(|p| p.kind == PartKind::Thinking);
        if item.in_context { n.count() } else { 0 }
    };
    let mut covered = vec![false; s.conv.items.len()];
    let mut unthought = vec![false; s.conv.items.len()];
    for out in &after.items {
        out.originals().for_each(|i| covered[i] = true);
        if let OutItem::DropThinking(i) = out {
            unthought[*i] = true;
        }
    }
    before
        .items
        .iter()
        .filter_map(|out| match out {
            OutItem::Keep(i) | OutItem::Strip(i) if !covered[*i] || unthought[*i] => Some(*i),
            _ => None,
        })
        .map(blocks)
        .sum()
}
