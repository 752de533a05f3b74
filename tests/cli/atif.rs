//! ATIF trajectories end to end: detected by content, passed through byte-identical, compacted
//! with every strategy into valid ATIF (step ids 1, 2, 3, ..., every call answered in its own
//! step, never more tokens, the same bytes twice) that restores exactly; and `ctxc convert`
//! between OpenAI chat and ATIF, round-tripped on corpus conversations.

use crate::{STRATEGIES, ctxc, fixture, shared, stderr_of, stdout_of};
use serde_json::Value;
use std::path::Path;

const FIXTURES: [&str; 4] = [
    "atif/rfc-example.json",
    "atif/terminal-agent.json",
    "atif/terminus-unnamed-results.json",
    "atif/dataset.jsonl",
];

fn stats(path: &Path) -> Value {
    let out = ctxc().args(["stats", "--json"]).arg(path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn fixtures_read_as_atif_check_clean_and_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    for rel in FIXTURES {
        let input = fixture(rel);
        assert_eq!(stats(&input)["files"][0]["format"], "atif", "{rel}");
        let out = ctxc().arg("check").arg(&input).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stdout_of(&out));
        let output = dir.path().join(input.file_name().unwrap());
        let out = ctxc()
            .args(["compact", "-q", "-o"])
            .arg(&output)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stderr_of(&out));
        assert_eq!(
            std::fs::read(&output).unwrap(),
            std::fs::read(&input).unwrap()
        );
    }
}

/// Every trajectory of an ATIF file (one object, or one per line).
fn trajectories(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    match serde_json::from_str::<Value>(&text) {
        Ok(one) => vec![one],
        Err(_) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    }
}

/// What Harbor's models require of the steps: ids 1, 2, 3, ... and every result answering a
/// call of its own step.
fn assert_valid_steps(trajectory: &Value, what: &str) {
    let steps = trajectory["steps"].as_array().unwrap();
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["step_id"].as_u64(), Some(i as u64 + 1), "{what}");
        let calls: Vec<&Value> = step["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| &c["tool_call_id"])
            .collect();
        for result in step["observation"]["results"]
            .as_array()
            .into_iter()
            .flatten()
        {
            // Without an id, a result answers its step's calls (as terminus agents write).
            let id = &result["source_call_id"];
            assert!(id.is_null() || calls.contains(&id), "{what}: {result}");
        }
    }
}

#[test]
fn every_strategy_compacts_to_valid_atif_that_restores() {
    for rel in [
        "atif/terminal-agent.json",
        "atif/terminus-unnamed-results.json",
        "atif/dataset.jsonl",
    ] {
        // Archives beside outputs chain with an earlier run's: one directory per input.
        let dir = tempfile::tempdir().unwrap();
        let input = fixture(rel);
        let original = std::fs::read(&input).unwrap();
        let before = stats(&input)["files"][0]["contextTokens"].as_u64().unwrap();
        for strategy in STRATEGIES {
            for ratio in ["0.5", "0.25"] {
                let what = format!("{rel} {strategy} {ratio}");
                let output = dir.path().join(format!("out-{strategy}-{ratio}.json"));
                let run = |output: &Path| {
                    let out = ctxc()
                        .args([
                            "compact",
                            "-q",
                            "--force",
                            "--archive",
                            "--target-ratio",
                            ratio,
                        ])
                        .args(["--strategy", strategy, "--force-overwrite", "-o"])
                        .arg(output)
                        .arg(&input)
                        .output()
                        .unwrap();
                    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr_of(&out));
                    std::fs::read(output).unwrap()
                };
                let bytes = run(&output);
                let again = dir.path().join(format!("again-{strategy}-{ratio}.json"));
                assert!(run(&again) == bytes, "{what}: not deterministic");
                let out = ctxc().arg("check").arg(&output).output().unwrap();
                assert_eq!(out.status.code(), Some(0), "{what}: {}", stdout_of(&out));
                for t in trajectories(&output) {
                    assert_valid_steps(&t, &what);
                    // The task is still there, word for word.
                    let task = t["steps"].as_array().unwrap().iter().any(|s| {
                        s["message"]
                            .as_str()
                            .is_some_and(|m| m.starts_with("The test suite in /app fails"))
                    });
                    assert!(task, "{what}: the task is gone");
                }
                let after = stats(&output)["files"][0]["contextTokens"]
                    .as_u64()
                    .unwrap();
                assert!(after <= before, "{what}: {after} > {before}");
                let archive =
                    output.with_file_name(format!("out-{strategy}-{ratio}.ctxc-archive.json"));
                let restored = dir.path().join("restored");
                let out = ctxc()
                    .args(["restore", "-q", "--force-overwrite", "-o"])
                    .arg(&restored)
                    .arg(&archive)
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr_of(&out));
                assert!(
                    std::fs::read(&restored).unwrap() == original,
                    "{what}: restore"
                );
            }
        }
    }
}

fn convert(args: &[&str], input: &Path, output: &Path) -> std::process::Output {
    let out = ctxc()
        .arg("convert")
        .args(args)
        .arg("-o")
        .arg(output)
        .arg(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    out
}

/// The conversations of an OpenAI JSONL file written by `convert --to openai`.
fn messages_per_line(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["messages"].clone())
        .collect()
}

#[test]
fn openai_to_atif_to_openai_gives_the_same_messages_on_corpus_conversations() {
    let dir = tempfile::tempdir().unwrap();
    // tau-bench runs: 200 conversations with tool calls, results and their tool names.
    let input = shared("corpus/openai-chat/tau-bench/gpt-4o-airline.json");
    let atif = dir.path().join("runs.atif.jsonl");
    convert(&["--to", "atif"], &input, &atif);
    let out = ctxc().arg("check").arg(&atif).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
    let trajectories = trajectories(&atif);
    assert_eq!(trajectories.len(), 200);
    for t in &trajectories {
        assert_valid_steps(t, "tau-bench");
    }
    let back = dir.path().join("runs.openai.jsonl");
    let out = convert(&["--to", "openai"], &atif, &back);
    // What ATIF has and OpenAI has not: the session and agent.
    assert!(
        stderr_of(&out).contains("trajectory session_id ×200"),
        "{}",
        stderr_of(&out)
    );
    let runs: Vec<Value> = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
    let originals: Vec<Value> = runs.iter().map(|r| r["traj"].clone()).collect();
    assert_eq!(messages_per_line(&back), originals);

    // SWE-agent histories: messages with members of their own (agent, message_type, ...).
    for rel in [
        "corpus/swe-agent/ctf__crypto__katy.traj",
        "corpus/swe-agent/ctf__misc__networking_1.traj",
    ] {
        let input = shared(rel);
        let atif = dir.path().join("traj.atif.json");
        let back = dir.path().join("traj.openai.json");
        convert(&["--to", "atif", "--force-overwrite"], &input, &atif);
        convert(&["--to", "openai", "--force-overwrite"], &atif, &back);
        let original: Value = serde_json::from_slice(&std::fs::read(&input).unwrap()).unwrap();
        let again: Value = serde_json::from_slice(&std::fs::read(&back).unwrap()).unwrap();
        assert_eq!(again["messages"], original["history"], "{rel}");
    }
}

#[test]
fn convert_names_what_does_not_map_and_refuses_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.json");
    let out = convert(
        &["--to", "openai"],
        &fixture("atif/terminal-agent.json"),
        &output,
    );
    let err = stderr_of(&out);
    for field in ["step metrics", "step timestamp", "trajectory final_metrics"] {
        assert!(err.contains(field), "{err}");
    }
    let value: Value = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    assert_eq!(value["tools"][0]["function"]["name"], "bash");
    // A ShareGPT conversation does not map cleanly: refused, named, nothing written.
    let session = crate::root().join("fixtures/sharegpt/toolcall.json");
    let refused = dir.path().join("refused.json");
    let out = ctxc()
        .args(["convert", "--to", "atif", "-o"])
        .arg(&refused)
        .arg(&session)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("does not map cleanly"),
        "{}",
        stderr_of(&out)
    );
    assert!(!refused.exists());
}

#[test]
fn convert_to_an_object_url_is_refused_not_written_under_a_local_s3_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = ctxc()
        .current_dir(dir.path())
        .args(["convert", "--to", "openai", "-o", "s3://bucket/out.json"])
        .arg(fixture("atif/terminal-agent.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("is an object"),
        "{}",
        stderr_of(&out)
    );
    assert!(!dir.path().join("s3:").exists(), "written as a local path");
}
