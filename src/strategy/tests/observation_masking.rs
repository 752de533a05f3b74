//! Tests of observation-masking.

use super::*;

#[test]
fn observation_masking_masks_old_outputs_and_keeps_every_call() {
    // 0 system, 1 task, 2-3 a tiny `ls`, 4-5 read, 6-7 failing tests, 8-9 a pinned output,
    // 10-15 reads, 16 latest user, 17 answer.
    let c = Chat::default()
        .system("sys")
        .user("Fix the parser.")
        .tool("bash", json!({"command": "ls"}), "Cargo.toml src")
        .reads(1)
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .tool(
            "read_file",
            json!({"path": "NOTES.md"}),
            &format!("<Pin>Release on Friday.</Pin>\n{}", bulky(4)),
        )
        .reads(3)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let plan = c.apply(StrategyName::ObservationMasking);
    // The last 3 outputs (11, 13, 15) stay; `ls` is smaller than its placeholder; the pinned
    // output is preserved.
    assert_eq!(shape(&plan), format!("0 1 2 3 4 M5 6 M7 {}", kept(8, 17)));
    let masked = |at: usize| match &plan.items[at] {
        OutItem::ReplaceResult(_, text) => text.as_str(),
        other => panic!("{other:?}"),
    };
    let tokens = c.counter.count(&bulky(2));
    assert_eq!(
        masked(5),
        format!("[ctxc: output of read_file masked, {tokens} tokens in 40 lines]")
    );
    assert!(
        masked(7).starts_with("[ctxc: output of bash masked, ")
            && masked(7).ends_with(
                "tokens in 42 lines; its 2 error lines kept:]\nFAILED tests/test_parser.py::test_empty - AssertionError: 0 != 1\n1 failed, 9 passed"
            ),
        "{}",
        masked(7)
    );
    let all = StrategySettings {
        masking_keep_recent: 0,
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::ObservationMasking, &all, 0);
    assert_eq!(
        shape(&plan),
        "0 1 2 3 4 M5 6 M7 8 9 10 M11 12 M13 14 M15 16 17"
    );
}
