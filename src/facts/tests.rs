use super::*;
use crate::transcript::{ReadOptions, read, trailing_action};

#[test]
fn paths_are_found_in_text_and_not_in_urls() {
    let text = "Edit src/main.rs:42 and ./build.sh, see /etc/hosts or https://x.org/a/b.html; \
                1/2/2024 is a date; ../docs/README.md. Also foo/bar (no extension).";
    let found: Vec<String> = paths_in_text(text).collect();
    assert_eq!(
        found,
        [
            "src/main.rs",
            "./build.sh",
            "/etc/hosts",
            "../docs/README.md"
        ]
    );
}

#[test]
fn facts_of_an_openai_agent_run() {
    let src = r#"[
{"role":"user","content":"Fix the failing test in tests/test_api.py please"},
{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{\"command\":\"pytest tests/test_api.py -x\\necho done\"}"}}]},
{"role":"tool","tool_call_id":"a","content":"collected 3\nE   AssertionError: 1 != 2\nFAILED tests/test_api.py::test_x\nok"},
{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"str_replace_editor","arguments":"{\"command\":\"str_replace\",\"path\":\"/repo/api.py\",\"old_str\":\"1\",\"new_str\":\"2\"}"}}]},
{"role":"tool","tool_call_id":"b","content":"edited"},
{"role":"assistant","content":"Fixed /repo/api.py."}
]"#;
    let t = read(src.into(), &ReadOptions::default()).unwrap();
    let facts = Facts::of(&t.conversations[0].items);
    assert_eq!(facts.paths, ["tests/test_api.py", "/repo/api.py"]);
    assert_eq!(facts.commands, ["pytest tests/test_api.py -x"]);
    assert_eq!(
        facts.errors,
        [
            "E   AssertionError: 1 != 2",
            "FAILED tests/test_api.py::test_x"
        ]
    );
    assert_eq!(
        facts.user_requests,
        ["Fix the failing test in tests/test_api.py please"]
    );
}

#[test]
fn text_actions_and_codex_commands() {
    assert_eq!(
        trailing_action("DISCUSSION\nLet's look.\n```\nfind_file \"fields.py\" src\n```\n"),
        Some("find_file \"fields.py\" src".into())
    );
    assert_eq!(trailing_action("no block"), None);
    assert_eq!(
        trailing_action("Let's see.\n<command>\nls -F\n</command>"),
        Some("ls -F".into())
    );
    let call = CallArgs {
        name: "shell".into(),
        args: serde_json::json!({"command": ["bash", "-lc", "cargo test"]}),
    };
    assert_eq!(call.command().as_deref(), Some("cargo test"));
    let many = (0..10)
        .map(|i| format!("Error {i}: bad"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        error_lines(&many, false),
        [
            "Error 0: bad",
            "Error 1: bad",
            "Error 2: bad",
            "Error 8: bad",
            "Error 9: bad"
        ]
    );
}

/// A Claude Code session: a slash command and its output, a request with a reminder, a
/// Read of a file mentioning errors, a Write whose content names `/usr/bin/env`, a failed
/// test run.
const SESSION: &str = r##"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"},"uuid":"u0","parentUuid":null}
{"type":"user","message":{"role":"user","content":"<local-command-stdout>\u001b[2mCompacted\u001b[22m</local-command-stdout>"},"uuid":"u1","parentUuid":"u0"}
{"type":"user","message":{"role":"user","content":"Fix lib/app.ex please\n<system-reminder>todo list is empty</system-reminder>"},"uuid":"u2","parentUuid":"u1"}
{"type":"assistant","message":{"role":"assistant","id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/repo/lib/app.ex"}}]},"uuid":"a1","parentUuid":"u2"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"  31→  e in ErlangError -> {:error, Exception.message(e)}\n  32→  raise ArgumentError: bad"}]},"uuid":"r1","parentUuid":"a1"}
{"type":"assistant","message":{"role":"assistant","id":"m2","content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/repo/bin/run.sh","content":"#!/usr/bin/env bash\nexec 2>/dev/null\ncurl localhost/api/review-context/"}}]},"uuid":"a2","parentUuid":"r1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"File created"}]},"uuid":"r2","parentUuid":"a2"}
{"type":"assistant","message":{"role":"assistant","id":"m3","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"mix test 2>/dev/null"}}]},"uuid":"a3","parentUuid":"r2"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":"Exit code 2\nCompiling 1 file\n** (CompileError) lib/app.ex:3: undefined function foo/0\nwarning: unused variable"}]},"uuid":"r3","parentUuid":"a3"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},"uuid":"u3","parentUuid":"r3"}
"##;

#[test]
fn facts_of_a_session_leave_out_the_clients_noise_and_file_contents() {
    let t = read(SESSION.into(), &ReadOptions::default()).unwrap();
    let facts = Facts::of(&t.conversations[0].items);
    assert_eq!(facts.user_requests, ["Fix lib/app.ex please"]);
    assert_eq!(
        facts.paths,
        ["lib/app.ex", "/repo/lib/app.ex", "/repo/bin/run.sh"]
    );
    assert_eq!(facts.commands, ["mix test 2>/dev/null"]);
    assert_eq!(
        facts.errors,
        ["** (CompileError) lib/app.ex:3: undefined function foo/0"]
    );
}

#[test]
fn failed_calls_give_their_message_and_readers_only_their_complaints() {
    let shell = |c: &str| CallArgs {
        name: "Bash".into(),
        args: serde_json::json!({ "command": c }),
    };
    let result = |text: &str, is_error: bool| {
        let mut item = Item::new(0..0, 1, crate::transcript::Role::User, Kind::ToolResult);
        item.parts
            .push(crate::transcript::Part::new(PartKind::ToolResult, text));
        item.is_error = is_error;
        item
    };
    let cat = shell("cat notes.md");
    let contents = result(
        "Error: the parser fails\nTraceback (most recent call last)",
        false,
    );
    assert!(result_errors(&contents, &[&cat]).is_empty());
    let missing = result("cat: notes.md: No such file or directory", false);
    assert_eq!(
        result_errors(&missing, &[&cat]),
        ["cat: notes.md: No such file or directory"]
    );
    let test = shell("cargo test");
    let failed = result("Exit code 101\nrunning 3 tests\ntest result: ok? no", true);
    assert_eq!(result_errors(&failed, &[&test]), ["test result: ok? no"]);
    let rejected = result("The user doesn't want to proceed with this tool use.", true);
    assert!(result_errors(&rejected, &[&test]).is_empty());
    let edit = CallArgs {
        name: "Edit".into(),
        args: serde_json::json!({"file_path": "a.rs"}),
    };
    let not_found = result(
        "<tool_use_error>String to replace not found</tool_use_error>",
        true,
    );
    assert_eq!(
        result_errors(&not_found, &[&edit]),
        ["String to replace not found"]
    );
    assert!(is_error_shaped("error[E0425]: cannot find value `x`"));
    assert!(is_error_shaped("src/a.c:3:1: error: expected ';'"));
    assert!(is_error_shaped("FAILED tests/test_x.py::test_y"));
    assert!(!is_error_shaped("**Error handling strategy:**"));
    assert!(!is_error_shaped("e in ErlangError -> {:error, msg}"));
}

#[test]
fn every_error_shaped_line_holds_a_shape_needle() {
    // The needles only skip the regex: over every line of the corpus (JSON string escapes
    // read as line breaks, as tool outputs are) and lines made to match each alternative,
    // the regex never matches a line without one.
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut lines: Vec<String> = [
        "E   AssertionError",
        "x.y.ValueError: bad",
        "Traceback (most recent call last):",
        "a.c:1:2: fatal: no input",
        "FATAL: boom",
        "** (CompileError) lib/a.ex",
        "src/a.ts(1,2): error TS2304: x",
        "thread 'main' panicked at src/main.rs",
        "npm ERR! code 1",
        "FAIL: test_x",
        "ERROR tests/a.py",
        "ls: x: No such file or directory",
        "sh: 1: x: Permission denied",
        "zsh: command not found: x",
        "3 failures, 2 errors",
    ]
    .map(String::from)
    .to_vec();
    for entry in walkdir::WalkDir::new(&corpus).into_iter().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            let text = text.replace("\\n", "\n");
            lines.extend(text.lines().map(String::from));
        }
    }
    // Non-ASCII text, folded for the ASCII build: letters, digits and spaces of other scripts
    // inside each alternative.
    lines.extend(
        [
            "ÄError: boom",
            "TypeÉrror: x",
            "E\u{a0}  ValueError",
            "e.ÜberError: nope",
            "λ.py:١٢: error: x",
            "1٢ failures, ٣ errors",
            "٢ failed",
            "café/naïve.py and ~/résumé/x.txt — ./a/β.rs",
            "日本/語.md, /tmp/ü/ß.txt",
            "panicked at 'π' src/ā.rs",
            "\u{2003}ValueError: spaced",
            "x\u{1f600}/y.py 😀Error: z",
        ]
        .map(String::from),
    );
    let mut shaped = 0;
    let mut ascii = 0;
    let mut folded = 0;
    for line in &lines {
        // The ASCII build, on the text folded when it is not ASCII, finds what the Unicode
        // build finds.
        ascii += usize::from(line.is_ascii());
        folded += usize::from(!line.is_ascii());
        let line = line.trim();
        let unicode = ERROR_SHAPE.unicode().is_match(line);
        assert_eq!(ERROR_SHAPE.is_match(line), unicode, "{line:?}");
        let spans = |r: &Regex| r.find_iter(line).map(|m| m.range()).collect::<Vec<_>>();
        let paths = spans(PATH_TOKEN.unicode());
        assert_eq!(
            PATH_TOKEN.find_ranges(line).collect::<Vec<_>>(),
            paths,
            "{line:?}"
        );
        if ERROR_SHAPE.unicode().is_match(line.trim()) {
            shaped += 1;
            assert!(SHAPE_FINDER.is_match(line.trim()), "no needle in {line:?}");
        }
    }
    assert!(shaped >= 15, "{shaped} error-shaped lines");
    assert!(ascii > 10_000, "{ascii} ASCII lines");
    assert!(folded > 1_000, "{folded} non-ASCII lines");
}

#[test]
fn system_paths_are_not_files() {
    let found: Vec<String> =
        paths_in_text("#!/usr/bin/env python\ncat src/x.py 2>/dev/null > /proc/self/fd ./run.sh")
            .collect();
    assert_eq!(found, ["src/x.py", "./run.sh"]);
    assert!(!is_file_path("/bin/sh") && is_file_path("/repo/bin/run.sh"));
}

#[test]
fn error_lines_are_those_of_a_line_by_line_search() {
    let naive = |text: &str, flagged: bool| {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.len() >= 8)
            .collect();
        let mut errors: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| ERROR_NEEDLES.iter().any(|n| l.contains(n)))
            .collect();
        if flagged && errors.is_empty() {
            errors.extend(lines.first());
        }
        if errors.len() > 5 {
            errors.drain(3..errors.len() - 2);
        }
        errors
            .into_iter()
            .map(|l| clip(l, MAX_FACT_CHARS))
            .collect::<Vec<_>>()
    };
    let texts = [
        "",
        "Error",
        "short\nError: x\r\n  TypeError: y  \n\nok fine here\nFAILED a Error b failed\n",
        "no errors at all in here\njust lines\n",
        "a\nb\nfatal: not a git repository\nErr\nPermission denied (publickey)",
        &"ok: test passed\nE: FAIL: case 7\n".repeat(40),
        "first line long enough\nsecond",
        "\u{e9}t\u{e9} Error \u{e9}\n\u{4e2d}\u{6587} command not found",
    ];
    for text in texts {
        for flagged in [false, true] {
            assert_eq!(error_lines(text, flagged), naive(text, flagged), "{text:?}");
        }
    }
}

#[test]
fn whitespace_collapses_as_split_whitespace_joins_over_the_corpus() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let mut texts: Vec<String> = [
        "",
        "  ",
        " a\tb\x0bc\x0cd\re\n\nf ",
        "x\u{85}y\u{a0}z\u{3000}é\u{2028}日本\u{1c}\u{1f}end",
        "\u{2003}lead and trail\u{205f}",
        // One space before other white space, a control or a non-ASCII letter.
        "a \u{a0}b c\u{a0} d e \x01f g \u{e9}h i \tj k  ",
        "end with one space ",
    ]
    .map(String::from)
    .to_vec();
    for entry in walkdir::WalkDir::new(&corpus).into_iter().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            texts.push(text.replace("\\n", "\n").replace("\\t", "\t"));
        }
    }
    for text in &texts {
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(collapse_whitespace(text), words.join(" "));
    }
    // `is_collapsed` answers what comparing with the collapsed copy answers: on whole files,
    // their lines (many already collapsed) and texts made to be collapsed.
    let lines: Vec<&str> = texts.iter().flat_map(|t| t.lines()).collect();
    let made = ["a", "a b", "é b 日本", "a\u{85}b".trim_end(), "x \u{a0}"];
    let mut collapsed = 0;
    for text in texts.iter().map(String::as_str).chain(lines).chain(made) {
        let expected = collapse_whitespace(text) == text;
        assert_eq!(is_collapsed(text), expected, "{text:?}");
        collapsed += usize::from(expected);
    }
    assert!(
        collapsed > 100,
        "too few collapsed texts to check: {collapsed}"
    );
}

#[test]
fn head_and_tail_characters_are_those_counted_one_by_one() {
    for text in ["", "a", "héllo wörld", "日本語のテキスト", "a\u{1f600}b"] {
        let chars: Vec<char> = text.chars().collect();
        for n in 0..=chars.len() + 2 {
            let head: String = chars.iter().take(n).collect();
            let tail: String = chars[chars.len().saturating_sub(n)..].iter().collect();
            assert_eq!(head_chars(text, n), head);
            assert_eq!(clip(text, n), head);
            assert_eq!(tail_chars(text, n), tail);
        }
    }
}

#[test]
fn shell_tools_are_named_so_in_any_case() {
    let lowered = |name: &str| {
        let name = name.to_ascii_lowercase();
        SHELL_TOOL_WORDS.iter().any(|n| name.contains(n))
    };
    for name in [
        "Bash",
        "BASH",
        "local_shell",
        "ExecCommand",
        "exec_command",
        "run_command",
        "Terminal",
        "Run_Command",
        "Read",
        "Edit",
        "",
        "sh",
        "bas",
        "bäsh",
        "ÉXEC",
        "shellé",
        "execute_COMMAND",
    ] {
        let call = CallArgs {
            name: name.to_string(),
            args: Value::Null,
        };
        assert_eq!(call.is_shell(), lowered(name), "{name:?}");
    }
}

/// A path holds a slash: words with an extension alone are not paths, and the same words
/// beside a slashed path leave only the path.
#[test]
fn words_without_a_slash_are_never_paths() {
    assert_eq!(
        paths_in_text("edit notes.txt, README.md and main.rs").count(),
        0
    );
    let found: Vec<String> = paths_in_text("edit notes.txt and src/main.rs").collect();
    assert_eq!(found, ["src/main.rs"]);
}

/// ASCII white space (vertical tab and form feed included) collapses as `split_whitespace` splits.
#[test]
fn ascii_whitespace_collapses_as_any_whitespace_does() {
    for text in [
        "",
        "   ",
        "one",
        "  two  words  ",
        "tabs\tand\nlines\r\nand\x0Bvertical\x0Cfeeds",
        "\n\nend\n",
    ] {
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(collapse_whitespace(text), words.join(" "), "{text:?}");
    }
    assert_eq!(collapse_whitespace(" é\u{a0}ü  x "), "é ü x");
}

/// A request's key is the first characters of the whole text collapsed, however much white
/// space or how many multi-byte characters stand before them (only a start is collapsed).
#[test]
fn request_keys_are_the_start_of_the_whole_text_collapsed() {
    let long_words = "word ".repeat(100);
    let spaced = format!("{}{}", " \n\t".repeat(400), "end of it ".repeat(30));
    let wide = "日本語のテキスト ".repeat(60);
    let split_at_the_end = format!("{}tail", "x ".repeat(79));
    for text in [
        "",
        "   ",
        "short request",
        long_words.as_str(),
        spaced.as_str(),
        wide.as_str(),
        split_at_the_end.as_str(),
    ] {
        let whole: String = collapse_whitespace(text)
            .chars()
            .take(REQUEST_KEY_CHARS)
            .collect();
        assert_eq!(request_key(text), whole, "{text:?}");
    }
}

#[test]
fn a_word_is_held_in_a_name_in_any_case_as_in_its_lowercase() {
    for name in [
        "str_replace_editor",
        "STR_REPLACE",
        "Editor",
        "edito",
        "",
        "éditor",
        "xEDITORx",
    ] {
        for word in ["editor", "str_replace", "read", "", "e"] {
            let lowered = name.to_ascii_lowercase().contains(word);
            assert_eq!(holds_ignoring_case(name, word), lowered, "{name} {word}");
        }
    }
}

#[test]
fn a_text_agents_actions_are_its_calls_and_its_observations_are_not_requests() {
    // SWE-agent's three text forms: a fenced block, a `<command>` block (xml thought-action)
    // and an XML function call; each observation comes back as a user message.
    let history = serde_json::json!({"history": [
        {"role": "system", "content": "You are an agent. COMMANDS: open, edit, python. End each response with one command in a ``` block."},
        {"role": "user", "content": "Fix the rounding in src/fields.py"},
        {"role": "assistant", "content": "Look first.\n```\nopen src/fields.py 1474\n```"},
        {"role": "user", "content": "[File: /repo/src/fields.py]\n(Open file: /repo/src/fields.py)"},
        {"role": "assistant", "content": "Reproduce.\n<command>\npython reproduce.py\n</command>"},
        {"role": "user", "content": "Traceback (most recent call last):\nValueError: bad"},
        {"role": "assistant", "content": "Edit it.\n<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n<parameter=path>/repo/src/lib.py</parameter>\n<parameter=old_str>\nround(x)\n</parameter>\n</function>"},
        {"role": "user", "content": "The file /repo/src/lib.py has been edited."},
        {"role": "assistant", "content": "Test.\n<function=bash>\n<parameter=command>pytest -x tests</parameter>\n</function>"},
        {"role": "user", "content": "1 passed"}
    ]});
    let t = read(history.to_string(), &ReadOptions::default()).unwrap();
    let conv = &t.conversations[0];
    let facts = Facts::of(&conv.items);
    assert_eq!(
        facts.commands,
        [
            "open src/fields.py 1474",
            "python reproduce.py",
            "pytest -x tests"
        ]
    );
    assert_eq!(facts.paths, ["src/fields.py", "/repo/src/lib.py"]);
    assert_eq!(facts.user_requests, ["Fix the rounding in src/fields.py"]);
    let call = conv.items[6].text_call.as_deref().unwrap();
    assert_eq!(call.name, "str_replace_editor");
    assert_eq!(call.arguments["old_str"], "round(x)");
    assert_eq!(
        &conv.items[6].text()[call.start..call.start + 10],
        "<function="
    );
    for at in [3, 5, 7, 9] {
        assert_eq!(conv.items[at].kind, Kind::ToolResult, "item {at}");
    }
}

#[test]
fn a_chat_answer_ending_in_code_is_followed_by_the_users_request_not_an_observation() {
    // No system message teaches an action syntax: the code block is an answer, and what the
    // user writes next is their own request, which no strategy may cut as a tool output.
    let chat = serde_json::json!({"messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "How do I list files in Python?"},
        {"role": "assistant", "content": "Use os.listdir:\n```python\nimport os\nprint(os.listdir('.'))\n```"},
        {"role": "user", "content": "Thanks! Now sort them by size"},
        {"role": "assistant", "content": "Use sorted with key=os.path.getsize."}
    ]});
    let t = read(chat.to_string(), &ReadOptions::default()).unwrap();
    let conv = &t.conversations[0];
    assert_eq!(conv.items[3].kind, Kind::User);
    assert!(conv.items[2].calls.is_empty() && conv.items[2].text_call.is_none());
    let facts = Facts::of(&conv.items);
    assert_eq!(
        facts.user_requests,
        [
            "How do I list files in Python?",
            "Thanks! Now sort them by size"
        ]
    );
    assert!(facts.commands.is_empty(), "{:?}", facts.commands);
}
