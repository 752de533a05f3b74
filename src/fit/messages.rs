//! A conversation of any format ctxc reads, as OpenAI chat messages in the units `fit` may
//! not split: the system prompt and tools, the task (the first user message), then turns —
//! [`Conversation::groups`], so that a tool call stays with every result that answers it and
//! the records of one logical message (Claude Code splits a reply over several) stay one
//! assistant message.

use crate::transcript::{Conversation, Item, Kind, PartKind, Role, SUMMARY_MARKER};
use serde_json::{Map, Value, json};
use std::ops::Range;

/// A trajectory ready to be cut into samples.
pub struct Trajectory {
    /// System and developer messages before the first turn.
    pub system: Vec<Value>,
    /// The tool definitions, as chat templates take them (`{"type": "function", ...}`).
    pub tools: Option<Value>,
    /// The first user message, repeated at the head of every sample.
    pub task: Option<Value>,
    /// The turns after it, in order.
    pub units: Vec<Unit>,
}

/// Messages no sample may split.
#[derive(Clone)]
pub struct Unit {
    /// The messages, without a train flag.
    pub messages: Vec<Value>,
    /// The conversation's items they were read from (what a summary of this unit reads).
    pub items: Range<usize>,
}

impl Unit {
    /// How many assistant messages it holds: the turns it trains.
    pub fn assistant_turns(&self) -> usize {
        self.messages.iter().filter(|m| is_assistant(m)).count()
    }
}

/// Whether `message` is the model's.
pub fn is_assistant(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("assistant")
}

/// Reads `conv` (with its format's `preamble`) as a trajectory.
pub fn trajectory(conv: &Conversation) -> Trajectory {
    let (system_prompt, tools) = preamble(conv);
    let mut system: Vec<Value> = system_prompt.into_iter().collect();
    let mut task = None;
    let mut units = Vec::new();
    for group in conv.groups() {
        let messages = group_messages(&conv.items[group.clone()]);
        if messages.is_empty() {
            continue;
        }
        let leading = units.is_empty() && task.is_none();
        if leading && messages.iter().all(|m| role_of(m) == "system") {
            system.extend(messages);
        } else if leading && messages.len() == 1 && role_of(&messages[0]) == "user" {
            task = messages.into_iter().next();
        } else {
            units.push(Unit {
                messages,
                items: group,
            });
        }
    }
    Trajectory {
        system,
        tools,
        task,
        units,
    }
}

fn role_of(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// The top-level system prompt and the tool definitions kept beside the list.
fn preamble(conv: &Conversation) -> (Option<Value>, Option<Value>) {
    let mut system = Vec::new();
    let mut tools = Vec::new();
    for part in &conv.preamble {
        match part.kind {
            PartKind::ToolDefinitions => match serde_json::from_str::<Value>(&part.text) {
                Ok(Value::Array(defs)) => tools.extend(defs.into_iter().map(function_tool)),
                Ok(Value::Object(def)) => tools.push(function_tool(Value::Object(def))),
                // Definitions that are not JSON reach the model as text.
                _ => system.push(part.text.clone()),
            },
            PartKind::Text if !part.text.is_empty() => system.push(part.text.clone()),
            _ => {}
        }
    }
    let system =
        (!system.is_empty()).then(|| json!({"role": "system", "content": system.join("\n\n")}));
    let tools = (!tools.is_empty()).then_some(Value::Array(tools));
    (system, tools)
}

/// A tool definition in the OpenAI shape chat templates expect: Anthropic's
/// `{name, description, input_schema}` becomes `{"type": "function", "function": {name,
/// description, parameters}}`.
fn function_tool(def: Value) -> Value {
    if def.get("function").is_some() || def.get("type").and_then(Value::as_str) == Some("function")
    {
        return def;
    }
    let mut function = Map::new();
    for (from, to) in [
        ("name", "name"),
        ("description", "description"),
        ("input_schema", "parameters"),
        ("parameters", "parameters"),
    ] {
        if let Some(v) = def.get(from) {
            function.insert(to.to_string(), v.clone());
        }
    }
    json!({"type": "function", "function": function})
}

/// The messages of one group's items: consecutive assistant records of one reply merged.
fn group_messages(items: &[Item]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut last_reply: Option<&str> = None;
    for item in items
        .iter()
        .filter(|i| i.in_context && i.kind != Kind::NonContext)
    {
        let reply = item.message_id.as_deref();
        let merge = item.role == Role::Assistant
            && reply.is_some()
            && reply == last_reply
            && out.last().is_some_and(is_assistant);
        last_reply = if item.role == Role::Assistant {
            reply
        } else {
            None
        };
        if merge {
            if let Some(last) = out.last_mut() {
                merge_assistant(last, assistant_message(item));
            }
            continue;
        }
        out.extend(item_messages(item));
    }
    observations_without_calls(&mut out);
    out
}

/// Results whose call is not a `tool_calls` entry of the group (SWE-agent's classic
/// trajectories keep the action in the reply's text) reach the model as user messages, as
/// the agent was shown them.
fn observations_without_calls(messages: &mut [Value]) {
    let ids: std::collections::HashSet<String> = messages
        .iter()
        .filter_map(|m| m.get("tool_calls").and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c.get("id").and_then(Value::as_str).map(str::to_string))
        .collect();
    for m in messages.iter_mut().filter(|m| role_of(m) == "tool") {
        let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
        if !ids.contains(id) {
            let content = m.get("content").cloned().unwrap_or(Value::Null);
            *m = json!({"role": "user", "content": content});
        }
    }
}

/// The OpenAI messages one item stands for (several for a record answering several calls).
fn item_messages(item: &Item) -> Vec<Value> {
    match (item.role, item.kind) {
        (_, Kind::Summary) => vec![json!({"role": "user", "content": summary_text(item)})],
        (_, Kind::ToolResult) | (Role::Tool, _) => tool_messages(item),
        (Role::Assistant, _) => vec![assistant_message(item)],
        (Role::System | Role::Developer, _) | (_, Kind::System) => {
            vec![json!({"role": "system", "content": item.prose()})]
        }
        (Role::User, _) => vec![json!({"role": "user", "content": item.prose()})],
        (Role::None, _) => Vec::new(),
    }
}

fn summary_text(item: &Item) -> String {
    let text = item.prose();
    if text.starts_with(SUMMARY_MARKER) {
        text
    } else {
        format!("{SUMMARY_MARKER}\n{text}")
    }
}

/// An assistant message: prose as `content`, reasoning as `reasoning_content`, calls as
/// `tool_calls` with their arguments as the JSON text OpenAI stores.
fn assistant_message(item: &Item) -> Value {
    let mut content = Vec::new();
    let mut reasoning = Vec::new();
    let mut calls: Vec<Value> = Vec::new();
    for part in &item.parts {
        match part.kind {
            PartKind::Text => content.push(part.text.as_str()),
            PartKind::Thinking => reasoning.push(part.text.as_str()),
            PartKind::ToolName => {
                let i = calls.len();
                let id = item
                    .calls
                    .get(i)
                    .map(|c| c.id.clone())
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(|| format!("call_{}_{i}", item.line));
                calls.push(json!({"id": id, "type": "function",
                    "function": {"name": part.text, "arguments": ""}}));
            }
            PartKind::ToolArguments => {
                if let Some(call) = calls.last_mut() {
                    call["function"]["arguments"] = Value::String(part.text.clone());
                }
            }
            _ => {}
        }
    }
    let mut message = json!({"role": "assistant", "content": content.join("\n")});
    if !reasoning.is_empty() {
        message["reasoning_content"] = Value::String(reasoning.join("\n"));
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    message
}

/// `extra`'s prose, reasoning and calls added to `into` (one reply over several records).
fn merge_assistant(into: &mut Value, extra: Value) {
    for key in ["content", "reasoning_content"] {
        let Some(more) = extra
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            continue;
        };
        let joined = match into
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            Some(have) => format!("{have}\n{more}"),
            None => more.to_string(),
        };
        into[key] = Value::String(joined);
    }
    if let Some(Value::Array(more)) = extra.get("tool_calls") {
        match into.get_mut("tool_calls") {
            Some(Value::Array(calls)) => calls.extend(more.iter().cloned()),
            _ => into["tool_calls"] = Value::Array(more.clone()),
        }
    }
}

/// One `tool` message per call the item answers (the item's result parts in order); an
/// output that answers no call reaches the model as a user message.
fn tool_messages(item: &Item) -> Vec<Value> {
    let outputs: Vec<&str> = item
        .parts
        .iter()
        .filter(|p| p.kind != PartKind::Media)
        .map(|p| p.text.as_str())
        .collect();
    match item.results.len() {
        0 => vec![json!({"role": "user", "content": outputs.join("\n")})],
        n if n == outputs.len() => item
            .results
            .iter()
            .zip(outputs)
            .map(|(id, text)| json!({"role": "tool", "tool_call_id": id, "content": text}))
            .collect(),
        _ => {
            let mut messages: Vec<Value> = item
                .results
                .iter()
                .map(|id| json!({"role": "tool", "tool_call_id": id, "content": ""}))
                .collect();
            messages[0]["content"] = Value::String(outputs.join("\n"));
            messages
        }
    }
}
