//! The properties every strategy's plan must have, on every hand-made transcript: no call split
//! from its results, preserved items kept, tokens never grow, the output passes `check`.

use super::*;

#[test]
fn every_strategy_keeps_preserved_items_and_pairs() {
    let c = rich().case();
    let s = c.subject();
    let preserved: Vec<usize> = (0..s.holds.len())
        .filter(|&i| matches!(s.holds[i], Hold::Preserved(_)))
        .collect();
    assert_eq!(preserved, RICH_PRESERVED);
    for name in StrategyName::ALL {
        // `apply` checks pairing, preservation, tokens and the written output.
        let plan = c.apply(name);
        for &i in &RICH_PRESERVED {
            assert!(plan.items.contains(&OutItem::Keep(i)), "{name}: {i}");
        }
        // Fewer than 20 turns: one chunk, nothing for incremental; no payloads to strip;
        // nothing is repeated for dedup; drop-stored never changes the context; no call
        // holds a long text for trim-calls.
        if !matches!(
            name,
            StrategyName::StripPayloads
                | StrategyName::TrimCalls
                | StrategyName::Incremental
                | StrategyName::Dedup
                | StrategyName::DropStored
        ) {
            assert!(plan.tokens(&s) < c.tokens(), "{name} changed nothing");
        }
    }
}

/// A Claude Code session: 0 the task; each of 8 rounds is a response split over a text
/// record and a `tool_use` record (one `message.id`), then the result with its
/// `toolUseResult` copy; 25 latest user, 26 answer.
fn session() -> Case {
    let mut lines = vec![record(
        "u0",
        None,
        "user",
        json!({"message": {"role": "user", "content": "Port the module to Rust."}}),
    )];
    let mut parent = "u0".to_string();
    for k in 1..=8 {
        let message = |block: Value| json!({"message": {"id": format!("msg_{k}"), "role": "assistant", "content": [block]}});
        let (text, call, result) = (format!("t{k}"), format!("c{k}"), format!("r{k}"));
        let tool = format!("toolu_{k}");
        let path = format!("/repo/src/m{k}.py");
        lines.push(record(
            &text,
            Some(&parent),
            "assistant",
            message(json!({"type": "text", "text": format!("Reading part {k}.")})),
        ));
        lines.push(record(
            &call,
            Some(&text),
            "assistant",
            message(json!({"type": "tool_use", "id": tool, "name": "Read",
                "input": {"file_path": path}})),
        ));
        lines.push(record(
            &result,
            Some(&call),
            "user",
            json!({"message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool, "content": bulky(k)}]},
                "toolUseResult": {"file": {"filePath": path}}}),
        ));
        parent = result;
    }
    lines.push(record(
        "u9",
        Some(&parent),
        "user",
        json!({"message": {"role": "user", "content": "Which part is largest?"}}),
    ));
    lines.push(record(
        "a9",
        Some("u9"),
        "assistant",
        json!({"message": {"id": "msg_9", "role": "assistant",
            "content": [{"type": "text", "text": "Part 3."}]}}),
    ));
    Case::new(&(lines.join("\n") + "\n"))
}

#[test]
fn every_strategy_keeps_claude_code_messages_whole_and_chains_linked() {
    let c = session();
    assert_eq!(
        c.subject().groups[1],
        1..4,
        "text, call and result are one group"
    );
    for name in StrategyName::ALL {
        // `apply` checks that no message or call is split and that the written session
        // passes `check`, whose Claude Code rules include resolving every `parentUuid`.
        let plan = c.apply(name);
        assert!(plan.tokens(&c.subject()) <= c.tokens(), "{name}");
    }
    // A split response is one assistant message: the window holds rounds 6-8 (3 results,
    // 3 responses), the latest user message and the answer; round 5 would be a 5th result.
    assert_eq!(
        shape(&c.apply(StrategyName::SlidingWindow)),
        format!("0 S1-15 {}", kept(16, 26))
    );
    // Only the copies go: the model sees the same.
    let stripped = c.apply(StrategyName::StripPayloads);
    assert_eq!(stripped.tokens(&c.subject()), c.tokens());
    assert_eq!(
        shape(&stripped),
        "0 1 2 P3 4 5 P6 7 8 P9 10 11 P12 13 14 P15 16 17 P18 19 20 P21 22 23 P24 25 26"
    );
}

#[test]
fn with_strict_alternation_summaries_stand_where_a_human_turn_was() {
    // 0 task, 1-4 reads, 5 gpt, 6 human, 7-10 reads, 11 gpt, 12 human, 13 gpt, 14 human,
    // 15-18 reads, 19 gpt, 20 pin, 21 gpt, 22 latest human, 23-24 read, 25 gpt.
    let c = ShareGpt::default()
        .human("Summarize the docs folder.")
        .reads(2)
        .gpt("Read two docs.")
        .human("Now the guides.")
        .reads(2)
        .gpt("Read the guides.")
        .human("And the FAQ?")
        .gpt("It is short.")
        .human("Check the changelog too.")
        .reads(2)
        .gpt("Changelog read.")
        .human("<Pin>Mention the license.</Pin>")
        .gpt("Will do.")
        .human("Write the summary.")
        .reads(1)
        .gpt("Here it is.")
        .case();
    assert!(c.subject().strict_alternation);
    let mut summarized = false;
    for name in StrategyName::ALL {
        let plan = c.apply(name);
        let out = c.assert_written(name, &plan);
        let items = &out.conversations[0].items;
        for (at, item) in items.iter().enumerate() {
            if item.kind != Kind::Summary {
                continue;
            }
            summarized = true;
            let side = |i: usize| side_of(&items[i]);
            assert!(
                at == 0 || side(at - 1) == Side::Assistant,
                "{name}: {}",
                shape(&plan)
            );
            assert_eq!(side(at + 1), Side::Assistant, "{name}: {}", shape(&plan));
        }
        for out in &plan.items {
            if let OutItem::Summary { replaces, .. } = out {
                let first = &c.t.conversations[0].items[replaces.start];
                assert_eq!(side_of(first), Side::User, "{name}: {}", shape(&plan));
            }
        }
    }
    assert!(summarized, "no strategy summarized anything");
    assert_eq!(
        shape(&c.apply(StrategyName::FullSummary)),
        // Nothing before the first human turn after the task can be replaced by a summary
        // (it would follow the task); 19 stays to answer the summary before the pin.
        "0 1 2 3 4 5 S6-18 19 20 21 22 23 24 25"
    );
}
