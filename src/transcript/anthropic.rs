//! Anthropic Messages API transcripts: request bodies `{model, system, tools, messages}`,
//! bare message arrays and JSONL, in the same containers as OpenAI messages (the container
//! finding is [`super::containers`]; only the message parsing differs).
//!
//! Content is a string or a list of blocks: `text`, `thinking`, `redacted_thinking` (encrypted,
//! not counted), `tool_use` (a call), `tool_result` (a result, inside a user message), `image`
//! and `document` (media stubs, except plain-text documents, which are text). A user message
//! holding `tool_result` blocks is a [`Kind::ToolResult`] with [`Role::Tool`] even when it also
//! carries text: the API only accepts it right after its `tool_use` message, so it must move
//! with the call, never be treated as a turn of its own.
//!
//! Detection claims a file only when it is clearly Anthropic: a block type OpenAI never uses
//! (`tool_use`, `tool_result`, `thinking`, `redacted_thinking`, `image`/`document` with a
//! `source`), or a top-level `system` beside a list with no `system` message.

use super::common::{block_type, drop_thinking, element_indent, replace_text_blocks};
use super::containers::{MessageReader, Members, ListRef, find_lists, read_lists};
use super::{
    Adapter, Conversation, CopiedRecords, Doc, Finding, Item, Kind, OutItem, Part, PartKind, ReadError,
    ReadOptions, Role, SUMMARY_MARKER, ToolCall, Transcript,
};
use crate::json::{Node, 
    Span, array_elements, member, parse_raw, quote, replace_member, span_of, splice,
    to_string_styled,
};
use serde_json::Value;
use serde_json::value::RawValue;

/// Block types no other chat format uses.
const ANTHROPIC_BLOCKS: [&str; 4] = ["tool_use", "tool_result", "thinking", "redacted_thinking"];

/// The Anthropic Messages API adapter.
pub struct Anthropic;

impl Adapter for Anthropic {
    fn detect(&self, doc: &Doc) -> bool {
        let Ok(lists) = find_lists(doc, None) else {
            return false;
        };
        lists.iter().any(|list| match list {
            ListRef::Array { list, owner, .. } => {
                let messages: Vec<&Node> = list.elements().unwrap_or_default().iter().collect();
                is_anthropic(&messages, *owner)
            }
            ListRef::AllLines => {
                let lines = doc.lines().unwrap_or_default();
                is_anthropic(&lines.iter().map(|l| &l.node).collect::<Vec<_>>(), None)
            }
        })
    }

    fn read(
        &self,
        doc: &Doc,
        opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        read_lists(doc, opts, &MESSAGE, None, each)
    }

    fn read_back(
        &self,
        doc: &Doc,
        opts: &ReadOptions,
        copied: &CopiedRecords,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        read_lists(doc, opts, &MESSAGE, Some(copied), each)
    }

    fn reads_back_copies(&self, source_len: usize) -> bool {
        source_len <= super::COPIES_HELD_MAX_BYTES
    }

    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        match out {
            OutItem::Keep(i) => raw(*i).to_string(),
            OutItem::Strip(i) => super::strip_item(self, t, conv, *i),
            OutItem::Summary { text, .. } => {
                let message = serde_json::json!({
                    "role": "user",
                    "content": format!("{SUMMARY_MARKER}\n{text}"),
                });
                to_string_styled(&message, element_indent(conv))
            }
            OutItem::ReplaceResult(i, text) => {
                replace_results(raw(*i), text).unwrap_or_else(|| raw(*i).to_string())
            }
            OutItem::ReplaceText(i, text) => {
                replace_text(raw(*i), text).unwrap_or_else(|| raw(*i).to_string())
            }
            OutItem::DropThinking(i) => {
                drop_thinking(raw(*i)).unwrap_or_else(|| raw(*i).to_string())
            }
            OutItem::ReplaceArguments(i, edits) => {
                replace_arguments(raw(*i), edits).unwrap_or_else(|| raw(*i).to_string())
            }
        }
    }

    fn drops_thinking_blocks(&self) -> bool {
        true
    }

    fn rewrites_arguments(&self) -> bool {
        true
    }

    fn check(&self, source: &str, conv: &Conversation) -> Vec<Finding> {
        check_messages(source, conv)
    }
}

fn is_anthropic(messages: &[&Node], owner: Option<&Node>) -> bool {
    // Each message's split is kept: the reader (this adapter's or the OpenAI one) takes the
    // members it decodes from it. What lies below (a content list) is split on its own: no
    // reader looks into it again (it decodes `content` whole), and keeping every content
    // list's split would weigh on the whole read.
    let system_outside = owner.is_some_and(|o| o.member("system").is_some())
        && !messages
            .iter()
            .any(|m| role_of(m).as_deref() == Some("system"));
    system_outside || messages.iter().any(|m| has_anthropic_block(m))
}

fn role_of(message: &Node) -> Option<String> {
    serde_json::from_str(message.member("role")?.get()).ok()
}

fn has_anthropic_block(message: &Node) -> bool {
    let Some(content) = message.member("content").map(Node::detached) else {
        return false;
    };
    let Some(blocks) = content.elements() else {
        return false;
    };
    blocks.iter().any(|b| {
        let ty: String = b
            .member("type")
            .and_then(|t| serde_json::from_str(t.get()).ok())
            .unwrap_or_default();
        ANTHROPIC_BLOCKS.contains(&ty.as_str())
            || (matches!(ty.as_str(), "image" | "document") && b.member("source").is_some())
    })
}

/// Reads a message from the members [`parse_message`] looks at (and only those).
pub(super) const MESSAGE: MessageReader = MessageReader {
    keys: &["role", "content"],
    content_keys: &["content"],
    parse: parse_message,
};

/// Fills `item` from one Messages API message.
fn parse_message(value: &mut Members, item: &mut Item) {
    let Some(role) = value.get("role").and_then(Value::as_str) else {
        return;
    };
    item.role = match role {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        // Not valid in `messages`, but say what it is; `check` reports it.
        "system" => Role::System,
        _ => Role::None,
    };
    // A string content is moved out of the value, not copied.
    match value.get_mut("content") {
        Some(Value::String(s)) => item
            .parts
            .push(Part::new(PartKind::Text, std::mem::take(s))),
        Some(Value::Array(blocks)) => blocks.iter().for_each(|b| push_block(b, item)),
        _ => {}
    }
    if item.role == Role::User && !item.results.is_empty() {
        item.role = Role::Tool;
    }
    item.kind = kind_of(item);
    item.ctxc_summary = item.kind == Kind::Summary;
    item.in_context = item.role != Role::None;
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn push_block(block: &Value, item: &mut Item) {
    let ty = str_at(block, "type");
    match ty {
        "text" => item
            .parts
            .push(Part::new(PartKind::Text, str_at(block, "text"))),
        "thinking" => item
            .parts
            .push(Part::new(PartKind::Thinking, str_at(block, "thinking"))),
        // Encrypted reasoning: sent back to the model, but nothing ctxc can count as text.
        "redacted_thinking" => {}
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            // Server and MCP tools are answered inside the same assistant message, so only
            // client `tool_use` calls take part in pairing.
            if ty == "tool_use" {
                item.calls.push(ToolCall {
                    id: str_at(block, "id").to_string(),
                    name: str_at(block, "name").to_string(),
                });
            }
            item.parts
                .push(Part::new(PartKind::ToolName, str_at(block, "name")));
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            item.parts.push(Part::new(PartKind::ToolArguments, input));
        }
        "tool_result" => {
            item.results.push(str_at(block, "tool_use_id").to_string());
            item.is_error |= block.get("is_error") == Some(&Value::Bool(true));
            push_result_content(block.get("content"), item);
        }
        _ if ty.ends_with("_tool_result") => push_result_content(block.get("content"), item),
        "image" | "document" => item.parts.push(media_part(block)),
        _ => {
            if let Some(text) = block.get("text").and_then(Value::as_str) {
                item.parts.push(Part::new(PartKind::Text, text));
            }
        }
    }
}

/// A `tool_result`'s content: a string or a list of text and image blocks.
fn push_result_content(content: Option<&Value>, item: &mut Item) {
    match content {
        Some(Value::String(s)) => item.parts.push(Part::new(PartKind::ToolResult, s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("text").and_then(Value::as_str) {
                    Some(text) => item.parts.push(Part::new(PartKind::ToolResult, text)),
                    None => item.parts.push(media_part(block)),
                }
            }
        }
        _ => {}
    }
}

/// An image or document. The model is charged for the media, not the base64 text, so only a
/// stub is counted; a plain-text document reaches the model as its text.
fn media_part(block: &Value) -> Part {
    let source = block.get("source").unwrap_or(&Value::Null);
    if str_at(source, "type") == "text" {
        return Part::new(PartKind::Text, str_at(source, "data"));
    }
    let ty = block.get("type").and_then(Value::as_str).unwrap_or("media");
    Part::new(PartKind::Media, format!("[{ty}]"))
}

fn kind_of(item: &Item) -> Kind {
    let first = item.parts.first().map_or("", |p| p.text.as_str());
    let all_thinking =
        !item.parts.is_empty() && item.parts.iter().all(|p| p.kind == PartKind::Thinking);
    match item.role {
        Role::User if first.starts_with(SUMMARY_MARKER) => Kind::Summary,
        Role::User => Kind::User,
        Role::Tool => Kind::ToolResult,
        Role::Assistant if !item.calls.is_empty() => Kind::ToolCall,
        Role::Assistant if all_thinking => Kind::Thinking,
        Role::Assistant => Kind::AssistantText,
        Role::System | Role::Developer => Kind::System,
        Role::None => Kind::NonContext,
    }
}

/// The message with the content of every `tool_result` block replaced by `text`; all other
/// bytes (other blocks, ids, `is_error`) unchanged.
/// `message` with its tool-use blocks' `input` rewritten as `edits` say.
fn replace_arguments(message: &str, edits: &[super::CallEdit]) -> Option<String> {
    let content = member(parse_raw(message).ok()?, "content")?;
    let inputs = super::common::block_inputs(content, &CALL_BLOCKS)?;
    super::common::replace_arguments(message, &inputs, edits)
}

/// The block types the reader takes as calls, in the order it reads their arguments.
const CALL_BLOCKS: [&str; 3] = ["tool_use", "server_tool_use", "mcp_tool_use"];

fn replace_results(message: &str, text: &str) -> Option<String> {
    let raw = parse_raw(message).ok()?;
    let blocks = array_elements(member(raw, "content")?)?;
    let mut edits: Vec<(Span, String)> = Vec::new();
    for block in blocks.iter().filter(|b| block_type(b) == "tool_result") {
        match member(block, "content") {
            Some(content) => edits.push((span_of(message, content.get()), quote(text))),
            None => {
                // A result without content: add one just before the block's closing brace.
                let end = span_of(message, block.get()).end - 1;
                let (sep, colon) = match block.get().contains("\": ") {
                    true => (", ", ": "),
                    false => (",", ":"),
                };
                let sep = if block.get()[1..].trim() == "}" {
                    ""
                } else {
                    sep
                };
                edits.push((end..end, format!("{sep}\"content\"{colon}{}", quote(text))));
            }
        }
    }
    (!edits.is_empty()).then(|| splice(message, &edits))
}

fn replace_text(message: &str, text: &str) -> Option<String> {
    let content = member(parse_raw(message).ok()?, "content")?;
    let new_content = if content.get().starts_with('"') {
        quote(text)
    } else {
        replace_text_blocks(content.get(), |b| str_at(b, "type") == "text", text)?
    };
    replace_member(message, "content", &new_content)
}

/// What the API rejects: a first message that is not `user`, roles other than `user` and
/// `assistant`, `tool_result` blocks anywhere but the user message right after the assistant
/// message with the matching `tool_use` (and first in it), and a `tool_use` whose next message
/// does not answer it.
fn check_messages(source: &str, conv: &Conversation) -> Vec<Finding> {
    let mut findings = Vec::new();
    let items = &conv.items;
    for (i, item) in items.iter().enumerate() {
        let raw = parse_raw(&source[item.span.clone()]).ok();
        let role = raw.and_then(|r| role_of(&Node::new(r))).unwrap_or_default();
        if !matches!(role.as_str(), "user" | "assistant") {
            findings.push(Finding::new(
                item.line,
                format!("role '{role}' is not allowed in messages (only user and assistant; the system prompt goes in top-level system)"),
            ));
        } else if i == 0 && role != "user" {
            findings.push(Finding::new(
                item.line,
                "the first message must have role user",
            ));
        }
        let prev = i.checked_sub(1).map(|p| &items[p]);
        for id in &item.results {
            if !prev.is_some_and(|p| p.calls.iter().any(|c| &c.id == id)) {
                findings.push(Finding::new(item.line, format!("tool_result '{id}' must be in the user message right after the assistant message with that tool_use")));
            }
        }
        if let Some(next) = items.get(i + 1) {
            for call in item.calls.iter().filter(|c| !next.results.contains(&c.id)) {
                findings.push(Finding::new(
                    item.line,
                    format!(
                        "tool_use '{}' ({}) has no tool_result in the next message",
                        call.id, call.name
                    ),
                ));
            }
        }
        if !item.results.is_empty() && raw.is_some_and(text_before_results) {
            findings.push(Finding::new(
                item.line,
                "tool_result blocks must come before any other content in their message",
            ));
        }
    }
    findings
}

fn text_before_results(message: &RawValue) -> bool {
    let blocks = member(message, "content")
        .and_then(array_elements)
        .unwrap_or_default();
    let types: Vec<String> = blocks.iter().map(|b| block_type(b)).collect();
    let last_result = types.iter().rposition(|t| t == "tool_result");
    let first_other = types.iter().position(|t| t != "tool_result");
    matches!((first_other, last_result), (Some(o), Some(r)) if o < r)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{findings, fixture, read_str};
    use super::super::{Format, check};
    use super::*;

    #[test]
    fn detects_clear_anthropic_shapes_only() {
        for src in [
            fixture("anthropic/request.json"),
            r#"[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"yo"}]}]"#.into(),
            r#"{"system":"be brief","messages":[{"role":"user","content":"hi"}]}"#.into(),
            "{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"u\"}}]}\n{\"role\":\"assistant\",\"content\":\"a cat\"}\n".into(),
        ] {
            assert_eq!(read_str(&src).format, Format::Anthropic, "{src}");
        }
        for src in [
            r#"[{"role":"system","content":"s"},{"role":"user","content":"hi"}]"#,
            r#"{"system":"s","messages":[{"role":"system","content":"s"}]}"#,
            r#"[{"role":"user","content":[{"type":"image_url","image_url":{"url":"u"}}]}]"#,
            r#"[{"conversations":[{"from":"human","value":"hi"}]}]"#,
            r#"[{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}]"#,
        ] {
            let doc = Doc::parse(src).unwrap();
            assert!(!Anthropic.detect(&doc), "{src}");
        }
    }

    #[test]
    fn reads_blocks_into_parts_calls_and_results() {
        let t = read_str(&fixture("anthropic/request.json"));
        let conv = &t.conversations[0];
        let kinds: Vec<Kind> = conv.items.iter().map(|i| i.kind).collect();
        use Kind::*;
        assert_eq!(
            kinds,
            [
                User,
                ToolCall,
                ToolResult,
                ToolCall,
                ToolResult,
                AssistantText
            ]
        );
        assert_eq!(conv.preamble.len(), 2);
        assert_eq!(conv.preamble[1].text, "You are a careful coding agent.");
        let call = &conv.items[1];
        assert_eq!(call.calls[0].id, "toolu_01");
        assert_eq!(call.parts[0].kind, PartKind::Thinking);
        assert_eq!(call.parts[2].text, r#"{"command":"ls"}"#);
        let result = &conv.items[2];
        assert_eq!(
            (result.role, result.results.as_slice()),
            (Role::Tool, &["toolu_01".to_string()][..])
        );
        assert_eq!(result.parts[0].text, "Cargo.toml\nsrc");
        assert_eq!(conv.items[4].parts[1].kind, PartKind::Media);
        // Redacted thinking is not counted.
        assert!(conv.items[5].parts.iter().all(|p| p.kind == PartKind::Text));
        assert_eq!(conv.groups(), vec![0..1, 1..3, 3..5, 5..6]);
        assert!(check(&t).is_empty(), "{:?}", check(&t));
        let all: Vec<_> = (0..6).map(OutItem::Keep).collect();
        assert_eq!(t.write(&[Some(all)]), t.source);
    }

    #[test]
    fn summary_is_a_user_message_and_reads_back() {
        let t = read_str(&fixture("anthropic/request.json"));
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::Summary {
                text: "ran ls".into(),
                replaces: 1..3,
            },
            OutItem::Keep(3),
            OutItem::Keep(4),
            OutItem::Keep(5),
        ])]);
        assert!(
            out.contains("\"content\": \"[ctxc summary]\\nran ls\""),
            "{out}"
        );
        let again = read_str(&out);
        let item = &again.conversations[0].items[1];
        assert_eq!((item.kind, item.ctxc_summary), (Kind::Summary, true));
        assert!(check(&again).is_empty(), "{:?}", check(&again));
    }

    #[test]
    fn replace_result_splices_every_tool_result_only() {
        let src = r#"[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"x","input":{}},{"type":"tool_use","id":"b","name":"y","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"long"}]},{"type":"tool_result","tool_use_id":"b","is_error":true},{"type":"text","text":"keep me"}]}]"#;
        let t = read_str(src);
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::Keep(1),
            OutItem::ReplaceResult(2, "[masked]".into()),
        ])]);
        assert!(out.ends_with(r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"[masked]"},{"type":"tool_result","tool_use_id":"b","is_error":true,"content":"[masked]"},{"type":"text","text":"keep me"}]}]"#), "{out}");
        let again = read_str(&out);
        assert_eq!(again.conversations[0].items[2].results, ["a", "b"]);
        assert!(check(&again).is_empty());
    }

    #[test]
    fn replace_arguments_splices_the_named_calls_input_only() {
        let src = r#"[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"two calls"},{"type":"tool_use","id":"a","name":"Write","input":{"file_path":"a.py","content":"long"}},{"type":"tool_use","id":"b","name":"Write","input":{"file_path":"b.py","content":"also long"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"},{"type":"tool_result","tool_use_id":"b","content":"ok"}]}]"#;
        let t = read_str(src);
        let edit = |arguments: &str| crate::transcript::CallEdit {
            call: 1,
            arguments: arguments.into(),
        };
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::ReplaceArguments(1, vec![edit(r#"{"file_path":"b.py","content":"cut"}"#)]),
            OutItem::Keep(2),
        ])]);
        assert_eq!(out, src.replace("also long", "cut"));
        assert!(check(&read_str(&out)).is_empty());
        // Arguments that are not an object are never written in an input's place.
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::ReplaceArguments(1, vec![edit("[1]")]),
            OutItem::Keep(2),
        ])]);
        assert_eq!(out, src);
    }

    #[test]
    fn replace_text_keeps_non_text_blocks() {
        let src = r#"[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"text","text":"one"},{"type":"text","text":"two"}]},{"role":"user","content":"plain"}]"#;
        let t = read_str(src);
        let out = t.write(&[Some(vec![
            OutItem::Keep(0),
            OutItem::ReplaceText(1, "short".into()),
            OutItem::ReplaceText(2, "p".into()),
        ])]);
        assert_eq!(
            out,
            r#"[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"text","text":"short"}]},{"role":"user","content":"p"}]"#
        );
    }

    #[test]
    fn orphan_tool_result_is_found() {
        let text = findings(&fixture("anthropic/orphan-tool-result.json"));
        assert!(
            text.iter().any(|f| f
                .starts_with("13: tool_result 'toolu_99' must be in the user message right after")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|f| f
                    .starts_with("13: tool result for call 'toolu_99' has no earlier tool call")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|f| f.starts_with(
                "7: tool_use 'toolu_01' (bash) has no tool_result in the next message"
            )),
            "{text:?}"
        );
    }

    #[test]
    fn wrong_role_order_is_found() {
        let text = findings(&fixture("anthropic/wrong-role-order.jsonl"));
        assert!(
            text.iter()
                .any(|f| f == "1: the first message must have role user"),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|f| f.starts_with("2: role 'system' is not allowed")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|f| f.starts_with("5: tool_result blocks must come before")),
            "{text:?}"
        );
    }
}
