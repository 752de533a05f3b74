//! Writing an edited pi session: kept records byte for byte, `parentId`s re-pointed where a
//! parent went, and a ctxc summary written the way pi writes its own compaction.
//!
//! A summary becomes a `compaction` entry in the place of the entries it replaces, whose
//! `firstKeptEntryId` names the first kept entry pi sends before it: pi then sends the
//! summary, then every kept entry of the path. Only one compaction counts for pi (the latest
//! on the path), so a summary becomes a `custom_message` entry instead — which pi sends as a
//! user message where it stands — when the output keeps a compaction pi sends, or when a
//! later summary is the compaction. Version 1 files (no ids) get a version 1 compaction
//! (`firstKeptEntryIndex`), and their kept compactions' indexes are renumbered.

use super::super::common::replace_text_blocks;
use super::super::{Conversation, OutItem, SUMMARY_MARKER, Transcript};
use super::{CTXC_CUSTOM_TYPE, Links, Tree};
use crate::json::{member, parse_raw, quote, replace_member};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashSet;

/// `record` with its `toolCall` blocks' `arguments` rewritten as `edits` say (an object stays
/// an object); `None` when a call is not where the reader found it.
fn replace_arguments(record: &str, edits: &[super::super::CallEdit]) -> Option<String> {
    let content = member(member(parse_raw(record).ok()?, "message")?, "content")?;
    let arguments = super::super::common::block_members(content, &["toolCall"], "arguments")?;
    super::super::common::replace_arguments(record, &arguments, edits)
}

/// One record of an edited list, without link changes (the list's writer makes them).
pub(super) fn render_alone(t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    match out {
        OutItem::Keep(i) | OutItem::DropThinking(i) => raw(*i).to_string(),
        OutItem::Strip(i) => crate::transcript::payload::strip(raw(*i), &[]),
        OutItem::ReplaceResult(i, text) => replace_content(raw(*i), text),
        OutItem::ReplaceText(i, text) => replace_text(raw(*i), text),
        OutItem::ReplaceArguments(i, edits) => {
            replace_arguments(raw(*i), edits).unwrap_or_else(|| raw(*i).to_string())
        }
        OutItem::Summary { text, replaces } => {
            let timestamp = replaces.clone().find_map(|i| timestamp_of(raw(i)));
            custom_summary(None, None, timestamp, text)
        }
    }
}

/// Appends the edited list, each record ending as its original did.
pub(super) fn render_list(t: &Transcript, conv: &Conversation, items: &[OutItem], out: &mut String) {
    let tree = Tree::from_links(
        conv.items
            .iter()
            .map(|i| Links::of(&t.source[i.span.clone()]))
            .collect(),
    );
    let plan = Plan::of(&tree, conv, items);
    let texts: Vec<Cow<str>> = items
        .iter()
        .enumerate()
        .map(|(k, item)| plan.render(t, conv, &tree, k, item))
        .collect();
    super::super::render_layout(t, conv, items, texts.iter(), out);
}

/// What the writer settles before rendering: the id each original record now stands under,
/// the new records' ids, and which summary is the compaction.
struct Plan {
    /// For each original record, the output position standing for it (itself, or the
    /// summary that replaced it), if any.
    stands: Vec<Option<usize>>,
    /// Each output position's id (a kept record's own; a summary's new one).
    ids: Vec<Option<String>>,
    /// The output position of the summary written as a `compaction` entry.
    compaction: Option<usize>,
    /// The output position of the first record pi sends before that compaction.
    first_kept: Option<usize>,
    /// How many tokens pi would count before the compaction (its own chars / 4 estimate,
    /// over the records pi sent).
    tokens_before: u64,
}

impl Plan {
    fn of(tree: &Tree, conv: &Conversation, items: &[OutItem]) -> Plan {
        let n = conv.items.len();
        let mut stands = vec![None; n];
        for (k, item) in items.iter().enumerate() {
            for i in item.originals() {
                stands[i] = Some(k);
            }
        }
        let mut taken: HashSet<String> = tree.links.iter().filter_map(|l| l.id.clone()).collect();
        let ids: Vec<Option<String>> = items
            .iter()
            .map(|item| match item {
                OutItem::Summary { replaces, .. } if !tree.linear => {
                    Some(new_id(&tree.links[replaces.clone()], &mut taken))
                }
                OutItem::Summary { .. } => None,
                other => other.kept().and_then(|i| tree.links[i].id.clone()),
            })
            .collect();
        // pi honours only the latest compaction on the path: one it already sends stays it.
        let keeps_sent_compaction = items.iter().any(|item| {
            item.kept().is_some_and(|i| {
                tree.links[i].r#type == "compaction" && conv.items[i].in_context
            })
        });
        let compaction = if keeps_sent_compaction {
            None
        } else {
            items.iter().rposition(|item| matches!(item, OutItem::Summary { .. }))
        };
        let first_kept = compaction.and_then(|c| {
            items[..c].iter().position(|item| {
                item.kept().is_some_and(|i| conv.items[i].in_context)
                    || matches!(item, OutItem::Summary { .. })
            })
        });
        let first_kept = first_kept.or_else(|| {
            let c = compaction?;
            (c + 1..items.len()).find(|&k| items[k].kept().is_some())
        });
        let tokens_before = conv
            .items
            .iter()
            .filter(|i| i.in_context)
            .map(|i| i.span.len() as u64)
            .sum::<u64>()
            / 4;
        Plan {
            stands,
            ids,
            compaction,
            first_kept,
            tokens_before,
        }
    }

    /// The id of the nearest record above original `i` (its parent, or theirs) that the
    /// output keeps, other than output position `own`.
    fn parent_id(&self, tree: &Tree, i: usize, own: usize) -> Option<String> {
        let mut seen = HashSet::new();
        let mut at = tree.parent[i];
        while let Some(p) = at {
            if !seen.insert(p) {
                return None;
            }
            match self.stands[p] {
                Some(k) if k != own => return self.ids[k].clone(),
                _ => at = tree.parent[p],
            }
        }
        None
    }

    fn render<'t>(
        &self,
        t: &'t Transcript,
        conv: &Conversation,
        tree: &Tree,
        k: usize,
        item: &OutItem,
    ) -> Cow<'t, str> {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        if let OutItem::Summary { text, replaces } = item {
            let timestamp = replaces.clone().find_map(|i| timestamp_of(raw(i)));
            let parent = if tree.linear {
                None
            } else {
                Some(self.parent_id(tree, replaces.start, k))
            };
            let record = if self.compaction == Some(k) {
                self.compaction_record(tree, parent, timestamp, text)
            } else {
                custom_summary(self.ids[k].clone(), parent, timestamp, text)
            };
            return Cow::Owned(record);
        }
        let Some(i) = item.kept() else {
            return Cow::Borrowed("");
        };
        let mut text = match item {
            OutItem::Keep(_) | OutItem::DropThinking(_) => Cow::Borrowed(raw(i)),
            other => Cow::Owned(render_alone(t, conv, other)),
        };
        if !tree.linear && tree.links[i].r#type != "session" {
            let parent = self.parent_id(tree, i, k);
            if parent != tree.links[i].parent_id {
                let value = parent.as_deref().map_or("null".to_string(), quote);
                if let Some(relinked) = replace_member(&text, "parentId", &value) {
                    text = Cow::Owned(relinked);
                }
            }
        }
        if tree.linear && tree.links[i].first_kept_entry_index.is_some() {
            text = Cow::Owned(self.renumber(&text, &tree.links[i]));
        }
        text
    }

    /// A version 1 compaction's `firstKeptEntryIndex` as the output position of the first
    /// record at or after the one it named.
    fn renumber(&self, record: &str, links: &Links) -> String {
        let Some(old) = links.first_kept_entry_index else {
            return record.to_string();
        };
        let new = self.stands[old.min(self.stands.len())..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or(self.stands.len());
        replace_member(record, "firstKeptEntryIndex", &new.to_string())
            .unwrap_or_else(|| record.to_string())
    }

    /// The `compaction` entry pi's `appendCompaction` writes, member for member.
    fn compaction_record(
        &self,
        tree: &Tree,
        parent: Option<Option<String>>,
        timestamp: Option<Value>,
        text: &str,
    ) -> String {
        let mut record = Map::new();
        record.insert("type".into(), "compaction".into());
        let k = self.compaction.unwrap_or(0);
        if let Some(parent) = parent {
            record.insert("id".into(), self.ids[k].clone().into());
            record.insert("parentId".into(), parent.map_or(Value::Null, Value::String));
        }
        if let Some(ts) = timestamp {
            record.insert("timestamp".into(), ts);
        }
        record.insert("summary".into(), format!("{SUMMARY_MARKER}\n{text}").into());
        match (tree.linear, self.first_kept) {
            (false, Some(first)) => {
                record.insert("firstKeptEntryId".into(), self.ids[first].clone().into());
            }
            (true, Some(first)) => {
                record.insert("firstKeptEntryIndex".into(), first.into());
            }
            _ => {}
        }
        record.insert("tokensBefore".into(), self.tokens_before.into());
        Value::Object(record).to_string()
    }
}

/// A ctxc summary as a `custom_message` entry: pi sends it as a user message where it stands.
fn custom_summary(
    id: Option<String>,
    parent: Option<Option<String>>,
    timestamp: Option<Value>,
    text: &str,
) -> String {
    let mut record = Map::new();
    record.insert("type".into(), "custom_message".into());
    if let Some(parent) = parent {
        record.insert("id".into(), id.into());
        record.insert("parentId".into(), parent.map_or(Value::Null, Value::String));
    }
    if let Some(ts) = timestamp {
        record.insert("timestamp".into(), ts);
    }
    record.insert("customType".into(), CTXC_CUSTOM_TYPE.into());
    record.insert("content".into(), format!("{SUMMARY_MARKER}\n{text}").into());
    record.insert("display".into(), true.into());
    Value::Object(record).to_string()
}

/// An 8-hex-digit id as pi's `generateId` makes them, derived from the replaced records' ids
/// (so output never depends on chance) and unused in the file.
fn new_id(replaced: &[Links], taken: &mut HashSet<String>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for id in replaced.iter().filter_map(|l| l.id.as_deref()) {
        for b in id.bytes().chain([0]) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    loop {
        let id = format!("{:08x}", hash as u32);
        if taken.insert(id.clone()) {
            return id;
        }
        hash = hash.wrapping_mul(0x100_0000_01b3).wrapping_add(1);
    }
}

fn timestamp_of(record: &str) -> Option<Value> {
    let raw = member(parse_raw(record).ok()?, "timestamp")?;
    serde_json::from_str(raw.get()).ok()
}

/// A `toolResult` message with its content replaced by one text block.
fn replace_content(record: &str, text: &str) -> String {
    let edit = || {
        let message = member(parse_raw(record).ok()?, "message")?;
        let block = serde_json::json!([{"type": "text", "text": text}]).to_string();
        let new_message = replace_member(message.get(), "content", &block)?;
        replace_member(record, "message", &new_message)
    };
    edit().unwrap_or_else(|| record.to_string())
}

/// A message's text replaced (the first text block takes it, other text blocks go, images,
/// thinking and calls stay), or a summary entry's `summary` / a custom message's `content`.
fn replace_text(record: &str, text: &str) -> String {
    let edit = || {
        let raw = parse_raw(record).ok()?;
        let links = Links::of(record);
        if matches!(links.r#type.as_str(), "compaction" | "branch_summary") {
            return replace_member(record, "summary", &quote(text));
        }
        let (holder, key) = match member(raw, "message") {
            Some(message) => (message.get(), Some("message")),
            None => (record, None),
        };
        let content = member(parse_raw(holder).ok()?, "content")?;
        let new_content = if content.get().starts_with('"') {
            quote(text)
        } else {
            replace_text_blocks(content.get(), |b| b.get("type") == Some(&"text".into()), text)?
        };
        let new_holder = replace_member(holder, "content", &new_content)?;
        match key {
            Some(key) => replace_member(record, key, &new_holder),
            None => Some(new_holder),
        }
    };
    edit().unwrap_or_else(|| replace_content(record, text))
}
