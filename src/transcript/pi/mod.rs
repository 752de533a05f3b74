//! pi coding agent sessions (`@mariozechner/pi-coding-agent`): the JSONL files pi writes under
//! `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`.
//!
//! The first line is a `session` header (id, cwd, version); every other line is an entry with
//! a `type`. Since version 2 entries form a tree through `id` / `parentId`; version 1 files
//! have no ids and are one linear chain in file order (pi migrates them when it loads them).
//! pi resumes at the file's last entry and sends what `buildSessionContext` builds from the
//! path from that leaf to the root: entries off that path (abandoned branches) are never
//! sent. When the path holds a `compaction` entry, the latest one's summary is sent first,
//! then the path's entries from its `firstKeptEntryId` (`firstKeptEntryIndex` in version 1)
//! on; path entries before that are history pi keeps but no longer sends.
//!
//! Every line is one item, so a record ctxc leaves alone is written back byte for byte; an
//! edit re-points the `parentId` of the entries whose parent went (see [`write`]).

mod repair;
mod write;

use super::common::lines_span;
use super::edit::Step;
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The entry types pi writes besides the header (session-manager.ts `SessionEntry`).
const ENTRY_TYPES: [&str; 10] = [
    "message",
    "compaction",
    "branch_summary",
    "model_change",
    "thinking_level_change",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "session",
];

/// The `customType` of the `custom_message` entries ctxc writes for a summary that cannot be
/// a `compaction` entry (see [`write`]): pi sends a custom message to the model as a user
/// message.
pub(super) const CTXC_CUSTOM_TYPE: &str = "ctxc-summary";

/// The pi session adapter.
pub struct Pi;

impl Adapter for Pi {
    fn rewrites_arguments(&self) -> bool {
        true
    }

    fn content_keys(&self) -> &'static [&'static str] {
        &["content", "summary", "command", "output"]
    }

    /// JSON Lines whose first record is pi's `session` header with a `cwd`, or whose records
    /// are all typed entries with a `message` entry among them and none of another client's
    /// shape (Claude Code's records say `user` / `assistant`, Codex's carry a `payload`).
    fn detect(&self, doc: &Doc) -> bool {
        let Doc::Lines { lines, .. } = doc else {
            return false;
        };
        let Some(first) = lines.first() else {
            return false;
        };
        let Ok(head) = serde_json::from_str::<Shape>(first.node.get()) else {
            return false;
        };
        if head.r#type.as_deref() == Some("session") && head.cwd.is_some() {
            return true;
        }
        let mut message = false;
        for line in lines {
            let Ok(shape) = serde_json::from_str::<Shape>(line.node.get()) else {
                return false;
            };
            let known = shape
                .r#type
                .as_deref()
                .is_some_and(|t| ENTRY_TYPES.contains(&t));
            if !known || shape.payload.is_some() {
                return false;
            }
            message |= shape.r#type.as_deref() == Some("message") && shape.message.is_some();
        }
        message
    }

    fn repair_steps(&self) -> &'static [Step] {
        &[repair::pairing]
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let Doc::Lines {
            lines,
            newline,
            trailing_newline,
            ..
        } = doc
        else {
            return Err(ReadError::none_found("pi session entries", " (one JSON object per line)", doc));
        };
        let mut items = Vec::with_capacity(lines.len());
        let mut links = Vec::with_capacity(lines.len());
        let mut model = None;
        for line in lines {
            let value: Value = crate::json::lenient::value(line.node.get())
                .map_err(|e| super::common::value_error(line.number, line.span.0, &e))?;
            items.push(item_of(&value, line.range(), line.number));
            links.push(Links::of(line.node.get()));
            model = model_of(&value).or(model);
        }
        let tree = Tree::from_links(links);
        apply_context(&tree, &mut items);
        each(Conversation {
            span: lines_span(doc),
            location: String::new(),
            items,
            preamble: Vec::new(),
            layout: ListLayout::Lines {
                newline,
                trailing_newline: *trailing_newline,
            },
            model,
            context_window: None,
        });
        Ok("jsonl".to_string())
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        write::render_alone(t, conv, out)
    }

    fn render_list(&self, t: &Transcript, conv: &Conversation, items: &[OutItem], out: &mut String) {
        write::render_list(t, conv, items, out);
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        check_entries(source, conv)
    }
}

/// The members detection and linking look at.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Shape {
    r#type: Option<String>,
    cwd: Option<serde::de::IgnoredAny>,
    payload: Option<serde::de::IgnoredAny>,
    message: Option<serde::de::IgnoredAny>,
}

/// An entry's place in the tree.
#[derive(serde::Deserialize, Default, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub(super) struct Links {
    #[serde(default)]
    pub(super) r#type: String,
    pub(super) id: Option<String>,
    pub(super) parent_id: Option<String>,
    pub(super) first_kept_entry_id: Option<String>,
    pub(super) first_kept_entry_index: Option<usize>,
}

impl Links {
    pub(super) fn of(raw: &str) -> Links {
        serde_json::from_str(raw).unwrap_or_default()
    }
}

/// The session tree of a file: each entry's parent, and the path pi resumes.
pub(super) struct Tree {
    /// Each record's links (the header's too, at 0 when it is first).
    pub(super) links: Vec<Links>,
    /// Whether the file is version 1: no ids, one chain in file order.
    pub(super) linear: bool,
    /// Each record's parent record.
    pub(super) parent: Vec<Option<usize>>,
    /// The records on the path from the root to the leaf (the last entry), in order.
    pub(super) path: Vec<usize>,
}

impl Tree {
    pub(super) fn from_links(links: Vec<Links>) -> Tree {
        let is_entry = |l: &Links| l.r#type != "session";
        let linear = !links.iter().any(|l| is_entry(l) && l.id.is_some());
        let mut parent = vec![None; links.len()];
        if linear {
            let mut previous = None;
            for (i, _) in links.iter().enumerate().filter(|(_, l)| is_entry(l)) {
                parent[i] = previous;
                previous = Some(i);
            }
        } else {
            let mut index = HashMap::new();
            for (i, l) in links.iter().enumerate().filter(|(_, l)| is_entry(l)) {
                if let Some(id) = &l.id {
                    index.entry(id.as_str()).or_insert(i);
                }
            }
            for (i, l) in links.iter().enumerate() {
                parent[i] = l.parent_id.as_deref().and_then(|p| index.get(p).copied());
            }
        }
        // pi's leaf is the last entry of the file; a cycle ends the walk where it closes.
        let leaf = links.iter().rposition(is_entry);
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut at = leaf;
        while let Some(i) = at {
            if !seen.insert(i) {
                break;
            }
            path.push(i);
            at = parent[i];
        }
        path.reverse();
        Tree {
            links,
            linear,
            parent,
            path,
        }
    }

    /// The path position of the latest compaction on the path, with the path position its
    /// first kept entry has (the compaction's own when that entry is not on the path before it).
    pub(super) fn compaction(&self) -> Option<(usize, usize)> {
        let at = self
            .path
            .iter()
            .rposition(|&i| self.links[i].r#type == "compaction")?;
        let l = &self.links[self.path[at]];
        let kept = self.path[..at].iter().position(|&i| match &l.first_kept_entry_id {
            Some(id) => self.links[i].id.as_deref() == Some(id),
            None => l.first_kept_entry_index == Some(i),
        });
        Some((at, kept.unwrap_or(at)))
    }
}

/// Marks what pi sends: the path only, and on it nothing before the latest compaction's
/// first kept entry. The first user message of the path is anchored: pi's session picker
/// lists a session under it (unless the session is named).
fn apply_context(tree: &Tree, items: &mut [Item]) {
    let on_path: HashSet<usize> = tree.path.iter().copied().collect();
    for (i, item) in items.iter_mut().enumerate() {
        if !on_path.contains(&i) {
            item.in_context = false;
        }
    }
    if let Some((_, kept)) = tree.compaction() {
        for &i in &tree.path[..kept] {
            items[i].in_context = false;
            items[i].stale_history = true;
        }
    }
    if let Some(&first) = tree
        .path
        .iter()
        .find(|&&i| items[i].kind == Kind::User && items[i].in_context && !items[i].meta)
    {
        items[first].anchor = true;
    }
}

/// The items of a pi session in the order pi sends them (session-manager.ts
/// `buildSessionContext`): the latest compaction's summary first, then the path from its
/// first kept entry on; without one, the path. Entries off the path, history before the
/// first kept entry and earlier compactions are not sent. File order would put the summary
/// after the entries it keeps.
pub fn sent_order(source: &str, conv: &Conversation) -> Vec<usize> {
    let links = conv.items.iter().map(|i| Links::of(&source[i.span.clone()])).collect();
    let tree = Tree::from_links(links);
    let (order, latest) = match tree.compaction() {
        Some((at, kept)) => {
            let mut order = vec![tree.path[at]];
            order.extend(&tree.path[kept..at]);
            order.extend(&tree.path[at + 1..]);
            (order, Some(tree.path[at]))
        }
        None => (tree.path.clone(), None),
    };
    let sent = |&i: &usize| {
        conv.items[i].in_context && (tree.links[i].r#type != "compaction" || Some(i) == latest)
    };
    order.into_iter().filter(sent).collect()
}

/// The model a record says answers from now on: a model change's, an assistant message's.
fn model_of(v: &Value) -> Option<String> {
    let model = match str_at(v, "type") {
        "model_change" => v.get("modelId"),
        "message" if str_at(&v["message"], "role") == "assistant" => v["message"].get("model"),
        _ => None,
    };
    model.and_then(Value::as_str).map(String::from)
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One record as an item, before the tree says whether pi sends it.
fn item_of(v: &Value, span: crate::json::Span, line: usize) -> Item {
    let mut item = Item::new(span, line, Role::None, Kind::NonContext);
    match str_at(v, "type") {
        "session" | "session_info" => item.anchor = true,
        "message" => read_message(&v["message"], &mut item),
        "custom_message" => {
            item.role = Role::User;
            push_content(v.get("content"), PartKind::Text, &mut item);
            item.kind = if str_at(v, "customType") == CTXC_CUSTOM_TYPE {
                item.ctxc_summary = item.prose().starts_with(SUMMARY_MARKER);
                Kind::Summary
            } else {
                item.meta = true;
                Kind::User
            };
        }
        "compaction" | "branch_summary" => {
            let summary = str_at(v, "summary");
            if !summary.is_empty() {
                item.role = Role::User;
                item.kind = Kind::Summary;
                item.ctxc_summary = summary.starts_with(SUMMARY_MARKER);
                item.parts.push(Part::new(PartKind::Text, summary));
            }
        }
        // model and thinking-level changes, labels, extension state: never sent.
        _ => {}
    }
    item.in_context = item.kind != Kind::NonContext;
    item
}

/// Fills `item` from an `AgentMessage` (pi-ai's user / assistant / toolResult messages and
/// pi's own bash executions, custom and summary messages).
fn read_message(m: &Value, item: &mut Item) {
    match str_at(m, "role") {
        "user" => {
            item.role = Role::User;
            push_content(m.get("content"), PartKind::Text, item);
            item.kind = if item.prose().starts_with(SUMMARY_MARKER) {
                item.ctxc_summary = true;
                Kind::Summary
            } else {
                Kind::User
            };
        }
        "assistant" => read_assistant(m, item),
        "toolResult" => {
            item.role = Role::Tool;
            item.kind = Kind::ToolResult;
            item.results.push(str_at(m, "toolCallId").to_string());
            item.is_error = m.get("isError").and_then(Value::as_bool).unwrap_or(false);
            push_content(m.get("content"), PartKind::ToolResult, item);
        }
        // `!` commands are sent as user text, `!!` ones (excludeFromContext) never.
        "bashExecution" if m.get("excludeFromContext") != Some(&Value::Bool(true)) => {
            item.role = Role::User;
            item.kind = Kind::User;
            item.meta = true;
            item.parts.push(Part::new(PartKind::Text, str_at(m, "command")));
            item.parts.push(Part::new(PartKind::Text, str_at(m, "output")));
        }
        "custom" | "hookMessage" => {
            item.role = Role::User;
            item.kind = Kind::User;
            item.meta = true;
            push_content(m.get("content"), PartKind::Text, item);
        }
        "branchSummary" | "compactionSummary" => {
            item.role = Role::User;
            item.kind = Kind::Summary;
            item.parts.push(Part::new(PartKind::Text, str_at(m, "summary")));
        }
        _ => {}
    }
}

/// An assistant message: its text, thinking and tool calls. pi never replays a message that
/// ended in an error or was aborted (pi-ai `transformMessages` skips it), so its calls need
/// no results and its content is not context.
fn read_assistant(m: &Value, item: &mut Item) {
    item.role = Role::Assistant;
    item.usage = usage_of(m).map(Box::new);
    if matches!(str_at(m, "stopReason"), "error" | "aborted") {
        return;
    }
    for block in m.get("content").and_then(Value::as_array).into_iter().flatten() {
        match str_at(block, "type") {
            "text" => item.parts.push(Part::new(PartKind::Text, str_at(block, "text"))),
            "thinking" => item
                .parts
                .push(Part::new(PartKind::Thinking, str_at(block, "thinking"))),
            "toolCall" => {
                let name = str_at(block, "name");
                item.calls.push(ToolCall {
                    id: str_at(block, "id").to_string(),
                    name: name.to_string(),
                });
                item.parts.push(Part::new(PartKind::ToolName, name));
                let arguments = block.get("arguments").map_or(String::new(), Value::to_string);
                item.parts.push(Part::new(PartKind::ToolArguments, arguments));
            }
            _ => {}
        }
    }
    let only_thinking = !item.parts.is_empty()
        && item.parts.iter().all(|p| p.kind == PartKind::Thinking);
    item.kind = if !item.calls.is_empty() {
        Kind::ToolCall
    } else if only_thinking {
        Kind::Thinking
    } else {
        Kind::AssistantText
    };
}

/// Text blocks (or a plain string) as parts of `kind`; images as media stubs.
fn push_content(content: Option<&Value>, kind: PartKind, item: &mut Item) {
    match content {
        Some(Value::String(s)) => item.parts.push(Part::new(kind, s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("text").and_then(Value::as_str) {
                    Some(text) => item.parts.push(Part::new(kind, text)),
                    None => {
                        let mime = str_at(block, "mimeType");
                        let mime = if mime.is_empty() { "image" } else { mime };
                        item.parts.push(Part::new(PartKind::Media, format!("[{mime}]")));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The usage pi-ai records on an assistant message: `input` is the uncached prompt,
/// `cacheRead` / `cacheWrite` the cached parts (pi-ai splits them for every provider).
fn usage_of(m: &Value) -> Option<Usage> {
    let u = m.get("usage")?;
    let n = |key: &str| u.get(key).and_then(Value::as_u64).unwrap_or(0);
    let usage = Usage {
        input_tokens: n("input"),
        output_tokens: n("output"),
        cache_creation_input_tokens: n("cacheWrite"),
        cache_read_input_tokens: n("cacheRead"),
    };
    // A message that never reached the provider (aborted before a reply) records zeros.
    (usage.prompt_tokens() + usage.output_tokens > 0).then_some(usage)
}

/// Faults pi's loader or context builder trips on: records that are not typed objects, a
/// header that is not the first line, repeated ids, and links naming no entry.
fn check_entries(source: &str, conv: &Conversation) -> Vec<Finding> {
    let links: Vec<Links> = conv
        .items
        .iter()
        .map(|i| Links::of(&source[i.span.clone()]))
        .collect();
    let mut findings = Vec::new();
    let mut ids = HashSet::new();
    for (k, l) in links.iter().enumerate() {
        if l.r#type.is_empty() {
            findings.push(Finding::new(conv.items[k].line, "not a pi entry: expected an object with a string \"type\""));
        }
        if l.r#type == "session" && k > 0 {
            findings.push(Finding::new(conv.items[k].line, "a session header after the first line"));
        }
        if let Some(id) = l.id.as_deref().filter(|_| l.r#type != "session") {
            if !ids.insert(id) {
                findings.push(Finding::new(conv.items[k].line, format!("entry id '{id}' repeats an earlier entry's")));
            }
        }
    }
    let all: HashSet<&str> = links
        .iter()
        .filter(|l| l.r#type != "session")
        .filter_map(|l| l.id.as_deref())
        .collect();
    for (k, l) in links.iter().enumerate() {
        let line = conv.items[k].line;
        if let Some(p) = l.parent_id.as_deref().filter(|p| !all.contains(p)) {
            findings.push(Finding::new(line, format!("parentId '{p}' names no entry of the file")));
        }
        if let Some(f) = l.first_kept_entry_id.as_deref().filter(|f| !all.contains(f)) {
            findings.push(Finding::new(line, format!("firstKeptEntryId '{f}' names no entry of the file")));
        }
    }
    findings
}

#[cfg(test)]
mod tests;
