//! Writing an edited Gemini CLI session.
//!
//! A record ctxc leaves alone is written back byte for byte. A message's results live inside
//! its record, so a results item is folded back into the record it came from: a masked
//! output replaces the `result` of each of its `toolCalls` entries with the
//! `functionResponse` the client itself stores. A summary is a user message holding it, as
//! the client's own compression writes its summary turn. (A message's stale copies share its message id, so they go with it: the
//! client would load a copy left behind.)

use super::Gemini;
use crate::json::replace_member;
use crate::transcript::{Adapter, Conversation, Kind, ListLayout, OutItem, SUMMARY_MARKER, Transcript};
use serde_json::{Value, json};

pub(super) fn render(adapter: &Gemini, t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    match out {
        OutItem::Keep(i) | OutItem::DropThinking(i) | OutItem::ReplaceArguments(i, _) => {
            raw(*i).to_string()
        }
        OutItem::Strip(i) => crate::transcript::strip_item(adapter, t, conv, *i),
        OutItem::Summary { text, replaces } => summary(t, conv, text, replaces.start),
        OutItem::ReplaceText(i, text) => replace_text(raw(*i), text),
        OutItem::ReplaceResult(i, text) => replace_results(raw(*i), text),
    }
}

/// Writes each record once, a results item folded into its message's record, and the
/// messages of a checkpoint back into its line.
pub(super) fn render_list(
    adapter: &Gemini,
    t: &Transcript,
    conv: &Conversation,
    items: &[OutItem],
    out: &mut String,
) {
    let w = Writer {
        adapter,
        t,
        conv,
        holder: holders(t, conv),
    };
    let mut kept: Vec<OutItem> = Vec::with_capacity(items.len());
    let mut texts: Vec<String> = Vec::with_capacity(items.len());
    let mut k = 0;
    while k < items.len() {
        let item = &items[k];
        let checkpoint = item
            .kept()
            .filter(|&i| w.holder.contains(&Some(i)));
        if let Some(c) = checkpoint {
            // The checkpoint's messages are the items after it that start inside it.
            let mut end = k + 1;
            while items
                .get(end)
                .is_some_and(|o| w.holder[o.originals().start] == Some(c))
            {
                end += 1;
            }
            texts.push(w.checkpoint(c, &items[k + 1..end]));
            kept.push(item.clone());
            k = end;
            continue;
        }
        let (text, next) = w.record(items, k);
        if let Some(text) = text {
            kept.push(item.clone());
            texts.push(text);
        }
        k = next;
    }
    match conv.layout {
        ListLayout::Lines {
            newline,
            trailing_newline,
        } => w.lines(&kept, &texts, newline, trailing_newline, out),
        _ => crate::transcript::render_layout(t, conv, &kept, texts.iter(), out),
    }
}

struct Writer<'w> {
    adapter: &'w Gemini,
    t: &'w Transcript,
    conv: &'w Conversation,
    /// For each item, the checkpoint item whose line holds it.
    holder: Vec<Option<usize>>,
}

impl Writer<'_> {
    /// The text of the record `items[k]` stands for, its results folded in (None: it goes),
    /// and the position after what it took.
    fn record(&self, items: &[OutItem], k: usize) -> (Option<String>, usize) {
        let conv = self.conv;
        let is_results =
            |o: &OutItem| o.kept().is_some_and(|i| conv.items[i].kind == Kind::ToolResult && self.nested(i));
        let item = &items[k];
        if is_results(item) {
            // Its message is gone (no plan does that: they share a message id).
            return (None, k + 1);
        }
        let mut text = match item {
            OutItem::Summary { text, replaces } => {
                summary(self.t, conv, text, replaces.start)
            }
            other => self.adapter.render(self.t, conv, other),
        };
        let mut next = k + 1;
        if let Some(results) = items.get(next).filter(|n| is_results(n)) {
            if let OutItem::ReplaceResult(_, output) = results {
                text = replace_results(&text, output);
            }
            next += 1;
        }
        (Some(text), next)
    }

    /// Writes the lines, each followed by what followed the line it stands for (a summary:
    /// the last line it replaces), as `render_layout` does for records that are whole lines:
    /// here an item may lie inside a line (a checkpoint's messages, a message's results).
    fn lines(&self, kept: &[OutItem], texts: &[String], newline: &str, trailing: bool, out: &mut String) {
        let conv = self.conv;
        let top = |i: usize| {
            (0..=i)
                .rev()
                .find(|&j| self.holder[j].is_none() && !(conv.items[j].kind == Kind::ToolResult && self.nested(j)))
                .unwrap_or(0)
        };
        let last_top = top(conv.items.len().saturating_sub(1));
        for (k, (item, text)) in kept.iter().zip(texts).enumerate() {
            out.push_str(text);
            let i = top(item.originals().end.clamp(1, conv.items.len()) - 1);
            let next = (i + 1..conv.items.len())
                .find(|&j| top(j) == j)
                .map_or(conv.span.end, |j| conv.items[j].span.start);
            let after = &self.t.source[conv.items[i].span.end..next];
            let own = crate::transcript::own_line_ending(after, newline);
            let last = k + 1 == kept.len();
            out.push_str(if i == last_top || !last {
                after
            } else if trailing {
                own
            } else {
                ""
            });
        }
    }

    /// Whether item `i` is a results item inside its message's record.
    fn nested(&self, i: usize) -> bool {
        let span = &self.conv.items[i].span;
        i > 0 && {
            let message = &self.conv.items[i - 1].span;
            message.start < span.start && span.end <= message.end
        }
    }

    /// Checkpoint `c`'s line with its messages as `items` leave them.
    fn checkpoint(&self, c: usize, items: &[OutItem]) -> String {
        let raw = &self.t.source[self.conv.items[c].span.clone()];
        let unchanged = items.iter().all(|o| matches!(o, OutItem::Keep(_)))
            && items.len() == self.holder.iter().filter(|h| **h == Some(c)).count();
        let Some(array) = super::checkpoint_array(raw).filter(|_| !unchanged) else {
            return raw.to_string();
        };
        let mut texts = Vec::new();
        let mut k = 0;
        while k < items.len() {
            let (text, next) = self.record(items, k);
            texts.extend(text);
            k = next;
        }
        let at = crate::json::span_of(raw, array.get());
        let elements: Vec<_> = crate::json::array_elements(array)
            .unwrap_or_default()
            .iter()
            .map(|e| {
                let span = crate::json::span_of(array.get(), e.get());
                span.start..span.end
            })
            .collect();
        let mut written = String::new();
        crate::json::ArrayLayout::of(array.get(), &elements).render_into(texts.iter(), &mut written);
        crate::json::splice(raw, &[(at, written)])
    }
}

/// For each item, the checkpoint item whose line holds it (a record inside another record's
/// span, that one a `$set` of `messages`).
fn holders(t: &Transcript, conv: &Conversation) -> Vec<Option<usize>> {
    let mut holder = vec![None; conv.items.len()];
    let mut current: Option<usize> = None;
    for (i, item) in conv.items.iter().enumerate() {
        if let Some(c) = current {
            let span = &conv.items[c].span;
            if item.span.start >= span.start && item.span.end <= span.end {
                holder[i] = Some(c);
                continue;
            }
            current = None;
        }
        let raw = &t.source[item.span.clone()];
        if item.kind == Kind::NonContext && raw.starts_with("{\"$set\"") && super::checkpoint_array(raw).is_some() {
            current = Some(i);
        }
    }
    holder
}

/// The summary as a user message, as the client's compression writes its summary turn. (The
/// client follows that with a model reply; ctxc writes one record per summary, and the
/// client sends consecutive user turns as they are: it resends a tool response so itself.)
fn summary(t: &Transcript, conv: &Conversation, text: &str, first: usize) -> String {
    let stamp = conv
        .items
        .get(first)
        .and_then(|i| serde_json::from_str::<Value>(&t.source[i.span.clone()]).ok())
        .and_then(|v| v["timestamp"].as_str().map(str::to_string))
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_string());
    let user = json!({
        "id": format!("ctxc-summary-{}", crate::transcript::uuid_from(text)),
        "timestamp": stamp,
        "type": "user",
        "content": [{"text": format!("{SUMMARY_MARKER}\n{text}")}],
    });
    user.to_string()
}

/// A message with its text replaced by `text` (its calls, if in its content, kept).
fn replace_text(raw: &str, text: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(raw) else {
        return raw.to_string();
    };
    let mut content = vec![json!({"text": text})];
    let others = value["content"].as_array().into_iter().flatten();
    content.extend(others.filter(|p| p.get("text").is_none()).cloned());
    replace_member(raw, "content", &Value::Array(content).to_string()).unwrap_or_else(|| raw.into())
}

/// A message whose stored results each become `output`, as the client stores a result: the
/// `result` of each of a gemini message's `toolCalls`, or a user message's responses.
fn replace_results(raw: &str, output: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(raw) else {
        return raw.to_string();
    };
    if value["type"] == "user" {
        return replace_responses(raw, &mut value, output);
    }
    let Some(calls) = value["toolCalls"].as_array_mut() else {
        return raw.to_string();
    };
    for call in calls.iter_mut() {
        if call.get("result").is_none_or(Value::is_null) {
            continue;
        }
        call["result"] = json!([{"functionResponse": {
            "id": call["id"],
            "name": call["name"],
            "response": {"output": output},
        }}]);
    }
    let calls = Value::Array(calls.clone()).to_string();
    replace_member(raw, "toolCalls", &calls).unwrap_or_else(|| raw.into())
}

/// A user message whose `functionResponse` parts each answer `output`.
fn replace_responses(raw: &str, value: &mut Value, output: &str) -> String {
    let Some(parts) = value["content"].as_array_mut() else {
        return raw.to_string();
    };
    for part in parts.iter_mut() {
        if let Some(response) = part.get_mut("functionResponse") {
            response["response"] = json!({"output": output});
        }
    }
    let content = value["content"].to_string();
    replace_member(raw, "content", &content).unwrap_or_else(|| raw.into())
}

/// A call's `toolCalls` entry as the client stores a call it cancelled: `status`
/// `cancelled`, and the scheduler's error response as its `result`.
pub fn cancelled_call(call: &mut Value) {
    call["status"] = json!("cancelled");
    call["result"] = json!([cancelled_part(&call["id"], &call["name"])]);
}

/// The user turn answering call `id` of `message` (a checkpoint's message whose content holds
/// the call) as cancelled, as the client writes a message's `<id>_response` turn.
pub fn cancelled_response(message: &Value, id: &str, name: &Value) -> Value {
    json!({
        "id": format!("{}_response", message["id"].as_str().unwrap_or_default()),
        "timestamp": message["timestamp"],
        "type": "user",
        "content": [cancelled_part(&json!(id), name)],
    })
}

fn cancelled_part(id: &Value, name: &Value) -> Value {
    json!({"functionResponse": {
        "id": id,
        "name": name,
        "response": {"error": super::CANCELLED},
    }})
}
