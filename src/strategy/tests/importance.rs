//! Tests of importance.

use super::*;

/// 0 system, 1 task, 2-7 reads (low), 8-9 failing tests (error: 3.5), 10 a root cause
/// (decision: 3.0), 11-14 reads, 15 a user request (3.0), 16-25 five reads, 26 latest user,
/// 27 answer.
fn scored() -> Case {
    Chat::default()
        .system("sys")
        .user("Fix the failing parser test.")
        .reads(3)
        .tool(
            "bash",
            json!({"command": "pytest tests/test_parser.py -x"}),
            &failing_tests(),
        )
        .assistant("The root cause is an off-by-one in the tokenizer.")
        .reads(2)
        .user("Also check the lexer please.")
        .reads(5)
        .user("What did you find?")
        .assistant("Both are fixed.")
        .case()
}

#[test]
fn importance_keeps_scores_of_3_and_the_last_5_low_units() {
    let c = scored();
    let plan = c.apply(StrategyName::Importance);
    assert_eq!(
        shape(&plan),
        format!("0 1 S2-7 8 9 10 S11-14 {}", kept(15, 27))
    );
}

#[test]
fn importance_threshold_and_recent_count_come_from_settings() {
    let c = scored();
    // At 4.0 the error, the decision and the user request score low too.
    let strict = StrategySettings {
        importance_threshold: 4.0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Importance, &strict, 0);
    assert_eq!(shape(&plan), format!("0 1 S2-15 {}", kept(16, 27)));
    let none_spared = StrategySettings {
        importance_keep_recent: 0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Importance, &none_spared, 0);
    assert_eq!(shape(&plan), "0 1 S2-7 8 9 10 S11-14 15 S16-25 26 27");
}
