//! A text-based agent's trajectory (SWE-agent's actions written as command blocks in its
//! messages, their outputs coming back as user messages) reads the same stored as OpenAI chat
//! (the `.traj` history) and as ATIF: the same calls and tool outputs, and every strategy cuts
//! the same messages, so what the agent did is kept in either format as it is in the other.

use crate::{STRATEGIES, ctxc, fixture, stderr_of, stdout_of};
use serde_json::Value;
use std::path::Path;

const TRAJ: &str = "examples/swe-agent.traj";
const ATIF: &str = "atif/swe-agent-text-actions.json";

fn stats(path: &Path) -> Value {
    let out = ctxc().args(["stats", "--json"]).arg(path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["files"][0].clone()
}

/// The messages' texts, in order, of a `.traj` history or of ATIF steps.
fn texts(path: &Path) -> Vec<Value> {
    let value: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    match value.get("history") {
        Some(history) => history
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].clone())
            .collect(),
        None => value["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["message"].clone())
            .collect(),
    }
}

#[test]
fn its_actions_are_calls_in_atif_as_in_openai_chat() {
    let (traj, atif) = (stats(&fixture(TRAJ)), stats(&fixture(ATIF)));
    assert_eq!(atif["format"], "atif");
    assert!(
        atif["byKind"]["tool_result"].as_u64().unwrap() > 3000,
        "{atif}"
    );
    assert_eq!(atif["byKind"], traj["byKind"]);
    assert_eq!(atif["byTool"], traj["byTool"]);
}

#[test]
fn every_strategy_cuts_the_same_messages_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    for strategy in STRATEGIES {
        for ratio in ["0.5", "0.25"] {
            let what = format!("{strategy} {ratio}");
            let compact = |input: &str, name: &str| {
                let output = dir.path().join(format!("{strategy}-{ratio}-{name}"));
                let out = ctxc()
                    .args(["compact", "-q", "--force", "--target-ratio", ratio])
                    .args(["--strategy", strategy, "-o"])
                    .arg(&output)
                    .arg(fixture(input))
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr_of(&out));
                output
            };
            let (traj, atif) = (compact(TRAJ, "out.traj"), compact(ATIF, "out.json"));
            let out = ctxc().arg("check").arg(&atif).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{what}: {}", stdout_of(&out));
            assert_eq!(texts(&atif), texts(&traj), "{what}");
        }
    }
}
