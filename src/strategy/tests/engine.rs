//! Tests of the engine: the chain of steps, landing in the target band, and what it reports.

use super::*;

#[test]
fn engine_runs_adaptive_until_the_target_is_met() {
    let c = rich().case();
    let s = c.subject();
    let window = c.apply(StrategyName::SlidingWindow).tokens(&s);
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        goal(window),
    )
    .unwrap();
    assert_eq!(run.task_type, Some(TaskType::Mixed));
    // The ladder: the free and near-free rungs first, then the type's chain; it stops at the
    // rung that meets the target.
    let ran: Vec<StrategyName> = run.steps.iter().map(|s| s.strategy).collect();
    assert_eq!(
        ran,
        [
            StrategyName::Dedup,
            StrategyName::TrimOutputs,
            StrategyName::ObservationMasking,
            StrategyName::TrimCalls,
            StrategyName::SlidingWindow
        ][..ran.len()],
    );
    assert!(run.steps.last().unwrap().changed);
    assert_eq!(run.tokens_before, c.tokens());
    assert!(run.tokens_after <= window);
    assert_eq!(run.shortfall, None);
    c.assert_plan(StrategyName::Adaptive, &run.plan);
    c.assert_written(StrategyName::Adaptive, &run.plan);
    // Already under target: nothing to do, unless a step is asked for.
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        goal(c.tokens()),
    )
    .unwrap();
    assert!(run.steps.is_empty());
    assert_eq!(run.plan, s.keep_all());
    let forced = Goal {
        at_least_one_step: true,
        ..goal(c.tokens())
    };
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        forced,
    )
    .unwrap();
    // Sliding-window grows to the (met) target and so changes nothing; the chain goes on to
    // the first step that does, and stops there.
    let changed: Vec<bool> = run.steps.iter().map(|s| s.changed).collect();
    assert_eq!(changed, [false, true], "{:?}", run.steps);
    assert!(run.tokens_after < run.tokens_before);
}

#[test]
fn engine_says_why_an_unreachable_target_is_missed() {
    let c = rich().case();
    let s = c.subject();
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        goal(1),
    )
    .unwrap();
    let tried: Vec<StrategyName> = run.steps.iter().map(|s| s.strategy).collect();
    let chain: Vec<StrategyName> = adaptive_chain(&s, false)
        .1
        .iter()
        .map(|r| r.strategy)
        .collect();
    assert_eq!(tried, chain);
    for step in &run.steps {
        assert!(step.tokens_after <= step.tokens_before, "{step:?}");
    }
    let why = run
        .shortfall
        .expect("a target of 1 token cannot be met")
        .to_string();
    assert!(why.contains("target 1"), "{why}");
    assert!(why.contains("must stay verbatim"), "{why}");
    assert!(
        why.contains("the original task") && why.contains("pinned messages"),
        "{why}"
    );
    // The preserved items stay, and the ladder ends no bigger than one summary of the rest.
    let kept: Vec<usize> = run.plan.items.iter().filter_map(OutItem::kept).collect();
    assert!(RICH_PRESERVED.iter().all(|p| kept.contains(p)), "{kept:?}");
    let full = c.apply_with(StrategyName::FullSummary, &settings, 1);
    assert!(run.tokens_after <= full.tokens(&s), "{:?}", run.plan);
    c.assert_plan(StrategyName::Adaptive, &run.plan);
    c.assert_written(StrategyName::Adaptive, &run.plan);
}

#[test]
fn the_same_input_gives_the_same_output() {
    let write = || {
        let c = rich().case();
        let s = c.subject();
        let run = compact(
            &s,
            &Extractive,
            &StrategySettings::default(),
            &[StrategyName::Adaptive],
            goal(c.tokens() / 3),
        )
        .unwrap();
        c.t.write(&[Some(run.plan.items)])
    };
    assert_eq!(write(), write());
}

#[test]
fn a_forced_run_under_its_target_leaves_the_recent_outputs_whole() {
    // Every output is long but none has more lines than trim-outputs keeps, so the first
    // step that changes anything is masking; under the target, it keeps to its own rule.
    let mut chat = Chat::default().system("sys").user("Fix the build.");
    for k in 0..6 {
        let output: String = (0..10)
            .map(|n| format!("line {n} of log {k}: {}\n", "x".repeat(60)))
            .collect();
        chat = chat.tool("bash", json!({"command": format!("make step{k}")}), &output);
    }
    let c = chat.assistant("Done.").case();
    let s = c.subject();
    let forced = Goal {
        at_least_one_step: true,
        ..goal(c.tokens())
    };
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::Adaptive],
        forced,
    )
    .unwrap();
    let masked: Vec<usize> = run
        .plan
        .items
        .iter()
        .filter_map(|o| match o {
            OutItem::ReplaceResult(i, t) if t.contains("masked") => Some(*i),
            _ => None,
        })
        .collect();
    // Five outputs are free (the last is the current turn's); the last 3 of those stay.
    assert_eq!(masked, [3, 5], "{:?}", run.plan);
}
