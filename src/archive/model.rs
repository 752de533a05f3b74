//! The archive file's data, as serde types: what `ctxc compact --archive` writes and what
//! `ctxc restore` and `ctxc archive show` read. Field names are camelCase; every record keeps
//! its own ctxc version, so an archive that grew over several ctxc releases still reads.
//!
//! Schema 2 added generations (see [`super::chain`]): `generation`, `previousOutput`,
//! `outputCopy` and `pending`. A schema 1 archive reads as one generation, all committed.

use crate::human::Shown;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The schema version this ctxc writes for transcript files.
pub const SCHEMA_VERSION: u32 = 2;

/// The schema version of an archive that holds a dataset's compaction ([`Record::dataset`]):
/// a ctxc that reads only schema 2 refuses it rather than restore it as a file.
pub const DATASET_SCHEMA_VERSION: u32 = 3;

/// The oldest schema this ctxc still reads.
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

/// The `kind` member that marks a JSON file as a ctxc archive.
pub const KIND: &str = "ctxc-archive";

/// The suffix of archive file names: `NAME.ctxc-archive.json`.
pub const SUFFIX: &str = ".ctxc-archive.json";

/// A whole archive: every compaction of a chain, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Archive {
    /// [`SCHEMA_VERSION`] when written ([`DATASET_SCHEMA_VERSION`] for a dataset's).
    pub schema_version: u32,
    /// Always [`KIND`].
    pub kind: String,
    /// The compactions, oldest first: within a generation record `k`'s output is record
    /// `k + 1`'s input; the first record of a later generation links back with
    /// [`Record::previous_output`].
    pub records: Vec<Record>,
}

/// One compaction of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The ctxc that compacted.
    pub ctxc_version: String,
    /// When, RFC 3339 UTC.
    pub time: String,
    /// The transcript format.
    pub format: String,
    /// The file compacted.
    pub input: FileRef,
    /// The file written.
    pub output: FileRef,
    /// Whether the output differs from the input at all.
    pub changed: bool,
    /// Triggers that fired in any conversation, in order of first appearance.
    pub triggers: Vec<String>,
    /// The effective settings (as `ctxc config show --json` prints them).
    pub settings: serde_json::Value,
    /// The conversations compaction ran on (those where a trigger fired).
    pub conversations: Vec<ConversationRecord>,
    /// The input, rebuilt from the output: `[start, end]` copies those bytes of the output, a
    /// string is original text the compaction removed or changed.
    pub restore: Vec<Piece>,
    /// Which generation of the file this compaction belongs to, from 1. A file that changed
    /// since the archive's last compaction (a resumed client appended to it) starts the next
    /// generation; the earlier ones are kept.
    #[serde(default = "first_generation")]
    pub generation: u32,
    /// On the first record of a later generation: the previous record's output, rebuilt from
    /// this record's input (pieces as in `restore`). `None` there when it could not be kept
    /// (a schema 1 archive, no copy, and a file that was rewritten rather than appended to):
    /// the earlier generations are then kept for reading but cannot be restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_output: Option<Vec<Piece>>,
    /// On the latest record: its output, whole, so that the next generation can be linked
    /// whatever happens to the file, and `restore` works when the file changed or is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_copy: Option<String>,
    /// Written before its output is put in place, cleared once it is: a pending record whose
    /// output never reached the file (a crash, a refused replace) is not a compaction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// A Parquet dataset's compaction (schema 3): its rows come back value-identical, not
    /// byte-identical, so `restore` is empty and the changed rows' restore data is here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<DatasetRecord>,
}

/// What a compaction changed in a Parquet dataset, to give every row back value-identical.
///
/// A row's conversation is taken as the JSON text ctxc reads it as (a list-of-struct value
/// written out by Arrow's JSON writer, a JSON string as it is): the archive rebuilds the
/// original text of each changed row from the compacted row's text, and `restore` writes it
/// back into the column's own type. Every other column, and every row not listed, is copied
/// from the compacted dataset, where they are as they were.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetRecord {
    /// The conversation column.
    pub column: String,
    /// Rows in the dataset.
    pub rows: u64,
    /// [`hash`] over every row's conversation text, in row order (a null counted as one):
    /// the input's, which a restore to this record's input is checked against.
    pub values_hash: String,
    /// The rows the compaction changed, in row order.
    pub changed: Vec<RowRestore>,
}

/// One changed row of a dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowRestore {
    /// Its index, from 0.
    pub row: u64,
    /// [`hash`] of its original text.
    pub hash: String,
    /// Its original text rebuilt from the compacted row's text (pieces as in
    /// [`Record::restore`], ranges of the compacted text).
    pub restore: Vec<Piece>,
}

fn first_generation() -> u32 {
    1
}

/// A file a record names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRef {
    /// Its absolute path when written (`None`: standard input, or built in memory).
    pub path: Option<String>,
    /// The same path relative to the archive's directory, so an archive that moved together
    /// with its files still finds them.
    pub relative_to_archive: Option<String>,
    /// Its size.
    pub bytes: u64,
    /// [`hash`] of its bytes.
    pub hash: String,
}

/// What happened to one conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationRecord {
    /// Where it is in the file (`/3/traj`; empty for the whole file).
    pub location: String,
    /// First and last line of its list in the input.
    pub lines: [usize; 2],
    /// Triggers that fired.
    pub triggers: Vec<String>,
    /// Whether the output changed it.
    pub edited: bool,
    /// The token target it was compacted towards.
    pub target_tokens: Option<usize>,
    /// Context tokens before.
    pub tokens_before: usize,
    /// Context tokens after.
    pub tokens_after: usize,
    /// Logical messages before.
    pub messages_before: usize,
    /// Logical messages after.
    pub messages_after: usize,
    /// Why the target was missed, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortfall: Option<String>,
    /// The strategies tried, in order.
    pub steps: Vec<StepRecord>,
}

/// One strategy tried on a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    /// The strategy's name.
    pub strategy: String,
    /// Whether the step was taken (it changed something without adding tokens).
    pub changed: bool,
    /// Context tokens before it.
    pub tokens_before: usize,
    /// Context tokens after it.
    pub tokens_after: usize,
    /// Logical messages before it.
    pub messages_before: usize,
    /// Logical messages after it.
    pub messages_after: usize,
    /// What it did, in original order.
    pub edits: Vec<Edit>,
}

/// What one step did to a run of original items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    /// The kind of change.
    pub action: Action,
    /// First and last original item (0-based, inclusive) in the conversation.
    pub items: [usize; 2],
    /// First and last line of those items in the input (1-based, inclusive).
    pub lines: [usize; 2],
    /// Their bytes in the input.
    pub bytes: usize,
    /// The summary written in their place (`summarized` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The kinds of change a step makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Replaced by one summary message.
    Summarized,
    /// Removed without a summary.
    Dropped,
    /// A tool result's output replaced by a short placeholder.
    Masked,
    /// A message shortened: its text replaced by a shorter one, or its old thinking dropped.
    Truncated,
    /// Stored-only payloads removed (duplicate copies, embedded media).
    Stripped,
}

impl Action {
    /// The name shown in `ctxc archive show`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Summarized => "summarized",
            Action::Dropped => "dropped",
            Action::Masked => "masked",
            Action::Truncated => "truncated",
            Action::Stripped => "stripped",
        }
    }
}

/// One piece of a rebuilt file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Piece {
    /// Bytes `start..end` of the compacted file.
    Copy([usize; 2]),
    /// Original text, byte-for-byte.
    Text(String),
}

/// The hash archives keep of a file: `xxh3-128:` and 32 hex digits.
pub fn hash(bytes: &[u8]) -> String {
    hash_of(xxhash_rust::xxh3::xxh3_128(bytes))
}

/// [`hash`] of bytes hashed in pieces: the xxh3-128 `digest` written out.
pub fn hash_of(digest: u128) -> String {
    format!("xxh3-128:{digest:032x}")
}

impl Archive {
    /// An archive of these records.
    pub fn new(records: Vec<Record>) -> Self {
        Archive {
            schema_version: schema_of(&records),
            kind: KIND.into(),
            records,
        }
    }

    /// Parses an archive's text; `path` names it in errors (with the line and column of a
    /// syntax error).
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let probe: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            // One JSON value per line: a transcript (or a report), never an archive.
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if e.line() > 1 && serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok() {
                return anyhow::anyhow!(
                    "{} is not a ctxc archive: it holds JSON lines (a transcript?); restore takes the NAME{SUFFIX} that `compact --archive` wrote",
                    path.shown()
                );
            }
            anyhow::anyhow!(
                "{}:{}:{}: not valid JSON: {e}",
                path.shown(),
                e.line(),
                e.column()
            )
        })?;
        if probe.get("kind").and_then(|k| k.as_str()) != Some(KIND) {
            bail!(
                "{} is not a ctxc archive (no \"kind\": \"{KIND}\")",
                path.shown()
            );
        }
        let version = probe.get("schemaVersion").and_then(|v| v.as_u64());
        let known = u64::from(OLDEST_SCHEMA_VERSION)..=u64::from(DATASET_SCHEMA_VERSION);
        if !version.is_some_and(|v| known.contains(&v)) {
            bail!(
                "{} has archive schema {}; this ctxc reads schemas {OLDEST_SCHEMA_VERSION} to {DATASET_SCHEMA_VERSION}",
                path.shown(),
                version.map_or("(none)".into(), |v| v.to_string())
            );
        }
        let mut archive: Archive = serde_json::from_value(probe)
            .with_context(|| format!("{} is a damaged ctxc archive", path.shown()))?;
        archive.schema_version = schema_of(&archive.records);
        if archive.records.is_empty() {
            bail!("{} holds no compaction records", path.shown());
        }
        Ok(archive)
    }

    /// Reads and parses the archive at `path`.
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = super::place::read(path)
            .with_context(|| format!("reading the archive {}", path.shown()))?
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "reading the archive {}: no such file or object",
                    path.shown()
                )
            })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("{} is not UTF-8: not a ctxc archive", path.shown()))?;
        Archive::parse(&text, path)
    }

    /// The archive as written (its schema that of its records): compact JSON (pretty printing doubles the records of files
    /// with many conversations; `ctxc archive show` is the readable view) and a final newline.
    pub fn to_json(&self) -> String {
        /// The archive borrowed, with the schema its records need.
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Out<'a> {
            schema_version: u32,
            kind: &'a str,
            records: &'a [Record],
        }
        let out = Out {
            schema_version: schema_of(&self.records),
            kind: &self.kind,
            records: &self.records,
        };
        let mut text = serde_json::to_string(&out).expect("archives always serialize");
        text.push('\n');
        text
    }
}

/// The schema `records` need: [`DATASET_SCHEMA_VERSION`] when one is a dataset's.
fn schema_of(records: &[Record]) -> u32 {
    if records.iter().any(|r| r.dataset.is_some()) {
        DATASET_SCHEMA_VERSION
    } else {
        SCHEMA_VERSION
    }
}

impl Record {
    /// Original bytes the record keeps to rebuild its input.
    pub fn archived_bytes(&self) -> usize {
        let rows = self.dataset.iter().flat_map(|d| &d.changed);
        text_bytes(&self.restore) + rows.map(|r| text_bytes(&r.restore)).sum::<usize>()
    }
}

fn text_bytes(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.len(),
            Piece::Copy(_) => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Archive> {
        Archive::parse(text, Path::new("a.ctxc-archive.json"))
    }

    #[test]
    fn pieces_are_ranges_or_strings() {
        let pieces = vec![Piece::Copy([0, 5]), Piece::Text("é\"\n".into())];
        let text = serde_json::to_string(&pieces).unwrap();
        assert_eq!(text, r#"[[0,5],"é\"\n"]"#);
        assert_eq!(serde_json::from_str::<Vec<Piece>>(&text).unwrap(), pieces);
    }

    #[test]
    fn other_json_and_other_schemas_are_refused_by_name() {
        let err = parse(r#"{"records": []}"#).unwrap_err().to_string();
        assert!(
            err.contains("a.ctxc-archive.json is not a ctxc archive"),
            "{err}"
        );
        let newer = r#"{"schemaVersion": 4, "kind": "ctxc-archive", "records": []}"#;
        let err = parse(newer).unwrap_err().to_string();
        assert!(
            err.contains("schema 4; this ctxc reads schemas 1 to 3"),
            "{err}"
        );
        let broken = "{\"kind\": \"ctxc-archive\",\n \"records\": [}";
        let err = parse(broken).unwrap_err().to_string();
        assert!(
            err.starts_with("a.ctxc-archive.json:2:14: not valid JSON"),
            "{err}"
        );
        let empty = r#"{"schemaVersion": 1, "kind": "ctxc-archive", "records": []}"#;
        assert!(
            parse(empty)
                .unwrap_err()
                .to_string()
                .contains("no compaction records")
        );
    }

    #[test]
    fn hashes_name_their_algorithm() {
        let h = hash(b"");
        assert!(h.starts_with("xxh3-128:") && h.len() == 9 + 32, "{h}");
    }
}
