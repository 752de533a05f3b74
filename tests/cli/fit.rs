//! `ctxc fit` over the corpus's SWE-agent, OpenHands, tau-bench, Claude Code and Codex files
//! with the Qwen3 tokenizer and chat template (fixtures/tokenizers/qwen3): every sample
//! within --max-len, counted here by Hugging Face's `tokenizers` on the whole rendered text;
//! no tool call parted from its results; every assistant turn trained exactly once; the
//! final turn present; the same bytes from two runs.

use super::{ctxc, root};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

fn qwen3() -> PathBuf {
    root().join("fixtures/tokenizers/qwen3/tokenizer.json")
}

fn corpus(rel: &str) -> PathBuf {
    root().join("../shared/corpus").join(rel)
}

/// The inputs the tests fit: one or more of each format the issue names.
fn inputs() -> Vec<PathBuf> {
    [
        "swe-agent",
        "openhands/trajs/basic.json",
        "openhands/resolver/output.jsonl",
        "openai-chat/tau-bench/gpt-4o-airline.json",
        "claude-code/spotter/tool_heavy.jsonl",
        "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "codex-rollout",
    ]
    .iter()
    .map(|r| corpus(r))
    .collect()
}

/// Runs `ctxc fit` on `inputs` at `max_len`; returns the samples' bytes and the report.
fn fit(inputs: &[PathBuf], max_len: usize, dir: &Path, extra: &[&str]) -> (String, Value) {
    let out = dir.join(format!("out-{max_len}.jsonl"));
    let report = dir.join(format!("report-{max_len}.json"));
    let mut cmd = ctxc();
    cmd.arg("fit")
        .args(inputs)
        .args(["--max-len", &max_len.to_string(), "--tokenizer-file"])
        .arg(qwen3())
        .arg("-o")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .arg("--force-overwrite")
        .args(extra);
    let assert = cmd.assert().success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("failed 0"), "{stderr}");
    let samples = std::fs::read_to_string(&out).unwrap();
    let report = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    (samples, report)
}

/// Tokens of a sample: the template rendered, then the whole text tokenized by the
/// `tokenizers` crate itself (not ctxc's piece-by-piece count).
struct Recount {
    tokenizer: tokenizers::Tokenizer,
    template: ctxc::tokens::ChatTemplate,
}

impl Recount {
    fn new() -> Self {
        let config = qwen3().with_file_name("tokenizer_config.json");
        Recount {
            tokenizer: tokenizers::Tokenizer::from_file(qwen3()).unwrap(),
            template: ctxc::tokens::ChatTemplate::from_file(&config).unwrap(),
        }
    }

    fn tokens(&self, row: &Value) -> usize {
        let messages = row["messages"].as_array().unwrap();
        let text = self.template.render(messages, row.get("tools")).unwrap();
        self.tokenizer.encode_fast(text, false).unwrap().len()
    }
}

/// Every check the issue asks of one run's samples.
fn check_samples(samples: &str, report: &Value, max_len: usize, recount: &Recount) {
    let rows: Vec<Value> = samples
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows.len() > 50, "{} samples", rows.len());
    let mut trained: BTreeMap<String, usize> = BTreeMap::new();
    let mut last_of: BTreeMap<String, &Value> = BTreeMap::new();
    for row in &rows {
        let id = row["sample_of"].as_str().unwrap().to_string();
        let n = recount.tokens(row);
        assert!(
            n <= max_len,
            "{id} segment {}: {n} tokens > {max_len}",
            row["segment"]
        );
        check_pairs(row);
        for m in row["messages"].as_array().unwrap() {
            let flag = m["weight"].as_u64().unwrap();
            let assistant = m["role"] == "assistant";
            assert!(flag == 0 || (flag == 1 && assistant), "{id}: {m}");
            *trained.entry(id.clone()).or_default() += flag as usize;
        }
        last_of.insert(id, row);
    }
    for r in report["rows"].as_array().unwrap() {
        let id = r["sample_of"].as_str().unwrap();
        let turns = r["assistant_turns"].as_u64().unwrap() as usize;
        if turns == 0 {
            continue;
        }
        assert_eq!(
            trained.get(id).copied().unwrap_or(0),
            turns,
            "{id}: each turn once"
        );
        // The final assistant turn is in the last sample, trained.
        let last = last_of[id]["messages"].as_array().unwrap();
        let final_turn = last
            .iter()
            .rev()
            .find(|m| m["role"] == "assistant")
            .unwrap();
        assert_eq!(final_turn["weight"], 1, "{id}");
    }
}

/// No result without its call before it in the sample; no call without its results, but
/// for one closing the sample (a trajectory that ends on a call).
fn check_pairs(row: &Value) {
    let messages = row["messages"].as_array().unwrap();
    let mut calls = HashSet::new();
    let answered: HashSet<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    for (i, m) in messages.iter().enumerate() {
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            let id = call["id"].as_str().unwrap();
            calls.insert(id);
            let closing = messages[i + 1..].iter().all(|m| m["role"] != "assistant");
            assert!(
                answered.contains(id) || closing,
                "call {id} parted from its result: {}",
                row["sample_of"]
            );
        }
        if m["role"] == "tool" {
            let id = m["tool_call_id"].as_str().unwrap();
            assert!(
                calls.contains(id),
                "result {id} without its call: {}",
                row["sample_of"]
            );
        }
    }
}

#[test]
fn corpus_samples_fit_4096_and_8192_in_qwen3_and_train_every_turn_once() {
    let dir = tempfile::tempdir().unwrap();
    let recount = Recount::new();
    for max_len in [4096, 8192] {
        let (samples, report) = fit(&inputs(), max_len, dir.path(), &[]);
        check_samples(&samples, &report, max_len, &recount);
    }
}

#[test]
fn tau_bench_segments_put_back_together_are_the_conversation() {
    // Independent of ctxc's reader: the OpenAI messages of the source, after the system
    // prompt and the task, are the samples' segments one after the other.
    let dir = tempfile::tempdir().unwrap();
    let input = corpus("openai-chat/tau-bench/gpt-4o-airline.json");
    let (samples, _) = fit(std::slice::from_ref(&input), 4096, dir.path(), &[]);
    let source: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
    let mut segments: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for line in samples.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let messages = row["messages"].as_array().unwrap();
        // The head: system, task, then (after the first segment, unless the turn needed its
        // room) the summary.
        let summary = messages[2]["content"]
            .as_str()
            .is_some_and(|s| s.starts_with("[ctxc summary]"));
        assert!(!summary || row["segment"] != 0);
        if summary {
            assert_eq!(messages[2]["weight"], 0);
        }
        let head = if summary { 3 } else { 2 };
        let id = row["sample_of"].as_str().unwrap().to_string();
        segments
            .entry(id)
            .or_default()
            .extend(messages[head..].iter().cloned());
    }
    assert_eq!(segments.len(), source.len());
    for (i, run) in source.iter().enumerate() {
        let id = format!("{}/{i}/traj", input.to_string_lossy());
        let traj = run["traj"].as_array().unwrap();
        // User messages after the final assistant turn (and its results) train nothing and
        // are left out.
        let end = traj.iter().rposition(|m| m["role"] != "user").unwrap() + 1;
        let original = &traj[2..end];
        let got = &segments[&id];
        assert_eq!(got.len(), original.len(), "{id}");
        for (g, o) in got.iter().zip(original) {
            assert_eq!(g["role"], o["role"], "{id}");
            let text = |v: &Value| v.as_str().unwrap_or("").to_string();
            let (got, want) = (text(&g["content"]), text(&o["content"]));
            // A turn over --max-len keeps the head of its longest text, then the marker.
            match got.split_once("\n[ctxc: ") {
                Some((head, marker)) if marker.contains("characters cut from this message") => {
                    assert!(want.starts_with(head), "{id}")
                }
                _ => assert_eq!(got, want, "{id}"),
            }
        }
    }
}

#[test]
fn two_runs_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        corpus("swe-agent"),
        corpus("claude-code/spotter/tool_heavy.jsonl"),
    ];
    let (a, ra) = fit(&inputs, 4096, dir.path(), &[]);
    let (b, rb) = fit(&inputs, 4096, dir.path(), &[]);
    assert_eq!(a, b);
    assert_eq!(ra, rb);
}

#[test]
fn policy_one_makes_one_sample_per_trajectory_ending_with_the_final_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (samples, report) = fit(
        &[corpus("swe-agent")],
        4096,
        dir.path(),
        &["--policy", "one"],
    );
    let recount = Recount::new();
    let rows: Vec<Value> = samples
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: HashSet<&str> = rows
        .iter()
        .map(|r| r["sample_of"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), rows.len(), "one sample each");
    for row in &rows {
        assert!(recount.tokens(row) <= 4096);
        check_pairs(row);
    }
    assert!(
        report["totals"]["turns_summarized"].as_u64().unwrap() > 0,
        "{report}"
    );
}

#[test]
fn a_turn_over_max_len_is_cut_with_a_marker_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.json");
    let huge = "line of output\n".repeat(4000);
    let conv = serde_json::json!({"messages": [
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "sh", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": huge},
        {"role": "assistant", "content": "done"},
    ]});
    std::fs::write(&input, conv.to_string()).unwrap();
    let (samples, report) = fit(std::slice::from_ref(&input), 512, dir.path(), &[]);
    let row: Value = serde_json::from_str(samples.lines().next().unwrap()).unwrap();
    assert!(Recount::new().tokens(&row) <= 512);
    let tool = &row["messages"][2]["content"];
    assert!(
        tool.as_str()
            .unwrap()
            .contains("characters cut from this message to fit --max-len 512")
    );
    assert_eq!(report["totals"]["turns_cut"], 1, "{report}");
    assert_eq!(report["rows"][0]["cuts"][0]["chars_before"], huge.len());
}

#[test]
fn a_bad_tokenizer_file_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("tokenizer.json");
    std::fs::write(&bad, "{\"not\": \"a tokenizer\"}").unwrap();
    let out = dir.path().join("out.jsonl");
    let assert = ctxc()
        .arg("fit")
        .arg(corpus("openhands/trajs/basic.json"))
        .args(["--max-len", "4096", "--tokenizer-file"])
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("tokenizer.json"), "{stderr}");
    assert!(!out.exists());
}
