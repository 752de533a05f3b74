//! Per-conversation isolation (`--on-findings`): in a file of many conversations, one that
//! fails `check` is left byte-for-byte as it was and reported with `PATH:LINE`, the others are
//! compacted and the file succeeds; a file that is one conversation is still refused. And a
//! batch over the whole corpus refuses no file.

use crate::{ctxc, fixture, restore_to, shared, stderr_of, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The line (1-based) of the dataset whose conversation is broken.
const BROKEN_LINE: usize = 3;

/// A dataset of OpenAI chat conversations, one `{"messages": [...]}` per line, made from the
/// first six tau-bench runs of the corpus; the conversation on [`BROKEN_LINE`] answers a call
/// nobody made (its first tool result's `tool_call_id` renamed).
fn dataset(dir: &Path) -> (PathBuf, String) {
    let text = std::fs::read_to_string(shared("corpus/openai-chat/tau-bench/gpt-4o-airline.json"))
        .unwrap();
    let runs: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut lines = Vec::new();
    for (i, run) in runs.iter().take(6).enumerate() {
        let mut messages = run["traj"].clone();
        if i + 1 == BROKEN_LINE {
            let tool = messages
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|m| m["role"] == "tool")
                .unwrap();
            tool["tool_call_id"] = Value::from("call_nobody_made");
        }
        let conversation = serde_json::json!({ "id": i, "messages": messages });
        lines.push(serde_json::to_string(&conversation).unwrap());
    }
    let text = lines.join("\n") + "\n";
    let path = dir.join("dataset.jsonl");
    std::fs::write(&path, &text).unwrap();
    (path, text)
}

fn compact(input: &Path, output: &Path, extra: &[&str]) -> std::process::Output {
    ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "--json"])
        .args(extra)
        .arg("-o")
        .arg(output)
        .arg(input)
        .output()
        .unwrap()
}

#[test]
fn a_broken_conversation_is_kept_byte_exact_and_the_others_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let (input, text) = dataset(dir.path());
    let output = dir.path().join("out.jsonl");
    let out = compact(&input, &output, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    let want = format!("{}:{BROKEN_LINE}: ", input.display());
    assert!(err.contains(&want), "{err}");
    assert!(err.contains("call_nobody_made"), "{err}");
    assert!(err.contains("left as it was"), "{err}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["status"], "compacted", "{file}");
    assert_eq!(file["conversationsCompacted"], 5, "{file}");
    let notes = file["notes"].to_string();
    assert!(notes.contains("call_nobody_made"), "{notes}");
    let written = std::fs::read_to_string(&output).unwrap();
    let before: Vec<&str> = text.lines().collect();
    let after: Vec<&str> = written.lines().collect();
    assert_eq!(after.len(), before.len());
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        if i + 1 == BROKEN_LINE {
            assert_eq!(a, b, "the broken conversation changed");
        } else {
            assert!(
                a.len() < b.len(),
                "conversation {} was not compacted",
                i + 1
            );
        }
    }
    // The output has the input's finding and no other.
    let check = |path: &Path| {
        let out = ctxc().arg("check").arg(path).output().unwrap();
        stdout_of(&out)
            .lines()
            .map(|l| l.split_once(": ").unwrap().1.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(check(&output), check(&input));
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        text,
        "input changed"
    );
}

#[test]
fn refuse_refuses_the_file_and_allow_compacts_every_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let (input, text) = dataset(dir.path());
    let refused = dir.path().join("refused.jsonl");
    let out = compact(&input, &refused, &["--on-findings", "refuse"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("--on-findings allow"),
        "{}",
        stderr_of(&out)
    );
    assert!(!refused.exists());
    let allowed = dir.path().join("allowed.jsonl");
    let out = compact(&input, &allowed, &["--on-findings", "allow"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let written = std::fs::read_to_string(&allowed).unwrap();
    let broken_before = text.lines().nth(BROKEN_LINE - 1).unwrap();
    let broken_after = written.lines().nth(BROKEN_LINE - 1).unwrap();
    assert!(broken_after.len() < broken_before.len());
}

#[test]
fn a_file_that_is_one_conversation_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.json");
    std::fs::copy(fixture("broken/openai-orphan-result.json"), &input).unwrap();
    let output = dir.path().join("out.json");
    let out = compact(&input, &output, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(!output.exists());
}

/// The failed files of a batch over the whole corpus, with its exit status.
fn corpus_batch(extra: &[&str]) -> (Option<i32>, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    corpus_batch_into(dir.path(), extra)
}

/// [`corpus_batch`], its outputs under `dir`.
fn corpus_batch_into(dir: &Path, extra: &[&str]) -> (Option<i32>, Vec<(String, String)>) {
    let out = ctxc()
        .args([
            "compact",
            "-q",
            "--force",
            "--target-ratio",
            "0.5",
            "--json",
            "--out-dir",
        ])
        .arg(dir)
        .args(extra)
        .arg(shared("corpus"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 80);
    let failed = files
        .iter()
        .filter(|f| f["status"] == "failed")
        .map(|f| (f["path"].to_string(), f["failedStep"].to_string()))
        .collect();
    (out.status.code(), failed)
}

/// DESIGN: a batch over a mixed corpus refuses no file. By default the one Claude Code session
/// its authors damaged on purpose (claude-code-log's `edge_cases.jsonl`: a dangling
/// `parentUuid`, repeated uuids, an unanswered call) is refused, as a single session is; with
/// `--on-findings allow` nothing is; with `--repair` it is repaired, then compacted.
#[test]
fn a_batch_over_the_whole_corpus_refuses_no_file_but_a_damaged_session() {
    let (code, failed) = corpus_batch(&[]);
    assert_eq!(code, Some(1));
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].0.ends_with("claude-code-log/edge_cases.jsonl\""),
        "{failed:?}"
    );
    assert_eq!(failed[0].1, "\"check\"");
    let (code, failed) = corpus_batch(&["--on-findings", "allow"]);
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(code, Some(0));
    let dir = tempfile::tempdir().unwrap();
    let (code, failed) = corpus_batch_into(dir.path(), &["--repair"]);
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(code, Some(0));
    // The damaged session is repaired and compacted, passes `check`, and restores exactly.
    let output = dir
        .path()
        .join("claude-code/claude-code-log/edge_cases.jsonl");
    let check = ctxc().arg("check").arg(&output).output().unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", stderr_of(&check));
    let back = dir.path().join("back.jsonl");
    restore_to(&output, &back);
    let damaged = std::fs::read(shared(
        "corpus/claude-code/claude-code-log/edge_cases.jsonl",
    ));
    assert!(std::fs::read(&back).unwrap() == damaged.unwrap());
}

/// `runs.parquet` in `dir`: four tau-bench runs, the third ending in a tool message that
/// answers no call.
fn dataset_with_a_stray_tool_message_in_row_2(dir: &std::path::Path) -> std::path::PathBuf {
    use crate::parquet::{tau_bench_rows, write_dataset};
    use parquet::basic::Compression;
    let input = dir.join("runs.parquet");
    let mut rows = tau_bench_rows(4);
    let orphan = serde_json::json!({"role": "tool", "tool_call_id": "nowhere", "name": "x", "content": "late"});
    rows[2]["messages"].as_array_mut().unwrap().push(orphan);
    write_dataset(&input, &rows, 3, Compression::UNCOMPRESSED);
    input
}

/// A Parquet row is one conversation of the dataset: one that fails `check` keeps its value
/// and is reported, and the run succeeds.
#[test]
fn a_parquet_row_that_fails_check_keeps_its_value_and_the_run_succeeds() {
    use crate::parquet::assert_same_but;
    use arrow_array::Array;
    let dir = tempfile::tempdir().unwrap();
    let input = dataset_with_a_stray_tool_message_in_row_2(dir.path());
    let out = ctxc()
        .args(["compact", "--json", "--force", "--target-ratio", "0.5"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("runs.parquet#row=2:"), "{err}");
    assert!(err.contains("nowhere"), "{err}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files[2]["status"], "unchanged", "{}", files[2]);
    for i in [0, 1, 3] {
        assert_eq!(files[i]["status"], "compacted", "{}", files[i]);
    }
    let output = dir.path().join("runs.compact.parquet");
    let (before, after) = assert_same_but(&input, &output, "messages");
    assert_eq!(before.slice(2, 1).as_ref(), after.slice(2, 1).as_ref());
    assert_ne!(before.slice(0, 1).as_ref(), after.slice(0, 1).as_ref());
}

/// With `--repair` the same row is repaired (its stray tool message removed, named in its
/// report) and compacted like the others; `restore` gives back every row's value as it was.
#[test]
fn compact_repair_repairs_a_parquet_row_and_restores_it() {
    use crate::parquet::{assert_same_but, assert_same_rows};
    let dir = tempfile::tempdir().unwrap();
    let input = dataset_with_a_stray_tool_message_in_row_2(dir.path());
    let out = ctxc()
        .args(crate::COMPACT_HALF)
        .args(["--json", "--repair"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = report["files"].as_array().unwrap();
    for file in files {
        assert_eq!(file["status"], "compacted", "{file}");
    }
    let repairs = files[2]["repairs"].as_array().unwrap();
    assert_eq!(repairs.len(), 1, "{repairs:?}");
    assert!(repairs[0]["fault"].as_str().unwrap().contains("'nowhere'"));
    assert!(files[1].get("repairs").is_none());
    let output = dir.path().join("runs.compact.parquet");
    let (before, after) = assert_same_but(&input, &output, "messages");
    use arrow_array::Array;
    assert!(format!("{:?}", before.slice(2, 1)).contains("nowhere"));
    assert!(!format!("{:?}", after.slice(2, 1)).contains("nowhere"));
    let back = dir.path().join("back.parquet");
    restore_to(&output, &back);
    assert_same_rows(&input, &back);
}

/// A Claude Code session with replayed history: twelve records written again after its end
/// under new uuids (same content and timestamps, chained on), as a resumed client replays them.
fn replayed_session(dir: &Path) -> PathBuf {
    let text =
        std::fs::read_to_string(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let values: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut last = values
        .iter()
        .rev()
        .find_map(|v| v["uuid"].as_str())
        .unwrap()
        .to_string();
    let n = values.len();
    let mut renamed = std::collections::HashMap::new();
    for v in &values[n / 3..n / 3 + 12] {
        let Some(uuid) = v["uuid"].as_str() else {
            continue;
        };
        let mut record = v.clone();
        let new = format!("99999999{}", &uuid[8..]);
        renamed.insert(uuid.to_string(), new.clone());
        let parent = v["parentUuid"]
            .as_str()
            .and_then(|p| renamed.get(p))
            .cloned();
        record["parentUuid"] = Value::from(parent.unwrap_or(last));
        record["uuid"] = Value::from(new.clone());
        last = new;
        lines.push(serde_json::to_string(&record).unwrap());
    }
    let path = dir.join("replayed.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `--on-findings allow` compacts a session with replayed history: the output may keep the
/// replays the input had (either copy masked or dropped), never more of them.
#[test]
fn allowed_replayed_history_compacts_and_adds_no_replay() {
    let dir = tempfile::tempdir().unwrap();
    let input = replayed_session(dir.path());
    // Counted per record: the text view prints a replayed block as one line.
    let check = ctxc()
        .args(["check", "--json"])
        .arg(&input)
        .output()
        .unwrap();
    let replays = |out: &std::process::Output| stdout_of(out).matches("replayed history").count();
    let before = replays(&check);
    assert!(before >= 5, "{}", stdout_of(&check));
    let output = dir.path().join("out.jsonl");
    let out = compact(&input, &output, &["--on-findings", "allow"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_ne!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&input).unwrap()
    );
    let after = ctxc()
        .args(["check", "--json"])
        .arg(&output)
        .output()
        .unwrap();
    assert!(replays(&after) <= before, "{}", stdout_of(&after));
}
