//! Damage done to real sessions the way clients and crashes do it, for the tests of `check`
//! and `repair`: a tool result lost, a block of history replayed at the end, the last line cut
//! mid-way, a `parentUuid` naming a missing record, a loop of parents, a garbage line. Each
//! works on the JSON Lines text of a Claude Code session or a Codex rollout, picks its place
//! from the file's own records (never from line numbers known in advance), and says what
//! `check` must name.

use serde_json::Value;

/// A kind of damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damage {
    /// A tool result record deleted: its call goes unanswered.
    DeleteToolResult,
    /// A block of records re-appended at the end with the same uuids (a second `/compact`).
    DuplicateBlock,
    /// The last line cut mid-way, without its newline (a crash mid-write).
    CutLastLine,
    /// A `parentUuid` pointed at a record that does not exist.
    DanglingParent,
    /// A record made the child of its own child.
    Cycle,
    /// A line of garbage inserted in the middle.
    GarbageLine,
}

impl Damage {
    /// Every kind.
    #[allow(dead_code)] // each test binary that includes this file uses part of it
    pub const ALL: [Damage; 6] = [
        Damage::DeleteToolResult,
        Damage::DuplicateBlock,
        Damage::CutLastLine,
        Damage::DanglingParent,
        Damage::Cycle,
        Damage::GarbageLine,
    ];

    /// The kinds that apply to a Codex rollout (it has no chain).
    #[allow(dead_code)] // each test binary that includes this file uses part of it
    pub const CODEX: [Damage; 4] = [
        Damage::DeleteToolResult,
        Damage::DuplicateBlock,
        Damage::CutLastLine,
        Damage::GarbageLine,
    ];
}

/// The damaged text, and a piece of what `check` must say about it.
pub fn damage(text: &str, kind: Damage) -> (String, &'static str) {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let values: Vec<Option<Value>> = lines.iter().map(|l| serde_json::from_str(l).ok()).collect();
    match kind {
        Damage::DeleteToolResult => {
            let results: Vec<usize> = (0..lines.len())
                .filter(|&i| values[i].as_ref().is_some_and(is_tool_result))
                .collect();
            assert!(!results.is_empty(), "no tool result to delete");
            lines.remove(results[results.len() / 2]);
            (joined(&lines), "is never answered")
        }
        Damage::DuplicateBlock => {
            let n = lines.len();
            let block: Vec<String> = lines[n / 3..(n / 3 + 40).min(n)].to_vec();
            lines.extend(block);
            // `check` names a run of replayed records as one block, by uuid or by content.
            (joined(&lines), "replayed history")
        }
        Damage::CutLastLine => {
            let mut out = joined(&lines);
            out.pop();
            let last = lines.last().expect("a line");
            let cut = out.len() - last.len() / 2;
            out.truncate(floor_char(&out, cut));
            (out, "torn last line")
        }
        Damage::DanglingParent => {
            let i = middle_child(&values);
            lines[i] = with_parent(&lines[i], "00000000-dead-4bad-8bad-000000000000");
            (joined(&lines), "names no record in this file")
        }
        Damage::Cycle => {
            let child = middle_child(&values);
            let parent_uuid = parent_of(&values[child]);
            let parent = (0..child)
                .rev()
                .find(|&j| uuid_of(&values[j]) == Some(parent_uuid.clone()))
                .expect("the parent is in the file");
            let child_uuid = uuid_of(&values[child]).expect("a uuid");
            lines[parent] = with_parent(&lines[parent], &child_uuid);
            (joined(&lines), "loops")
        }
        Damage::GarbageLine => {
            let at = lines.len() / 2;
            lines.insert(at, "this is not JSON {\"type\":".into());
            (joined(&lines), "invalid JSON")
        }
    }
}

fn joined(lines: &[String]) -> String {
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn floor_char(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A Claude Code `tool_result` record or a Codex call output.
fn is_tool_result(v: &Value) -> bool {
    let codex = v.pointer("/payload/type").and_then(Value::as_str) == Some("function_call_output");
    let claude = v
        .pointer("/message/content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        });
    codex || claude
}

fn uuid_of(v: &Option<Value>) -> Option<String> {
    v.as_ref()?.get("uuid")?.as_str().map(String::from)
}

fn parent_of(v: &Option<Value>) -> String {
    v.as_ref()
        .and_then(|v| v.get("parentUuid"))
        .and_then(Value::as_str)
        .expect("a parent")
        .to_string()
}

/// A main-chain user or assistant record past the middle of the file whose parent is in the
/// file.
fn middle_child(values: &[Option<Value>]) -> usize {
    let uuids: Vec<Option<String>> = values.iter().map(uuid_of).collect();
    (values.len() / 2..values.len())
        .chain(1..values.len() / 2)
        .find(|&i| {
            let Some(v) = &values[i] else { return false };
            let kind = v.get("type").and_then(Value::as_str);
            let parent = v.get("parentUuid").and_then(Value::as_str);
            matches!(kind, Some("user" | "assistant"))
                && v.get("isSidechain") != Some(&Value::Bool(true))
                && parent.is_some_and(|p| uuids[..i].iter().flatten().any(|u| u == p))
        })
        .expect("a record with a parent in the file")
}

/// `line` with its `parentUuid` set to `uuid`.
fn with_parent(line: &str, uuid: &str) -> String {
    let mut v: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
    v.insert("parentUuid".into(), uuid.into());
    serde_json::to_string(&v).unwrap()
}
