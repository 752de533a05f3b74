//! `ctxc repair` verified in the real Claude Code and Codex CLI. A corpus session damaged the
//! ways crashes damage it (see `tests/common/damage.rs`), every kind for each client: the
//! damaged copy fails `ctxc check`, and its `ctxc repair` output passes it and resumes with the
//! task, the last user request and every call answered from the file. Where the client resumes
//! the damaged copy wrongly (a lost tool result: Claude Code drops the history above the gap,
//! task included, Codex makes up an output; a replayed block: Codex sends it twice), the test
//! asserts that it does. Where the client handles the damage itself (Claude Code: a dangling or
//! looping `parentUuid`, a replayed block, a torn or garbage line; Codex: a torn or garbage
//! line), the repaired copy must send the same history the client recovers.

use crate::claude::{blocks, check, dialogue, records, resume, texts};
use crate::damage::{Damage, damage};
use crate::standin::StandIn;
use crate::{Sandbox, clients, corpus};
use serde_json::Value;
use std::process::Command;

/// What Claude Code 2.1.330 writes as the result of a call the user interrupted.
const INTERRUPTED: &str = "[Request interrupted by user for tool use]";

/// The last prompt the user typed in a session (not meta, not a tool result).
fn last_request(text: &str) -> String {
    records(text)
        .iter()
        .filter(|r| r["type"] == "user" && r["isMeta"] != true && r["isSidechain"] != true)
        .filter_map(|r| texts(&r["message"]).into_iter().next())
        .rfind(|t| !t.starts_with('<') && !t.starts_with('['))
        .expect("the session has a user prompt")
}

/// `ctxc repair DAMAGED -o OUT`, returning OUT's text (which passes `ctxc check`).
fn repaired(damaged: &str) -> String {
    let work = Sandbox::new();
    let input = work.path("in").join("damaged.jsonl");
    let output = work.path("out").join("repaired.jsonl");
    std::fs::write(&input, damaged).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .args(["repair", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ctxc");
    assert!(
        out.status.success(),
        "ctxc repair failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    crate::assert_check_clean(&output);
    std::fs::read_to_string(output).unwrap()
}

/// Every text a request carries.
fn all_text(request: &Value) -> Vec<String> {
    dialogue(request).iter().flat_map(|m| texts(m)).collect()
}

#[test]
fn claude_code_resumes_a_repaired_session_and_not_the_damaged_one() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let original = std::fs::read_to_string(corpus("claude-code/spotter/tool_heavy.jsonl")).unwrap();
    let baseline = resume(&original, &standin);
    let ask = last_request(&original);
    for kind in Damage::ALL {
        let (damaged, said) = damage(&original, kind);
        assert_check_names(&damaged, kind, said);
        let damaged_request = resume(&damaged, &standin);
        let (wrong, _) = check(&damaged_request, &baseline, &original, &damaged, 1.0);
        eprintln!("claude, damaged ({kind:?}): {}", or_ok(&wrong.0));

        let fixed = repaired(&damaged);
        let request = resume(&fixed, &standin);
        let (problems, ratio) = check(&request, &baseline, &original, &fixed, 1.0);
        crate::log_run(
            &format!("claude, repaired ({kind:?})"),
            1.0,
            ratio,
            &problems,
        );
        assert!(problems.0.is_empty(), "{kind:?}: {problems:?}");
        assert!(
            all_text(&request).iter().any(|t| t.contains(&ask)),
            "{kind:?}: the last user request {ask:.60}… is not in the request"
        );
        let (sent, before) = (dialogue(&request), dialogue(&damaged_request));
        if kind == Damage::DeleteToolResult {
            // The client loses the history above the missing result (its child's parent is
            // gone) and the task with it.
            assert!(!wrong.0.is_empty(), "the damaged copy resumed cleanly");
            assert!(
                sent.len() > before.len(),
                "the repair sends no more history"
            );
            // The lost result is answered the way the client answers an interrupted call.
            let interrupted = sent
                .iter()
                .flat_map(|m| blocks(m, "tool_result"))
                .any(|b| b["is_error"] == true && b["content"].to_string().contains(INTERRUPTED));
            assert!(
                interrupted,
                "the interrupted-call result is not in the request"
            );
        } else {
            // Claude Code 2.1.330 handles the other kinds itself: it re-links a dangling or
            // looping parent, keeps one record per uuid of a replayed block and skips a line
            // that is not JSON (torn or garbage). The repair must send what the client
            // recovers: all but the new prompt (whose reminders name each resume's own
            // sandbox) is the same.
            let n = sent.len() - 1;
            assert!(
                sent.len() == before.len() && sent[..n] == before[..n],
                "{kind:?}: the repaired copy sends other history than the client recovers"
            );
        }
    }
}

/// `ctxc check` fails on the damaged copy and names its fault.
fn assert_check_names(damaged: &str, kind: Damage, said: &str) {
    let work = Sandbox::new();
    let input = work.path("in").join("damaged.jsonl");
    std::fs::write(&input, damaged).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .arg("check")
        .arg(&input)
        .output()
        .expect("run ctxc");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success() && report.contains(said),
        "{kind:?}: ctxc check does not fail with {said:?}: {report}"
    );
}

fn or_ok(problems: &[String]) -> String {
    if problems.is_empty() {
        "resumes as the original (the client recovers)".into()
    } else {
        problems.join("; ")
    }
}

/// Codex CLI 0.169.0, per damage kind of a rollout: with one call output deleted it resumes
/// with an output it made up ("aborted", not in the session); with a block of history
/// re-appended it sends that history twice, calls included; a torn last line or a garbage line
/// it skips itself. The `ctxc repair` output resumes with the task, the last user request and
/// every call answered from the session, sends the original's history where Codex replays a
/// block, and the same history Codex recovers where it skips a bad line.
#[test]
fn codex_resumes_a_repaired_rollout_and_not_the_damaged_one() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let original = crate::codex::rollout();
    let baseline = crate::codex::resume(&original, &standin);
    let ask = original
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "event_msg" && r["payload"]["type"] == "user_message")
        .filter_map(|r| r["payload"]["message"].as_str().map(str::to_string))
        .next_back()
        .expect("the rollout has a user_message");
    for kind in Damage::CODEX {
        let (damaged, said) = damage(&original, kind);
        assert_check_names(&damaged, kind, said);
        let damaged_request = crate::codex::resume(&damaged, &standin);
        let (wrong, _) = crate::codex::check(&damaged_request, &baseline, &original, &damaged, 1.0);
        eprintln!("codex, damaged ({kind:?}): {}", or_ok(&wrong.0));

        let fixed = repaired(&damaged);
        let request = crate::codex::resume(&fixed, &standin);
        let (problems, ratio) = crate::codex::check(&request, &baseline, &original, &fixed, 1.0);
        crate::log_run(
            &format!("codex, repaired ({kind:?})"),
            1.0,
            ratio,
            &problems,
        );
        assert!(problems.0.is_empty(), "{kind:?}: {problems:?}");
        assert!(
            carries(&request, &ask),
            "{kind:?}: the last user request {ask:.60}… is not in the request"
        );
        let sent = crate::codex::conversation(&request);
        let before = crate::codex::conversation(&damaged_request);
        match kind {
            Damage::DeleteToolResult => {
                assert!(!wrong.0.is_empty(), "the damaged rollout resumed cleanly");
            }
            Damage::DuplicateBlock => {
                // Codex replays the block: its calls go out twice. The repair sends the
                // original's history.
                assert!(
                    calls_sent_twice(&before) > 0,
                    "codex no longer sends a replayed block twice"
                );
                assert!(
                    sent == crate::codex::conversation(&baseline),
                    "the repaired rollout sends other history than the original"
                );
            }
            _ => {
                // Codex skips a line that is not JSON itself; the repair (which archives it)
                // must send the same history.
                assert!(
                    sent == before,
                    "{kind:?}: the repaired rollout sends other history than codex recovers"
                );
            }
        }
    }
}

/// How many function calls a request's conversation sends more than once.
fn calls_sent_twice(items: &[&Value]) -> usize {
    let mut seen = std::collections::HashSet::new();
    items
        .iter()
        .filter(|i| i["type"] == "function_call")
        .filter(|i| !seen.insert(i["call_id"].to_string()))
        .count()
}

/// Whether any string in `value` contains `needle`.
fn carries(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|v| carries(v, needle)),
        Value::Object(members) => members.values().any(|v| carries(v, needle)),
        _ => false,
    }
}
