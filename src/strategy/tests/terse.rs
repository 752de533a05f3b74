//! Tests of the tersest cut: masking and call trimming once the usual cut of every output
//! and call still misses the target (`adaptive` only).

use super::*;

/// A SWE-agent run: 0 system, 1 task, then `steps` actions, each with its reasoning and an
/// observation, and a final `submit` with its answer.
fn text_agent(steps: usize) -> Chat {
    let reasoning = "The parser drops the last token, so I will look at the lexer next. ".repeat(3);
    let mut chat = Chat::default()
        .system("COMMANDS: open, edit, submit. End each response with one command in a ``` block.")
        .user("Fix the parser bug.");
    for k in 0..steps {
        let action = if k % 2 == 0 {
            format!("```\nopen src/mod{k}.py\n```")
        } else {
            format!("```\nedit {k}:{}\n{}\nend_of_edit\n```", k + 3, body(12))
        };
        let observation = if k == 3 {
            format!("{}\nE999 SyntaxError: unmatched ')'", bulky(1))
        } else {
            bulky(1)
        };
        chat = chat
            .assistant(&format!("Step {k}. {reasoning}\n{action}"))
            .user(&observation);
    }
    chat.assistant("```\nsubmit\n```")
}

fn body(n: usize) -> String {
    (0..n)
        .map(|k| format!("    value_{k} = compute_something_long({k}, flag=True)"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn at_its_tersest_each_action_stays_and_only_its_reasoning_and_outputs_go() {
    let c = text_agent(6).case();
    let s = c.subject();
    let settings = StrategySettings {
        masking_keep_recent: 0,
        ..StrategySettings::default()
    };
    let cx = Context::new(&s, &Extractive, &settings, 0).at_tersest();
    let plan = StrategyName::ObservationMasking
        .strategy()
        .apply(&cx, s.keep_all())
        .unwrap();
    let plan = StrategyName::TrimCalls.strategy().apply(&cx, plan).unwrap();
    c.assert_plan(StrategyName::TrimCalls, &plan);
    let out = c.assert_written(StrategyName::TrimCalls, &plan);
    let texts: Vec<String> = out.conversations[0]
        .items
        .iter()
        .map(|i| i.text())
        .collect();
    assert_eq!(
        texts[2],
        "[ctxc: reasoning cut]\n```\nopen src/mod0.py\n```"
    );
    assert_eq!(texts[3], "[ctxc: output masked]");
    // The edit keeps its command line, and no more of its body than a marker.
    assert_eq!(
        texts[4],
        "[ctxc: reasoning cut]\n```\nedit 1:4\n[ctxc: 13 lines cut]\n```"
    );
    // An error line outlives the output.
    assert_eq!(
        texts[9],
        "[ctxc: output masked; its error line kept:]\nE999 SyntaxError: unmatched ')'"
    );
    let before = crate::facts::Facts::of(&c.t.conversations[0].items);
    let after = crate::facts::Facts::of(&out.conversations[0].items);
    assert_eq!(before.commands.len(), 6, "{:?}", before.commands);
    assert_eq!(before.commands, after.commands);
    assert_eq!(before.paths, after.paths);
}

#[test]
fn adaptive_cuts_at_its_tersest_before_any_summary_and_only_when_it_must() {
    let c = text_agent(12).case();
    let s = c.subject();
    let settings = StrategySettings::default();
    let run_at = |target: usize| {
        compact(
            &s,
            &Extractive,
            &settings,
            &[StrategyName::Adaptive],
            goal(target),
        )
        .unwrap()
    };
    let texts = |plan: &Plan| -> Vec<String> {
        let out = c.assert_written(StrategyName::Adaptive, plan);
        out.conversations[0]
            .items
            .iter()
            .map(|i| i.text())
            .collect()
    };
    // The usual cut of everything lands here: masking may go terse (a placeholder's tool
    // name and size are worth less than any part of a call), call trimming need not.
    let usual = {
        let all = StrategySettings {
            masking_keep_recent: 0,
            ..StrategySettings::default()
        };
        let cx = Context::new(&s, &Extractive, &all, 0);
        let mut plan = s.keep_all();
        for step in [
            StrategyName::TrimOutputs,
            StrategyName::ObservationMasking,
            StrategyName::TrimCalls,
        ] {
            plan = step.strategy().apply(&cx, plan).unwrap();
        }
        plan.tokens(&s)
    };
    let loose = run_at(usual + 20);
    assert!(loose.tokens_after <= usual + 20);
    assert!(
        !texts(&loose.plan)
            .iter()
            .any(|t| t.contains("[ctxc: reasoning cut]")),
        "{:?}",
        loose.plan
    );
    // Under it, the tersest cut meets the target, and no summary is written.
    let tight = run_at(usual * 9 / 10);
    assert!(
        tight.tokens_after <= usual * 9 / 10,
        "{}",
        tight.tokens_after
    );
    assert_eq!(tight.stats.summaries, 0, "{:?}", tight.plan);
    let written = texts(&tight.plan);
    assert!(
        written
            .iter()
            .any(|t| t.starts_with("[ctxc: reasoning cut]"))
    );
    let before = crate::facts::Facts::of(&c.t.conversations[0].items);
    let after = crate::facts::Facts::of(
        &c.assert_written(StrategyName::Adaptive, &tight.plan)
            .conversations[0]
            .items,
    );
    assert_eq!(before.commands, after.commands);
    // One step per strategy in the report: the tersest cut is its rung's, not a step of its own.
    let names: Vec<StrategyName> = tight.steps.iter().map(|s| s.strategy).collect();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names, unique);
}
