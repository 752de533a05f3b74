//! Codex rollout repairs, each written as Codex itself would have written the record: replayed
//! history dropped (with the `event_msg` copies re-appended beside it), an unanswered call
//! given the `aborted` output Codex records for a call cut off by an interrupted turn, and
//! outputs that answer no open call dropped. A rollout has no chain, so a record is dropped or
//! added without touching any other.

use crate::transcript::Transcript;
use crate::transcript::edit::{Draft, Edits, Repair, pairing};
use crate::transcript::replay::{self, Replayed};
use serde_json::{Map, Value, json};

/// The output Codex records for a call whose turn was aborted.
pub const ABORTED: &str = "aborted";

/// Drops `response_item` and `compacted` records that repeat earlier ones byte for byte, and
/// the `event_msg` copies replayed with them.
pub fn replays(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let conv = &t.conversations[0];
    let mut edits = Edits::default();
    let mut replayed = Vec::new();
    let found = replay::replays(t.format, &t.source, conv);
    let mut pairs: Vec<(usize, usize)> = found.iter().map(|r| (r.item, r.first)).collect();
    pairs.extend(event_copies(t, &found));
    pairs.sort_unstable();
    for (item, first) in pairs {
        let line = conv.items[item].line;
        edits.drop.insert(line);
        replayed.push(Replayed {
            line: draft.origin_of(line),
            first: draft.origin_of(conv.items[first].line),
            same_uuid: false,
        });
    }
    let repairs = replay::repairs(&replayed);
    (edits, repairs)
}

/// The `event_msg` records re-appended with replayed history, each with the earlier record it
/// copies. Events may legitimately repeat (a token count reported twice in one millisecond),
/// so only an exact copy after everything replayed, standing as far from its original as the
/// replayed records stand from theirs (a block copied whole), counts.
fn event_copies(t: &Transcript, found: &[replay::Replay]) -> Vec<(usize, usize)> {
    let conv = &t.conversations[0];
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    let shifts: std::collections::BTreeSet<usize> =
        found.iter().map(|r| r.item - r.first).collect();
    // Copies come after every record the replay repeats (a block may open with events).
    let Some(start) = found.iter().map(|r| r.first + 1).max() else {
        return Vec::new();
    };
    let mut copies = Vec::new();
    for at in start..conv.items.len() {
        if !is_event(raw(at)) {
            continue;
        }
        let original = shifts
            .iter()
            .filter_map(|d| at.checked_sub(*d))
            .find(|&first| raw(first) == raw(at));
        if let Some(first) = original {
            copies.push((at, first));
        }
    }
    copies
}

/// Whether a rollout record is an `event_msg`.
fn is_event(raw: &str) -> bool {
    serde_json::from_str::<Map<String, Value>>(raw)
        .is_ok_and(|r| r.get("type").and_then(Value::as_str) == Some("event_msg"))
}

/// Answers unanswered calls with Codex's `aborted` output; drops outputs that answer no open
/// call.
pub fn pairing(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let conv = &t.conversations[0];
    let faults = pairing::faults(conv);
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    for call in &faults.unanswered {
        let end = pairing::message_end(conv, call.item);
        let caller = &t.source[conv.items[call.item].span.clone()];
        edits
            .insert_after
            .entry(conv.items[end].line)
            .or_default()
            .push(aborted_output(caller, &call.id));
        repairs.push(Repair::new(
            draft.origin_of(conv.items[call.item].line),
            format!("tool call '{}' ({}) is never answered", call.id, call.name),
            format!("added Codex's output for an aborted call (\"{ABORTED}\")"),
        ));
    }
    for stray in &faults.stray {
        let line = conv.items[stray.item].line;
        edits.drop.insert(line);
        repairs.push(Repair::new(
            draft.origin_of(line),
            stray.fault.clone(),
            "dropped (the archive keeps it)",
        ));
    }
    (edits, repairs)
}

/// The `response_item` Codex writes for call `id` of the `caller` record when its turn is
/// aborted: a `function_call_output` (a `custom_tool_call_output` for a custom tool) whose
/// output is `aborted`, at the caller's time.
fn aborted_output(caller: &str, id: &str) -> String {
    let record: Map<String, Value> = serde_json::from_str(caller).unwrap_or_default();
    let call_type = record
        .get("payload")
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str);
    let output_type = match call_type {
        Some("custom_tool_call") => "custom_tool_call_output",
        _ => "function_call_output",
    };
    let mut out = Map::new();
    if let Some(timestamp) = record.get("timestamp") {
        out.insert("timestamp".into(), timestamp.clone());
    }
    out.insert("type".into(), "response_item".into());
    out.insert(
        "payload".into(),
        json!({"type": output_type, "call_id": id, "output": ABORTED}),
    );
    Value::Object(out).to_string()
}
