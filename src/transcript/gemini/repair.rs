//! Gemini CLI session repairs, written as the client itself would have the record: a call
//! left without a result gets what the client stores for a call it cancelled (its `toolCalls`
//! entry `status: "cancelled"`, with the scheduler's `[Operation Cancelled]` error response as
//! `result`); a call held in a checkpoint's content is answered by the `<id>_response` user turn
//! the client writes there. Only JSON Lines sessions are repaired: the client rewrites an older
//! whole-file session as JSON Lines when it resumes it.

use super::{cancelled_call, cancelled_response};
use crate::transcript::Transcript;
use crate::transcript::edit::{Draft, Edits, Repair, pairing};
use serde_json::Value;
use std::collections::BTreeMap;

/// Answers each unanswered call as the client answers a call it cancelled.
pub fn pairing(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let conv = &t.conversations[0];
    let faults = pairing::faults(conv);
    let lines: Vec<&str> = t.source.lines().collect();
    let mut changed: BTreeMap<usize, Value> = BTreeMap::new();
    let mut repairs = Vec::new();
    for call in &faults.unanswered {
        let line = conv.items[call.item].line;
        let Some(text) = lines.get(line - 1) else {
            continue;
        };
        let value = match changed.entry(line) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let Ok(v) = serde_json::from_str::<Value>(text.trim_end_matches('\r')) else {
                    continue;
                };
                e.insert(v)
            }
        };
        if answer(value, &call.id) {
            repairs.push(Repair::new(
                draft.origin_of(line),
                format!("tool call '{}' ({}) is never answered", call.id, call.name),
                "answered as Gemini CLI answers a call it cancelled (\"[Operation Cancelled]\")",
            ));
        }
    }
    let mut edits = Edits::default();
    for (line, value) in changed {
        edits.replace.insert(line, value.to_string());
    }
    (edits, repairs)
}

/// Answers call `id` in `record` (a message, or a checkpoint of messages): whether it did.
fn answer(record: &mut Value, id: &str) -> bool {
    if let Some(entry) = record["toolCalls"]
        .as_array_mut()
        .and_then(|calls| calls.iter_mut().find(|c| c["id"] == id))
    {
        cancelled_call(entry);
        return true;
    }
    let Some(messages) = record["$set"]["messages"].as_array_mut() else {
        return false;
    };
    if messages.iter_mut().any(|m| answer(m, id)) {
        return true;
    }
    let calls_it = |m: &Value| {
        m["content"]
            .as_array()
            .is_some_and(|parts| parts.iter().any(|p| p["functionCall"]["id"] == id))
    };
    let Some(at) = messages.iter().position(calls_it) else {
        return false;
    };
    let name = messages[at]["content"]
        .as_array()
        .and_then(|parts| parts.iter().find(|p| p["functionCall"]["id"] == id))
        .map(|p| p["functionCall"]["name"].clone())
        .unwrap_or(Value::Null);
    let response = cancelled_response(&messages[at], id, &name);
    messages.insert(at + 1, response);
    true
}
