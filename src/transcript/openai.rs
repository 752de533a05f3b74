//! OpenAI Chat Completions messages, in every container people store them in.
//!
//! The containers (a JSON array, an object's `messages`/`history`, runs of a dataset, JSONL,
//! `--messages-path`) are found by [`super::containers`], shared with the Anthropic adapter;
//! this module parses, checks and writes one Chat Completions message.

use super::common::element_indent;
use super::containers::{MessageReader, Members, find_lists, read_lists};
use super::{
    Adapter, Conversation, CopiedRecords, Doc, Item, Kind, OutItem, Part, PartKind, ReadError, ReadOptions, Role,
    SUMMARY_MARKER, ToolCall, Transcript,
};
use crate::json::{array_elements, member, quote, replace_member, to_string_styled};
use memchr::memmem::Finder;
use serde_json::Value;
use std::sync::LazyLock;

pub struct OpenAi;

/// The chat lists of `doc` (records `copied` names taken from the input when reading back),
/// each conversation's text observations marked before it goes to `each`.
fn read_marked(
    doc: &Doc,
    opts: &ReadOptions,
    copied: Option<&CopiedRecords>,
    each: &mut dyn FnMut(Conversation),
) -> Result<String, ReadError> {
    read_lists(doc, opts, &MESSAGE, copied, &mut |mut conv| {
        super::text_actions::mark_text_observations(&mut conv);
        each(conv);
    })
}

impl Adapter for OpenAi {
    fn detect(&self, doc: &Doc) -> bool {
        find_lists(doc, None).is_ok_and(|lists| !lists.is_empty())
    }

    fn read(
        &self,
        doc: &Doc,
        opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        read_marked(doc, opts, None, each)
    }

    fn read_back(
        &self,
        doc: &Doc,
        opts: &ReadOptions,
        copied: &CopiedRecords,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        read_marked(doc, opts, Some(copied), each)
    }

    fn reads_back_copies(&self, source_len: usize) -> bool {
        source_len <= super::COPIES_HELD_MAX_BYTES
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        match out {
            OutItem::Keep(i) | OutItem::DropThinking(i) => {
                t.source[conv.items[*i].span.clone()].to_string()
            }
            OutItem::ReplaceArguments(i, edits) => {
                let raw = &t.source[conv.items[*i].span.clone()];
                call_arguments(raw)
                    .and_then(|found| super::common::replace_arguments(raw, &found, edits))
                    .unwrap_or_else(|| raw.to_string())
            }
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            OutItem::Summary { text, .. } => {
                // In the list's own shape: its messages' text member, `content` or `text`.
                let key = conv
                    .items
                    .iter()
                    .take(16)
                    .map(|item| text_key_of(&t.source[item.span.clone()]))
                    .find(|key| *key == "text")
                    .unwrap_or("content");
                let mut message = serde_json::Map::new();
                message.insert("role".into(), "user".into());
                let content = content_value(t, conv, &format!("{SUMMARY_MARKER}\n{text}"));
                message.insert(key.into(), content);
                to_string_styled(&Value::Object(message), element_indent(conv))
            }
            OutItem::ReplaceResult(i, text) | OutItem::ReplaceText(i, text) => {
                let raw = &t.source[conv.items[*i].span.clone()];
                let content = if has_typed_parts(raw) {
                    // A result is replaced whole; a message's text parts only (its reasoning,
                    // calls and media stay as they were).
                    let text_only = matches!(out, OutItem::ReplaceText(..));
                    typed_content(raw, text, text_only)
                } else {
                    quote(text)
                };
                replace_member(raw, text_key_of(raw), &content)
                    .unwrap_or_else(|| raw.to_string())
            }
        }
    }

    fn rewrites_arguments(&self) -> bool {
        true
    }

    fn check(&self, _source: &str, conv: &Conversation) -> Vec<super::Finding> {
        check_tool_order(conv)
    }
}

/// A `tool` message must follow an assistant message with `tool_calls` (possibly after other
/// tool messages): the API rejects anything else.
fn check_tool_order(conv: &Conversation) -> Vec<super::Finding> {
    let mut findings = Vec::new();
    let mut after_calls = false;
    for item in conv.items.iter().filter(|i| i.in_context) {
        match item.role {
            Role::Tool if !after_calls => findings.push(super::Finding::new(
                item.line,
                "a tool message must follow an assistant message with tool_calls",
            )),
            Role::Tool => {}
            _ => after_calls = !item.calls.is_empty(),
        }
    }
    findings
}

/// Reads a message from the members [`parse_message`] looks at (and only those).
pub(super) const MESSAGE: MessageReader = MessageReader {
    keys: &["role", "content", "text", "system_prompt", "reasoning_content", "reasoning", "tool_calls", "function_call", "tool_call_id", "tool_call_ids", "usage"],
    content_keys: &["content", "text", "system_prompt", "tool_calls", "function_call", "reasoning_content", "reasoning"],
    parse: parse_message,
};

/// Fills `item` from one Chat Completions message, moving its content text out of `value`
/// (a large tool output is held once, not twice, while it is read).
pub(super) fn parse_message(value: &mut Members, item: &mut Item) {
    let Some(role) = value.get("role").and_then(Value::as_str) else {
        return;
    };
    item.role = match role {
        "system" => Role::System,
        "developer" => Role::Developer,
        "user" | "human" => Role::User,
        // `ai`: nebius SWE-agent-trajectories.
        "assistant" | "model" | "ai" => Role::Assistant,
        // LLaMA-Factory's sharegpt formatting with `role`/`content` tags keeps its default
        // `function_call` and `observation` tags.
        "tool" | "function" | "observation" => Role::Tool,
        "function_call" => Role::Assistant,
        _ => Role::None,
    };
    if role == "function_call" {
        let content = value.get("content").and_then(Value::as_str).unwrap_or("");
        push_value_calls(content, item);
    } else {
        let key = text_member(value, item.role);
        push_content(value.get_mut(key), PartKind::Text, item);
    }
    let value = &*value;
    for key in ["reasoning_content", "reasoning"] {
        if let Some(text) = value.get(key).and_then(Value::as_str) {
            item.parts.push(Part::new(PartKind::Thinking, text));
        }
    }
    let calls = value.get("tool_calls").and_then(Value::as_array);
    // At its size: the calls outlive the decoded text, as long as the file is compacted.
    item.calls.reserve_exact(calls.map_or(0, Vec::len));
    for call in calls.into_iter().flatten() {
        push_call(call.get("id"), call.get("function").unwrap_or(call), item);
    }
    if let Some(call) = value.get("function_call").filter(|c| c.is_object()) {
        // Legacy function calling has no ids; `pair_legacy_function_calls` assigns them.
        push_call(None, call, item);
    }
    if let Some(id) = value.get("tool_call_id").and_then(Value::as_str) {
        item.results.push(id.to_string());
    }
    // SWE-agent writes the answered ids as a list.
    let listed = value.get("tool_call_ids").and_then(Value::as_array);
    for id in listed.into_iter().flatten().filter_map(Value::as_str) {
        if !item.results.iter().any(|r| r == id) {
            item.results.push(id.to_string());
        }
    }
    if item.role == Role::Tool {
        for part in &mut item.parts {
            part.kind = PartKind::ToolResult;
        }
    }
    item.kind = kind_of(item);
    item.ctxc_summary = item.kind == Kind::Summary;
    item.in_context = item.role != Role::None;
    if item.role == Role::Assistant {
        item.usage = value.get("usage").and_then(usage_of).map(Box::new);
    }
}

/// The raw `arguments` of each call of a message, in the order the reader takes them
/// (`tool_calls`, then a legacy `function_call`); `None` for calls written as message text.
fn call_arguments(message: &str) -> Option<Vec<&str>> {
    let raw = crate::json::parse_raw(message).ok()?;
    let role: Option<String> = crate::json::member(raw, "role")
        .and_then(|r| serde_json::from_str(r.get()).ok());
    if role.as_deref() == Some("function_call") {
        return None;
    }
    let mut found = Vec::new();
    let listed = crate::json::member(raw, "tool_calls").and_then(crate::json::array_elements);
    for call in listed.into_iter().flatten() {
        let function = crate::json::member(call, "function").unwrap_or(call);
        found.push(crate::json::member(function, "arguments")?.get());
    }
    let legacy = crate::json::member(raw, "function_call").filter(|c| c.get().starts_with('{'));
    if let Some(call) = legacy {
        found.push(crate::json::member(call, "arguments")?.get());
    }
    Some(found)
}

/// Where a message keeps its text: Chat Completions' `content`, else `text` (nebius
/// SWE-agent-trajectories: `{role, text, …}` messages), else, on a system message of that
/// shape whose `text` is null, `system_prompt`.
fn text_member(value: &Members, role: Role) -> &'static str {
    if value.get("content").is_some() {
        "content"
    } else if value.get("text").is_some() {
        "text"
    } else if role == Role::System && value.get("system_prompt").is_some() {
        "system_prompt"
    } else {
        "content"
    }
}

/// The member a stored message keeps its text in ([`text_member`]): `text` for a message
/// that has no `content` but a `text`.
fn text_key_of(raw: &str) -> &'static str {
    let has = |key: &str| {
        crate::json::parse_raw(raw)
            .ok()
            .is_some_and(|raw| member(raw, key).is_some())
    };
    if !has("content") && has("text") {
        "text"
    } else {
        "content"
    }
}

/// Provider usage stored on an assistant message (the call that wrote it): Chat Completions
/// `prompt_tokens` or Responses `input_tokens`, cached tokens counted inside either.
fn usage_of(usage: &Value) -> Option<super::Usage> {
    let n = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| usage.get(*k).and_then(Value::as_u64))
    };
    let prompt = n(&["prompt_tokens", "input_tokens"])?;
    let details = ["prompt_tokens_details", "input_tokens_details"]
        .iter()
        .find_map(|k| usage.get(*k));
    let cached = details
        .and_then(|d| d.get("cached_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(prompt);
    Some(super::Usage {
        input_tokens: prompt - cached,
        output_tokens: n(&["completion_tokens", "output_tokens"]).unwrap_or(0),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    })
}

fn push_call(id: Option<&Value>, function: &Value, item: &mut Item) {
    let name = function.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = match function.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    item.calls.push(ToolCall {
        id: id.and_then(Value::as_str).unwrap_or("").to_string(),
        name: name.to_string(),
    });
    item.parts.push(Part::new(PartKind::ToolName, name));
    item.parts
        .push(Part::new(PartKind::ToolArguments, arguments));
}

/// Adds the text of a `content` value (a string, or a list of typed parts), moved out of it.
fn push_content(content: Option<&mut Value>, kind: PartKind, item: &mut Item) {
    match content {
        Some(Value::String(s)) => item.parts.push(Part::new(kind, std::mem::take(s))),
        Some(Value::Array(parts)) => {
            for part in parts {
                match part {
                    Value::String(s) => item.parts.push(Part::new(kind, std::mem::take(s))),
                    Value::Object(_) if is_typed_value(part) => {
                        push_typed_value(part, kind, item);
                    }
                    Value::Object(_) => match part.get_mut("text") {
                        Some(Value::String(text)) => {
                            item.parts.push(Part::new(kind, std::mem::take(text)));
                        }
                        _ => item.parts.push(media_part(part)),
                    },
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// A LLaMA-Factory typed part, `{"type": "text" | "reasoning" | "tool_call", "value": ...}`
/// (its `messages` format, src/llamafactory/v1/utils/types.py `Content`).
fn is_typed_value(part: &Value) -> bool {
    part.get("value").is_some()
        && part.get("text").is_none()
        && matches!(
            part.get("type").and_then(Value::as_str),
            Some("text" | "reasoning" | "tool_call")
        )
}

/// Adds a typed part: text, reasoning (thinking), or a tool call whose value is
/// `{"name", "arguments"}` JSON (calls get their ids in `pair_legacy_function_calls`).
fn push_typed_value(part: &mut Value, kind: PartKind, item: &mut Item) {
    let typ = part
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let value = match part.get_mut("value") {
        Some(Value::String(s)) => std::mem::take(s),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    match typ.as_str() {
        "reasoning" => item.parts.push(Part::new(PartKind::Thinking, value)),
        "tool_call" => push_value_calls(&value, item),
        _ => item.parts.push(Part::new(kind, value)),
    }
}

/// The calls a `{"name", "arguments"}` JSON text (or a list of them) makes, without ids:
/// LLaMA-Factory's `tool_call` parts here, ShareGPT's `function_call` turns too. Text that
/// does not parse still makes one (nameless) call, so its result pairs; `check` reports it.
pub(super) fn push_value_calls(text: &str, item: &mut Item) {
    let calls = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(calls)) => calls,
        Ok(call @ Value::Object(_)) => vec![call],
        _ => Vec::new(),
    };
    let named: Vec<&Value> = calls.iter().filter(|c| c.get("name").is_some()).collect();
    if named.is_empty() {
        item.calls.push(ToolCall {
            id: String::new(),
            name: String::new(),
        });
        item.parts.push(Part::new(PartKind::ToolArguments, text));
        return;
    }
    for call in named {
        push_call(None, call, item);
    }
}

/// Whether a stored message's `content` is a list of LLaMA-Factory typed parts.
fn has_typed_parts(raw: &str) -> bool {
    if !may_name_value(raw) {
        return false;
    }
    let Ok(raw) = crate::json::parse_raw(raw) else {
        return false;
    };
    member(raw, "content")
        .and_then(array_elements)
        .and_then(|parts| parts.first().copied())
        .is_some_and(|p| member(p, "value").is_some() && member(p, "type").is_some())
}

/// Whether message `raw` may have a member named `value`, as a typed part does: its text
/// holds `"value"`, or a `\u` escape that could spell a key that reads as it. Found with
/// SIMD search, where parsing each message twice to look took 6% of compacting the tau-bench
/// runs in-process: every summary is written in its list's style, which the first 16
/// messages tell.
fn may_name_value(raw: &str) -> bool {
    // Built once: building a searcher cost more than searching a short message.
    static VALUE: LazyLock<Finder> = LazyLock::new(|| Finder::new(b"\"value\""));
    static ESCAPE: LazyLock<Finder> = LazyLock::new(|| Finder::new(b"\\u"));
    let raw = raw.as_bytes();
    VALUE.find(raw).is_some() || ESCAPE.find(raw).is_some()
}

/// The typed-parts `content` of message `raw` with its text replaced by `text`: one text part
/// where the first was, the other parts kept byte-for-byte when `text_only`, else only it.
fn typed_content(raw: &str, text: &str, text_only: bool) -> String {
    let part = format!(r#"{{"type": "text", "value": {}}}"#, quote(text));
    let elements = crate::json::parse_raw(raw)
        .ok()
        .and_then(|raw| member(raw, "content"))
        .and_then(array_elements)
        .unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    let mut placed = false;
    for element in elements {
        let is_text = member(element, "type").is_some_and(|t| t.get() == r#""text""#);
        if is_text && !placed {
            parts.push(part.clone());
            placed = true;
        } else if !is_text && text_only {
            parts.push(element.get().to_string());
        }
    }
    if !placed {
        parts.push(part);
    }
    format!("[{}]", parts.join(", "))
}

/// A message content holding `text`, in the conversation's style: a string, or (LLaMA-Factory
/// typed parts) one text part.
fn content_value(t: &Transcript, conv: &Conversation, text: &str) -> Value {
    let typed = conv
        .items
        .iter()
        .take(16)
        .any(|item| has_typed_parts(&t.source[item.span.clone()]));
    if typed {
        serde_json::json!([{"type": "text", "value": text}])
    } else {
        Value::String(text.to_string())
    }
}

/// An image or file part: the model is charged for the media, not for the base64 text, so
/// only its type is counted.
fn media_part(part: &Value) -> Part {
    let kind = part.get("type").and_then(Value::as_str).unwrap_or("media");
    Part::new(PartKind::Media, format!("[{kind}]"))
}

fn kind_of(item: &Item) -> Kind {
    if item
        .parts
        .first()
        .is_some_and(|p| p.text.starts_with(SUMMARY_MARKER))
    {
        return Kind::Summary;
    }
    match item.role {
        Role::System | Role::Developer => Kind::System,
        Role::User => Kind::User,
        Role::Assistant if !item.calls.is_empty() => Kind::ToolCall,
        Role::Assistant => Kind::AssistantText,
        Role::Tool => Kind::ToolResult,
        Role::None => Kind::NonContext,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_parts_are_told_with_or_without_a_parse() {
        for (raw, typed) in [
            (r#"{"role": "user", "content": [{"type": "text", "value": "hi"}]}"#, true),
            // The key spelled with an escape reads as `value` too.
            (r#"{"role": "user", "content": [{"type": "text", "v\u0061lue": "hi"}]}"#, true),
            (r#"{"role": "user", "content": [{"type": "text", "text": "hi"}]}"#, false),
            (r#"{"role": "user", "content": "a \"value\" and \u00e9"}"#, false),
            (r#"{"role": "user", "content": "plain"}"#, false),
        ] {
            assert_eq!(has_typed_parts(raw), typed, "{raw}");
        }
        assert!(!may_name_value(r#"{"role": "user", "content": "plain"}"#));
    }
}
