//! Agent sessions as Parquet rows: each row holds one client's session file as text (JSON
//! lines for Claude Code, Codex, pi and Qwen Code; one JSON document or JSON lines for Gemini
//! CLI), the shape a dataset of stored sessions has when each file is read into one string.
//! Every command reads a row as it reads the file, and a compacted row is the file compacted.

use crate::parquet::{assert_same_but, write_dataset};
use crate::{ctxc, stdout_of};
use arrow_array::cast::AsArray;
use parquet::basic::Compression;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The sessions, each with the format ctxc names it by.
const SESSIONS: [(&str, &str); 8] = [
    ("fixtures/pi/session.jsonl", "pi"),
    ("fixtures/pi/v1-head.jsonl", "pi"),
    ("fixtures/gemini/legacy.json", "gemini"),
    ("fixtures/gemini/resumed.jsonl", "gemini"),
    ("fixtures/qwen/long.jsonl", "qwen"),
    ("fixtures/qwen/resumed.jsonl", "qwen"),
    ("fixtures/claude-code/request-replay.jsonl", "claude-code"),
    ("fixtures/codex/rollout.jsonl", "codex"),
];

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// One row per session: its text in `session`, its file name in `name`.
fn rows() -> Vec<Value> {
    SESSIONS
        .iter()
        .map(|(path, _)| {
            let text = std::fs::read_to_string(fixture(path)).unwrap();
            json!({"name": path, "session": text})
        })
        .collect()
}

fn run(dir: &Path, args: &[&str]) -> Value {
    let out = ctxc().current_dir(dir).args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout_of(&out)).unwrap()
}

#[test]
fn each_row_is_read_as_its_clients_session_and_compacted_as_the_file_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(&d.join("sessions.parquet"), &rows(), 3, Compression::SNAPPY);
    let stats = run(d, &["stats", "--json", "sessions.parquet"]);
    let files = stats["files"].as_array().unwrap();
    assert_eq!(files.len(), SESSIONS.len());
    for (f, (path, format)) in files.iter().zip(SESSIONS) {
        assert_eq!(f["format"], format, "{path}: {f}");
        assert!(f["contextTokens"].as_u64().unwrap() > 0, "{path}: {f}");
    }
    run(d, &["check", "--json", "sessions.parquet"]);
    let compact = [
        &crate::COMPACT_HALF[..],
        &["--json", "-o", "small.parquet", "sessions.parquet"],
    ]
    .concat();
    let report = run(d, &compact);
    let (before, after) = assert_same_but(
        &d.join("sessions.parquet"),
        &d.join("small.parquet"),
        "session",
    );
    let (before, after) = (before.as_string::<i32>(), after.as_string::<i32>());
    for (i, (path, format)) in SESSIONS.iter().enumerate() {
        let entry = &report["files"][i];
        assert_eq!(entry["format"], *format, "{path}: {entry}");
        // The same session compacted as a file.
        let alone = d.join(format!("alone-{i}"));
        let args = [
            &crate::COMPACT_HALF[..],
            &["--json", "-o", alone.to_str().unwrap()],
        ]
        .concat();
        let file_report = run(d, &[&args[..], &[fixture(path).to_str().unwrap()]].concat());
        assert_eq!(entry["status"], file_report["files"][0]["status"], "{path}");
        let expected =
            std::fs::read_to_string(&alone).unwrap_or_else(|_| before.value(i).to_string());
        assert_eq!(after.value(i), expected, "{path}");
    }
}

/// Runs ctxc in `dir` and returns its standard error, expecting exit 0.
fn said(dir: &Path, args: &[&str]) -> String {
    let out = ctxc().current_dir(dir).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    stderr
}

#[test]
fn an_archive_gives_every_session_row_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(
        &d.join("sessions.parquet"),
        &rows(),
        5,
        Compression::ZSTD(Default::default()),
    );
    let compact = [
        &crate::COMPACT_HALF[..],
        &["--archive", "-o", "small.parquet", "sessions.parquet"],
    ]
    .concat();
    said(d, &compact);
    let told = said(d, &["restore", "small.parquet", "-o", "back.parquet"]);
    assert!(told.contains("value-identical"), "{told}");
    let (before, back) = assert_same_but(
        &d.join("sessions.parquet"),
        &d.join("back.parquet"),
        "session",
    );
    assert_eq!(before.as_ref(), back.as_ref());
}
