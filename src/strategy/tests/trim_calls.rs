//! Tests of trim-calls.

use super::*;

/// `n` numbered lines of file text.
fn body(n: usize) -> String {
    (0..n)
        .map(|k| format!("    value_{k} = compute({k}, \"field_{}\")", k % 7))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A heredoc command writing `n` lines to `path`, then running it; line 20 names a file.
fn heredoc(path: &str, n: usize) -> String {
    let mut lines: Vec<String> = vec![format!("cat > {path} <<'EOF'")];
    lines.extend((0..n).map(|k| {
        if k == 20 {
            "open('data/input.csv').read()".to_string()
        } else {
            format!("print({k} * {k})")
        }
    }));
    lines.push(format!("EOF\npython3 {path}"));
    lines.join("\n")
}

/// The arguments of every call `out`'s conversation makes, parsed, in order.
fn arguments(out: &Transcript) -> Vec<Value> {
    out.conversations[0]
        .items
        .iter()
        .flat_map(|i| &i.parts)
        .filter(|p| p.kind == PartKind::ToolArguments)
        .map(|p| serde_json::from_str(&p.text).unwrap_or_else(|_| Value::String(p.text.clone())))
        .collect()
}

#[test]
fn trim_calls_cuts_old_call_bodies_and_keeps_each_call_verbatim() {
    // 0 system, 1 task, 2-3 write, 4-5 edit, 6-7 heredoc, 8-13 recent reads, 14 user, 15.
    let c = Chat::default()
        .system("sys")
        .user("Build the generator.")
        .tool(
            "write_file",
            json!({"path": "src/gen.py", "content": body(60)}),
            "written",
        )
        .tool(
            "edit_file",
            json!({"path": "src/gen.py", "old": body(30), "new": body(40), "all": false}),
            "edited",
        )
        .tool("bash", json!({"command": heredoc("run.py", 50)}), "ok")
        .tool(
            "write_file",
            json!({"path": "src/late.py", "content": body(60)}),
            "written",
        )
        .reads(2)
        .user("Status?")
        .assistant("Working on it.")
        .case();
    let plan = c.apply(StrategyName::TrimCalls);
    // The last three calls (8, 10, 12) stay whole.
    assert_eq!(shape(&plan), format!("0 1 A2 3 A4 5 A6 {}", kept(7, 15)));
    let out = c.assert_written(StrategyName::TrimCalls, &plan);
    let args = arguments(&out);
    // Same keys in the same order, paths and flags verbatim.
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&args[0]), ["path", "content"]);
    assert_eq!(keys(&args[1]), ["path", "old", "new", "all"]);
    assert_eq!(args[0]["path"], "src/gen.py");
    assert_eq!(args[1]["all"], false);
    let content = args[0]["content"].as_str().unwrap();
    let lines: Vec<&str> = content.lines().collect();
    let original = body(60);
    let original: Vec<&str> = original.lines().collect();
    assert_eq!(lines[..HEAD], original[..HEAD]);
    assert!(
        lines[HEAD].starts_with("[ctxc: 54 of 60 lines (")
            && lines[HEAD].ends_with(" tokens) cut from this call; its head, its last line kept]"),
        "{}",
        lines[HEAD]
    );
    assert_eq!(lines[HEAD + 1], original[59]);
    // The old text's first line survives, and so does the new text's.
    assert!(args[1]["old"].as_str().unwrap().starts_with(original[0]));
    assert!(args[1]["new"].as_str().unwrap().starts_with(original[0]));
    // The heredoc keeps its command line, the line naming a file and its last line.
    let command = args[2]["command"].as_str().unwrap();
    assert!(
        command.starts_with("cat > run.py <<'EOF'\nprint(0 * 0)"),
        "{command}"
    );
    assert!(
        command.contains("open('data/input.csv').read()"),
        "{command}"
    );
    assert!(command.ends_with("python3 run.py"), "{command}");
    assert!(
        command.contains("a line naming its file kept]"),
        "{command}"
    );
    // The recent write is whole.
    assert_eq!(args[3]["content"], body(60));
    // Its facts all survive: every path and command of the input is still sent.
    let before = crate::facts::Facts::of(&c.t.conversations[0].items);
    let after = crate::facts::Facts::of(&out.conversations[0].items);
    assert_eq!(before.paths, after.paths);
    assert_eq!(before.commands, after.commands);
}

const HEAD: usize = 5;

#[test]
fn trim_calls_leaves_short_calls_and_formats_it_cannot_write() {
    let c = Chat::default()
        .system("sys")
        .user("Look around.")
        .tool("bash", json!({"command": "ls -la src"}), "a b")
        .reads(4)
        .user("And?")
        .case();
    let plan = c.apply(StrategyName::TrimCalls);
    assert_eq!(shape(&plan), kept(0, 12));
    let share = ShareGpt::default()
        .human("Go.")
        .reads(5)
        .gpt("Done.")
        .case();
    let plan = share.apply(StrategyName::TrimCalls);
    assert!(!shape(&plan).contains('A'), "{}", shape(&plan));
}

#[test]
fn trim_calls_rewrites_a_claude_code_input_object_and_nothing_else() {
    let tool_use = |id: &str, msg: &str, name: &str, input: Value| {
        json!({"message": {"id": msg, "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": name, "input": input}]}})
    };
    let result = |id: &str| {
        json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}]}})
    };
    let mut lines = vec![record(
        "u0",
        None,
        "user",
        json!({"message": {"role": "user", "content": "Write the module."}}),
    )];
    let mut parent = "u0".to_string();
    for k in 1..=5 {
        let input = json!({"file_path": format!("/repo/m{k}.py"), "content": body(40)});
        let (a, r) = (format!("a{k}"), format!("r{k}"));
        let id = format!("toolu_{k}");
        lines.push(record(
            &a,
            Some(&parent),
            "assistant",
            tool_use(&id, &format!("msg_{k}"), "Write", input),
        ));
        lines.push(record(&r, Some(&a), "user", result(&id)));
        parent = r;
    }
    lines.push(record(
        "u9",
        Some(&parent),
        "user",
        json!({"message": {"role": "user", "content": "Thanks."}}),
    ));
    let c = Case::new(&(lines.join("\n") + "\n"));
    let plan = c.apply(StrategyName::TrimCalls);
    assert_eq!(shape(&plan), "0 A1 2 A3 4 5 6 7 8 9 10 11");
    let written = c.t.write(&[Some(plan.items.clone())]);
    let records: Vec<&str> = written.lines().collect();
    // Only the input's content changed: the record around it is byte-for-byte.
    let original = &lines[1];
    let cut = records[1];
    let content_at = original.find("\"content\":\"    value_0").unwrap();
    assert_eq!(cut[..content_at], original[..content_at]);
    let tail = original[content_at..].find("\"}}]").unwrap() + content_at;
    assert!(cut.ends_with(&original[tail..]));
    let record: Value = serde_json::from_str(cut).unwrap();
    let input = &record["message"]["content"][0]["input"];
    assert!(input.is_object());
    assert_eq!(input["file_path"], "/repo/m1.py");
    assert!(
        input["content"]
            .as_str()
            .unwrap()
            .contains("[ctxc: 34 of 40 lines")
    );
    assert_eq!(records[2], lines[2]);
}

#[test]
fn trim_calls_keeps_codex_arguments_a_string_and_a_patch_its_file_headers() {
    let item = |payload: Value| {
        json!({"timestamp": "2025-01-01T00:00:00Z", "type": "response_item", "payload": payload})
            .to_string()
    };
    let patch = format!(
        "*** Begin Patch\n*** Add File: src/a.py\n{}\n*** Update File: src/b.py\n@@\n{}\n*** End Patch",
        body(30)
            .lines()
            .map(|l| format!("+{l}"))
            .collect::<Vec<_>>()
            .join("\n"),
        body(20)
            .lines()
            .map(|l| format!("-{l}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let shell = json!({"command": ["bash", "-lc", heredoc("gen.py", 40)], "workdir": "/repo"});
    let mut lines = vec![
        json!({"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/repo"}}).to_string(),
        item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Generate."}]})),
        item(json!({"type": "function_call", "name": "shell", "arguments": shell.to_string(), "call_id": "c1"})),
        item(json!({"type": "function_call_output", "call_id": "c1", "output": "ok"})),
        item(json!({"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "c2"})),
        item(json!({"type": "custom_tool_call_output", "call_id": "c2", "output": "Done!"})),
    ];
    for k in 3..7 {
        let args = json!({"command": ["bash", "-lc", format!("cat f{k}")]}).to_string();
        lines.push(item(json!({"type": "function_call", "name": "shell", "arguments": args, "call_id": format!("c{k}")})));
        lines.push(item(
            json!({"type": "function_call_output", "call_id": format!("c{k}"), "output": "x"}),
        ));
    }
    let c = Case::new(&(lines.join("\n") + "\n"));
    let plan = c.apply(StrategyName::TrimCalls);
    // Calls 2 and 4 are old: 6, 8 and 10 are the last three free ones (12 is the current turn).
    assert_eq!(shape(&plan), format!("0 1 A2 3 A4 {}", kept(5, 13)));
    let out = c.assert_written(StrategyName::TrimCalls, &plan);
    let written = c.t.write(&[Some(plan.items.clone())]);
    let records: Vec<Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // A function call's arguments stay a string of JSON with the same keys.
    let arguments = records[2]["payload"]["arguments"].as_str().unwrap();
    let parsed: Value = serde_json::from_str(arguments).unwrap();
    assert_eq!(parsed["workdir"], "/repo");
    assert!(
        parsed["command"][2]
            .as_str()
            .unwrap()
            .starts_with("cat > gen.py <<'EOF'")
    );
    // The patch stays text, its header lines all kept.
    let input = records[4]["payload"]["input"].as_str().unwrap();
    assert!(input.contains("[ctxc: "), "{input}");
    for header in [
        "*** Begin Patch",
        "*** Add File: src/a.py",
        "*** Update File: src/b.py",
    ] {
        assert!(input.contains(header), "{input}");
    }
    let before = crate::facts::Facts::of(&c.t.conversations[0].items);
    let after = crate::facts::Facts::of(&out.conversations[0].items);
    assert_eq!(before.paths, after.paths);
    assert_eq!(before.commands, after.commands);
}

#[test]
fn trim_calls_cuts_a_text_agents_reasoning_and_keeps_its_action() {
    // SWE-agent without function calling: each action ends the assistant's text and the
    // harness answers with a user message. 0 system, 1 task, 2-7 three old actions and their
    // observations, 8-13 the three most recent, 14-15 the current turn.
    let reasoning = "We should look at the parser first, since the issue names it. ".repeat(12);
    let actions = [
        "```\nopen src/parser.py\n```".to_string(),
        format!("<command>\nedit 10:12\n{}\nend_of_edit\n</command>", body(40)),
        "<function=bash>\n<parameter=command>python -m pytest tests/test_parser.py</parameter>\n</function>"
            .to_string(),
        "```bash\nfind_file \"lexer.py\" src\n```".to_string(),
        "```\nls\n```".to_string(),
        "```\npwd\n```".to_string(),
        "```\nsubmit\n```".to_string(),
    ];
    let mut chat = Chat::default()
        .system("COMMANDS: open, edit, submit. End each response with one command in a ``` block.")
        .user("Fix the parser bug.");
    for (k, action) in actions.iter().enumerate() {
        chat = chat
            .assistant(&format!("Step {k}. {reasoning}\n{action}"))
            .user(&format!("output {k}\n(Open file: src/parser.py)\nbash-$"));
    }
    let c = chat.case();
    let conv = &c.t.conversations[0];
    assert_eq!(
        conv.items[3].kind,
        Kind::ToolResult,
        "an observation is a tool result"
    );
    let plan = c.apply(StrategyName::TrimCalls);
    assert_eq!(shape(&plan), format!("0 1 T2 3 T4 5 T6 {}", kept(7, 15)));
    let out = c.assert_written(StrategyName::TrimCalls, &plan);
    let texts: Vec<String> = out.conversations[0]
        .items
        .iter()
        .map(|i| i.text())
        .collect();
    assert!(
        texts[2].starts_with("Step 0. We should look at the parser first, since"),
        "{}",
        texts[2]
    );
    assert!(
        texts[2]
            .contains(" tokens of reasoning cut before this action]\n```\nopen src/parser.py\n```"),
        "{}",
        texts[2]
    );
    // The edit keeps its command line, head and closing tag; the XML call is whole.
    assert!(texts[4].contains("<command>\nedit 10:12\n"), "{}", texts[4]);
    assert!(texts[4].contains("cut from this call"), "{}", texts[4]);
    assert!(texts[4].ends_with("</command>"), "{}", texts[4]);
    assert!(texts[6].ends_with(&actions[2]), "{}", texts[6]);
    assert_eq!(texts[8], format!("Step 3. {reasoning}\n{}", actions[3]));
    // Every command and path is still sent, and the read-back still sees each action.
    let before = crate::facts::Facts::of(&conv.items);
    let after = crate::facts::Facts::of(&out.conversations[0].items);
    assert_eq!(before.commands.len(), 7, "{:?}", before.commands);
    assert_eq!(before.commands, after.commands);
    assert_eq!(before.paths, after.paths);
    assert_eq!(before.user_requests, ["Fix the parser bug."]);
}

#[test]
fn trim_calls_cuts_a_claude_code_reasoning_record_before_its_call() {
    let text = |msg: &str, text: &str| {
        json!({"message": {"id": msg, "role": "assistant", "content": [
            {"type": "text", "text": text}]}})
    };
    let tool_use = |id: &str, msg: &str| {
        json!({"message": {"id": msg, "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "make test"}}]}})
    };
    let result = |id: &str| {
        json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}]}})
    };
    let mut lines = vec![record(
        "u0",
        None,
        "user",
        json!({"message": {"role": "user", "content": "Fix the tests."}}),
    )];
    let mut parent = "u0".to_string();
    let reasoning = format!(
        "The failure comes from the parser.\n{}",
        (0..30)
            .map(|n| format!("Step {n}: check the tokenizer state before the next read."))
            .collect::<Vec<_>>()
            .join("\n")
    );
    for k in 1..=5 {
        let (t, a, r) = (format!("t{k}"), format!("a{k}"), format!("r{k}"));
        let (id, msg) = (format!("toolu_{k}"), format!("msg_{k}"));
        lines.push(record(
            &t,
            Some(&parent),
            "assistant",
            text(&msg, &reasoning),
        ));
        lines.push(record(&a, Some(&t), "assistant", tool_use(&id, &msg)));
        lines.push(record(&r, Some(&a), "user", result(&id)));
        parent = r;
    }
    let c = Case::new(&(lines.join("\n") + "\n"));
    let plan = c.apply(StrategyName::TrimCalls);
    // Oldest first, only as far as the target needs, never the last 3 calls' reasoning;
    // every call is kept.
    let cut: Vec<&str> = plan
        .items
        .iter()
        .filter_map(|o| match o {
            OutItem::ReplaceText(_, t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        matches!(plan.items[1], OutItem::ReplaceText(1, _)),
        "{plan:?}"
    );
    assert!((1..=2).contains(&cut.len()), "{plan:?}");
    for t in &cut {
        assert!(
            t.starts_with("The failure comes from the parser.\n[ctxc: "),
            "{t}"
        );
        assert!(
            t.ends_with(" tokens of reasoning cut before this call]"),
            "{t}"
        );
    }
    let written = c.t.write(&[Some(plan.items.clone())]);
    let out = read(written.clone(), &ReadOptions::default()).unwrap();
    assert!(check(&out).is_empty(), "{written}");
    assert_eq!(written.matches("\"tool_use\"").count(), 5);
    assert_eq!(written.matches("make test").count(), 5);
}
