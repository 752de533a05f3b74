//! Tests of full-summary.

use super::*;

#[test]
fn full_summary_keeps_what_is_preserved_beside_one_summary() {
    // 0 system, 1 task, 2-5 reads, 6-7 a task list, 8-9 an edit, 10-11 read, 12 latest user,
    // 13-14 a test run, 15 answer.
    let c = Chat::default()
        .system("sys")
        .user("Fix the parser.")
        .reads(2)
        .tool(
            "TodoWrite",
            json!({"todos": [
                {"content": "Read the parser", "status": "completed"},
                {"content": "Fix the off-by-one", "status": "in_progress"},
                {"content": "Run the tests", "status": "pending"}]}),
            "ok",
        )
        .tool(
            "edit_file",
            json!({"path": "src/parser.rs", "old": "i + 1", "new": "i"}),
            "edited",
        )
        .reads(1)
        .user("Run the tests now.")
        .tool("bash", json!({"command": "cargo test"}), "ok")
        .assistant("Passing.")
        .case();
    let plan = c.apply(StrategyName::FullSummary);
    assert_eq!(shape(&plan), "0 1 S2-11 12 13 14 15");
    let text = c.summary_of(&plan, 2);
    assert!(text.contains("the whole conversation but what is kept verbatim"));
    assert!(text.contains(
        "Task list (latest state):\n- [in_progress] Fix the off-by-one\n- [pending] Run the tests\n- [completed] Read the parser"
    ));
    assert!(text.contains("- modified: src/parser.rs"), "{text}");
}

#[test]
fn full_summary_around_a_pin_writes_one_summary_per_side() {
    let c = rich().case();
    let plan = c.apply(StrategyName::FullSummary);
    // The pin (9) stays in place, so the history either side of it is summarized apart.
    assert_eq!(shape(&plan), "0 1 S2-8 9 S10-25 26 27 28 29");
}

/// 0 system, 1 task, 2 an earlier ctxc summary, 3-14 six reads, 15 latest user, 16 answer.
fn resumed() -> Case {
    Chat::default()
        .system("sys")
        .user("Fix the parser.")
        .user("[ctxc summary]\nContinuation summary of 9 earlier messages, by ctxc.\n\n## 2. Current state\nFiles modified:\n- src/old.rs")
        .reads(6)
        .user("Next?")
        .assistant("Testing.")
        .case()
}

#[test]
fn every_strategy_keeps_or_merges_an_earlier_summary() {
    let c = resumed();
    // A new summary right after an earlier ctxc summary absorbs it, its lists merged: one
    // ctxc summary stands, however often ctxc runs.
    let plan = c.apply(StrategyName::SlidingWindow);
    assert_eq!(shape(&plan), format!("0 1 S2-8 {}", kept(9, 16)));
    let merged = c.summary_of(&plan, 2);
    assert!(indexes(merged, "src/old.rs"), "{merged}");
    assert!(indexes(merged, "src/mod1.rs"), "{merged}");
    let tight = StrategySettings {
        importance_keep_recent: 0,
        key_events_keep_recent: 0,
        incremental_chunk_turns: 2,
        ..StrategySettings::default()
    };
    for name in [StrategyName::Importance, StrategyName::KeyEvents] {
        let plan = c.apply_with(name, &tight, 0);
        assert_eq!(shape(&plan), "0 1 S2-14 15 16", "{name}");
    }
    let plan = c.apply_with(StrategyName::Incremental, &tight, 0);
    assert!(
        plan.items
            .iter()
            .any(|o| matches!(o, OutItem::Summary { replaces, .. } if replaces.start == 2)),
        "{}",
        shape(&plan)
    );
    let plan = c.apply(StrategyName::FullSummary);
    assert_eq!(shape(&plan), "0 1 S2-14 15 16");
    // Strategies that write no summary keep it verbatim: it may be all that states the task.
    let plan = c.apply(StrategyName::Truncate);
    assert_eq!(shape(&plan), format!("0 1 2 {}", kept(7, 16)));
}

#[test]
fn a_summary_takes_the_room_the_target_leaves_not_a_fixed_cap() {
    // 30 reads of distinct files: more than a 100-token summary can name.
    let c = Chat::default()
        .system("sys")
        .user("Survey the modules.")
        .reads(30)
        .user("Now sum up.")
        .assistant("Summing up.")
        .case();
    let small = StrategySettings {
        summary_max_tokens: 100,
        ..StrategySettings::default()
    };
    let target = c.tokens() / 2;
    let plan = c.apply_with(StrategyName::FullSummary, &small, target);
    let s = c.subject();
    let text = c.summary_of(&plan, 2);
    let tokens = s.summary_tokens(text);
    // The target leaves thousands of tokens: the summary takes more than the 100 it would
    // get as a cap, stays within half the span and the target, and so names every file.
    assert!(tokens > 150, "{tokens} tokens: {text}");
    assert!(plan.tokens(&s) <= target);
    for k in 1..=30 {
        assert!(
            indexes(text, &format!("src/mod{k}.rs")),
            "src/mod{k}.rs: {text}"
        );
    }
}
