//! Conversion between the formats whose meaning maps cleanly: OpenAI chat messages and ATIF
//! trajectories (`ctxc convert`). Pure: a transcript read by the adapters in, the converted
//! text and what did not carry over out.
//!
//! OpenAI → ATIF, one trajectory per conversation: `system` and `developer` messages are system
//! steps, `user` messages user steps, an `assistant` message an agent step (`content` its
//! message, `reasoning_content` its reasoning, `tool_calls` its calls with their arguments as
//! an object), and the `tool` messages that answer its calls its observation. What ATIF has no
//! field for is kept in the step's `extra` under `openai` (the developer role, other message
//! members such as a tool message's `name`, a `null` content, argument text that is not
//! written as serde writes its object), so that ATIF → OpenAI gives the same messages back.
//! The conversation's `tools` are the agent's `tool_definitions`.
//!
//! ATIF → OpenAI, one `{"messages": [...]}` per trajectory (with `tools` from the agent's
//! `tool_definitions`): the reverse. What OpenAI chat has no place for is not carried over and
//! said in a note: the trajectory's `session_id`, `agent`, `notes`, `final_metrics` and
//! `extra`; each step's `timestamp`, `model_name`, `reasoning_effort`, `metrics`, `extra`
//! (but ctxc's own) and subagent references; image content parts. Observation results that
//! answer no call (an environment's feedback) become user messages.
//!
//! Gemini CLI, Qwen Code and pi sessions → OpenAI or ATIF: what the client sends the model
//! when it resumes the session (pi: the branch it resumes, its latest compaction's summary
//! first), as user, assistant and `tool` messages; reasoning, images, a result's error flag
//! and repeated results are not carried over and said in the note. Claude Code and Codex
//! sessions likewise, read record by record ([`agents`]).
//!
//! One conversation is written as one pretty-printed JSON object; several as JSON Lines, one
//! per line.

mod agents;

use crate::transcript::{Format, PartKind, Transcript};
use anyhow::{Result, bail};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The formats `convert` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// ATIF trajectories.
    Atif,
    /// OpenAI chat messages.
    OpenAi,
}

impl Target {
    /// Every target, as the command line lists them.
    pub const ALL: [Target; 2] = [Target::Atif, Target::OpenAi];

    /// The name used on the command line and in output names.
    pub fn name(self) -> &'static str {
        match self {
            Target::Atif => "atif",
            Target::OpenAi => "openai",
        }
    }

    fn format(self) -> Format {
        match self {
            Target::Atif => Format::Atif,
            Target::OpenAi => Format::OpenAi,
        }
    }
}

/// A converted transcript.
#[derive(Debug, Clone)]
pub struct Converted {
    /// The text, in the target format.
    pub text: String,
    /// Conversations converted.
    pub conversations: usize,
    /// Whether it holds several conversations (then it is JSON Lines).
    pub lines: bool,
    /// What did not carry over, by field, with how often.
    pub dropped: BTreeMap<String, usize>,
}

impl Converted {
    /// A one-line note of what did not carry over, if anything.
    pub fn note(&self) -> Option<String> {
        if self.dropped.is_empty() {
            return None;
        }
        let fields: Vec<String> = self
            .dropped
            .iter()
            .map(|(field, n)| format!("{field} ×{n}"))
            .collect();
        Some(format!(
            "not carried over (no field for it): {}",
            fields.join(", ")
        ))
    }
}

/// A trajectory's `session_id`: the input's name and where the conversation is in it
/// (`runs/3/traj`, `runs:line 3`).
fn session_id(name: &str, location: &str) -> String {
    match location {
        "" => name.to_string(),
        l if l.starts_with('/') => format!("{name}{l}"),
        l => format!("{name}:{l}"),
    }
}

/// The key under which a converted step keeps what ATIF has no field for.
const EXTRA_KEY: &str = "openai";

/// Converts `t` (named `name`, for ATIF session ids) to `to`.
pub fn convert(t: &Transcript, to: Target, name: &str) -> Result<Converted> {
    if t.format == to.format() {
        bail!("the input is {} already", t.format);
    }
    if !matches!(
        t.format,
        Format::OpenAi
            | Format::Atif
            | Format::Gemini
            | Format::Qwen
            | Format::Pi
            | Format::ClaudeCode
            | Format::Codex
    ) {
        bail!(
            "{} does not map cleanly onto {}: convert reads openai, atif, gemini, qwen, pi, \
             claude-code and codex",
            t.format,
            to.name()
        );
    }
    let mut dropped = BTreeMap::new();
    let mut outputs = Vec::with_capacity(t.conversations.len());
    let owners = match t.format {
        Format::Atif => objects_of(&t.source)?,
        _ => Vec::new(),
    };
    for conv in &t.conversations {
        let list = match t.format {
            Format::Gemini | Format::Qwen => messages_sent(conv, 0..conv.items.len(), &mut dropped),
            Format::Pi => {
                let order = crate::transcript::pi_sent_order(&t.source, conv);
                messages_sent(conv, order, &mut dropped)
            }
            Format::ClaudeCode | Format::Codex => agents::messages(t, conv, &mut dropped),
            _ => list_of(t, conv)?,
        };
        if list.is_empty() {
            // Never an empty conversation written, which nothing reads back.
            let held = match dropped.keys().cloned().collect::<Vec<_>>().join(", ") {
                none if none.is_empty() => "no message".to_string(),
                some => format!("only {some}"),
            };
            bail!(
                "nothing the conversation sends has a place in {} (it holds {held})",
                to.name()
            );
        }
        let tools = conv
            .preamble
            .iter()
            .find(|p| p.kind == PartKind::ToolDefinitions)
            .and_then(|p| serde_json::from_str::<Value>(&p.text).ok());
        let converted = match (t.format, to) {
            (
                Format::Gemini | Format::Qwen | Format::Pi | Format::ClaudeCode | Format::Codex,
                Target::OpenAi,
            ) => {
                json!({ "messages": list })
            }
            (
                Format::OpenAi
                | Format::Gemini
                | Format::Qwen
                | Format::Pi
                | Format::ClaudeCode
                | Format::Codex,
                Target::Atif,
            ) => {
                let session = session_id(name, &conv.location);
                to_atif(&list, tools, conv.model.as_deref(), &session, &mut dropped)
            }
            (Format::Atif, Target::OpenAi) => {
                let start = conv.span.start;
                let owner = owners
                    .iter()
                    .find(|(span, _)| span.start < start && start < span.end)
                    .map(|(_, owner)| owner);
                for key in ["session_id", "agent", "notes", "final_metrics", "extra"] {
                    if owner.and_then(|o| o.get(key)).is_some_and(|v| !v.is_null()) {
                        *dropped.entry(format!("trajectory {key}")).or_insert(0) += 1;
                    }
                }
                to_openai(&list, tools, &mut dropped)
            }
            (from, _) => unreachable!("{from} to {} was refused above", to.name()),
        };
        outputs.push(converted);
    }
    let lines = outputs.len() != 1;
    let text = if lines {
        let mut text = String::new();
        for value in &outputs {
            text.push_str(&value.to_string());
            text.push('\n');
        }
        text
    } else {
        serde_json::to_string_pretty(&outputs[0])? + "\n"
    };
    Ok(Converted {
        text,
        conversations: outputs.len(),
        lines,
        dropped,
    })
}

/// What a session is sent, as Chat Completions messages, read from the model ctxc built of it
/// (Gemini CLI: the client's own history, its records' copies and checkpoints resolved; Qwen
/// Code: its resumed chain, from its latest compression on; pi: the branch it resumes, from
/// its latest compaction's summary on), its items taken in `order`:
/// user text (a summary is user text, as the clients send it), assistant text with its
/// calls, and a `tool` message per result. Reasoning, images, a result's error flag and a
/// result the client sends again (a repeat) have no place there: they are counted as dropped.
fn messages_sent(
    conv: &crate::transcript::Conversation,
    order: impl IntoIterator<Item = usize>,
    dropped: &mut BTreeMap<String, usize>,
) -> Vec<Value> {
    use crate::transcript::Role;
    let texts = |item: &crate::transcript::Item, kind: PartKind| -> Vec<String> {
        let parts = item.parts.iter().filter(|p| p.kind == kind);
        parts.map(|p| p.text.clone()).collect()
    };
    let mut messages = Vec::new();
    let items = order.into_iter().map(|i| &conv.items[i]);
    for item in items.filter(|i| i.in_context) {
        if item.parts.iter().any(|p| p.kind == PartKind::Thinking) {
            *dropped.entry("reasoning".into()).or_insert(0) += 1;
        }
        let images = item.parts.iter().filter(|p| p.kind == PartKind::Media);
        match images.count() {
            0 => {}
            n => *dropped.entry("image content parts".into()).or_insert(0) += n,
        }
        if item.is_error {
            *dropped.entry("tool result error flags".into()).or_insert(0) += 1;
        }
        match item.role {
            Role::User | Role::System | Role::Developer => {
                let role = if item.role == Role::User {
                    "user"
                } else {
                    "system"
                };
                let mut text = texts(item, PartKind::Text);
                text.extend(texts(item, PartKind::ToolResult));
                messages.push(json!({"role": role, "content": text.join("\n")}));
            }
            Role::Assistant => {
                let text = texts(item, PartKind::Text).join("\n");
                let arguments = texts(item, PartKind::ToolArguments);
                let calls: Vec<Value> = item
                    .calls
                    .iter()
                    .zip(arguments)
                    .map(|(call, arguments)| {
                        json!({"id": call.id, "type": "function",
                            "function": {"name": call.name, "arguments": arguments}})
                    })
                    .collect();
                let mut message = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    message["tool_calls"] = Value::Array(calls);
                }
                messages.push(message);
            }
            Role::Tool if item.results.is_empty() => {
                *dropped.entry("repeated tool responses".into()).or_insert(0) += 1;
            }
            Role::Tool => {
                let mut outputs = texts(item, PartKind::ToolResult);
                // One result in several text blocks (pi's) is one message's content.
                if item.results.len() == 1 && outputs.len() > 1 {
                    outputs = vec![outputs.join("\n")];
                }
                for (k, id) in item.results.iter().enumerate() {
                    let content = outputs.get(k).cloned().unwrap_or_default();
                    messages.push(json!({"role": "tool", "tool_call_id": id, "content": content}));
                }
            }
            Role::None => {}
        }
    }
    messages
}

/// The elements of a conversation's list: the array, or the lines of a JSONL file holding
/// one message per line.
fn list_of(t: &Transcript, conv: &crate::transcript::Conversation) -> Result<Vec<Value>> {
    use crate::transcript::ListLayout;
    let values = match &conv.layout {
        ListLayout::Lines { .. } => conv
            .items
            .iter()
            .map(|item| serde_json::from_str(&t.source[item.span.clone()]))
            .collect::<serde_json::Result<Vec<Value>>>()?,
        ListLayout::Array(_) | ListLayout::Single => {
            match serde_json::from_str(&t.source[conv.span.clone()])? {
                Value::Array(values) => values,
                one => vec![one],
            }
        }
    };
    Ok(values)
}

/// The top-level objects of `source` (the trajectories of an ATIF file) with their spans.
fn objects_of(source: &str) -> Result<Vec<(crate::json::Span, Map<String, Value>)>> {
    use crate::transcript::Doc;
    let doc = Doc::parse(source).map_err(|_| anyhow::anyhow!("the input does not parse"))?;
    let records: Vec<&crate::json::Node> = match &doc {
        Doc::Json { root, .. } => root
            .elements()
            .map_or_else(|| vec![root], |elements| elements.iter().collect()),
        Doc::Lines { lines, .. } => lines.iter().map(|l| &l.node).collect(),
    };
    records
        .into_iter()
        .map(|record| {
            Ok((
                doc.span_of(record),
                serde_json::from_str(record.get()).unwrap_or_default(),
            ))
        })
        .collect()
}

/// One OpenAI conversation as an ATIF trajectory.
fn to_atif(
    messages: &[Value],
    tools: Option<Value>,
    model: Option<&str>,
    session: &str,
    dropped: &mut BTreeMap<String, usize>,
) -> Value {
    let mut steps: Vec<Map<String, Value>> = Vec::new();
    let mut parts_used = false;
    for message in messages {
        let Some(m) = message.as_object() else {
            *dropped
                .entry("messages that are not objects".into())
                .or_insert(0) += 1;
            continue;
        };
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if role == "tool" {
            answer(&mut steps, m, dropped);
            continue;
        }
        let source = match role {
            "system" | "developer" => "system",
            "user" => "user",
            "assistant" => "agent",
            _ => {
                *dropped.entry(format!("{role:?} messages")).or_insert(0) += 1;
                continue;
            }
        };
        let mut step = Map::new();
        step.insert("step_id".into(), json!(steps.len() + 1));
        step.insert("source".into(), json!(source));
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        let (text, parts) = atif_message(&content, dropped);
        parts_used |= parts;
        step.insert("message".into(), text);
        let mut extra = Map::new();
        if role == "developer" {
            extra.insert("role".into(), json!("developer"));
        }
        if content.is_null() {
            extra.insert("content".into(), Value::Null);
        }
        if let Some(reasoning) = m.get("reasoning_content").filter(|r| r.is_string()) {
            step.insert("reasoning_content".into(), reasoning.clone());
        }
        if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
            let mut atif_calls = Vec::new();
            let mut arguments_text = Map::new();
            for call in calls {
                let (atif_call, text) = atif_call(call);
                if let Some(text) = text {
                    arguments_text.insert(
                        atif_call["tool_call_id"].as_str().unwrap_or("").into(),
                        text,
                    );
                }
                atif_calls.push(atif_call);
            }
            step.insert("tool_calls".into(), Value::Array(atif_calls));
            if !arguments_text.is_empty() {
                extra.insert("arguments".into(), Value::Object(arguments_text));
            }
        }
        let members: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "role" | "content" | "tool_calls" | "reasoning_content"
                )
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !members.is_empty() {
            extra.insert("members".into(), Value::Object(members));
        }
        if !extra.is_empty() {
            step.insert("extra".into(), json!({ EXTRA_KEY: extra }));
        }
        steps.push(step);
    }
    let mut agent = Map::new();
    agent.insert("name".into(), json!("unknown"));
    agent.insert("version".into(), json!("unknown"));
    if let Some(model) = model {
        agent.insert("model_name".into(), json!(model));
    }
    if let Some(tools) = tools {
        agent.insert("tool_definitions".into(), tools);
    }
    // Content parts came with v1.6; tool definitions with v1.5.
    let version = if parts_used { "ATIF-v1.6" } else { "ATIF-v1.5" };
    json!({
        "schema_version": version,
        "session_id": session,
        "agent": agent,
        "steps": steps,
    })
}

/// An OpenAI `content` as an ATIF message: a string as it is, a list of text parts as v1.6
/// content parts (whether parts were written); other parts are dropped.
fn atif_message(content: &Value, dropped: &mut BTreeMap<String, usize>) -> (Value, bool) {
    match content {
        Value::String(_) => (content.clone(), false),
        Value::Null => (json!(""), false),
        Value::Array(parts) => {
            let mut out = Vec::new();
            for part in parts {
                match (part["type"].as_str(), part["text"].as_str()) {
                    (Some("text"), Some(text)) => out.push(json!({"type": "text", "text": text})),
                    (kind, _) => {
                        let kind = kind.unwrap_or("untyped");
                        *dropped.entry(format!("{kind} content parts")).or_insert(0) += 1;
                    }
                }
            }
            (Value::Array(out), true)
        }
        other => (json!(other.to_string()), false),
    }
}

/// An OpenAI tool call as an ATIF one, and its argument text when the object does not give it
/// back as it was written.
fn atif_call(call: &Value) -> (Value, Option<Value>) {
    let id = call["id"].clone();
    let name = call["function"]["name"].clone();
    let text = call["function"]["arguments"].as_str().unwrap_or("");
    let parsed: Option<Value> = serde_json::from_str(text).ok().filter(Value::is_object);
    // Kept when the object, written back, is not the text (spaces, key order, escapes).
    let written = parsed.as_ref().map(Value::to_string);
    let kept = (written.as_deref() != Some(text)).then(|| json!(text));
    let arguments = parsed.unwrap_or_else(|| json!({}));
    (
        json!({"tool_call_id": id, "function_name": name, "arguments": arguments}),
        kept,
    )
}

/// Adds an OpenAI `tool` message to the observation of the agent step whose call it answers
/// (else the latest agent step's).
fn answer(
    steps: &mut [Map<String, Value>],
    m: &Map<String, Value>,
    dropped: &mut BTreeMap<String, usize>,
) {
    let id = m.get("tool_call_id").cloned().unwrap_or(Value::Null);
    let calls = |s: &Map<String, Value>| {
        s.get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|c| c.iter().any(|c| c["tool_call_id"] == id))
    };
    let at = steps
        .iter()
        .rposition(calls)
        .or_else(|| steps.iter().rposition(|s| s["source"] == "agent"));
    let Some(step) = at.map(|at| &mut steps[at]) else {
        *dropped
            .entry("tool messages before any assistant message".into())
            .or_insert(0) += 1;
        return;
    };
    let content = m.get("content").cloned().unwrap_or(Value::Null);
    let (content, _) = atif_message(&content, dropped);
    let mut result = Map::new();
    result.insert("source_call_id".into(), id.clone());
    result.insert("content".into(), content);
    let members: Map<String, Value> = m
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "role" | "content" | "tool_call_id"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let observation = step
        .entry("observation")
        .or_insert_with(|| json!({"results": []}));
    observation["results"]
        .as_array_mut()
        .expect("made above")
        .push(Value::Object(result));
    if !members.is_empty() {
        let extra = step
            .entry("extra")
            .or_insert_with(|| json!({ EXTRA_KEY: {} }));
        let ours = extra[EXTRA_KEY].as_object_mut().expect("made above");
        let results = ours.entry("results").or_insert_with(|| json!({}));
        results[id.as_str().unwrap_or("")] = Value::Object(members);
    }
}

/// One ATIF trajectory's steps as an OpenAI conversation.
fn to_openai(
    steps: &[Value],
    tools: Option<Value>,
    dropped: &mut BTreeMap<String, usize>,
) -> Value {
    let mut messages = Vec::new();
    for step in steps {
        let ours = &step["extra"][EXTRA_KEY];
        for key in [
            "timestamp",
            "model_name",
            "reasoning_effort",
            "metrics",
            "is_copied_context",
            "llm_call_count",
        ] {
            if step.get(key).is_some_and(|v| !v.is_null()) {
                *dropped.entry(format!("step {key}")).or_insert(0) += 1;
            }
        }
        if step["extra"]
            .as_object()
            .is_some_and(|e| e.keys().any(|k| k != EXTRA_KEY))
        {
            *dropped.entry("step extra".into()).or_insert(0) += 1;
        }
        let role = match step["source"].as_str() {
            Some("system") => ours["role"].as_str().unwrap_or("system"),
            Some("user") => "user",
            Some("agent") => "assistant",
            _ => {
                *dropped.entry("steps of another source".into()).or_insert(0) += 1;
                continue;
            }
        };
        let mut m = Map::new();
        m.insert("role".into(), json!(role));
        let content = if ours.get("content").is_some_and(Value::is_null) {
            Value::Null
        } else {
            openai_content(&step["message"], dropped)
        };
        m.insert("content".into(), content);
        if let Some(reasoning) = step.get("reasoning_content").filter(|r| r.is_string()) {
            m.insert("reasoning_content".into(), reasoning.clone());
        }
        if let Some(calls) = step["tool_calls"].as_array() {
            let calls = calls
                .iter()
                .map(|c| {
                    let id = c["tool_call_id"].as_str().unwrap_or("");
                    let arguments = match ours["arguments"].get(id) {
                        Some(text) => text.clone(),
                        None => json!(c["arguments"].to_string()),
                    };
                    json!({"id": id, "type": "function", "function": {"name": c["function_name"], "arguments": arguments}})
                })
                .collect();
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        if let Some(members) = ours["members"].as_object() {
            m.extend(members.clone());
        }
        messages.push(Value::Object(m));
        for result in step["observation"]["results"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if result
                .get("subagent_trajectory_ref")
                .is_some_and(|r| !r.is_null())
            {
                *dropped
                    .entry("subagent trajectory references".into())
                    .or_insert(0) += 1;
            }
            let content = openai_content(&result["content"], dropped);
            let message = match result["source_call_id"].as_str() {
                Some(id) => {
                    let mut tool = Map::new();
                    tool.insert("role".into(), json!("tool"));
                    tool.insert("tool_call_id".into(), json!(id));
                    tool.insert("content".into(), content);
                    if let Some(members) = ours["results"][id].as_object() {
                        tool.extend(members.clone());
                    }
                    Value::Object(tool)
                }
                None => {
                    *dropped
                        .entry("results answering no call (written as user messages)".into())
                        .or_insert(0) += 1;
                    json!({"role": "user", "content": content})
                }
            };
            messages.push(message);
        }
    }
    let mut out = Map::new();
    out.insert("messages".into(), Value::Array(messages));
    if let Some(tools) = tools {
        out.insert("tools".into(), tools);
    }
    Value::Object(out)
}

/// An ATIF message or result content as OpenAI `content`: a string as it is, content parts as
/// text parts (image parts dropped).
fn openai_content(message: &Value, dropped: &mut BTreeMap<String, usize>) -> Value {
    match message {
        Value::Array(parts) => Value::Array(
            parts
                .iter()
                .filter(|p| {
                    let text = p["type"] == "text";
                    if !text {
                        *dropped.entry("image content parts".into()).or_insert(0) += 1;
                    }
                    text
                })
                .map(|p| json!({"type": "text", "text": p["text"]}))
                .collect(),
        ),
        Value::Null => json!(""),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ReadOptions, check, read};

    const CHAT: &str = r#"{"model": "gpt-4o", "tools": [{"type": "function", "function": {"name": "get", "parameters": {}}}], "messages": [
{"role": "developer", "content": "be brief"},
{"role": "user", "content": [{"type": "text", "text": "look up 7"}]},
{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get", "arguments": "{ \"id\": 7 }"}}, {"id": "c2", "type": "function", "function": {"name": "get", "arguments": "{\"id\":8}"}}]},
{"role": "tool", "tool_call_id": "c1", "name": "get", "content": "seven"},
{"role": "tool", "tool_call_id": "c2", "content": "eight"},
{"role": "assistant", "content": "7 is seven", "refusal": null}]}"#;

    #[test]
    fn openai_to_atif_and_back_gives_the_same_messages() {
        let t = read(CHAT.into(), &ReadOptions::default()).unwrap();
        let atif = convert(&t, Target::Atif, "chat").unwrap();
        assert!(atif.dropped.is_empty(), "{:?}", atif.dropped);
        let a = read(atif.text.clone(), &ReadOptions::default()).unwrap();
        assert_eq!(a.format, Format::Atif);
        assert!(check(&a).is_empty(), "{:?}", check(&a));
        let value: Value = serde_json::from_str(&atif.text).unwrap();
        assert_eq!(
            value["steps"][2]["observation"]["results"][1]["content"],
            "eight"
        );
        assert_eq!(value["steps"][2]["tool_calls"][0]["arguments"]["id"], 7);
        let back = convert(&a, Target::OpenAi, "chat").unwrap();
        let back: Value = serde_json::from_str(&back.text).unwrap();
        let original: Value = serde_json::from_str(CHAT).unwrap();
        assert_eq!(back["messages"], original["messages"]);
        assert_eq!(back["tools"], original["tools"]);
    }

    /// The fixture at `path` (under `fixtures/`), read.
    fn fixture(path: &str) -> Transcript {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(path);
        read(
            std::fs::read_to_string(path).unwrap(),
            &ReadOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_gemini_session_converts_to_what_it_sends() {
        let t = fixture("gemini/resumed.jsonl");
        let openai = convert(&t, Target::OpenAi, "resumed").unwrap();
        let back = read(openai.text.clone(), &ReadOptions::default()).unwrap();
        assert_eq!(back.format, Format::OpenAi);
        assert!(check(&back).is_empty(), "{:?}", check(&back));
        let value: Value = serde_json::from_str(&openai.text).unwrap();
        let messages = value["messages"].as_array().unwrap();
        let calls = messages
            .iter()
            .filter(|m| m["tool_calls"].is_array())
            .count();
        let results = messages.iter().filter(|m| m["role"] == "tool").count();
        assert_eq!((calls, results), (4, 4));
        assert_eq!(
            messages[0]["content"],
            "Inspect this project and tell me what is in it. run: ls -la"
        );
        assert_eq!(openai.dropped.get("repeated tool responses"), Some(&4));
        let atif = convert(&t, Target::Atif, "resumed").unwrap();
        let back = read(atif.text, &ReadOptions::default()).unwrap();
        assert_eq!(back.format, Format::Atif);
        assert!(check(&back).is_empty(), "{:?}", check(&back));
    }

    #[test]
    fn a_qwen_session_converts_to_what_it_sends() {
        let t = fixture("qwen/compressed.jsonl");
        let openai = convert(&t, Target::OpenAi, "compressed").unwrap();
        let back = read(openai.text.clone(), &ReadOptions::default()).unwrap();
        assert_eq!(back.format, Format::OpenAi);
        assert!(check(&back).is_empty(), "{:?}", check(&back));
        let value: Value = serde_json::from_str(&openai.text).unwrap();
        let messages = value["messages"].as_array().unwrap();
        // The compression's summary, then the one prompt after it and its answer.
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0]["content"]
                .as_str()
                .unwrap()
                .starts_with("<state_snapshot>")
        );
        assert_eq!(
            messages[1]["content"],
            "Thanks. Summarize what you found in one line."
        );
        let long =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/qwen/long.jsonl");
        let t = read(
            std::fs::read_to_string(long).unwrap(),
            &ReadOptions::default(),
        )
        .unwrap();
        let atif = convert(&t, Target::Atif, "long").unwrap();
        let back = read(atif.text, &ReadOptions::default()).unwrap();
        assert_eq!(back.format, Format::Atif);
        assert!(check(&back).is_empty(), "{:?}", check(&back));
        let openai = convert(&t, Target::OpenAi, "long").unwrap();
        let value: Value = serde_json::from_str(&openai.text).unwrap();
        let messages = value["messages"].as_array().unwrap();
        let calls = messages
            .iter()
            .filter(|m| m["tool_calls"].is_array())
            .count();
        let results = messages.iter().filter(|m| m["role"] == "tool").count();
        assert_eq!((calls, results), (5, 5));
    }

    #[test]
    fn a_compacted_pi_session_converts_in_the_order_pi_sends_it() {
        let t = fixture("pi/compacted.jsonl");
        let openai = convert(&t, Target::OpenAi, "compacted").unwrap();
        let value: Value = serde_json::from_str(&openai.text).unwrap();
        let contents: Vec<&str> = value["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        // The summary first (the compaction entry comes after what it keeps in the file),
        // then the kept turn, then the rest; the first turn is history pi no longer sends.
        assert_eq!(
            contents[..3],
            [
                "The user asked for a --verbose flag; it was added in src/cli.rs.",
                "Document it in the README",
                "Documented under Usage.",
            ]
        );
        assert_eq!(
            *contents.last().unwrap(),
            "Try again, and keep the test short"
        );
        let atif = convert(&t, Target::Atif, "compacted").unwrap();
        let back = read(atif.text, &ReadOptions::default()).unwrap();
        assert_eq!(back.format, Format::Atif);
    }

    #[test]
    fn what_openai_has_no_field_for_is_named() {
        let src = std::fs::read_to_string(format!(
            "{}/fixtures/atif/rfc-example.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let t = read(src, &ReadOptions::default()).unwrap();
        let out = convert(&t, Target::OpenAi, "x").unwrap();
        let note = out.note().unwrap();
        for field in [
            "step metrics ×2",
            "step timestamp ×3",
            "trajectory session_id ×1",
        ] {
            assert!(note.contains(field), "{note}");
        }
        let value: Value = serde_json::from_str(&out.text).unwrap();
        let roles: Vec<&str> = value["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "tool", "assistant"]);
        assert!(convert(&t, Target::Atif, "x").is_err());
    }
}
