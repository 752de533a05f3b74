//! OpenHands event streams end to end: the corpus files read clean and pass through
//! byte-identical, and a compaction of an event stream that a condenser already condensed is
//! written the way OpenHands' condensers record one (a `condensation` action naming the events
//! it forgets, with the summary and its place in the view), with ids unique and increasing,
//! and restores exactly.

use crate::{assert_read_as_clean_and_passed_through, ctxc, fixture, shared, stdout_of};
use serde_json::Value;
use std::collections::HashSet;

const CORPUS: [&str; 3] = [
    "corpus/openhands/trajs/basic.json",
    "corpus/openhands/trajs/basic_interactions.json",
    "corpus/openhands/resolver/output.jsonl",
];

#[test]
fn corpus_files_are_openhands_check_clean_and_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    for rel in CORPUS {
        assert_read_as_clean_and_passed_through(&shared(rel), "openhands", dir.path());
    }
}

/// The ids a condensation action forgets.
fn forgotten(args: &Value) -> Vec<i64> {
    match args["forgotten_event_ids"].as_array() {
        Some(ids) => ids.iter().filter_map(Value::as_i64).collect(),
        None => {
            let start = args["forgotten_events_start_id"].as_i64().unwrap();
            let end = args["forgotten_events_end_id"].as_i64().unwrap();
            (start..=end).collect()
        }
    }
}

#[test]
fn a_compaction_is_recorded_as_a_condensation_and_restores() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("condensed.json");
    let original = std::fs::read(fixture("openhands/condensed.json")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let output = dir.path().join("out.json");
    let out = ctxc()
        .args(["compact", "-q", "--force", "--target-ratio", "0.5"])
        .args(["--strategy", "full-summary", "--archive", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    let before: Vec<Value> = serde_json::from_slice(&original).unwrap();
    assert!(events.len() < before.len());

    let ids: Vec<i64> = events.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids {ids:?}");

    // The view OpenHands builds (View.from_events): forgotten events and condensation
    // actions left out, the last condensation's summary inserted at its offset.
    let condensations: Vec<&Value> = events
        .iter()
        .filter(|e| e["action"] == "condensation")
        .collect();
    let last = condensations.last().unwrap();
    let args = &last["args"];
    let summary = args["summary"].as_str().unwrap();
    assert!(summary.starts_with("[ctxc summary]\n"), "{summary}");
    // The runtime's summary it shadows is folded into it.
    assert!(
        summary.contains("Listed the repo and read calc/ops.py"),
        "{summary}"
    );
    assert_eq!(last["message"], format!("Summary: {summary}"));
    let mut hidden: HashSet<i64> = HashSet::new();
    for c in &condensations {
        hidden.extend(forgotten(&c["args"]));
        hidden.insert(c["id"].as_i64().unwrap());
    }
    let named = forgotten(args);
    assert!(!named.is_empty());
    // The events it forgets moved to the archive: none is still stored.
    assert!(
        named
            .iter()
            .all(|id| *id == last["id"] || !ids.contains(id))
    );
    let at = events.iter().position(|e| e == *last).unwrap();
    // Counted in the agent's history, which leaves out state changes and null events.
    let offset = events[..at]
        .iter()
        .filter(|e| {
            e["action"] != "condensation"
                && e["observation"] != "agent_state_changed"
                && !hidden.contains(&e["id"].as_i64().unwrap())
        })
        .count();
    assert_eq!(args["summary_offset"].as_u64(), Some(offset as u64));

    let out = ctxc().arg("check").arg(&output).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));

    assert_restores(dir.path(), "restored.json", &original);
}

/// The `contextTokens` `stats --json` reports for `path`.
fn context_tokens(path: &std::path::Path) -> u64 {
    let out = ctxc().args(["stats", "--json"]).arg(path).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["format"], "openhands");
    report["files"][0]["contextTokens"].as_u64().unwrap()
}

/// The `history` of the one record in a pair-form JSONL file, with each pair's event names.
fn pair_history(path: &std::path::Path) -> Vec<Vec<Value>> {
    let record: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let pairs = record["history"].as_array().unwrap();
    pairs
        .iter()
        .map(|p| p.as_array().unwrap().clone())
        .collect()
}

#[test]
fn pair_histories_pass_through_compact_in_pairs_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pairs.jsonl");
    let original = std::fs::read(fixture("openhands/pairs.jsonl")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let before = context_tokens(&input);
    let out = ctxc().arg("check").arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));

    // Nothing to do: byte-identical.
    let same = dir.path().join("same.jsonl");
    let out = ctxc()
        .args(["compact", "-q", "-o"])
        .arg(&same)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(&same).unwrap(), original);

    let compact = |output: &std::path::Path| {
        ctxc()
            .args([
                "compact",
                "-q",
                "--force",
                "--target-ratio",
                "0.5",
                // A summary, so the condensation pair is written (adaptive masks first).
                "--strategy",
                "sliding-window",
                "--archive",
                "-o",
            ])
            .arg(output)
            .arg(&input)
            .output()
            .unwrap()
    };
    let output = dir.path().join("out.jsonl");
    let out = compact(&output);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(&output).unwrap();
    assert_ne!(written, original);
    assert!(context_tokens(&output) < before);
    let out = ctxc().arg("check").arg(&output).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));

    // Still pairs, each an event and its observation; the summary is a condensation action
    // paired with a `null` observation; every `run` pair that is left is whole.
    let pairs = pair_history(&output);
    assert!(pairs.len() < pair_history(&input).len());
    assert!(
        pairs
            .iter()
            .all(|p| p.len() == 2 && p[0]["action"].is_string())
    );
    let condensation = pairs
        .iter()
        .find(|p| p[0]["action"] == "condensation")
        .expect("a condensation pair");
    assert_eq!(condensation[1]["observation"], "null");
    let summary = condensation[0]["args"]["summary"].as_str().unwrap();
    assert!(summary.starts_with("[ctxc summary]\n"), "{summary}");
    let ids: Vec<i64> = pairs
        .iter()
        .flatten()
        .filter_map(|e| e["id"].as_i64())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids {ids:?}");
    for p in pairs.iter().filter(|p| p[0]["action"] == "run") {
        assert_eq!(p[1]["observation"], "run");
        assert_eq!(p[1]["cause"], p[0]["id"]);
    }
    // Kept pairs are copied byte for byte.
    let text = String::from_utf8(original.clone()).unwrap();
    let last_run = pairs
        .iter()
        .rev()
        .find(|p| p[0]["action"] == "run")
        .unwrap();
    let needle = serde_json::to_string(&last_run[1]["content"]).unwrap();
    assert!(text.contains(&needle));

    // Deterministic.
    let again = dir.path().join("again.jsonl");
    assert_eq!(compact(&again).status.code(), Some(0));
    assert_eq!(std::fs::read(&again).unwrap(), written);

    assert_restores(dir.path(), "restored.jsonl", &original);
}

/// `out.ctxc-archive.json` in `dir` restores `original` byte for byte, as `dir/NAME`.
fn assert_restores(dir: &std::path::Path, name: &str, original: &[u8]) {
    let restored = dir.join(name);
    let out = ctxc()
        .args(["restore", "-q", "-o"])
        .arg(&restored)
        .arg(dir.join("out.ctxc-archive.json"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&restored).unwrap(), original);
}
