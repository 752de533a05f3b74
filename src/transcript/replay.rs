//! Replayed history: records a session file holds twice. A second `/compact` (or a client
//! that re-appends what it summarized) writes the same records again at the end of the file,
//! with the uuids they had (claude-code#92089), or as new records with the same content and
//! timestamp; the file then grows quadratically and the chain forks. `check` names each
//! repeat, `ctxc repair` drops it.
//!
//! Claude Code `progress` records and Codex's events legitimately repeat (a token count
//! reported twice in one millisecond), so only a repeated uuid makes them replays; any other
//! record repeated whole with its timestamp, links aside, is one.

use super::{Conversation, Finding, Format};
use crate::json::lenient::strict;
use foldhash::{HashMap, HashMapExt};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A record that repeats an earlier one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The repeating item.
    pub item: usize,
    /// The earlier item it repeats.
    pub first: usize,
    /// Whether it carries the earlier record's uuid (else: its content and timestamp).
    pub same_uuid: bool,
}

/// Claude Code record types that may repeat with the same content and timestamp (a hook's
/// progress reported twice in one millisecond); a replayed one repeats its uuid.
const CLAUDE_CODE_REPEATABLE: [&str; 1] = ["progress"];

/// Codex record types that are the model's history.
const CODEX_HISTORY: [&str; 2] = ["response_item", "compacted"];

/// Claude Code's members that link records: a replay written with new uuids differs in them.
const LINKS: [&str; 3] = ["uuid", "parentUuid", "logicalParentUuid"];

/// The replayed records of a conversation, in file order.
pub fn replays(format: Format, source: &str, conv: &Conversation) -> Vec<Replay> {
    let key: fn(&str) -> Option<Key> = match format {
        Format::ClaudeCode => claude_code_key,
        Format::Codex => codex_key,
        _ => return Vec::new(),
    };
    let candidates = match format {
        Format::ClaudeCode => claude_code_candidates(source, conv),
        _ => None,
    };
    let mut by_uuid: HashMap<String, usize> = HashMap::new();
    let mut by_content: HashMap<u128, usize> = HashMap::new();
    let mut found = Vec::new();
    for (at, item) in conv.items.iter().enumerate() {
        if candidates.as_ref().is_some_and(|c| !c[at]) {
            continue;
        }
        let Some(key) = key(&source[item.span.clone()]) else {
            continue;
        };
        if let Some(uuid) = key.uuid {
            if let Some(&first) = by_uuid.get(&uuid) {
                found.push(Replay {
                    item: at,
                    first,
                    same_uuid: true,
                });
                continue;
            }
            by_uuid.insert(uuid, at);
        }
        let Some(content) = key.content else { continue };
        match by_content.get(&content) {
            Some(&first) => found.push(Replay {
                item: at,
                first,
                same_uuid: false,
            }),
            None => {
                by_content.insert(content, at);
            }
        }
    }
    found
}

/// What `check` says of the replays: a content replay (a same-uuid one is already named as a
/// repeated uuid), and every repeated compact boundary.
pub fn findings(format: Format, source: &str, conv: &Conversation) -> Vec<Finding> {
    replays(format, source, conv)
        .into_iter()
        .filter(|r| !r.same_uuid || conv.items[r.item].boundary)
        .map(|r| {
            let first = conv.items[r.first].line;
            let item = &conv.items[r.item];
            let (message, how) = if item.boundary {
                let message =
                    format!("compact boundary repeated (first at line {first}): replayed history");
                (message, "compact boundary")
            } else {
                let how = "same content and timestamp";
                let message = format!("record repeats line {first} ({how}): replayed history");
                (message, how)
            };
            // Matched by count within the conversation: a compacted output may mask or drop
            // either copy, so which record a replay repeats is not kept; it may keep no more
            // replays than the input had.
            Finding::new(item.line, message)
                .with_identity(format!("replayed history in '{}'", conv.location))
                .repeating(first, how)
        })
        .collect()
}

/// What makes two records the same.
struct Key {
    uuid: Option<String>,
    /// A hash of the content, for records that must not repeat it.
    content: Option<u128>,
}

fn claude_code_key(raw: &str) -> Option<Key> {
    let Ok(Value::Object(mut record)) = serde_json::from_str::<Value>(raw) else {
        return None;
    };
    let uuid = record.get("uuid").and_then(Value::as_str).map(String::from);
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    // Content repeats only with the time it was written (a snapshot keeps it inside).
    let stamped = record.contains_key("timestamp") || kind == "file-history-snapshot";
    let repeatable = CLAUDE_CODE_REPEATABLE.contains(&kind) || !stamped;
    let content = (!repeatable).then(|| {
        LINKS.iter().for_each(|k| {
            record.remove(*k);
        });
        xxhash_rust::xxh3::xxh3_128(Value::Object(record).to_string().as_bytes())
    });
    Some(Key { uuid, content })
}

/// The members of a Claude Code record that its [`Key`] depends on first, read in one scan.
#[derive(Deserialize)]
struct Stamp<'a> {
    #[serde(
        rename = "type",
        borrow,
        default,
        deserialize_with = "crate::json::present"
    )]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "crate::json::present")]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "crate::json::present")]
    uuid: Option<&'a RawValue>,
}

/// Which records may repeat another or be repeated: those sharing a uuid, or a type and
/// timestamp, with another record (two records of the same content share both). Only these
/// need [`claude_code_key`], which decodes and re-serializes the whole record: that was a
/// fifth of compacting a session. A record dropped here could match no other record in
/// [`replays`], so the result is the same. `None` (every record a candidate) when some
/// record cannot be scanned (a member repeated, a value serde_json refuses).
fn claude_code_candidates(source: &str, conv: &Conversation) -> Option<Vec<bool>> {
    let mut keys: Vec<Cow<Option<Stamped>>> = Vec::with_capacity(conv.items.len());
    for item in &conv.items {
        // Read with the record when it was read in one scan ([`Item::chain`]); borrowed.
        let read = item.chain.as_ref().and_then(|c| c.replay.as_ref());
        let key = match read {
            Some(key) => Cow::Borrowed(key),
            None => Cow::Owned(scan(&source[item.span.clone()])?),
        };
        keys.push(key);
    }
    let mut uuids: HashMap<&str, usize> = HashMap::new();
    let mut stamps: HashMap<u128, usize> = HashMap::new();
    for Stamped { uuid, content } in keys.iter().filter_map(|key| Option::as_ref(key)) {
        if let Some(uuid) = uuid {
            *uuids.entry(uuid).or_default() += 1;
        }
        if let Some(content) = content {
            *stamps.entry(*content).or_default() += 1;
        }
    }
    let shared = |key: &Cow<Option<Stamped>>| {
        Option::as_ref(key).is_some_and(|Stamped { uuid, content }| {
            uuid.as_deref().is_some_and(|u| uuids[u] > 1) || content.is_some_and(|c| stamps[&c] > 1)
        })
    };
    Some(keys.iter().map(shared).collect())
}

/// A Claude Code record's uuid and stamp (a hash of its type and timestamp, for a record whose
/// content must not repeat), each `None` when it has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamped {
    uuid: Option<String>,
    content: Option<u128>,
}

/// What [`scan`] makes of a record that is an object: `None` when a value is one serde_json
/// refuses.
pub(crate) fn stamped(
    kind: Option<&str>,
    timestamp: Option<&str>,
    uuid: Option<&str>,
) -> Option<Stamped> {
    let (kind, timestamp, uuid) = (canonical(kind)?, canonical(timestamp)?, canonical(uuid)?);
    let kind_name = string_of(&kind).unwrap_or("");
    let stamped = timestamp.is_some() || kind_name == "file-history-snapshot";
    let repeatable = CLAUDE_CODE_REPEATABLE.contains(&kind_name) || !stamped;
    let content = (!repeatable).then(|| {
        // Each member absent, or its length and text: no two pairs hash alike (up to a
        // collision), without formatting a string per record.
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for member in [&kind, &timestamp] {
            match member {
                None => h.update(&[0]),
                Some((text, _)) => {
                    h.update(&[1]);
                    h.update(&(text.len() as u64).to_le_bytes());
                    h.update(text.as_bytes());
                }
            }
        }
        h.digest128()
    });
    let uuid = string_of(&uuid).map(String::from);
    Some(Stamped { uuid, content })
}

/// A member's value as serde_json writes it, and its text when it is a string: `Some(None)`
/// when absent, `None` when serde_json refuses it.
type Canonical<'a> = Option<(Cow<'a, str>, Option<Cow<'a, str>>)>;

fn string_of<'a>(value: &'a Canonical) -> Option<&'a str> {
    value.as_ref().and_then(|(_, s)| s.as_deref())
}

fn canonical(text: Option<&str>) -> Option<Canonical<'_>> {
    let Some(text) = text else {
        return Some(None);
    };
    // A string without escapes is written back as it is: no decoding needed (most are).
    if text.len() >= 2 && text.starts_with('"') && !text.contains('\\') {
        let inner = Cow::Borrowed(&text[1..text.len() - 1]);
        return Some(Some((Cow::Borrowed(text), Some(inner))));
    }
    let value = strict(text)?;
    let string = value.as_str().map(|s| Cow::Owned(s.to_owned()));
    Some(Some((Cow::Owned(value.to_string()), string)))
}

/// A record's key for [`claude_code_candidates`]: `Some(None)` when it is not an object (it
/// has no [`Key`] either), `None` when it cannot be scanned.
fn scan(raw: &str) -> Option<Option<Stamped>> {
    if !raw.trim_start().starts_with('{') {
        return Some(None);
    }
    let stamp: Stamp = serde_json::from_str(raw).ok()?;
    let [kind, timestamp, uuid] =
        [stamp.kind, stamp.timestamp, stamp.uuid].map(|raw| raw.map(RawValue::get));
    stamped(kind, timestamp, uuid).map(Some)
}

fn codex_key(raw: &str) -> Option<Key> {
    let record: Value = serde_json::from_str(raw).ok()?;
    let kind = record.get("type").and_then(Value::as_str)?;
    let history = CODEX_HISTORY.contains(&kind) && record.get("timestamp").is_some();
    Some(Key {
        uuid: None,
        content: history.then(|| xxhash_rust::xxh3::xxh3_128(raw.trim().as_bytes())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ReadOptions, read};

    /// A session replayed twice over: a record repeated with its uuid, one repeated with new
    /// uuids, progress repeated (legitimately) and by uuid, a snapshot without a timestamp,
    /// a record serde_json refuses whole (a lone surrogate), and records alike but for their
    /// timestamp or content.
    const SESSION: [&str; 10] = [
        r#"{"type":"user","uuid":"a","parentUuid":null,"timestamp":"t1","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"assistant","uuid":"b","parentUuid":"a","timestamp":"t2","message":{"id":"m","role":"assistant","content":"yo"}}"#,
        r#"{"type":"progress","uuid":"c","parentUuid":"b","timestamp":"t2","data":{}}"#,
        r#"{"type":"progress","uuid":"d","parentUuid":"c","timestamp":"t2","data":{}}"#,
        r#"{"type":"file-history-snapshot","messageId":"b","snapshot":{}}"#,
        r#"{"type":"user","uuid":"e","parentUuid":"d","timestamp":"t2","message":{"role":"user","content":"\ud800"}}"#,
        r#"{"type":"user","uuid":"a","parentUuid":"e","timestamp":"t1","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"assistant","uuid":"x","parentUuid":"a","timestamp":"t2","message":{"id":"m","role":"assistant","content":"yo"}}"#,
        r#"{"type":"progress","uuid":"c","parentUuid":"x","timestamp":"t2","data":{}}"#,
        r#"{"type":"file-history-snapshot","messageId":"b","snapshot":{}}"#,
    ];

    #[test]
    fn candidates_find_every_replay_that_decoding_every_record_finds() {
        let source = SESSION.join("\n") + "\n";
        let t = read(source, &ReadOptions::default()).unwrap();
        let conv = &t.conversations[0];
        // Each record's key, read with it in one scan, is what a scan of its own finds.
        for item in &conv.items {
            let read = item.chain.as_ref().and_then(|c| c.replay.clone());
            let own = scan(&t.source[item.span.clone()]).expect("scans");
            assert!(read.is_none_or(|read| read == own), "{item:?}");
        }
        let candidates = claude_code_candidates(&t.source, conv).expect("every record scans");
        assert!(candidates.contains(&false), "{candidates:?}");
        let found = replays(t.format, &t.source, conv);
        let mut every = Vec::new();
        for (at, item) in conv.items.iter().enumerate() {
            if let Some(key) = claude_code_key(&t.source[item.span.clone()]) {
                every.push((at, key.uuid, key.content));
            }
        }
        // The same pass as `replays`, over every record.
        let mut expected = Vec::new();
        for (i, (at, uuid, content)) in every.iter().enumerate() {
            let earlier = &every[..i];
            if let Some(u) = uuid {
                if let Some(first) = earlier.iter().find(|e| e.1.as_ref() == Some(u)) {
                    expected.push((*at, first.0, true));
                    continue;
                }
            }
            let seen = earlier.iter().filter(|e| {
                // Content is only remembered for records not already replays by uuid.
                !expected.iter().any(|r| r.0 == e.0 && r.2)
            });
            if let Some(first) = content.and_then(|c| seen.clone().find(|e| e.2 == Some(c))) {
                expected.push((*at, first.0, false));
            }
        }
        let found: Vec<_> = found
            .iter()
            .map(|r| (r.item, r.first, r.same_uuid))
            .collect();
        assert_eq!(found, expected);
        assert_eq!(
            found,
            [(6, 0, true), (7, 1, false), (8, 2, true), (9, 4, false)]
        );
    }
}
