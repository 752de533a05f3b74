//! Codex CLI rollout files: the session log Codex writes under `~/.codex/sessions`.
//!
//! A rollout is a list of `{timestamp, type, payload}` records: JSON Lines as Codex writes it,
//! or, in hand-made samples, a pretty-printed JSON array of records or one record object. The
//! file is one conversation and every record one item, so a record ctxc leaves alone is written
//! back byte-for-byte and records of unknown types simply pass through.
//!
//! What reaches the model: `response_item` records are the model's history (messages, tool
//! calls and their outputs paired by `call_id`, reasoning). `session_meta`, `turn_context` and
//! `event_msg` are bookkeeping (the `event_msg` copies of messages are UI events), except that
//! the instructions in `session_meta` are sent with every request, so they become the preamble.
//! A `compacted` record is Codex's own compaction: what it carries (`replacement_history`, else
//! the summary `message`) replaces everything before it in the model's context.

mod repair;
mod replay;

use super::common::{element_indent, lines_span};
use super::edit::Step;
use super::replay::Keys;
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript, Usage,
};
use crate::json::{Node, 
    ArrayLayout, Span, member, parse_raw, quote, replace_member,
    to_string_styled,
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The record types Codex writes; a file must hold at least one to be a rollout.
const RECORD_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// Starts of the user-role messages Codex injects to carry instructions and session context
/// rather than user intent (codex-rs calls them contextual user messages). They are read as
/// system content so they are preserved and the original task is the first real prompt.
const CONTEXT_PREFIXES: [&str; 4] = [
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<environment_context>",
    "<skill>",
];

/// The Codex rollout adapter.
pub struct Codex;

impl Adapter for Codex {
    fn content_keys(&self) -> &'static [&'static str] {
        &["content", "output", "arguments", "input", "summary", "message", "encrypted_content"]
    }

    /// Every record is a typed object and some record is a known `{type, payload}` record, so
    /// a rollout with one damaged record is still read (and `check` names the record).
    fn detect(&self, doc: &Doc) -> bool {
        let mut known = false;
        for (raw, _) in records(doc) {
            // Stop at the first record that is not a typed object: most files fail on line 1.
            let Some((ty, payload)) = shape(raw) else {
                return false;
            };
            known |= payload && RECORD_TYPES.contains(&ty.as_str());
        }
        known
    }

    fn replay_keys(&self) -> Option<Keys> {
        Some(Keys {
            key: replay::key,
            candidates: None,
        })
    }

    fn repair_steps(&self) -> &'static [Step] {
        &[repair::replays, repair::pairing]
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let records = records(doc);
        let (span, layout, container) = list_shape(doc, &records);
        let mut preamble = Vec::new();
        let mut items = Vec::with_capacity(records.len());
        let mut boundary = None;
        let mut titled = false;
        let mut user_events = Vec::new();
        let mut window = None;
        for (raw, span) in records {
            let line = doc.line_of(span.start);
            let value: Value = crate::json::lenient::value(raw.get())
                .map_err(|e| super::common::value_error(line, span.start, &e))?;
            let mut item = Item::new(span, line, Role::None, Kind::NonContext);
            let payload = value.get("payload").unwrap_or(&Value::Null);
            match str_at(&value, "type") {
                "response_item" => parse_response_item(payload, &mut item),
                "compacted" => {
                    parse_compacted(payload, &mut item);
                    item.anchor = true;
                    item.boundary = true;
                    boundary = Some(items.len());
                }
                // A forked rollout repeats its parent's meta; the first one is this session's.
                "session_meta" if preamble.is_empty() => {
                    preamble = instructions_of(payload);
                    item.anchor = true;
                }
                "session_meta" => item.anchor = true,
                "event_msg" => {
                    item.usage = usage_of(payload).map(Box::new);
                    window = context_window_of(payload).or(window);
                    if str_at(payload, "type") == "user_message" {
                        // `codex resume` lists a session under its first user message event:
                        // anchoring it keeps the title through any compaction.
                        item.anchor |= !titled;
                        titled = true;
                        user_events.push(items.len());
                    }
                }
                _ => {}
            }
            items.push(item);
        }
        for item in &mut items[..boundary.unwrap_or(0)] {
            item.in_context = false;
        }
        pair_user_events(&mut items, &user_events);
        let conv = Conversation {
            span,
            location: String::new(),
            items,
            preamble,
            layout,
            model: None,
            context_window: window,
        };
        each(conv);
        Ok(container.to_string())
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        match out {
            // Reasoning is a record of its own here: it is never dropped from a message.
            OutItem::Keep(i) | OutItem::DropThinking(i) => raw(*i).to_string(),
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            OutItem::Summary { text, replaces } => {
                let timestamp = replaces.clone().find_map(|i| timestamp_of(raw(i)));
                summary_record(timestamp, text, element_indent(conv))
            }
            OutItem::ReplaceResult(i, text) => replace_in_payload(raw(*i), "output", &quote(text))
                .unwrap_or_else(|| raw(*i).to_string()),
            OutItem::ReplaceText(i, text) => {
                replace_text(raw(*i), text).unwrap_or_else(|| raw(*i).to_string())
            }
            OutItem::ReplaceArguments(i, edits) => {
                replace_arguments(raw(*i), edits).unwrap_or_else(|| raw(*i).to_string())
            }
        }
    }

    fn rewrites_arguments(&self) -> bool {
        true
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        check_records(source, conv)
    }
}

/// Ties each `user_message` event to the user message it echoes — the nearest one, with only
/// records the model never sees in between (Codex writes the message, then the event) — as one
/// logical message: the event is kept exactly when its prompt is, so the client shows the kept
/// turns as the user typed them.
fn pair_user_events(items: &mut [Item], events: &[usize]) {
    for &event in events {
        let bookkeeping = |i: &usize| items[*i].kind == Kind::NonContext;
        let before = (0..event).rev().find(|i| !bookkeeping(i));
        let after = (event + 1..items.len()).find(|i| !bookkeeping(i));
        let Some(message) = [before, after]
            .into_iter()
            .flatten()
            .find(|&i| items[i].kind == Kind::User && items[i].message_id.is_none())
        else {
            continue;
        };
        let id = format!("user_message@{message}");
        items[message].message_id = Some(id.clone());
        items[event].message_id = Some(id);
    }
}

/// The records of a rollout with their spans: the lines, the array's elements, or the lone
/// object.
fn records<'d, 'a>(doc: &'d Doc<'a>) -> Vec<(&'d Node<'a>, Span)> {
    match doc {
        Doc::Lines { lines, .. } => lines.iter().map(|l| (&l.node, l.range())).collect(),
        Doc::Json { root, .. } => root
            .elements()
            .map_or_else(|| vec![root], |elements| elements.iter().collect())
            .into_iter()
            .map(|r| (r, doc.span_of(r)))
            .collect(),
    }
}

/// The string `type` of an object and whether it has a `payload`; `None` for anything else.
fn shape(node: &Node) -> Option<(String, bool)> {
    let members = node.members()?;
    let (_, ty) = members.iter().find(|(k, _)| k == "type")?;
    let payload = members.iter().any(|(k, _)| k == "payload");
    Some((serde_json::from_str(ty.get()).ok()?, payload))
}

/// The conversation's span, layout and a container description for each kind of document.
fn list_shape(doc: &Doc, records: &[(&Node, Span)]) -> (Span, ListLayout, &'static str) {
    match doc {
        Doc::Lines {
            newline,
            trailing_newline,
            ..
        } => (
            lines_span(doc),
            ListLayout::Lines {
                newline,
                trailing_newline: *trailing_newline,
            },
            "jsonl",
        ),
        Doc::Json { root, .. } if root.get().starts_with('[') => {
            let base = doc.span_of(root).start;
            let relative: Vec<Span> = records
                .iter()
                .map(|(_, s)| s.start - base..s.end - base)
                .collect();
            let layout = ListLayout::Array(ArrayLayout::of(root.get(), &relative));
            (doc.span_of(root), layout, "json array of rollout records")
        }
        Doc::Json { root, .. } => (doc.span_of(root), ListLayout::Single, "json rollout record"),
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A value as the model sees it: strings as they are, anything else as JSON text.
fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Fills `item` from a `response_item` payload (also used for `replacement_history` entries).
fn parse_response_item(p: &Value, item: &mut Item) {
    item.role = Role::Assistant;
    item.kind = match str_at(p, "type") {
        "message" => parse_message(p, item),
        "function_call" | "custom_tool_call" | "local_shell_call" => parse_call(p, item),
        // Server-side tool: its result is folded into the model's output, nothing to pair.
        "web_search_call" => {
            item.parts.push(Part::new(PartKind::ToolName, "web_search"));
            let action = text_of(p.get("action"));
            item.parts.push(Part::new(PartKind::ToolArguments, action));
            Kind::ToolCall
        }
        "function_call_output" | "custom_tool_call_output" => parse_output(p, item),
        "reasoning" => {
            // `encrypted_content` is opaque to ctxc; the readable summary and content count.
            for key in ["summary", "content"] {
                for block in p.get(key).and_then(Value::as_array).into_iter().flatten() {
                    push_block(block, PartKind::Thinking, item);
                }
            }
            Kind::Thinking
        }
        // Remote compaction: an encrypted summary that the model does see.
        "compaction" | "compaction_summary" => Kind::Summary,
        // Undo snapshots of the work tree, filtered out before every request.
        "ghost_snapshot" => {
            item.role = Role::None;
            Kind::NonContext
        }
        // Unknown payloads are still history the model is sent; keep them in context.
        _ => Kind::AssistantText,
    };
    item.in_context = item.kind != Kind::NonContext;
}

fn parse_message(p: &Value, item: &mut Item) -> Kind {
    item.role = match str_at(p, "role") {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "developer" => Role::Developer,
        "system" => Role::System,
        _ => Role::None,
    };
    match p.get("content") {
        Some(Value::String(s)) => item.parts.push(Part::new(PartKind::Text, s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                push_block(block, PartKind::Text, item);
            }
        }
        _ => {}
    }
    let first = item.parts.first().map_or("", |p| p.text.as_str());
    match item.role {
        Role::User if first.starts_with(SUMMARY_MARKER) => {
            item.ctxc_summary = true;
            Kind::Summary
        }
        Role::User
            if CONTEXT_PREFIXES
                .iter()
                .any(|p| first.trim_start().starts_with(p)) =>
        {
            Kind::System
        }
        Role::User => Kind::User,
        Role::Assistant => Kind::AssistantText,
        Role::System | Role::Developer => Kind::System,
        Role::Tool | Role::None => Kind::NonContext,
    }
}

/// Adds one content block: its text, or a media stub for images and files.
fn push_block(block: &Value, kind: PartKind, item: &mut Item) {
    let text = block.get("text").or_else(|| block.get("refusal"));
    match text.and_then(Value::as_str) {
        Some(text) => item.parts.push(Part::new(kind, text)),
        None if block.is_object() => {
            let ty = block.get("type").and_then(Value::as_str).unwrap_or("media");
            item.parts
                .push(Part::new(PartKind::Media, format!("[{ty}]")));
        }
        None => {}
    }
}

fn parse_call(p: &Value, item: &mut Item) -> Kind {
    let (name, arguments) = match str_at(p, "type") {
        "function_call" => (str_at(p, "name"), p.get("arguments")),
        "custom_tool_call" => (str_at(p, "name"), p.get("input")),
        _ => ("local_shell", p.get("action")),
    };
    if let Some(id) = p.get("call_id").and_then(Value::as_str) {
        item.calls.push(ToolCall {
            id: id.to_string(),
            name: name.to_string(),
        });
    }
    item.parts.push(Part::new(PartKind::ToolName, name));
    item.parts
        .push(Part::new(PartKind::ToolArguments, text_of(arguments)));
    Kind::ToolCall
}

fn parse_output(p: &Value, item: &mut Item) -> Kind {
    item.role = Role::Tool;
    if let Some(id) = p.get("call_id").and_then(Value::as_str) {
        item.results.push(id.to_string());
    }
    match p.get("output") {
        // Structured outputs are a list of content items (text, images).
        Some(Value::Array(blocks)) => {
            for block in blocks {
                push_block(block, PartKind::ToolResult, item);
            }
        }
        // Older rollouts store `{content, success}`.
        Some(Value::Object(o)) if o.get("content").is_some_and(Value::is_string) => {
            item.parts
                .push(Part::new(PartKind::ToolResult, text_of(o.get("content"))));
        }
        other => item
            .parts
            .push(Part::new(PartKind::ToolResult, text_of(other))),
    }
    Kind::ToolResult
}

/// A `compacted` record: the model now sees its `replacement_history` (when Codex kept one)
/// or its summary `message`.
fn parse_compacted(p: &Value, item: &mut Item) {
    item.role = Role::User;
    item.kind = Kind::Summary;
    item.in_context = true;
    match p.get("replacement_history").and_then(Value::as_array) {
        Some(history) => {
            for entry in history {
                let mut sub = Item::new(0..0, item.line, Role::None, Kind::NonContext);
                parse_response_item(entry, &mut sub);
                if sub.in_context {
                    item.parts.append(&mut sub.parts);
                }
            }
        }
        None => item
            .parts
            .push(Part::new(PartKind::Text, str_at(p, "message"))),
    }
}

/// What `session_meta` sends with every request: the base instructions (an object with `text`
/// in current Codex, a string in older rollouts), user instructions, dynamic tool definitions.
fn instructions_of(p: &Value) -> Vec<Part> {
    let mut parts = Vec::new();
    for key in ["base_instructions", "instructions"] {
        let text = match p.get(key) {
            Some(Value::String(s)) => s.as_str(),
            Some(v) => str_at(v, "text"),
            None => "",
        };
        if !text.is_empty() {
            parts.push(Part::new(PartKind::Text, text));
        }
    }
    if let Some(tools) = p.get("dynamic_tools").filter(|t| !t.is_null()) {
        parts.push(Part::new(PartKind::ToolDefinitions, tools.to_string()));
    }
    parts
}

/// Provider usage from a `token_count` event. OpenAI counts cached tokens inside
/// `input_tokens`; [`Usage::input_tokens`] is the uncached part, so they are split.
fn usage_of(p: &Value) -> Option<Usage> {
    if str_at(p, "type") != "token_count" {
        return None;
    }
    let last = p.get("info")?.get("last_token_usage")?;
    let n = |key: &str| last.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cached_input_tokens");
    Some(Usage {
        input_tokens: n("input_tokens").saturating_sub(cached),
        output_tokens: n("output_tokens"),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    })
}

/// The context window a `token_count` event records (`info.model_context_window`).
fn context_window_of(p: &Value) -> Option<usize> {
    if str_at(p, "type") != "token_count" {
        return None;
    }
    let window = p.pointer("/info/model_context_window")?.as_u64()?;
    usize::try_from(window).ok().filter(|&w| w > 0)
}

fn timestamp_of(record: &str) -> Option<Value> {
    let raw = member(parse_raw(record).ok()?, "timestamp")?;
    serde_json::from_str(raw.get()).ok()
}

/// A ctxc summary as the user message Codex itself would store. The timestamp is the first
/// replaced record's, so output never depends on the clock.
fn summary_record(timestamp: Option<Value>, text: &str, indent: Option<&str>) -> String {
    let mut record = Map::new();
    if let Some(ts) = timestamp {
        record.insert("timestamp".into(), ts);
    }
    record.insert("type".into(), "response_item".into());
    record.insert(
        "payload".into(),
        json!({
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": format!("{SUMMARY_MARKER}\n{text}")}],
        }),
    );
    to_string_styled(&Value::Object(record), indent)
}

/// `record` with member `key` of its payload set to `new_value`, everything else unchanged.
/// A call record with its arguments rewritten: a function call's `arguments` (a string of
/// JSON), a custom tool's `input` (its own text), a local shell call's `action` (an object).
fn replace_arguments(record: &str, edits: &[super::CallEdit]) -> Option<String> {
    let payload = member(parse_raw(record).ok()?, "payload")?;
    let ty: String = serde_json::from_str(member(payload, "type")?.get()).ok()?;
    let key = match ty.as_str() {
        "function_call" => "arguments",
        "custom_tool_call" => "input",
        "local_shell_call" | "web_search_call" => "action",
        _ => return None,
    };
    let arguments = member(payload, key)?;
    super::common::replace_arguments(record, &[arguments.get()], edits)
}

fn replace_in_payload(record: &str, key: &str, new_value: &str) -> Option<String> {
    let payload = member(parse_raw(record).ok()?, "payload")?;
    let new_payload = replace_member(payload.get(), key, new_value)?;
    replace_member(record, "payload", &new_payload)
}

/// A message record with its text replaced (the first text block takes it, other text blocks
/// go, images stay), or a `compacted` record with its summary replaced.
fn replace_text(record: &str, text: &str) -> Option<String> {
    let raw = parse_raw(record).ok()?;
    let payload = member(raw, "payload")?;
    if shape(&Node::new(raw)).is_some_and(|(ty, _)| ty == "compacted") {
        return replace_in_payload(record, "message", &quote(text));
    }
    let content = member(payload, "content")?;
    let new_content = if content.get().starts_with('"') {
        quote(text)
    } else {
        super::common::replace_text_blocks(content.get(), is_text_block, text)?
    };
    replace_in_payload(record, "content", &new_content)
}

fn is_text_block(block: &Value) -> bool {
    matches!(str_at(block, "type"), "input_text" | "output_text" | "text")
}

/// Records that are not `{type, payload}` objects, and outputs of the wrong family for their
/// call: the Responses API rejects a `function_call_output` answering a `custom_tool_call`
/// and the reverse.
fn check_records(source: &str, conv: &Conversation) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut call_types: HashMap<&str, String> = HashMap::new();
    for item in &conv.items {
        let Ok(raw) = parse_raw(&source[item.span.clone()]) else {
            continue;
        };
        if !shape(&Node::new(raw)).is_some_and(|(_, payload)| payload) {
            findings.push(Finding::new(
                item.line,
                "not a rollout record: expected an object with \"type\" and \"payload\"",
            ));
            continue;
        }
        let payload_type = member(raw, "payload")
            .and_then(|p| member(p, "type"))
            .and_then(|ty| serde_json::from_str::<String>(ty.get()).ok())
            .unwrap_or_default();
        for call in &item.calls {
            call_types.insert(&call.id, payload_type.clone());
        }
        for id in &item.results {
            let Some(call_type) = call_types.get(id.as_str()) else {
                continue;
            };
            let expected = match call_type.as_str() {
                "custom_tool_call" => "custom_tool_call_output",
                _ => "function_call_output",
            };
            if payload_type != expected {
                findings.push(Finding::new(
                    item.line,
                    format!("{payload_type} answers {call_type} '{id}'; expected {expected}"),
                ));
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fixture, read_str};
    use super::super::{Format, ReadOptions, check, read};
    use super::*;

    fn kinds(t: &Transcript) -> Vec<Kind> {
        t.conversations[0].items.iter().map(|i| i.kind).collect()
    }

    fn keep_all(t: &Transcript) -> Vec<Option<Vec<OutItem>>> {
        let n = t.conversations[0].items.len();
        vec![Some((0..n).map(OutItem::Keep).collect())]
    }

    #[test]
    fn detects_rollouts_in_every_container() {
        for src in [
            fixture("codex/session.jsonl"),
            "[{\"type\": \"response_item\", \"payload\": {\"type\": \"reasoning\"}}]".into(),
            "{\n  \"type\": \"turn_context\",\n  \"payload\": {}\n}\n".into(),
        ] {
            assert_eq!(read_str(&src).format, Format::Codex, "{src}");
        }
    }

    #[test]
    fn does_not_claim_other_formats() {
        for src in [
            r#"[{"role": "user", "content": "hi"}]"#,
            r#"{"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "a"}"#,
            r#"[{"conversations": [{"from": "human", "value": "hi"}]}]"#,
            // An untyped record among rollout records: not a rollout.
            "{\"type\":\"event_msg\",\"payload\":{}}\n{\"payload\":{}}\n",
        ] {
            let doc = Doc::parse(src).unwrap();
            assert!(!Codex.detect(&doc), "{src}");
        }
    }

    #[test]
    fn reads_kinds_calls_results_and_usage() {
        let t = read_str(&fixture("codex/session.jsonl"));
        assert_eq!(t.container, "jsonl");
        assert_eq!(
            t.conversations[0].context_window,
            Some(272_000),
            "token_count's window"
        );
        use Kind::*;
        assert_eq!(
            kinds(&t),
            [
                NonContext,
                NonContext,
                System,
                System,
                User,
                NonContext,
                Thinking,
                ToolCall,
                ToolResult,
                ToolCall,
                ToolResult,
                AssistantText,
                NonContext,
                NonContext
            ]
        );
        let conv = &t.conversations[0];
        assert_eq!(conv.preamble[0].text, "You are Codex.");
        assert_eq!(conv.preamble[1].kind, PartKind::ToolDefinitions);
        assert_eq!(conv.items[6].text(), "Listing files first.");
        assert_eq!(conv.items[7].calls[0].id, "call_1");
        assert_eq!(conv.items[7].parts[1].text, "{\"cmd\":\"ls\"}");
        assert_eq!(conv.items[8].results, ["call_1"]);
        assert_eq!(conv.items[10].text(), "patched");
        let usage = conv.items[12].usage.as_deref().copied().unwrap();
        assert_eq!(usage.input_tokens, 750);
        assert_eq!(usage.cache_read_input_tokens, 250);
        assert!(
            conv.items
                .iter()
                .all(|i| i.in_context != (i.kind == NonContext))
        );
        // The prompt and its `user_message` event are one group; so is each call and output.
        assert_eq!(conv.groups()[4..9], [4..6, 6..7, 7..9, 9..11, 11..12]);
        assert!(check(&t).is_empty(), "{:?}", check(&t));
        assert_eq!(t.write(&keep_all(&t)), t.source);
    }

    /// Parallel calls are separate `function_call` items, answered in any order: clean. A call
    /// left open while a later turn's call is answered is still reported.
    #[test]
    fn parallel_calls_answered_out_of_order_are_clean() {
        let line = |p: &str| format!("{{\"type\":\"response_item\",\"payload\":{p}}}\n");
        let call = |id: &str| {
            line(&format!(
                "{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{{}}\",\"call_id\":\"{id}\"}}"
            ))
        };
        let output = |id: &str| {
            line(&format!(
                "{{\"type\":\"function_call_output\",\"call_id\":\"{id}\",\"output\":\"ok\"}}"
            ))
        };
        let user = line(
            "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"go\"}]}",
        );
        let clean = [user.clone(), call("a"), call("b"), output("b"), output("a")].concat();
        let t = read(clean, &ReadOptions::default()).unwrap();
        assert!(check(&t).is_empty(), "{:?}", check(&t));
        let abandoned = [
            user,
            call("a"),
            call("b"),
            output("b"),
            call("c"),
            output("c"),
            output("a"),
        ]
        .concat();
        let t = read(abandoned, &ReadOptions::default()).unwrap();
        let found: Vec<String> = check(&t).iter().map(|f| f.to_string()).collect();
        assert!(
            found
                .iter()
                .any(|f| f.contains("'a'") && f.contains("never answered")),
            "{found:?}"
        );
    }

    #[test]
    fn history_before_the_latest_compaction_is_out_of_context() {
        let t = read_str(&fixture("codex/compacted.jsonl"));
        let conv = &t.conversations[0];
        let summary = conv
            .items
            .iter()
            .position(|i| i.kind == Kind::Summary)
            .unwrap();
        assert!(conv.items[..summary].iter().all(|i| !i.in_context));
        assert!(conv.items[summary..].iter().all(|i| i.in_context));
        assert!(!conv.items[summary].ctxc_summary);
        // The replacement history is what the model sees, not the short `message`.
        assert!(conv.items[summary].text().contains("Fix the failing test."));
    }

    #[test]
    fn the_first_user_message_event_is_kept_as_the_title() {
        let src = concat!(
            r#"{"type":"session_meta","payload":{"id":"s"}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"user_message","message":"fix the parser"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the parser"}]}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"user_message","message":"and test it"}}"#,
            "\n",
        );
        let conv = &read_str(src).conversations[0];
        let holds = crate::preserve::holds(conv, &conv.groups());
        assert_eq!(holds[1], crate::preserve::Hold::Frozen, "the title stays");
        assert_eq!(holds[3], crate::preserve::Hold::Free);
    }

    #[test]
    fn summary_is_a_user_message_with_the_replaced_timestamp() {
        let t = read_str(&fixture("codex/session.jsonl"));
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::Summary {
                text: "did things".into(),
                replaces: 4..12,
            },
            OutItem::Keep(12),
        ])]);
        let line = out.lines().nth(1).unwrap();
        assert!(
            line.starts_with(r#"{"timestamp":"2025-09-01T10:00:03.000Z","type":"response_item""#),
            "{line}"
        );
        let again = read_str(&out);
        let item = &again.conversations[0].items[1];
        assert_eq!((item.kind, item.ctxc_summary), (Kind::Summary, true));
        assert!(check(&again).is_empty());
    }

    #[test]
    fn summary_in_a_pretty_array_matches_its_style() {
        let src = "[\n  {\n    \"type\": \"response_item\",\n    \"payload\": {\"type\": \"reasoning\", \"summary\": []}\n  }\n]";
        let t = read_str(src);
        let summary = OutItem::Summary {
            text: "s".into(),
            replaces: 0..1,
        };
        let out = t.write(&[Some(vec![summary])]);
        assert!(out.starts_with("[\n  {\n    \"type\": \"response_item\",\n    \"payload\": {\n      \"type\": \"message\""), "{out}");
        assert_eq!(read_str(&out).conversations[0].items[0].kind, Kind::Summary);
    }

    #[test]
    fn replacements_change_only_their_member() {
        let t = read_str(&fixture("codex/session.jsonl"));
        let mut edit: Vec<OutItem> = (0..14).map(OutItem::Keep).collect();
        edit[8] = OutItem::ReplaceResult(8, "[output elided]".into());
        edit[11] = OutItem::ReplaceText(11, "short".into());
        let out = t.write(&[Some(edit)]);
        let again = read_str(&out);
        let conv = &again.conversations[0];
        assert_eq!(conv.items[8].text(), "[output elided]");
        assert_eq!(conv.items[8].results, ["call_1"]);
        assert_eq!(conv.items[11].text(), "short");
        assert!(out.contains(r#""output":"[output elided]""#), "{out}");
        assert_eq!(kinds(&again), kinds(&t));
        assert!(check(&again).is_empty());
    }

    #[test]
    fn wrong_output_family_and_bad_records_are_found() {
        let t = read_str(&fixture("codex/broken.jsonl"));
        let text: Vec<String> = check(&t).iter().map(|f| f.to_string()).collect();
        assert!(
            text.iter().any(|f| f.starts_with(
                "3: function_call_output answers custom_tool_call 'c1'; expected custom_tool_call_output"
            )),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|f| f.starts_with("4: tool result for call 'nope' has no earlier")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|f| f.starts_with("5: not a rollout record")),
            "{text:?}"
        );
    }
}
