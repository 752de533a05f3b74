//! Old thinking, dropped whole (the near-free rung, with `trim-outputs`): a thinking block is
//! signed, so editing it would break its `signature`; the Messages API accepts a request whose
//! earlier assistant turns come without their thinking (it needs only the latest turn's, which
//! the current turn keeps). Claude Code writes each block of a response as a record of its own
//! sharing `message.id`, so a block goes by dropping its record; the writer re-links the chain
//! around it. Only records whose response keeps another record go, so no assistant message is
//! left empty, and the most recent few stay like the most recent outputs.

use super::{Context, compactable};
use crate::plan::Plan;
use crate::transcript::Kind;
use std::collections::HashMap;

/// The positions in `plan` of thinking records that may go, oldest first, all but the most
/// recent `keep_recent`.
pub fn droppable(cx: &Context, plan: &Plan, keep_recent: usize) -> Vec<usize> {
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
    let thinking: Vec<usize> = cx
        .units(plan)
        .iter()
        .filter(|u| compactable(u))
        .flat_map(|u| u.elements.clone())
        .filter(|&at| {
            kept(at).is_some_and(|item| {
                item.in_context
                    && item.kind == Kind::Thinking
                    && item
                        .message_id
                        .as_deref()
                        .is_some_and(|id| rest.contains_key(id))
            })
        })
        .collect();
    let old = thinking.len().saturating_sub(keep_recent);
    thinking[..old].to_vec()
}

/// `plan` without its old thinking records (see [`droppable`]).
pub fn drop_old(cx: &Context, mut plan: Plan, keep_recent: usize) -> Plan {
    for at in droppable(cx, &plan, keep_recent).into_iter().rev() {
        plan.items.remove(at);
    }
    plan
}
