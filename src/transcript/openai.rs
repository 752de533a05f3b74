//! OpenAI Chat Completions messages, in every container people store them in.
//!
//! Containers: a JSON array of messages; an object holding the list under `messages`,
//! `history` (SWE-agent `.traj`) or a similar key; an array of run objects each holding a list
//! (tau-bench `traj`, dataset files); JSONL with one message per line; JSONL with one
//! conversation object per line; or any list named by `--messages-path`. The container finding
//! is shared with the Anthropic adapter, which stores messages the same way.

use super::{
    Adapter, Conversation, Doc, Item, Kind, ListLayout, OutItem, Part, PartKind, ReadError,
    ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript,
};
use crate::json::{
    ArrayLayout, array_elements, member, object_members, quote, replace_member, to_string_styled,
};
use serde_json::Value;
use serde_json::value::RawValue;

/// Keys under which containers keep their message list, most common first.
const LIST_KEYS: [&str; 8] = [
    "messages",
    "history",
    "traj",
    "conversation",
    "conversations",
    "chat",
    "dialog",
    "dialogue",
];

pub struct OpenAi;

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
        read_lists(doc, opts, parse_message, &mut |mut conv| {
            mark_text_observations(&mut conv);
            each(conv);
        })
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        match out {
            OutItem::Keep(i) | OutItem::DropThinking(i) => {
                t.source[conv.items[*i].span.clone()].to_string()
            }
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            OutItem::Summary { text, .. } => {
                let message = serde_json::json!({
                    "role": "user",
                    "content": content_value(t, conv, &format!("{SUMMARY_MARKER}\n{text}")),
                });
                to_string_styled(&message, element_indent(conv))
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
                replace_member(raw, "content", &content).unwrap_or_else(|| raw.to_string())
            }
        }
    }

    fn check(&self, _source: &str, conv: &Conversation) -> Vec<super::Finding> {
        check_tool_order(conv)
    }
}

/// The indentation of list elements, for writing new ones in the same style.
pub(super) fn element_indent(conv: &Conversation) -> Option<&str> {
    match &conv.layout {
        ListLayout::Array(a) => a.indent(),
        ListLayout::Lines { .. } | ListLayout::Single => None,
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

/// Where a message list lives.
pub(super) enum ListRef<'a> {
    /// A JSON array at `location`; `owner` is the object holding it (for `tools`, `system`).
    Array {
        location: String,
        list: &'a RawValue,
        owner: Option<&'a RawValue>,
    },
    /// Every line of a JSONL file is one message.
    AllLines,
}

/// Reads every list `find_lists` names, parsing each element with `parse`, and hands each
/// conversation to `each`; returns the container description.
pub(super) fn read_lists(
    doc: &Doc,
    opts: &ReadOptions,
    parse: fn(&mut Value, &mut Item),
    each: &mut dyn FnMut(Conversation),
) -> Result<String, ReadError> {
    let lists = find_lists(doc, opts.messages_path.as_deref())?;
    if lists.is_empty() {
        return Err(ReadError::whole(format!(
            "no message list found: {}",
            doc.describe()
        )));
    }
    let container = describe_container(doc, &lists);
    let mut fn_calls = 0;
    for list in lists {
        let mut conv = match list {
            ListRef::Array {
                location,
                list,
                owner,
            } => array_conversation(doc, location, list, owner, parse)?,
            ListRef::AllLines => lines_conversation(doc, parse)?,
        };
        pair_legacy_function_calls(&mut conv, &mut fn_calls);
        each(conv);
    }
    Ok(container)
}

fn describe_container(doc: &Doc, lists: &[ListRef]) -> String {
    let first = match &lists[0] {
        ListRef::AllLines => return "jsonl, one message per line".into(),
        ListRef::Array { location, .. } => location.clone(),
    };
    let kind = if doc.lines().is_some() {
        "jsonl, one conversation per line"
    } else if first.is_empty() {
        "json array of messages"
    } else {
        "json"
    };
    if first.is_empty() || doc.lines().is_some() {
        kind.to_string()
    } else {
        // `/3/traj` → `/*/traj` so the description is the same for every run.
        let pattern: Vec<&str> = first
            .split('/')
            .map(|t| if t.parse::<usize>().is_ok() { "*" } else { t })
            .collect();
        format!("{kind} {}", pattern.join("/"))
    }
}

/// The message lists of `doc`: those `path` names, or the ones detection finds.
pub(super) fn find_lists<'a>(
    doc: &Doc<'a>,
    path: Option<&str>,
) -> Result<Vec<ListRef<'a>>, ReadError> {
    if let Some(path) = path {
        return lists_at_path(doc, path);
    }
    match doc {
        Doc::Json { root, .. } => Ok(detect_lists(root, "")),
        Doc::Lines { lines, .. } => {
            if lines.iter().any(|l| is_message(l.raw)) {
                return Ok(vec![ListRef::AllLines]);
            }
            let mut lists = Vec::new();
            for line in lines {
                lists.extend(detect_object_list(
                    line.raw,
                    &format!("line {}", line.number),
                ));
            }
            Ok(lists)
        }
    }
}

fn detect_lists<'a>(root: &'a RawValue, location: &str) -> Vec<ListRef<'a>> {
    if let Some(elements) = array_elements(root) {
        if elements.first().is_some_and(|e| is_message(e)) {
            return vec![ListRef::Array {
                location: location.to_string(),
                list: root,
                owner: None,
            }];
        }
        return elements
            .iter()
            .enumerate()
            .flat_map(|(i, e)| detect_object_list(e, &format!("{location}/{i}")))
            .collect();
    }
    detect_object_list(root, location)
}

/// The list of an object holding one under a known key.
fn detect_object_list<'a>(obj: &'a RawValue, location: &str) -> Vec<ListRef<'a>> {
    let Some(members) = object_members(obj) else {
        return Vec::new();
    };
    let found = LIST_KEYS.iter().find_map(|key| {
        let (_, list) = members.iter().find(|(k, _)| k == key)?;
        let elements = array_elements(list)?;
        elements
            .first()
            .is_some_and(|e| is_message(e))
            .then_some((key, *list))
    });
    match found {
        Some((key, list)) => vec![ListRef::Array {
            location: format!("{location}/{key}"),
            list,
            owner: Some(obj),
        }],
        None => Vec::new(),
    }
}

/// An object with a string `role`.
pub(super) fn is_message(raw: &RawValue) -> bool {
    member(raw, "role").is_some_and(|r| r.get().starts_with('"'))
}

/// Resolves a JSON pointer with `*` ("each element") against the document (each line of JSONL).
fn lists_at_path<'a>(doc: &Doc<'a>, path: &str) -> Result<Vec<ListRef<'a>>, ReadError> {
    let roots: Vec<(String, &'a RawValue)> = match doc {
        Doc::Json { root, .. } => vec![(String::new(), *root)],
        Doc::Lines { lines, .. } => lines
            .iter()
            .map(|l| (format!("line {}", l.number), l.raw))
            .collect(),
    };
    let tokens: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut found = Vec::new();
    for (location, root) in roots {
        resolve(root, &tokens, location, &mut found);
    }
    if found.is_empty() {
        return Err(ReadError::whole(format!(
            "--messages-path {path} matches no array"
        )));
    }
    // A path that finds arrays but no message in them names the wrong place: reading it as
    // an empty conversation would "succeed" on nothing.
    let messages = found.iter().any(|l| match l {
        ListRef::Array { list, .. } => serde_json::from_str::<Vec<&RawValue>>(list.get())
            .is_ok_and(|items| items.iter().any(|m| is_message(m))),
        ListRef::AllLines => true,
    });
    if !messages {
        return Err(ReadError::whole(format!(
            "--messages-path {path} matches {} but no message in it (an object with a string \"role\")",
            crate::human::plural(found.len(), "array")
        )));
    }
    Ok(found)
}

fn resolve<'a>(
    value: &'a RawValue,
    tokens: &[String],
    location: String,
    found: &mut Vec<ListRef<'a>>,
) {
    let Some((token, rest)) = tokens.split_first() else {
        if value.get().starts_with('[') {
            found.push(ListRef::Array {
                location,
                list: value,
                owner: None,
            });
        }
        return;
    };
    let children: Vec<(String, &RawValue)> = if let Some(elements) = array_elements(value) {
        elements
            .into_iter()
            .enumerate()
            .filter(|(i, _)| token == "*" || token.parse() == Ok(*i))
            .map(|(i, e)| (i.to_string(), e))
            .collect()
    } else if let Some(members) = object_members(value) {
        members
            .into_iter()
            .filter(|(k, _)| token == "*" || k == token)
            .collect()
    } else {
        Vec::new()
    };
    for (name, child) in children {
        resolve(child, rest, format!("{location}/{name}"), found);
    }
}

fn array_conversation(
    doc: &Doc,
    location: String,
    list: &RawValue,
    owner: Option<&RawValue>,
    parse: fn(&mut Value, &mut Item),
) -> Result<Conversation, ReadError> {
    let elements = array_elements(list).unwrap_or_default();
    let base = doc.span(list).start;
    let mut items = Vec::with_capacity(elements.len());
    let mut relative = Vec::with_capacity(elements.len());
    for element in &elements {
        let span = doc.span(element);
        relative.push(span.start - base..span.end - base);
        items.push(parse_item(doc, element, span, parse)?);
    }
    Ok(Conversation {
        span: doc.span(list),
        location,
        items,
        preamble: owner.map(preamble_of).unwrap_or_default(),
        layout: ListLayout::Array(ArrayLayout::of(list.get(), &relative)),
        model: None,
        context_window: None,
    })
}

fn lines_conversation(
    doc: &Doc,
    parse: fn(&mut Value, &mut Item),
) -> Result<Conversation, ReadError> {
    let Doc::Lines {
        lines,
        newline,
        trailing_newline,
        ..
    } = doc
    else {
        unreachable!("AllLines comes only from JSONL")
    };
    let mut items = Vec::with_capacity(lines.len());
    for line in lines {
        items.push(parse_item(doc, line.raw, line.range(), parse)?);
    }
    Ok(Conversation {
        span: lines_span(doc),
        location: String::new(),
        items,
        preamble: Vec::new(),
        layout: ListLayout::Lines {
            newline,
            trailing_newline: *trailing_newline,
        },
        model: None,
        context_window: None,
    })
}

/// The span of a JSONL file's records: from the first line to the end of the file.
pub(super) fn lines_span(doc: &Doc) -> crate::json::Span {
    let src = doc.src();
    let start = doc.lines().and_then(|l| l.first()).map_or(0, |l| l.span.0);
    start..src.len()
}

fn parse_item(
    doc: &Doc,
    raw: &RawValue,
    span: crate::json::Span,
    parse: fn(&mut Value, &mut Item),
) -> Result<Item, ReadError> {
    let line = doc.line_of(span.start);
    let mut value: Value =
        crate::json::lenient::value(raw.get()).map_err(|e| value_error(line, span.start, &e))?;
    let mut item = Item::new(span, line, Role::None, Kind::NonContext);
    // `parse` may move the message's texts out of the value rather than copy them.
    parse(&mut value, &mut item);
    Ok(item)
}

/// A value that is valid JSON text but not a valid JSON value for serde (too deep, a lone
/// surrogate escape), reported at its line and byte.
pub(super) fn value_error(line: usize, start: usize, e: &serde_json::Error) -> ReadError {
    ReadError {
        findings: vec![super::Finding::new(
            line,
            format!(
                "invalid JSON value: {} (byte {})",
                super::doc::strip_position(e),
                start + e.column().saturating_sub(1)
            ),
        )],
    }
}

/// Tool definitions and a top-level system prompt kept beside the list.
fn preamble_of(owner: &RawValue) -> Vec<Part> {
    let mut parts = Vec::new();
    for (key, kind) in [
        ("tools", PartKind::ToolDefinitions),
        ("functions", PartKind::ToolDefinitions),
        ("system", PartKind::Text),
    ] {
        if let Some(raw) = member(owner, key) {
            let Ok(value) = serde_json::from_str::<Value>(raw.get()) else {
                continue;
            };
            let text = match &value {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                Value::Array(blocks) if kind == PartKind::Text => blocks_text(blocks),
                other => other.to_string(),
            };
            parts.push(Part::new(kind, text));
        }
    }
    parts
}

fn blocks_text(blocks: &[Value]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

/// Fills `item` from one Chat Completions message, moving its content text out of `value`
/// (a large tool output is held once, not twice, while it is read).
pub(super) fn parse_message(value: &mut Value, item: &mut Item) {
    let Some(role) = value.get("role").and_then(Value::as_str) else {
        return;
    };
    item.role = match role {
        "system" => Role::System,
        "developer" => Role::Developer,
        "user" | "human" => Role::User,
        "assistant" | "model" => Role::Assistant,
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
        push_content(value.get_mut("content"), PartKind::Text, item);
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

/// The calls a `{"name", "arguments"}` JSON text (or a list of them) makes, without ids.
/// Text that does not parse still makes one (nameless) call, so its result pairs.
fn push_value_calls(text: &str, item: &mut Item) {
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
    let Ok(raw) = crate::json::parse_raw(raw) else {
        return false;
    };
    member(raw, "content")
        .and_then(array_elements)
        .and_then(|parts| parts.first().copied())
        .is_some_and(|p| member(p, "value").is_some() && member(p, "type").is_some())
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

/// Text-based agents (SWE-agent without function calling) end each assistant message with a
/// fenced command block and get its output back as a user message. In a conversation without
/// tool calls, such a user message is a tool result: the harness wrote it, not the user. The
/// pair gets a call id (`action-LINE`, named after the command's first word) so it pairs and
/// groups like a real tool call and no step separates the output from its action.
fn mark_text_observations(conv: &mut Conversation) {
    if conv.items.iter().any(|i| !i.calls.is_empty()) {
        return;
    }
    for at in 1..conv.items.len() {
        let (before, rest) = conv.items.split_at_mut(at);
        let (prev, item) = (&before[at - 1], &mut rest[0]);
        let action = (prev.role == Role::Assistant)
            .then(|| prev.parts.iter().rev().find(|p| p.kind == PartKind::Text))
            .flatten()
            .and_then(|p| crate::facts::trailing_action(&p.text));
        let Some(action) = action.filter(|_| item.kind == Kind::User) else {
            continue;
        };
        let id = format!("action-{}", prev.line);
        let name = action.split_whitespace().next().unwrap_or("action");
        before[at - 1].calls.push(ToolCall {
            id: id.clone(),
            name: name.to_string(),
        });
        item.results.push(id);
        item.kind = Kind::ToolResult;
        for part in item.parts.iter_mut().filter(|p| p.kind == PartKind::Text) {
            part.kind = PartKind::ToolResult;
        }
    }
}

/// Gives calls made without ids (legacy `function_call`s, LLaMA-Factory `tool_call` parts and
/// `function_call` messages) ids, and pairs the `tool` / `function` messages that follow them
/// without a `tool_call_id`: each answers the oldest open call, and the last of a run of them
/// answers every call still open (LLaMA-Factory answers parallel calls in one message). Calls
/// with real ids are left alone.
fn pair_legacy_function_calls(conv: &mut Conversation, counter: &mut usize) {
    let mut open: Vec<String> = Vec::new();
    for at in 0..conv.items.len() {
        let next_is_result = conv
            .items
            .get(at + 1)
            .is_some_and(|n| n.role == Role::Tool && n.results.is_empty());
        let item = &mut conv.items[at];
        if item.calls.iter().any(|c| c.id.is_empty()) {
            open.clear();
        }
        for call in item.calls.iter_mut().filter(|c| c.id.is_empty()) {
            *counter += 1;
            call.id = format!("function-call-{counter}");
            open.push(call.id.clone());
        }
        if item.role == Role::Tool && item.results.is_empty() && !open.is_empty() {
            if next_is_result {
                item.results.push(open.remove(0));
            } else {
                item.results.append(&mut open);
            }
        }
    }
}
