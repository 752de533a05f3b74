//! What compaction must never change (DESIGN "Always preserved"), decided once per
//! conversation so the strategies that respect it and the verifier that checks it agree.
//!
//! Preserved verbatim: system and developer messages; the original task (the first user
//! message); earlier compaction summaries the model is sent (Claude Code's `isCompactSummary`
//! record, Codex `compacted` items, ctxc's own), which state the task when the first user
//! message lies before a compact boundary; every message holding `<Pin>...</Pin>`; the latest user message; and the current
//! turn — the last input the model received (the last user message or tool result, with the
//! tool call it answers) and everything after it. In an agent loop each model call is a turn,
//! so the current turn is the latest exchange, not the whole run since the user last typed:
//! that keeps a long autonomous run compactable while the user's latest words stay verbatim.
//! Protection covers whole tool-call groups, since no step may split one.
//!
//! History before the latest compact boundary is not sent to the model; it is *frozen*: kept
//! as it is (only its stored payloads may be stripped). So are the records that anchor the
//! file's structure (compact boundaries, Codex session metadata).

use crate::transcript::{Conversation, Kind};
use memchr::memmem::Finder;
use serde::Serialize;
use std::ops::Range;
use std::sync::LazyLock;

/// Why an item is preserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Reason {
    /// A system or developer message.
    System,
    /// The first user message: the original task.
    OriginalTask,
    /// An earlier compaction summary: it states the task once the history is gone.
    EarlierSummary,
    /// It holds `<Pin>` content.
    Pin,
    /// The latest user message.
    LatestUserMessage,
    /// Part of the current turn.
    CurrentTurn,
}

impl Reason {
    /// How the reason reads in reports.
    pub fn label(self) -> &'static str {
        match self {
            Reason::System => "system messages",
            Reason::OriginalTask => "the original task",
            Reason::EarlierSummary => "earlier summaries",
            Reason::Pin => "pinned messages",
            Reason::LatestUserMessage => "the latest user message",
            Reason::CurrentTurn => "the current turn",
        }
    }
}

/// How much freedom compaction has over one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Strategies may summarize, drop or mask it.
    Free,
    /// Must reach the output with its content unchanged.
    Preserved(Reason),
    /// History the model no longer sees: kept, only its payloads may be stripped.
    Frozen,
}

impl Hold {
    /// Whether strategies may remove or rewrite the item.
    pub fn is_free(self) -> bool {
        self == Hold::Free
    }
}

/// Whether a new summary may absorb this item: an earlier ctxc summary, preserved as such. Its
/// lists (the task first) are merged into the new summary, so repeated runs keep one ctxc
/// summary instead of stacking them (DESIGN "kept or merged into the new summary").
pub fn mergeable(hold: Hold, item: &crate::transcript::Item) -> bool {
    hold == Hold::Preserved(Reason::EarlierSummary) && item.ctxc_summary && item.in_context
}

/// The marker users put around content that must survive every compaction.
pub const PIN_OPEN: &str = "<Pin>";

/// [`PIN_OPEN`]'s searcher, built once: every part of every message is searched for it, and
/// memchr's memmem skips on a rare byte where `str::contains` reads every byte.
static PIN_FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(PIN_OPEN));

/// The hold of every item of `conv`, given its tool-call groups.
pub fn holds(conv: &Conversation, groups: &[Range<usize>]) -> Vec<Hold> {
    let items = &conv.items;
    let mut holds: Vec<Hold> = items
        .iter()
        .map(|item| {
            if item.anchor || (!item.in_context && item.kind != Kind::NonContext) {
                Hold::Frozen
            } else {
                Hold::Free
            }
        })
        .collect();
    let live = |i: &usize| items[*i].in_context;
    let mut reasons: Vec<(usize, Reason)> = Vec::new();
    for (i, item) in items.iter().enumerate().filter(|(i, _)| live(i)) {
        if item.kind == Kind::System {
            reasons.push((i, Reason::System));
        }
        if item.kind == Kind::Summary {
            reasons.push((i, Reason::EarlierSummary));
        }
        if item
            .parts
            .iter()
            .any(|p| PIN_FINDER.find(p.text.as_bytes()).is_some())
        {
            reasons.push((i, Reason::Pin));
        }
    }
    let users: Vec<usize> = (0..items.len())
        .filter(live)
        .filter(|&i| items[i].kind == Kind::User)
        .collect();
    if let Some(&first) = users.first() {
        reasons.push((first, Reason::OriginalTask));
    }
    if let Some(&last) = users.last() {
        reasons.push((last, Reason::LatestUserMessage));
    }
    let last_input = (0..items.len())
        .filter(live)
        .rfind(|&i| matches!(items[i].kind, Kind::User | Kind::ToolResult));
    if let Some(start) = last_input {
        (start..items.len()).for_each(|i| reasons.push((i, Reason::CurrentTurn)));
    }
    // Strongest reason first, so an item keeps the most telling one. Records the model never
    // sees (progress, snapshots) carry no content to preserve.
    reasons.sort_by_key(|(i, reason)| (*i, *reason));
    for (i, reason) in reasons {
        if holds[i] == Hold::Free && items[i].kind != Kind::NonContext {
            holds[i] = Hold::Preserved(reason);
        }
    }
    widen_to_groups(&mut holds, items, groups);
    holds
}

/// A preserved item protects its whole group: the call and results around it are kept too.
fn widen_to_groups(holds: &mut [Hold], items: &[crate::transcript::Item], groups: &[Range<usize>]) {
    for group in groups {
        let reason = holds[group.clone()].iter().find_map(|h| match h {
            Hold::Preserved(r) => Some(*r),
            _ => None,
        });
        if let Some(reason) = reason {
            for (hold, item) in holds[group.clone()].iter_mut().zip(&items[group.clone()]) {
                if *hold == Hold::Free && item.kind != Kind::NonContext {
                    *hold = Hold::Preserved(reason);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ReadOptions, read};

    fn holds_of(src: &str) -> Vec<Hold> {
        let t = read(src.to_string(), &ReadOptions::default()).unwrap();
        let conv = &t.conversations[0];
        holds(conv, &conv.groups())
    }

    #[test]
    fn system_task_pins_latest_user_and_current_turn_are_preserved() {
        let src = r#"[
{"role":"system","content":"be brief"},
{"role":"user","content":"fix the bug"},
{"role":"assistant","content":"looking"},
{"role":"user","content":"remember <Pin>use tabs</Pin>"},
{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"a","content":"ok"},
{"role":"assistant","content":"middle"},
{"role":"user","content":"now test it"},
{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"bash","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"b","content":"passed"},
{"role":"assistant","content":"done"}
]"#;
        use Hold::*;
        use Reason::*;
        assert_eq!(
            holds_of(src),
            [
                Preserved(System),
                Preserved(OriginalTask),
                Free,
                Preserved(Pin),
                Free,
                Free,
                Free,
                Preserved(LatestUserMessage),
                Preserved(CurrentTurn),
                Preserved(CurrentTurn),
                Preserved(CurrentTurn),
            ]
        );
    }
}
