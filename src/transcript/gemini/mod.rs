//! Gemini CLI sessions (`@google/gemini-cli`, read from 0.61.0's `chatRecordingService`):
//! `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (`GEMINI_CLI_HOME` replaces the
//! home directory), and the whole-file `session-*.json` of older versions, which the client
//! still loads.
//!
//! A JSONL file starts with a metadata record (`sessionId`, `projectHash`, `startTime`, ...);
//! every message is a record with an `id` and a `type` (`user`, `gemini`, `info`, `error`,
//! `warning`). The client appends a message again whenever it changes (its tokens, its tool
//! calls' status and results), so the last record of an id is the message and earlier ones are
//! stale copies; `{"$set": {...}}` records update the metadata, `{"$rewindTo": id}` removes
//! that message and all after it, and a `$set` holding `messages` (what `/compress` and output
//! masking leave) replaces the whole history. The JSON form is one `ConversationRecord` with
//! a `messages` array.
//!
//! What the model is sent (`convertSessionToClientHistory`): a user message unless its text
//! is empty or starts with `/`, `?`, `<session_context>` or `<hook_context>`; a gemini message
//! as the model's turn (its text, thoughts and calls), then, as a user turn, the results the
//! client stored inside its `toolCalls` entries. info, error and warning messages are shown,
//! never sent. So a gemini message with results is two items, as ATIF's step and observation:
//! the message, and its results, whose span is the `toolCalls` array inside it; they share a
//! message id, and the writer folds the results back into their record (see [`write`]).

mod repair;
mod write;

pub use write::{cancelled_call, cancelled_response};

use super::common::{lines_span, value_error};
use super::edit::Step;
use super::{
    Adapter, Conversation, Doc, Item, Kind, ListLayout, OutItem, Part, PartKind, ReadError,
    ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage,
};
use crate::json::{ArrayLayout, Span};
use serde_json::Value;
use std::collections::HashMap;

/// What the client answers for a call it cancelled (the scheduler's `[Operation Cancelled]`
/// error response); repair gives it to a call left without a result.
pub const CANCELLED: &str = "[Operation Cancelled] Reason: Operation cancelled by user";

/// The Gemini CLI session adapter.
pub struct Gemini;

impl Adapter for Gemini {
    fn content_keys(&self) -> &'static [&'static str] {
        &["content", "toolCalls", "$set", "$rewindTo", "projectHash"]
    }

    /// JSON Lines whose first record is Gemini CLI's metadata (`sessionId` and `projectHash`,
    /// no message `id`), or one JSON object with those and a `messages` array.
    fn detect(&self, doc: &Doc) -> bool {
        match doc {
            Doc::Lines { lines, .. } => lines
                .first()
                .is_some_and(|first| is_metadata(first.node.get())),
            Doc::Json { root, .. } => {
                is_metadata(root.get()) && root.member("messages").is_some_and(|m| m.elements().is_some())
            }
        }
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
        match doc {
            Doc::Lines {
                lines,
                newline,
                trailing_newline,
                ..
            } => {
                let mut records = Vec::with_capacity(lines.len());
                for line in lines {
                    let value: Value = crate::json::lenient::value(line.node.get())
                        .map_err(|e| value_error(line.number, line.span.0, &e))?;
                    let elements = if value["$set"]["messages"].is_array() {
                        checkpoint_elements(line.node.get(), line.span.0)
                    } else {
                        Vec::new()
                    };
                    let holder = records.len();
                    records.push(Record {
                        results: results_span(line.node.get(), line.span.0),
                        value,
                        span: line.range(),
                        line: line.number,
                        holder: None,
                    });
                    // A checkpoint's messages are records of their own, inside its line.
                    for (k, span) in elements.into_iter().enumerate() {
                        let value = records[holder].value["$set"]["messages"][k].clone();
                        let raw = &doc.src()[span.clone()];
                        records.push(Record {
                            results: results_span(raw, span.start),
                            value,
                            span,
                            line: line.number,
                            holder: Some(holder),
                        });
                    }
                }
                let items = items_of(&records, &sent_lines(&records));
                each(conversation(
                    lines_span(doc),
                    items,
                    ListLayout::Lines {
                        newline,
                        trailing_newline: *trailing_newline,
                    },
                    &records,
                ));
                Ok("jsonl".to_string())
            }
            Doc::Json { root, .. } => {
                let Some(messages) = root.member("messages").filter(|m| m.elements().is_some())
                else {
                    return Err(ReadError::none_found(
                        "Gemini CLI session",
                        r#" (an object with "sessionId", "projectHash" and "messages")"#,
                        doc,
                    ));
                };
                let base = doc.span_of(messages).start;
                let mut records = Vec::new();
                let mut relative = Vec::new();
                for node in messages.elements().unwrap_or_default() {
                    let span = doc.span_of(node);
                    let line = doc.line_of(span.start);
                    let value: Value = crate::json::lenient::value(node.get())
                        .map_err(|e| value_error(line, span.start, &e))?;
                    relative.push(span.start - base..span.end - base);
                    records.push(Record {
                        value,
                        results: results_span(node.get(), span.start),
                        span,
                        line,
                        holder: None,
                    });
                }
                // A whole-file record holds each message once: every one is sent.
                let sent = vec![true; records.len()];
                let items = items_of(&records, &sent);
                let layout = ListLayout::Array(ArrayLayout::of(messages.get(), &relative));
                each(conversation(doc.span_of(messages), items, layout, &records));
                Ok("json conversation record".to_string())
            }
        }
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        write::render(self, t, conv, out)
    }

    fn render_list(&self, t: &Transcript, conv: &Conversation, items: &[OutItem], out: &mut String) {
        write::render_list(self, t, conv, items, out);
    }
}

fn conversation(span: Span, items: Vec<Item>, layout: ListLayout, records: &[Record]) -> Conversation {
    let model = records
        .iter()
        .rev()
        .find_map(|r| r.value["model"].as_str().map(str::to_string));
    Conversation {
        span,
        location: String::new(),
        items,
        preamble: Vec::new(),
        layout,
        model,
        context_window: None,
    }
}

/// Whether a record is Gemini CLI's session metadata.
fn is_metadata(raw: &str) -> bool {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        session_id: Option<serde::de::IgnoredAny>,
        project_hash: Option<serde::de::IgnoredAny>,
        id: Option<serde::de::IgnoredAny>,
        r#type: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Head>(raw).is_ok_and(|h| {
        h.session_id.is_some() && h.project_hash.is_some() && h.id.is_none() && h.r#type.is_none()
    })
}

/// One record of the file (a line, or an element of `messages`).
struct Record {
    value: Value,
    span: Span,
    line: usize,
    /// Where its `toolCalls` array is, when it has one.
    results: Option<Span>,
    /// The checkpoint record whose `messages` hold it, if one does.
    holder: Option<usize>,
}

/// The spans of a checkpoint line's `$set.messages` elements (the line at `start`).
fn checkpoint_elements(raw: &str, start: usize) -> Vec<Span> {
    let Some(messages) = checkpoint_array(raw) else {
        return Vec::new();
    };
    let elements = crate::json::array_elements(messages).unwrap_or_default();
    elements
        .iter()
        .map(|e| {
            let at = crate::json::span_of(raw, e.get());
            start + at.start..start + at.end
        })
        .collect()
}

/// The `$set.messages` array of a checkpoint record's raw text.
pub(super) fn checkpoint_array(raw: &str) -> Option<&serde_json::value::RawValue> {
    let parsed = crate::json::parse_raw(raw).ok()?;
    let set = crate::json::member(parsed, "$set")?;
    let messages = crate::json::member(set, "messages")?;
    messages.get().starts_with('[').then_some(messages)
}

/// The span of the `toolCalls` array of a record at `start`.
fn results_span(raw: &str, start: usize) -> Option<Span> {
    let parsed = crate::json::parse_raw(raw).ok()?;
    let calls = crate::json::member(parsed, "toolCalls")?;
    crate::json::array_elements(calls)?;
    let at = crate::json::span_of(raw, calls.get());
    Some(start + at.start..start + at.end)
}

/// Which records the client loads as the conversation, as `loadConversationRecord` replays
/// the file: each message id's last record, in the order ids first appeared; a rewind drops
/// its target and what follows it (everything when the target is unknown); a `$set` of
/// `messages` starts over with its list (marked sent itself).
fn sent_lines(records: &[Record]) -> Vec<bool> {
    let mut order: Vec<String> = Vec::new();
    let mut latest: HashMap<String, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let v = &r.value;
        if let Some(target) = v["$rewindTo"].as_str() {
            match order.iter().position(|id| id == target) {
                Some(at) => {
                    for id in order.drain(at..) {
                        latest.remove(&id);
                    }
                }
                None => {
                    order.clear();
                    latest.clear();
                }
            }
        } else if let Some(id) = v["id"].as_str() {
            if latest.insert(id.to_string(), i).is_none() {
                order.push(id.to_string());
            }
        } else if v["$set"]["messages"].is_array() {
            // Its messages follow it as records of their own.
            order.clear();
            latest.clear();
        }
    }
    let mut sent = vec![false; records.len()];
    for i in latest.into_values() {
        sent[i] = true;
    }
    sent
}

/// The items of the records; `sent` says which the client loads.
///
/// Items that must stay or go together share a message id: every record of one message
/// after the latest checkpoint (the client loads the last; were it gone, it would load an
/// earlier copy), a message and its results, and a user message repeating results with the
/// item that gave them first.
fn items_of(records: &[Record], sent: &[bool]) -> Vec<Item> {
    let rewound = rewind_targets(records);
    let last_checkpoint = records
        .iter()
        .rposition(|r| r.holder.is_none() && r.value["$set"]["messages"].is_array());
    let before_checkpoint = |i: usize| last_checkpoint.is_some_and(|c| i < c);
    let mut items = Vec::with_capacity(records.len());
    // The calls answered so far, with the message id of the item that answered each.
    let mut answered: HashMap<String, String> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let v = &r.value;
        let group = v["id"].as_str().map(|id| match before_checkpoint(i) {
            true => format!("{id}@{i}"),
            false => id.to_string(),
        });
        let mut item = match v["type"].as_str() {
            _ if r.holder.is_none() && v["$set"]["messages"].is_array() => {
                // The client starts its history over here; earlier checkpoints are history it
                // no longer reads.
                answered.clear();
                let mut item = Item::new(r.span.clone(), r.line, Role::None, Kind::NonContext);
                item.anchor = Some(i) == last_checkpoint;
                item.stale_history = !item.anchor;
                item
            }
            Some("user") if !responses_of(&v["content"]).is_empty() => {
                let mut item = responses_item(r, &answered);
                let repeats = responses_of(&v["content"])
                    .iter()
                    .find_map(|id| answered.get(id).cloned());
                item.message_id = repeats.or(group.clone());
                for id in &item.results {
                    answered.insert(id.clone(), item.message_id.clone().unwrap_or_default());
                }
                item
            }
            Some("user") => user_item(r),
            Some("gemini") => gemini_item(r),
            _ => {
                let mut item = Item::new(r.span.clone(), r.line, Role::None, Kind::NonContext);
                // The metadata and a rewind's record keep the file loadable.
                item.anchor = v["$rewindTo"].is_string() || is_metadata(&v.to_string());
                item
            }
        };
        if item.message_id.is_none() {
            item.message_id = group.clone();
        }
        if v["id"].is_string() && !sent[i] {
            item.in_context = false;
            // A rewind's target must stay (an unknown target clears the whole history); copies
            // before the latest checkpoint are history the client no longer reads.
            let id = v["id"].as_str().unwrap_or_default();
            item.anchor = rewound.iter().any(|t| t == id);
            item.stale_history = !item.anchor && before_checkpoint(i);
            // A copy the client does not load pairs nothing: its calls are the loaded copy's.
            item.calls.clear();
            item.results.clear();
        }
        if let Some(mut results) = result_item(r, &item) {
            for id in &results.results {
                answered.insert(id.clone(), group.clone().unwrap_or_default());
            }
            if !item.in_context {
                results.results.clear();
            }
            results.in_context = item.in_context;
            results.stale_history = item.stale_history;
            results.message_id = item.message_id.clone();
            items.push(item);
            items.push(results);
        } else {
            items.push(item);
        }
    }
    items
}

fn rewind_targets(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| r.value["$rewindTo"].as_str().map(str::to_string))
        .collect()
}

/// The text of a `PartListUnion`: a string, a part, or a list of either.
fn content_parts(content: &Value, role_model: bool) -> Vec<Part> {
    let mut parts = Vec::new();
    let list: Vec<&Value> = match content {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    };
    for p in list {
        if let Some(text) = p.as_str() {
            parts.push(Part::new(PartKind::Text, text));
        } else if let Some(text) = p["text"].as_str() {
            let kind = if role_model && p["thought"].as_bool() == Some(true) {
                PartKind::Thinking
            } else {
                PartKind::Text
            };
            parts.push(Part::new(kind, text));
        } else if p["functionCall"].is_object() {
            // Calls are read from `toolCalls` (or here when that is missing): see gemini_item.
        } else if let Some(r) = p.get("functionResponse") {
            parts.push(Part::new(PartKind::ToolResult, response_text(&r["response"])));
        } else if p["inlineData"].is_object() || p["fileData"].is_object() {
            let mime = p["inlineData"]["mimeType"]
                .as_str()
                .or(p["fileData"]["mimeType"].as_str())
                .unwrap_or("media");
            parts.push(Part::new(PartKind::Media, format!("[{mime}]")));
        }
    }
    parts
}

/// The text of a `functionResponse.response`: its `output`, else its `error`, else the JSON.
fn response_text(response: &Value) -> String {
    match (response["output"].as_str(), response["error"].as_str()) {
        (Some(output), _) => output.to_string(),
        (None, Some(error)) => error.to_string(),
        _ => response.to_string(),
    }
}

/// The text of a user message's content, as the client's session browser reads it.
pub fn user_text(content: &Value) -> String {
    let parts = content_parts(content, false);
    parts.iter().map(|p| p.text.as_str()).collect()
}

/// Whether the client skips a user message's text when it builds the history (and its
/// session browser when it titles the session).
pub fn ignored_user_text(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t.starts_with('/')
        || t.starts_with('?')
        || t.starts_with("<session_context>")
        || t.starts_with("<hook_context>")
}

/// The ids of the `functionResponse` parts of a user message's content.
fn responses_of(content: &Value) -> Vec<String> {
    let parts = content.as_array().into_iter().flatten();
    parts
        .filter_map(|p| p.get("functionResponse"))
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A user message that holds tool responses (the client records the turn it sent after the
/// calls, and a checkpoint holds the `<id>_response` turn it rebuilt from `toolCalls` too): a
/// results item. It answers only calls nothing answered yet; the others it repeats, as the
/// client sends it again on resuming.
fn responses_item(r: &Record, answered: &HashMap<String, String>) -> Item {
    let mut item = Item::new(r.span.clone(), r.line, Role::Tool, Kind::ToolResult);
    item.parts = content_parts(&r.value["content"], false);
    item.results = responses_of(&r.value["content"])
        .into_iter()
        .filter(|id| !answered.contains_key(id))
        .collect();
    item
}

fn user_item(r: &Record) -> Item {
    let parts = content_parts(&r.value["content"], false);
    let text: String = parts.iter().map(|p| p.text.as_str()).collect();
    let kind = if text.starts_with(SUMMARY_MARKER) {
        Kind::Summary
    } else {
        Kind::User
    };
    let mut item = Item::new(r.span.clone(), r.line, Role::User, kind);
    item.ctxc_summary = kind == Kind::Summary;
    item.parts = parts;
    item.in_context = !ignored_user_text(&text) || item.parts.iter().any(|p| p.kind != PartKind::Text);
    item
}

/// The calls of a gemini message: its `toolCalls` entries, else `functionCall` parts.
fn calls_of(v: &Value) -> Vec<(String, String, String)> {
    let entries = v["toolCalls"].as_array().filter(|c| !c.is_empty());
    if let Some(entries) = entries {
        return entries
            .iter()
            .map(|c| {
                let id = c["id"].as_str().unwrap_or_default().to_string();
                let name = c["name"].as_str().unwrap_or_default().to_string();
                (id, name, c["args"].to_string())
            })
            .collect();
    }
    let content = v["content"].as_array().into_iter().flatten();
    content
        .filter_map(|p| p.get("functionCall"))
        .map(|c| {
            let id = c["id"].as_str().unwrap_or_default().to_string();
            let name = c["name"].as_str().unwrap_or_default().to_string();
            (id, name, c["args"].to_string())
        })
        .collect()
}

fn gemini_item(r: &Record) -> Item {
    let v = &r.value;
    let mut parts = content_parts(&v["content"], true);
    let in_content = v["content"]
        .as_array()
        .is_some_and(|c| c.iter().any(|p| p["functionCall"].is_object() || p["thought"] == true));
    if !in_content {
        // Older sessions: the client rebuilds the turn from its thoughts and calls.
        let thoughts = v["thoughts"].as_array().into_iter().flatten().map(|t| {
            let description = t["description"].as_str().unwrap_or_default();
            match t["subject"].as_str() {
                Some(subject) if !subject.is_empty() => format!("**{subject}** {description}"),
                _ => description.to_string(),
            }
        });
        let mut thinking: Vec<Part> = thoughts.map(|t| Part::new(PartKind::Thinking, t)).collect();
        thinking.append(&mut parts);
        parts = thinking;
    }
    let calls = calls_of(v);
    let kind = if calls.is_empty() {
        Kind::AssistantText
    } else {
        Kind::ToolCall
    };
    let mut item = Item::new(r.span.clone(), r.line, Role::Assistant, kind);
    item.parts = parts;
    for (id, name, args) in calls {
        item.parts.push(Part::new(PartKind::ToolName, name.clone()));
        item.parts.push(Part::new(PartKind::ToolArguments, args));
        item.calls.push(ToolCall { id, name });
    }
    item.usage = usage_of(&v["tokens"]);
    // The client sends no model turn for a gemini message with nothing in it.
    if item.parts.is_empty() {
        item.in_context = false;
    }
    item
}

/// The results of a gemini message's calls, as the item the client sends after its turn.
fn result_item(r: &Record, message: &Item) -> Option<Item> {
    let span = r.results.clone()?;
    if message.role != Role::Assistant {
        return None;
    }
    let mut item = Item::new(span, r.line, Role::Tool, Kind::ToolResult);
    for call in r.value["toolCalls"].as_array().into_iter().flatten() {
        let Some(result) = call.get("result").filter(|v| !v.is_null()) else {
            continue;
        };
        item.results.push(call["id"].as_str().unwrap_or_default().to_string());
        item.parts.push(Part::new(PartKind::ToolResult, result_text(result)));
        item.is_error |= call["status"].as_str() == Some("error");
    }
    (!item.results.is_empty()).then_some(item)
}

/// The text of a stored result: a string, a `functionResponse` part, or a list of parts.
fn result_text(result: &Value) -> String {
    if let Some(text) = result.as_str() {
        return text.to_string();
    }
    let parts = content_parts(result, false);
    let texts: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
    texts.join("\n")
}

/// The client's `tokens` (`input` is the whole prompt, `cached` the part read from cache).
fn usage_of(tokens: &Value) -> Option<Box<Usage>> {
    let input = tokens["input"].as_u64()?;
    let cached = tokens["cached"].as_u64().unwrap_or(0).min(input);
    let output = tokens["output"].as_u64().unwrap_or(0) + tokens["thoughts"].as_u64().unwrap_or(0);
    Some(Box::new(Usage {
        input_tokens: input - cached,
        output_tokens: output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    }))
}

#[cfg(test)]
mod tests;
