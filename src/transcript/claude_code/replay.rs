//! Claude Code's replayed history (`crate::transcript::replay`): a record's key is its uuid,
//! and for a stamped record that must not repeat, a hash of its content links aside; records
//! that share no uuid, type and timestamp with another are found first, in one scan, so only
//! the few that might repeat are decoded whole.

use crate::json::lenient::strict;
use crate::transcript::Conversation;
use crate::transcript::replay::Key;
use foldhash::{HashMap, HashMapExt};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// Claude Code record types that may repeat with the same content and timestamp (a hook's
/// progress reported twice in one millisecond); a replayed one repeats its uuid.
const CLAUDE_CODE_REPEATABLE: [&str; 1] = ["progress"];

/// Claude Code's members that link records: a replay written with new uuids differs in them.
const LINKS: [&str; 3] = ["uuid", "parentUuid", "logicalParentUuid"];

/// A record's [`Key`]: its uuid, and for a stamped record that may not repeat, a hash of
/// its content without its links.
pub(super) fn key(raw: &str) -> Option<Key> {
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
/// need [`key`], which decodes and re-serializes the whole record: that was a fifth of
/// compacting a session. A record dropped here could match no other record in
/// [`replays`](crate::transcript::replay::replays), so the result is the same. `None` (every
/// record a candidate) when some record cannot be scanned (a member repeated, a value
/// serde_json refuses).
pub(super) fn candidates(source: &str, conv: &Conversation) -> Option<Vec<bool>> {
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

/// A record's key for [`candidates`]: `Some(None)` when it is not an object (it
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::replay::replays;
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
        let candidates = candidates(&t.source, conv).expect("every record scans");
        assert!(candidates.contains(&false), "{candidates:?}");
        let found = replays(t.format, &t.source, conv);
        let mut every = Vec::new();
        for (at, item) in conv.items.iter().enumerate() {
            if let Some(key) = key(&t.source[item.span.clone()]) {
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
