//! Tests of incremental.

use super::*;

#[test]
fn incremental_summarizes_each_20_turn_chunk_but_the_last_on_its_own() {
    // 0 system, 1 task; round k (1..=45) at 2k, 2k+1; 92 latest user, 93 answer. The first
    // chunk is the task and rounds 1-19 (20 turns), the second rounds 20-39, the last 40-45.
    let c = Chat::default()
        .system("sys")
        .user("Survey every module.")
        .reads(45)
        .user("Done?")
        .assistant("Yes.")
        .case();
    let plan = c.apply(StrategyName::Incremental);
    assert_eq!(shape(&plan), format!("0 1 S2-39 S40-79 {}", kept(80, 93)));
    let first = c.summary_of(&plan, 2);
    let second = c.summary_of(&plan, 40);
    assert!(indexes(first, "src/mod19.rs") && !indexes(first, "src/mod20.rs"));
    assert!(indexes(second, "src/mod20.rs") && indexes(second, "src/mod39.rs"));
    assert!(!indexes(second, "src/mod19.rs") && !indexes(second, "src/mod40.rs"));
}

#[test]
fn incremental_leaves_a_single_chunk_alone() {
    let c = Chat::default()
        .system("sys")
        .user("Survey.")
        .reads(18)
        .user("Done?")
        .assistant("Yes.")
        .case();
    let plan = c.apply(StrategyName::Incremental);
    assert_eq!(plan, c.subject().keep_all());
    let small = StrategySettings {
        incremental_chunk_turns: 5,
        ..StrategySettings::default()
    };
    // Chunks: task + rounds 1-4, 5-9, 10-14, 15-18 (the last, kept).
    let plan = c.apply_with(StrategyName::Incremental, &small, 0);
    assert_eq!(
        shape(&plan),
        format!("0 1 S2-9 S10-19 S20-29 {}", kept(30, 39))
    );
}
