//! Replayed history: records a session file holds twice. A second `/compact` (or a client
//! that re-appends what it summarized) writes the same records again at the end of the file,
//! with the uuids they had (claude-code#92089), or as new records with the same content and
//! timestamp; the file then grows quadratically and the chain forks. `check` names each
//! repeat, `ctxc repair` drops it.
//!
//! Claude Code `progress` records and Codex's events legitimately repeat (a token count
//! reported twice in one millisecond), so only a repeated uuid makes them replays; any other
//! record repeated whole with its timestamp, links aside, is one. Each format's key lives in
//! its adapter's folder (`claude_code/replay.rs`, `codex/replay.rs`), named by
//! [`Adapter::replay_keys`](super::Adapter).

use super::edit::Repair;
use super::{Conversation, Finding, Format};
use foldhash::{HashMap, HashMapExt};

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

/// The replayed records of a conversation, in file order.
pub fn replays(format: Format, source: &str, conv: &Conversation) -> Vec<Replay> {
    let Some(Keys { key, candidates }) = format.adapter().replay_keys() else {
        return Vec::new();
    };
    let candidates = candidates.and_then(|candidates| candidates(source, conv));
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

/// A replayed record, at input lines.
#[derive(Debug, Clone, Copy)]
pub struct Replayed {
    /// The replaying record's line.
    pub line: usize,
    /// The line of the record it replays.
    pub first: usize,
    /// Whether it carries that record's uuid.
    pub same_uuid: bool,
}

/// The repairs of dropped replays: a run of records replaying a run of records (a block
/// re-appended whole) is one repair.
pub fn repairs(found: &[Replayed]) -> Vec<Repair> {
    let mut repairs = Vec::new();
    let mut at = 0;
    while at < found.len() {
        let start = found[at];
        let mut end = at;
        while let Some(next) = found.get(end + 1) {
            let prev = found[end];
            if next.line != prev.line + 1
                || next.first != prev.first + 1
                || next.same_uuid != start.same_uuid
            {
                break;
            }
            end += 1;
        }
        let same = if start.same_uuid {
            "same uuid"
        } else {
            "same content and timestamp"
        };
        let mut repair = Repair::new(start.line, "", "dropped (the archive keeps it)");
        repair.fault = match end - at {
            0 => format!("record replays line {} ({same})", start.first),
            n => {
                repair.last_line = Some(found[end].line);
                format!(
                    "{} records replay lines {}-{} ({same})",
                    n + 1,
                    start.first,
                    found[end].first
                )
            }
        };
        repairs.push(repair);
        at = end + 1;
    }
    repairs
}

/// How a format tells its replayed records ([`Adapter::replay_keys`](super::Adapter)).
pub(crate) struct Keys {
    /// A record's [`Key`], from its text: `None` for a record that is never compared.
    pub key: fn(&str) -> Option<Key>,
    /// Which records may repeat another or be repeated, found before `key` decodes each
    /// (none: every record is one).
    pub candidates: Option<Candidates>,
}

/// For a conversation in its source, whether each record may repeat another or be repeated;
/// `None` when every record must be taken as one.
pub(crate) type Candidates = fn(&str, &Conversation) -> Option<Vec<bool>>;

/// What makes two records the same.
pub(crate) struct Key {
    /// The record's uuid, when it has one.
    pub uuid: Option<String>,
    /// A hash of the content, for records that must not repeat it.
    pub content: Option<u128>,
}
