//! Message shapes read by what they hold, or refused: a list whose messages keep their text
//! under a key no reader knows is not a list of empty messages (issue 39 item 0), in every
//! format; nebius SWE-agent-trajectories' `{role, text}` messages (roles `system`, `user`,
//! `ai`) are read and written back in their shape; a ccusage usage export passes through.

use crate::parquet::assert_same_but;
use crate::{assert_read_as_clean_and_passed_through, ctxc, fixture, stderr_of, stdout_of};
use arrow_array::cast::AsArray;
use arrow_array::{Array, StructArray};
use serde_json::Value;
use std::path::Path;

/// One small conversation per format, and the key (`"KEY":`) its messages keep their content
/// under.
const CONVERSATIONS: [(&str, &str, &[&str]); 8] = [
    (
        "openai",
        r#"[{"role":"user","content":"fix the failing test"},{"role":"assistant","content":"done, it passes now"}]"#,
        &["content"],
    ),
    (
        "anthropic",
        r#"{"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"fix the failing test"}]},{"role":"assistant","content":[{"type":"text","text":"done, it passes now"}]}]}"#,
        &["content"],
    ),
    (
        "sharegpt",
        r#"{"conversations":[{"from":"human","value":"fix the failing test"},{"from":"gpt","value":"done, it passes now"}]}"#,
        &["value"],
    ),
    (
        "claude-code",
        concat!(
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-06-01T10:00:00Z","message":{"role":"user","content":"fix the failing test"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"2025-06-01T10:00:05Z","message":{"role":"assistant","id":"m1","content":[{"type":"text","text":"done, it passes now"}]}}"#,
            "\n"
        ),
        &["content"],
    ),
    (
        "codex",
        concat!(
            r#"{"timestamp":"2025-06-01T10:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the failing test"}]}}"#,
            "\n",
            r#"{"timestamp":"2025-06-01T10:00:05Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done, it passes now"}]}}"#,
            "\n"
        ),
        &["content"],
    ),
    (
        "openhands",
        r#"[{"id":1,"source":"user","action":"message","args":{"content":"fix the failing test","wait_for_response":false},"message":"fix the failing test"},{"id":2,"source":"agent","action":"message","args":{"content":"done, it passes now","wait_for_response":true},"message":"done, it passes now"}]"#,
        &["content", "message"],
    ),
    (
        "openhands-sdk",
        concat!(
            r#"{"id":"a1","timestamp":"2026-06-16T05:02:00","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"fix the failing test"}]},"kind":"MessageEvent"}"#,
            "\n",
            r#"{"id":"a2","timestamp":"2026-06-16T05:03:00","source":"agent","llm_message":{"role":"assistant","content":[{"type":"text","text":"done, it passes now"}]},"kind":"MessageEvent"}"#,
            "\n"
        ),
        &["content"],
    ),
    (
        "atif",
        r#"{"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"fix the failing test"},{"step_id":2,"source":"agent","message":"done, it passes now"}]}"#,
        &["message"],
    ),
];

fn run(dir: &Path, args: &[&str], input: &Path) -> std::process::Output {
    let out = ctxc()
        .current_dir(dir)
        .args(args)
        .arg(input)
        .output()
        .unwrap();
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
    out
}

#[test]
fn a_list_whose_messages_carry_no_content_ctxc_reads_is_refused_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (format, text, keys) in CONVERSATIONS {
        let ext = if text.starts_with('[') || text.ends_with('}') {
            "json"
        } else {
            "jsonl"
        };
        // As written, the conversation is read as its format, with its text.
        let good = dir.path().join(format!("{format}.{ext}"));
        std::fs::write(&good, text).unwrap();
        let out = run(dir.path(), &["stats", "--json"], &good);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr_of(&out));
        let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        assert_eq!(report["files"][0]["format"], format, "{format}");
        assert!(
            report["files"][0]["contextTokens"].as_u64().unwrap() > 8,
            "{format}"
        );
        // With the content under a key no reader knows: refused, detected or named.
        let mut renamed = text.to_string();
        for key in keys {
            renamed = renamed.replace(&format!("\"{key}\":"), "\"body\":");
        }
        let bad = dir.path().join(format!("{format}-body.{ext}"));
        std::fs::write(&bad, &renamed).unwrap();
        for args in [&["check"][..], &["check", "--format", format]] {
            let out = run(dir.path(), args, &bad);
            assert_eq!(out.status.code(), Some(1), "{format} {args:?}");
            let all = format!("{}{}", stdout_of(&out), stderr_of(&out));
            assert!(
                all.contains("carry no content ctxc reads"),
                "{format} {args:?}: {all}"
            );
            assert!(
                all.contains("body"),
                "{format}: the keys found are named: {all}"
            );
        }
        let out_path = dir.path().join(format!("{format}-out.{ext}"));
        let out = ctxc()
            .args(["compact", "--force", "--format", format, "-o"])
            .arg(&out_path)
            .arg(&bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}: {}", stderr_of(&out));
        assert!(!out_path.exists(), "{format}: nothing written");
    }
}

/// ccusage's `usageDataSchema` allows more than ctxc's usage fixture holds: other keys inside
/// `message.usage`, `cwd` and `sessionId`, and a `content` of untyped `{text}` parts.
#[test]
fn a_usage_export_with_every_field_ccusage_allows_passes_through() {
    let dir = tempfile::tempdir().unwrap();
    let record = |n: u32| {
        format!(
            r#"{{"timestamp":"2025-06-01T09:1{n}:02.118Z","version":"1.0.17","cwd":"/home/u/p","sessionId":"s1","message":{{"usage":{{"input_tokens":1204,"output_tokens":388,"cache_creation_input_tokens":5120,"cache_read_input_tokens":0,"service_tier":"standard","server_tool_use":{{"web_search_requests":0}},"speed":"fast"}},"model":"claude-sonnet-4-20250514","id":"msg_0{n}","content":[{{"text":"answer {n}"}}]}},"costUSD":0.0291,"requestId":"req_0{n}","isApiErrorMessage":false}}"#
        )
    };
    let text: String = (1..4).map(|n| record(n) + "\n").collect();
    let input = dir.path().join("usage.jsonl");
    std::fs::write(&input, text).unwrap();
    let scratch = dir.path().join("out");
    std::fs::create_dir(&scratch).unwrap();
    assert_read_as_clean_and_passed_through(&input, "claude-code", &scratch);
}

/// The trajectory column's messages, as (role, text or system prompt) per row.
fn trajectories(path: &Path) -> Vec<Vec<(String, String)>> {
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let column = batch.column_by_name("trajectory").unwrap().as_list::<i32>();
        for row in 0..column.len() {
            let messages = column.value(row);
            let messages: &StructArray = messages.as_struct();
            let field = |name: &str| messages.column_by_name(name).unwrap().as_string::<i32>();
            let (role, text, system) = (field("role"), field("text"), field("system_prompt"));
            let row = (0..messages.len())
                .map(|i| {
                    let text = if text.is_null(i) {
                        system.value(i)
                    } else {
                        text.value(i)
                    };
                    (role.value(i).to_string(), text.to_string())
                })
                .collect();
            rows.push(row);
        }
    }
    rows
}

#[test]
fn nebius_trajectories_are_read_by_their_text_and_written_back_in_their_shape() {
    let input = fixture("parquet/nebius-swe-agent.parquet");
    let out = ctxc()
        .args(["stats", "--json"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 4);
    for file in files {
        // Each row's texts are counted: before, 18 to 24 tokens a row (roles only).
        let tokens = file["contextTokens"].as_u64().unwrap();
        assert!(tokens > 2_000, "{file}");
    }
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.parquet");
    let out = ctxc()
        .args(crate::COMPACT_HALF)
        // A summary in `text`, the shape under test (adaptive masks outputs first).
        .args(["--strategy", "full-summary", "--json", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    for file in report["files"].as_array().unwrap() {
        assert_eq!(file["status"], "compacted", "{file}");
    }
    assert_same_but(&input, &output, "trajectory");
    let (before, after) = (trajectories(&input), trajectories(&output));
    for (row, (before, after)) in before.iter().zip(&after).enumerate() {
        // The system prompt and the task stay, a summary in `text` takes the middle's place,
        // and the roles are nebius's: the user's and the tools' messages are not dropped.
        assert_eq!(after[..2], before[..2], "row {row}");
        assert_eq!(after[2].0, "user", "row {row}");
        assert!(
            after[2].1.starts_with("[ctxc summary]"),
            "row {row}: {:?}",
            after[2]
        );
        assert!(after.len() < before.len(), "row {row}");
        let roles: Vec<&str> = after.iter().map(|(role, _)| role.as_str()).collect();
        assert!(
            roles.iter().all(|r| ["system", "user", "ai"].contains(r)),
            "{roles:?}"
        );
        assert!(
            roles[3..].contains(&"user") && roles.contains(&"ai"),
            "{roles:?}"
        );
        // Every message kept is one of the input's, as it was.
        for message in &after[3..] {
            assert!(before.contains(message), "row {row}: {message:?}");
        }
    }
}
