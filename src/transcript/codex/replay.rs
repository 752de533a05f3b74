//! Codex's replayed history (`crate::transcript::replay`): a history record (`response_item`,
//! `compacted`) repeated whole with its timestamp; events legitimately repeat.

use crate::transcript::replay::Key;
use serde_json::Value;

/// Codex record types that are the model's history.
const CODEX_HISTORY: [&str; 2] = ["response_item", "compacted"];

/// A rollout record's [`Key`]: a hash of a history record's text, none for the rest.
pub(super) fn key(raw: &str) -> Option<Key> {
    let record: Value = serde_json::from_str(raw).ok()?;
    let kind = record.get("type").and_then(Value::as_str)?;
    let history = CODEX_HISTORY.contains(&kind) && record.get("timestamp").is_some();
    Some(Key {
        uuid: None,
        content: history.then(|| xxhash_rust::xxh3::xxh3_128(raw.trim().as_bytes())),
    })
}
