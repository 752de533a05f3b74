//! Tests of selective.

use super::*;

/// 0 system, 1 task, then assistant and user chatter between five read rounds (5-6, 9-10,
/// 13-14, 17-18, 21-22), 25 latest user, 26 answer.
fn chatty() -> Case {
    let mut chat = Chat::default()
        .system("sys")
        .user("Help me plan the refactor.")
        .assistant("Sure, a1.")
        .user("u1 then.")
        .assistant("a2 noted.");
    for k in 2..=6 {
        chat = chat
            .reads(1)
            .user(&format!("u{k} then."))
            .assistant(&format!("a{} noted.", k + 1));
    }
    chat.user("Thanks.").assistant("Done.").case()
}

#[test]
fn selective_applies_its_rules_in_order() {
    let c = chatty();
    // tool_result keeps 3 (drops 5-6, 9-10); assistant keeps 5 (drops 2, 4, 8); user keeps 5
    // (drops 3, 7); the task and the latest message are preserved.
    let plan = c.apply(StrategyName::Selective);
    assert_eq!(shape(&plan), format!("0 1 {}", kept(11, 26)));
    assert!(
        !plan
            .items
            .iter()
            .any(|o| matches!(o, OutItem::Summary { .. }))
    );
}

#[test]
fn selective_stops_once_under_target() {
    let c = chatty();
    let tools_only = StrategySettings {
        selective_rules: vec![Rule {
            kind: crate::strategy::selective::RuleKind::ToolResult,
            action: RuleAction::Truncate { keep_recent: 3 },
        }],
        ..StrategySettings::default()
    };
    let after_tools = c.apply_with(StrategyName::Selective, &tools_only, 0);
    assert_eq!(
        shape(&after_tools),
        format!("0 1 2 3 4 7 8 {}", kept(11, 26))
    );
    let s = c.subject();
    let target = after_tools.tokens(&s);
    let defaults = StrategySettings::default();
    let plan = c.apply_with(StrategyName::Selective, &defaults, target);
    assert_eq!(
        plan, after_tools,
        "no rule after the one that got under target"
    );
    let plan = c.apply_with(StrategyName::Selective, &defaults, target - 1);
    assert_eq!(shape(&plan), format!("0 1 3 7 {}", kept(11, 26)));
    let plan = c.apply_with(StrategyName::Selective, &defaults, c.tokens());
    assert_eq!(plan, s.keep_all(), "already under target");
}

#[test]
fn selective_none_and_drop_rules() {
    let c = chatty();
    let rules = |kind, action| StrategySettings {
        selective_rules: vec![Rule { kind, action }],
        ..StrategySettings::default()
    };
    use crate::strategy::selective::RuleKind;
    let plan = c.apply_with(
        StrategyName::Selective,
        &rules(RuleKind::User, RuleAction::None),
        0,
    );
    assert_eq!(plan, c.subject().keep_all());
    // Dropping every user message leaves the task and the latest message.
    let plan = c.apply_with(
        StrategyName::Selective,
        &rules(RuleKind::User, RuleAction::Drop),
        0,
    );
    assert_eq!(
        shape(&plan),
        "0 1 2 4 5 6 8 9 10 12 13 14 16 17 18 20 21 22 24 25 26"
    );
}

#[test]
fn selective_drops_skill_prompts_and_metadata() {
    let lines = [
        record(
            "u1",
            None,
            "user",
            json!({"message": {"role": "user", "content": "Ship the release."}}),
        ),
        record(
            "m1",
            Some("u1"),
            "user",
            json!({"isMeta": true, "message": {"role": "user",
                "content": format!("Base directory for this skill: /skills/release\n{}", bulky(1))}}),
        ),
        record(
            "m2",
            Some("m1"),
            "user",
            json!({"isMeta": true, "message": {"role": "user",
                "content": format!("Caveat: local command output follows.\n{}", bulky(2))}}),
        ),
        record(
            "a1",
            Some("m2"),
            "assistant",
            json!({"message": {"id": "msg_1", "role": "assistant",
                "content": [{"type": "text", "text": "Releasing."}]}}),
        ),
        record(
            "u2",
            Some("a1"),
            "user",
            json!({"message": {"role": "user", "content": "Go on."}}),
        ),
        record(
            "a2",
            Some("u2"),
            "assistant",
            json!({"message": {"id": "msg_2", "role": "assistant",
                "content": [{"type": "text", "text": "Released."}]}}),
        ),
    ];
    let c = Case::new(&(lines.join("\n") + "\n"));
    use crate::strategy::selective::RuleKind;
    let only = |kind| StrategySettings {
        selective_rules: vec![Rule {
            kind,
            action: RuleAction::Drop,
        }],
        ..StrategySettings::default()
    };
    let plan = c.apply_with(StrategyName::Selective, &only(RuleKind::SkillPrompt), 0);
    assert_eq!(shape(&plan), "0 2 3 4 5");
    let plan = c.apply_with(StrategyName::Selective, &only(RuleKind::SkillMetadata), 0);
    assert_eq!(shape(&plan), "0 1 3 4 5");
}
