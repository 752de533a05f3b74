//! Claude Code and Codex sessions as Chat Completions messages: what the client sends the
//! model when it resumes the session, read record by record from the chain the adapter
//! resolved (Claude Code: its resumed branch; Codex: its history from its latest compaction
//! on).
//!
//! - **Claude Code** records hold Anthropic messages: `text` blocks are content, `tool_use`
//!   blocks calls (their `input` the arguments), `tool_result` blocks `tool` messages (text
//!   blocks joined); a compaction summary is user text. The client writes one record per
//!   content block, so an assistant turn's records are one message again.
//! - **Codex** response items: `message` (its `developer` role a system message),
//!   `function_call`, `custom_tool_call` and `local_shell_call` calls (a custom tool's free
//!   text input is kept as `{"input": …}`, a shell call's `action` as its arguments), their
//!   outputs `tool` messages.
//!
//! A result that answers no call in the file is a user message. Reasoning, images and
//! documents, result error flags and a custom tool's free-text form have no place in Chat
//! Completions: they are counted in `dropped`.

use crate::transcript::{Conversation, Format, Kind, Transcript};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};

/// The messages `conv` of `t` (a Claude Code or Codex session) is sent, in order.
pub(super) fn messages(
    t: &Transcript,
    conv: &Conversation,
    dropped: &mut BTreeMap<String, usize>,
) -> Vec<Value> {
    let mut out = Messages::default();
    let mut last = None;
    for item in conv
        .items
        .iter()
        .filter(|i| i.in_context && i.kind != Kind::NonContext)
    {
        // A record the adapter read as several items (a compaction's history) is read once.
        if last.replace(item.span.clone()) == Some(item.span.clone()) {
            continue;
        }
        let Ok(record) = serde_json::from_str::<Value>(&t.source[item.span.clone()]) else {
            note(dropped, "records that are not JSON");
            continue;
        };
        match t.format {
            Format::ClaudeCode => claude_code(&record, &mut out, dropped),
            _ => codex(&record, &mut out, dropped),
        }
    }
    out.list
}

fn note(dropped: &mut BTreeMap<String, usize>, what: &str) {
    *dropped.entry(what.to_string()).or_insert(0) += 1;
}

/// Messages being built: consecutive assistant pieces (one record per content block or per
/// call) join the assistant message before them, as the client sends them.
#[derive(Default)]
struct Messages {
    list: Vec<Value>,
    /// The ids of the calls written so far.
    called: HashSet<String>,
}

impl Messages {
    fn text(&mut self, role: &str, text: String) {
        self.list.push(json!({"role": role, "content": text}));
    }

    fn assistant(&mut self, text: Option<String>, call: Option<Value>) {
        let open = self.list.last_mut().filter(|m| m["role"] == "assistant");
        let message = match open {
            Some(message) => message,
            None => {
                self.list.push(json!({"role": "assistant", "content": ""}));
                self.list.last_mut().expect("just pushed")
            }
        };
        if let Some(text) = text {
            let content = message["content"].as_str().unwrap_or("");
            message["content"] = if content.is_empty() {
                Value::String(text)
            } else {
                Value::String(format!("{content}\n{text}"))
            };
        }
        if let Some(call) = call {
            self.called
                .insert(call["id"].as_str().unwrap_or("").to_string());
            match message.get_mut("tool_calls").and_then(Value::as_array_mut) {
                Some(calls) => calls.push(call),
                None => message["tool_calls"] = json!([call]),
            }
        }
    }

    /// A `tool` message answering call `id`; a result that answers no call written before
    /// it (its call is not in the file) is a user message, as the ATIF conversion writes one.
    fn result(&mut self, id: &str, content: String) {
        if self.called.contains(id) {
            self.list
                .push(json!({"role": "tool", "tool_call_id": id, "content": content}));
        } else {
            self.text("user", content);
        }
    }
}

fn call(id: &str, name: &str, arguments: String) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

/// A Claude Code record's Anthropic message.
fn claude_code(record: &Value, out: &mut Messages, dropped: &mut BTreeMap<String, usize>) {
    let message = &record["message"];
    let assistant = message["role"] == "assistant";
    let blocks = match &message["content"] {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(blocks) => blocks.clone(),
        _ => Vec::new(),
    };
    let mut texts = Vec::new();
    for block in &blocks {
        // Text as the adapter reads it: a bare string too, and any block with a text.
        if let Some(text) = block.as_str().or_else(|| block["text"].as_str()) {
            texts.push(text.to_string());
            continue;
        }
        match block["type"].as_str().unwrap_or("") {
            "thinking" | "redacted_thinking" => note(dropped, "reasoning"),
            "tool_use" => {
                let id = block["id"].as_str().unwrap_or("");
                let name = block["name"].as_str().unwrap_or("");
                out.assistant(None, Some(call(id, name, block["input"].to_string())));
            }
            "tool_result" => {
                if block["is_error"] == Value::Bool(true) {
                    note(dropped, "tool result error flags");
                }
                let id = block["tool_use_id"].as_str().unwrap_or("");
                out.result(id, content_text(&block["content"], dropped));
            }
            _ => note(dropped, "image and document content parts"),
        }
    }
    let text = texts.join("\n");
    if assistant {
        if !text.is_empty() {
            out.assistant(Some(text), None);
        }
    } else if !text.is_empty() {
        out.text("user", text);
    }
}

/// A message's or a tool result's content as text: a string, or its text blocks joined
/// (media noted).
fn content_text(content: &Value, dropped: &mut BTreeMap<String, usize>) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let mut texts = Vec::new();
            for block in blocks {
                match block.get("text").and_then(Value::as_str).or(block.as_str()) {
                    Some(text) => texts.push(text),
                    None => note(dropped, "image and document content parts"),
                }
            }
            texts.join("\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A Codex rollout record's response item (`response_item`, or a `compacted` record's
/// replacement history entries and summary).
fn codex(record: &Value, out: &mut Messages, dropped: &mut BTreeMap<String, usize>) {
    let payload = &record["payload"];
    match record["type"].as_str().unwrap_or("") {
        "response_item" => codex_item(payload, out, dropped),
        "compacted" => match payload["replacement_history"].as_array() {
            Some(history) => history.iter().for_each(|p| codex_item(p, out, dropped)),
            None => out.text(
                "user",
                payload["message"].as_str().unwrap_or("").to_string(),
            ),
        },
        _ => {}
    }
}

fn codex_item(p: &Value, out: &mut Messages, dropped: &mut BTreeMap<String, usize>) {
    let id = p["call_id"].as_str().unwrap_or("");
    match p["type"].as_str().unwrap_or("") {
        "message" => {
            let text = content_text(&p["content"], dropped);
            match p["role"].as_str().unwrap_or("") {
                "assistant" => out.assistant(Some(text), None),
                "developer" | "system" => out.text("system", text),
                _ => out.text("user", text),
            }
        }
        "function_call" => {
            let arguments = p["arguments"].as_str().unwrap_or("{}").to_string();
            let name = p["name"].as_str().unwrap_or("");
            out.assistant(None, Some(call(id, name, arguments)));
        }
        "custom_tool_call" => {
            note(dropped, "custom tool calls' free-text form");
            let arguments = json!({"input": p["input"]}).to_string();
            let name = p["name"].as_str().unwrap_or("");
            out.assistant(None, Some(call(id, name, arguments)));
        }
        "local_shell_call" => {
            out.assistant(None, Some(call(id, "local_shell", p["action"].to_string())));
        }
        "function_call_output" | "custom_tool_call_output" => {
            let content = match &p["output"] {
                Value::String(s) => s.clone(),
                Value::Object(o) => o
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                other => content_text(other, dropped),
            };
            out.result(id, content);
        }
        "reasoning" => note(dropped, "reasoning"),
        "ghost_snapshot" => {}
        other => note(dropped, &format!("{other} items")),
    }
}
