//! OpenHands V1 (software-agent-sdk) conversation events: each event an object with a `kind`
//! discriminator (`SystemPromptEvent`, `MessageEvent`, `ActionEvent`, `ObservationEvent`,
//! `UserRejectObservation`, `AgentErrorEvent`, `Condensation`, `ConversationStateUpdateEvent`,
//! ...) and `id`, `timestamp`, `source` (and, in newer SDKs, `parent_id`), serialized as the
//! SDK serializes them (`model_dump_json(exclude_none=True)`).
//!
//! The SDK persists a conversation as a directory (`base_state.json`, `events/event-NNNNN-
//! <id>.json`, one event per file). ctxc reads and writes files, and one event alone is no
//! conversation, so the unit read here is a file holding a conversation's events in order: a
//! JSON array of events, JSONL with one event per line (as the SDK's own test fixtures hold a
//! persisted log), or records holding the events under `history`, `events` or `items` (the
//! agent server's event search pages, evaluation output). The persisted directory itself is
//! not read: writing one back would mean renaming every event file after a removed one.
//!
//! What the model is sent is what `View.from_events` and `LLMConvertibleEvent.events_to_messages`
//! make of the events (openhands/sdk/context/view/view.py, openhands/sdk/event/base.py):
//! - a `SystemPromptEvent` is the system message (its prompt, dynamic context and tools);
//! - a `MessageEvent` is its `llm_message` (plus `extended_content`), user or assistant;
//! - an `ActionEvent` is an assistant tool call (`tool_call`, with its `thought` and
//!   reasoning); actions of one `llm_response_id` are one message;
//! - an `ObservationEvent`, `UserRejectObservation` or `AgentErrorEvent` is the tool result of
//!   its `tool_call_id`; actions and results without their other half are left out, as the
//!   view's `ToolCallMatchingProperty` leaves them out;
//! - a `Condensation` removes the events it names (`forgotten_event_ids`) from the view built
//!   so far and, when it has a `summary` and a `summary_offset`, inserts the summary there as a
//!   user message: every summary stays in the view until a later condensation forgets it;
//! - every other event (state updates, condensation requests, token and hook events) reaches no
//!   model.
//!
//! **How a compaction is written.** The SDK's condensers append a `Condensation` naming the
//! forgotten events, with the summary and its offset, and keep the forgotten events stored.
//! ctxc writes the same event in place of the events it forgets, which move to the archive (a
//! compaction must make the file smaller): its `summary_offset` is the view's length at that
//! point, so the SDK inserts the summary exactly where the events were. It forgets too what a
//! condensation it replaces forgot, so no event comes back. It takes the id of the last event
//! it replaces and the `parent_id` of the first, so the events after it still find their
//! parent and ids stay unique.

use super::common::{element_indent, lines_span, replace_text_blocks, value_error};
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript,
};
use crate::json::{Node, 
    ArrayLayout, Span, member, parse_raw, quote, replace_member,
    span_of, to_string_styled,
};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// The OpenHands V1 SDK adapter.
pub struct OpenHandsSdk;

/// Keys under which a record keeps its event list.
const EVENT_KEYS: [&str; 3] = ["history", "events", "items"];

/// Event kinds that answer a tool call.
const RESULT_KINDS: [&str; 3] = ["ObservationEvent", "UserRejectObservation", "AgentErrorEvent"];

/// What the SDK appends to a condensation's id for the id of its summary in the view.
const SUMMARY_ID_SUFFIX: &str = "-summary";

/// The SDK's `parent_id` for an event that starts a branch at the root.
const ROOT_PARENT_ID: &str = "__root__";

impl Adapter for OpenHandsSdk {
    fn content_keys(&self) -> &'static [&'static str] {
        &["content", "action", "observation", "thought", "reasoning_content", "system_prompt"]
    }

    fn detect(&self, doc: &Doc) -> bool {
        !find_lists(doc).is_empty()
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let found = find_lists(doc);
        if found.is_empty() {
            return Err(ReadError::none_found("OpenHands SDK event list", "", doc));
        }
        let container = match (doc, &found[0]) {
            (Doc::Lines { .. }, Found::Lines) => "jsonl, one event per line",
            (Doc::Lines { .. }, _) => "jsonl, one conversation per line",
            (Doc::Json { .. }, Found::Array { location, .. }) if location.is_empty() => {
                "json array of events"
            }
            (Doc::Json { .. }, _) => "json, records holding events",
        };
        for f in found {
            each(read_list(doc, f)?);
        }
        Ok(container.to_string())
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        match out {
            OutItem::Keep(i) | OutItem::DropThinking(i) | OutItem::ReplaceArguments(i, _) => {
                raw(*i).to_string()
            }
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            // `render_list` writes summaries with their place in the view; this is the bare
            // event, for a caller that renders one item alone.
            OutItem::Summary { text, replaces } => {
                condensation(t, conv, replaces.clone(), &HashSet::new(), text, 0)
            }
            OutItem::ReplaceResult(i, text) | OutItem::ReplaceText(i, text) => {
                replace_text(raw(*i), text).unwrap_or_else(|| raw(*i).to_string())
            }
        }
    }

    fn render_list(
        &self,
        t: &Transcript,
        conv: &Conversation,
        items: &[OutItem],
        out: &mut String,
    ) {
        let texts = render_events(self, t, conv, items);
        super::render_layout(t, conv, items, texts.iter(), out);
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        check_events(source, conv)
    }
}

/// An event list and where it is.
enum Found<'d, 'a> {
    /// A JSON array of events at `location` (empty: the whole document).
    Array {
        location: String,
        list: &'d Node<'a>,
    },
    /// The whole JSONL file, one event per line.
    Lines,
}

fn find_lists<'d, 'a>(doc: &'d Doc<'a>) -> Vec<Found<'d, 'a>> {
    match doc {
        Doc::Json { root, .. } if root.elements().is_some_and(starts_list) => {
            vec![Found::Array {
                location: String::new(),
                list: root,
            }]
        }
        Doc::Lines { lines, .. } if lines.first().is_some_and(|l| is_event(&l.node)) => {
            vec![Found::Lines]
        }
        _ => super::containers::each_record(doc, events_of),
    }
}

/// The event list of a record: a non-empty array of events under an [`EVENT_KEYS`] key.
fn events_of<'d, 'a>(owner: &'d Node<'a>, location: String) -> Option<Found<'d, 'a>> {
    let members = owner.members()?;
    EVENT_KEYS.iter().find_map(|key| {
        let (_, list) = members.iter().find(|(k, _)| k == key)?;
        starts_list(list.elements()?).then(|| Found::Array {
            location: format!("{location}/{key}"),
            list,
        })
    })
}

fn starts_list(elements: &[Node]) -> bool {
    elements.first().is_some_and(is_event)
}

/// An SDK event: an object with a string `kind` naming an event class, and `id` and `source`.
fn is_event(node: &Node) -> bool {
    let Some(members) = node.members() else {
        return false;
    };
    let has = |key: &str| members.iter().any(|(k, _)| k == key);
    let kind = members
        .iter()
        .find(|(k, _)| k == "kind")
        .and_then(|(_, v)| serde_json::from_str::<String>(v.get()).ok());
    let event_kind = kind.is_some_and(|k| {
        k.ends_with("Event") || k.ends_with("Observation") || k.starts_with("Condensation")
    });
    event_kind && has("id") && has("source") && !has("role")
}

/// One event, as read.
struct Event {
    span: Span,
    line: usize,
    value: Value,
}

impl Event {
    fn kind(&self) -> &str {
        str_at(&self.value, "kind")
    }
    fn id(&self) -> &str {
        str_at(&self.value, "id")
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The texts of a list of content blocks (`TextContent`), and one media part per image URL.
fn content_parts(blocks: Option<&Value>, kind: PartKind) -> Vec<Part> {
    let mut parts = Vec::new();
    for block in blocks.and_then(Value::as_array).into_iter().flatten() {
        match str_at(block, "type") {
            "text" => parts.push(Part::new(kind, str_at(block, "text"))),
            "image" => {
                let urls = block.get("image_urls").and_then(Value::as_array);
                for _ in urls.into_iter().flatten() {
                    parts.push(Part::new(PartKind::Media, "[image_url]"));
                }
            }
            _ => {}
        }
    }
    parts
}

fn read_list(doc: &Doc, found: Found) -> Result<Conversation, ReadError> {
    let (span, location, layout, elements): (Span, String, ListLayout, Vec<(&str, Span)>) =
        match found {
            Found::Lines => {
                let Doc::Lines {
                    lines,
                    newline,
                    trailing_newline,
                    ..
                } = doc
                else {
                    unreachable!("Found::Lines comes from a JSONL document")
                };
                let layout = ListLayout::Lines {
                    newline,
                    trailing_newline: *trailing_newline,
                };
                let elements = lines.iter().map(|l| (l.text(), l.range())).collect();
                (lines_span(doc), String::new(), layout, elements)
            }
            Found::Array { location, list } => {
                let span = doc.span_of(list);
                let elements: Vec<_> = list
                    .elements()
                    .unwrap_or_default()
                    .iter()
                    .map(|e| (e.get(), doc.span_of(e)))
                    .collect();
                let relative: Vec<Span> = elements
                    .iter()
                    .map(|(_, s)| s.start - span.start..s.end - span.start)
                    .collect();
                let layout = ListLayout::Array(ArrayLayout::of(list.get(), &relative));
                (span, location, layout, elements)
            }
        };
    let mut events = Vec::with_capacity(elements.len());
    for (text, span) in elements {
        let line = doc.line_of(span.start);
        let value: Value =
            crate::json::lenient::value(text).map_err(|e| value_error(line, span.start, &e))?;
        events.push(Event { span, line, value });
    }
    Ok(Conversation {
        span,
        location,
        items: build(events),
        preamble: Vec::new(),
        layout,
        model: None,
        context_window: None,
    })
}

/// The items of one event list, as the SDK turns the events into messages.
fn build(events: Vec<Event>) -> Vec<Item> {
    let mut items: Vec<Item> = events.iter().map(read_event).collect();
    let view = view_of(&events);
    for (item, e) in items.iter_mut().zip(&events) {
        let id = match e.kind() {
            "Condensation" => format!("{}{SUMMARY_ID_SUFFIX}", e.id()),
            _ => e.id().to_string(),
        };
        item.in_context = item.kind != Kind::NonContext && view.contains(&id);
    }
    drop_unmatched(&mut items);
    items
}

/// The ids of the events in the view the SDK builds (`View.from_events`).
fn view_of(events: &[Event]) -> HashSet<String> {
    let mut view: Vec<String> = Vec::new();
    for e in events {
        apply_to_view(&mut view, &e.value);
    }
    view.into_iter().collect()
}

/// What one event does to the view built so far: a condensation forgets ids from it and
/// inserts its summary (the SDK's `CondensationSummaryEvent`, whose id is the condensation's
/// plus [`SUMMARY_ID_SUFFIX`], so a later condensation can forget it) at its offset; an event
/// the model is sent joins it.
fn apply_to_view(view: &mut Vec<String>, v: &Value) {
    let id = str_at(v, "id");
    match str_at(v, "kind") {
        "Condensation" => {
            let forgets = forgotten(v);
            view.retain(|id| !forgets.contains(id));
            let offset = v.get("summary_offset").and_then(Value::as_u64);
            if let (Some(_), Some(offset)) = (summary_of(v), offset) {
                let at = usize::try_from(offset).unwrap_or(usize::MAX).min(view.len());
                view.insert(at, format!("{id}{SUMMARY_ID_SUFFIX}"));
            }
        }
        kind if converts(kind) => view.push(id.to_string()),
        _ => {}
    }
}

/// Whether events of `kind` reach the model (`LLMConvertibleEvent`s).
fn converts(kind: &str) -> bool {
    matches!(
        kind,
        "SystemPromptEvent" | "MessageEvent" | "ActionEvent" | "CondensationSummaryEvent"
    ) || RESULT_KINDS.contains(&kind)
}

/// The ids a condensation forgets.
fn forgotten(value: &Value) -> HashSet<String> {
    let ids = value.get("forgotten_event_ids").and_then(Value::as_array);
    ids.into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn summary_of(value: &Value) -> Option<&str> {
    value.get("summary").and_then(Value::as_str)
}

/// One event as a model item, before the view decides what is sent.
fn read_event(e: &Event) -> Item {
    let v = &e.value;
    let mut item = Item::new(e.span.clone(), e.line, Role::None, Kind::NonContext);
    match e.kind() {
        "SystemPromptEvent" => {
            item.role = Role::System;
            item.kind = Kind::System;
            for key in ["system_prompt", "dynamic_context"] {
                if let Some(text) = v.get(key).map(|c| str_at(c, "text")) {
                    item.parts.push(Part::new(PartKind::Text, text));
                }
            }
            if let Some(tools) = v.get("tools").filter(|t| !t.is_null()) {
                item.parts
                    .push(Part::new(PartKind::ToolDefinitions, tools.to_string()));
            }
        }
        "MessageEvent" => {
            let message = v.get("llm_message").unwrap_or(&Value::Null);
            (item.role, item.kind) = match str_at(message, "role") {
                "assistant" => (Role::Assistant, Kind::AssistantText),
                "system" => (Role::System, Kind::System),
                _ => (Role::User, Kind::User),
            };
            item.parts.extend(thinking(message));
            item.parts
                .extend(content_parts(message.get("content"), PartKind::Text));
            item.parts
                .extend(content_parts(v.get("extended_content"), PartKind::Text));
        }
        "ActionEvent" => read_action(v, &mut item),
        kind if RESULT_KINDS.contains(&kind) => read_result(v, kind, &mut item),
        "Condensation" | "CondensationSummaryEvent" => match summary_of(v) {
            Some(summary) => {
                item.role = Role::User;
                item.kind = Kind::Summary;
                item.ctxc_summary = summary.starts_with(SUMMARY_MARKER);
                item.parts.push(Part::new(PartKind::Text, summary));
            }
            None => item.anchor = true,
        },
        _ => {}
    }
    item
}

/// The reasoning an assistant turn carries: `reasoning_content` and thinking blocks.
fn thinking(value: &Value) -> Vec<Part> {
    let mut parts = Vec::new();
    let reasoning = str_at(value, "reasoning_content");
    if !reasoning.is_empty() {
        parts.push(Part::new(PartKind::Thinking, reasoning));
    }
    let blocks = value.get("thinking_blocks").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        let text = str_at(block, "thinking");
        if !text.is_empty() {
            parts.push(Part::new(PartKind::Thinking, text));
        }
    }
    parts
}

fn read_action(v: &Value, item: &mut Item) {
    item.role = Role::Assistant;
    item.kind = Kind::ToolCall;
    item.parts.extend(thinking(v));
    item.parts
        .extend(content_parts(v.get("thought"), PartKind::Text));
    let call = v.get("tool_call").unwrap_or(&Value::Null);
    let name = match str_at(call, "name") {
        "" => str_at(v, "tool_name"),
        name => name,
    };
    item.parts.push(Part::new(PartKind::ToolName, name));
    let arguments = match call.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    item.parts.push(Part::new(PartKind::ToolArguments, arguments));
    item.calls.push(ToolCall {
        id: str_at(v, "tool_call_id").to_string(),
        name: name.to_string(),
    });
    let response = str_at(v, "llm_response_id");
    if !response.is_empty() {
        item.message_id = Some(response.to_string());
    }
}

/// An observation-like event: the tool result its `to_llm_message` makes.
fn read_result(v: &Value, kind: &str, item: &mut Item) {
    item.role = Role::Tool;
    item.kind = Kind::ToolResult;
    item.results.push(str_at(v, "tool_call_id").to_string());
    match kind {
        "UserRejectObservation" => item.parts.push(Part::new(
            PartKind::ToolResult,
            format!("Action rejected: {}", str_at(v, "rejection_reason")),
        )),
        "AgentErrorEvent" => {
            item.is_error = true;
            item.parts
                .push(Part::new(PartKind::ToolResult, str_at(v, "error")));
        }
        _ => {
            let observation = v.get("observation").unwrap_or(&Value::Null);
            item.is_error = observation.get("is_error") == Some(&Value::Bool(true));
            if item.is_error {
                item.parts.push(Part::new(
                    PartKind::ToolResult,
                    "[An error occurred during execution.]\n",
                ));
            }
            item.parts.extend(content_parts(
                observation.get("content"),
                PartKind::ToolResult,
            ));
            item.parts.extend(content_parts(
                v.get("extended_content"),
                PartKind::ToolResult,
            ));
        }
    }
}

/// Leaves out of the context the calls no result answers and the results no call asked for,
/// as the view's `ToolCallMatchingProperty` does.
fn drop_unmatched(items: &mut [Item]) {
    let calls: HashSet<String> = items
        .iter()
        .filter(|i| i.in_context)
        .flat_map(|i| i.calls.iter().map(|c| c.id.clone()))
        .collect();
    let results: HashSet<String> = items
        .iter()
        .filter(|i| i.in_context)
        .flat_map(|i| i.results.iter().cloned())
        .collect();
    for item in items.iter_mut().filter(|i| i.in_context) {
        let unanswered = item.calls.iter().any(|c| !results.contains(&c.id));
        let unasked = item.results.iter().any(|r| !calls.contains(r));
        if unanswered || unasked {
            item.in_context = false;
        }
    }
}

/// Links that lead nowhere, beyond the pairing every format is checked for (a result whose
/// call is not stored, an action never answered while the conversation went on): ids used
/// twice, and a `parent_id` naming no earlier event (the SDK walks the active branch by it).
fn check_events(source: &str, conv: &Conversation) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut ids: HashSet<String> = HashSet::new();
    for item in &conv.items {
        let Ok(v) = crate::json::lenient::value(&source[item.span.clone()]) else {
            continue;
        };
        let id = str_at(&v, "id");
        let parent = str_at(&v, "parent_id");
        if !parent.is_empty() && parent != ROOT_PARENT_ID && !ids.contains(parent) {
            findings.push(Finding::new(
                item.line,
                format!("event '{id}' names parent '{parent}', which no earlier event is"),
            ));
        }
        if !ids.insert(id.to_string()) {
            findings.push(Finding::new(
                item.line,
                format!("event id '{id}' is used twice"),
            ));
        }
    }
    findings
}

/// `raw` with the text a strategy edits replaced: an observation's content, an error's or a
/// rejection's text, a message's text blocks.
fn replace_text(raw: &str, text: &str) -> Option<String> {
    let value: Value = crate::json::lenient::value(raw).ok()?;
    match str_at(&value, "kind") {
        "AgentErrorEvent" => replace_member(raw, "error", &quote(text)),
        "UserRejectObservation" => replace_member(raw, "rejection_reason", &quote(text)),
        "ObservationEvent" => replace_blocks(raw, "observation", text),
        "MessageEvent" => replace_blocks(raw, "llm_message", text),
        _ => None,
    }
}

/// `raw` with the text blocks of its `outer` member's `content` replaced by one holding `text`.
fn replace_blocks(raw: &str, outer: &str, text: &str) -> Option<String> {
    let inner = member(parse_raw(raw).ok()?, outer)?;
    let content = member(inner, "content")?;
    let is_text = |b: &Value| b.get("type").and_then(Value::as_str) == Some("text");
    let blocks = replace_text_blocks(content.get(), is_text, text)
        .unwrap_or_else(|| json!([{"type": "text", "text": text}]).to_string());
    let edited = replace_member(inner.get(), "content", &blocks)?;
    let at = span_of(raw, inner.get());
    Some(format!("{}{edited}{}", &raw[..at.start], &raw[at.end..]))
}

/// Renders an edited event list: each new summary a `Condensation` whose summary the SDK
/// inserts where the events it replaces were (see the module doc).
fn render_events(
    adapter: &OpenHandsSdk,
    t: &Transcript,
    conv: &Conversation,
    items: &[OutItem],
) -> Vec<String> {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    // The view's length as the SDK builds it from the events written so far.
    let mut view: Vec<String> = Vec::new();
    let mut texts = Vec::with_capacity(items.len());
    for out in items {
        let text = match out {
            OutItem::Summary { text, replaces } => {
                let inherited: HashSet<String> = replaces
                    .clone()
                    .filter_map(|i| crate::json::lenient::value(raw(i)).ok())
                    .filter(|v| str_at(v, "kind") == "Condensation")
                    .flat_map(|v| forgotten(&v))
                    .collect();
                condensation(t, conv, replaces.clone(), &inherited, text, view.len())
            }
            OutItem::Keep(i) => raw(*i).to_string(),
            other => adapter.render(t, conv, other),
        };
        if let Ok(v) = crate::json::lenient::value(&text) {
            apply_to_view(&mut view, &v);
        }
        texts.push(text);
    }
    texts
}

/// A `Condensation` forgetting the events of `replaces` (and `inherited`, what condensations
/// among them forgot), its summary `text` inserted at view position `offset`, in the field
/// order the SDK writes and in the list's style.
fn condensation(
    t: &Transcript,
    conv: &Conversation,
    replaces: std::ops::Range<usize>,
    inherited: &HashSet<String>,
    text: &str,
    offset: usize,
) -> String {
    let replaced: Vec<Value> = replaces
        .map(|i| &t.source[conv.items[i].span.clone()])
        .filter_map(|raw| crate::json::lenient::value(raw).ok())
        .collect();
    let mut forgets: Vec<String> = replaced
        .iter()
        .map(|v| str_at(v, "id").to_string())
        .filter(|id| !id.is_empty())
        .collect();
    let mut extra: Vec<&String> = inherited.iter().filter(|id| !forgets.contains(id)).collect();
    extra.sort();
    forgets.extend(extra.into_iter().cloned());
    let id = replaced
        .iter()
        .rev()
        .map(|v| str_at(v, "id"))
        .find(|id| !id.is_empty())
        .unwrap_or("ctxc-condensation");
    let first = replaced.first();
    let mut event = Map::new();
    event.insert("id".into(), json!(id));
    if let Some(ts) = first.and_then(|v| v.get("timestamp")) {
        event.insert("timestamp".into(), ts.clone());
    }
    event.insert("source".into(), json!("environment"));
    if let Some(parent) = first.and_then(|v| v.get("parent_id")).filter(|p| !p.is_null()) {
        event.insert("parent_id".into(), parent.clone());
    }
    event.insert("forgotten_event_ids".into(), json!(forgets));
    event.insert(
        "summary".into(),
        json!(format!("{SUMMARY_MARKER}\n{text}")),
    );
    event.insert("summary_offset".into(), json!(offset));
    event.insert("llm_response_id".into(), json!(format!("ctxc-{id}")));
    event.insert("kind".into(), json!("Condensation"));
    to_string_styled(&Value::Object(event), element_indent(conv))
}

#[cfg(test)]
mod tests;
