//! OpenHands V1 SDK event lists end to end, on conversations the SDK's own models wrote
//! (fixtures/openhands_sdk): read as `openhands-sdk`, check clean, byte-identical when nothing
//! is due; every strategy at 0.5 and 0.25 gives fewer tokens, a check-clean output and an
//! archive that restores the input exactly; a compaction is a `Condensation` the SDK's view
//! applies where the forgotten events were; a log whose observation answers no stored action
//! is named by `check`.

use crate::{STRATEGIES, assert_read_as_clean_and_passed_through, ctxc, fixture, stdout_of};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

const FIXTURES: [&str; 3] = [
    "openhands_sdk/conversation.json",
    "openhands_sdk/conversation.jsonl",
    "openhands_sdk/linked.json",
];

/// The events of a JSON array or a JSONL file of events.
fn events(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(events)) => events,
        _ => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    }
}

fn compact(input: &Path, output: &Path, strategy: &str, ratio: &str) -> Value {
    let out = ctxc()
        .args(["compact", "--json", "--force", "--archive"])
        .args(["--strategy", strategy, "--target-ratio", ratio, "-o"])
        .arg(output)
        .arg(input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{strategy} {ratio}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["files"][0].clone()
}

#[test]
fn sdk_logs_read_check_clean_and_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    for rel in FIXTURES {
        assert_read_as_clean_and_passed_through(&fixture(rel), "openhands-sdk", dir.path());
    }
}

#[test]
fn every_strategy_compacts_sdk_logs_check_clean_and_restorable() {
    for rel in FIXTURES {
        let input = fixture(rel);
        let original = std::fs::read(&input).unwrap();
        let ext = input.extension().unwrap().to_str().unwrap();
        for strategy in STRATEGIES {
            for ratio in ["0.5", "0.25"] {
                let dir = tempfile::tempdir().unwrap();
                let output = dir.path().join(format!("out.{ext}"));
                let file = compact(&input, &output, strategy, ratio);
                let before = file["contextTokensBefore"].as_u64().unwrap();
                let after = file["contextTokensAfter"].as_u64().unwrap();
                assert!(
                    after <= before,
                    "{rel} {strategy} {ratio}: {after} > {before}"
                );
                let out = ctxc().arg("check").arg(&output).output().unwrap();
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{rel} {strategy} {ratio}: {}",
                    stdout_of(&out)
                );
                let restored = dir.path().join(format!("restored.{ext}"));
                let out = ctxc()
                    .args(["restore", "-q", "-o"])
                    .arg(&restored)
                    .arg(dir.path().join("out.ctxc-archive.json"))
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{rel} {strategy} {ratio}");
                assert_eq!(
                    std::fs::read(&restored).unwrap(),
                    original,
                    "{rel} {strategy}"
                );
            }
        }
    }
}

/// The view `View.from_events` builds: condensations forget ids and insert their summary (id
/// `<condensation>-summary`) at their offset; events the model is sent join it.
fn view(events: &[Value]) -> Vec<String> {
    let sent = [
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "UserRejectObservation",
        "AgentErrorEvent",
    ];
    let mut view: Vec<String> = Vec::new();
    for e in events {
        let id = e["id"].as_str().unwrap().to_string();
        if e["kind"] == "Condensation" {
            let forgets: HashSet<&str> = e["forgotten_event_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap())
                .collect();
            view.retain(|v| !forgets.contains(v.as_str()));
            if let (Some(_), Some(offset)) = (e["summary"].as_str(), e["summary_offset"].as_u64()) {
                let at = (offset as usize).min(view.len());
                view.insert(at, format!("{id}-summary"));
            }
        } else if sent.contains(&e["kind"].as_str().unwrap()) {
            view.push(id);
        }
    }
    view
}

#[test]
fn a_compaction_is_a_condensation_the_sdk_view_applies_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("conversation.jsonl");
    let original = std::fs::read(fixture("openhands_sdk/conversation.jsonl")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let output = dir.path().join("out.jsonl");
    compact(&input, &output, "full-summary", "0.5");
    let written = std::fs::read(&output).unwrap();

    let before = events(&input);
    let after = events(&output);
    assert!(after.len() < before.len());
    // Every line is an event the SDK can tell apart; ids stay unique.
    let ids: Vec<&str> = after.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    let ours: Vec<&Value> = after
        .iter()
        .filter(|e| {
            e["kind"] == "Condensation"
                && e["summary"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("[ctxc summary]\n"))
        })
        .collect();
    assert_eq!(ours.len(), 1);
    let c = ours[0];
    assert_eq!(c["source"], "environment");
    assert!(c["llm_response_id"].is_string());
    // The events it forgets went to the archive, and the summary lands where they were:
    // its offset is the length of the view built from the events before it.
    let at = after.iter().position(|e| e == c).unwrap();
    let forgotten: Vec<&str> = c["forgotten_event_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    assert!(!forgotten.is_empty());
    assert!(
        forgotten
            .iter()
            .all(|id| *id == ids[at] || !ids.contains(id))
    );
    assert_eq!(
        c["summary_offset"].as_u64(),
        Some(view(&after[..at]).len() as u64)
    );
    // The summary is in the final view, and every action there has its observation.
    let final_view = view(&after);
    assert!(final_view.contains(&format!("{}-summary", ids[at])));
    let by_id = |id: &str| after.iter().find(|e| e["id"] == id);
    let calls: HashSet<&str> = final_view
        .iter()
        .filter_map(|id| by_id(id))
        .filter(|e| e["kind"] == "ActionEvent")
        .map(|e| e["tool_call_id"].as_str().unwrap())
        .collect();
    let results: HashSet<&str> = final_view
        .iter()
        .filter_map(|id| by_id(id))
        .filter(|e| e["kind"] == "ObservationEvent" || e["kind"] == "AgentErrorEvent")
        .map(|e| e["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(calls, results);

    // Deterministic.
    let again = dir.path().join("again.jsonl");
    std::fs::remove_file(dir.path().join("out.ctxc-archive.json")).unwrap();
    compact(&input, &again, "full-summary", "0.5");
    assert_eq!(std::fs::read(&again).unwrap(), written);
}

#[test]
fn check_names_an_observation_whose_action_is_not_stored() {
    // A trimmed slice of a persisted log from the SDK's own tests: its second observation's
    // action was cut.
    let input = fixture("openhands_sdk/goal_events.jsonl");
    let out = ctxc().arg("check").arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("goal_events.jsonl:7: tool result for call 'chatcmpl-tool-9051d3d10f914188' has no earlier tool call"),
        "{text}"
    );
}
