//! Tests of adaptive.

use super::*;

fn calls(names: &[&str]) -> Case {
    let mut chat = Chat::default().system("sys").user("Do the work.");
    for (k, name) in names.iter().enumerate() {
        let args = match *name {
            "bash" => json!({"command": format!("make step{k}")}),
            _ => json!({"path": format!("src/f{k}.rs")}),
        };
        chat = chat.tool(name, args, "ok");
    }
    chat.assistant("Done.").case()
}

#[test]
fn adaptive_detects_the_task_type_from_tool_calls() {
    for (names, want) in [
        (
            &["edit_file", "bash", "bash", "write_file", "read_file"][..],
            TaskType::Code,
        ),
        (
            &[
                "read_file",
                "search_code",
                "get_weather",
                "list_dir",
                "fetch_url",
            ],
            TaskType::Analysis,
        ),
        (
            &["read_file", "grep", "read_file", "edit_file", "bash"],
            TaskType::Mixed,
        ),
        (
            &[
                "read_file",
                "grep",
                "bash",
                "frob",
                "frob",
                "frob",
                "frob",
                "frob",
                "frob",
                "frob",
            ],
            TaskType::Mixed,
        ),
        (&["frobnicate", "transmogrify", "frob"], TaskType::Unknown),
        (&[], TaskType::Conversation),
    ] {
        let c = calls(names);
        assert_eq!(detect_task_type(&c.subject()), want, "{names:?}");
    }
    // One call in more than ten messages is still a conversation.
    let mut chat = Chat::default().user("Hi.");
    for k in 0..5 {
        chat = chat.assistant(&format!("a{k}")).user(&format!("u{k}"));
    }
    let c = chat
        .tool("edit_file", json!({"path": "a.rs"}), "ok")
        .assistant("ok")
        .case();
    assert_eq!(detect_task_type(&c.subject()), TaskType::Conversation);
}

#[test]
fn adaptive_chain_runs_the_type_chain_then_the_fallbacks() {
    use StrategyName::*;
    let code = calls(&["edit_file", "bash", "bash", "read_file"]);
    let (task, rungs) = adaptive_chain(&code.subject(), false);
    assert_eq!(
        (task, names(&rungs)),
        (
            TaskType::Code,
            vec![
                Dedup,
                TrimOutputs,
                ObservationMasking,
                TrimCalls,
                SlidingWindow,
                KeyEvents,
                Incremental,
                Importance,
                Selective,
                FullSummary,
                Truncate
            ]
        )
    );
    let analysis = calls(&["read_file", "grep", "get_user"]);
    assert_eq!(
        names(&adaptive_chain(&analysis.subject(), false).1),
        [
            Dedup,
            TrimOutputs,
            ObservationMasking,
            TrimCalls,
            SlidingWindow,
            Importance,
            Incremental,
            KeyEvents,
            Selective,
            FullSummary,
            Truncate
        ]
    );
    let mixed = calls(&["read_file", "grep", "edit_file"]);
    assert_eq!(
        names(&adaptive_chain(&mixed.subject(), false).1)[4..7],
        [SlidingWindow, Incremental, Importance]
    );
    // Payloads put strip-payloads first, unless they are to be kept.
    let image = json!({"role": "user", "content": [{"type": "image_url",
        "image_url": {"url": format!("data:image/png;base64,{}", base64(9000, "QUJD"))}}]});
    let c = Chat::default()
        .user("Look.")
        .message(image)
        .assistant("Seen.")
        .user("Thanks.")
        .assistant("Welcome.")
        .case();
    let (task, steps) = adaptive_chain(&c.subject(), false);
    assert_eq!(task, TaskType::Conversation);
    assert_eq!(names(&steps)[..3], [StripPayloads, Dedup, TrimOutputs]);
    assert_eq!(adaptive_chain(&c.subject(), true).1[0].strategy, Dedup);
    // Only masking and call trimming reach the recent outputs and calls.
    let reaching: Vec<StrategyName> = steps
        .iter()
        .filter(|r| r.recent_too)
        .map(|r| r.strategy)
        .collect();
    assert_eq!(reaching, [ObservationMasking, TrimCalls]);
}

/// The strategies of a chain, in order.
fn names(rungs: &[Rung]) -> Vec<StrategyName> {
    rungs.iter().map(|r| r.strategy).collect()
}

#[test]
fn adaptive_strategy_stops_once_under_target() {
    let c = rich().case();
    let total = c.tokens();
    let plan = c.apply_with(StrategyName::Adaptive, &StrategySettings::default(), total);
    assert_eq!(plan, c.subject().keep_all());
    // A target that masking old outputs meets: no turn is summarized, every call stays.
    let masked = c.apply(StrategyName::ObservationMasking);
    let target = masked.tokens(&c.subject());
    let plan = c.apply_with(StrategyName::Adaptive, &StrategySettings::default(), target);
    assert!(plan.tokens(&c.subject()) <= target);
    assert!(
        !plan
            .items
            .iter()
            .any(|i| matches!(i, OutItem::Summary { .. })),
        "{plan:?}"
    );
    // A target it does not meet: summaries take the rest, after the outputs were masked.
    let window = c.apply(StrategyName::SlidingWindow);
    let target = window.tokens(&c.subject());
    let plan = c.apply_with(StrategyName::Adaptive, &StrategySettings::default(), target);
    assert!(plan.tokens(&c.subject()) <= target);
    assert!(
        plan.items
            .iter()
            .any(|i| matches!(i, OutItem::ReplaceResult(_, t) if t.contains("masked"))),
        "{plan:?}"
    );
}

#[test]
fn adaptive_masks_a_recent_output_before_it_summarizes_an_older_call() {
    // Old outputs short, the last three long: masking by its own rule (the last 3 whole)
    // cannot meet a target that masking everything can.
    let mut chat = Chat::default().system("sys").user("Fix the build.");
    for k in 0..6 {
        let output = if k < 3 {
            "ok".to_string()
        } else {
            (0..80).map(|n| format!("line {n} of log {k}\n")).collect()
        };
        chat = chat.tool("bash", json!({"command": format!("make step{k}")}), &output);
    }
    let c = chat.assistant("Done.").case();
    let settings = StrategySettings::default();
    let named = c.apply_with(StrategyName::ObservationMasking, &settings, 1);
    let all = StrategySettings {
        masking_keep_recent: 0,
        ..StrategySettings::default()
    };
    let every_output = c.apply_with(StrategyName::ObservationMasking, &all, 1);
    let target = every_output.tokens(&c.subject()) + 20;
    assert!(named.tokens(&c.subject()) > target);
    let plan = c.apply_with(StrategyName::Adaptive, &settings, target);
    assert!(plan.tokens(&c.subject()) <= target, "{plan:?}");
    assert!(
        !plan
            .items
            .iter()
            .any(|i| matches!(i, OutItem::Summary { .. })),
        "every call stays verbatim: {plan:?}"
    );
    let masked = plan
        .items
        .iter()
        .filter(|i| matches!(i, OutItem::ReplaceResult(_, t) if t.contains("masked")))
        .count();
    // The old outputs ("ok") are shorter than a placeholder: what is masked is recent.
    assert!(masked >= 2, "the recent outputs are masked: {plan:?}");
}
