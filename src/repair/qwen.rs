//! Qwen Code session repairs, written as the client itself would have the record: a call left
//! without a result gets the error response the client sends for one when it resumes
//! (`repairOrphanedToolUseTurns`: "Tool execution result was not recorded ..."), stored as the
//! `tool_result` record it appends after a call. Records form a chain through `parentUuid`,
//! so the records below the call are re-pointed at the new result to keep the chain whole.

use super::lines::{Draft, Edits};
use super::{Repair, pairing};
use crate::json::{quote, replace_member};
use crate::transcript::{Transcript, qwen_orphan_result};
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
        let record = qwen_orphan_result(caller, &uuid, &parent, &call.id, &call.name);
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

#[cfg(test)]
mod tests {
    use crate::repair::{Options, oversize::Fit, repair};
    use crate::transcript::{Format, ReadOptions, read};

    #[test]
    fn an_unanswered_call_gets_the_clients_orphan_response_and_the_chain_stays_whole() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/qwen/unanswered.jsonl");
        let text = std::fs::read_to_string(path).unwrap();
        let opts = Options {
            read: Default::default(),
            max_session_bytes: u64::MAX,
            fit: Fit::default(),
        };
        let r = repair(&text, &opts).unwrap();
        assert_eq!(r.repairs.len(), 1, "{:?}", r.repairs);
        assert!(r.remaining.is_empty(), "{:?}", r.remaining);
        let lines: Vec<serde_json::Value> = r
            .output
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[4]["type"], "tool_result");
        assert_eq!(lines[4]["parentUuid"], lines[3]["uuid"]);
        assert_eq!(
            lines[5]["parentUuid"], lines[4]["uuid"],
            "the next prompt hangs under the result"
        );
        let response = &lines[4]["message"]["parts"][0]["functionResponse"];
        assert_eq!(
            response["id"],
            lines[3]["message"]["parts"][0]["functionCall"]["id"]
        );
        assert!(
            response["response"]["error"]
                .as_str()
                .unwrap()
                .starts_with("Tool execution result was not recorded")
        );
        let t = read(r.output.clone(), &ReadOptions::default()).unwrap();
        assert_eq!(t.format, Format::Qwen);
        assert!(crate::transcript::check(&t).is_empty());
    }
}
