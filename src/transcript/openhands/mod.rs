//! OpenHands event streams: a JSON array of events (`id`, `timestamp`, `source`, `message`,
//! `action` with `args` or `observation` with `content` and `extras`, `cause`,
//! `tool_call_metadata`, `llm_metrics`), as OpenHands saves a trajectory; and evaluation /
//! resolver output, JSONL (or a JSON array, or one object) whose records hold the events under
//! `history` (the app's trajectory export: under `trajectory`), in the serialized form above or in the older flat form of CodeAct runs (no `id`
//! or `source`, the action's arguments inline next to `action`, the observation's next to
//! `observation`).
//!
//! What the model is sent is what OpenHands' `ConversationMemory.process_events` makes of the
//! events (openhands/memory/conversation_memory.py), after `View.from_events`
//! (openhands/memory/view.py) has applied the condensations:
//! - a `system` action is the system message; a `message` action is a user or assistant
//!   message by its `source`; a `finish` action is an assistant message holding its thought
//!   (its tool call is dropped, as OpenHands drops it);
//! - a tool action (`run`, `run_ipython`, `edit`, `read`, `browse`, ...) carrying
//!   `tool_call_metadata` is an assistant tool call, one message per model response
//!   (`model_response.id`): actions of one response share a message id. Its observation, which
//!   carries the same `tool_call_id`, is the tool result. Calls without a result and results
//!   without a call are left out, as `_filter_unmatched_tool_calls` leaves them out;
//! - without `tool_call_metadata` (CodeAct before function calling, the flat history form) an
//!   agent action is assistant text that ends with its command, and the observation that
//!   follows (its `cause`, else the latest open action) is its output: the pair gets a synthetic
//!   call id (`openhands-<conversation>-<n>`) so it pairs and groups like a tool call. A command
//!   the user ran, and its output, are user messages;
//! - a `recall` observation is the workspace context / microagent knowledge injected as a user
//!   message (counted by the texts its `extras` carry); state changes, `null` events and
//!   `condensation_request`s reach no model;
//! - a `condensation` action forgets the events it names (`forgotten_event_ids`, or the range
//!   `forgotten_events_start_id`..=`forgotten_events_end_id`): they are stored but not sent. Only
//!   the most recent condensation that has a `summary` is sent (OpenHands inserts it as an
//!   `AgentCondensationObservation`); earlier summaries are history. A condensation without a
//!   summary anchors the file (removing it would bring its forgotten events back).
//!
//! **How a compaction is written.** OpenHands' condensers append a `condensation` action that
//! names the forgotten events and carries the summary, and keep the forgotten events in the
//! stream. ctxc writes the same action, with the same fields (`forgotten_event_ids`, `summary`,
//! `summary_offset`: the summary's place in the view), but *in place of* the events it
//! forgets, which move to the archive: a compaction must make the file smaller, and the
//! engine writes one record for each planned item. OpenHands replays such a stream as it
//! replays its own: ids it forgets that are no longer stored are ignored, the action is
//! dropped from the view and the summary is inserted at its offset. The action takes the id
//! (and timestamp) of the first event it replaces, so ids stay unique and increasing. Since
//! OpenHands sends only the latest summary, only the last summary a compaction writes is such
//! an action, and it carries, first, the texts of earlier summaries the model was sent that it
//! shadows; any other summary (one written before a kept condensation, or before a later
//! summary of the same compaction) is written as the observation OpenHands makes of a summary,
//! `condense` (`AgentCondensationObservation`), which the model is sent where it stands. The
//! flat history form has no ids: its condensation names none.
//!
//! Early evaluation output stores `history` as `[action, observation]` pairs, each a 2-array
//! of serialized events (a message action paired with a `null` observation): the events are
//! read in order as above, and an edited history is written as pairs again (see [`pairs`]).
//!
//! The V1 software-agent-sdk's `kind`-tagged events are another format: see `openhands_sdk`.

use super::common::{element_indent, value_error};
use super::{
    Adapter, Conversation, Doc, Item, Kind, ListLayout, OutItem, Part, PartKind, ReadError,
    ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript,
};
use crate::json::{Node, 
    ArrayLayout, Span, member, parse_raw, quote, replace_member,
    span_of, to_string_styled,
};
use serde_json::{Value, json};
use std::collections::HashSet;

mod pairs;

/// The OpenHands adapter.
pub struct OpenHands;

/// Actions OpenHands sends as tool calls (an agent's `run` included).
const TOOL_ACTIONS: [&str; 12] = [
    "run",
    "run_ipython",
    "edit",
    "read",
    "write",
    "browse",
    "browse_interactive",
    "delegate",
    "think",
    "call_tool_mcp",
    "task_tracking",
    "mcp",
];

/// Observations that never reach the model.
const SILENT_OBSERVATIONS: [&str; 4] = ["agent_state_changed", "null", "loop_detection", "success"];

/// Keys under which a record keeps its event list: evaluation and resolver output
/// (`history`), the app's trajectory export (`trajectory`).
const HISTORY_KEYS: [&str; 3] = ["history", "trajectory", "events"];

impl Adapter for OpenHands {
    fn content_keys(&self) -> &'static [&'static str] {
        &["message", "content", "command", "code", "thought", "path", "summary"]
    }

    fn detect(&self, doc: &Doc) -> bool {
        !find_histories(doc).is_empty()
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let found = find_histories(doc);
        if found.is_empty() {
            return Err(ReadError::none_found("OpenHands event list", "", doc));
        }
        let container = match (doc, found[0].location.is_empty()) {
            (Doc::Lines { .. }, _) => "jsonl, one run per line (history)",
            (Doc::Json { .. }, true) => "json array of events",
            (Doc::Json { .. }, false) => "json, runs with a history",
        };
        for (c, f) in found.into_iter().enumerate() {
            each(read_history(doc, c, f)?);
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
            OutItem::Summary { text, replaces } => {
                let ids: Vec<i64> = replaces.clone().filter_map(|i| event_id(raw(i))).collect();
                condensation(t, conv, replaces.start, &ids, text, 0)
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
        let list = parse_raw(&t.source[conv.span.clone()]);
        if list.is_ok_and(|list| pairs::is_pair_list(&Node::new(list))) {
            return pairs::render(t, conv, items, &texts, out);
        }
        super::render_layout(t, conv, items, texts.iter(), out);
    }
}

/// An event list and where it is.
struct Found<'d, 'a> {
    location: String,
    list: &'d Node<'a>,
}

fn find_histories<'d, 'a>(doc: &'d Doc<'a>) -> Vec<Found<'d, 'a>> {
    // A bare event stream: the whole document is one history.
    match doc {
        Doc::Json { root, .. }
            if root.elements().is_some_and(|e| e.first().is_some_and(starts_history)) =>
        {
            vec![Found {
                location: String::new(),
                list: root,
            }]
        }
        _ => super::containers::each_record(doc, history_of),
    }
}

/// The event list of a run record: a non-empty array of events under a [`HISTORY_KEYS`] key.
fn history_of<'d, 'a>(owner: &'d Node<'a>, location: String) -> Option<Found<'d, 'a>> {
    let members = owner.members()?;
    HISTORY_KEYS.iter().find_map(|key| {
        let (_, list) = members.iter().find(|(k, _)| k == key)?;
        let events = list.elements()?;
        events.first().is_some_and(starts_history).then(|| Found {
            location: format!("{location}/{key}"),
            list,
        })
    })
}

/// The first element of an event list: an event, or an `[action, observation]` pair.
fn starts_history(node: &Node) -> bool {
    is_event(node) || pairs::is_pair(node)
}

/// An object with exactly one of a string `action` or `observation`, and no `role` (SWE-agent
/// trajectory steps hold both, chat messages a role).
fn is_event(node: &Node) -> bool {
    let Some(members) = node.members() else {
        return false;
    };
    let string = |key: &str| {
        members
            .iter()
            .any(|(k, v)| k == key && v.get().starts_with('"'))
    };
    string("action") != string("observation") && !members.iter().any(|(k, _)| k == "role")
}

/// The `id` of a stored event, if it has one.
fn event_id(raw: &str) -> Option<i64> {
    let raw = parse_raw(raw).ok()?;
    serde_json::from_str(member(raw, "id")?.get()).ok()
}

/// One event, as read.
struct Event {
    span: Span,
    line: usize,
    value: Value,
}

impl Event {
    fn id(&self) -> Option<i64> {
        self.value.get("id").and_then(Value::as_i64)
    }
    fn action(&self) -> Option<&str> {
        self.value.get("action").and_then(Value::as_str)
    }
    fn observation(&self) -> Option<&str> {
        self.value.get("observation").and_then(Value::as_str)
    }
    fn source(&self) -> Option<&str> {
        self.value.get("source").and_then(Value::as_str)
    }
}

/// An action's arguments: its `args`, or (flat form) the event itself.
fn args(value: &Value) -> &Value {
    value.get("args").filter(|a| a.is_object()).unwrap_or(value)
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The ids a condensation action forgets.
fn forgotten(value: &Value) -> Vec<i64> {
    let a = args(value);
    if let Some(ids) = a.get("forgotten_event_ids").and_then(Value::as_array) {
        return ids.iter().filter_map(Value::as_i64).collect();
    }
    let start = a.get("forgotten_events_start_id").and_then(Value::as_i64);
    let end = a.get("forgotten_events_end_id").and_then(Value::as_i64);
    match (start, end) {
        (Some(s), Some(e)) if e >= s && e - s < 10_000_000 => (s..=e).collect(),
        _ => Vec::new(),
    }
}

/// The summary a condensation action carries.
fn summary_of(value: &Value) -> Option<&str> {
    args(value).get("summary").and_then(Value::as_str)
}

/// Where the text of a text-like event lives, so a replacement goes to the same place.
fn text_path(value: &Value) -> Vec<&'static str> {
    let nested = value.get("args").is_some_and(Value::is_object);
    let pick = |key: &'static str| {
        if nested { vec!["args", key] } else { vec![key] }
    };
    match value.get("action").and_then(Value::as_str) {
        Some("finish") => {
            let a = args(value);
            if !str_at(a, "thought").is_empty() {
                pick("thought")
            } else if !str_at(a, "final_thought").is_empty() {
                pick("final_thought")
            } else {
                vec!["message"]
            }
        }
        Some(_) => pick("content"),
        None => vec!["content"],
    }
}

fn text_at<'a>(value: &'a Value, path: &[&str]) -> &'a str {
    let mut v = value;
    for key in path {
        match v.get(key) {
            Some(next) => v = next,
            None => return "",
        }
    }
    v.as_str().unwrap_or("")
}

/// `raw` with the text that [`text_path`] names replaced by `text` (a message action's
/// `message` copy too).
fn replace_text(raw: &str, text: &str) -> Option<String> {
    let value: Value = crate::json::lenient::value(raw).ok()?;
    let path = text_path(&value);
    let mut out = replace_path(raw, &path, &quote(text))?;
    if value.get("action").and_then(Value::as_str) == Some("message")
        && path.len() == 2
        && value.get("message").is_some_and(Value::is_string)
    {
        out = replace_member(&out, "message", &quote(text)).unwrap_or(out);
    }
    Some(out)
}

/// `raw` with the member at `path` (object keys) replaced by the JSON text `new`.
fn replace_path(raw: &str, path: &[&str], new: &str) -> Option<String> {
    let (first, rest) = path.split_first()?;
    if rest.is_empty() {
        return replace_member(raw, first, new);
    }
    let parsed = parse_raw(raw).ok()?;
    let sub = member(parsed, first)?;
    let inner = replace_path(sub.get(), rest, new)?;
    let span = span_of(raw, sub.get());
    Some(format!("{}{inner}{}", &raw[..span.start], &raw[span.end..]))
}

fn read_history(doc: &Doc, c: usize, found: Found) -> Result<Conversation, ReadError> {
    let elements = pairs::events(found.list);
    let base = doc.span_of(found.list).start;
    let mut events = Vec::with_capacity(elements.len());
    let mut relative = Vec::with_capacity(elements.len());
    for element in elements {
        let span = doc.span_of(element);
        let line = doc.line_of(span.start);
        let value: Value = crate::json::lenient::value(element.get())
            .map_err(|e| value_error(line, span.start, &e))?;
        relative.push(span.start - base..span.end - base);
        events.push(Event { span, line, value });
    }
    let items = build(events, c);
    Ok(Conversation {
        span: doc.span_of(found.list),
        location: found.location,
        items,
        preamble: Vec::new(),
        layout: ListLayout::Array(if pairs::is_pair_list(found.list) {
            pairs::layout(found.list)
        } else {
            ArrayLayout::of(found.list.get(), &relative)
        }),
        model: None,
        context_window: None,
    })
}

/// The items of one event list, as OpenHands turns the events into messages.
fn build(mut events: Vec<Event>, c: usize) -> Vec<Item> {
    // Condensations: what they forget, and which one's summary is sent.
    let mut forgot: HashSet<i64> = HashSet::new();
    let mut latest_summary = None;
    for (at, e) in events.iter().enumerate() {
        match e.action() {
            Some("condensation") => {
                forgot.extend(forgotten(&e.value));
                if summary_of(&e.value).is_some() {
                    latest_summary = Some(at);
                }
            }
            Some("condensation_request") => {}
            _ => continue,
        }
        forgot.extend(e.id());
    }
    // OpenHands puts the first user message back when a condenser forgot it.
    let first_user = events
        .iter()
        .position(|e| e.action() == Some("message") && e.source().is_none_or(|s| s == "user"));
    let mut items = Vec::with_capacity(events.len());
    let mut synthetic = 0;
    // Open CodeAct-style actions: (event id, call id).
    let mut open: Vec<(Option<i64>, String)> = Vec::new();
    let mut user_runs: HashSet<i64> = HashSet::new();
    let mut responses: HashSet<String> = HashSet::new();
    let mut seen_message = false;
    for (at, e) in events.iter_mut().enumerate() {
        let mut item = Item::new(e.span.clone(), e.line, Role::None, Kind::NonContext);
        if let Some(action) = e.action().map(str::to_string) {
            read_action(e, &action, &mut item, seen_message);
            item.in_context = item.kind != Kind::NonContext;
            seen_message |= action == "message";
            if action == "condensation" {
                item.in_context = Some(at) == latest_summary;
            }
            if item.kind == Kind::ToolCall && item.calls.is_empty() {
                synthetic += 1;
                let id = format!("openhands-{c}-{synthetic}");
                item.calls.push(ToolCall {
                    id: id.clone(),
                    name: action.clone(),
                });
                open.push((e.id(), id));
            }
            if action == "run" && item.kind == Kind::User {
                user_runs.extend(e.id());
            }
            if let Some(response) = &item.message_id {
                if !responses.insert(response.clone()) {
                    // The response's text is counted with its first action.
                    item.parts.retain(|p| p.kind != PartKind::Text);
                }
            }
        } else if let Some(observation) = e.observation().map(str::to_string) {
            let cause = e.value.get("cause").and_then(Value::as_i64);
            read_observation(e, &observation, &mut item);
            item.in_context = item.kind != Kind::NonContext;
            if item.kind == Kind::User && item.results.is_empty() {
                let answers = match cause {
                    Some(cause) => open.iter().rposition(|(id, _)| *id == Some(cause)),
                    None if !SILENT_OBSERVATIONS.contains(&observation.as_str()) => {
                        open.len().checked_sub(1)
                    }
                    None => None,
                };
                if let Some(k) = answers {
                    let (_, id) = open.remove(k);
                    item.results.push(id);
                    item.role = Role::Tool;
                    item.kind = Kind::ToolResult;
                    for part in &mut item.parts {
                        part.kind = PartKind::ToolResult;
                    }
                } else if cause.is_some_and(|c| user_runs.contains(&c)) {
                    if let Some(part) = item.parts.first_mut() {
                        part.text = format!(
                            "\nObserved result of command executed by user:\n{}",
                            part.text
                        );
                    }
                }
            }
        }
        if e.id().is_some_and(|id| forgot.contains(&id))
            && Some(at) != first_user
            && e.action() != Some("condensation")
        {
            item.in_context = false;
        }
        items.push(item);
    }
    drop_unmatched(&mut items);
    items
}

/// Fills `item` from an action event.
fn read_action(e: &mut Event, action: &str, item: &mut Item, seen_message: bool) {
    let source = e.source().map(str::to_string);
    let from_user = match source.as_deref() {
        Some(s) => s == "user",
        // The flat form has no source: the task comes first, and the agent's messages wait
        // for an answer.
        None => {
            action == "message"
                && (!seen_message || args(&e.value).get("wait_for_response") != Some(&json!(true)))
        }
    };
    let metadata = call_metadata(&e.value);
    let value = &mut e.value;
    match action {
        "system" => {
            item.role = Role::System;
            item.kind = Kind::System;
            item.parts
                .push(Part::new(PartKind::Text, str_at(args(value), "content")));
            if let Some(tools) = args(value).get("tools").filter(|t| !t.is_null()) {
                item.parts
                    .push(Part::new(PartKind::ToolDefinitions, tools.to_string()));
            }
        }
        "message" | "finish" => {
            let text = text_at(value, &text_path(value)).to_string();
            item.role = if from_user {
                Role::User
            } else {
                Role::Assistant
            };
            item.kind = if from_user {
                Kind::User
            } else {
                Kind::AssistantText
            };
            item.parts.push(Part::new(PartKind::Text, text));
            let a = args(value);
            let images = a.get("image_urls").or_else(|| a.get("images_urls"));
            for _ in images.and_then(Value::as_array).into_iter().flatten() {
                item.parts.push(Part::new(PartKind::Media, "[image_url]"));
            }
        }
        "condensation" => match summary_of(value) {
            Some(summary) => {
                item.role = Role::User;
                item.kind = Kind::Summary;
                item.ctxc_summary = summary.starts_with(SUMMARY_MARKER);
                item.parts.push(Part::new(PartKind::Text, summary));
            }
            None => item.anchor = true,
        },
        _ if TOOL_ACTIONS.contains(&action) => {
            if action == "run" && from_user && metadata.is_none() {
                item.role = Role::User;
                item.kind = Kind::User;
                let command = str_at(args(value), "command");
                item.parts.push(Part::new(
                    PartKind::Text,
                    format!("User executed the command:\n{command}"),
                ));
                return;
            }
            item.role = Role::Assistant;
            item.kind = Kind::ToolCall;
            match metadata {
                Some(m) => {
                    if !m.content.trim().is_empty() {
                        item.parts.push(Part::new(PartKind::Text, m.content));
                    }
                    item.parts
                        .push(Part::new(PartKind::ToolName, m.name.clone()));
                    let arguments = m.arguments.unwrap_or_else(|| args(value).to_string());
                    item.parts
                        .push(Part::new(PartKind::ToolArguments, arguments));
                    item.calls.push(ToolCall {
                        id: m.call_id,
                        name: m.name,
                    });
                    item.message_id = m.response;
                }
                None => {
                    let a = args(value);
                    let thought = str_at(a, "thought");
                    if !thought.is_empty() {
                        item.parts.push(Part::new(PartKind::Text, thought));
                    }
                    let command = [
                        "command",
                        "code",
                        "browser_actions",
                        "url",
                        "path",
                        "content",
                    ]
                    .iter()
                    .find_map(|k| a.get(*k).and_then(Value::as_str))
                    .map_or_else(|| a.to_string(), str::to_string);
                    item.parts.push(Part::new(PartKind::ToolArguments, command));
                }
            }
        }
        _ => {}
    }
}

/// Fills `item` from an observation event; one that answers nothing yet is left a user
/// message for the caller to pair.
fn read_observation(e: &mut Event, observation: &str, item: &mut Item) {
    let metadata = call_metadata(&e.value);
    let content = match e.value.get_mut("content") {
        Some(Value::String(s)) => std::mem::take(s),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    if SILENT_OBSERVATIONS.contains(&observation) {
        return;
    }
    item.is_error = observation == "error";
    if let Some(m) = metadata {
        item.role = Role::Tool;
        item.kind = Kind::ToolResult;
        item.results.push(m.call_id);
        item.parts.push(Part::new(PartKind::ToolResult, content));
        return;
    }
    match observation {
        "condense" => {
            item.role = Role::User;
            item.kind = Kind::Summary;
            item.ctxc_summary = content.starts_with(SUMMARY_MARKER);
            item.parts.push(Part::new(PartKind::Text, content));
        }
        "recall" => {
            let extras = e.value.get("extras").unwrap_or(&e.value);
            let mut texts: Vec<String> = [
                "repo_instructions",
                "additional_agent_instructions",
                "conversation_instructions",
            ]
            .iter()
            .map(|k| str_at(extras, k).to_string())
            .filter(|t| !t.is_empty())
            .collect();
            let knowledge = extras.get("microagent_knowledge").and_then(Value::as_array);
            for k in knowledge.into_iter().flatten() {
                texts.push(str_at(k, "content").to_string());
            }
            if !texts.is_empty() {
                item.role = Role::User;
                item.kind = Kind::User;
                item.meta = true;
                item.parts.push(Part::new(PartKind::Text, texts.join("\n")));
            }
        }
        _ => {
            item.role = Role::User;
            item.kind = Kind::User;
            item.parts.push(Part::new(PartKind::Text, content));
        }
    }
}

/// What an event's `tool_call_metadata` says of its call.
struct Metadata {
    call_id: String,
    name: String,
    /// The model response's id: actions of one response are one assistant message.
    response: Option<String>,
    /// The response's text.
    content: String,
    /// This call's arguments as the model wrote them.
    arguments: Option<String>,
}

fn call_metadata(value: &Value) -> Option<Metadata> {
    let m = value.get("tool_call_metadata").filter(|m| m.is_object())?;
    let call_id = m.get("tool_call_id").and_then(Value::as_str)?.to_string();
    let name = str_at(m, "function_name").to_string();
    let response = m.get("model_response");
    let message = response
        .and_then(|r| r.get("choices"))
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"));
    let content = message.map_or("", |m| str_at(m, "content")).to_string();
    let arguments = message
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .and_then(|calls| {
            calls
                .iter()
                .find(|c| c.get("id").and_then(Value::as_str) == Some(call_id.as_str()))
        })
        .and_then(|c| c.get("function"))
        .and_then(|f| f.get("arguments"))
        .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string));
    let response = response
        .and_then(|r| r.get("id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Some(Metadata {
        call_id,
        name,
        response,
        content,
        arguments,
    })
}

/// Leaves out of the context the calls no result answers and the results no call asked for,
/// as OpenHands' `_filter_unmatched_tool_calls` does.
fn drop_unmatched(items: &mut [Item]) {
    let live = |i: &&mut Item| i.in_context;
    let calls: HashSet<String> = items
        .iter_mut()
        .filter(live)
        .flat_map(|i| i.calls.iter().map(|c| c.id.clone()).collect::<Vec<_>>())
        .collect();
    let results: HashSet<String> = items
        .iter_mut()
        .filter(live)
        .flat_map(|i| i.results.clone())
        .collect();
    for item in items.iter_mut().filter(|i| i.in_context) {
        if !item.results.is_empty() && item.results.iter().all(|r| !calls.contains(r)) {
            item.in_context = false;
        }
        if !item.calls.is_empty() {
            item.calls.retain(|c| results.contains(&c.id));
            if item.calls.is_empty() {
                item.in_context = false;
            }
        }
    }
}

/// What the writer needs to know of each event written.
#[derive(Default)]
struct Written {
    id: Option<i64>,
    /// A condensation (or condensation request) action: never in the view itself.
    condensation: bool,
    /// An event the agent's history leaves out (state changes, null events), so no place in
    /// the view counts it.
    unlisted: bool,
    forgets: Vec<i64>,
    /// The summary text, for a condensation carrying one the model was sent.
    summary: Option<String>,
}

/// Renders an edited event list: each new summary becomes a `condensation` action (see the
/// module doc), placed where the events it forgets were.
fn render_events(
    adapter: &OpenHands,
    t: &Transcript,
    conv: &Conversation,
    items: &[OutItem],
) -> Vec<String> {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    let mut written: Vec<Written> = items
        .iter()
        .map(|out| match out {
            OutItem::Summary { replaces, .. } => {
                let forgets: Vec<i64> = replaces.clone().filter_map(|i| event_id(raw(i))).collect();
                Written {
                    id: forgets.first().copied(),
                    condensation: true,
                    unlisted: false,
                    forgets,
                    summary: None,
                }
            }
            other => {
                let i = other.kept().expect("only summaries are new");
                let Ok(value) = crate::json::lenient::value(raw(i)) else {
                    return Written::default();
                };
                let action = value.get("action").and_then(Value::as_str);
                let condensation = matches!(action, Some("condensation" | "condensation_request"));
                let observation = value.get("observation").and_then(Value::as_str);
                let unlisted = matches!(action, Some("null" | "change_agent_state"))
                    || matches!(observation, Some("null" | "agent_state_changed"));
                let sent = conv.items[i].in_context && conv.items[i].kind == Kind::Summary;
                Written {
                    id: value.get("id").and_then(Value::as_i64),
                    condensation,
                    unlisted,
                    forgets: if action == Some("condensation") {
                        forgotten(&value)
                    } else {
                        Vec::new()
                    },
                    summary: (condensation && sent)
                        .then(|| summary_of(&value).map(str::to_string))
                        .flatten(),
                }
            }
        })
        .collect();
    // OpenHands sends the summary of the last condensation only. The last new summary is
    // written as one when no kept summary the model was sent comes after it, and carries the
    // texts of the kept ones it shadows; any other new summary is written as the observation
    // OpenHands makes of a summary (`condense`), which the model is sent where it stands.
    let last_new = items
        .iter()
        .rposition(|o| matches!(o, OutItem::Summary { .. }));
    let last_sent = written.iter().rposition(|w| w.summary.is_some());
    let last = last_new.filter(|l| last_sent.is_none_or(|s| s < *l));
    for (k, w) in written.iter_mut().enumerate() {
        if matches!(items[k], OutItem::Summary { .. }) && Some(k) != last {
            w.condensation = false;
            w.forgets.clear();
        }
    }
    let mut hidden: HashSet<i64> = HashSet::new();
    for w in written.iter().filter(|w| w.condensation) {
        hidden.extend(w.forgets.iter().copied());
        hidden.extend(w.id);
    }
    let mut folded: Vec<String> = Vec::new();
    let mut in_view = 0;
    let mut texts = Vec::with_capacity(items.len());
    for (k, (out, w)) in items.iter().zip(&written).enumerate() {
        match out {
            OutItem::Summary { text, replaces } if Some(k) == last => {
                folded.push(text.clone());
                let text = folded.join("\n\n");
                let ids = &w.forgets;
                texts.push(condensation(t, conv, replaces.start, ids, &text, in_view));
            }
            OutItem::Summary { text, replaces } => {
                texts.push(condense(t, conv, replaces.start, w.id, text));
            }
            OutItem::Keep(i) => {
                if let Some(summary) = &w.summary {
                    let body = summary.strip_prefix(SUMMARY_MARKER).unwrap_or(summary);
                    folded.push(body.trim_start_matches('\n').to_string());
                }
                texts.push(raw(*i).to_string());
            }
            other => texts.push(adapter.render(t, conv, other)),
        }
        if !w.condensation && !w.unlisted && w.id.is_none_or(|id| !hidden.contains(&id)) {
            in_view += 1;
        }
    }
    texts
}

/// Whether the list's events are in the serialized form (`args`, `extras`) rather than the
/// flat one.
fn nested(t: &Transcript, conv: &Conversation) -> bool {
    conv.items.iter().take(8).any(|item| {
        parse_raw(&t.source[item.span.clone()])
            .is_ok_and(|raw| member(raw, "args").is_some() || member(raw, "extras").is_some())
    })
}

/// The `timestamp` of item `at`, if it has one.
fn timestamp(t: &Transcript, conv: &Conversation, at: usize) -> Option<Value> {
    let raw = parse_raw(&t.source[conv.items.get(at)?.span.clone()]).ok()?;
    serde_json::from_str(member(raw, "timestamp")?.get()).ok()
}

/// An `AgentCondensationObservation` (`condense`) holding `text` as a ctxc summary, in place
/// of item `at` and the ones after it, with the id `id`.
fn condense(t: &Transcript, conv: &Conversation, at: usize, id: Option<i64>, text: &str) -> String {
    let summary = format!("{SUMMARY_MARKER}\n{text}");
    let mut event = serde_json::Map::new();
    if nested(t, conv) {
        if let Some(id) = id {
            event.insert("id".into(), json!(id));
        }
        if let Some(ts) = timestamp(t, conv, at) {
            event.insert("timestamp".into(), ts);
        }
        event.insert("source".into(), json!("agent"));
        event.insert("message".into(), json!(summary));
        event.insert("observation".into(), json!("condense"));
        event.insert("content".into(), json!(summary));
        event.insert("extras".into(), json!({}));
    } else {
        event.insert("content".into(), json!(summary));
        event.insert("observation".into(), json!("condense"));
    }
    to_string_styled(&Value::Object(event), element_indent(conv))
}

/// A `condensation` action forgetting `forgets` with `text` as its summary, inserted at view
/// position `offset` (counted as OpenHands counts it: in the agent's history, which leaves out
/// state changes and null events, less forgotten events and condensation actions), written in the style of the list's events (`at`: the first event it
/// replaces).
fn condensation(
    t: &Transcript,
    conv: &Conversation,
    at: usize,
    forgets: &[i64],
    text: &str,
    offset: usize,
) -> String {
    let summary = format!("{SUMMARY_MARKER}\n{text}");
    let fields = json!({
        "forgotten_event_ids": forgets,
        "forgotten_events_start_id": null,
        "forgotten_events_end_id": null,
        "summary": summary,
        "summary_offset": offset,
    });
    let event = if nested(t, conv) {
        let mut event = serde_json::Map::new();
        if let Some(id) = forgets.first() {
            event.insert("id".into(), json!(id));
        }
        if let Some(ts) = timestamp(t, conv, at) {
            event.insert("timestamp".into(), ts);
        }
        event.insert("source".into(), json!("agent"));
        event.insert("message".into(), json!(format!("Summary: {summary}")));
        event.insert("action".into(), json!("condensation"));
        event.insert("args".into(), fields);
        Value::Object(event)
    } else {
        let mut event = fields.as_object().cloned().unwrap_or_default();
        event.insert("action".into(), json!("condensation"));
        Value::Object(event)
    };
    to_string_styled(&event, element_indent(conv))
}

#[cfg(test)]
mod tests;
