//! Text-based agents' actions (SWE-agent without function calling): read as calls in every
//! format such a trajectory is stored in (OpenAI chat, ShareGPT, ATIF), so that what reads
//! calls (facts, trim-calls, masking) reads these too.

use super::common::text_call;
use super::containers::ACTION_ID;
use super::{Conversation, Kind, PartKind, Role, ToolCall};
use serde_json::Value;

/// Text-based agents (SWE-agent without function calling) end each assistant message with an
/// action — a fenced or `<command>` block, or an XML `<function=…>` call — and get its output
/// back as a user message. In a conversation without tool calls, such a user message is a
/// tool result: the harness wrote it, not the user. The action becomes the message's
/// [`TextCall`](super::TextCall) and the pair gets a call id (`action-LINE`, named after the
/// command's first word or the function), so it pairs and groups like a real tool call, no
/// step separates the output from its action, and what reads calls reads this one.
///
/// Only where a system message (or the preamble's system prompt, as ShareGPT keeps it) teaches
/// that syntax: in a plain chat, an answer that ends in a
/// code block is followed by the user's own next request, which must stay a request.
pub(super) fn mark_text_observations(conv: &mut Conversation) {
    if conv.items.iter().any(|i| !i.calls.is_empty()) || !teaches_text_actions(conv) {
        return;
    }
    for at in 1..conv.items.len() {
        let (before, rest) = conv.items.split_at_mut(at);
        let (prev, item) = (&mut before[at - 1], &mut rest[0]);
        if prev.role != Role::Assistant || item.kind != Kind::User {
            continue;
        }
        let call = prev
            .parts
            .iter()
            .rev()
            .find(|p| p.kind == PartKind::Text)
            .and_then(|p| text_call(&p.text));
        let Some(call) = call else {
            continue;
        };
        let id = format!("{ACTION_ID}{}", prev.line);
        let name = match call.arguments.get("command").and_then(Value::as_str) {
            Some(command) if call.name == "shell" => {
                command.split_whitespace().next().unwrap_or("action")
            }
            _ => call.name.as_str(),
        };
        prev.calls.push(ToolCall {
            id: id.clone(),
            name: name.to_string(),
        });
        prev.text_call = Some(Box::new(call));
        item.results.push(id);
        item.kind = Kind::ToolResult;
        for part in item.parts.iter_mut().filter(|p| p.kind == PartKind::Text) {
            part.kind = PartKind::ToolResult;
        }
    }
}

/// Whether a system message of `conv`, or its preamble's system prompt, is a text-based
/// agent's instructions: it speaks of commands and shows the syntax an action is written in
/// (SWE-agent's templates all do).
fn teaches_text_actions(conv: &Conversation) -> bool {
    let system = conv
        .items
        .iter()
        .filter(|i| i.role == Role::System)
        .flat_map(|i| &i.parts)
        .chain(conv.preamble.iter().filter(|p| p.kind == PartKind::Text));
    system.into_iter().any(|part| {
        let text = &part.text;
        // The syntax first: the lowercased copy is made only for prompts that show one.
        ["```", "<command>", "<function="]
            .iter()
            .any(|syntax| text.contains(syntax))
            && text.to_ascii_lowercase().contains("command")
    })
}
