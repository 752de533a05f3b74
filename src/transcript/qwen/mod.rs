//! Qwen Code sessions (`@qwen-code/qwen-code`, read from 0.24.4's `SessionService` and its
//! transcript-records module): `~/.qwen/projects/<cwd, each non-alphanumeric character a
//! '-'>/chats/<sessionId>.jsonl` (`QWEN_RUNTIME_DIR`, else `QWEN_HOME`, replaces `~/.qwen`).
//!
//! Every line is a record with a `uuid`, a `parentUuid` (null for the first), the
//! `sessionId`, a `type` (`user`, `assistant`, `tool_result`, `system`) and, for the first
//! three, a Gemini `{role, parts}` `message`: `functionCall` parts are the calls, the
//! `functionResponse` parts of a `tool_result` record their results. The client resumes at
//! the file's last conversation record and walks `parentUuid` back to the root
//! (`prepareTranscriptRecords`; records repeating a uuid are fragments of one, joined);
//! records off that chain are never sent. Of the chain, it sends every message in order
//! (`SessionApiHistoryAccumulator`), except that a `system` record of subtype
//! `chat_compression` (what `/compress` and the automatic compression write) starts the
//! history over with its `systemPayload.compressedHistory`: chain records before the latest
//! one are history the client keeps but no longer sends. Other `system` records (telemetry,
//! attribution snapshots, titles) are never sent.
//!
//! Every line is one item, so a record ctxc leaves alone is written back byte for byte; an
//! edit re-points the `parentUuid` of the records whose parent went (see [`write`]).

mod repair;
mod write;

pub use write::orphan_result;

use super::common::{lines_span, value_error};
use super::edit::Step;
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the client sends for a call whose result it never recorded
/// (`ORPHAN_TOOL_USE_REPAIR_REASON`, the `error` of the response its history repair adds);
/// ctxc's repair stores it as the result.
pub const ORPHAN_REASON: &str = "Tool execution result was not recorded \u{2014} likely interrupted by network failure, abort, or process exit. Treat as failure and retry if needed.";

/// The record types the client loads (`RECORD_TYPES`).
const RECORD_TYPES: [&str; 4] = ["user", "assistant", "tool_result", "system"];

/// `system` subtypes that are not part of the conversation chain (session artifacts and
/// managed-session bookkeeping): never a leaf, never a parent.
const NON_CONVERSATION: [&str; 6] = [
    "session_sources_snapshot",
    "managed_session_header_v1",
    "managed_session_event_v1",
    "managed_session_commit_v1",
    "session_artifact_event",
    "session_artifact_snapshot",
];

/// The Qwen Code session adapter.
pub struct Qwen;

impl Adapter for Qwen {
    fn content_keys(&self) -> &'static [&'static str] {
        &["message", "systemPayload"]
    }

    /// JSON Lines whose first record has Qwen Code's identity (`uuid`, `sessionId`, a record
    /// type) and whose messages hold Gemini `parts` (Claude Code's, of the same chain shape,
    /// hold `content`).
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
        let typed = head.r#type.as_deref().is_some_and(|t| RECORD_TYPES.contains(&t));
        if !(typed && head.uuid.is_some() && head.session_id.is_some()) {
            return false;
        }
        let mut parts = false;
        for line in lines.iter().take(64) {
            let Ok(shape) = serde_json::from_str::<Shape>(line.node.get()) else {
                return false;
            };
            if let Some(m) = shape.message {
                if m.content.is_some() {
                    return false;
                }
                parts |= m.parts.is_some();
            }
        }
        parts
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
            return Err(ReadError::none_found("Qwen Code session records", " (one JSON object per line)", doc));
        };
        let mut items = Vec::with_capacity(lines.len());
        let mut links = Vec::with_capacity(lines.len());
        let mut model = None;
        let mut window = None;
        for line in lines {
            let value: Value = crate::json::lenient::value(line.node.get())
                .map_err(|e| value_error(line.number, line.span.0, &e))?;
            items.push(item_of(&value, line.range(), line.number));
            links.push(Links::of(line.node.get()));
            if let Some(m) = value.get("model").and_then(Value::as_str) {
                model = Some(m.to_string());
            }
            if let Some(w) = value.get("contextWindowSize").and_then(Value::as_u64) {
                window = Some(w as usize);
            }
        }
        let chain = Chain::from_links(links);
        apply_context(&chain, &mut items);
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
            context_window: window,
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
        check_records(source, conv)
    }
}

/// The members detection looks at.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Shape {
    uuid: Option<serde::de::IgnoredAny>,
    session_id: Option<serde::de::IgnoredAny>,
    r#type: Option<String>,
    message: Option<MessageShape>,
}

#[derive(serde::Deserialize, Default)]
struct MessageShape {
    parts: Option<serde::de::IgnoredAny>,
    content: Option<serde::de::IgnoredAny>,
}

/// A record's place in the chain.
#[derive(serde::Deserialize, Default, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub(super) struct Links {
    pub(super) uuid: Option<String>,
    pub(super) parent_uuid: Option<String>,
    pub(super) session_id: Option<String>,
    #[serde(default)]
    pub(super) r#type: String,
    pub(super) subtype: Option<String>,
    pub(super) timestamp: Option<String>,
}

impl Links {
    pub(super) fn of(raw: &str) -> Links {
        serde_json::from_str(raw).unwrap_or_default()
    }

    /// Whether the client takes the record as part of the conversation chain
    /// (`validateTranscriptRecord` and `isTranscriptConversationRecord`).
    pub(super) fn conversation(&self) -> bool {
        self.uuid.as_deref().is_some_and(|u| !u.is_empty())
            && self.session_id.as_deref().is_some_and(|s| !s.is_empty())
            && RECORD_TYPES.contains(&self.r#type.as_str())
            && !(self.r#type == "system"
                && self
                    .subtype
                    .as_deref()
                    .is_some_and(|s| NON_CONVERSATION.contains(&s)))
    }

    fn compression(&self) -> bool {
        self.r#type == "system" && self.subtype.as_deref() == Some("chat_compression")
    }
}

/// The records' chain: each record's parent, and the chain the client resumes.
pub(super) struct Chain {
    pub(super) links: Vec<Links>,
    /// Each record's parent record (the first conversation record holding its `parentUuid`).
    pub(super) parent: Vec<Option<usize>>,
    /// Whether each record is on the resumed chain (every fragment of a uuid on it).
    pub(super) on_chain: Vec<bool>,
}

impl Chain {
    pub(super) fn from_links(links: Vec<Links>) -> Chain {
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (i, l) in links.iter().enumerate().filter(|(_, l)| l.conversation()) {
            if let Some(u) = l.uuid.as_deref() {
                first.entry(u).or_insert(i);
            }
        }
        let parent: Vec<Option<usize>> = links
            .iter()
            .map(|l| l.parent_uuid.as_deref().and_then(|p| first.get(p).copied()))
            .collect();
        let leaf = links.iter().rposition(Links::conversation);
        let mut uuids: HashSet<&str> = HashSet::new();
        let mut at = leaf.and_then(|i| links[i].uuid.as_deref().and_then(|u| first.get(u).copied()));
        while let Some(i) = at {
            let Some(u) = links[i].uuid.as_deref() else {
                break;
            };
            if !uuids.insert(u) {
                break;
            }
            at = parent[i];
        }
        let on_chain = links
            .iter()
            .map(|l| l.conversation() && l.uuid.as_deref().is_some_and(|u| uuids.contains(u)))
            .collect();
        Chain {
            parent,
            on_chain,
            links,
        }
    }
}

/// Marks what the client sends: the chain only, and on it nothing before the latest
/// compression. The first record is anchored (the session list reads its `sessionId`, `cwd`
/// and `timestamp`), and so is a compression the client wrote: history before it stays
/// unsent only while it stands.
fn apply_context(chain: &Chain, items: &mut [Item]) {
    for (i, item) in items.iter_mut().enumerate() {
        if !chain.on_chain[i] {
            item.in_context = false;
        }
    }
    let latest = (0..items.len())
        .rev()
        .find(|&i| chain.on_chain[i] && chain.links[i].compression() && items[i].kind == Kind::Summary);
    if let Some(c) = latest {
        for (item, _) in items[..c]
            .iter_mut()
            .zip(&chain.on_chain)
            .filter(|(item, on)| **on && item.in_context)
        {
            item.in_context = false;
            item.stale_history = true;
        }
    }
    if let Some(first) = items.first_mut() {
        first.anchor = true;
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One record as an item, before the chain says whether the client sends it.
fn item_of(v: &Value, span: crate::json::Span, line: usize) -> Item {
    let mut item = Item::new(span, line, Role::None, Kind::NonContext);
    let subtype = str_at(v, "subtype");
    match str_at(v, "type") {
        "user" if subtype != "realtime_message" => {
            item.role = Role::User;
            push_parts(&v["message"]["parts"], false, &mut item);
            item.kind = if item.prose().starts_with(SUMMARY_MARKER) {
                item.ctxc_summary = true;
                Kind::Summary
            } else {
                Kind::User
            };
            item.meta = !subtype.is_empty();
        }
        "assistant" => {
            item.role = Role::Assistant;
            push_parts(&v["message"]["parts"], true, &mut item);
            item.usage = usage_of(&v["usageMetadata"]).map(Box::new);
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
        "tool_result" => {
            item.role = Role::Tool;
            item.kind = Kind::ToolResult;
            push_parts(&v["message"]["parts"], false, &mut item);
            item.is_error = str_at(&v["toolCallResult"], "status") == "error";
        }
        "system" if subtype == "chat_compression" => {
            let history = &v["systemPayload"]["compressedHistory"];
            if history.as_array().is_some_and(|h| !h.is_empty()) {
                item.role = Role::User;
                item.kind = Kind::Summary;
                for content in history.as_array().into_iter().flatten() {
                    let model = str_at(content, "role") == "model";
                    for p in content["parts"].as_array().into_iter().flatten() {
                        if let Some(text) = p["text"].as_str().filter(|_| !model) {
                            item.parts.push(Part::new(PartKind::Text, text));
                        }
                    }
                }
                item.ctxc_summary = item.prose().starts_with(SUMMARY_MARKER);
                // The client's own compression anchors what it no longer sends.
                item.anchor = !item.ctxc_summary;
            }
        }
        "system" if subtype == "custom_title" => item.anchor = true,
        "system" if subtype == "ui_telemetry" => item.disposable = true,
        _ => {}
    }
    item.in_context = item.kind != Kind::NonContext;
    item
}

/// A message's parts: text (a model's `thought` text as thinking), calls, responses, media.
fn push_parts(parts: &Value, model: bool, item: &mut Item) {
    for p in parts.as_array().into_iter().flatten() {
        if let Some(text) = p["text"].as_str() {
            let kind = if model && p["thought"] == true {
                PartKind::Thinking
            } else {
                PartKind::Text
            };
            item.parts.push(Part::new(kind, text));
        } else if let Some(call) = p.get("functionCall") {
            let name = str_at(call, "name");
            item.calls.push(ToolCall {
                id: str_at(call, "id").to_string(),
                name: name.to_string(),
            });
            item.parts.push(Part::new(PartKind::ToolName, name));
            let args = call.get("args").map_or(String::new(), Value::to_string);
            item.parts.push(Part::new(PartKind::ToolArguments, args));
        } else if let Some(r) = p.get("functionResponse") {
            item.results.push(str_at(r, "id").to_string());
            item.is_error |= r["response"].get("error").is_some_and(|e| !e.is_null());
            item.parts.push(Part::new(PartKind::ToolResult, response_text(&r["response"])));
        } else if p["inlineData"].is_object() || p["fileData"].is_object() {
            let mime = p["inlineData"]["mimeType"]
                .as_str()
                .or(p["fileData"]["mimeType"].as_str())
                .unwrap_or("media");
            item.parts.push(Part::new(PartKind::Media, format!("[{mime}]")));
        }
    }
}

/// The text of a `functionResponse.response`: its `output`, else its `error`, else the JSON.
fn response_text(response: &Value) -> String {
    match (response["output"].as_str(), response["error"].as_str()) {
        (Some(output), _) => output.to_string(),
        (None, Some(error)) => error.to_string(),
        _ => response.to_string(),
    }
}

/// The `usageMetadata` of an assistant record (`promptTokenCount` is the whole prompt,
/// `cachedContentTokenCount` the part read from cache).
fn usage_of(u: &Value) -> Option<Usage> {
    let prompt = u.get("promptTokenCount")?.as_u64()?;
    let n = |key: &str| u.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cachedContentTokenCount").min(prompt);
    Some(Usage {
        input_tokens: prompt - cached,
        output_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    })
}

/// The text of a user record's message, as the client's session list reads its first prompt.
pub fn user_text(record: &Value) -> String {
    let parts = record["message"]["parts"].as_array().into_iter().flatten();
    parts.filter_map(|p| p["text"].as_str()).collect()
}

/// Faults the client's loader trips on: records without its identity fields, more than one
/// session id (it refuses the file), a first record that is not the session's, and parents
/// naming no record.
fn check_records(source: &str, conv: &Conversation) -> Vec<Finding> {
    let links: Vec<Links> = conv
        .items
        .iter()
        .map(|i| Links::of(&source[i.span.clone()]))
        .collect();
    let mut findings = Vec::new();
    let sessions: HashSet<&str> = links.iter().filter_map(|l| l.session_id.as_deref()).collect();
    if sessions.len() > 1 {
        findings.push(Finding::new(1, format!("records of {} session ids: the client refuses to load the file", sessions.len())));
    }
    let all: HashSet<&str> = links
        .iter()
        .filter(|l| l.conversation())
        .filter_map(|l| l.uuid.as_deref())
        .collect();
    for (k, l) in links.iter().enumerate() {
        let line = conv.items[k].line;
        if l.uuid.is_none() || l.session_id.is_none() || !RECORD_TYPES.contains(&l.r#type.as_str()) {
            findings.push(Finding::new(line, "not a Qwen Code record: expected \"uuid\", \"sessionId\" and a record \"type\""));
        }
        if let Some(p) = l.parent_uuid.as_deref().filter(|p| !all.contains(p)) {
            findings.push(Finding::new(line, format!("parentUuid '{p}' names no record of the file: the client stops its history there")));
        }
    }
    findings
}

#[cfg(test)]
mod tests;
