//! Values nested a million deep inside records — JSON and JSON Lines, arrays and objects, a
//! Claude Code `toolUseResult` among them — in every command that reads transcripts. Such a
//! value used to overflow the stack (exit 134, no report for the other files); now it is read
//! with U+FFFD in place of what lies past the nesting limit, and a bad file beside it is still
//! reported on its own.

use crate::{ctxc, fixture, stdout_of};
use serde_json::Value;
use std::path::Path;

/// Levels of nesting in every deep value.
const LEVELS: usize = 1_000_000;

/// `[[[…1…]]]` or `{"a":{"a":…1…}}`, `LEVELS` deep.
fn deep(objects: bool) -> String {
    let (open, close) = if objects {
        (r#"{"a":"#, "}")
    } else {
        ("[", "]")
    };
    format!("{}1{}", open.repeat(LEVELS), close.repeat(LEVELS))
}

/// `record` (JSON text) with member `key` set to `value` (raw JSON text), key order kept.
fn with_member(record: &str, key: &str, value: &str) -> String {
    const HOLE: &str = "\u{1}deep\u{1}";
    let mut parsed: serde_json::Map<String, Value> = serde_json::from_str(record).unwrap();
    parsed.insert(key.into(), HOLE.into());
    serde_json::to_string(&parsed)
        .unwrap()
        .replace(&serde_json::to_string(HOLE).unwrap(), value)
}

/// The Claude Code session fixture with the deep value as its tool result's `toolUseResult`.
fn claude_code_session(objects: bool) -> String {
    let text = std::fs::read_to_string(fixture("examples/claude-code-session.jsonl")).unwrap();
    let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
    let at = lines
        .iter()
        .position(|l| l.contains("\"toolUseResult\""))
        .unwrap();
    lines[at] = with_member(&lines[at], "toolUseResult", &deep(objects));
    lines.join("\n")
}

/// Writes the deep files, one of each kind, and two ordinary ones (one of them broken) into
/// `dir`; returns the deep files' names.
fn write_inputs(dir: &Path) -> Vec<&'static str> {
    let message = |objects: bool| {
        let deep = deep(objects);
        format!(r#"{{"role": "assistant", "content": "done", "extra": {deep}}}"#)
    };
    let user = r#"{"role": "user", "content": "hi"}"#;
    let files = [
        (
            "openai-arrays.json",
            format!("[{user},\n{}]\n", message(false)),
        ),
        (
            "openai-objects.jsonl",
            format!("{user}\n{}\n", message(true)),
        ),
        ("claude-code-objects.jsonl", claude_code_session(true)),
        (
            "claude-code-loglines-arrays.json",
            std::fs::read_to_string(fixture("claude-code/loglines.json"))
                .unwrap()
                .replacen(
                    r#""uuid": "u-0002","#,
                    &format!(r#""uuid": "u-0002", "toolUseResult": {},"#, deep(false)),
                    1,
                ),
        ),
    ];
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    std::fs::copy(fixture("codex/session.jsonl"), dir.join("plain.jsonl")).unwrap();
    std::fs::copy(
        fixture("broken/openai-truncated.jsonl"),
        dir.join("truncated.jsonl"),
    )
    .unwrap();
    files.map(|(name, _)| name).to_vec()
}

/// Runs `ctxc ARGS --json in` in a temp dir holding the inputs: the process must end on its
/// own with exit 1 (for the truncated file) and a JSON report of every file.
fn run_on_inputs(args: &[&str]) -> (tempfile::TempDir, Vec<&'static str>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    let deep = write_inputs(&inputs);
    let out = ctxc()
        .current_dir(dir.path())
        .args(args)
        .args(["--json", "in"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: Value = serde_json::from_str(&stdout_of(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stderr}"));
    (dir, deep, report)
}

/// The report's entry for input `name`.
fn entry<'a>(report: &'a Value, name: &str) -> &'a Value {
    let path = format!("in/{name}");
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path.as_str())
        .unwrap_or_else(|| panic!("{name} is not in the report: {report}"))
}

#[test]
fn check_reads_values_nested_a_million_deep() {
    let (_dir, deep, report) = run_on_inputs(&["check"]);
    for name in deep.iter().chain(&["plain.jsonl"]) {
        assert_eq!(entry(&report, name)["valid"], true, "{name}: {report}");
    }
    assert_eq!(entry(&report, "truncated.jsonl")["valid"], false);
}

#[test]
fn stats_counts_values_nested_a_million_deep() {
    let (_dir, deep, report) = run_on_inputs(&["stats"]);
    for name in deep.iter().chain(&["plain.jsonl"]) {
        let file = entry(&report, name);
        assert!(file.get("error").is_none(), "{name}: {file}");
        assert!(file["contextTokens"].as_u64().unwrap() > 0, "{name}");
    }
    assert!(entry(&report, "truncated.jsonl")["error"].is_string());
}

#[test]
fn compact_passes_values_nested_a_million_deep_through() {
    let (dir, deep, report) = run_on_inputs(&["compact", "--force", "--out-dir", "out"]);
    for name in deep.iter().chain(&["plain.jsonl"]) {
        let file = entry(&report, name);
        match file["status"].as_str().unwrap() {
            "compacted" => {}
            "unchanged" => assert!(
                std::fs::read(dir.path().join("out").join(name)).unwrap()
                    == std::fs::read(dir.path().join("in").join(name)).unwrap(),
                "{name}: an unchanged file is copied byte for byte"
            ),
            _ => panic!("{name}: {file}"),
        }
    }
    assert_eq!(entry(&report, "truncated.jsonl")["status"], "failed");
}

#[test]
fn sessions_lists_a_store_holding_values_nested_a_million_deep() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let project = home.join(".claude/projects/-w-deep");
    std::fs::create_dir_all(&project).unwrap();
    let claude = [
        "11111111-0000-4000-8000-00000000000a",
        "11111111-0000-4000-8000-00000000000b",
    ];
    std::fs::write(
        project.join(format!("{}.jsonl", claude[0])),
        claude_code_session(true),
    )
    .unwrap();
    std::fs::write(
        project.join(format!("{}.jsonl", claude[1])),
        claude_code_session(false),
    )
    .unwrap();
    let day = home.join(".codex/sessions/2025/09/01");
    std::fs::create_dir_all(&day).unwrap();
    let codex = std::fs::read_to_string(fixture("codex/session.jsonl")).unwrap();
    let mut lines: Vec<String> = codex.lines().map(String::from).collect();
    let last = lines.len() - 1;
    lines[last] = with_member(&lines[last], "deep", &deep(false));
    std::fs::write(
        day.join("rollout-2025-09-01T10-00-00-0199a000-0000-7000-8000-00000000000c.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let out = ctxc()
        .args(["sessions", "--all", "--json"])
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .current_dir(home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let listing: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = listing["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{listing}");
    for s in sessions {
        assert!(s["contextTokens"].as_u64().unwrap() > 0, "{s}");
    }
}
