//! Qwen Code session repairs, written as the client itself would have the record: a call left
//! without a result gets the error response the client sends for one when it resumes
//! (`repairOrphanedToolUseTurns`: "Tool execution result was not recorded ..."), stored as the
//! `tool_result` record it appends after a call. Records form a chain through `parentUuid`,
//! so the records below the call are re-pointed at the new result to keep the chain whole.

use super::orphan_result;
use crate::json::{quote, replace_member};
use crate::transcript::Transcript;
use crate::transcript::edit::{Draft, Edits, Repair, pairing};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Answers each unanswered call with the client's own orphan response.
pub fn pairing(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let conv = &t.conversations[0];
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    let records: Vec<Value> = (0..conv.items.len())
        .map(|i| serde_json::from_str(raw(i)).unwrap_or_default())
        .collect();
    let mut taken: HashSet<String> = records
        .iter()
        .filter_map(|r| r["uuid"].as_str().map(str::to_string))
        .collect();
    // Where the children of each record must now point.
    let mut moved: HashMap<String, String> = HashMap::new();
    let mut last_of: HashMap<usize, String> = HashMap::new();
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    for call in &pairing::faults(conv).unanswered {
        let caller = &records[call.item];
        let Some(caller_uuid) = caller["uuid"].as_str() else {
            continue;
        };
        let parent = last_of
            .get(&call.item)
            .cloned()
            .unwrap_or_else(|| caller_uuid.to_string());
        let uuid = fresh_uuid(&call.id, &mut taken);
        let record = orphan_result(caller, &uuid, &parent, &call.id, &call.name);
        edits
            .insert_after
            .entry(conv.items[call.item].line)
            .or_default()
            .push(record);
        last_of.insert(call.item, uuid.clone());
        moved.insert(caller_uuid.to_string(), uuid);
        repairs.push(Repair::new(
            draft.origin_of(conv.items[call.item].line),
            format!("tool call '{}' ({}) is never answered", call.id, call.name),
            "answered as Qwen Code answers a call whose result it never recorded (\"Tool execution result was not recorded\")",
        ));
    }
    for (i, r) in records.iter().enumerate() {
        let Some(new) = r["parentUuid"].as_str().and_then(|p| moved.get(p)) else {
            continue;
        };
        if let Some(text) = replace_member(raw(i), "parentUuid", &quote(new)) {
            edits.replace.insert(conv.items[i].line, text);
        }
    }
    (edits, repairs)
}

/// A v4-shaped uuid derived from the call id and unused in the file.
fn fresh_uuid(seed: &str, taken: &mut HashSet<String>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    loop {
        let low = hash.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15;
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
            (hash >> 32) as u32,
            (hash >> 16) as u16,
            hash as u16 & 0xfff,
            (low >> 48) as u16 & 0xfff,
            low & 0xffff_ffff_ffff
        );
        if taken.insert(id.clone()) {
            return id;
        }
        hash = hash.wrapping_mul(0x100_0000_01b3).wrapping_add(1);
    }
}
