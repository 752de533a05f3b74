//! Repairs of message lists — OpenAI chat and Anthropic Messages, in every container they
//! come in (a JSON array, an object's `messages`, JSONL of messages or of conversations,
//! tau-bench runs) — written in the format's own shape: an unanswered tool call gets an
//! answer saying it was interrupted (an OpenAI `tool` message; an Anthropic `tool_result`
//! block, in the user message that follows the call or in a new one), and results that answer
//! no open call (a stray one, a second answer) are removed. Every conversation is repaired on
//! its own; one with nothing to repair is written back byte for byte, and so is every message
//! no repair touches.

use super::Repair;
use crate::transcript::edit::Draft;
use crate::transcript::edit::pairing::{self, Faults, Stray, Unanswered};
use crate::transcript::{Conversation, Format, Role, Transcript};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// The answer given to a call the list never answers: no client wrote one, so it says what
/// is known.
pub const INTERRUPTED: &str = "[Tool call interrupted: no result was recorded]";

/// Whether `format` is a message list this module repairs.
pub fn repairs(format: Format) -> bool {
    matches!(format, Format::OpenAi | Format::Anthropic)
}

/// The repaired text and its repairs (lines of the input, through `draft`); `None` when no
/// conversation has a pairing fault.
pub fn pairing(t: &Transcript, draft: &Draft) -> Option<(String, Vec<Repair>)> {
    let mut repairs = Vec::new();
    let mut edits = Vec::with_capacity(t.conversations.len());
    for conv in &t.conversations {
        let faults = pairing::faults(conv);
        if faults.unanswered.is_empty() && faults.stray.is_empty() {
            edits.push(None);
            continue;
        }
        let fixed = Fixing {
            t,
            conv,
            draft,
            faults: &faults,
        };
        edits.push(Some(fixed.elements(&mut repairs)));
    }
    if repairs.is_empty() {
        return None;
    }
    Some((t.write_elements(&edits), repairs))
}

/// Where the answers to a message's unanswered calls go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// New messages after this item.
    After(usize),
    /// Blocks at the start of this item, a user message (Anthropic: every answer to a
    /// message's calls is in the message right after it).
    Into(usize),
}

/// One conversation being repaired.
struct Fixing<'a, 'f> {
    t: &'a Transcript,
    conv: &'a Conversation,
    draft: &'f Draft,
    faults: &'f Faults,
}

impl<'a> Fixing<'a, '_> {
    /// The conversation's elements, repaired, each with the item whose place it takes.
    fn elements(&self, repairs: &mut Vec<Repair>) -> Vec<(usize, Cow<'a, str>)> {
        let stray: HashMap<usize, &Stray> = self.faults.stray.iter().map(|s| (s.item, s)).collect();
        let mut answers: BTreeMap<Place, Vec<&Unanswered>> = BTreeMap::new();
        for call in &self.faults.unanswered {
            answers
                .entry(self.place(call.item, &stray))
                .or_default()
                .push(call);
            let what = match self.t.format {
                Format::Anthropic => "added a tool_result saying it was interrupted",
                _ => "added a tool message saying it was interrupted",
            };
            repairs.push(Repair::new(
                self.line(call.item),
                format!("tool call '{}' ({}) is never answered", call.id, call.name),
                what,
            ));
        }
        let mut out = Vec::with_capacity(self.conv.items.len() + answers.len());
        for (i, item) in self.conv.items.iter().enumerate() {
            let raw = &self.t.source[item.span.clone()];
            let mut text = Cow::Borrowed(raw);
            if let Some(s) = stray.get(&i) {
                repairs.push(Repair::new(
                    self.line(i),
                    s.fault.clone(),
                    "removed (the archive keeps it)",
                ));
                text = match s.whole_item {
                    true => Cow::Borrowed(""),
                    false => Cow::Owned(without_results(raw, &s.ids)),
                };
            }
            if let Some(calls) = answers.get(&Place::Into(i)) {
                text = Cow::Owned(with_answers(&text, &self.blocks(calls)));
            }
            if !text.is_empty() {
                out.push((i, text));
            }
            if let Some(calls) = answers.get(&Place::After(i)) {
                out.extend(self.messages(calls).into_iter().map(|m| (i, Cow::Owned(m))));
            }
        }
        repairs.sort_by_key(|r| r.line);
        out
    }

    /// The input line of item `i`.
    fn line(&self, i: usize) -> usize {
        self.draft.origin_of(self.conv.items[i].line)
    }

    /// Where the answer to a call of item `caller` goes: after the results that follow the
    /// call (OpenAI), or into the user message that follows it (Anthropic).
    fn place(&self, caller: usize, stray: &HashMap<usize, &Stray>) -> Place {
        let items = &self.conv.items;
        let end = pairing::message_end(self.conv, caller);
        if self.t.format == Format::Anthropic {
            let kept = !stray.get(&(end + 1)).is_some_and(|s| s.whole_item);
            return match items.get(end + 1) {
                // A user message holding results reads as a tool message.
                Some(next) if matches!(next.role, Role::User | Role::Tool) && kept => {
                    Place::Into(end + 1)
                }
                _ => Place::After(end),
            };
        }
        let mut at = end;
        while let Some(next) = items.get(at + 1) {
            // Results of other calls of the message stay first; a stray one is removed.
            if next.results.is_empty() || !next.calls.is_empty() {
                break;
            }
            at += 1;
        }
        Place::After(at)
    }

    /// The messages answering `calls`: one OpenAI `tool` message each (a `function` message
    /// for a legacy `function_call`, which has no id), or one Anthropic user message.
    fn messages(&self, calls: &[&Unanswered]) -> Vec<String> {
        if self.t.format == Format::Anthropic {
            let message = json!({"role": "user", "content": self.blocks(calls)});
            return vec![message.to_string()];
        }
        let like = self.tool_message_shape();
        calls
            .iter()
            .map(|call| {
                let caller = &self.t.source[self.conv.items[call.item].span.clone()];
                let mut m = Map::new();
                if !has_tool_call(caller, &call.id) {
                    m.insert("role".into(), "function".into());
                    m.insert("name".into(), call.name.clone().into());
                    m.insert("content".into(), INTERRUPTED.into());
                    return Value::Object(m).to_string();
                }
                m.insert("role".into(), "tool".into());
                match like.listed_ids {
                    true => m.insert("tool_call_ids".into(), json!([call.id])),
                    false => m.insert("tool_call_id".into(), call.id.clone().into()),
                };
                if like.named {
                    m.insert("name".into(), call.name.clone().into());
                }
                m.insert("content".into(), INTERRUPTED.into());
                if let Some(kind) = &like.message_type {
                    m.insert("message_type".into(), kind.clone());
                }
                Value::Object(m).to_string()
            })
            .collect()
    }

    /// How the conversation's own `tool` messages are written, for an added one to match.
    fn tool_message_shape(&self) -> ToolShape {
        let first = self.conv.items.iter().find_map(|item| {
            (item.role == Role::Tool)
                .then(|| {
                    serde_json::from_str::<Map<String, Value>>(&self.t.source[item.span.clone()])
                        .ok()
                })
                .flatten()
        });
        let Some(first) = first else {
            return ToolShape::default();
        };
        ToolShape {
            named: first.contains_key("name"),
            listed_ids: first.contains_key("tool_call_ids") && !first.contains_key("tool_call_id"),
            // SWE-agent marks what each history entry is.
            message_type: first.get("message_type").cloned(),
        }
    }

    /// Anthropic `tool_result` blocks answering `calls`, flagged as errors.
    fn blocks(&self, calls: &[&Unanswered]) -> Vec<Value> {
        calls
            .iter()
            .map(|call| {
                json!({"type": "tool_result", "tool_use_id": call.id, "content": INTERRUPTED, "is_error": true})
            })
            .collect()
    }
}

/// The shape of a conversation's `tool` messages.
#[derive(Default)]
struct ToolShape {
    /// They carry the tool's `name`.
    named: bool,
    /// They name their calls in a `tool_call_ids` list (SWE-agent).
    listed_ids: bool,
    /// Their `message_type` (SWE-agent's `observation`).
    message_type: Option<Value>,
}

/// Whether the OpenAI message `raw` makes call `id` in its `tool_calls`.
fn has_tool_call(raw: &str, id: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(raw) else {
        return false;
    };
    let calls = value.get("tool_calls").and_then(Value::as_array);
    calls
        .into_iter()
        .flatten()
        .any(|c| c.get("id").and_then(Value::as_str) == Some(id))
}

/// An Anthropic message without its `tool_result` blocks for `ids` (its other blocks kept).
fn without_results(raw: &str, ids: &[String]) -> String {
    edit_content(raw, |blocks| {
        blocks.retain(|b| {
            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
            b.get("type").and_then(Value::as_str) != Some("tool_result")
                || !ids.iter().any(|i| i == id)
        })
    })
}

/// An Anthropic user message with `blocks` after the tool results it starts with, before
/// anything else (a string content becomes a text block after them).
fn with_answers(raw: &str, blocks: &[Value]) -> String {
    edit_content(raw, |content| {
        let results = content
            .iter()
            .take_while(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .count();
        content.splice(results..results, blocks.iter().cloned());
    })
}

/// `raw`, a message object, with its content blocks edited (members keep their order).
fn edit_content(raw: &str, edit: impl FnOnce(&mut Vec<Value>)) -> String {
    let Ok(mut message) = serde_json::from_str::<Map<String, Value>>(raw) else {
        return raw.to_string();
    };
    let mut blocks = match message.remove("content") {
        Some(Value::Array(blocks)) => blocks,
        Some(Value::String(text)) => vec![json!({"type": "text", "text": text})],
        _ => Vec::new(),
    };
    edit(&mut blocks);
    message.insert("content".into(), Value::Array(blocks));
    Value::Object(message).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::{Options, oversize::Fit, repair};

    fn repaired(text: &str) -> (String, Value) {
        let opts = Options {
            read: Default::default(),
            max_session_bytes: u64::MAX,
            fit: Fit::default(),
        };
        let r = repair(text, &opts).unwrap();
        assert!(r.remaining.is_empty(), "{:?}", r.remaining);
        let value = serde_json::from_str(&r.output).unwrap();
        (r.output, value)
    }

    #[test]
    fn an_added_answer_is_shaped_like_the_lists_own() {
        let call = |id: &str| json!({"role": "assistant", "content": "", "tool_calls": [{"id": id, "type": "function", "function": {"name": "ls", "arguments": "{}"}}]});
        let swe = json!({"history": [
            {"role": "system", "content": "s", "message_type": "system_prompt"},
            {"role": "user", "content": "task", "message_type": "observation"},
            call("a"),
            {"role": "tool", "content": "x", "tool_call_ids": ["a"], "message_type": "observation"},
            call("b"),
            {"role": "user", "content": "go on", "message_type": "observation"},
        ]});
        let (_, out) = repaired(&serde_json::to_string_pretty(&swe).unwrap());
        assert_eq!(
            out["history"][5],
            json!({"role": "tool", "tool_call_ids": ["b"], "content": INTERRUPTED, "message_type": "observation"})
        );
    }

    #[test]
    fn a_string_content_becomes_a_text_block_after_the_answer() {
        let text = r#"{"messages": [
  {"role": "user", "content": "go"},
  {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "ls", "input": {}}]},
  {"role": "user", "content": "stop"}
]}"#;
        let (written, out) = repaired(text);
        assert_eq!(out["messages"][2]["content"][0]["tool_use_id"], "t");
        assert_eq!(
            out["messages"][2]["content"][1],
            json!({"type": "text", "text": "stop"})
        );
        // The messages no repair touched keep their bytes.
        let kept = text.lines().take(3).collect::<Vec<_>>().join("\n");
        assert!(written.starts_with(&kept), "{written}");
    }
}
