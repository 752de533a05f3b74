//! Tests of sliding-window.

use super::*;

#[test]
fn sliding_window_keeps_4_user_and_5_assistant_messages_and_summarizes_the_rest() {
    // 0 system, 1 task, 2-17 eight read rounds, 18 assistant, 19 latest user, 20-21 a test
    // run, 22 the answer.
    let c = Chat::default()
        .system("You are a coding agent.")
        .user("Fix the failing parser test in src/parser.rs.")
        .reads(8)
        .assistant("I found it.")
        .user("Good, now run the tests.")
        .tool("bash", json!({"command": "cargo test"}), "test result: ok")
        .assistant("All tests pass.")
        .case();
    let plan = c.apply(StrategyName::SlidingWindow);
    // The window: results 15, 17, 21 and user 19; assistant 14, 16, 18, 20, 22.
    assert_eq!(shape(&plan), format!("0 1 S2-13 {}", kept(14, 22)));
    let summary = c.summary_of(&plan, 2);
    assert!(indexes(summary, "src/mod1.rs") && indexes(summary, "src/mod6.rs"));
    assert!(!indexes(summary, "src/mod7.rs"), "{summary}");
}

#[test]
fn sliding_window_is_split_by_a_pin_and_follows_its_settings() {
    // 0 system, 1 task, 2-7 reads, 8 pin, 9-20 reads, 21 latest user, 22 answer.
    let c = Chat::default()
        .system("sys")
        .user("Survey the modules.")
        .reads(3)
        .user("<Pin>Report sizes in bytes.</Pin>")
        .reads(6)
        .user("Which module is largest?")
        .assistant("mod9.")
        .case();
    let plan = c.apply(StrategyName::SlidingWindow);
    // Four user-side messages fill the window first: 22, 21, 19-20, 17-18, 15-16.
    assert_eq!(shape(&plan), format!("0 1 S2-7 8 S9-14 {}", kept(15, 22)));
    let narrow = StrategySettings {
        window_user_messages: 1,
        window_assistant_messages: 1,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::SlidingWindow, &narrow, 0);
    assert_eq!(shape(&plan), "0 1 S2-7 8 S9-20 21 22");
}

#[test]
fn sliding_window_grows_back_as_far_as_the_target_allows() {
    // 0 system, 1 task, 2-17 eight reads, 18 latest user, 19 answer.
    let c = Chat::default()
        .system("sys")
        .user("Survey the modules.")
        .reads(8)
        .user("Largest?")
        .assistant("mod3.")
        .case();
    let s = c.subject();
    let budget = StrategySettings {
        summary_max_tokens: 100,
        ..StrategySettings::default()
    };
    // The least window starts at 12 (with 10-11 it would hold 5 user-side messages).
    let least = c.apply_with(StrategyName::SlidingWindow, &budget, 0);
    assert_eq!(shape(&least), format!("0 1 S2-11 {}", kept(12, 19)));
    // Priced at its budget plus 40, a summary of the first three rounds leaves exactly the
    // target: the window grows back to 8.
    let three: usize = s.tokens[2..8].iter().sum();
    let target = c.tokens() - three + budget.summary_max_tokens + 40;
    let plan = c.apply_with(StrategyName::SlidingWindow, &budget, target);
    assert_eq!(shape(&plan), format!("0 1 S2-7 {}", kept(8, 19)));
    assert!(plan.tokens(&s) <= target);
    // One token less and the fourth round goes too.
    let plan = c.apply_with(StrategyName::SlidingWindow, &budget, target - 1);
    assert_eq!(shape(&plan), format!("0 1 S2-9 {}", kept(10, 19)));
    // Everything fits: nothing to do.
    let plan = c.apply_with(StrategyName::SlidingWindow, &budget, c.tokens());
    assert_eq!(plan, s.keep_all());
}

#[test]
fn sliding_window_leaves_a_short_conversation_alone() {
    let c = Chat::default()
        .user("Read one file.")
        .reads(2)
        .assistant("Read.")
        .case();
    let plan = c.apply(StrategyName::SlidingWindow);
    assert_eq!(plan, c.subject().keep_all());
}
