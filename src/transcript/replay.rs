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
use serde_json::Value;
use std::collections::HashMap;

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
    let mut by_uuid: HashMap<String, usize> = HashMap::new();
    let mut by_content: HashMap<u128, usize> = HashMap::new();
    let mut found = Vec::new();
    for (at, item) in conv.items.iter().enumerate() {
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
            let message = if item.boundary {
                format!("compact boundary repeated (first at line {first}): replayed history")
            } else {
                format!(
                    "record repeats line {first} (same content and timestamp): replayed history"
                )
            };
            let of =
                xxhash_rust::xxh3::xxh3_64(source[conv.items[r.first].span.clone()].as_bytes());
            Finding::new(item.line, message).with_identity(format!("replay of {of:016x}"))
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

fn codex_key(raw: &str) -> Option<Key> {
    let record: Value = serde_json::from_str(raw).ok()?;
    let kind = record.get("type").and_then(Value::as_str)?;
    let history = CODEX_HISTORY.contains(&kind) && record.get("timestamp").is_some();
    Some(Key {
        uuid: None,
        content: history.then(|| xxhash_rust::xxh3::xxh3_128(raw.trim().as_bytes())),
    })
}
