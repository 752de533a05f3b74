//! Unit tests of the model over small hand-made transcripts.
use super::*;

use super::testing::{fixture, read_str};

#[test]
fn openai_array_round_trips_and_groups() {
    let src = r#"[
  {"role": "system", "content": "be brief"},
  {"role": "user", "content": "hi"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
  {"role": "assistant", "content": "done"}
]
"#;
    let t = read_str(src);
    assert_eq!(t.format, Format::OpenAi);
    let conv = &t.conversations[0];
    assert_eq!(conv.items.len(), 5);
    assert_eq!(conv.items[2].kind, Kind::ToolCall);
    assert_eq!(conv.groups(), vec![0..1, 1..2, 2..4, 4..5]);
    assert_eq!(t.write(&[None]), src);
    let all: Vec<_> = (0..5).map(OutItem::Keep).collect();
    assert_eq!(t.write(&[Some(all)]), src);
    let dropped = t.write(&[Some(vec![OutItem::Keep(0), OutItem::Keep(4)])]);
    assert_eq!(
        dropped,
        "[\n  {\"role\": \"system\", \"content\": \"be brief\"},\n  {\"role\": \"assistant\", \"content\": \"done\"}\n]\n"
    );
    assert!(check(&t).is_empty());
}

#[test]
fn openai_summary_is_written_in_style_and_recognised() {
    let src = "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"assistant\", \"content\": \"yo\"}\n]";
    let t = read_str(src);
    let out = t.write(&[Some(vec![
        OutItem::Summary {
            text: "s".into(),
            replaces: 0..1,
        },
        OutItem::Keep(1),
    ])]);
    let again = read_str(&out);
    assert_eq!(again.conversations[0].items[0].kind, Kind::Summary);
    assert!(out.contains("\n  {\n    \"role\": \"user\""), "{out}");
}

#[test]
fn orphan_result_and_unanswered_call_are_found() {
    let src = r#"[{"role":"user","content":"x"},
{"role":"tool","tool_call_id":"nope","content":"r"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
{"role":"user","content":"moving on"}]"#;
    let t = read_str(src);
    let findings = check(&t);
    let text: Vec<String> = findings.iter().map(|f| f.to_string()).collect();
    assert!(
        text.iter()
            .any(|f| f.starts_with("2: tool result for call 'nope' has no earlier tool call")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|f| f.starts_with("3: tool call 'c1' (ls) is never answered")),
        "{text:?}"
    );
}

#[test]
fn a_call_still_running_at_the_end_is_fine() {
    let src = r#"[{"role":"user","content":"x"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}]"#;
    assert!(check(&read_str(src)).is_empty());
}

#[test]
fn containers_are_found() {
    let traj = r#"{"environment": "x", "history": [{"role": "user", "content": "a"}], "info": {}}"#;
    let t = read_str(&format!("{traj}\n"));
    assert_eq!(t.conversations[0].items.len(), 1);
    let runs = r#"[{"task_id": 1, "traj": [{"role": "user", "content": "a"}]}, {"task_id": 2, "traj": [{"role": "user", "content": "b"}, {"role": "assistant", "content": "c"}]}]"#;
    let t = read_str(runs);
    assert_eq!(t.conversations.len(), 2);
    assert_eq!(t.conversations[1].location, "/1/traj");
    assert_eq!(t.container, "json /*/traj");
    let lines =
        "{\"role\": \"user\", \"content\": \"a\"}\n{\"role\": \"assistant\", \"content\": \"b\"}\n";
    let t = read_str(lines);
    assert_eq!(t.container, "jsonl, one message per line");
    let out = t.write(&[Some(vec![OutItem::Keep(1)])]);
    assert_eq!(out, "{\"role\": \"assistant\", \"content\": \"b\"}\n");
}

#[test]
fn messages_path_names_the_list() {
    let src = r#"{"a": {"b": [[{"role": "user", "content": "x"}]]}}"#;
    let opts = ReadOptions {
        format: None,
        messages_path: Some("/a/b/*".into()),
    };
    let t = read(src.to_string(), &opts).unwrap();
    assert_eq!(t.conversations.len(), 1);
    assert!(t.conversations[0].location.ends_with("/a/b/0"));
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for (src, want) in [
        ("", "empty file"),
        // Cut short at the end of the file: a torn write.
        ("{\"role\": \"user\"}\n{\"role\": ", "2: torn last line"),
        // With its newline, or in the middle, an ordinary syntax error.
        ("{\"role\": \"user\"}\n{\"role\": \n", "2: invalid JSON"),
        (
            "{\"role\": \"user\"}\n{\"role\": \n{\"role\": \"user\"}",
            "2: invalid JSON",
        ),
        ("[1, 2", "invalid JSON"),
        ("[{\"x\": 1}]", "cannot tell the format"),
    ] {
        let err = read(src.to_string(), &ReadOptions::default()).unwrap_err();
        let text = err.findings[0].to_string();
        assert!(text.contains(want), "{src:?}: {text}");
    }
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    assert!(read(deep, &ReadOptions::default()).is_err());
}

#[test]
fn a_torn_tail_is_found_only_at_the_end_of_json_lines() {
    let torn = Doc::torn_tail("{\"a\": 1}\r\n{\"b\": 2}\r\n{\"c\": ").unwrap();
    assert_eq!((torn.start, torn.line), (20, 3));
    assert!(
        torn.message
            .starts_with("torn last line (no newline, not valid JSON): ")
    );
    for whole in [
        "{\"a\": 1}\n{\"b\": \n",
        "{\"a\": 1}\n{\"b\": 2}",
        "{\"a\": 1}\n{\"b\": 2}\n  ",
        "{\"a\": ",
        "{\n  \"a\": [\n    1,",
        "[\n{\"a\": 1}\n]",
    ] {
        assert_eq!(Doc::torn_tail(whole), None, "{whole:?}");
    }
}

#[test]
fn jsonl_lines_keep_their_own_endings() {
    let line = |role: &str, text: &str| format!(r#"{{"role": "{role}", "content": "{text}"}}"#);
    let (a, b, c, d) = (
        line("user", "a"),
        line("assistant", "b"),
        line("user", "c"),
        line("assistant", "d"),
    );
    let src = format!("{a}\n{b}\r\n\n{c}\n{d}\r\n");
    let t = read_str(&src);
    let summary = |replaces| OutItem::Summary {
        text: "s".into(),
        replaces,
    };
    let all: Vec<_> = (0..4).map(OutItem::Keep).collect();
    assert_eq!(t.write(&[Some(all)]), src, "kept lines and the blank line");
    // A summary takes the ending of the last line it replaces: CRLF for a..b, LF for c.
    let out = t.write(&[Some(vec![
        summary(0..2),
        OutItem::Keep(2),
        OutItem::Keep(3),
    ])]);
    let (first, rest) = out.split_once('\n').unwrap();
    assert!(
        first.ends_with('\r') && first.contains("[ctxc summary]"),
        "{out}"
    );
    assert_eq!(rest, format!("\n{c}\n{d}\r\n"));
    let out = t.write(&[Some(vec![
        OutItem::Keep(1),
        summary(2..3),
        OutItem::Keep(3),
    ])]);
    assert!(out.starts_with(&format!("{b}\r\n\n{{")), "{out}");
    assert!(out.ends_with(&format!("\n{d}\r\n")), "{out}");
    // Without its last line, the file still ends as it did: the line now last keeps its own
    // ending, and a file that ended without one still does.
    let out = t.write(&[Some(vec![OutItem::Keep(0), OutItem::Keep(1)])]);
    assert_eq!(out, format!("{a}\n{b}\r\n"));
    let t = read_str(&format!("{a}\r\n{b}\n{c}"));
    assert_eq!(
        t.write(&[Some(vec![OutItem::Keep(0), OutItem::Keep(1)])]),
        format!("{a}\r\n{b}")
    );
    assert_eq!(
        t.write(&[Some(vec![OutItem::Keep(1), OutItem::Keep(2)])]),
        format!("{b}\n{c}")
    );
}

#[test]
fn llamafactory_typed_parts_pair_with_the_tool_messages_that_follow() {
    let t = read_str(&fixture("llamafactory/messages-typed.jsonl"));
    assert_eq!(t.format, Format::OpenAi);
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    let kinds = |c: usize| -> Vec<&str> {
        t.conversations[c]
            .items
            .iter()
            .map(|i| i.kind.name())
            .collect()
    };
    assert_eq!(
        kinds(0),
        ["system", "user", "tool_call", "tool_result", "assistant"]
    );
    let first = &t.conversations[0].items;
    assert_eq!(first[2].calls[0].name, "get_weather");
    assert!(first[2].parts.iter().any(|p| p.kind == PartKind::Thinking));
    assert_eq!(first[3].results, [first[2].calls[0].id.clone()]);
    // Parallel calls answered by one tool message.
    let second = &t.conversations[1].items;
    assert_eq!(second[2].calls.len(), 2);
    assert_eq!(second[3].results.len(), 2);
    assert_eq!(t.conversations[1].groups()[2], 2..4);
    // Parallel calls answered by one tool message each.
    let third = &t.conversations[2].items;
    assert_eq!(third[3].results, [third[2].calls[0].id.clone()]);
    assert_eq!(third[4].results, [third[2].calls[1].id.clone()]);
    assert_eq!(t.write(&[None, None, None, None]), t.source);
}

#[test]
fn llamafactory_typed_parts_are_written_back_as_typed_parts() {
    let t = read_str(&fixture("llamafactory/messages-typed.jsonl"));
    let c = &t.conversations[1];
    let n = c.items.len();
    let mut plan = vec![
        OutItem::Keep(0),
        OutItem::Keep(1),
        OutItem::Keep(2),
        OutItem::ReplaceResult(3, "[ctxc: output masked]".into()),
        OutItem::Summary {
            text: "Berlin is cooler".into(),
            replaces: 4..6,
        },
    ];
    plan.extend((6..n).map(OutItem::Keep));
    let out = t.write(&[None, Some(plan), None, None]);
    let again = read_str(&out);
    assert!(check(&again).is_empty());
    let line: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    let messages = line["messages"].as_array().unwrap();
    assert_eq!(
        messages[3]["content"],
        serde_json::json!([{"type": "text", "value": "[ctxc: output masked]"}])
    );
    assert_eq!(messages[4]["content"][0]["type"], "text");
    let items = &again.conversations[1].items;
    assert_eq!(items[4].kind, Kind::Summary);
    assert!(items[4].ctxc_summary);
}

#[test]
fn llamafactory_function_call_and_observation_roles_pair() {
    let t = read_str(&fixture("llamafactory/openai-roles.json"));
    assert_eq!(t.format, Format::OpenAi);
    assert!(check(&t).is_empty(), "{:?}", check(&t));
    let items = &t.conversations[0].items;
    assert_eq!(items[2].kind, Kind::ToolCall);
    assert_eq!(items[2].calls[0].name, "get_weather");
    assert_eq!(items[3].kind, Kind::ToolResult);
    assert_eq!(items[3].results, [items[2].calls[0].id.clone()]);
}

#[test]
fn llamafactory_replaced_text_keeps_the_other_typed_parts() {
    let t = read_str(&fixture("llamafactory/messages-typed.jsonl"));
    let n = t.conversations[1].items.len();
    let mut plan: Vec<_> = (0..n).map(OutItem::Keep).collect();
    plan[4] = OutItem::ReplaceText(4, "shorter".into());
    let out = t.write(&[None, Some(plan), None, None]);
    let line: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    let content = &line["messages"][4]["content"];
    assert_eq!(content[0]["type"], "reasoning");
    assert_eq!(
        content[1],
        serde_json::json!({"type": "text", "value": "shorter"})
    );
    assert_eq!(content.as_array().unwrap().len(), 2);
}
