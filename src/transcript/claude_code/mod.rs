//! Claude Code sessions: JSONL with one record per line, and the `{"loglines": [...]}` JSON
//! export of the same records.
//!
//! Records form a tree through `uuid` / `parentUuid`, and Claude Code resumes a session by
//! walking from the newest record up that chain. So this adapter owns what no other format
//! needs: when records are removed or replaced, every surviving link is re-pointed at the
//! nearest surviving ancestor, splicing only that value so the rest of each line stays
//! byte-identical. It also knows which records never reach the model (progress, snapshots,
//! queue operations, titles, system notices, and everything before the latest compact
//! boundary), that one API response is stored as several `assistant` records sharing
//! `message.id`, and that a tool result is stored twice (the `tool_result` block the model
//! sees, and a structured `toolUseResult` copy it never sees).

mod chain;
mod read;
#[cfg(test)]
mod tests;
mod repair;
mod replay;
mod write;

pub use chain::{Chain, uuid_from};
use chain::*;
use read::*;
use write::*;

use super::common::{element_indent, lines_span, value_error};
use super::edit::Step;
use super::replay::Keys;
use super::{
    Adapter, Conversation, Copied, CopiedRecords, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage, render_layout,
};
use crate::json::{Node, 
    ArrayLayout, Span, array_elements, member, object_members, parse_raw, quote, replace_member,
    span_of, splice, to_string_styled,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::ops::Range;

/// The Claude Code session adapter.
pub struct ClaudeCode;

/// The field ctxc sets on the summaries it writes, beside the text marker.
const CTXC_FLAG: &str = "ctxcSummary";

/// Fields that name another record; all are re-linked when the record they name is removed.
const LINK_KEYS: [&str; 3] = ["parentUuid", "logicalParentUuid", "leafUuid"];

/// Fields a written summary copies from the records it replaces, and a result `repair`
/// inserts from the record that made the call, so Claude Code files it under the same
/// session, directory and branch. In Claude Code's own field order.
pub(crate) const CONTEXT_KEYS: [&str; 8] = [
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
];

impl Adapter for ClaudeCode {
    fn content_keys(&self) -> &'static [&'static str] {
        &["content"]
    }

    fn detect(&self, doc: &Doc) -> bool {
        let (records, _) = records(doc);
        let mut ours = 0;
        let mut foreign = 0;
        for (at, record) in records.iter().enumerate() {
            match classify(record.node) {
                Some(true) => ours += 1,
                Some(false) => foreign += 1,
                None => {}
            }
            // Decided once the records left cannot turn the majority (classifying reads each
            // record whole: the second half of a session need not be read for this).
            let left = records.len() - at - 1;
            if ours > foreign + left || ours + left <= foreign {
                break;
            }
        }
        // A majority rather than all: sessions gain record types over time, and old synthetic
        // fixtures carry junk lines.
        ours > foreign
    }

    fn replay_keys(&self) -> Option<Keys> {
        Some(Keys {
            key: replay::key,
            candidates: Some(replay::candidates),
        })
    }

    fn repair_steps(&self) -> &'static [Step] {
        &[repair::replays, repair::chain, repair::pairing]
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        read_session(doc, None, each)
    }

    fn read_back(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        copied: &CopiedRecords,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        read_session(doc, Some(copied), each)
    }

    fn reads_back_copies(&self, _source_len: usize) -> bool {
        true
    }


    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        // Alone, an item is written as if every other record were kept.
        let plan = plan_around(conv.items.len(), out);
        let at = plan
            .iter()
            .position(|o| o == out)
            .expect("the plan holds the item");
        let chains = chains_of(&t.source, conv);
        let links = Links::new(&chains, &plan);
        render_item(t, conv, &chains, &links, at, out).into_owned()
    }

    fn render_list(
        &self,
        t: &Transcript,
        conv: &Conversation,
        items: &[OutItem],
        out: &mut String,
    ) {
        let chains = chains_of(&t.source, conv);
        let links = Links::new(&chains, items);
        let texts = items
            .iter()
            .enumerate()
            .map(|(at, item)| render_item(t, conv, &chains, &links, at, item));
        render_layout(t, conv, items, texts, out);
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        let chains = chains_of(source, conv);
        let index = uuid_index(&chains);
        let mut findings = dangling_links(conv, &chains, &index);
        findings.extend(cycles(conv, &chains, &index));
        findings.extend(repeated_uuids(conv, &chains, &index));
        findings
    }

    fn copy_members(&self) -> &'static [&'static str] {
        &COPY_MEMBERS
    }

    fn drops_thinking_blocks(&self) -> bool {
        true
    }

    fn rewrites_arguments(&self) -> bool {
        true
    }
}

/// Reads a session: its records, each decoded unless `copied` names it (see
/// [`Adapter::read_back`]).
fn read_session(
    doc: &Doc,
    copied: Option<&CopiedRecords>,
    each: &mut dyn FnMut(Conversation),
) -> Result<String, ReadError> {
    let (records, container) = records(doc);
    let (items, model) = read_items(doc, &records, copied)?;
    let (span, location, layout, description) = match container {
        Container::Lines(layout) => (lines_span(doc), String::new(), layout, "jsonl"),
        Container::Array { list, location } => {
            let base = doc.span_of(list).start;
            let relative: Vec<Span> = records
                .iter()
                .map(|r| r.span.start - base..r.span.end - base)
                .collect();
            let layout = ListLayout::Array(ArrayLayout::of(list.get(), &relative));
            (doc.span_of(list), location.to_string(), layout, "json array")
        }
        Container::Single(root) => {
            (doc.span_of(root), String::new(), ListLayout::Single, "json")
        }
    };
    let description = match location.as_str() {
        "" => description.to_string(),
        location => format!("json {location}"),
    };
    let conversation = Conversation {
        span,
        location,
        items,
        preamble: Vec::new(),
        layout,
        model,
        context_window: None,
    };
    each(conversation);
    Ok(description)
}


/// The structured copy of a tool result kept for Claude Code's UI; the model gets the
/// `tool_result` block.
const COPY_MEMBERS: [&str; 1] = ["toolUseResult"];

/// Record types that never reach the model and that resuming does not need.
const DISPOSABLE_TYPES: [&str; 6] = [
    "progress",
    "file-history-snapshot",
    REPLAY_TYPES[0],
    REPLAY_TYPES[1],
    REPLAY_TYPES[2],
    REPLAY_TYPES[3],
];

/// The records Claude Code ≥ 2.1.330 writes to replay its requests (about 300 KB per resumed
/// turn: the system prompt and tools, every message again): its loader ignores them (they are
/// "ignored" in the record table of its 2.1.330 binary) and clears them at a compact boundary,
/// so they never reach the model and resuming does not need them. A blob may still hold a
/// summary Claude Code wrote long ago: it is not the session's.
const REPLAY_TYPES: [&str; 4] = [
    "api-request-shape",
    "api-request-blob",
    "api-request",
    "api-request-resumed",
];
