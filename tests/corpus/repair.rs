//! `ctxc repair` over the whole corpus: no false repairs. Every file `check` finds clean comes
//! back byte-identical with no repair named; the files damaged on purpose come back passing
//! `check` (or naming what no repair fixes), and never with a fault they did not have.

use crate::{KNOWN_INVALID, corpus_dir, corpus_files, load};
use ctxc::repair::{self, Options, oversize::Fit};
use ctxc::transcript::{self, ReadOptions};
use std::collections::HashSet;

fn options() -> Options {
    Options {
        read: ReadOptions::default(),
        max_session_bytes: 20 << 20,
        fit: Fit::default(),
    }
}

#[test]
fn every_clean_corpus_file_passes_through_byte_identical() {
    let mut failures = Vec::new();
    for rel in corpus_files() {
        let Ok(t) = load(&rel) else { continue };
        if !transcript::check(&t).is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(corpus_dir().join(&rel)).unwrap();
        match repair::repair(&text, &options()) {
            Ok(r) if r.output == text && r.repairs.is_empty() => {}
            Ok(r) => failures.push(format!("{rel}: {:?}", r.repairs)),
            Err(e) => failures.push(format!("{rel}: {:?}", e.findings)),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn damaged_corpus_files_lose_faults_and_gain_none() {
    for (rel, _) in KNOWN_INVALID {
        let text = std::fs::read_to_string(corpus_dir().join(rel)).unwrap();
        let before: HashSet<String> = transcript::check(&load(rel).unwrap())
            .iter()
            .map(|f| f.problem().to_string())
            .collect();
        let r = repair::repair(&text, &options()).unwrap();
        assert!(!r.repairs.is_empty(), "{rel}");
        assert!(r.remaining.len() < before.len(), "{rel}: {:?}", r.remaining);
        for f in &r.remaining {
            assert!(before.contains(f.problem()), "{rel}: new fault {f}");
        }
    }
}

/// Every corpus session big enough to damage, damaged every way: the repair leaves no fault,
/// and its restore pieces give back the damaged text. Sessions the tests above never name.
#[test]
fn every_damage_of_every_corpus_session_is_repaired() {
    use crate::damage::{Damage, damage};
    let mut failures = Vec::new();
    let mut repaired = 0;
    for rel in corpus_files() {
        if !rel.starts_with("claude-code/") || !rel.ends_with(".jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(corpus_dir().join(&rel)).unwrap();
        let Ok(t) = load(&rel) else { continue };
        let usable = transcript::check(&t).is_empty()
            && text.lines().count() >= 10
            && text.contains("\"tool_result\"");
        if !usable {
            continue;
        }
        for kind in Damage::ALL {
            let damaged = match std::panic::catch_unwind(|| damage(&text, kind)) {
                Ok((damaged, _)) => damaged,
                Err(_) => continue,
            };
            let r = repair::repair(&damaged, &options()).unwrap();
            let pieces = repair::pieces(&damaged, &r.output);
            let back = ctxc::archive::apply(&pieces, r.output.as_bytes(), false).unwrap();
            if !r.remaining.is_empty() || r.repairs.is_empty() || back != damaged.as_bytes() {
                failures.push(format!("{rel} {kind:?}: {:?}", r.remaining));
            }
            repaired += 1;
        }
    }
    assert!(repaired >= 20, "only {repaired} damaged copies");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// In `value`, the first list of messages holding an OpenAI `tool` message that something
/// follows: that message removed (its call then goes unanswered) and a second copy of the
/// next `tool` message added; `false` when there is none.
fn damage_openai_list(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    let is_answer = |m: &Value| m.get("role") == Some(&Value::from("tool"));
    match value {
        Value::Array(items) => {
            let answers: Vec<usize> = (0..items.len().saturating_sub(1))
                .filter(|&i| is_answer(&items[i]))
                .collect();
            if answers.len() >= 2 {
                let again = items[answers[1]].clone();
                items.insert(answers[1] + 1, again);
                items.remove(answers[0]);
                return true;
            }
            items.iter_mut().any(damage_openai_list)
        }
        Value::Object(members) => {
            // The lists conversations are read from first (SWE-agent's `trajectory`, before
            // its `history`, holds queries too).
            for key in ["history", "messages", "traj"] {
                if members.get_mut(key).is_some_and(damage_openai_list) {
                    return true;
                }
            }
            members.values_mut().any(damage_openai_list)
        }
        _ => false,
    }
}

/// Every corpus OpenAI chat file with tool messages (tau-bench runs, SWE-agent trajectories,
/// whatever the corpus holds), damaged in its first list that has them: an answer lost and
/// another answered twice. The repair leaves no fault and its restore pieces give back the
/// damaged text. Files the tests in tests/cli never name.
#[test]
fn damaged_openai_lists_of_the_corpus_are_repaired() {
    let mut failures = Vec::new();
    let mut repaired = 0;
    for rel in corpus_files() {
        let Ok(t) = load(&rel) else { continue };
        if t.format != transcript::Format::OpenAi || !transcript::check(&t).is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(corpus_dir().join(&rel)).unwrap();
        let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if !damage_openai_list(&mut value) {
            continue;
        }
        let damaged = serde_json::to_string_pretty(&value).unwrap();
        let read = transcript::read(damaged.clone(), &ReadOptions::default()).unwrap();
        if transcript::check(&read).is_empty() {
            // The list damaged is not one the conversation is read from (SWE-agent's
            // `trajectory` holds the queries too).
            continue;
        }
        let r = repair::repair(&damaged, &options()).unwrap();
        let pieces = repair::pieces(&damaged, &r.output);
        let back = ctxc::archive::apply(&pieces, r.output.as_bytes(), false).unwrap();
        let named = r.repairs.iter().filter(|r| r.line > 0).count();
        if !r.remaining.is_empty() || named != 2 || back != damaged.as_bytes() {
            failures.push(format!("{rel}: {:?} {:?}", r.repairs, r.remaining));
        }
        repaired += 1;
    }
    assert!(repaired >= 3, "only {repaired} damaged copies");
    assert!(failures.is_empty(), "{failures:#?}");
}
