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

/// Runs ctxc in `dir`, expecting exit `code`; returns its standard error.
fn said_with(dir: &Path, code: i32, args: &[&str]) -> String {
    let out = ctxc().current_dir(dir).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    stderr
}

#[test]
fn a_session_row_converts_as_its_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(&d.join("sessions.parquet"), &rows(), 3, Compression::SNAPPY);
    // Every client's session converts, Claude Code's and Codex's too.
    said_with(
        d,
        0,
        &[
            "convert",
            "--to",
            "openai",
            "-o",
            "chat.parquet",
            "sessions.parquet",
        ],
    );
    let (_, converted) = assert_same_but(
        &d.join("sessions.parquet"),
        &d.join("chat.parquet"),
        "session",
    );
    let converted = converted.as_string::<i32>();
    for (i, (path, _)) in SESSIONS.iter().enumerate() {
        let out = ctxc()
            .args(["convert", "--to", "openai", "-o", "-"])
            .arg(fixture(path))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{path}: {stderr}");
        let alone: Value = serde_json::from_slice(&out.stdout).unwrap();
        let row: Value = serde_json::from_str(converted.value(i)).unwrap();
        assert_eq!(row, alone, "{path}");
    }
}

/// Sessions a repair mends: a pi call cut off, Gemini CLI and Qwen Code calls unanswered, a
/// Claude Code call unanswered.
const BROKEN: [&str; 4] = [
    "fixtures/pi/compacted.jsonl",
    "fixtures/gemini/unanswered.jsonl",
    "fixtures/qwen/unanswered.jsonl",
    "fixtures/claude-code/unanswered-call.jsonl",
];

fn broken_rows() -> Vec<Value> {
    BROKEN
        .iter()
        .map(|p| json!({"name": p, "session": std::fs::read_to_string(fixture(p)).unwrap()}))
        .collect()
}

#[test]
fn repair_mends_a_session_row_as_it_mends_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(
        &d.join("broken.parquet"),
        &broken_rows(),
        2,
        Compression::SNAPPY,
    );
    let report = run(
        d,
        &["repair", "--json", "-o", "mended.parquet", "broken.parquet"],
    );
    let (_, mended) = assert_same_but(
        &d.join("broken.parquet"),
        &d.join("mended.parquet"),
        "session",
    );
    let mended = mended.as_string::<i32>();
    for (i, path) in BROKEN.iter().enumerate() {
        let entry = &report["files"][i];
        assert_eq!(entry["path"], format!("broken.parquet#row={i}"), "{entry}");
        assert_eq!(entry["status"], "repaired", "{path}: {entry}");
        let alone = d.join(format!("mended-{i}"));
        said(
            d,
            &[
                "repair",
                "-o",
                alone.to_str().unwrap(),
                fixture(path).to_str().unwrap(),
            ],
        );
        assert_eq!(
            mended.value(i),
            std::fs::read_to_string(&alone).unwrap(),
            "{path}"
        );
    }
    // The archive names each repair with its row, and gives every row back.
    let shown = ctxc()
        .current_dir(d)
        .args(["archive", "show", "mended.parquet"])
        .output()
        .unwrap();
    let shown = stdout_of(&shown);
    assert!(shown.contains("repair 1 of 1"), "{shown}");
    assert!(
        shown
            .lines()
            .next()
            .unwrap()
            .ends_with(": 1 repair of broken.parquet"),
        "{shown}"
    );
    assert!(shown.contains("row 0, line "), "{shown}");
    let told = said(d, &["restore", "mended.parquet", "-o", "back.parquet"]);
    assert!(told.contains("value-identical"), "{told}");
    let (before, back) = assert_same_but(
        &d.join("broken.parquet"),
        &d.join("back.parquet"),
        "session",
    );
    assert_eq!(before.as_ref(), back.as_ref());
    // The same command again finds its output there, byte for byte: done.
    let again = std::fs::read(d.join("mended.parquet")).unwrap();
    said(d, &["repair", "-o", "mended.parquet", "broken.parquet"]);
    assert_eq!(std::fs::read(d.join("mended.parquet")).unwrap(), again);
}

#[test]
fn a_row_that_does_not_repair_is_named_and_kept_and_in_place_mends_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rows = broken_rows();
    rows.insert(1, json!({"name": "torn", "session": "{\"type\": \"sess"}));
    write_dataset(
        &d.join("broken.parquet"),
        &rows,
        3,
        Compression::ZSTD(Default::default()),
    );
    std::fs::copy(d.join("broken.parquet"), d.join("kept.parquet")).unwrap();
    let told = said_with(
        d,
        1,
        &["repair", "--in-place", "--backup", "broken.parquet"],
    );
    assert!(told.contains("broken.parquet#row=1"), "{told}");
    // A dataset's rows are counted as rows.
    assert!(told.contains(" rows: "), "{told}");
    assert!(!told.contains(" files: "), "{told}");
    assert!(d.join("broken.parquet.bak").exists());
    let (before, after) = assert_same_but(
        &d.join("kept.parquet"),
        &d.join("broken.parquet"),
        "session",
    );
    let (before, after) = (before.as_string::<i32>(), after.as_string::<i32>());
    assert_eq!(
        after.value(1),
        before.value(1),
        "the row that failed keeps its value"
    );
    for i in [0, 2, 3, 4] {
        assert_ne!(after.value(i), before.value(i), "row {i} is mended");
    }
    // Restored in place from the archive: every row as it was.
    said(d, &["restore", "broken.parquet", "-o", "back.parquet"]);
    let (_, back) = assert_same_but(&d.join("kept.parquet"), &d.join("back.parquet"), "session");
    assert_eq!(before, back.as_string::<i32>());
    // A dataset none of whose rows needs repair is left alone.
    let clean = [json!({"session": std::fs::read_to_string(fixture(SESSIONS[0].0)).unwrap()})];
    write_dataset(&d.join("clean.parquet"), &clean, 1, Compression::SNAPPY);
    let bytes = std::fs::read(d.join("clean.parquet")).unwrap();
    said(d, &["repair", "--in-place", "clean.parquet"]);
    assert_eq!(std::fs::read(d.join("clean.parquet")).unwrap(), bytes);
}

#[test]
fn a_pi_session_converts_to_openai_with_its_calls_answered_and_to_atif_that_checks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let session = fixture("fixtures/pi/session.jsonl");
    let session = session.to_str().unwrap();
    let told = said(
        d,
        &["convert", "--to", "openai", "-o", "chat.json", session],
    );
    assert!(
        told.contains("not carried over (no field for it): reasoning ×1"),
        "{told}"
    );
    let chat: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("chat.json")).unwrap()).unwrap();
    let messages = chat["messages"].as_array().unwrap();
    // Each call answered by the tool message after it, with the same id.
    let mut calls = 0;
    for (k, m) in messages.iter().enumerate() {
        for (j, call) in m["tool_calls"].as_array().into_iter().flatten().enumerate() {
            calls += 1;
            let answer = &messages[k + 1 + j];
            assert_eq!(answer["role"], "tool", "{answer}");
            assert_eq!(answer["tool_call_id"], call["id"], "{answer}");
        }
    }
    // The branch pi resumes: three calls, the abandoned `cargo test` one not among them.
    assert_eq!(calls, 3, "{messages:?}");
    assert!(!chat.to_string().contains("toolu_03"), "{chat}");
    let prompts: Vec<&Value> = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| &m["content"])
        .collect();
    assert_eq!(prompts[0], "Fix the failing test in src/parser.rs");
    assert_eq!(*prompts.last().unwrap(), "Run only the parser tests");
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"], "All 9 parser tests pass.");
    said(d, &["check", "chat.json"]);
    said(
        d,
        &["convert", "--to", "atif", "-o", "trajectory.json", session],
    );
    said(d, &["check", "trajectory.json"]);
    let report = run(d, &["stats", "--json", "trajectory.json"]);
    assert_eq!(report["files"][0]["format"], "atif");
}
