//! Unit tests of the extractive summarizer: what a resumed agent needs is in the summary —
//! requests, exact paths by what was done to them, commands, errors and what followed, the
//! latest task list, pins and preferences — in the five sections, within the budget.

use super::*;
use crate::summarizer::MAX_SAFE_CHARS;
use crate::summarizer::artifacts;
use crate::summarizer::render::Outputs;
use crate::tokens::{Encoding, TokenCounter};
use crate::transcript::{PartKind, ReadOptions, SUMMARY_MARKER, Transcript, read};
use serde_json::{Value, json};

// ----- Building spans -----

/// OpenAI messages, one per line (message `i` is on line `i + 2`).
#[derive(Default)]
struct Span {
    messages: Vec<Value>,
    calls: usize,
}

impl Span {
    fn user(mut self, text: &str) -> Self {
        self.messages.push(json!({"role": "user", "content": text}));
        self
    }

    fn assistant(mut self, text: &str) -> Self {
        self.messages
            .push(json!({"role": "assistant", "content": text}));
        self
    }

    /// An assistant message calling `name` with `args`, and the tool's `output`.
    fn tool(mut self, name: &str, args: Value, output: &str) -> Self {
        self.calls += 1;
        let id = format!("call_{}", self.calls);
        self.messages
            .push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function",
             "function": {"name": name, "arguments": args.to_string()}}]}));
        self.messages
            .push(json!({"role": "tool", "tool_call_id": id, "content": output}));
        self
    }

    fn bash(self, command: &str, output: &str) -> Self {
        self.tool("bash", json!({ "command": command }), output)
    }

    fn todos(self, todos: &[(&str, &str)]) -> Self {
        let todos: Vec<Value> = todos
            .iter()
            .map(|(content, status)| json!({"content": content, "status": status}))
            .collect();
        self.tool("TodoWrite", json!({ "todos": todos }), "Todos updated")
    }

    fn transcript(&self) -> Transcript {
        let lines: Vec<String> = self.messages.iter().map(Value::to_string).collect();
        let src = format!("[\n{}\n]\n", lines.join(",\n"));
        read(src, &ReadOptions::default()).unwrap()
    }

    /// The summary of every message, with the default budget (1,000 tokens).
    fn summary(&self) -> String {
        self.summary_within(1000, Scope::Span)
    }

    fn summary_within(&self, max_tokens: usize, scope: Scope) -> String {
        summarize(&self.transcript(), max_tokens, scope)
    }
}

fn counter() -> TokenCounter {
    TokenCounter::new(Encoding::O200kBase).unwrap()
}

fn summarize(t: &Transcript, max_tokens: usize, scope: Scope) -> String {
    let entries: Vec<Cow<Item>> = t.conversations[0].items.iter().map(Cow::Borrowed).collect();
    let counter = counter();
    let summary = Extractive
        .summarize(&SummaryRequest {
            entries: &entries,
            scope,
            records: 0..entries.len(),
            max_tokens,
            counter: &counter,
            memo: None,
        })
        .unwrap();
    assert_eq!(summary.llm_calls, 0);
    assert_eq!(summary.fallback, None);
    summary.text
}

/// The lines of the list titled `title`, in order (empty when the list is absent).
fn list<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| *l != title);
    if lines.next().is_none() {
        return Vec::new();
    }
    lines.map_while(|l| l.strip_prefix("- ")).collect()
}

/// The files of the artifact index whose actions leave them `verb` (their last change, else
/// their last action), whole, in order.
fn files(text: &str, verb: &str) -> Vec<String> {
    artifacts::indexed_actions(text)
        .into_iter()
        .filter(|(_, e)| e.verb() == verb)
        .map(|(p, _)| p)
        .collect()
}

/// The lines of the artifact index's commands.
fn commands(text: &str) -> Vec<&str> {
    list(text, artifacts::COMMANDS_TITLE)
}

/// A span with something for every section.
fn everything() -> Span {
    Span::default()
        .user("Fix the failing test in tests/test_api.py please. Please use tabs, never spaces.")
        .todos(&[
            ("Reproduce the failure", "in_progress"),
            ("Fix api.py", "pending"),
        ])
        .tool("read_file", json!({"path": "src/api.py"}), "def get(): ...")
        .bash(
            "pytest tests/test_api.py -x",
            "collected 3 items\nE   AssertionError: 1 != 2\nFAILED tests/test_api.py::test_get\n1 failed",
        )
        .assistant("The root cause is the default page size, because get() starts at 1.")
        .tool(
            "edit_file",
            json!({"path": "src/api.py", "old": "1", "new": "0"}),
            "edited",
        )
        .tool(
            "write_file",
            json!({"path": "tests/test_paging.py", "content": "def test(): pass"}),
            "written",
        )
        .bash(
            "git diff --stat",
            " src/api.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",
        )
        .user("<Pin>The public API stays as it is.</Pin>")
        .todos(&[
            ("Reproduce the failure", "completed"),
            ("Fix api.py", "completed"),
            ("Run the whole suite", "pending"),
        ])
        .assistant("Fixed; now running the whole suite.")
}

// ----- The sections -----

#[test]
fn the_five_sections_appear_in_order_with_their_content() {
    let text = everything().summary();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in:\n{text}"))
    };
    let headers = [
        "## 1. Task overview",
        "## 2. Current state",
        "## 3. Important discoveries",
        "## 4. Next steps",
        "## 5. Context to preserve",
    ];
    let positions: Vec<usize> = headers.iter().map(|h| at(h)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    // Each list sits in its section.
    for (list_title, section) in [
        ("User requests, oldest first:", 0),
        (artifacts::FILES_TITLE, 1),
        ("- created: tests/test_paging.py", 1),
        ("- read, modified: src/api.py", 1),
        (artifacts::COMMANDS_TITLE, 1),
        ("Errors (failed calls) and what followed:", 2),
        ("Decisions and findings:", 2),
        ("Task list (latest state):", 3),
        ("Last assistant message of the span:", 3),
        ("Pinned:", 4),
        ("User preferences and constraints:", 4),
    ] {
        let p = at(list_title);
        assert!(
            p > positions[section],
            "{list_title} before its section:\n{text}"
        );
        if let Some(next) = positions.get(section + 1) {
            assert!(p < *next, "{list_title} after its section:\n{text}");
        }
    }
    assert!(
        text.ends_with("Git: 1 file changed, 1 insertion(+), 1 deletion(-)"),
        "{text}"
    );
}

#[test]
fn the_intro_names_the_span_and_its_records() {
    let span = Span::default().user("Hello there.").assistant("Hi.");
    let text = span.summary();
    assert!(
        text.starts_with("Continuation summary of 2 earlier messages (records 1-2), by ctxc.\n\n## 1. Task overview"),
        "{text}"
    );
    let text = span.summary_within(1000, Scope::Full);
    assert!(
        text.starts_with("Continuation summary of 2 messages (the whole conversation but what is kept verbatim) (records 1-2), by ctxc."),
        "{text}"
    );
}

#[test]
fn sections_without_content_are_left_out() {
    let text = Span::default()
        .user("Explain the borrow checker.")
        .summary();
    assert!(text.contains("## 1. Task overview"), "{text}");
    for absent in ["## 2.", "## 3.", "## 4.", "## 5.", "Git:"] {
        assert!(!text.contains(absent), "{absent} in:\n{text}");
    }
    let text = Span::default().assistant("Hello!").summary();
    assert!(
        !text.contains("## 1.") && text.contains("## 4. Next steps"),
        "{text}"
    );
}

// ----- The facts -----

#[test]
fn user_requests_are_verbatim_when_short_and_cut_in_the_middle_when_long() {
    let long: String = (0..100).map(|i| format!("word{i} ")).collect();
    let text = Span::default()
        .user("Fix the   failing test\n  in tests/test_api.py please")
        .user(&long)
        .summary();
    let requests = list(&text, "User requests, oldest first:");
    assert_eq!(
        requests[0],
        "\"Fix the failing test in tests/test_api.py please\""
    );
    let flat = long.trim();
    let head: String = flat.chars().take(300).collect();
    let tail: String = flat.chars().skip(flat.chars().count() - 80).collect();
    assert_eq!(requests[1], format!("\"{head} […] {tail}\""));
    assert_eq!(requests.len(), 2);
}

#[test]
fn exact_paths_are_sorted_into_created_modified_deleted_and_read() {
    let text = Span::default()
        .user("Refactor the parser.")
        .tool("write_file", json!({"path": "src/new.rs"}), "ok")
        .tool(
            "str_replace_editor",
            json!({"command": "create", "path": "/repo/src/made.rs", "file_text": "x"}),
            "ok",
        )
        .tool(
            "edit_file",
            json!({"path": "src/parser.rs", "old": "a", "new": "b"}),
            "ok",
        )
        .tool(
            "str_replace_editor",
            json!({"command": "str_replace", "path": "/repo/src/lexer.rs", "old_str": "a", "new_str": "b"}),
            "ok",
        )
        .tool("delete_file", json!({"path": "src/old.rs"}), "ok")
        .tool("read_file", json!({"file_path": "/repo/Cargo.toml"}), "[package]")
        .tool(
            "str_replace_editor",
            json!({"command": "view", "path": "/repo/README.md"}),
            "# readme",
        )
        .tool("edit_file", json!({"path": "src/parser.rs", "old": "b", "new": "c"}), "ok")
        .summary();
    assert_eq!(files(&text, "created"), ["src/new.rs", "/repo/src/made.rs"]);
    assert_eq!(
        files(&text, "modified"),
        ["src/parser.rs", "/repo/src/lexer.rs"]
    );
    assert_eq!(files(&text, "deleted"), ["src/old.rs"]);
    assert_eq!(
        files(&text, "read"),
        ["/repo/Cargo.toml", "/repo/README.md"]
    );
    // Each file once, with its actions in order.
    assert!(
        text.contains("- modified ×2: src/parser.rs\n- modified: /repo/src/lexer.rs"),
        "{text}"
    );
    assert!(
        text.contains("- read: /repo/{Cargo.toml, README.md}"),
        "{text}"
    );
}

#[test]
fn a_patch_sorts_its_files_by_what_it_does_to_them() {
    let patch = "*** Begin Patch\n*** Add File: src/added.rs\n+fn a() {}\n*** Update File: src/changed.rs\n@@\n-x\n+y\n*** Delete File: src/gone.rs\n*** End Patch";
    let text = Span::default()
        .user("Apply the refactor.")
        .tool("apply_patch", json!({ "input": patch }), "Done!")
        .summary();
    assert_eq!(files(&text, "created"), ["src/added.rs"]);
    assert_eq!(files(&text, "deleted"), ["src/gone.rs"]);
    // The patch says per file what it does: the added and the deleted file are not
    // modifications.
    assert_eq!(files(&text, "modified"), ["src/changed.rs"], "{text}");
}

#[test]
fn commands_are_listed_oldest_first_by_their_first_line() {
    let text = Span::default()
        .user("Build it.")
        .bash("cargo build --release", "Finished")
        .bash("cd web\nnpm ci\nnpm run build", "done")
        .bash("cargo build --release", "Finished")
        .summary();
    assert_eq!(
        commands(&text),
        ["`cargo build --release` ×2", "`cd web` …"]
    );
}

#[test]
fn an_error_line_is_kept_with_what_followed_it() {
    let text = Span::default()
        .user("Fix the build.")
        .bash(
            "cargo build",
            "   Compiling ctxc\nerror[E0425]: cannot find value `x` in this scope\n  --> src/main.rs:3:5",
        )
        .tool(
            "edit_file",
            json!({"path": "src/main.rs", "old": "x", "new": "y"}),
            "ok",
        )
        .bash("cargo test", "thread 'main' panicked at src/lib.rs:9:1")
        .bash("cargo test -- --nocapture", "ok")
        .user("It still says: TypeError: undefined is not a function")
        .bash("ls /nope", "ls: cannot access '/nope': No such file or directory")
        .summary();
    assert_eq!(
        list(&text, "Errors (failed calls) and what followed:"),
        [
            "`error[E0425]: cannot find value `x` in this scope` (from `cargo build`) → then: edit_file src/main.rs",
            "`thread 'main' panicked at src/lib.rs:9:1` (from `cargo test`) → then: ran `cargo test -- --nocapture`",
            "`It still says: TypeError: undefined is not a function` (reported by the user)",
            "`ls: cannot access '/nope': No such file or directory` (from `ls /nope`)",
        ]
    );
}

#[test]
fn the_latest_todo_list_gives_open_then_done_tasks() {
    let text = everything().summary();
    assert_eq!(
        list(&text, "Task list (latest state):"),
        [
            "[pending] Run the whole suite",
            "[completed] Reproduce the failure",
            "[completed] Fix api.py"
        ]
    );
    // The earlier list's state is gone.
    assert!(
        !text.contains("[in_progress] Reproduce the failure"),
        "{text}"
    );
}

#[test]
fn pins_preferences_and_decisions_are_kept() {
    let text = everything().summary();
    assert_eq!(list(&text, "Pinned:"), ["The public API stays as it is."]);
    assert_eq!(
        list(&text, "User preferences and constraints:"),
        ["\"Please use tabs, never spaces.\""]
    );
    assert_eq!(
        list(&text, "Decisions and findings:"),
        ["\"The root cause is the default page size, because get() starts at 1.\""]
    );
    assert_eq!(
        list(&text, "Last assistant message of the span:"),
        ["\"Fixed; now running the whole suite.\""]
    );
}

// ----- The budget -----

/// A span naming 300 files read, after a request and a pin.
fn many_reads() -> Span {
    let mut span = Span::default()
        .user("Audit every module.")
        .user("<Pin>Report in CSV.</Pin>");
    for k in 0..300 {
        span = span.tool(
            "read_file",
            json!({"path": format!("src/module_{k:03}.rs")}),
            "ok",
        );
    }
    span
}

#[test]
fn the_budget_is_respected_and_what_is_left_out_is_counted() {
    let t = many_reads().transcript();
    let counter = counter();
    for budget in [120, 200, 400, 1000, 3000] {
        let text = summarize(&t, budget, Scope::Span);
        let tokens = counter.count(&text);
        assert!(
            tokens <= budget,
            "{tokens} tokens for a budget of {budget}:\n{text}"
        );
        // Requests and pins come first; files only read last.
        assert_eq!(
            list(&text, "User requests, oldest first:")[0],
            "\"Audit every module.\""
        );
        assert_eq!(list(&text, "Pinned:"), ["Report in CSV."]);
        if budget == 120 {
            continue; // No file fits (see the ignored test below).
        }
        let read = files(&text, "read");
        let shown = read.len();
        let more: usize = list(&text, artifacts::FILES_TITLE)
            .iter()
            .find_map(|l| l.strip_prefix('('))
            .map_or(0, |rest| rest.split(' ').next().unwrap().parse().unwrap());
        assert!(shown > 0, "budget {budget}:\n{text}");
        assert_eq!(shown + more, 300, "budget {budget}:\n{text}");
        assert_eq!(more > 0, budget < 3000, "budget {budget}");
        // The most recent reads are the ones shown.
        assert_eq!(read[shown - 1], "src/module_299.rs");
        assert_eq!(read[0], format!("src/module_{:03}.rs", 300 - shown));
    }
}

#[test]
fn a_list_is_shown_with_its_newest_lines_or_not_at_all() {
    // With 220 tokens the requests, the pin, the next step and the newest files read fit: no
    // count of lines left out.
    let text = summarize(&many_reads().transcript(), 220, Scope::Span);
    let read = files(&text, "read");
    assert_eq!(
        read.last().map(String::as_str),
        Some("src/module_299.rs"),
        "{text}"
    );
    assert!(
        text.contains(&format!("({} files and 0 commands", 300 - read.len())),
        "{text}"
    );
    for title in text
        .lines()
        .filter(|l| l.ends_with(':') && !l.starts_with('#'))
    {
        let lines = list(&text, title);
        assert!(
            lines.first().is_some_and(|l| !l.ends_with("not shown)")),
            "{title} shows no line:\n{text}"
        );
    }
}

#[test]
fn summaries_grow_with_the_budget() {
    let t = many_reads().transcript();
    let small = summarize(&t, 200, Scope::Span);
    let large = summarize(&t, 2000, Scope::Span);
    assert!(files(&large, "read").len() > files(&small, "read").len());
}

// ----- Earlier summaries and long spans -----

#[test]
fn an_earlier_summary_is_merged_line_by_line() {
    let first = everything().summary();
    let span = Span::default()
        .user(&format!("{SUMMARY_MARKER}\n{first}"))
        .user("Now the docs.")
        .tool("edit_file", json!({"path": "docs/api.md"}), "ok")
        .assistant("Docs updated.");
    let t = span.transcript();
    assert_eq!(t.conversations[0].items[0].kind, Kind::Summary);
    let text = summarize(&t, 1000, Scope::Span);
    assert_eq!(files(&text, "modified"), ["src/api.py", "docs/api.md"]);
    assert_eq!(files(&text, "created"), ["tests/test_paging.py"]);
    assert_eq!(
        commands(&text),
        [
            "`pytest tests/test_api.py -x` → failed: E   AssertionError: 1 != 2",
            "`git diff --stat`"
        ]
    );
    assert_eq!(list(&text, "Pinned:"), ["The public API stays as it is."]);
    assert_eq!(
        list(&text, "User requests, oldest first:"),
        [
            "\"Fix the failing test in tests/test_api.py please. Please use tabs, never spaces.\"",
            "\"<Pin>The public API stays as it is.</Pin>\"",
            "\"Now the docs.\""
        ]
    );
    assert_eq!(
        list(&text, "Last assistant message of the span:"),
        ["\"Docs updated.\""]
    );
    assert!(
        text.ends_with("Git: 1 file changed, 1 insertion(+), 1 deletion(-)"),
        "{text}"
    );
    // The earlier summary's own text is not quoted as a request.
    assert!(!text.contains("Continuation summary of 16"), "{text}");
}

#[test]
fn a_count_of_lines_left_out_is_not_merged_as_a_fact() {
    let t = many_reads().transcript();
    let first = summarize(&t, 200, Scope::Span);
    assert!(first.contains(" not shown)"), "{first}");
    let text = Span::default()
        .user(&format!("{SUMMARY_MARKER}\n{first}"))
        .summary();
    let read = files(&text, "read");
    assert!(!read.is_empty());
    assert!(read.iter().all(|l| l.starts_with("src/module_")), "{text}");
}

#[test]
fn a_span_over_200000_characters_is_read_whole() {
    // 12 requests of about 20,000 characters (240,000 in all), the middle of the span
    // holding an edit and a failing test run: the 200,000-character cut used to leave them
    // unread.
    let body = |k: usize| {
        format!(
            "request {k:02} about docs/part{k:02}.md: {}",
            "lorem ipsum ".repeat(1650)
        )
    };
    let mut span = Span::default();
    for k in 0..12 {
        span = span.user(&body(k));
        if k == 6 {
            span = span
                .tool(
                    "edit_file",
                    json!({"path": "src/middle.rs", "old": "a", "new": "b"}),
                    "edited",
                )
                .bash(
                    "cargo test -p middle",
                    "error[E0308]: mismatched types in src/middle.rs\n1 failed",
                );
        }
    }
    let t = span.transcript();
    let entries: Vec<Cow<Item>> = t.conversations[0].items.iter().map(Cow::Borrowed).collect();
    let chars: usize = crate::summarizer::render::render_entries(&entries, Outputs::Clipped)
        .iter()
        .map(|r| r.chars().count())
        .sum();
    assert!(chars > MAX_SAFE_CHARS);
    let text = summarize(&t, 3000, Scope::Span);
    assert!(!text.contains("[... ctxc:"), "{text}");
    assert!(text.contains("\"request 06 about docs/part06.md"), "{text}");
    assert_eq!(files(&text, "modified"), ["src/middle.rs"], "{text}");
    assert!(
        text.contains("`error[E0308]: mismatched types in src/middle.rs`"),
        "{text}"
    );
    assert!(
        commands(&text).contains(
            &"`cargo test -p middle` → failed: error[E0308]: mismatched types in src/middle.rs"
        ),
        "{text}"
    );
}

#[test]
fn the_errors_section_is_never_pushed_out_by_requests_or_commands() {
    // Long requests and a hundred commands, one of which failed, in a small budget.
    let mut span = Span::default();
    for k in 0..8 {
        span = span.user(&format!(
            "request {k}: {}",
            "please look at this part ".repeat(20)
        ));
    }
    for k in 0..100 {
        span = span.bash(&format!("ls /srv/data/shard_{k:03}/incoming"), "ok");
    }
    span = span.bash("make deploy", "Exit code 2\nmake: *** [deploy] Error 2");
    for budget in [300, 500, 1000] {
        let text = span.summary_within(budget, Scope::Span);
        let errors = list(&text, "Errors (failed calls) and what followed:");
        assert!(
            errors
                .iter()
                .any(|l| l.contains("make: *** [deploy] Error 2")),
            "at {budget}:\n{text}"
        );
    }
}

#[test]
fn a_request_sent_twice_or_quoted_by_an_earlier_summary_is_listed_once() {
    let text = Span::default()
        .user("Port the parser to nom 8")
        .bash("cargo build", "ok")
        .user("port the parser  to nom 8\n")
        .user("Then bench it")
        .summary();
    assert_eq!(
        list(&text, "User requests, oldest first:"),
        ["\"Port the parser to nom 8\"", "\"Then bench it\""],
        "{text}"
    );
    // Summarizing that summary with the request again: still once.
    let again = Span::default()
        .user(&format!("{SUMMARY_MARKER}\n{text}"))
        .user("Port the parser to nom 8")
        .summary();
    assert_eq!(
        list(&again, "User requests, oldest first:"),
        ["\"Port the parser to nom 8\"", "\"Then bench it\""],
        "{again}"
    );
}

#[test]
fn the_index_lists_each_files_actions_in_order_and_a_removed_file_as_deleted() {
    let text = Span::default()
        .user("Try a scratch module")
        .tool(
            "write_file",
            json!({"path": "src/scratch.rs", "content": "fn a() {}"}),
            "written",
        )
        .tool(
            "edit_file",
            json!({"path": "src/scratch.rs", "old": "a", "new": "b"}),
            "edited",
        )
        .tool(
            "edit_file",
            json!({"path": "src/scratch.rs", "old": "b", "new": "c"}),
            "edited",
        )
        .tool("read_file", json!({"path": "src/scratch.rs"}), "fn c() {}")
        .bash("rm src/scratch.rs", "")
        .summary();
    let files = list(&text, artifacts::FILES_TITLE);
    assert!(
        files.contains(&"created, modified ×2, read, deleted: src/scratch.rs"),
        "{text}"
    );
}

#[test]
fn the_same_span_gives_the_same_text() {
    let t = everything().transcript();
    let text = summarize(&t, 1000, Scope::Span);
    for _ in 0..3 {
        assert_eq!(summarize(&t, 1000, Scope::Span), text);
        assert_eq!(everything().summary(), text);
    }
    let t = many_reads().transcript();
    assert_eq!(
        summarize(&t, 300, Scope::Span),
        summarize(&t, 300, Scope::Span)
    );
}

// ----- Real sessions' shapes -----

/// Claude Code records, one per line, chained.
fn claude_code(records: &[Value]) -> Transcript {
    let mut parent = Value::Null;
    let lines: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut r = r.clone();
            r["uuid"] = json!(format!("r{i}"));
            r["parentUuid"] = parent.clone();
            parent = json!(format!("r{i}"));
            r.to_string()
        })
        .collect();
    read(lines.join("\n") + "\n", &ReadOptions::default()).unwrap()
}

fn user_record(content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

fn assistant_record(id: &str, content: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "id": id, "content": content}})
}

#[test]
fn what_a_hook_injected_is_carried_without_its_wrapper_and_a_caveat_is_not() {
    let mut hook = user_record(json!(
        "<system-reminder>\nPostToolUse:Edit hook additional context: [COMPILE ERROR] lib/a.ex:12: undefined function foo/1\n</system-reminder>"
    ));
    hook["isMeta"] = json!(true);
    let mut caveat = user_record(json!(
        "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>"
    ));
    caveat["isMeta"] = json!(true);
    let t = claude_code(&[
        user_record(json!("Add foo to lib/a.ex")),
        caveat,
        assistant_record(
            "m1",
            json!([{"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/repo/lib/a.ex", "old_string": "a", "new_string": "foo(1)"}}]),
        ),
        user_record(json!([{"type": "tool_result", "tool_use_id": "t1", "content": "edited"}])),
        hook,
        assistant_record(
            "m2",
            json!([{"type": "text", "text": "Defining foo/1 next."}]),
        ),
    ]);
    let text = summarize(&t, 1000, Scope::Span);
    assert_eq!(
        list(
            &text,
            "Injected by the client (hook output, skill and command bodies):"
        ),
        [
            "\"PostToolUse:Edit hook additional context: [COMPILE ERROR] lib/a.ex:12: undefined function foo/1\""
        ],
        "{text}"
    );
    assert!(!crate::facts::clean::has_client_markup(&text), "{text}");
    assert!(!text.contains("Caveat"), "{text}");
}

#[test]
fn a_request_an_earlier_compaction_summary_states_as_the_task_is_listed_once() {
    let summary = "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n1. Primary Request and Intent:\n   Port the parser to nom 8.\n\n2. Key Technical Concepts:\n   - nom";
    let mut compact = user_record(json!(summary));
    compact["isCompactSummary"] = json!(true);
    let t = claude_code(&[
        compact,
        user_record(json!("Port the parser to nom 8.")),
        assistant_record("m1", json!([{"type": "text", "text": "On it."}])),
    ]);
    let text = summarize(&t, 1000, Scope::Span);
    assert_eq!(
        list(&text, "User requests, oldest first:"),
        ["Task (from an earlier compaction summary): \"Port the parser to nom 8.\""],
        "{text}"
    );
}

#[test]
fn an_earlier_compaction_summary_gives_the_task_and_wrappers_are_not_requests() {
    let summary = "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n1. Primary Request and Intent:\n   Implement the review token store.\n\n2. Key Technical Concepts:\n   - Phoenix";
    let mut compact = user_record(json!(summary));
    compact["isCompactSummary"] = json!(true);
    let t = claude_code(&[
        compact,
        user_record(json!(
            "<command-name>/mcp</command-name>\n<command-message>mcp</command-message>\n<command-args></command-args>"
        )),
        user_record(json!(
            "<local-command-stdout>\u{1b}[2mReconnected\u{1b}[22m</local-command-stdout>"
        )),
        user_record(json!([{"type": "text", "text": "[Request interrupted by user]"}])),
        assistant_record(
            "m1",
            json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/repo/lib/a.ex"}}]),
        ),
        user_record(
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "  1→ {:error, ErlangError}\n  2→ raise ArgumentError: bad"}]),
        ),
        assistant_record(
            "m2",
            json!([{"type": "text", "text": "Next I add the token store."}]),
        ),
    ]);
    let text = summarize(&t, 1000, Scope::Span);
    assert_eq!(
        list(&text, "User requests, oldest first:"),
        ["Task (from an earlier compaction summary): \"Implement the review token store.\""],
        "{text}"
    );
    assert!(!text.contains("Errors"), "{text}");
    assert!(!crate::facts::clean::has_client_markup(&text), "{text}");
    assert_eq!(
        list(&text, "Last assistant message of the span:"),
        ["\"Next I add the token store.\""]
    );
}

#[test]
fn a_span_of_client_commands_only_gets_a_stub() {
    let t = claude_code(&[
        user_record(json!(
            "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"
        )),
        user_record(json!(
            "<local-command-stdout>\u{1b}[2mCompacted (ctrl+o to see full summary)\u{1b}[22m</local-command-stdout>"
        )),
    ]);
    let text = summarize(&t, 1000, Scope::Span);
    assert_eq!(
        text,
        "Continuation summary of 2 earlier messages (records 1-2), by ctxc.\nNothing to carry over: only client commands, their output and notices (/compact)."
    );
}

#[test]
fn next_steps_are_never_empty_when_the_last_message_is_long() {
    let long = format!("Plan: {}", "step after step, ".repeat(400));
    let text = Span::default()
        .user("Go.")
        .assistant(&long)
        .summary_within(150, Scope::Span);
    let last = list(&text, "Last assistant message of the span:");
    assert_eq!(last.len(), 1, "{text}");
    // Cut to what the budget leaves rather than left out.
    assert!(
        last[0].starts_with("\"Plan: step after step") && last[0].ends_with(" …\""),
        "{text}"
    );
    assert!(counter().count(&text) <= 150, "{text}");
}

// ----- Reading each entry once -----

/// The landing search summarizes overlapping runs of one conversation with one memo: each
/// run's summary is the one it gets read afresh, whatever was summarized before it, with
/// rewritten entries (a cut output, an earlier summary) among the stored ones.
#[test]
fn summaries_sharing_a_memo_equal_summaries_read_afresh() {
    let t = everything().transcript();
    let items = &t.conversations[0].items;
    let n = items.len();
    let counter = counter();
    let ask = |entries: &[Cow<Item>], memo: Option<&EntryMemo>| {
        let request = SummaryRequest {
            entries,
            scope: Scope::Span,
            records: 0..entries.len(),
            max_tokens: 1000,
            counter: &counter,
            memo,
        };
        Extractive.summarize(&request).unwrap().text
    };
    let stored: Vec<Cow<Item>> = items.iter().map(Cow::Borrowed).collect();
    // The pytest output cut as trim-outputs cuts it, and the first four messages summarized.
    let failing = items
        .iter()
        .position(|i| i.text().contains("AssertionError"))
        .unwrap();
    let mut cut = items[failing].clone();
    cut.parts.retain(|p| p.kind != PartKind::ToolResult);
    cut.parts.push(crate::transcript::Part::new(
        PartKind::ToolResult,
        "E   AssertionError: 1 != 2\n[ctxc: 2 of 4 lines cut]",
    ));
    let mut earlier = Item::new(
        items[0].span.clone(),
        items[0].line,
        items[0].role,
        Kind::Summary,
    );
    earlier.parts.push(crate::transcript::Part::new(
        PartKind::Text,
        crate::plan::summary_content(&ask(&stored[..4], None)),
    ));
    let mut rewritten = vec![Cow::Owned(earlier)];
    rewritten.extend(stored[4..].iter().cloned());
    rewritten[failing - 3] = Cow::Owned(cut);

    let memo = EntryMemo::default();
    for entries in [
        &stored[..],
        &stored[..n / 2],
        &rewritten[..],
        &stored[2..],
        &rewritten[1..],
    ] {
        let afresh = ask(entries, None);
        assert_eq!(ask(entries, Some(&memo)), afresh);
        assert!(afresh.contains("AssertionError"), "{afresh}");
    }
    assert_ne!(ask(&rewritten, Some(&memo)), ask(&stored, Some(&memo)));
}

#[test]
fn the_errors_are_never_pushed_out_by_the_command_list() {
    // Eighty distinct commands make an index longer than the whole budget; one failed.
    let mut span = Span::default().user("Tidy the scripts.");
    for k in 0..80 {
        span = span.bash(
            &format!("./scripts/step_{k:02}.sh --verbose --retry 3"),
            "ok",
        );
    }
    let text = span
        .bash("make check", "error: the check of module seven failed")
        .bash("ls", "a b")
        .summary_within(300, Scope::Span);
    assert!(text.contains("Commands run, oldest first"), "{text}");
    assert_eq!(
        list(&text, "Errors (failed calls) and what followed:"),
        ["`error: the check of module seven failed` (from `make check`)"],
        "{text}"
    );
}
