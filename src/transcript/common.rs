//! Helpers every adapter shares: the indentation of new list elements, the span of a JSONL
//! file's records, a value error at its line and byte, the command of a text-based agent
//! action, and edits of Anthropic-style content blocks (Claude Code and Codex messages hold
//! them too). Adapters import these from here, never from each other.

use super::{Conversation, Doc, ListLayout, ReadError};
use crate::json::{
    ArrayLayout, Span, array_elements, member, parse_raw, quote, replace_member, span_of,
};
use serde_json::Value;
use serde_json::value::RawValue;

/// The indentation of list elements, for writing new ones in the same style.
pub(super) fn element_indent(conv: &Conversation) -> Option<&str> {
    match &conv.layout {
        ListLayout::Array(a) => a.indent(),
        ListLayout::Lines { .. } | ListLayout::Single => None,
    }
}

/// The span of a JSONL file's records: from the first line to the end of the file.
pub(super) fn lines_span(doc: &Doc) -> crate::json::Span {
    let src = doc.src();
    let start = doc.lines().and_then(|l| l.first()).map_or(0, |l| l.span.0);
    start..src.len()
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

/// `message` without its `thinking` and `redacted_thinking` blocks, every other block kept
/// byte-for-byte in the array's own layout; `None` when it has none or nothing else.
/// Shared with the Claude Code adapter.
pub(super) fn drop_thinking(message: &str) -> Option<String> {
    let content = member(parse_raw(message).ok()?, "content")?;
    let blocks = array_elements(content)?;
    let spans: Vec<Span> = blocks
        .iter()
        .map(|b| span_of(content.get(), b.get()))
        .collect();
    let kept: Vec<&str> = blocks
        .iter()
        .filter(|b| !matches!(block_type(b).as_str(), "thinking" | "redacted_thinking"))
        .map(|b| b.get())
        .collect();
    if kept.is_empty() || kept.len() == blocks.len() {
        return None;
    }
    let layout = ArrayLayout::of(content.get(), &spans);
    replace_member(message, "content", &layout.render(kept))
}

/// `content` (a raw JSON array of content blocks) with its text replaced: the first block
/// `is_text` accepts takes `text`, the other text blocks are removed, every other block (images,
/// tool calls, thinking with its signature) is kept byte-for-byte, in the array's own layout.
/// `None` when there is no text block. Shared with the Codex adapter.
pub(super) fn replace_text_blocks(
    content: &str,
    is_text: impl Fn(&Value) -> bool,
    text: &str,
) -> Option<String> {
    let blocks = array_elements(parse_raw(content).ok()?)?;
    let spans: Vec<Span> = blocks.iter().map(|b| span_of(content, b.get())).collect();
    let mut replaced = false;
    let mut kept = Vec::with_capacity(blocks.len());
    for block in &blocks {
        let value: Value = serde_json::from_str(block.get()).ok()?;
        if !is_text(&value) {
            kept.push(block.get().to_string());
        } else if !replaced {
            kept.push(replace_member(block.get(), "text", &quote(text))?);
            replaced = true;
        }
    }
    let layout = ArrayLayout::of(content, &spans);
    replaced.then(|| layout.render(kept.iter().map(String::as_str)))
}

/// `record` with the arguments of the calls `edits` names rewritten: `arguments` holds the
/// raw JSON value of each call's arguments in `record`, in call order. Where that value is a
/// JSON string (OpenAI and Codex `arguments`, a Codex custom tool's `input`), the new text is
/// written as a string; where it is an object (Anthropic `input`), as the JSON it is.
/// Everything else stays byte-for-byte. `None` when an edit names a call not found.
pub(super) fn replace_arguments(
    record: &str,
    arguments: &[&str],
    edits: &[super::CallEdit],
) -> Option<String> {
    let mut spliced: Vec<(Span, String)> = Vec::with_capacity(edits.len());
    for edit in edits {
        let raw = arguments.get(edit.call)?;
        let text = if raw.starts_with('"') {
            quote(&edit.arguments)
        } else {
            // An object must stay an object: the client reads it as the tool's input.
            serde_json::from_str::<serde_json::Map<String, Value>>(&edit.arguments).ok()?;
            edit.arguments.clone()
        };
        spliced.push((span_of(record, raw), text));
    }
    spliced.sort_by_key(|(span, _)| span.start);
    Some(crate::json::splice(record, &spliced))
}

/// The raw `input` of each tool-use block of a content array, in order: Anthropic-style
/// blocks (Claude Code and Anthropic messages); `kinds` names the block types that are calls.
pub(super) fn block_inputs<'a>(content: &'a RawValue, kinds: &[&str]) -> Option<Vec<&'a str>> {
    block_members(content, kinds, "input")
}

/// The raw member `key` of each block of a content array whose type `kinds` names, in order
/// (pi's `toolCall` blocks hold their input under `arguments`).
pub(super) fn block_members<'a>(
    content: &'a RawValue,
    kinds: &[&str],
    key: &str,
) -> Option<Vec<&'a str>> {
    let blocks = array_elements(content)?;
    blocks
        .into_iter()
        .filter(|b| kinds.contains(&block_type(b).as_str()))
        .map(|b| member(b, key).map(RawValue::get))
        .collect()
}

/// The command of a text-based agent action: the fenced block (```` ``` ````, SWE-agent's
/// thought-action parser) or `<command>` block (its XML thought-action parser) that ends the
/// message.
pub fn trailing_action(text: &str) -> Option<String> {
    trailing_block(text).map(|(_, command)| command)
}

/// [`trailing_action`] with the byte where its block opens.
fn trailing_block(text: &str) -> Option<(usize, String)> {
    let trimmed = text.trim_end();
    let (open, block) = if let Some(body) = trimmed.strip_suffix("```") {
        let open = body.rfind("```")?;
        // Skip the info string (```bash).
        let block = body[open + 3..]
            .split_once('\n')
            .map_or("", |(_, rest)| rest);
        (open, block)
    } else {
        let body = trimmed.strip_suffix("</command>")?;
        let open = body.rfind("<command>")?;
        (open, &body[open + "<command>".len()..])
    };
    let block = block.trim();
    (!block.is_empty()).then(|| (open, block.to_string()))
}

/// The call a text-based agent's message makes: SWE-agent's XML function call
/// (`<function=NAME>` with `<parameter=KEY>VALUE</parameter>`s, the last in the message) as
/// that tool with those arguments, else its closing command block as a `shell` call.
pub fn text_call(text: &str) -> Option<super::TextCall> {
    if let Some(call) = xml_function_call(text) {
        return Some(call);
    }
    let (start, command) = trailing_block(text)?;
    Some(super::TextCall {
        name: "shell".into(),
        arguments: serde_json::json!({ "command": command }),
        start,
    })
}

/// The last `<function=NAME>…</function>` of `text` (SWE-agent's `xml_function_calling`).
fn xml_function_call(text: &str) -> Option<super::TextCall> {
    let open = text.rfind("<function=")?;
    let rest = &text[open + "<function=".len()..];
    let (name, rest) = rest.split_once('>')?;
    let body = &rest[..rest.find("</function>")?];
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let mut arguments = serde_json::Map::new();
    let mut rest = body;
    while let Some(at) = rest.find("<parameter=") {
        let after = &rest[at + "<parameter=".len()..];
        let Some((key, after)) = after.split_once('>') else {
            break;
        };
        let end = after.find("</parameter>").unwrap_or(after.len());
        // SWE-agent strips the newline that opens and closes a multi-line value.
        let value = after[..end].strip_prefix('\n').unwrap_or(&after[..end]);
        let value = value.strip_suffix('\n').unwrap_or(value);
        arguments.insert(key.trim().to_string(), Value::String(value.to_string()));
        rest = &after[end..];
    }
    Some(super::TextCall {
        name: name.to_string(),
        arguments: Value::Object(arguments),
        start: open,
    })
}

pub(super) fn block_type(block: &RawValue) -> String {
    member(block, "type")
        .and_then(|t| serde_json::from_str(t.get()).ok())
        .unwrap_or_default()
}

/// Members in which a record keeps its message (Claude Code's `message`, Codex's `payload`,
/// the OpenHands SDK's `llm_message`, OpenHands' `args`): their keys are named too.
const NESTED_MESSAGE_KEYS: [&str; 4] = ["message", "payload", "llm_message", "args"];

/// Why `conv` is refused when it has messages but not one of them carries anything the
/// adapter read (no text, no named call) nor any of the format's `content_keys` (a record's,
/// or its message's, [`NESTED_MESSAGE_KEYS`]): its messages keep their content under a key
/// the adapter does not know, and read anyway they would be empty messages that a compaction
/// drops. Names the keys the first messages have (`message.KEY` inside a record's `message`).
pub(super) fn contentless(
    source: &str,
    conv: &super::Conversation,
    content_keys: &[&str],
) -> Option<String> {
    use super::Role;
    let messages: Vec<&super::Item> = conv
        .items
        .iter()
        // Reasoning items are not messages: one may carry nothing readable (Codex's
        // encrypted reasoning).
        .filter(|i| matches!(i.role, Role::User | Role::Assistant | Role::Tool))
        .filter(|i| i.kind != super::Kind::Thinking)
        .collect();
    let carries = |item: &&super::Item| {
        item.parts.iter().any(|p| !p.text.is_empty())
            || item.calls.iter().any(|c| !c.name.is_empty())
    };
    if content_keys.is_empty() || messages.is_empty() || messages.iter().any(carries) {
        return None;
    }
    let keys = message_keys(source, &messages);
    let has_content_key = keys.iter().any(|key| {
        let last = key.rsplit('.').next().unwrap_or(key);
        content_keys.contains(&last)
    });
    if has_content_key {
        return None;
    }
    let at = match conv.location.as_str() {
        "" => String::new(),
        location => format!(" at {location}"),
    };
    Some(format!(
        "the {}{at} carry no content ctxc reads (none has {}); their keys: {} (name the format \
         with --format if it is another)",
        crate::human::plural(messages.len(), "message"),
        content_keys.join(", "),
        keys.join(", ")
    ))
}

/// The keys of `messages`' records, and of the messages inside them (`message.KEY`), in order
/// of appearance. Every message is looked at: one that has its content key is enough to
/// read the list.
fn message_keys(source: &str, messages: &[&super::Item]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for item in messages {
        let Ok(raw) = crate::json::parse_raw(&source[item.span.clone()]) else {
            continue;
        };
        for (key, value) in crate::json::object_members(raw).unwrap_or_default() {
            let mut add = |key: String| {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            };
            add(key.to_string());
            if NESTED_MESSAGE_KEYS.contains(&key.as_str()) {
                for (inner, _) in crate::json::object_members(value).unwrap_or_default() {
                    add(format!("{key}.{inner}"));
                }
            }
        }
    }
    keys
}
