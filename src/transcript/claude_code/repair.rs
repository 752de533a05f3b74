//! Claude Code repairs, each written as Claude Code itself would have written the record:
//! replayed records dropped, broken `parentUuid` chains re-linked, unanswered tool calls given
//! the result Claude Code writes for an interrupted call, stray results dropped. Every record
//! that is dropped or inserted keeps the chain whole: whatever linked to a dropped record now
//! links to what it stood for, and the record after an inserted result hangs below it.

use super::CONTEXT_KEYS;
use super::chain::rings;
use super::uuid_from;
use crate::json::{quote, replace_member};
use crate::transcript::edit::{Draft, Edits, Repair, pairing};
use crate::transcript::replay::{self, Replayed};
use crate::transcript::{Conversation, Transcript};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// What Claude Code writes as the result of a tool call the user interrupted.
pub const INTERRUPTED: &str = "[Request interrupted by user for tool use]";

/// A record's links and kind, read from its line.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rec {
    uuid: Option<String>,
    parent_uuid: Option<String>,
    logical_parent_uuid: Option<String>,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(rename = "type", default)]
    kind: String,
}

impl Rec {
    fn linked(&self) -> bool {
        self.uuid.is_some() || self.parent_uuid.is_some()
    }

    /// Whether the record can be a parent on the path Claude Code resumes along (progress
    /// records hang off it as side branches).
    fn on_live_path(&self) -> bool {
        self.uuid.is_some() && self.kind != "progress"
    }
}

/// The conversation's records, with their text.
struct Records<'t> {
    conv: &'t Conversation,
    texts: Vec<&'t str>,
    recs: Vec<Rec>,
}

impl<'t> Records<'t> {
    fn of(t: &'t Transcript) -> Records<'t> {
        let conv = &t.conversations[0];
        let texts: Vec<&str> = conv
            .items
            .iter()
            .map(|i| &t.source[i.span.clone()])
            .collect();
        let recs = texts
            .iter()
            .map(|text| serde_json::from_str(text).unwrap_or_default())
            .collect();
        Records { conv, texts, recs }
    }

    fn line(&self, i: usize) -> usize {
        self.conv.items[i].line
    }

    /// Each uuid's first record.
    fn index(&self) -> HashMap<&str, usize> {
        let mut index = HashMap::new();
        for (i, rec) in self.recs.iter().enumerate() {
            if let Some(uuid) = &rec.uuid {
                index.entry(uuid.as_str()).or_insert(i);
            }
        }
        index
    }

    /// Sets link `key` of record `i` to `value` (null for `None`), over any earlier edit.
    fn set_link(&self, edits: &mut Edits, i: usize, key: &str, value: Option<&str>) {
        let line = self.line(i);
        let current = edits
            .replace
            .get(&line)
            .cloned()
            .unwrap_or_else(|| self.texts[i].to_string());
        let value = value.map_or_else(|| "null".to_string(), quote);
        if let Some(edited) = replace_member(&current, key, &value) {
            edits.replace.insert(line, edited);
        }
    }

    /// Re-points every link of a kept record that names a uuid of `gone` at what it stands
    /// for now.
    fn relink(&self, gone: &HashMap<String, Option<String>>, edits: &mut Edits) {
        if gone.is_empty() {
            return;
        }
        let resolve = |uuid: &str| -> Option<Option<String>> {
            let mut at = gone.get(uuid)?.clone();
            // Bounded: the map cannot loop, but a damaged file must not hang the repair.
            for _ in 0..gone.len() {
                match at.as_deref().and_then(|u| gone.get(u)) {
                    Some(next) => at = next.clone(),
                    None => break,
                }
            }
            Some(at)
        };
        for (i, rec) in self.recs.iter().enumerate() {
            if edits.drop.contains(&self.line(i)) {
                continue;
            }
            let links = [
                ("parentUuid", &rec.parent_uuid),
                ("logicalParentUuid", &rec.logical_parent_uuid),
            ];
            for (key, link) in links {
                if let Some(to) = link.as_deref().and_then(resolve) {
                    self.set_link(edits, i, key, to.as_deref());
                }
            }
        }
    }
}

/// Drops records that repeat earlier ones (same uuid, or same content and timestamp); links
/// to a dropped record move to the record it repeats.
pub fn replays(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let records = Records::of(t);
    let conv = records.conv;
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    let mut gone = HashMap::new();
    let mut replayed = Vec::new();
    for r in replay::replays(t.format, &t.source, conv) {
        edits.drop.insert(records.line(r.item));
        if let (false, Some(uuid)) = (r.same_uuid, &records.recs[r.item].uuid) {
            gone.insert(uuid.clone(), records.recs[r.first].uuid.clone());
        }
        let line = draft.origin_of(records.line(r.item));
        let first = draft.origin_of(records.line(r.first));
        if conv.items[r.item].boundary {
            repairs.push(Repair::new(
                line,
                format!("compact boundary repeated (first at line {first})"),
                "dropped (the archive keeps it)",
            ));
        } else {
            replayed.push(Replayed {
                line,
                first,
                same_uuid: r.same_uuid,
            });
        }
    }
    repairs.extend(replay::repairs(&replayed));
    records.relink(&gone, &mut edits);
    (edits, repairs)
}

/// Re-links `parentUuid`s that name no record, and breaks loops.
pub fn chain(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let records = Records::of(t);
    let index = records.index();
    let mut parent: Vec<Option<usize>> = records
        .recs
        .iter()
        .map(|r| r.parent_uuid.as_deref().and_then(|p| index.get(p).copied()))
        .collect();
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    let mut opening = true;
    for (i, rec) in records.recs.iter().enumerate() {
        if !rec.linked() {
            continue;
        }
        match rec.parent_uuid.as_deref() {
            // A file may begin mid-chain: its opening records may link outside it.
            Some(missing) if !index.contains_key(missing) => {
                if opening {
                    continue;
                }
                let fault = format!("parentUuid '{missing}' names no record in this file");
                let to = if rec.is_sidechain {
                    None
                } else {
                    nearest(&records, &parent, i)
                };
                parent[i] = to;
                let action = match to {
                    _ if rec.is_sidechain => {
                        "parentUuid set to null: the sidechain record keeps a chain of its own"
                            .to_string()
                    }
                    Some(j) => relinked_to(draft, &records, j),
                    None => "parentUuid set to null: no earlier record to link to".into(),
                };
                let uuid = to.and_then(|j| records.recs[j].uuid.as_deref());
                records.set_link(&mut edits, i, "parentUuid", uuid);
                repairs.push(Repair::new(draft.origin_of(records.line(i)), fault, action));
            }
            _ => opening = false,
        }
    }
    for ring in rings(&parent) {
        // The link that closes the loop points forward in the file (or at the record
        // itself): a client only ever links to what it wrote before.
        let at = *ring
            .iter()
            .max_by_key(|&&i| (parent[i].unwrap_or(0), i))
            .expect("a loop has records");
        parent[at] = None;
        let to = nearest(&records, &parent, at);
        parent[at] = to;
        let fault = match ring.len() {
            1 => "parentUuid names the record itself: the chain never reaches a root".into(),
            n => format!("parentUuid chain loops through {n} records"),
        };
        let action = match to {
            Some(j) => format!(
                "loop broken at its latest link: {}",
                relinked_to(draft, &records, j)
            ),
            None => "loop broken at its latest link: parentUuid set to null".into(),
        };
        let uuid = to.and_then(|j| records.recs[j].uuid.as_deref());
        records.set_link(&mut edits, at, "parentUuid", uuid);
        repairs.push(Repair::new(
            draft.origin_of(records.line(at)),
            fault,
            action,
        ));
    }
    (edits, repairs)
}

fn relinked_to(draft: &Draft, records: &Records, j: usize) -> String {
    format!(
        "re-linked to line {}, the nearest earlier record on the live path",
        draft.origin_of(records.line(j))
    )
}

/// The nearest record before `i` on the same chain (main or sidechain) that can be its
/// parent without closing a loop.
fn nearest(records: &Records, parent: &[Option<usize>], i: usize) -> Option<usize> {
    let own = &records.recs[i];
    (0..i).rev().find(|&j| {
        let rec = &records.recs[j];
        rec.on_live_path() && rec.is_sidechain == own.is_sidechain && !reaches(parent, j, i)
    })
}

/// Whether walking up from `from` reaches `to`.
fn reaches(parent: &[Option<usize>], from: usize, to: usize) -> bool {
    let mut at = from;
    for _ in 0..=parent.len() {
        if at == to {
            return true;
        }
        match parent[at] {
            Some(p) => at = p,
            None => return false,
        }
    }
    true
}

/// Answers unanswered calls with Claude Code's interrupted-call result, and drops results
/// that answer no open call.
pub fn pairing(t: &Transcript, draft: &Draft) -> (Edits, Vec<Repair>) {
    let records = Records::of(t);
    let conv = records.conv;
    let faults = pairing::faults(conv);
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    // Below each message that made unanswered calls, one result record per call, in a chain.
    let mut below: HashMap<usize, String> = HashMap::new();
    for call in &faults.unanswered {
        let end = pairing::message_end(conv, call.item);
        let parent = below
            .get(&end)
            .cloned()
            .or_else(|| records.recs[end].uuid.clone());
        let uuid = uuid_from(&format!("ctxc repair: interrupted {}", call.id));
        let record = interrupted_result(&records, call.item, &call.id, parent.as_deref(), &uuid);
        edits
            .insert_after
            .entry(records.line(end))
            .or_default()
            .push(record);
        below.insert(end, uuid);
        repairs.push(Repair::new(
            draft.origin_of(records.line(call.item)),
            format!("tool call '{}' ({}) is never answered", call.id, call.name),
            format!("added Claude Code's interrupted-call result ({INTERRUPTED})"),
        ));
    }
    // What hung below a message now hangs below the results added to it.
    for (&end, uuid) in &below {
        let Some(end_uuid) = records.recs[end].uuid.as_deref() else {
            continue;
        };
        for (i, rec) in records.recs.iter().enumerate().skip(end + 1) {
            if rec.parent_uuid.as_deref() == Some(end_uuid) && rec.kind != "progress" {
                records.set_link(&mut edits, i, "parentUuid", Some(uuid));
            }
        }
    }
    let mut gone = HashMap::new();
    for stray in &faults.stray {
        let line = records.line(stray.item);
        repairs.push(Repair::new(
            draft.origin_of(line),
            stray.fault.clone(),
            "dropped (the archive keeps it)",
        ));
        if stray.whole_item {
            edits.drop.insert(line);
            if let Some(uuid) = &records.recs[stray.item].uuid {
                gone.insert(uuid.clone(), records.recs[stray.item].parent_uuid.clone());
            }
        } else if let Some(edited) = without_results(records.texts[stray.item], &stray.ids) {
            edits.replace.insert(line, edited);
        }
    }
    records.relink(&gone, &mut edits);
    (edits, repairs)
}

/// The user record Claude Code writes when a tool call is interrupted, for the call `id` made
/// by record `caller`, linked below `parent`.
fn interrupted_result(
    records: &Records,
    caller: usize,
    id: &str,
    parent: Option<&str>,
    uuid: &str,
) -> String {
    let source: Map<String, Value> =
        serde_json::from_str(records.texts[caller]).unwrap_or_default();
    let mut record = Map::new();
    record.insert("parentUuid".into(), parent.map_or(Value::Null, Value::from));
    for key in CONTEXT_KEYS {
        if let Some(value) = source.get(key) {
            record.insert(key.into(), value.clone());
        }
    }
    record.insert("type".into(), "user".into());
    record.insert(
        "message".into(),
        json!({"role": "user", "content": [{
            "type": "tool_result",
            "content": INTERRUPTED,
            "is_error": true,
            "tool_use_id": id,
        }]}),
    );
    record.insert("uuid".into(), uuid.into());
    if let Some(timestamp) = source.get("timestamp") {
        record.insert("timestamp".into(), timestamp.clone());
    }
    record.insert("toolUseResult".into(), INTERRUPTED.into());
    // Claude Code 2.1.330 marks the result it writes for an interrupted call so.
    record.insert("toolDenialKind".into(), "interrupted".into());
    if let Some(caller_uuid) = source.get("uuid") {
        record.insert("sourceToolAssistantUUID".into(), caller_uuid.clone());
    }
    Value::Object(record).to_string()
}

/// `record` without its `tool_result` blocks answering `ids`; `None` if it has none.
fn without_results(record: &str, ids: &[String]) -> Option<String> {
    let value: Value = serde_json::from_str(record).ok()?;
    let blocks = value.pointer("/message/content")?.as_array()?;
    let kept: Vec<&Value> = blocks
        .iter()
        .filter(|b| {
            let answers = b.get("tool_use_id").and_then(Value::as_str);
            !(b.get("type").and_then(Value::as_str) == Some("tool_result")
                && answers.is_some_and(|a| ids.iter().any(|id| id == a)))
        })
        .collect();
    let mut message = value.get("message")?.clone();
    message["content"] = Value::Array(kept.into_iter().cloned().collect());
    replace_member(record, "message", &message.to_string())
}
