//! ShareGPT conversations: `{"conversations": [{"from": ..., "value": ...}], "system", "tools"}`,
//! the dataset format of FastChat and LLaMA-Factory, including LLaMA-Factory's function-calling
//! variant (`function_call` turns holding `{"name", "arguments"}` JSON, `observation` turns
//! holding the tool's output).
//!
//! Containers: a JSON array of conversation objects, one conversation object, or JSONL with one
//! per line; each object's turn list is one conversation, everything else in the file is left
//! alone. The turns sit under `conversations` (LLaMA-Factory lets a dataset rename the column,
//! so `conversation` and `messages` are accepted too, but only when the turns use `from`: a
//! `messages` list of `role`/`content` objects is OpenAI's). The object's `system` and `tools`
//! go to the model with every turn, so they are the preamble.
//!
//! Turns have no ids, so calls get synthetic ones (`sharegpt-call-<conversation>-<n>`) and an
//! `observation` answers every call of the latest `function_call` turn (LLaMA-Factory puts
//! parallel calls in one `function_call` turn as a JSON list, and their outputs in one
//! observation). Accepted `from` values: human/user, gpt/assistant/model/chatgpt/bing/bard (the
//! names found in ShareGPT dumps), system, function_call, observation/tool/function_response
//! (the latter two as written by other function-calling conversions, e.g. NousResearch
//! hermes-function-calling uses `tool`).
//!
//! `check` applies LLaMA-Factory's rules, which drop a conversation that breaks them: after an
//! optional leading `system` turn, turns alternate human/observation (odd positions) and
//! gpt/function_call (even), so the count is even and the last turn is the model's; an
//! observation follows a function_call; a function_call's value is `{"name", "arguments"}`
//! JSON (or a list of them).

use super::common::element_indent;
use super::{
    Adapter, Conversation, Doc, Finding, Item, Kind, ListLayout, OutItem, Part, PartKind,
    ReadError, ReadOptions, Role, SUMMARY_MARKER, Transcript,
};
use crate::json::{Node, 
    ArrayLayout, Span, member, parse_raw, quote, replace_member,
    to_string_styled,
};
use serde_json::Value;

/// Keys under which a conversation object keeps its turns, the default first.
const TURN_KEYS: [&str; 3] = ["conversations", "conversation", "messages"];

/// The ShareGPT adapter.
pub struct ShareGpt;

impl Adapter for ShareGpt {
    fn content_keys(&self) -> &'static [&'static str] {
        &["value", "content"]
    }

    fn detect(&self, doc: &Doc) -> bool {
        find_conversations(doc)
            .iter()
            .any(|f| f.list.elements().is_some_and(|turns| !turns.is_empty()))
    }

    fn read(
        &self,
        doc: &Doc,
        _opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let found = find_conversations(doc);
        if found.is_empty() {
            return Err(ReadError::none_found("ShareGPT conversation", "", doc));
        }
        for (c, f) in found.into_iter().enumerate() {
            each(read_conversation(doc, c, f)?);
        }
        Ok(describe_container(doc).to_string())
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        match out {
            OutItem::Keep(i) | OutItem::DropThinking(i) | OutItem::ReplaceArguments(i, _) => {
                raw(*i).to_string()
            }
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            OutItem::Summary { text, .. } => {
                let turn = serde_json::json!({
                    "from": "human",
                    "value": format!("{SUMMARY_MARKER}\n{text}"),
                });
                to_string_styled(&turn, element_indent(conv))
            }
            OutItem::ReplaceResult(i, text) | OutItem::ReplaceText(i, text) => {
                replace_member(raw(*i), "value", &quote(text))
                    .unwrap_or_else(|| raw(*i).to_string())
            }
        }
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        check_turns(source, conv)
    }

    fn strict_alternation(&self) -> bool {
        true
    }
}

/// A conversation's turn list, where it is, and the object holding it.
struct Found<'d, 'a> {
    location: String,
    list: &'d Node<'a>,
    owner: &'d Node<'a>,
}

fn find_conversations<'d, 'a>(doc: &'d Doc<'a>) -> Vec<Found<'d, 'a>> {
    super::containers::each_record(doc, turn_list)
}

/// The turn list of a conversation object: an array under a [`TURN_KEYS`] key whose elements
/// are all `from` turns.
fn turn_list<'d, 'a>(owner: &'d Node<'a>, location: String) -> Option<Found<'d, 'a>> {
    let members = owner.members()?;
    TURN_KEYS.iter().find_map(|key| {
        let (_, list) = members.iter().find(|(k, _)| k == key)?;
        let turns = list.elements()?;
        turns.iter().all(is_turn).then(|| Found {
            location: format!("{location}/{key}"),
            list,
            owner,
        })
    })
}

/// An object with a string `from`.
fn is_turn(node: &Node) -> bool {
    node.member("from").is_some_and(Node::is_string)
}

fn describe_container(doc: &Doc) -> &'static str {
    match doc {
        Doc::Lines { .. } => "jsonl, one conversation per line",
        Doc::Json { root, .. } if root.get().starts_with('[') => "json array of conversations",
        Doc::Json { .. } => "json conversation object",
    }
}

fn read_conversation(doc: &Doc, c: usize, found: Found) -> Result<Conversation, ReadError> {
    let turns = found.list.elements().unwrap_or_default();
    let base = doc.span_of(found.list).start;
    let mut items = Vec::with_capacity(turns.len());
    let mut relative = Vec::with_capacity(turns.len());
    for turn in turns {
        let span = doc.span_of(turn);
        relative.push(span.start - base..span.end - base);
        items.push(parse_turn(doc, turn.get(), span)?);
    }
    pair_calls(&mut items, c);
    Ok(Conversation {
        span: doc.span_of(found.list),
        location: found.location,
        items,
        preamble: preamble_of(found.owner),
        layout: ListLayout::Array(ArrayLayout::of(found.list.get(), &relative)),
        model: None,
        context_window: None,
    })
}

fn parse_turn(doc: &Doc, text: &str, span: Span) -> Result<Item, ReadError> {
    let line = doc.line_of(span.start);
    let value: Value = crate::json::lenient::value(text)
        .map_err(|e| super::common::value_error(line, span.start, &e))?;
    let text = match value.get("value") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    };
    let from = value.get("from").and_then(Value::as_str).unwrap_or("");
    let (role, kind) = match from {
        "human" | "user" if text.starts_with(SUMMARY_MARKER) => (Role::User, Kind::Summary),
        "human" | "user" => (Role::User, Kind::User),
        "gpt" | "assistant" | "model" | "chatgpt" | "bing" | "bard" => {
            (Role::Assistant, Kind::AssistantText)
        }
        "system" => (Role::System, Kind::System),
        "function_call" => (Role::Assistant, Kind::ToolCall),
        "observation" | "tool" | "function_response" => (Role::Tool, Kind::ToolResult),
        _ => (Role::None, Kind::NonContext),
    };
    let mut item = Item::new(span, line, role, kind);
    item.ctxc_summary = kind == Kind::Summary;
    match kind {
        Kind::ToolCall => super::openai::push_value_calls(&text, &mut item),
        Kind::ToolResult => item.parts.push(Part::new(PartKind::ToolResult, text)),
        _ => item.parts.push(Part::new(PartKind::Text, text)),
    }
    Ok(item)
}

/// Gives calls their synthetic ids and lets each observation answer the calls of the latest
/// `function_call` turn that are still open.
fn pair_calls(items: &mut [Item], c: usize) {
    let mut n = 0;
    let mut open: Vec<String> = Vec::new();
    for item in items {
        if item.kind == Kind::ToolCall {
            open.clear();
            for call in &mut item.calls {
                n += 1;
                call.id = format!("sharegpt-call-{c}-{n}");
                open.push(call.id.clone());
            }
        } else if item.kind == Kind::ToolResult {
            item.results = std::mem::take(&mut open);
        }
    }
}

/// The conversation object's `system` prompt and `tools` (a JSON string in LLaMA-Factory data).
fn preamble_of(owner: &Node) -> Vec<Part> {
    let mut parts = Vec::new();
    for (key, kind) in [
        ("tools", PartKind::ToolDefinitions),
        ("system", PartKind::Text),
    ] {
        let Some(value) =
            owner.member(key).and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
        else {
            continue;
        };
        let text = match value {
            Value::String(s) => s,
            Value::Null => continue,
            other => other.to_string(),
        };
        if !text.is_empty() {
            parts.push(Part::new(kind, text));
        }
    }
    parts
}

/// LLaMA-Factory's rules (see the module doc). Alternation stops at the first bad turn, as
/// LLaMA-Factory does, so one misplaced turn gives one finding.
fn check_turns(source: &str, conv: &Conversation) -> Vec<Finding> {
    let mut findings = Vec::new();
    let skip = usize::from(conv.items.first().is_some_and(|i| i.role == Role::System));
    let turns = &conv.items[skip..];
    for (k, item) in turns.iter().enumerate() {
        let (ok, expected) = if k % 2 == 0 {
            (
                matches!(item.role, Role::User | Role::Tool),
                "human or observation",
            )
        } else {
            (item.role == Role::Assistant, "gpt or function_call")
        };
        if !ok {
            let from = from_of(&source[item.span.clone()]);
            findings.push(Finding::new(
                item.line,
                format!("turn {} is '{from}' where {expected} must come: turns must alternate human/observation and gpt/function_call", k + skip + 1),
            ));
            break;
        }
    }
    if turns.len() % 2 == 1 {
        let last = &turns[turns.len() - 1];
        findings.push(Finding::new(last.line, "the conversation must end with a gpt or function_call turn (an even number of turns after system)"));
    }
    for (i, item) in conv.items.iter().enumerate() {
        if item.kind == Kind::ToolResult && (i == 0 || conv.items[i - 1].kind != Kind::ToolCall) {
            findings.push(Finding::new(
                item.line,
                "an observation must follow a function_call turn",
            ));
        }
        if item.kind == Kind::ToolCall && item.calls.iter().any(|c| c.name.is_empty()) {
            findings.push(Finding::new(
                item.line,
                "function_call value is not {\"name\", \"arguments\"} JSON",
            ));
        }
    }
    findings
}

fn from_of(turn: &str) -> String {
    parse_raw(turn)
        .ok()
        .and_then(|r| member(r, "from"))
        .and_then(|f| serde_json::from_str(f.get()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{findings, fixture, read_str};
    use super::super::{Format, check};
    use super::*;

    #[test]
    fn detects_every_container_and_nothing_else() {
        let object = r#"{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}"#;
        for (src, container) in [
            (
                fixture("sharegpt/toolcall.json"),
                "json array of conversations",
            ),
            (
                format!("{object}\n{object}\n"),
                "jsonl, one conversation per line",
            ),
            (object.replace(", {", ",\n{"), "json conversation object"),
        ] {
            let t = read_str(&src);
            assert_eq!(
                (t.format, t.container.as_str()),
                (Format::ShareGpt, container)
            );
        }
        for src in [
            r#"[{"messages": [{"role": "user", "content": "<image>Who?"}], "images": ["a.jpg"]}]"#,
            r#"[{"role": "user", "content": "hi"}]"#,
            r#"[{"conversations": []}]"#,
            r#"{"type": "user", "message": {"role": "user", "content": "hi"}}"#,
        ] {
            assert!(!ShareGpt.detect(&Doc::parse(src).unwrap()), "{src}");
        }
    }

    #[test]
    fn reads_calls_observations_and_preamble() {
        let t = read_str(&fixture("sharegpt/toolcall.json"));
        assert_eq!(t.conversations.len(), 2);
        let conv = &t.conversations[0];
        assert_eq!(conv.location, "/0/conversations");
        let kinds: Vec<Kind> = conv.items.iter().map(|i| i.kind).collect();
        use Kind::*;
        assert_eq!(kinds, [User, ToolCall, ToolResult, AssistantText]);
        assert_eq!(conv.items[1].calls[0].id, "sharegpt-call-0-1");
        assert_eq!(conv.items[1].calls[0].name, "get_weather");
        assert_eq!(conv.items[1].parts[1].text, r#"{"city":"Paris"}"#);
        assert_eq!(conv.items[2].results, ["sharegpt-call-0-1"]);
        assert_eq!(conv.preamble[0].kind, PartKind::ToolDefinitions);
        assert_eq!(conv.preamble[1].text, "You are a weather bot.");
        // Parallel calls in one turn are all answered by the one observation after them.
        let parallel = &t.conversations[1];
        assert_eq!(parallel.items[1].calls.len(), 2);
        assert_eq!(
            parallel.items[2].results,
            ["sharegpt-call-1-1", "sharegpt-call-1-2"]
        );
        assert_eq!(parallel.groups(), vec![0..1, 1..3, 3..4, 4..5, 5..6]);
        assert!(check(&t).is_empty(), "{:?}", check(&t));
        let all: Vec<_> = t
            .conversations
            .iter()
            .map(|c| Some((0..c.items.len()).map(OutItem::Keep).collect()))
            .collect();
        assert_eq!(t.write(&all), t.source);
    }

    #[test]
    fn summary_and_replacements_read_back() {
        let t = read_str(&fixture("sharegpt/toolcall.json"));
        let out = t.write(&[
            Some(vec![
                OutItem::Summary {
                    text: "asked for weather".into(),
                    replaces: 0..1,
                },
                OutItem::Keep(1),
                OutItem::ReplaceResult(2, "[masked]".into()),
                OutItem::ReplaceText(3, "Sunny.".into()),
            ]),
            None,
        ]);
        assert!(out.contains("\n      {\n        \"from\": \"human\",\n        \"value\": \"[ctxc summary]\\nasked for weather\"\n      },"), "{out}");
        let again = read_str(&out);
        let conv = &again.conversations[0];
        assert_eq!(
            (conv.items[0].kind, conv.items[0].ctxc_summary),
            (Kind::Summary, true)
        );
        assert_eq!(conv.items[2].text(), "[masked]");
        assert_eq!(conv.items[2].results, ["sharegpt-call-0-1"]);
        assert_eq!(conv.items[3].text(), "Sunny.");
        assert!(check(&again).is_empty(), "{:?}", check(&again));
    }

    #[test]
    fn role_order_findings() {
        let text = findings(&fixture("sharegpt/broken-order.json"));
        for want in [
            "4: turn 2 is 'observation' where gpt or function_call must come",
            "4: an observation must follow a function_call turn",
            "5: the conversation must end with a gpt or function_call turn",
            "10: the conversation must end with a gpt or function_call turn",
            "14: function_call value is not",
            "19: turn 3 is 'system' where human or observation must come",
        ] {
            assert!(text.iter().any(|f| f.starts_with(want)), "{want}: {text:?}");
        }
    }
}
