//! Probes derived from a small agent run, and checked against shorter versions of it.

use super::*;
use crate::transcript::{ReadOptions, read};

/// A run: the task (with an identifier and a number), a failing test, an edit, a decision,
/// a second request, and a last command.
const RUN: &str = r#"[
{"role":"user","content":"Fix `parse_header` so requests over 8192 bytes are refused"},
{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{\"command\":\"pytest tests/test_http.py\"}"}}]},
{"role":"tool","tool_call_id":"a","content":"E   AssertionError: 413 != 200\n1 failed"},
{"role":"assistant","content":"I'll use a length check instead of a regex. Editing now.","tool_calls":[{"id":"b","type":"function","function":{"name":"str_replace_editor","arguments":"{\"command\":\"str_replace\",\"path\":\"/repo/http.py\",\"old_str\":\"x\",\"new_str\":\"y\"}"}}]},
{"role":"tool","tool_call_id":"b","content":"edited"},
{"role":"user","content":"Now add a changelog entry"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"git diff --stat\"}"}}]},
{"role":"tool","tool_call_id":"c","content":"1 file changed"}
]"#;

fn conversation(src: &str) -> Conversation {
    read(src.into(), &ReadOptions::default())
        .unwrap()
        .conversations
        .remove(0)
}

fn answers(probes: &[Probe], subject: Subject) -> Vec<&str> {
    probes
        .iter()
        .filter(|p| p.subject == subject)
        .map(|p| p.answer.as_str())
        .collect()
}

#[test]
fn probes_of_every_category_come_from_their_lines() {
    let probes = derive(&conversation(RUN));
    let files: Vec<(&str, Option<&str>, usize)> = probes
        .iter()
        .filter(|p| p.subject == Subject::File)
        .map(|p| (p.answer.as_str(), p.action, p.line))
        .collect();
    assert_eq!(
        files,
        [
            ("tests/test_http.py", Some("named"), 3),
            ("/repo/http.py", Some("modified"), 5)
        ]
    );
    assert_eq!(
        answers(&probes, Subject::Command),
        ["pytest tests/test_http.py", "git diff --stat"]
    );
    assert_eq!(
        answers(&probes, Subject::Error),
        ["E   AssertionError: 413 != 200", "1 failed"]
    );
    assert_eq!(answers(&probes, Subject::Identifier), ["parse_header"]);
    assert_eq!(answers(&probes, Subject::Number), ["8192"]);
    assert_eq!(
        answers(&probes, Subject::Task),
        ["Fix `parse_header` so requests over 8192 bytes are refused"]
    );
    assert_eq!(
        answers(&probes, Subject::LatestRequest),
        ["Now add a changelog entry"]
    );
    assert_eq!(answers(&probes, Subject::NextStep), ["git diff --stat"]);
    let decision: Vec<(&str, usize)> = probes
        .iter()
        .filter(|p| p.subject == Subject::Decision)
        .map(|p| (p.answer.as_str(), p.line))
        .collect();
    assert_eq!(
        decision,
        [("I'll use a length check instead of a regex.", 5)]
    );
}

#[test]
fn a_probe_passes_only_while_its_answer_is_findable() {
    let original = conversation(RUN);
    let probes = derive(&original);
    assert!(check(&probes, &original).iter().all(|&ok| ok));
    // The middle replaced by a summary that keeps the file but not the error or the choice,
    // and names 81920 rather than 8192.
    let compacted = conversation(
        r#"[
{"role":"user","content":"Fix `parse_header` so requests over 8192 bytes are refused"},
{"role":"user","content":"[ctxc summary] Edited /repo/http.py after `pytest tests/test_http.py` failed; limit 81920."},
{"role":"user","content":"Now add a changelog entry"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"git diff --stat\"}"}}]},
{"role":"tool","tool_call_id":"c","content":"1 file changed"}
]"#,
    );
    let passed = check(&probes, &compacted);
    let missing: Vec<&str> = probes
        .iter()
        .zip(&passed)
        .filter(|(_, ok)| !**ok)
        .map(|(p, _)| p.answer.as_str())
        .collect();
    // The prose names the edited file, but no call or index says how it was last touched.
    assert_eq!(
        missing,
        [
            "/repo/http.py",
            "E   AssertionError: 413 != 200",
            "1 failed",
            "I'll use a length check instead of a regex.",
            // The last failure: its error is gone with the others.
            "E   AssertionError: 413 != 200"
        ]
    );
    let tallies = Tallies::of(&probes, &passed);
    assert_eq!(tallies.artifact, [1, 2]);
    assert_eq!(tallies.recall, [4, 7]);
    assert_eq!(tallies.continuation, [3, 3]);
    assert_eq!(tallies.decision, [0, 1]);
}

#[test]
fn a_file_probe_needs_the_last_action_from_a_kept_call_or_an_index() {
    let probes = derive(&conversation(RUN));
    let file = |index: &str| {
        let compacted = conversation(&format!(
            r#"[
{{"role":"user","content":"Fix `parse_header` so requests over 8192 bytes are refused"}},
{{"role":"user","content":"[ctxc summary] Files touched, by last action:\n{index}"}},
{{"role":"user","content":"Now add a changelog entry"}}
]"#
        ));
        let passed = check(&probes, &compacted);
        probes
            .iter()
            .zip(passed)
            .find(|(p, _)| p.answer == "/repo/http.py")
            .map(|(_, ok)| ok)
            .unwrap()
    };
    assert!(file("- modified: /repo/{http.py, other.py}"));
    assert!(!file("- read: /repo/http.py"), "the edit was lost");
    assert!(!file("- created: /repo/http.py"));
    // Only a read kept, the edit after it dropped: the file's state is lost.
    let read_only = conversation(
        r#"[
{"role":"user","content":"Fix `parse_header` so requests over 8192 bytes are refused"},
{"role":"assistant","content":null,"tool_calls":[{"id":"v","type":"function","function":{"name":"str_replace_editor","arguments":"{\"command\":\"view\",\"path\":\"/repo/http.py\"}"}}]},
{"role":"tool","tool_call_id":"v","content":"def parse_header(): ..."}
]"#,
    );
    let passed = check(&probes, &read_only);
    let http = probes
        .iter()
        .position(|p| p.answer == "/repo/http.py")
        .unwrap();
    assert!(!passed[http]);
    // A file only named needs only its path.
    let named = probes
        .iter()
        .position(|p| p.answer == "tests/test_http.py")
        .unwrap();
    assert_eq!(probes[named].action, Some("named"));
}

#[test]
fn numbers_and_identifiers_are_whole_words() {
    let found = probes::user_values_for_test(
        "set retries to 12 in max_retries, not 120; see v2/api and 3.14",
    );
    assert_eq!(
        found,
        [
            (Subject::Identifier, "max_retries".to_string()),
            (Subject::Number, "12".to_string()),
            (Subject::Number, "120".to_string()),
            (Subject::Number, "3.14".to_string())
        ]
    );
    assert_eq!(find_all(&["12"], "x 120 y", true), [false]);
    assert_eq!(find_all(&["12"], "x (12) y", true), [true]);
}

#[test]
fn a_probe_only_an_artifact_index_names_is_kept_in_the_index_not_verbatim() {
    use crate::summarizer::artifacts::{COMMANDS_TITLE, FILES_TITLE};
    let probes = derive(&conversation(RUN));
    // The edit and the first command summarized: the index names the file and the command,
    // the summary's prose quotes the error.
    let summary = format!(
        "[ctxc summary]\n{FILES_TITLE}\n- modified: /repo/http.py\n- named: tests/test_http.py\n{COMMANDS_TITLE}\n- `pytest tests/test_http.py`\nErrors: E   AssertionError: 413 != 200"
    );
    let shorter = format!(
        r#"[
{{"role":"user","content":"Fix `parse_header` so requests over 8192 bytes are refused"}},
{{"role":"user","content":{}}},
{{"role":"user","content":"Now add a changelog entry"}},
{{"role":"assistant","content":null,"tool_calls":[{{"id":"c","type":"function","function":{{"name":"bash","arguments":"{{\"command\":\"git diff --stat\"}}"}}}}]}},
{{"role":"tool","tool_call_id":"c","content":"1 file changed"}}
]"#,
        serde_json::to_string(&summary).unwrap()
    );
    let after = conversation(&shorter);
    let kept = check_kept(&probes, &after);
    let of = |answer: &str| {
        let at = probes.iter().position(|p| p.answer == answer).unwrap();
        kept[at]
    };
    assert_eq!(of("/repo/http.py"), Kept::Index);
    assert_eq!(of("pytest tests/test_http.py"), Kept::Index);
    assert_eq!(of("E   AssertionError: 413 != 200"), Kept::Verbatim);
    assert_eq!(of("git diff --stat"), Kept::Verbatim);
    assert_eq!(of("1 failed"), Kept::Lost);
    // `check` still passes what an index names.
    let passed = check(&probes, &after);
    for (k, p) in kept.iter().zip(&passed) {
        assert_eq!(*p, *k != Kept::Lost);
    }
    let counts = BySubject::of(&probes, &kept);
    assert_eq!(counts.get(Subject::File), [0, 2, 2]);
    assert_eq!(counts.get(Subject::Command), [1, 1, 2]);
    // The last failure's error is quoted, its command only indexed.
    assert_eq!(counts.get(Subject::LastFailure), [0, 1, 1]);
}

/// A Claude Code session: a file written, edited twice at the same place, a scratch file
/// created and removed, a failing build, a question answered, a hook's injected context.
const TRAIL: &str = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"Make the totals right"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/repo/notes.txt","content":"scratch"}}]}}
{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"File created"}]}}
{"type":"assistant","uuid":"a2","parentUuid":"r1","sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/repo/calc.py","old_string":"total = 0","new_string":"total = sum(prices)"}}]}}
{"type":"user","uuid":"r2","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"edited"}]}}
{"type":"user","uuid":"meta","parentUuid":"r2","isMeta":true,"sessionId":"s","message":{"role":"user","content":"<system-reminder>\nPostToolUse:Edit hook additional context: calc.py:3 line too long (101 > 100)\n</system-reminder>"}}
{"type":"assistant","uuid":"a3","parentUuid":"meta","sessionId":"s","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"/repo/calc.py","old_string":"total = sum(prices)","new_string":"total = sum(p.amount for p in prices)"}}]}}
{"type":"user","uuid":"r3","parentUuid":"a3","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"edited"}]}}
{"type":"assistant","uuid":"a4","parentUuid":"r3","sessionId":"s","message":{"id":"m4","role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"cd /repo && rm notes.txt && python -m pytest"}}]}}
{"type":"user","uuid":"r4","parentUuid":"a4","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","is_error":true,"content":"Exit code 1\nE   AttributeError: 'float' object has no attribute 'amount'"}]}}
{"type":"assistant","uuid":"a5","parentUuid":"r4","sessionId":"s","message":{"id":"m5","role":"assistant","content":[{"type":"tool_use","id":"t5","name":"AskUserQuestion","input":{"questions":[{"question":"Are prices floats or objects?","options":[{"label":"floats"},{"label":"objects"}]}]}}]}}
{"type":"user","uuid":"r5","parentUuid":"a5","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t5","content":"User has answered your questions: \"Are prices floats or objects?\"=\"floats, in cents\". You can now continue with the user's answers in mind."}]}}
{"type":"assistant","uuid":"a6","parentUuid":"r5","sessionId":"s","message":{"id":"m6","role":"assistant","content":[{"type":"text","text":"Reverting to a plain sum."}]}}
"#;

#[test]
fn the_trail_gives_edit_deleted_failure_answer_and_meta_probes() {
    let probes = derive(&conversation(TRAIL));
    assert_eq!(answers(&probes, Subject::EditText), ["total = sum(prices)"]);
    assert_eq!(answers(&probes, Subject::Deleted), ["/repo/notes.txt"]);
    let failure: Vec<(&str, Option<&str>)> = probes
        .iter()
        .filter(|p| p.subject == Subject::LastFailure)
        .map(|p| (p.answer.as_str(), p.also.as_deref()))
        .collect();
    assert_eq!(
        failure,
        [(
            "E   AttributeError: 'float' object has no attribute 'amount'",
            Some("cd /repo && rm notes.txt && python -m pytest")
        )]
    );
    assert_eq!(answers(&probes, Subject::Answer), ["floats, in cents"]);
    assert_eq!(
        answers(&probes, Subject::MetaPrompt),
        ["PostToolUse:Edit hook additional context: calc.py:3 line too long (101 > 100)"]
    );
    // The original answers all of them verbatim.
    let kept = check_kept(&probes, &conversation(TRAIL));
    assert!(kept.iter().all(|k| *k == Kept::Verbatim), "{kept:?}");
}

#[test]
fn trail_probes_are_lost_with_their_calls_and_kept_only_in_an_index_by_name() {
    use crate::summarizer::artifacts::{COMMANDS_TITLE, FILES_TITLE};
    let probes = derive(&conversation(TRAIL));
    // Everything but the request and the last reply summarized into an index that names
    // the files and the command, the failure's first error line beside it.
    let summary = format!(
        "[ctxc summary]\n{FILES_TITLE}\n- created, deleted: /repo/notes.txt\n- modified ×2: /repo/calc.py\n{COMMANDS_TITLE}\n- `cd /repo && rm notes.txt && python -m pytest` → failed: E   AttributeError: 'float' object has no attribute 'amount'"
    );
    let lines: Vec<&str> = TRAIL.lines().collect();
    let after = format!(
        "{}\n{}\n{}\n",
        lines[0],
        serde_json::json!({"type":"user","uuid":"sum","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":summary}}),
        lines[12].replace("\"r5\"", "\"sum\"")
    );
    let kept = check_kept(&probes, &conversation(&after));
    let of = |subject: Subject| {
        let at = probes.iter().position(|p| p.subject == subject).unwrap();
        kept[at]
    };
    assert_eq!(of(Subject::Deleted), Kept::Index);
    assert_eq!(of(Subject::LastFailure), Kept::Index);
    assert_eq!(of(Subject::EditText), Kept::Lost);
    assert_eq!(of(Subject::Answer), Kept::Lost);
    assert_eq!(of(Subject::MetaPrompt), Kept::Lost);
    // Its created-only index line does not say the file is gone.
    let stale = after.replace("created, deleted", "created");
    let kept = check_kept(&probes, &conversation(&stale));
    let at = probes
        .iter()
        .position(|p| p.subject == Subject::Deleted)
        .unwrap();
    assert_eq!(kept[at], Kept::Lost);
}
