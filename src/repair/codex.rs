//! Codex rollout repairs, each written as Codex itself would have written the record: replayed
//! history dropped, an unanswered call given the `aborted` output Codex records for a call cut
//! off by an interrupted turn, and outputs that answer no open call dropped. A rollout has no
//! chain, so a record is dropped or added without touching any other.

use super::lines::{Draft, Edits};
use super::{Repair, Replayed, pairing, replay_repairs};
use crate::transcript::{Transcript, replay};
use serde_json::{Map, Value, json};

/// The output Codex records for a call whose turn was aborted.
pub const ABORTED: &str = "aborted";

/// Drops `response_item` and `compacted` records that repeat earlier ones byte for byte.
pub fn replays(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let conv = &t.conversations[0];
    let mut edits = Edits::default();
    let mut replayed = Vec::new();
    for r in replay::replays(t.format, &t.source, conv) {
        let line = conv.items[r.item].line;
        edits.drop.insert(line);
        replayed.push(Replayed {
            line: draft.origin_of(line),
            first: draft.origin_of(conv.items[r.first].line),
            same_uuid: false,
        });
    }
    let repairs = replay_repairs(&replayed);
    (edits, repairs)
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
