//! pi session repairs, each written as pi itself would have the record: an unanswered call
//! gets the result pi-ai sends for a call left without one (`transformMessages`: an error
//! result saying "No result provided"), stored as the `toolResult` message entry pi appends,
//! and a result that answers no open call is dropped. Entries form a tree, so the entries
//! below an added or dropped one are re-pointed to keep the path pi resumes whole.

use crate::json::{quote, replace_member};
use crate::transcript::Transcript;
use crate::transcript::edit::{Draft, Edits, Repair, pairing};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// The text pi-ai gives a tool call that has no result when it sends the conversation.
pub const NO_RESULT: &str = "No result provided";

/// The members of an entry the repairs read.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Entry {
    id: Option<String>,
    parent_id: Option<String>,
    timestamp: Option<Value>,
    message: Option<Message>,
}

#[derive(Deserialize, Default)]
struct Message {
    timestamp: Option<Value>,
}

/// Answers unanswered calls with pi's "No result provided" error result; drops results that
/// answer no open call. Children of a changed entry are re-pointed at what now stands there.
pub fn pairing(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let conv = &t.conversations[0];
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    let entries: Vec<Entry> = (0..conv.items.len())
        .map(|i| serde_json::from_str(raw(i)).unwrap_or_default())
        .collect();
    let mut taken: HashSet<String> = entries.iter().filter_map(|e| e.id.clone()).collect();
    // Where each entry's children must now point (an id, or null for a root).
    let mut moved: HashMap<String, Option<String>> = HashMap::new();
    let faults = pairing::faults(conv);
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    let mut last_of: HashMap<usize, Option<String>> = HashMap::new();
    for call in &faults.unanswered {
        let caller = &entries[call.item];
        let parent = last_of
            .get(&call.item)
            .cloned()
            .unwrap_or_else(|| caller.id.clone());
        let id = caller.id.as_ref().map(|_| fresh_id(&call.id, &mut taken));
        let record = no_result(
            caller,
            id.as_deref(),
            parent.as_deref(),
            &call.id,
            &call.name,
        );
        edits
            .insert_after
            .entry(conv.items[call.item].line)
            .or_default()
            .push(record);
        last_of.insert(call.item, id.clone());
        if let (Some(caller_id), Some(id)) = (&caller.id, id) {
            moved.insert(caller_id.clone(), Some(id));
        }
        repairs.push(Repair::new(
            draft.origin_of(conv.items[call.item].line),
            format!("tool call '{}' ({}) is never answered", call.id, call.name),
            format!("added the error result pi sends for a call without one (\"{NO_RESULT}\")"),
        ));
    }
    for stray in faults.stray.iter().filter(|s| s.whole_item) {
        let line = conv.items[stray.item].line;
        edits.drop.insert(line);
        let e = &entries[stray.item];
        if let Some(id) = &e.id {
            moved.insert(id.clone(), e.parent_id.clone());
        }
        repairs.push(Repair::new(
            draft.origin_of(line),
            stray.fault.clone(),
            "dropped (the archive keeps it)",
        ));
    }
    relink(conv, &entries, &moved, raw, &mut edits);
    (edits, repairs)
}

/// Re-points every kept entry whose parent moved (following moves of moves: a dropped result
/// whose parent was dropped too).
fn relink<'a>(
    conv: &crate::transcript::Conversation,
    entries: &[Entry],
    moved: &HashMap<String, Option<String>>,
    raw: impl Fn(usize) -> &'a str,
    edits: &mut Edits,
) {
    for (i, e) in entries.iter().enumerate() {
        let line = conv.items[i].line;
        let Some(mut parent) = e.parent_id.clone() else {
            continue;
        };
        if edits.drop.contains(&line) || !moved.contains_key(&parent) {
            continue;
        }
        let mut new = Some(parent.clone());
        let mut hops = 0;
        while let Some(next) = moved.get(&parent) {
            new = next.clone();
            hops += 1;
            match next {
                Some(p) if hops < moved.len() + 1 => parent = p.clone(),
                _ => break,
            }
        }
        let value = new.as_deref().map_or("null".to_string(), quote);
        if let Some(text) = replace_member(raw(i), "parentId", &value) {
            edits.replace.insert(line, text);
        }
    }
}

/// The `toolResult` message entry for call `call` of `caller`, at the caller's times.
fn no_result(
    caller: &Entry,
    id: Option<&str>,
    parent: Option<&str>,
    call: &str,
    name: &str,
) -> String {
    let message_time = caller.message.as_ref().and_then(|m| m.timestamp.clone());
    let message = json!({
        "role": "toolResult",
        "toolCallId": call,
        "toolName": name,
        "content": [{"type": "text", "text": NO_RESULT}],
        "isError": true,
        "timestamp": message_time,
    });
    let mut record = serde_json::Map::new();
    record.insert("type".into(), "message".into());
    if let Some(id) = id {
        record.insert("id".into(), id.into());
        record.insert("parentId".into(), parent.map_or(Value::Null, |p| p.into()));
    }
    if let Some(ts) = &caller.timestamp {
        record.insert("timestamp".into(), ts.clone());
    }
    record.insert("message".into(), message);
    Value::Object(record).to_string()
}

/// An 8-hex-digit id, as pi's `generateId` makes them, derived from the call id and unused.
fn fresh_id(seed: &str, taken: &mut HashSet<String>) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for b in seed.bytes() {
        hash = (hash ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    loop {
        let id = format!("{hash:08x}");
        if taken.insert(id.clone()) {
            return id;
        }
        hash = hash.wrapping_mul(0x0100_0193).wrapping_add(1);
    }
}
