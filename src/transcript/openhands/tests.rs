//! Unit tests of the OpenHands adapter: the serialized event form, the flat CodeAct form and
//! the `[action, observation]` pair form read as OpenHands turns them into messages.

use super::super::{Format, ReadOptions, read};

fn corpus(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(rel);
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn reads_tool_calls_results_and_condensations() {
    let src = r#"[
{"id": 0, "source": "agent", "message": "sys", "action": "system", "args": {"content": "You are OpenHands", "tools": []}},
{"id": 1, "source": "user", "message": "fix it", "action": "message", "args": {"content": "fix it", "image_urls": null, "wait_for_response": false}},
{"id": 2, "source": "agent", "message": "Running", "action": "run", "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c1", "model_response": {"id": "r1", "choices": [{"message": {"content": "Let me look", "tool_calls": [{"id": "c1", "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}}]}}]}}, "args": {"command": "ls", "thought": "Let me look"}},
{"id": 3, "source": "agent", "message": "out", "cause": 2, "observation": "run", "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c1"}, "content": "a.py", "extras": {"command": "ls"}},
{"id": 4, "source": "agent", "message": "Summary: s", "action": "condensation", "args": {"forgotten_event_ids": [2, 3], "forgotten_events_start_id": null, "forgotten_events_end_id": null, "summary": "looked at files", "summary_offset": 2}},
{"id": 5, "source": "environment", "message": "", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "running"}},
{"id": 6, "source": "agent", "message": "done", "action": "finish", "args": {"final_thought": "done", "outputs": {}}}
]"#;
    let t = read(src.to_string(), &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::OpenHands);
    let items = &t.conversations[0].items;
    let kinds: Vec<_> = items
        .iter()
        .map(|i| (i.kind.name(), i.in_context))
        .collect();
    assert_eq!(
        kinds,
        [
            ("system", true),
            ("user", true),
            ("tool_call", false),
            ("tool_result", false),
            ("summary", true),
            ("non_context", false),
            ("assistant", true),
        ]
    );
    assert_eq!(items[2].calls[0].id, "c1");
    assert_eq!(items[3].results, ["c1"]);
    assert_eq!(items[6].text(), "done");
}

#[test]
fn flat_codeact_history_pairs_actions_with_observations() {
    let t = read(
        corpus("openhands/resolver/output.jsonl"),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(t.format, Format::OpenHands);
    assert_eq!(t.conversations.len(), 2);
    let items = &t.conversations[0].items;
    assert_eq!(items[0].kind.name(), "user");
    assert_eq!(items[1].kind.name(), "tool_call");
    assert_eq!(items[2].kind.name(), "tool_result");
    assert_eq!(items[2].results, [items[1].calls[0].id.clone()]);
    assert!(super::super::check(&t).is_empty());
}

#[test]
fn trajectories_read_clean() {
    for rel in [
        "openhands/trajs/basic.json",
        "openhands/trajs/basic_interactions.json",
    ] {
        let t = read(corpus(rel), &ReadOptions::default()).unwrap();
        assert_eq!(t.format, Format::OpenHands, "{rel}");
        assert!(super::super::check(&t).is_empty(), "{rel}");
    }
}

#[test]
fn pair_histories_read_as_their_events() {
    let src = r#"{"instance_id": "x", "history": [
[{"id": 0, "source": "user", "message": "fix it", "action": "message", "args": {"content": "fix it", "wait_for_response": false}}, {"message": "No observation", "observation": "null", "content": "", "extras": {}}],
[{"id": 1, "source": "agent", "message": "Running command: ls", "action": "run", "args": {"command": "ls", "thought": "Let me look"}}, {"id": 2, "source": "agent", "message": "ok", "cause": 1, "observation": "run", "content": "a.py", "extras": {"command": "ls", "exit_code": 0}}],
[{"id": 3, "source": "agent", "message": "done", "action": "finish", "args": {"outputs": {}, "thought": "done"}}, {"message": "No observation", "observation": "null", "content": "", "extras": {}}]
]}"#;
    let t = read(src.to_string(), &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::OpenHands);
    let items = &t.conversations[0].items;
    let kinds: Vec<_> = items.iter().map(|i| i.kind.name()).collect();
    // The `null` observations are no items: they stay with their actions.
    assert_eq!(kinds, ["user", "tool_call", "tool_result", "assistant"]);
    assert_eq!(items[2].results, [items[1].calls[0].id.clone()]);
    assert!(items[2].text().contains("a.py"));
    assert!(super::super::check(&t).is_empty());
}
