//! The facts a resumed agent needs and compaction most often loses: file paths, shell
//! commands, error lines and user requests. The extractive summarizer writes them down; the
//! retention report checks how many survive.
//!
//! What counts (documented in the README):
//! - **paths**: file paths named in tool-call arguments (`file_path`, `path`, ... and any
//!   path-shaped argument text, patch headers included), user messages and assistant text.
//!   Paths that only appear inside tool outputs (a directory listing) are not facts.
//! - **commands**: the command of every shell-like tool call (`Bash`, `shell`,
//!   `exec_command`, ...), and the fenced action block that ends an assistant message answered
//!   by an observation (SWE-agent's text-based actions). A command is keyed by its first line.
//! - **errors**: error-looking lines of tool outputs and user-side observations (Python
//!   exceptions, `error:`, `FAILED`, `fatal:`, `panicked`, `No such file`, ...) and the first
//!   line of a result flagged `is_error`: at most the first three and the last two per message.
//! - **user requests**: every user message, keyed by its first 160 characters with whitespace
//!   collapsed.

use crate::transcript::{Item, Kind, PartKind};
use aho_corasick::AhoCorasick;
use regex::Regex;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::LazyLock;

/// Characters of a user request that identify it.
pub const REQUEST_KEY_CHARS: usize = 160;
/// Longest error line or command kept as a fact (longer ones are clipped).
pub const MAX_FACT_CHARS: usize = 240;

/// Facts of a span of items, each list in first-seen order without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// File paths.
    pub paths: Vec<String>,
    /// Shell commands (first line of each).
    pub commands: Vec<String>,
    /// Error lines.
    pub errors: Vec<String>,
    /// User requests (their keys).
    pub user_requests: Vec<String>,
}

impl Facts {
    /// Facts of `items` (only what reaches the model).
    pub fn of<'a>(items: impl IntoIterator<Item = &'a Item>) -> Facts {
        let items: Vec<&Item> = items.into_iter().filter(|i| i.in_context).collect();
        let mut facts = Collector::default();
        for (at, item) in items.iter().enumerate() {
            let answered = items
                .get(at + 1)
                .is_some_and(|next| matches!(next.kind, Kind::User | Kind::ToolResult));
            facts.add(item, answered);
        }
        facts.facts
    }
}

#[derive(Default)]
struct Collector {
    facts: Facts,
    seen: HashSet<(u8, String)>,
}

impl Collector {
    fn push(&mut self, list: u8, fact: String) {
        if fact.is_empty() || !self.seen.insert((list, fact.clone())) {
            return;
        }
        match list {
            0 => self.facts.paths.push(fact),
            1 => self.facts.commands.push(fact),
            2 => self.facts.errors.push(fact),
            _ => self.facts.user_requests.push(fact),
        }
    }

    fn add(&mut self, item: &Item, answered: bool) {
        match item.kind {
            Kind::User => {
                let text = item.text();
                self.push(3, request_key(&text));
                paths_in_text(&text).for_each(|p| self.push(0, p));
                error_lines(&text, false)
                    .into_iter()
                    .for_each(|e| self.push(2, e));
            }
            Kind::AssistantText | Kind::ToolCall => {
                for part in item.parts.iter().filter(|p| p.kind == PartKind::Text) {
                    paths_in_text(&part.text).for_each(|p| self.push(0, p));
                    if answered && !has_tool_parts(item) {
                        if let Some(action) = trailing_action(&part.text) {
                            self.push(1, command_key(&action));
                        }
                    }
                }
                for call in tool_calls(item) {
                    call.paths().into_iter().for_each(|p| self.push(0, p));
                    if let Some(command) = call.command() {
                        self.push(1, command_key(&command));
                    }
                }
            }
            Kind::ToolResult => {
                let text = tool_output(item);
                error_lines(&text, item.is_error)
                    .into_iter()
                    .for_each(|e| self.push(2, e));
            }
            _ => {}
        }
    }
}

/// Whether an item calls tools in its content (text-based actions have calls but no parts).
pub fn has_tool_parts(item: &Item) -> bool {
    item.parts.iter().any(|p| p.kind == PartKind::ToolName)
}

/// A tool call of an item: its name and parsed arguments.
#[derive(Debug, Clone)]
pub struct CallArgs {
    /// The tool's name.
    pub name: String,
    /// The arguments (a JSON string value when they are not JSON).
    pub args: Value,
}

/// The tool calls of `item` with their arguments.
pub fn tool_calls(item: &Item) -> Vec<CallArgs> {
    let names = item.parts.iter().filter(|p| p.kind == PartKind::ToolName);
    let args = item
        .parts
        .iter()
        .filter(|p| p.kind == PartKind::ToolArguments);
    names
        .zip(args)
        .map(|(name, args)| CallArgs {
            name: name.text.clone(),
            args: serde_json::from_str(&args.text)
                .unwrap_or_else(|_| Value::String(args.text.clone())),
        })
        .collect()
}

/// Argument keys that name a file.
const PATH_KEYS: [&str; 8] = [
    "file_path",
    "path",
    "notebook_path",
    "filename",
    "file",
    "target_file",
    "filepath",
    "relative_path",
];

impl CallArgs {
    /// Whether the tool runs shell commands.
    pub fn is_shell(&self) -> bool {
        let name = self.name.to_ascii_lowercase();
        [
            "bash",
            "shell",
            "exec",
            "terminal",
            "run_command",
            "execute_command",
        ]
        .iter()
        .any(|n| name.contains(n))
    }

    /// The shell command it runs, if it is a shell tool.
    pub fn command(&self) -> Option<String> {
        if !self.is_shell() {
            return None;
        }
        let value = ["command", "cmd", "script", "input"]
            .iter()
            .find_map(|k| self.args.get(k))
            .unwrap_or(&self.args);
        match value {
            Value::String(s) => Some(s.clone()),
            // Codex: ["bash", "-lc", "cargo test"].
            Value::Array(words) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                match words.as_slice() {
                    [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                        Some(script.to_string())
                    }
                    _ => Some(words.join(" ")),
                }
            }
            _ => None,
        }
    }

    /// File paths its arguments name.
    pub fn paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        if let Value::Object(map) = &self.args {
            for key in PATH_KEYS {
                if let Some(Value::String(p)) = map.get(key) {
                    paths.push(p.trim().to_string());
                }
            }
        }
        let mut strings = Vec::new();
        string_values(&self.args, &mut strings);
        for s in strings {
            if self.is_shell() || s.len() < 4000 {
                paths.extend(paths_in_text(s));
            }
            paths.extend(patch_paths(s));
        }
        paths
    }
}

/// What a tool call does to the files it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Creates the file.
    Create,
    /// Edits it.
    Modify,
    /// Deletes it.
    Delete,
    /// Reads or searches it.
    Read,
    /// Nothing known.
    None,
}

/// What `call` does to the files it names, judged by the tool name (and the `command` of
/// editor tools).
pub fn file_effect(call: &CallArgs) -> Effect {
    let name = call.name.to_ascii_lowercase();
    let command = call
        .args
        .get("command")
        .and_then(|c| c.as_str())
        .unwrap_or("");
    if name.contains("editor") || name.contains("str_replace") {
        return match command {
            "create" => Effect::Create,
            "view" => Effect::Read,
            "str_replace" | "insert" | "undo_edit" | "edit" => Effect::Modify,
            _ => Effect::Modify,
        };
    }
    match name.as_str() {
        "write" | "write_file" | "create_file" | "create" => Effect::Create,
        "edit" | "multiedit" | "notebookedit" | "edit_file" | "replace" | "apply_patch"
        | "insert" | "patch" => Effect::Modify,
        "delete" | "delete_file" | "remove_file" => Effect::Delete,
        "read" | "read_file" | "view" | "view_file" | "open" | "cat" | "glob" | "grep" | "ls"
        | "list_dir" | "find_file" | "search_file" | "notebookread" => Effect::Read,
        _ => Effect::None,
    }
}

/// Every string inside a JSON value.
pub fn string_values<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|v| string_values(v, out)),
        Value::Object(o) => o.values().for_each(|v| string_values(v, out)),
        _ => {}
    }
}

/// The text a tool result shows the model.
pub fn tool_output(item: &Item) -> String {
    let texts: Vec<&str> = item
        .parts
        .iter()
        .filter(|p| p.kind == PartKind::ToolResult)
        .map(|p| p.text.as_str())
        .collect();
    texts.join("\n")
}

/// `text` with runs of whitespace collapsed to one space, trimmed.
pub fn collapse_whitespace(text: &str) -> String {
    // Built in place: collecting the words first cost 16 bytes per word, several times the
    // text itself on large tool outputs, and set the peak memory of a compaction.
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The key of a user request: its first [`REQUEST_KEY_CHARS`] characters, whitespace collapsed.
pub fn request_key(text: &str) -> String {
    collapse_whitespace(text)
        .chars()
        .take(REQUEST_KEY_CHARS)
        .collect()
}

/// The key of a command: its first non-empty line, clipped.
pub fn command_key(command: &str) -> String {
    let line = command.lines().map(str::trim).find(|l| !l.is_empty());
    clip(line.unwrap_or(""), MAX_FACT_CHARS)
}

/// At most `max` characters of `text`.
pub fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

static PATH_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    // A run of path characters holding a slash; checked further below.
    Regex::new(r"(?:~/|\.\.?/|/)?[\w\-.@+]+(?:/[\w\-.@+]+)*/?").unwrap()
});

static EXTENSION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\.[A-Za-z0-9]{1,8}$").unwrap());

/// Path-shaped words of `text`: holding a slash, and either rooted (`/`, `./`, `../`, `~/`)
/// or ending in a file extension. URLs, dates and fractions are not paths.
pub fn paths_in_text(text: &str) -> impl Iterator<Item = String> + '_ {
    PATH_TOKEN.find_iter(text).filter_map(move |m| {
        let before = text[..m.start()].chars().next_back();
        let after = &text[m.end()..];
        let glued = before.is_some_and(|c| c.is_alphanumeric() || matches!(c, ':' | '/' | '.'));
        if !m.as_str().contains('/') || after.starts_with("://") || glued {
            return None;
        }
        let path = m.as_str().trim_end_matches(['.', ',']);
        let rooted = path.starts_with('/')
            || path.starts_with("./")
            || path.starts_with("../")
            || path.starts_with("~/");
        let has_letters = path.chars().any(|c| c.is_ascii_alphabetic());
        let parts = path.split('/').filter(|p| !p.is_empty()).count();
        let looks_like_file = EXTENSION.is_match(path) && !path.starts_with("//");
        ((rooted && parts >= 2 || looks_like_file) && has_letters && path.len() <= 200)
            .then(|| path.to_string())
    })
}

/// Files named by patch headers (`*** Update File: x`, `+++ b/x`, `diff --git a/x b/x`).
fn patch_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        for prefix in [
            "*** Update File: ",
            "*** Add File: ",
            "*** Delete File: ",
            "+++ b/",
            "--- a/",
        ] {
            if let Some(path) = line.strip_prefix(prefix) {
                paths.push(path.trim().to_string());
            }
        }
    }
    paths
}

/// Substrings that make a line an error line (case-sensitive on purpose: `Error` catches
/// `TypeError:`, lowercase `error` alone would catch prose).
const ERROR_NEEDLES: [&str; 14] = [
    "Error",
    "error:",
    "error[",
    "ERROR",
    "Exception",
    "Traceback",
    "FAILED",
    "FAIL:",
    "fatal:",
    "panicked",
    "No such file",
    "Permission denied",
    "command not found",
    "failed",
];

/// All [`ERROR_NEEDLES`] in one automaton: one pass over a text instead of one per needle
/// per line (fourteen `contains` per line made tool outputs of many short lines compact
/// several times slower than other text).
static ERROR_FINDER: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(ERROR_NEEDLES).expect("fixed needles"));

/// Whether a line reads as an error.
pub fn is_error_line(line: &str) -> bool {
    ERROR_FINDER.is_match(line)
}

/// The error lines of a tool output or observation: the first three and the last two, each
/// trimmed and clipped; with `flagged` (`is_error`), the first line counts even without a
/// telltale word. Lines shorter than 8 bytes once trimmed never count.
pub fn error_lines(text: &str, flagged: bool) -> Vec<String> {
    let mut errors: Vec<&str> = Vec::new();
    let mut searched = 0;
    // Only the lines holding a needle are looked at (needles never span lines).
    while let Some(m) = ERROR_FINDER.find(&text[searched..]) {
        let at = searched + m.start();
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = text[start..end].trim();
        if line.len() >= 8 {
            errors.push(line);
        }
        searched = (end + 1).min(text.len());
        if end == text.len() {
            break;
        }
    }
    if flagged && errors.is_empty() {
        errors.extend(text.lines().map(str::trim).find(|l| l.len() >= 8));
    }
    if errors.len() > 5 {
        errors.drain(3..errors.len() - 2);
    }
    errors
        .into_iter()
        .map(|l| clip(l, MAX_FACT_CHARS))
        .collect()
}

/// Phrases by which an assistant states a decision or a finding.
const DECISION_CUES: [&str; 14] = [
    "decided",
    "decision",
    "instead of",
    "root cause",
    "the issue is",
    "the problem is",
    "the bug is",
    "because ",
    "turns out",
    "i'll use",
    "we'll use",
    "i will use",
    "the fix is",
    "the solution",
];

/// Whether a text states a decision or a finding (the extractive summarizer keeps such
/// sentences; importance scores them up).
pub fn states_decision(text: &str) -> bool {
    let lower = text.to_lowercase();
    DECISION_CUES.iter().any(|cue| lower.contains(cue))
}

/// The command of a text-based agent action: the fenced block that ends the message.
pub fn trailing_action(text: &str) -> Option<String> {
    let trimmed = text.trim_end();
    let body = trimmed.strip_suffix("```")?;
    let open = body.rfind("```")?;
    let block = &body[open + 3..];
    // Skip the info string (```bash).
    let block = block.split_once('\n').map_or("", |(_, rest)| rest).trim();
    (!block.is_empty()).then(|| block.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ReadOptions, read};

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
}
