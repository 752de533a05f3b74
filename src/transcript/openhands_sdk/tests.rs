//! Unit tests of the OpenHands V1 SDK adapter: events read as the SDK's view and
//! `events_to_messages` make them, in each container, and its own findings.

use super::super::{Format, OutItem, ReadOptions, check, read};

/// A small conversation in the SDK's serialized form: a condenser forgot the first step (an
/// action and its observation), a second step's observation answers no stored action, and a
/// parallel batch shares one `llm_response_id`.
const EVENTS: &str = r#"[
{"id": "e1", "timestamp": "t", "source": "agent", "system_prompt": {"type": "text", "text": "You are OpenHands"}, "tools": [], "kind": "SystemPromptEvent"},
{"id": "e2", "timestamp": "t", "source": "user", "llm_message": {"role": "user", "content": [{"type": "text", "text": "fix the bug"}]}, "kind": "MessageEvent"},
{"id": "e3", "timestamp": "t", "source": "agent", "thought": [{"type": "text", "text": "look"}], "reasoning_content": "hmm", "action": {"command": "ls", "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c1", "tool_call": {"id": "c1", "name": "terminal", "arguments": "{\"command\": \"ls\"}", "origin": "completion"}, "llm_response_id": "r1", "kind": "ActionEvent"},
{"id": "e4", "timestamp": "t", "source": "environment", "tool_name": "terminal", "tool_call_id": "c1", "observation": {"content": [{"type": "text", "text": "a.py"}], "is_error": false, "kind": "TerminalObservation"}, "action_id": "e3", "kind": "ObservationEvent"},
{"id": "e5", "timestamp": "t", "source": "environment", "key": "execution_status", "value": "running", "kind": "ConversationStateUpdateEvent"},
{"id": "e6", "timestamp": "t", "source": "environment", "forgotten_event_ids": ["e3", "e4"], "summary": "listed files", "summary_offset": 2, "llm_response_id": "x", "kind": "Condensation"},
{"id": "e7", "timestamp": "t", "source": "agent", "thought": [{"type": "text", "text": "both"}], "action": {"command": "cat a.py", "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c2", "tool_call": {"id": "c2", "name": "terminal", "arguments": "{}", "origin": "completion"}, "llm_response_id": "r2", "kind": "ActionEvent"},
{"id": "e8", "timestamp": "t", "source": "agent", "thought": [], "action": {"command": "pwd", "kind": "TerminalAction"}, "tool_name": "terminal", "tool_call_id": "c3", "tool_call": {"id": "c3", "name": "terminal", "arguments": "{}", "origin": "completion"}, "llm_response_id": "r2", "kind": "ActionEvent"},
{"id": "e9", "timestamp": "t", "source": "environment", "tool_name": "terminal", "tool_call_id": "c2", "observation": {"content": [{"type": "text", "text": "print(1)"}], "is_error": true, "kind": "TerminalObservation"}, "action_id": "e7", "kind": "ObservationEvent"},
{"id": "e10", "timestamp": "t", "source": "agent", "tool_name": "terminal", "tool_call_id": "c3", "error": "timed out", "kind": "AgentErrorEvent"},
{"id": "e11", "timestamp": "t", "source": "environment", "tool_name": "terminal", "tool_call_id": "c9", "observation": {"content": [], "kind": "TerminalObservation"}, "action_id": "gone", "kind": "ObservationEvent"},
{"id": "e12", "timestamp": "t", "source": "agent", "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}, "llm_response_id": "r3", "kind": "MessageEvent"}
]"#;

fn kinds(src: &str) -> Vec<(&'static str, bool)> {
    let t = read(src.to_string(), &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::OpenHandsSdk);
    t.conversations[0]
        .items
        .iter()
        .map(|i| (i.kind.name(), i.in_context))
        .collect()
}

#[test]
fn reads_events_as_the_sdk_view_sends_them() {
    assert_eq!(
        kinds(EVENTS),
        [
            ("system", true),
            ("user", true),
            // Forgotten by the condensation: stored, not sent.
            ("tool_call", false),
            ("tool_result", false),
            ("non_context", false),
            ("summary", true),
            ("tool_call", true),
            ("tool_call", true),
            ("tool_result", true),
            ("tool_result", true),
            // Answers no stored action: the view drops it.
            ("tool_result", false),
            ("assistant", true),
        ]
    );
    let t = read(EVENTS.to_string(), &ReadOptions::default()).unwrap();
    let items = &t.conversations[0].items;
    assert_eq!(items[2].text(), "hmm\nlook\nterminal\n{\"command\": \"ls\"}");
    // One model response, one message: the batch is one unit.
    assert_eq!(items[6].message_id.as_deref(), Some("r2"));
    assert_eq!(items[7].message_id, items[6].message_id);
    assert_eq!(
        items[8].text(),
        "[An error occurred during execution.]\n\nprint(1)"
    );
    assert!(items[8].is_error && items[9].is_error);
    assert_eq!(items[9].results, ["c3"]);
    assert_eq!(items[5].text(), "listed files");
    let groups = t.conversations[0].groups();
    assert!(groups.contains(&(6..10)), "{groups:?}");
    // The stray result is a pairing finding.
    let findings = check(&t);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].line, 12);
}

#[test]
fn a_later_condensation_can_forget_a_summary() {
    let src = EVENTS.replace(
        r#"{"id": "e12""#,
        r#"{"id": "e13", "timestamp": "t", "source": "environment", "forgotten_event_ids": ["e6-summary"], "llm_response_id": "y", "kind": "Condensation"},
{"id": "e12""#,
    );
    let k = kinds(&src);
    assert_eq!(k[5], ("summary", false));
    // A condensation without a summary sends nothing and is never removed.
    assert_eq!(k[11], ("non_context", false));
    let t = read(src, &ReadOptions::default()).unwrap();
    assert!(t.conversations[0].items[11].anchor);
}

#[test]
fn reads_jsonl_and_records_holding_events() {
    let events: Vec<serde_json::Value> = serde_json::from_str(EVENTS).unwrap();
    let jsonl: String = events.iter().map(|e| format!("{e}\n")).collect();
    assert_eq!(kinds(&jsonl), kinds(EVENTS));
    let t = read(jsonl, &ReadOptions::default()).unwrap();
    assert_eq!(t.container, "jsonl, one event per line");

    let page = format!(r#"{{"items": {EVENTS}, "next_page_id": null}}"#);
    let t = read(page, &ReadOptions::default()).unwrap();
    assert_eq!(t.format, Format::OpenHandsSdk);
    assert_eq!(t.conversations[0].location, "/items");
    let runs = format!(
        "{}\n{}\n",
        serde_json::json!({"instance_id": "a", "history": events}),
        serde_json::json!({"instance_id": "b", "history": events})
    );
    let t = read(runs, &ReadOptions::default()).unwrap();
    assert_eq!(t.conversations.len(), 2);
    assert_eq!(t.conversations[1].location, "line 2/history");
}

#[test]
fn finds_dangling_parents_and_reused_ids() {
    let src = r#"[
{"id": "a", "timestamp": "t", "source": "user", "parent_id": "__root__", "llm_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}, "kind": "MessageEvent"},
{"id": "b", "timestamp": "t", "source": "agent", "parent_id": "zz", "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}, "kind": "MessageEvent"},
{"id": "a", "timestamp": "t", "source": "user", "parent_id": "b", "llm_message": {"role": "user", "content": [{"type": "text", "text": "again"}]}, "kind": "MessageEvent"}
]"#;
    let t = read(src.to_string(), &ReadOptions::default()).unwrap();
    let findings: Vec<(usize, String)> = check(&t)
        .into_iter()
        .map(|f| (f.line, f.message))
        .collect();
    assert_eq!(
        findings,
        [
            (
                3,
                "event 'b' names parent 'zz', which no earlier event is".to_string()
            ),
            (4, "event id 'a' is used twice".to_string()),
        ]
    );
}

#[test]
fn a_summary_is_a_condensation_where_its_events_were() {
    let t = read(EVENTS.to_string(), &ReadOptions::default()).unwrap();
    let mut items: Vec<OutItem> = (0..12).map(OutItem::Keep).collect();
    items.splice(
        6..10,
        [OutItem::Summary {
            text: "read a.py".into(),
            replaces: 6..10,
        }],
    );
    let out = t.write(&[Some(items)]);
    let events: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let c = &events[6];
    assert_eq!(c["kind"], "Condensation");
    assert_eq!(c["id"], "e10");
    assert_eq!(
        c["forgotten_event_ids"],
        serde_json::json!(["e7", "e8", "e9", "e10"])
    );
    assert_eq!(c["summary"], "[ctxc summary]\nread a.py");
    // The view before it: system, user, the earlier summary.
    assert_eq!(c["summary_offset"], 3);
    let back = read(out, &ReadOptions::default()).unwrap();
    let k: Vec<_> = back.conversations[0]
        .items
        .iter()
        .map(|i| (i.kind.name(), i.in_context))
        .collect();
    assert_eq!(k[6], ("summary", true));
    assert_eq!(k[5], ("summary", true));
}

#[test]
fn a_replaced_condensation_passes_on_what_it_forgot() {
    let t = read(EVENTS.to_string(), &ReadOptions::default()).unwrap();
    let mut items: Vec<OutItem> = (0..12).map(OutItem::Keep).collect();
    items.splice(
        4..6,
        [OutItem::Summary {
            text: "s".into(),
            replaces: 4..6,
        }],
    );
    let out = t.write(&[Some(items)]);
    let events: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(
        events[4]["forgotten_event_ids"],
        serde_json::json!(["e5", "e6", "e3", "e4"])
    );
    let back = read(out, &ReadOptions::default()).unwrap();
    assert!(!back.conversations[0].items[2].in_context);
}

#[test]
fn edited_results_and_messages_keep_their_event_shape() {
    let t = read(EVENTS.to_string(), &ReadOptions::default()).unwrap();
    let mut items: Vec<OutItem> = (0..12).map(OutItem::Keep).collect();
    items[8] = OutItem::ReplaceResult(8, "[cut]".into());
    items[9] = OutItem::ReplaceResult(9, "[cut error]".into());
    items[11] = OutItem::ReplaceText(11, "short".into());
    let out = t.write(&[Some(items)]);
    let events: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(
        events[8]["observation"]["content"],
        serde_json::json!([{"type": "text", "text": "[cut]"}])
    );
    assert_eq!(events[8]["observation"]["is_error"], true);
    assert_eq!(events[9]["error"], "[cut error]");
    assert_eq!(
        events[11]["llm_message"]["content"],
        serde_json::json!([{"type": "text", "text": "short"}])
    );
    let back = read(out, &ReadOptions::default()).unwrap();
    let items = &back.conversations[0].items;
    assert_eq!(items[9].text(), "[cut error]");
    assert_eq!(items[11].text(), "short");
    assert_eq!(items[8].results, ["c2"]);
}
