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

use super::common::{element_indent, lines_span, value_error};
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage, render_layout,
};
use crate::json::{
    ArrayLayout, Span, array_elements, member, object_members, parse_raw, quote, replace_member,
    span_of, splice, to_string_styled,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// The Claude Code session adapter.
pub struct ClaudeCode;

/// The field ctxc sets on the summaries it writes, beside the text marker.
const CTXC_FLAG: &str = "ctxcSummary";

/// Fields that name another record; all are re-linked when the record they name is removed.
const LINK_KEYS: [&str; 3] = ["parentUuid", "logicalParentUuid", "leafUuid"];

/// Fields a written summary copies from the records it replaces, so Claude Code files it under
/// the same session, directory and branch. In Claude Code's own field order.
const CONTEXT_KEYS: [&str; 8] = [
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
    fn detect(&self, doc: &Doc) -> bool {
        let (records, _) = records(doc);
        let mut ours = 0;
        let mut foreign = 0;
        for record in &records {
            match classify(record.raw) {
                Some(true) => ours += 1,
                Some(false) => foreign += 1,
                None => {}
            }
        }
        // A majority rather than all: sessions gain record types over time, and old synthetic
        // fixtures carry junk lines.
        ours > foreign
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let (records, container) = records(doc);
        let (items, model) = read_items(doc, &records)?;
        let (span, location, layout, description) = match container {
            Container::Lines(layout) => (lines_span(doc), String::new(), layout, "jsonl"),
            Container::Array { list, location } => {
                let base = doc.span(list).start;
                let relative: Vec<Span> = records
                    .iter()
                    .map(|r| r.span.start - base..r.span.end - base)
                    .collect();
                let layout = ListLayout::Array(ArrayLayout::of(list.get(), &relative));
                (doc.span(list), location.to_string(), layout, "json array")
            }
            Container::Single(root) => (doc.span(root), String::new(), ListLayout::Single, "json"),
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
        let mut findings = dangling_links(conv, &chains);
        findings.extend(cycles(conv, &chains));
        findings.extend(repeated_uuids(conv, &chains));
        findings
    }

    fn copy_members(&self) -> &'static [&'static str] {
        &COPY_MEMBERS
    }

    fn drops_thinking_blocks(&self) -> bool {
        true
    }
}

/// The structured copy of a tool result kept for Claude Code's UI; the model gets the
/// `tool_result` block.
const COPY_MEMBERS: [&str; 1] = ["toolUseResult"];

/// Record types that never reach the model and that resuming does not need.
const DISPOSABLE_TYPES: [&str; 2] = ["progress", "file-history-snapshot"];

// ----- Containers and detection -----

/// Where a file keeps its records.
enum Container<'a> {
    /// One record per line.
    Lines(ListLayout),
    /// A JSON array of records: an export's `loglines`, or the whole document.
    Array {
        list: &'a RawValue,
        location: &'static str,
    },
    /// One pretty-printed record.
    Single(&'a RawValue),
}

/// One stored record: its bytes in the source and its value.
struct Record<'a> {
    span: Span,
    raw: &'a RawValue,
}

fn records<'a>(doc: &Doc<'a>) -> (Vec<Record<'a>>, Container<'a>) {
    let root = match doc {
        Doc::Lines {
            lines,
            newline,
            trailing_newline,
            ..
        } => {
            let records = lines
                .iter()
                .map(|l| Record {
                    span: l.range(),
                    raw: l.raw,
                })
                .collect();
            let layout = ListLayout::Lines {
                newline,
                trailing_newline: *trailing_newline,
            };
            return (records, Container::Lines(layout));
        }
        Doc::Json { root, .. } => *root,
    };
    let list = match member(root, "loglines") {
        Some(list) if list.get().starts_with('[') => Some((list, "/loglines")),
        _ if root.get().starts_with('[') => Some((root, "")),
        _ => None,
    };
    match list {
        Some((list, location)) => {
            let records = array_elements(list)
                .unwrap_or_default()
                .into_iter()
                .map(|raw| Record {
                    span: doc.span(raw),
                    raw,
                })
                .collect();
            (records, Container::Array { list, location })
        }
        None => {
            let record = Record {
                span: doc.span(root),
                raw: root,
            };
            (vec![record], Container::Single(root))
        }
    }
}

/// Whether a record looks like Claude Code's (`Some(true)`), like another format's
/// (`Some(false)`: a Codex line, an OpenAI message), or says nothing (`None`).
fn classify(raw: &RawValue) -> Option<bool> {
    let members = object_members(raw)?;
    let has = |key: &str| members.iter().any(|(k, _)| k == key);
    let kind = members
        .iter()
        .find(|(k, _)| k == "type")
        .and_then(|(_, v)| serde_json::from_str::<String>(v.get()).ok());
    let Some(kind) = kind else {
        // A usage export's record (what ccusage reads): a timestamp and a `message` holding
        // only what the answer cost (`usage`, `model`, `id`), beside `costUSD` and `requestId`.
        if has("role") {
            return Some(false);
        }
        let message = members
            .iter()
            .find(|(k, _)| k == "message")
            .map(|(_, v)| *v);
        let usage_only = message.is_some_and(|m| {
            member(m, "usage").is_some_and(|u| u.get().starts_with('{'))
                && member(m, "content").is_none()
                && member(m, "role").is_none()
        });
        return (usage_only && has("timestamp")).then_some(true);
    };
    // Exports and older or stripped sessions drop the chain fields: a `user` or `assistant`
    // record carrying its `message` (even one holding only `usage`) is still Claude Code's.
    let message = members
        .iter()
        .any(|(k, v)| k == "message" && v.get().starts_with('{'));
    Some(match kind.as_str() {
        "user" | "assistant" => has("uuid") || has("parentUuid") || has("sessionId") || message,
        "system" | "progress" => has("uuid") || has("parentUuid") || has("sessionId"),
        "summary" => has("leafUuid"),
        "file-history-snapshot" => has("messageId") && has("snapshot"),
        "queue-operation" => has("operation"),
        _ => false,
    })
}

// ----- Reading -----

/// The records' items, and the model that answered last (`message.model` of the last
/// assistant record; `<synthetic>` marks messages Claude Code wrote itself).
fn read_items(doc: &Doc, records: &[Record]) -> Result<(Vec<Item>, Option<String>), ReadError> {
    let mut items = Vec::with_capacity(records.len());
    let mut boundary = None;
    let mut model = None;
    for (i, record) in records.iter().enumerate() {
        let line = doc.line_of(record.span.start);
        let value: Value = crate::json::lenient::value(record.raw.get())
            .map_err(|e| value_error(line, record.span.start, &e))?;
        let is_boundary = is_compact_boundary(&value);
        if is_boundary {
            boundary = Some(i);
        }
        let mut item = Item::new(record.span.clone(), line, Role::None, Kind::NonContext);
        parse_record(&value, &mut item);
        if item.role == Role::Assistant {
            let named = value.pointer("/message/model").and_then(Value::as_str);
            if let Some(name) = named.filter(|m| !m.is_empty() && !m.starts_with('<')) {
                model = Some(name.to_owned());
            }
        }
        item.anchor = is_boundary;
        item.boundary = is_boundary;
        item.stored_only_bytes = member(record.raw, "toolUseResult").map_or(0, |v| v.get().len());
        item.disposable = value
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| DISPOSABLE_TYPES.contains(&t));
        items.push(item);
    }
    // The model's live context starts at the latest compaction; older records are history.
    if let Some(boundary) = boundary {
        items[..boundary]
            .iter_mut()
            .for_each(|item| item.in_context = false);
    }
    merge_usage(&mut items);
    let chains: Vec<Chain> = records.iter().map(|r| Chain::of(r.raw.get())).collect();
    // Resuming walks up from the newest record and stops at the boundary, so the chain above
    // it is never read again; records outside the chain (titles, queue operations) stay.
    let above = boundary.unwrap_or(0);
    for (item, chain) in items[..above].iter_mut().zip(&chains) {
        item.stale_history = chain.is_linked() && !item.anchor;
    }
    // The first prompt the user typed titles the session wherever it is (when no record names
    // it): anchored, it outlives the history it opens.
    let title = records[..above]
        .iter()
        .position(|r| crate::sessions::claude_code_prompt(r.raw.get()).is_some());
    if let Some(item) = title.map(|i| &mut items[i]) {
        item.anchor = true;
        item.stale_history = false;
    }
    drop_external_results(&mut items, &chains);
    for (item, chain) in items.iter_mut().zip(chains) {
        item.chain = Some(Box::new(chain));
    }
    Ok((items, model))
}

/// Where the model's context restarts: a `compact_boundary` record, or a runtime compact
/// summary that lost its boundary (a compaction that dropped the boundary re-links the summary
/// to null, and Claude Code's walk up the chain then stops at the summary).
fn is_compact_boundary(value: &Value) -> bool {
    let is = |key: &str| value.get(key) == Some(&Value::Bool(true));
    let boundary = value.get("type").and_then(Value::as_str) == Some("system")
        && value.get("subtype").and_then(Value::as_str) == Some("compact_boundary");
    let orphaned_summary =
        is("isCompactSummary") && !is(CTXC_FLAG) && value.get("parentUuid") == Some(&Value::Null);
    boundary || orphaned_summary
}

/// Fills `item` from a `user` or `assistant` record; every other record stays non-context.
fn parse_record(value: &Value, item: &mut Item) {
    let kind = value.get("type").and_then(Value::as_str);
    let Some(message) = value.get("message").filter(|m| m.is_object()) else {
        return;
    };
    // Claude Code 2.1 writes some user records for the transcript only (a background task's
    // notification, which reaches the model as a system reminder of the next prompt instead).
    let transcript_only = value.get("queueTranscriptOnly") == Some(&Value::Bool(true));
    if !matches!(kind, Some("user" | "assistant")) || transcript_only {
        return;
    }
    item.role = match message.get("role").and_then(Value::as_str).or(kind) {
        Some("assistant") => Role::Assistant,
        _ => Role::User,
    };
    match message.get("content") {
        Some(Value::String(s)) => item.parts.push(Part::new(PartKind::Text, s)),
        Some(Value::Array(blocks)) => blocks.iter().for_each(|b| push_block(b, item)),
        _ => {}
    }
    item.message_id = message.get("id").and_then(Value::as_str).map(String::from);
    item.meta = value.get("isMeta") == Some(&Value::Bool(true));
    item.usage = message.get("usage").map(usage_of).map(Box::new);
    let marked = value.get(CTXC_FLAG) == Some(&Value::Bool(true))
        || item
            .parts
            .first()
            .is_some_and(|p| p.text.starts_with(SUMMARY_MARKER));
    item.ctxc_summary = marked && item.role == Role::User;
    let compact_summary = value.get("isCompactSummary") == Some(&Value::Bool(true));
    item.kind = if item.ctxc_summary || compact_summary {
        Kind::Summary
    } else {
        message_kind(item)
    };
    item.in_context = true;
}

fn message_kind(item: &Item) -> Kind {
    let all_thinking =
        !item.parts.is_empty() && item.parts.iter().all(|p| p.kind == PartKind::Thinking);
    match item.role {
        Role::Assistant if !item.calls.is_empty() => Kind::ToolCall,
        Role::Assistant if all_thinking => Kind::Thinking,
        Role::Assistant => Kind::AssistantText,
        _ if !item.results.is_empty() => Kind::ToolResult,
        _ => Kind::User,
    }
}

/// Adds one content block of an Anthropic message.
fn push_block(block: &Value, item: &mut Item) {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    let Some(kind) = block.get("type").and_then(Value::as_str) else {
        // Bare strings in a content list: seen in hand-written fixtures, sent as text.
        if let Some(s) = block.as_str() {
            item.parts.push(Part::new(PartKind::Text, s));
        }
        return;
    };
    match kind {
        "text" => item.parts.push(Part::new(PartKind::Text, text("text"))),
        "thinking" => item
            .parts
            .push(Part::new(PartKind::Thinking, text("thinking"))),
        // Encrypted reasoning: its text is opaque, so only its presence is counted.
        "redacted_thinking" => item
            .parts
            .push(Part::new(PartKind::Thinking, "[redacted thinking]")),
        "tool_use" => {
            let name = text("name");
            item.calls.push(ToolCall {
                id: text("id").to_string(),
                name: name.to_string(),
            });
            item.parts.push(Part::new(PartKind::ToolName, name));
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            item.parts.push(Part::new(PartKind::ToolArguments, input));
        }
        "tool_result" => {
            if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                item.results.push(id.to_string());
            }
            item.is_error |= block.get("is_error") == Some(&Value::Bool(true));
            push_result(block.get("content"), item);
        }
        _ if block.get("text").is_some() => {
            item.parts.push(Part::new(PartKind::Text, text("text")))
        }
        // Images and documents: the model is charged for the media, not for its base64 text.
        other => item
            .parts
            .push(Part::new(PartKind::Media, format!("[{other}]"))),
    }
}

/// Adds a tool result's content: a string, or a list of text and media blocks.
fn push_result(content: Option<&Value>, item: &mut Item) {
    match content {
        Some(Value::String(s)) => item.parts.push(Part::new(PartKind::ToolResult, s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                let text = block.get("text").and_then(Value::as_str).or(block.as_str());
                let part = match (text, block.get("type").and_then(Value::as_str)) {
                    (Some(text), _) => Part::new(PartKind::ToolResult, text),
                    (None, kind) => {
                        Part::new(PartKind::Media, format!("[{}]", kind.unwrap_or("media")))
                    }
                };
                item.parts.push(part);
            }
        }
        _ => {}
    }
}

fn usage_of(usage: &Value) -> Usage {
    let field = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: field("input_tokens"),
        output_tokens: field("output_tokens"),
        cache_creation_input_tokens: field("cache_creation_input_tokens"),
        cache_read_input_tokens: field("cache_read_input_tokens"),
    }
}

/// Claude Code repeats one response's usage on every record of it, with `output_tokens`
/// growing as the response streams. Keeps it once per message id (on the first record, with
/// the largest value of each field) so totals are not multiplied.
fn merge_usage(items: &mut [Item]) {
    let mut first: HashMap<String, usize> = HashMap::new();
    for i in 0..items.len() {
        let (Some(id), Some(usage)) = (&items[i].message_id, items[i].usage.as_deref().copied())
        else {
            continue;
        };
        match first.get(id) {
            None => {
                first.insert(id.clone(), i);
            }
            Some(&f) => {
                items[i].usage = None;
                let kept = items[f].usage.get_or_insert_default();
                **kept = larger(**kept, usage);
            }
        }
    }
}

/// The larger value of each field.
fn larger(a: Usage, b: Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.max(b.input_tokens),
        output_tokens: a.output_tokens.max(b.output_tokens),
        cache_creation_input_tokens: a
            .cache_creation_input_tokens
            .max(b.cache_creation_input_tokens),
        cache_read_input_tokens: a.cache_read_input_tokens.max(b.cache_read_input_tokens),
    }
}

/// A file may begin mid-chain (single-record samples; compaction agents forked from their
/// parent session). A result whose call is not in the file, on a record whose chain runs out
/// of the file, answers a call stored elsewhere: the pairing rules cannot see that call, so the
/// result is not recorded as answering one. A result on a chain rooted in the file keeps its
/// id, and a missing call is reported.
fn drop_external_results(items: &mut [Item], chains: &[Chain]) {
    let index = uuid_index(chains);
    let mut calls: HashSet<String> = HashSet::new();
    for (i, item) in items.iter_mut().enumerate() {
        let unseen = item.results.iter().any(|id| !calls.contains(id));
        if unseen && leaves_file(i, chains, &index) {
            item.results.retain(|id| calls.contains(id));
        }
        calls.extend(item.calls.iter().map(|c| c.id.clone()));
    }
}

/// Whether walking up from record `i` reaches a parent that is not in the file.
fn leaves_file(i: usize, chains: &[Chain], index: &HashMap<&str, usize>) -> bool {
    let mut at = i;
    // Bounded: a cycle of links must not hang the reader.
    for _ in 0..chains.len() {
        let Some(parent) = chains[at].parent_uuid.as_deref() else {
            return false;
        };
        match index.get(parent) {
            Some(&j) => at = j,
            None => return true,
        }
    }
    false
}

// ----- The chain -----

/// A record's links, read straight from its text. Absent and null links are `None`; a record
/// that is not an object, or whose links are not strings, has none. Kept on the record's item
/// ([`Item::chain`]) when it is read, so that checking and writing it do not parse it again.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chain {
    uuid: Option<String>,
    parent_uuid: Option<String>,
    logical_parent_uuid: Option<String>,
    leaf_uuid: Option<String>,
}

impl Chain {
    fn of(raw: &str) -> Chain {
        serde_json::from_str(raw).unwrap_or_default()
    }

    /// The present link fields, with the uuid each names.
    fn links(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let values = [
            &self.parent_uuid,
            &self.logical_parent_uuid,
            &self.leaf_uuid,
        ];
        LINK_KEYS
            .into_iter()
            .zip(values)
            .filter_map(|(key, value)| Some((key, value.as_deref()?)))
    }

    /// Whether the record takes part in the chain at all (snapshots and titles do not).
    fn is_linked(&self) -> bool {
        self.uuid.is_some() || self.parent_uuid.is_some()
    }
}

/// The links of each item's record: those read with it, else parsed from `source`.
fn chains_of(source: &str, conv: &Conversation) -> Vec<Chain> {
    conv.items
        .iter()
        .map(|item| match &item.chain {
            Some(chain) => Chain::clone(chain),
            None => Chain::of(&source[item.span.clone()]),
        })
        .collect()
}

/// Each uuid's first record.
fn uuid_index(chains: &[Chain]) -> HashMap<&str, usize> {
    let mut index = HashMap::new();
    for (i, chain) in chains.iter().enumerate() {
        if let Some(uuid) = &chain.uuid {
            index.entry(uuid.as_str()).or_insert(i);
        }
    }
    index
}

/// `parentUuid`s naming no record of the file. The file may begin mid-chain: records before
/// the first one that is a root or links inside the file may point outside it (single-record
/// samples do, and compaction agents link their opening records into the parent session).
fn dangling_links(conv: &Conversation, chains: &[Chain]) -> Vec<Finding> {
    let index = uuid_index(chains);
    let mut opening = true;
    let mut findings = Vec::new();
    for (item, chain) in conv.items.iter().zip(chains) {
        if !chain.is_linked() {
            continue;
        }
        match chain.parent_uuid.as_deref() {
            Some(parent) if !index.contains_key(parent) => {
                if !opening {
                    findings.push(Finding::new(
                        item.line,
                        format!("parentUuid '{parent}' names no record in this file"),
                    ));
                }
            }
            _ => opening = false,
        }
    }
    findings
}

/// `parentUuid` chains that loop (a record its own parent, or a ring of records): Claude Code
/// walks up the chain to resume and never reaches a root. One finding per loop, at the line
/// of its first record in the file. Iterative, so a long chain cannot overflow the stack.
fn cycles(conv: &Conversation, chains: &[Chain]) -> Vec<Finding> {
    let index = uuid_index(chains);
    // 0 = not seen, 1 = on the walk in progress, 2 = known to end at a root or outside.
    let mut state = vec![0u8; chains.len()];
    let mut findings = Vec::new();
    for start in 0..chains.len() {
        let mut path = Vec::new();
        let mut at = start;
        let looped = loop {
            if state[at] != 0 {
                break state[at] == 1;
            }
            state[at] = 1;
            path.push(at);
            match chains[at].parent_uuid.as_deref().and_then(|p| index.get(p)) {
                Some(&parent) => at = parent,
                None => break false,
            }
        };
        if looped {
            // `at` is on this walk: the loop is the path from `at` on.
            let ring = &path[path.iter().position(|&i| i == at).unwrap_or(0)..];
            let first = *ring.iter().min().expect("a loop has a record");
            let uuid = chains[first].uuid.as_deref().unwrap_or("?");
            let message = if ring.len() == 1 {
                format!(
                    "parentUuid of '{uuid}' names the record itself: the chain never reaches a root"
                )
            } else {
                format!(
                    "parentUuid chain loops: '{uuid}' is its own ancestor through {} records",
                    ring.len()
                )
            };
            findings.push(Finding::new(conv.items[first].line, message));
        }
        for i in path {
            state[i] = 2;
        }
    }
    findings
}

/// Records carrying a uuid an earlier record already carries. A link naming that uuid cannot
/// be followed: ctxc takes the first record, a reader keeping the last takes another, and
/// once compaction removes the first, the same link lands on the second (a record that may
/// be the link's own descendant, closing a loop). One finding per repeat, at its line; a
/// repeat that a chain link (`parentUuid`, `logicalParentUuid`) names blocks compaction,
/// whose re-linking goes by uuid. A title's `leafUuid` is no chain link: nothing walks it.
fn repeated_uuids(conv: &Conversation, chains: &[Chain]) -> Vec<Finding> {
    let named: HashSet<&str> = chains
        .iter()
        .flat_map(|c| [c.parent_uuid.as_deref(), c.logical_parent_uuid.as_deref()])
        .flatten()
        .collect();
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut findings = Vec::new();
    for (item, chain) in conv.items.iter().zip(chains) {
        let Some(uuid) = chain.uuid.as_deref() else {
            continue;
        };
        let Some(&line) = first.get(uuid) else {
            first.insert(uuid, item.line);
            continue;
        };
        let message = format!(
            "uuid '{uuid}' appears again (first at line {line}): the chain cannot be followed"
        );
        let finding = if named.contains(uuid) {
            Finding::blocking(item.line, message)
        } else {
            Finding::new(item.line, message)
        };
        findings.push(finding.with_identity(format!("uuid '{uuid}' repeated")));
    }
    findings
}

// ----- Writing -----

/// What became of a uuid in an edited conversation.
enum Fate<'a> {
    /// A record carrying it is written.
    Kept,
    /// Its record is gone; links to it move to the nearest surviving ancestor.
    Gone { parent: Option<&'a str> },
    /// Its record is replaced by the summary at this position of the output.
    Summarized { at: usize, parent: Option<&'a str> },
}

/// A summary written into the chain.
struct SummaryLink {
    uuid: String,
    parent: Option<String>,
}

/// The re-linking of one edited conversation.
struct Links<'a> {
    fates: HashMap<&'a str, Fate<'a>>,
    /// Keyed by the summary's position in the output.
    summaries: HashMap<usize, SummaryLink>,
}

impl<'a> Links<'a> {
    fn new(chains: &'a [Chain], items: &[OutItem]) -> Self {
        let mut kept = vec![false; chains.len()];
        let mut summarized = vec![None; chains.len()];
        for (at, out) in items.iter().enumerate() {
            match out {
                OutItem::Keep(i)
                | OutItem::ReplaceResult(i, _)
                | OutItem::ReplaceText(i, _)
                | OutItem::Strip(i)
                | OutItem::DropThinking(i) => kept[*i] = true,
                OutItem::Summary { replaces, .. } => {
                    replaces.clone().for_each(|i| summarized[i] = Some(at))
                }
            }
        }
        let mut links = Links {
            fates: fates(chains, &kept, &summarized),
            summaries: HashMap::new(),
        };
        for (at, out) in items.iter().enumerate() {
            if let OutItem::Summary { replaces, .. } = out {
                let uuid = summary_uuid(chains, replaces);
                links
                    .summaries
                    .insert(at, SummaryLink { uuid, parent: None });
            }
        }
        // Parents last: a summary may hang below an earlier summary, whose uuid must exist.
        let parents: Vec<(usize, Option<String>)> = items
            .iter()
            .enumerate()
            .filter_map(|(at, out)| match out {
                OutItem::Summary { replaces, .. } => {
                    Some((at, links.summary_parent(&chains[replaces.clone()], at)))
                }
                _ => None,
            })
            .collect();
        for (at, parent) in parents {
            links.summaries.get_mut(&at).expect("inserted above").parent = parent;
        }
        links
    }

    /// The nearest ancestor of the first linked record a summary replaces.
    fn summary_parent(&self, replaced: &[Chain], at: usize) -> Option<String> {
        let first = replaced.iter().find(|c| c.is_linked())?;
        self.resolve(first.parent_uuid.as_deref()?, Some(at))
    }

    /// Where a link to `uuid` must point now: the uuid itself if its record survives (or is
    /// not in the file), else the nearest surviving ancestor, a summary standing in for it,
    /// or nothing. `own` is the summary being placed, whose replaced records it walks through.
    fn resolve(&self, uuid: &str, own: Option<usize>) -> Option<String> {
        let mut current = uuid;
        for _ in 0..=self.fates.len() {
            let parent = match self.fates.get(current) {
                None | Some(Fate::Kept) => return Some(current.to_string()),
                Some(Fate::Summarized { at, .. }) if Some(*at) != own => {
                    return Some(self.summaries[at].uuid.clone());
                }
                Some(Fate::Summarized { parent, .. } | Fate::Gone { parent }) => parent,
            };
            current = (*parent)?;
        }
        None
    }

    /// `text` (a surviving record) with each link to a record that is gone re-pointed.
    fn relink<'t>(&self, text: Cow<'t, str>, chain: &Chain) -> Cow<'t, str> {
        let mut text = text;
        for (key, uuid) in chain.links() {
            if matches!(self.fates.get(uuid), None | Some(Fate::Kept)) {
                continue;
            }
            let value = self
                .resolve(uuid, None)
                .map_or("null".into(), |u| quote(&u));
            if let Some(edited) = replace_member(&text, key, &value) {
                text = Cow::Owned(edited);
            }
        }
        text
    }
}

fn fates<'a>(
    chains: &'a [Chain],
    kept: &[bool],
    summarized: &[Option<usize>],
) -> HashMap<&'a str, Fate<'a>> {
    let mut fates = HashMap::new();
    // Kept first: a uuid that some written record still carries is never redirected.
    for (chain, _) in chains.iter().zip(kept).filter(|(_, k)| **k) {
        if let Some(uuid) = &chain.uuid {
            fates.insert(uuid.as_str(), Fate::Kept);
        }
    }
    for (i, chain) in chains.iter().enumerate().filter(|(i, _)| !kept[*i]) {
        let Some(uuid) = &chain.uuid else { continue };
        let parent = chain.parent_uuid.as_deref();
        let fate = match summarized[i] {
            Some(at) => Fate::Summarized { at, parent },
            None => Fate::Gone { parent },
        };
        fates.entry(uuid.as_str()).or_insert(fate);
    }
    fates
}

/// A uuid derived from the replaced records' uuids (or, when they have none, from where they
/// are), so the same edit always writes the same file. Formatted as a version-4 UUID because
/// Claude Code expects UUIDs there.
fn summary_uuid(chains: &[Chain], replaces: &Range<usize>) -> String {
    let uuids: Vec<&str> = chains[replaces.clone()]
        .iter()
        .filter_map(|c| c.uuid.as_deref())
        .collect();
    let seed = if uuids.is_empty() {
        format!("ctxc summary of records {replaces:?}")
    } else {
        format!("ctxc summary\n{}", uuids.join("\n"))
    };
    uuid_from(&seed)
}

/// A version-4-shaped UUID derived from `seed`: records ctxc writes get the same uuid on every
/// run, in the shape Claude Code expects.
pub fn uuid_from(seed: &str) -> String {
    let hash = xxhash_rust::xxh3::xxh3_128(seed.as_bytes());
    let hex = format!("{hash:032x}");
    format!(
        "{}-{}-4{}-{:x}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        8 | (u8::from_str_radix(&hex[16..17], 16).unwrap_or(0) & 3),
        &hex[17..20],
        &hex[20..32]
    )
}

/// Every other record kept, with `out` in its place: the context `render` writes one item in.
fn plan_around(n: usize, out: &OutItem) -> Vec<OutItem> {
    match out {
        OutItem::Summary { replaces, .. } => {
            let mut plan: Vec<OutItem> = (0..n)
                .filter(|i| !replaces.contains(i))
                .map(OutItem::Keep)
                .collect();
            plan.insert(replaces.start.min(plan.len()), out.clone());
            plan
        }
        OutItem::Keep(i)
        | OutItem::ReplaceResult(i, _)
        | OutItem::ReplaceText(i, _)
        | OutItem::Strip(i)
        | OutItem::DropThinking(i) => (0..n)
            .map(|j| {
                if j == *i {
                    out.clone()
                } else {
                    OutItem::Keep(j)
                }
            })
            .collect(),
    }
}

fn render_item<'t>(
    t: &'t Transcript,
    conv: &Conversation,
    chains: &[Chain],
    links: &Links,
    at: usize,
    out: &OutItem,
) -> Cow<'t, str> {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    match out {
        OutItem::Keep(i) => links.relink(Cow::Borrowed(raw(*i)), &chains[*i]),
        OutItem::Strip(i) => links.relink(
            Cow::Owned(super::payload::strip(raw(*i), &COPY_MEMBERS)),
            &chains[*i],
        ),
        OutItem::ReplaceResult(i, text) => {
            links.relink(Cow::Owned(replace_result(raw(*i), text)), &chains[*i])
        }
        OutItem::ReplaceText(i, text) => {
            let edited =
                replace_text(raw(*i), text).unwrap_or_else(|| replace_result(raw(*i), text));
            links.relink(Cow::Owned(edited), &chains[*i])
        }
        OutItem::DropThinking(i) => {
            let edited = drop_thinking(raw(*i)).unwrap_or_else(|| raw(*i).to_string());
            links.relink(Cow::Owned(edited), &chains[*i])
        }
        OutItem::Summary { text, replaces } => Cow::Owned(summary_record(
            t,
            conv,
            replaces,
            text,
            &links.summaries[&at],
        )),
    }
}

/// A user record carrying a ctxc summary, linked where the replaced records were.
fn summary_record(
    t: &Transcript,
    conv: &Conversation,
    replaces: &Range<usize>,
    text: &str,
    link: &SummaryLink,
) -> String {
    let copied = copied_fields(t, &conv.items[replaces.clone()]);
    let mut record = Map::new();
    let parent = link.parent.clone().map_or(Value::Null, Value::String);
    record.insert("parentUuid".into(), parent);
    for key in CONTEXT_KEYS {
        if let Some(value) = copied.get(key) {
            record.insert(key.into(), value.clone());
        }
    }
    let content = format!("{SUMMARY_MARKER}\n{text}");
    record.insert("type".into(), "user".into());
    record.insert(
        "message".into(),
        serde_json::json!({ "role": "user", "content": content }),
    );
    // Claude Code shows a compact summary as such (collapsed, not as something the user
    // typed) and sends it to the model like any user message.
    record.insert("isCompactSummary".into(), true.into());
    record.insert(CTXC_FLAG.into(), true.into());
    record.insert("uuid".into(), link.uuid.clone().into());
    if let Some(timestamp) = copied.get("timestamp") {
        record.insert("timestamp".into(), timestamp.clone());
    }
    to_string_styled(&Value::Object(record), element_indent(conv))
}

/// Each context field (and `timestamp`) from the first of `items` that has it.
fn copied_fields(t: &Transcript, items: &[Item]) -> HashMap<&'static str, Value> {
    let wanted: Vec<&'static str> = CONTEXT_KEYS.into_iter().chain(["timestamp"]).collect();
    let mut found = HashMap::new();
    for item in items {
        let raw = parse_raw(&t.source[item.span.clone()]).ok();
        for (key, value) in raw.and_then(object_members).unwrap_or_default() {
            let Some(&key) = wanted.iter().find(|w| **w == key) else {
                continue;
            };
            if let Ok(value) = serde_json::from_str(value.get()) {
                found.entry(key).or_insert(value);
            }
        }
        if found.len() == wanted.len() {
            break;
        }
    }
    found
}

/// The message content of a record, if it has one.
/// `record` with its message's thinking blocks removed (see [`super::anthropic`]).
fn drop_thinking(record: &str) -> Option<String> {
    let message = member(parse_raw(record).ok()?, "message")?;
    let edited = super::common::drop_thinking(message.get())?;
    replace_member(record, "message", &edited)
}

fn message_content(record: &RawValue) -> Option<&RawValue> {
    member(member(record, "message")?, "content")
}

fn block_type(block: &RawValue) -> Option<String> {
    serde_json::from_str(member(block, "type")?.get()).ok()
}

/// `record` with each `tool_result` block's content and the `toolUseResult` copy replaced by
/// `text`; everything else byte-for-byte.
fn replace_result(record: &str, text: &str) -> String {
    let Ok(raw) = parse_raw(record) else {
        return record.to_string();
    };
    let value = quote(text);
    let mut edits: Vec<(Span, String)> = message_content(raw)
        .and_then(array_elements)
        .unwrap_or_default()
        .into_iter()
        .filter(|b| block_type(b).as_deref() == Some("tool_result"))
        .filter_map(|b| member(b, "content"))
        .map(|c| (span_of(record, c.get()), value.clone()))
        .collect();
    if let Some(copy) = member(raw, "toolUseResult") {
        edits.push((span_of(record, copy.get()), value));
    }
    edits.sort_by_key(|(span, _)| span.start);
    splice(record, &edits)
}

/// `record` with its message text replaced: string content, or the first text block (other
/// text blocks are dropped: the API rejects empty ones). `None` when it has no text.
fn replace_text(record: &str, text: &str) -> Option<String> {
    let content = message_content(parse_raw(record).ok()?)?;
    let span = span_of(record, content.get());
    if content.get().starts_with('"') {
        return Some(splice(record, &[(span, quote(text))]));
    }
    let blocks = array_elements(content)?;
    let first_text = blocks
        .iter()
        .position(|b| block_type(b).as_deref() == Some("text"))?;
    let base = span.start;
    let relative: Vec<Span> = blocks
        .iter()
        .map(|b| {
            let s = span_of(record, b.get());
            s.start - base..s.end - base
        })
        .collect();
    let mut written: Vec<Cow<str>> = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.iter().enumerate() {
        if i == first_text {
            written.push(Cow::Owned(replace_member(
                block.get(),
                "text",
                &quote(text),
            )?));
        } else if block_type(block).as_deref() != Some("text") {
            written.push(Cow::Borrowed(block.get()));
        }
    }
    let array =
        ArrayLayout::of(content.get(), &relative).render(written.iter().map(|w| w.as_ref()));
    Some(splice(record, &[(span, array)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Format, check, read};
    use std::path::Path;

    const TOOL_HEAVY: &str = "spotter/tool_heavy.jsonl";
    const LONG_SESSION: &str = "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl";

    fn text_of(path: impl AsRef<Path>) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn fixture(name: &str) -> String {
        text_of(format!("fixtures/claude-code/{name}"))
    }

    fn corpus(rel: &str) -> String {
        text_of(format!("../shared/corpus/claude-code/{rel}"))
    }

    fn load(src: String) -> Transcript {
        let t = read(src, &ReadOptions::default()).unwrap();
        assert_eq!(t.format, Format::ClaudeCode);
        t
    }

    fn findings(t: &Transcript) -> Vec<String> {
        check(t).iter().map(ToString::to_string).collect()
    }

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn record_type(t: &Transcript, i: usize) -> Option<String> {
        value(t.raw(0, i))["type"].as_str().map(String::from)
    }

    /// Every non-null `parentUuid` of a JSONL text names one of its records.
    fn assert_chain_resolves(out: &str) {
        let records: Vec<Value> = out.lines().map(value).collect();
        let uuids: HashSet<&str> = records.iter().filter_map(|r| r["uuid"].as_str()).collect();
        for (n, record) in records.iter().enumerate() {
            if let Some(parent) = record["parentUuid"].as_str() {
                assert!(uuids.contains(parent), "line {}: parent {parent}", n + 1);
            }
        }
    }

    /// The original chain: uuid → parentUuid.
    fn parents(t: &Transcript) -> HashMap<String, Option<String>> {
        let conv = &t.conversations[0];
        (0..conv.items.len())
            .map(|i| value(t.raw(0, i)))
            .filter_map(|r| {
                let parent = r["parentUuid"].as_str().map(String::from);
                Some((r["uuid"].as_str()?.to_string(), parent))
            })
            .collect()
    }

    /// As Claude Code 2.1.330 wrote it on resume (tests/e2e), shortened: the notification of
    /// a background task, kept for the transcript only; the next prompt carries it to the model.
    #[test]
    fn transcript_only_records_are_not_context() {
        let src = [
            r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"start phoenix"},"uuid":"u1","sessionId":"s"}"#,
            r#"{"parentUuid":"u1","isSidechain":false,"promptId":"p","type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>bae407b</task-id>\n<status>stopped</status>\n</task-notification>"},"uuid":"u2","origin":{"kind":"task-notification"},"promptSource":"system","queueTranscriptOnly":true,"sessionId":"s"}"#,
            r#"{"parentUuid":"u2","isSidechain":false,"type":"user","message":{"role":"user","content":"continue"},"uuid":"u3","sessionId":"s"}"#,
        ]
        .join("\n")
            + "\n";
        let t = load(src.clone());
        let items = &t.conversations[0].items;
        assert!(items[0].in_context && items[2].in_context);
        assert!(!items[1].in_context && items[1].kind == Kind::NonContext);
        assert!(findings(&t).is_empty(), "{:?}", findings(&t));
        assert_eq!(t.write(&[Some((0..3).map(OutItem::Keep).collect())]), src);
    }

    #[test]
    fn removing_records_relinks_a_real_session() {
        for rel in [TOOL_HEAVY, LONG_SESSION] {
            let t = load(corpus(rel));
            assert!(findings(&t).is_empty(), "{rel}: {:?}", findings(&t));
            let groups = t.conversations[0].groups();
            let middle = &groups[groups.len() / 3..groups.len() * 2 / 3];
            let dropped: HashSet<usize> = middle.iter().flat_map(Clone::clone).collect();
            let plan: Vec<OutItem> = (0..t.conversations[0].items.len())
                .filter(|i| {
                    !dropped.contains(i) && record_type(&t, *i).as_deref() != Some("progress")
                })
                .map(OutItem::Keep)
                .collect();
            let out = t.write(&[Some(plan.clone())]);
            assert_chain_resolves(&out);
            let again = load(out.clone());
            assert_eq!(again.conversations[0].items.len(), plan.len());
            assert!(findings(&again).is_empty(), "{rel}: {:?}", findings(&again));
            let mut relinked = 0;
            for (line, kept) in out.lines().zip(&plan) {
                let OutItem::Keep(i) = kept else {
                    unreachable!()
                };
                let original = t.raw(0, *i);
                if line != original {
                    // Only the parentUuid value may change.
                    let parent = member(parse_raw(line).unwrap(), "parentUuid")
                        .unwrap()
                        .get();
                    assert_eq!(
                        replace_member(original, "parentUuid", parent).as_deref(),
                        Some(line)
                    );
                    relinked += 1;
                }
            }
            assert!(relinked > 0, "{rel}: nothing was re-linked");
        }
    }

    #[test]
    fn a_summary_is_linked_into_the_chain_deterministically() {
        let t = load(corpus(TOOL_HEAVY));
        let n = t.conversations[0].items.len();
        let groups = t.conversations[0].groups();
        let replaces = groups[groups.len() / 3].start..groups[groups.len() * 2 / 3].start;
        let mut plan: Vec<OutItem> = (0..replaces.start).map(OutItem::Keep).collect();
        plan.push(OutItem::Summary {
            text: "The user asked for X; files a and b were changed.".into(),
            replaces: replaces.clone(),
        });
        plan.extend((replaces.end..n).map(OutItem::Keep));
        let out = t.write(&[Some(plan.clone())]);
        assert_eq!(out, t.write(&[Some(plan)]), "two writes differ");
        assert_chain_resolves(&out);

        let again = load(out.clone());
        assert!(findings(&again).is_empty(), "{:?}", findings(&again));
        let summary = &again.conversations[0].items[replaces.start];
        assert_eq!(summary.kind, Kind::Summary);
        assert!(summary.ctxc_summary && summary.in_context);
        let record = value(again.raw(0, replaces.start));
        let uuid = record["uuid"].as_str().unwrap();
        assert_eq!((uuid.len(), &uuid[14..15]), (36, "4"));
        let first = value(t.raw(0, replaces.start));
        for key in ["sessionId", "cwd", "version", "gitBranch", "timestamp"] {
            assert_eq!(record[key], first[key], "{key}");
        }

        // The summary hangs below the nearest ancestor outside the range...
        let chain = parents(&t);
        let replaced: HashSet<String> = replaces
            .clone()
            .filter_map(|i| value(t.raw(0, i))["uuid"].as_str().map(String::from))
            .collect();
        let mut ancestor = first["parentUuid"].as_str().map(String::from);
        while let Some(a) = ancestor.clone().filter(|a| replaced.contains(a)) {
            ancestor = chain[&a].clone();
        }
        assert_eq!(record["parentUuid"].as_str(), ancestor.as_deref());
        // ...and the records that hung below the range hang below the summary.
        let mut below = 0;
        for (k, i) in (replaces.end..n).enumerate() {
            let parent = value(t.raw(0, i))["parentUuid"].as_str().map(String::from);
            if parent.is_some_and(|p| replaced.contains(&p)) {
                let now = value(again.raw(0, replaces.start + 1 + k));
                assert_eq!(now["parentUuid"].as_str(), Some(uuid));
                below += 1;
            }
        }
        assert!(below > 0);
    }

    #[test]
    fn compacted_history_is_out_of_context() {
        let t = load(corpus(LONG_SESSION));
        let items = &t.conversations[0].items;
        let boundary = (0..items.len())
            .find(|&i| value(t.raw(0, i))["subtype"] == "compact_boundary")
            .unwrap();
        assert!(items[..boundary].iter().all(|i| !i.in_context));
        assert_eq!(items[boundary].kind, Kind::NonContext);
        let summary = &items[boundary + 1];
        assert_eq!(summary.kind, Kind::Summary);
        assert!(summary.in_context && !summary.ctxc_summary);
        assert!(
            items[boundary..]
                .iter()
                .any(|i| i.kind == Kind::ToolResult && i.in_context)
        );
        let stored: usize = items.iter().map(|i| i.stored_only_bytes).sum();
        assert!(
            stored > t.source.len() / 10,
            "toolUseResult copies: {stored}"
        );

        // Without its boundary record the history stays out of context.
        let plan = (0..items.len())
            .filter(|&i| i != boundary)
            .map(OutItem::Keep)
            .collect();
        let again = load(t.write(&[Some(plan)]));
        let items = &again.conversations[0].items;
        assert_eq!(value(again.raw(0, boundary))["parentUuid"], Value::Null);
        assert!(items[..boundary].iter().all(|i| !i.in_context));
        assert!(items[boundary].in_context);
        assert!(findings(&again).is_empty());
    }

    #[test]
    fn links_walk_through_removed_records_to_summaries() {
        let kinds = ["user", "assistant"];
        let src: Vec<String> = (0..6)
            .map(|i| {
                let parent = if i == 0 { "null".to_string() } else { format!("\"r{}\"", i - 1) };
                let (kind, extra) = (kinds[i % 2], if i == 5 { r#","logicalParentUuid":"r1""# } else { "" });
                format!(
                    r#"{{"parentUuid":{parent}{extra},"sessionId":"s","type":"{kind}","message":{{"role":"{kind}","content":"m{i}"}},"uuid":"r{i}"}}"#
                )
            })
            .collect();
        let t = load(src.join("\n"));
        let summary = |replaces| OutItem::Summary {
            text: "s".into(),
            replaces,
        };
        let parent_of = |out: &str, line: usize| {
            value(out.lines().nth(line).unwrap())["parentUuid"]
                .as_str()
                .map(String::from)
        };
        // r3 is dropped: r4 hangs below the summary standing in for r1 and r2.
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            summary(1..3),
            OutItem::Keep(4),
            OutItem::Keep(5),
        ])]);
        let uuid = value(out.lines().nth(1).unwrap())["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(parent_of(&out, 1).as_deref(), Some("r0"));
        assert_eq!(parent_of(&out, 2), Some(uuid.clone()));
        assert_eq!(
            value(out.lines().nth(3).unwrap())["logicalParentUuid"].as_str(),
            Some(uuid.as_str())
        );
        // r1 is dropped: the summary of r2 and r3 hangs below r0.
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            summary(2..4),
            OutItem::Keep(4),
            OutItem::Keep(5),
        ])]);
        assert_eq!(parent_of(&out, 1).as_deref(), Some("r0"));
        assert_eq!(
            value(out.lines().nth(3).unwrap())["logicalParentUuid"].as_str(),
            Some("r0")
        );
        // The root is dropped: its child becomes the root.
        let out = t.write(&[Some(vec![OutItem::Keep(1), OutItem::Keep(2)])]);
        assert_eq!(parent_of(&out, 0), None);
        assert_eq!(out.lines().nth(1), Some(src[2].as_str()));
    }

    #[test]
    fn split_assistant_records_group_and_count_usage_once() {
        let line = |uuid: &str, parent: &str, rest: &str| {
            format!(r#"{{"parentUuid":"{parent}","sessionId":"s","type":{rest},"uuid":"{uuid}"}}"#)
        };
        let usage = |out: u64| format!(r#""usage":{{"input_tokens":3,"output_tokens":{out}}}"#);
        let call = |id: &str| {
            format!(
                r#"{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"/a"}}}}"#
            )
        };
        let result = |id: &str| {
            format!(
                r#""user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"text"}}]}},"toolUseResult":{{"file":"a"}}"#
            )
        };
        let assistant = |id: &str, block: &str, out: u64| {
            format!(
                r#""assistant","message":{{"id":"{id}","role":"assistant","content":[{block}],{}}}"#,
                usage(out)
            )
        };
        let src = [
            r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"go"},"uuid":"u1"}"#.to_string(),
            line("a1", "u1", &assistant("msg_A", r#"{"type":"text","text":"Reading."}"#, 5)),
            line("a2", "a1", &assistant("msg_A", &call("t1"), 9)),
            line("r1", "a2", &result("t1")),
            line("a3", "r1", &assistant("msg_A", &call("t2"), 12)),
            line("r2", "a3", &result("t2")),
            line("a4", "r2", &assistant("msg_B", r#"{"type":"text","text":"Done."}"#, 2)),
        ]
        .join("\n");
        let t = load(src);
        let conv = &t.conversations[0];
        assert_eq!(conv.groups(), vec![0..1, 1..6, 6..7]);
        let usages: Vec<Option<u64>> = conv
            .items
            .iter()
            .map(|i| i.usage.as_ref().map(|u| u.output_tokens))
            .collect();
        assert_eq!(usages, [None, Some(12), None, None, None, None, Some(2)]);
        let kinds: Vec<Kind> = conv.items.iter().map(|i| i.kind).collect();
        use Kind::*;
        assert_eq!(
            kinds,
            [
                User,
                AssistantText,
                ToolCall,
                ToolResult,
                ToolCall,
                ToolResult,
                AssistantText
            ]
        );
        assert_eq!(conv.items[3].stored_only_bytes, r#"{"file":"a"}"#.len());
        assert_eq!(conv.items[2].parts[1].text, r#"{"file_path":"/a"}"#);
        assert!(findings(&t).is_empty());
    }

    #[test]
    fn fixtures_give_their_findings() {
        for (name, want) in [
            (
                "dangling-parent.jsonl",
                "3: parentUuid 'missing-0000' names no record in this file",
            ),
            (
                "orphan-result.jsonl",
                "2: tool result for call 'toolu_missing' has no earlier tool call",
            ),
            (
                "unanswered-call.jsonl",
                "2: tool call 'toolu_ls' (Bash) is never answered, yet the conversation goes on",
            ),
        ] {
            assert_eq!(findings(&load(fixture(name))), [want], "{name}");
        }
    }

    #[test]
    fn a_repeated_uuid_is_a_finding_that_blocks_edits_once_a_link_names_it() {
        let record = |parent: &str, uuid: &str| {
            format!(
                r#"{{"parentUuid":{parent},"type":"user","sessionId":"s","message":{{"role":"user","content":"m"}},"uuid":"{uuid}"}}"#
            )
        };
        let named = [
            record("null", "u1"),
            record("\"u1\"", "u2"),
            record("\"u2\"", "u1"),
        ]
        .join("\n");
        let found = check(&load(named));
        let want = "3: uuid 'u1' appears again (first at line 1): the chain cannot be followed";
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [want]
        );
        // u1 is named (by line 2), so the repeat blocks edits; a repeated uuid no link names
        // does not.
        assert!(found[0].blocks_edits);
        // Named only by a title's leafUuid, which nothing walks: no block either.
        let title = r#"{"type":"summary","summary":"t","leafUuid":"u1"}"#;
        let unnamed = [record("null", "u1"), record("null", "u1"), title.into()].join("\n");
        let found = check(&load(unnamed));
        assert_eq!(found.len(), 1);
        assert!(!found[0].blocks_edits);
    }

    #[test]
    fn a_file_may_begin_mid_chain() {
        // Like a compaction agent's file: opening records hang off the parent session, and a
        // result answers a call stored there.
        let src = r#"{"parentUuid":"outside-1","type":"user","sessionId":"s","message":{"role":"user","content":"reminder"},"uuid":"u1"}
{"parentUuid":"outside-2","type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"ok"}]},"uuid":"u2"}
{"parentUuid":"u2","type":"assistant","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"fine"}]},"uuid":"a1"}
"#;
        let t = load(src.to_string());
        assert!(findings(&t).is_empty(), "{:?}", findings(&t));
        assert_eq!(t.conversations[0].items[1].kind, Kind::ToolResult);
        // Once the chain is inside the file, an outside parent is a broken link.
        let t = load(format!(
            "{src}{}\n",
            r#"{"parentUuid":"outside-3","type":"user","sessionId":"s","message":{"role":"user","content":"x"},"uuid":"u3"}"#
        ));
        assert_eq!(
            findings(&t),
            ["4: parentUuid 'outside-3' names no record in this file"]
        );
    }

    #[test]
    fn loglines_export_is_detected_and_relinked() {
        let src = fixture("loglines.json");
        let t = load(src.clone());
        assert_eq!(t.container, "json /loglines");
        assert_eq!(t.conversations[0].items.len(), 4);
        assert_eq!(t.conversations[0].items[2].results, ["toolu_ls"]);
        assert!(findings(&t).is_empty());
        assert_eq!(t.write(&[None]), src);
        let all = (0..4).map(OutItem::Keep).collect();
        assert_eq!(t.write(&[Some(all)]), src);

        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::Summary {
                text: "listed the files".into(),
                replaces: 1..3,
            },
            OutItem::Keep(3),
        ])]);
        // Written in the document's pretty style, not as one compact line.
        assert!(out.contains("\"parentUuid\": \"u-0001\",\n"), "{out}");
        let again = load(out.clone());
        assert!(findings(&again).is_empty());
        let lines = &value(&out)["loglines"];
        assert_eq!(lines[2]["parentUuid"], lines[1]["uuid"]);
        assert_eq!(again.conversations[0].items[1].kind, Kind::Summary);
    }

    #[test]
    fn replacing_a_result_or_text_keeps_everything_else() {
        let t = load(corpus(TOOL_HEAVY));
        let items = &t.conversations[0].items;
        let i = (0..items.len())
            .find(|&i| items[i].stored_only_bytes > 0)
            .unwrap();
        let out = ClaudeCode.render(
            &t,
            &t.conversations[0],
            &OutItem::ReplaceResult(i, "[masked]".into()),
        );
        let (mut before, after) = (value(t.raw(0, i)), value(&out));
        before["message"]["content"][0]["content"] = "[masked]".into();
        before["toolUseResult"] = "[masked]".into();
        assert_eq!(before, after);

        let record = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}, {"type":"tool_use","id":"t","name":"x","input":{}}, {"type":"text","text":"b"}]},"uuid":"a1"}"#;
        assert_eq!(
            replace_text(record, "new").unwrap(),
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"new"}, {"type":"tool_use","id":"t","name":"x","input":{}}]},"uuid":"a1"}"#
        );
        let record = r#"{"type":"user","message":{"role":"user","content":"old"},"uuid":"u1"}"#;
        assert_eq!(
            replace_text(record, "new").unwrap(),
            r#"{"type":"user","message":{"role":"user","content":"new"},"uuid":"u1"}"#
        );
    }

    #[test]
    fn detection_leaves_other_formats_alone() {
        let others = [
            r#"{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}
{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#,
            "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"yo\"}\n",
            r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}]}"#,
        ];
        for src in others {
            assert!(!ClaudeCode.detect(&Doc::parse(src).unwrap()), "{src}");
        }
        let ours = [
            fixture("loglines.json"),
            corpus("claude-code-log-samples/system/summary.jsonl"),
            corpus("claude-code-log-samples/system/file_history_snapshot.jsonl"),
            corpus("claude-code-log/edge_cases.jsonl"),
        ];
        for src in ours {
            assert!(ClaudeCode.detect(&Doc::parse(&src).unwrap()));
        }
    }
}
