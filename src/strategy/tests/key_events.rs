//! Tests of key-events.

use super::*;

/// 0 system, 1 task, 2-5 reads, 6-7 failing tests (key), 8 chatter, 9-10 read, 11-12 the
/// fix (key), 13-14 a commit (key), 15-24 five reads, 25 "has been fixed" (key), 26 latest
/// user, 27 answer.
fn eventful() -> Case {
    Chat::default()
        .system("sys")
        .user("Fix the failing parser test.")
        .reads(2)
        .tool("bash", json!({"command": "pytest -x"}), &failing_tests())
        .assistant("Let me look closer.")
        .reads(1)
        .tool(
            "edit_file",
            json!({"path": "src/parser.rs", "old": "i + 1", "new": "i"}),
            "edited",
        )
        .tool(
            "bash",
            json!({"command": "git commit -am 'fix parser'"}),
            "[main 1a2b3c] fix parser",
        )
        .reads(5)
        .assistant("The bug has been fixed.")
        .user("Great, thanks.")
        .assistant("You're welcome.")
        .case()
}

#[test]
fn key_events_keeps_errors_fixes_state_changes_and_completions() {
    let c = eventful();
    let plan = c.apply(StrategyName::KeyEvents);
    assert_eq!(shape(&plan), format!("0 1 S2-5 6 7 S8-10 {}", kept(11, 27)));
    let none_spared = StrategySettings {
        key_events_keep_recent: 0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::KeyEvents, &none_spared, 0);
    assert_eq!(
        shape(&plan),
        "0 1 S2-5 6 7 S8-10 11 12 13 14 S15-24 25 26 27"
    );
}
