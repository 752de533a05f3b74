//! Tests of dedup and trim-outputs.

use super::*;

#[test]
fn dedup_points_re_reads_and_repeated_outputs_to_their_later_copy() {
    // 0 task, 1-2 read a.rs, 3-4 pytest, 5-6 read a.rs again, 7-8 pytest again (same
    // output), 9-10 a partial read of b.rs, 11-12 a whole read of b.rs, 13 latest user, 14.
    let c = Chat::default()
        .user("Fix the parser.")
        .tool("read_file", json!({"path": "a.rs"}), &bulky(1))
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .tool("read_file", json!({"path": "a.rs"}), &bulky(2))
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .tool(
            "read_file",
            json!({"path": "b.rs", "offset": 10}),
            &bulky(3),
        )
        .tool("read_file", json!({"path": "b.rs"}), &bulky(4))
        .user("Status?")
        .assistant("Fixed.")
        .case();
    let plan = c.apply(StrategyName::Dedup);
    assert_eq!(
        shape(&plan),
        format!("0 1 M2 3 M4 {} M10 {}", kept(5, 9), kept(11, 14))
    );
    let text = |at: usize| match &plan.items[at] {
        OutItem::ReplaceResult(_, text) => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text(2),
        "[ctxc: superseded by the later read of a.rs (call call_3), kept there]"
    );
    assert_eq!(
        text(4),
        "[ctxc: identical to the later output of call call_4, kept there]"
    );
}

#[test]
fn trim_outputs_keeps_head_tail_and_every_error_line_of_old_outputs() {
    // 0 task, 1-2 a failing test run (42 lines), 3-12 five reads, 13 latest user, 14.
    let c = Chat::default()
        .user("Fix the parser.")
        .tool("bash", json!({"command": "pytest"}), &failing_tests())
        .reads(5)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let plan = c.apply(StrategyName::TrimOutputs);
    // The last 3 outputs stay whole.
    assert_eq!(shape(&plan), format!("0 1 M2 3 M4 5 M6 {}", kept(7, 14)));
    let OutItem::ReplaceResult(_, text) = &plan.items[2] else {
        panic!("{}", shape(&plan));
    };
    let original = failing_tests();
    let original: Vec<&str> = original.lines().collect();
    assert!(text.starts_with(&original[..8].join("\n")), "{text}");
    assert!(
        text.ends_with(&original[original.len() - 2..].join("\n")),
        "{text}"
    );
    assert!(text.contains("lines ("), "{text}");
    for error in crate::facts::error_lines(&failing_tests(), false) {
        assert!(text.contains(&error), "{error} missing from {text}");
    }
    // Only as far as the target needs: the engine reaches back from the oldest output.
    let s = c.subject();
    let all = c.tokens();
    let trimmed = plan.tokens(&s);
    let settings = StrategySettings::default();
    let cx = Context::new(&s, &Extractive, &settings, all - (all - trimmed) / 2);
    let some = cx
        .apply_to_target(StrategyName::TrimOutputs, s.keep_all(), false)
        .unwrap();
    c.assert_plan(StrategyName::TrimOutputs, &some);
    assert!(some.tokens(&s) <= cx.target && some.tokens(&s) > trimmed);
}

/// A Claude Code session whose responses think first: 0 the task; rounds 1-6 are each a
/// thinking record (signed), a `tool_use` record of the same `message.id` and the result;
/// 19 the latest user message; 20-21 the answer, thinking then text.
fn thoughtful() -> Case {
    let mut lines = vec![record(
        "u0",
        None,
        "user",
        json!({"message": {"role": "user", "content": "Port the module to Rust."}}),
    )];
    let mut parent = "u0".to_string();
    let message = |k: usize, block: Value| json!({"message": {"id": format!("msg_{k}"), "role": "assistant", "content": [block]}});
    let thinking = |k: usize| {
        json!({"type": "thinking", "signature": format!("sig{k}"),
            "thinking": format!("Part {k} is next; the parser in m{k} needs a closer look. ").repeat(20)})
    };
    for k in 1..=6 {
        let (think, call, result) = (format!("h{k}"), format!("c{k}"), format!("r{k}"));
        let tool = format!("toolu_{k}");
        lines.push(record(
            &think,
            Some(&parent),
            "assistant",
            message(k, thinking(k)),
        ));
        lines.push(record(
            &call,
            Some(&think),
            "assistant",
            message(
                k,
                json!({"type": "tool_use", "id": tool, "name": "Read",
                "input": {"file_path": format!("/repo/src/m{k}.py")}}),
            ),
        ));
        lines.push(record(
            &result,
            Some(&call),
            "user",
            json!({"message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool, "content": format!("part {k}")}]}}),
        ));
        parent = result;
    }
    lines.push(record(
        "u7",
        Some(&parent),
        "user",
        json!({"message": {"role": "user", "content": "Which part is largest?"}}),
    ));
    lines.push(record(
        "h7",
        Some("u7"),
        "assistant",
        message(7, thinking(7)),
    ));
    lines.push(record(
        "a7",
        Some("h7"),
        "assistant",
        message(7, json!({"type": "text", "text": "Part 3."})),
    ));
    Case::new(&(lines.join("\n") + "\n"))
}

#[test]
fn trim_outputs_drops_old_thinking_records_whole_and_relinks_the_chain() {
    let c = thoughtful();
    let s = c.subject();
    let plan = c.apply(StrategyName::TrimOutputs);
    // Rounds 1-3 lose their thinking; the last 3 and the current turn's keep theirs.
    assert_eq!(shape(&plan), format!("0 2 3 5 6 8 9 {}", kept(10, 21)));
    let out = c.assert_written(StrategyName::TrimOutputs, &plan);
    let written = c.t.write(&[Some(plan.items.clone())]);
    let records: Vec<Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Each call now hangs from what preceded its thinking; kept thinking keeps its signature.
    let parent_of = |uuid: &str| {
        let r = records.iter().find(|r| r["uuid"] == uuid).unwrap();
        r["parentUuid"].as_str().unwrap().to_string()
    };
    assert_eq!(parent_of("c1"), "u0");
    assert_eq!(parent_of("c3"), "r2");
    assert_eq!(parent_of("c4"), "h4");
    assert!(written.contains(r#""signature":"sig4""#) && !written.contains("sig3"));
    // The planned price is the written one: the calls' responses are still counted once.
    let after = crate::count::count_conversation(&c.counter, &out.conversations[0]).total();
    assert_eq!(plan.tokens(&s), after);
    assert!(after < c.tokens());
    // Only as far as the target needs: a target met by dropping one block drops just the oldest.
    let one = s.tokens[1];
    let settings = StrategySettings::default();
    let cx = Context::new(&s, &Extractive, &settings, c.tokens() - one);
    let some = cx
        .apply_to_target(StrategyName::TrimOutputs, s.keep_all(), false)
        .unwrap();
    assert_eq!(shape(&some), format!("0 {}", kept(2, 21)));
}

/// An Anthropic Messages request whose responses think: 0 the task; 1-10 five rounds, each an
/// assistant message with a signed thinking block and a `tool_use`, then its result; 11 the
/// latest user message; 12 the answer, thinking then text.
fn thoughtful_messages() -> Case {
    let thinking = |k: usize| {
        json!({"type": "thinking", "signature": format!("sig{k}"),
            "thinking": format!("Part {k} is next; m{k} needs a closer look. ").repeat(20)})
    };
    let mut messages = vec![json!({"role": "user", "content": "Port the module to Rust."})];
    for k in 1..=5 {
        let tool = format!("toolu_{k}");
        messages.push(json!({"role": "assistant", "content": [thinking(k),
            {"type": "tool_use", "id": tool, "name": "Read",
             "input": {"file_path": format!("/repo/src/m{k}.py")}}]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool, "content": format!("part {k}")}]}));
    }
    messages.push(json!({"role": "user", "content": "Which part is largest?"}));
    messages.push(json!({"role": "assistant", "content": [thinking(6),
        {"type": "text", "text": "Part 3."}]}));
    let request = json!({"model": "claude-sonnet-4-5", "messages": messages});
    Case::new(&serde_json::to_string_pretty(&request).unwrap())
}

#[test]
fn trim_outputs_drops_old_thinking_blocks_from_anthropic_messages() {
    let c = thoughtful_messages();
    let s = c.subject();
    let plan = c.apply(StrategyName::TrimOutputs);
    // Messages 1 and 3 lose their thinking; the last 3 and the current turn's keep theirs.
    assert_eq!(shape(&plan), format!("0 D1 2 D3 {}", kept(4, 12)));
    let out = c.assert_written(StrategyName::TrimOutputs, &plan);
    let written = c.t.write(&[Some(plan.items.clone())]);
    for gone in ["sig1", "sig2"] {
        assert!(!written.contains(gone), "{gone} still written");
    }
    for kept in ["sig3", "sig4", "sig5", "sig6", "toolu_1", "/repo/src/m1.py"] {
        assert!(written.contains(kept), "{kept} lost");
    }
    let after = crate::count::count_conversation(&c.counter, &out.conversations[0]).total();
    assert_eq!(plan.tokens(&s), after);
    assert!(after < c.tokens());
    // The report's step says how many blocks went; its tokens are the step's.
    let settings = StrategySettings::default();
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::TrimOutputs],
        goal(0),
    )
    .unwrap();
    assert_eq!(run.steps[0].thinking_dropped, 2);
    assert_eq!(run.steps[0].tokens_after, after);
    // Summaries are not counted as dropped thinking.
    let run = compact(
        &s,
        &Extractive,
        &settings,
        &[StrategyName::FullSummary],
        goal(0),
    )
    .unwrap();
    assert_eq!(run.steps[0].thinking_dropped, 0);
}

#[test]
fn trim_outputs_stops_at_the_target_and_keeps_what_it_can_of_the_last_output() {
    // 0 task, 1-4 two reads of ~300 tokens, 5-10 three more, 11 latest user, 12.
    let c = Chat::default()
        .user("Audit the modules.")
        .reads(5)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let s = c.subject();
    let all = c.tokens();
    let settings = StrategySettings::default();
    // 60 tokens to save: less than cutting one output to 8 + 4 lines saves.
    let cx = Context::new(&s, &Extractive, &settings, all - 60);
    let plan = StrategyName::TrimOutputs
        .strategy()
        .apply(&cx, s.keep_all())
        .unwrap();
    c.assert_plan(StrategyName::TrimOutputs, &plan);
    assert!(cx.in_band(&plan), "{} for {}", plan.tokens(&s), cx.target);
    // Only the oldest output is cut, and it keeps more than the usual head.
    assert_eq!(shape(&plan), format!("0 1 M2 {}", kept(3, 12)));
    let OutItem::ReplaceResult(_, text) = &plan.items[2] else {
        panic!("{}", shape(&plan));
    };
    assert!(text.starts_with(&bulky(1).lines().take(9).collect::<Vec<_>>().join("\n")));
}

#[test]
fn a_step_whose_least_stretch_is_one_big_unit_cuts_its_outputs_instead() {
    // 0 task, 1-4 one assistant message reading three files at once (one unit), 5 latest
    // user message, 6 the answer: summarizing the unit would take far more than needed.
    let c = Chat::default()
        .user("Audit the modules.")
        .parallel(&[
            ("read_file", json!({"path": "src/a.rs"}), &bulky(1)),
            ("read_file", json!({"path": "src/b.rs"}), &bulky(2)),
            ("read_file", json!({"path": "src/c.rs"}), &bulky(3)),
        ])
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let s = c.subject();
    let all = c.tokens();
    let settings = StrategySettings::default();
    let cx = Context::new(&s, &Extractive, &settings, all * 9 / 10);
    let name = StrategyName::FullSummary;
    let plan = cx.apply_to_target(name, s.keep_all(), false).unwrap();
    c.assert_plan(name, &plan);
    assert!(cx.in_band(&plan), "{} for {}", plan.tokens(&s), cx.target);
    // Every call stays; the outputs are cut, not summarized.
    assert!(
        plan.items.iter().all(|o| o.kept().is_some()),
        "{}",
        shape(&plan)
    );
}
