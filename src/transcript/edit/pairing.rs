//! Which tool calls and results a repair must fix, from the pairing faults `check` finds
//! ([`pairing_faults`]), grouped the way a repair acts on them: one added result per
//! unanswered call, and per record the results it must lose.

use crate::transcript::{Conversation, Kind, PairingFault, PartKind, pairing_faults};
use std::collections::BTreeMap;

/// A call that gets the client's interrupted-call result.
#[derive(Debug)]
pub struct Unanswered {
    /// The item making the call.
    pub item: usize,
    /// The call id.
    pub id: String,
    /// The tool.
    pub name: String,
}

/// A record holding results that answer no open call.
#[derive(Debug)]
pub struct Stray {
    /// The item.
    pub item: usize,
    /// The call ids of its stray results.
    pub ids: Vec<String>,
    /// What is wrong, as `check` says it.
    pub fault: String,
    /// Whether the record holds nothing else (it is dropped whole).
    pub whole_item: bool,
}

/// A conversation's pairing faults, by what a repair does about them.
#[derive(Debug, Default)]
pub struct Faults {
    /// Calls to answer, in file order.
    pub unanswered: Vec<Unanswered>,
    /// Results to drop, by record in file order.
    pub stray: Vec<Stray>,
}

/// The pairing faults of `conv`. A call answered twice keeps its first answer; an answer that
/// comes after the conversation moved on is dropped, and its call answered as interrupted.
pub fn faults(conv: &Conversation) -> Faults {
    let mut faults = Faults::default();
    let mut stray: BTreeMap<usize, Vec<(String, crate::transcript::StrayWhy)>> = BTreeMap::new();
    for fault in pairing_faults(conv) {
        match fault {
            PairingFault::Unanswered { item, id, name, .. } => {
                faults.unanswered.push(Unanswered { item, id, name })
            }
            PairingFault::StrayResult { item, id, why } => {
                stray.entry(item).or_default().push((id, why))
            }
        }
    }
    faults.unanswered.sort_by_key(|u| u.item);
    for (item, results) in stray {
        let at = &conv.items[item];
        let ids: Vec<String> = results.iter().map(|(id, _)| id.clone()).collect();
        let only_results = at.parts.iter().all(|p| p.kind == PartKind::ToolResult);
        let fault = results
            .iter()
            .map(|(id, why)| format!("tool result for call '{id}' {}", why.describe()))
            .collect::<Vec<_>>()
            .join("; ");
        faults.stray.push(Stray {
            item,
            whole_item: only_results && at.results.iter().all(|r| ids.contains(r)),
            ids,
            fault,
        });
    }
    faults
}

/// The last item of the message (or run of calls) that item `item` is part of: where the
/// results of its calls go. Records the model never sees may sit in between.
pub fn message_end(conv: &Conversation, item: usize) -> usize {
    let own = &conv.items[item];
    let mut end = item;
    for (k, next) in conv.items.iter().enumerate().skip(item + 1) {
        let same_message = own.message_id.is_some() && next.message_id == own.message_id;
        let same_run = own.message_id.is_none()
            && next.message_id.is_none()
            && !next.calls.is_empty()
            && next.results.is_empty();
        if same_message || same_run {
            end = k;
        } else if next.kind != Kind::NonContext {
            break;
        }
    }
    end
}
