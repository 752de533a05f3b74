//! The facts a resumed agent needs and compaction most often loses: file paths, shell
//! commands, error lines and user requests. The extractive summarizer writes them down; the
//! retention report checks how many survive.
//!
//! What counts (documented in docs/measuring.md, "What retention counts"):
//! - **paths**: files the session touched — the path arguments of tool calls (`file_path`,
//!   `path`, ...), patch headers, path-shaped words of shell commands — and paths named in
//!   user requests. Devices (`/dev/null`), interpreters (`/usr/bin/env`) and URL paths are not
//!   files; paths inside file contents, tool outputs or assistant prose are not facts.
//! - **commands**: the command of every shell-like tool call (`Bash`, `shell`,
//!   `exec_command`, ...), and the action a text-based agent (SWE-agent) writes at the end of
//!   a message the harness answered — a command block, or an XML function call — as its adapter
//!   reads it ([`Item::text_call`]). A command is keyed by its first line.
//! - **errors**: the error lines of failed tool calls ([`result_errors`]): error-shaped lines
//!   (`error:`, `Traceback`, `FooError: ...`, `fatal:`, `panicked at`, `N failed`, ...) of
//!   command output, and the message of a call flagged `is_error` or ended with a non-zero
//!   exit; never lines of what a read-like tool (`Read`, `grep`, `cat`, ...) returned when it
//!   succeeded. Errors quoted in user requests count too. At most the first three and the last
//!   two per message.
//! - **user requests**: every user message the user wrote ([`request_text`]: client wrappers,
//!   slash commands, interruptions and injected notices are not requests), keyed by its first
//!   160 characters with whitespace collapsed.
//!
//! All text is read through [`clean::clean`]: no ANSI escapes, no client wrapper tags.

pub mod actions;
pub mod clean;
pub mod pattern;
pub mod prose;
pub mod removed;
mod text;

pub use text::{
    clip, collapse_whitespace, head_chars, holds_ignoring_case, is_collapsed, tail_chars,
};

use crate::transcript::{Item, Kind, PartKind};
use aho_corasick::AhoCorasick;
use foldhash::{HashMap, HashSet};
use pattern::Pattern;
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;
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
        Facts::located(items).0
    }

    /// Facts of `items` with the source line each was first seen on (`ctxc eval` cites it):
    /// one list of lines per list of facts, in the same order (paths, commands, errors,
    /// user requests).
    pub fn located<'a>(items: impl IntoIterator<Item = &'a Item>) -> (Facts, [Vec<usize>; 4]) {
        let items: Vec<&Item> = items.into_iter().filter(|i| i.in_context).collect();
        let mut facts = Collector::default();
        let mut calls = CallIndex::default();
        for item in items {
            facts.line = item.line;
            facts.add(item, &mut calls);
        }
        (facts.facts, facts.lines)
    }
}

#[derive(Default)]
struct Collector {
    facts: Facts,
    seen: HashSet<(u8, String)>,
    /// The line of the item being read.
    line: usize,
    lines: [Vec<usize>; 4],
}

impl Collector {
    fn push(&mut self, list: u8, fact: String) {
        if fact.is_empty() || !self.seen.insert((list, fact.clone())) {
            return;
        }
        self.lines[usize::from(list.min(3))].push(self.line);
        match list {
            0 => self.facts.paths.push(fact),
            1 => self.facts.commands.push(fact),
            2 => self.facts.errors.push(fact),
            _ => self.facts.user_requests.push(fact),
        }
    }

    fn add(&mut self, item: &Item, calls: &mut CallIndex) {
        match item.kind {
            Kind::User => {
                let Some(text) = request_text(item) else {
                    return;
                };
                self.push(3, request_key(&text));
                paths_in_text(&text).for_each(|p| self.push(0, p));
                reported_errors(&text)
                    .into_iter()
                    .for_each(|e| self.push(2, e));
            }
            Kind::AssistantText | Kind::ToolCall => {
                // Parsed once, for the facts and the index.
                let parsed = tool_calls(item);
                for call in &parsed {
                    call.paths().into_iter().for_each(|p| self.push(0, p));
                    if let Some(command) = call.command() {
                        self.push(1, command_key(&command));
                    }
                }
                calls.note(item, parsed);
            }
            Kind::ToolResult => {
                let answered: Vec<&CallArgs> = calls.answered_by(item);
                result_errors(item, &answered)
                    .into_iter()
                    .for_each(|e| self.push(2, e));
            }
            _ => {}
        }
    }
}

/// The tool calls seen so far by id, to know what a result answers.
#[derive(Default)]
pub struct CallIndex {
    calls: HashMap<String, CallArgs>,
}

impl CallIndex {
    /// Notes the calls of an assistant item, `parsed` its [`tool_calls`] (a text-based
    /// agent's action is its one call).
    pub fn note(&mut self, item: &Item, parsed: Vec<CallArgs>) {
        for (call, args) in item.calls.iter().zip(parsed) {
            self.calls.insert(call.id.clone(), args);
        }
    }

    /// The calls a tool result answers (those seen).
    pub fn answered_by(&self, item: &Item) -> Vec<&CallArgs> {
        item.results
            .iter()
            .filter_map(|id| self.calls.get(id))
            .collect()
    }
}

/// The words of a user message the user wrote, cleaned ([`clean::clean`]), or `None` when the
/// message is the client's: injected (`isMeta`), a slash command or its output, an
/// interruption notice, a caveat.
pub fn request_text(item: &Item) -> Option<String> {
    if item.kind != Kind::User || item.meta {
        return None;
    }
    let text = item.text();
    let cleaned = clean::clean(&text);
    (!clean::is_client_notice(&cleaned)).then(|| cleaned.trim().to_string())
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

/// The tool calls of `item` with their arguments: its tool-call parts, or the call a
/// text-based agent wrote in its text ([`Item::text_call`], which its adapter found).
pub fn tool_calls(item: &Item) -> Vec<CallArgs> {
    if let Some(call) = item.text_call.as_deref().filter(|_| !has_tool_parts(item)) {
        return vec![CallArgs {
            name: call.name.clone(),
            args: call.arguments.clone(),
        }];
    }
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

/// Words (in any case) in the name of a tool that runs shell commands.
pub const SHELL_TOOL_WORDS: [&str; 6] = [
    "bash",
    "shell",
    "exec",
    "terminal",
    "run_command",
    "execute_command",
];

/// For each byte, whether a [`SHELL_TOOL_WORDS`] word starts with it, in either case.
const SHELL_WORD_FIRST: [bool; 256] = {
    let mut table = [false; 256];
    let mut w = 0;
    while w < SHELL_TOOL_WORDS.len() {
        let first = SHELL_TOOL_WORDS[w].as_bytes()[0];
        table[first.to_ascii_lowercase() as usize] = true;
        table[first.to_ascii_uppercase() as usize] = true;
        w += 1;
    }
    table
};

impl CallArgs {
    /// Whether the tool runs shell commands: its name holds one of [`SHELL_TOOL_WORDS`].
    pub fn is_shell(&self) -> bool {
        // Compared in place, any case: lowering a copy and building a substring searcher per
        // word cost ~1,700 instructions a call, 1.5% of compacting the tau-bench file. A word
        // is compared only where the name has one of the words' first letters, looked up in a
        // table (comparing the first two letters with each word's was still 1.8% of a warm
        // in-process call): every call read asks this.
        let name = self.name.as_bytes();
        (0..name.len()).any(|at| {
            SHELL_WORD_FIRST[usize::from(name[at])]
                && SHELL_TOOL_WORDS.iter().any(|word| {
                    name[at..]
                        .get(..word.len())
                        .is_some_and(|w| w.eq_ignore_ascii_case(word.as_bytes()))
                })
        })
    }

    /// The shell command it runs, if it is a shell tool.
    pub fn command(&self) -> Option<String> {
        self.command_text().map(Cow::into_owned)
    }

    /// [`command`](Self::command), borrowed where the arguments hold it as it is: readers
    /// that only look at it need no copy.
    pub fn command_text(&self) -> Option<Cow<'_, str>> {
        if !self.is_shell() {
            return None;
        }
        let value = ["command", "cmd", "script", "input"]
            .iter()
            .find_map(|k| self.args.get(k))
            .unwrap_or(&self.args);
        match value {
            Value::String(s) => Some(Cow::Borrowed(s)),
            // Codex: ["bash", "-lc", "cargo test"].
            Value::Array(words) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                match words.as_slice() {
                    [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                        Some(Cow::Borrowed(*script))
                    }
                    _ => Some(Cow::Owned(words.join(" "))),
                }
            }
            _ => None,
        }
    }

    /// The files the call touches: its path arguments, patch headers, and the path-shaped
    /// words of a shell command — not paths inside file contents or prompts.
    pub fn paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        if let Value::Object(map) = &self.args {
            for key in PATH_KEYS {
                if let Some(Value::String(p)) = map.get(key) {
                    let p = p.trim();
                    if is_file_path(p) {
                        paths.push(p.to_string());
                    }
                }
            }
        }
        if let Some(command) = self.command_text() {
            paths.extend(paths_in_text(&command));
        } else if let Value::String(text) = &self.args {
            // Arguments that are not JSON: a free-form command line.
            paths.extend(paths_in_text(text));
        }
        let mut strings = Vec::new();
        string_values(&self.args, &mut strings);
        for s in strings {
            paths.extend(patch_paths(s));
        }
        paths
    }

    /// Whether the call only looks at files or lists (its output is file contents, not a
    /// report of what went wrong): file readers and searches, and shell commands made of
    /// `cat`, `grep`, `ls`, `sed -n`, `git show`, ...
    pub fn is_read_like(&self) -> bool {
        if file_effect(self) == Effect::Read {
            return true;
        }
        self.command_text().is_some_and(|c| is_read_command(&c))
    }
}

/// Programs whose output is what they read.
const READ_PROGRAMS: [&str; 22] = [
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "nl",
    "bat",
    "grep",
    "rg",
    "ag",
    "egrep",
    "fgrep",
    "ls",
    "tree",
    "find",
    "fd",
    "wc",
    "stat",
    "file",
    "jq",
    "open",
    "search_file",
];

/// Whether every step of a shell command reads (`cat a | grep b`, `cd x && sed -n 1,5p f`).
fn is_read_command(command: &str) -> bool {
    let steps = command
        .split(['|', ';', '\n'])
        .flat_map(|s| s.split("&&"))
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let mut any = false;
    for step in steps {
        let words: Vec<&str> = step.split_whitespace().collect();
        let Some(&program) = words.first() else {
            continue;
        };
        let program = program.rsplit('/').next().unwrap_or(program);
        let reads = READ_PROGRAMS.contains(&program)
            || matches!(
                program,
                "cd" | "echo" | "pwd" | "true" | "head" | "sort" | "uniq"
            )
            || program == "sed" && words.get(1) == Some(&"-n")
            || program == "git"
                && words.get(1).is_some_and(|w| {
                    matches!(*w, "show" | "log" | "diff" | "status" | "grep" | "blame")
                })
            || matches!(
                program,
                "search_dir" | "find_file" | "goto" | "scroll_up" | "scroll_down"
            );
        if !reads {
            return false;
        }
        any = true;
    }
    any
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
    // The name compared in place, any case: a lowercased copy per call was 1% of a warm
    // in-process call on the tau-bench runs (every call is asked, by several strategies).
    let name = call.name.as_str();
    let command = call
        .args
        .get("command")
        .and_then(|c| c.as_str())
        .unwrap_or("");
    if holds_ignoring_case(name, "editor") || holds_ignoring_case(name, "str_replace") {
        return match command {
            "create" => Effect::Create,
            "view" => Effect::Read,
            "str_replace" | "insert" | "undo_edit" | "edit" => Effect::Modify,
            _ => Effect::Modify,
        };
    }
    let is = |names: &[&str]| names.iter().any(|n| name.eq_ignore_ascii_case(n));
    if is(&["write", "write_file", "create_file", "create"]) {
        Effect::Create
    } else if is(&[
        "edit",
        "multiedit",
        "notebookedit",
        "edit_file",
        "replace",
        "apply_patch",
        "insert",
        "patch",
    ]) {
        Effect::Modify
    } else if is(&["delete", "delete_file", "remove_file"]) {
        Effect::Delete
    } else if is(&[
        "read",
        "read_file",
        "view",
        "view_file",
        "open",
        "cat",
        "glob",
        "grep",
        "ls",
        "list_dir",
        "find_file",
        "search_file",
        "notebookread",
    ]) {
        Effect::Read
    } else {
        Effect::None
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

/// The text a tool result shows the model: borrowed when the result has one part (the usual
/// case), so a large output is not copied just to be read.
pub fn tool_output(item: &Item) -> Cow<'_, str> {
    let mut texts = item
        .parts
        .iter()
        .filter(|p| p.kind == PartKind::ToolResult)
        .map(|p| p.text.as_str());
    let Some(first) = texts.next() else {
        return Cow::Borrowed("");
    };
    match texts.next() {
        None => Cow::Borrowed(first),
        Some(second) => {
            let mut joined = [first, second].join("\n");
            for text in texts {
                joined.push('\n');
                joined.push_str(text);
            }
            Cow::Owned(joined)
        }
    }
}

/// The key of a user request: its first [`REQUEST_KEY_CHARS`] characters, whitespace collapsed.
pub fn request_key(text: &str) -> String {
    // Only a start of the text is collapsed, longer until it gives enough characters: the
    // words of a prefix collapsed are a prefix of the whole text's, so the key is the same.
    let mut end = 0;
    loop {
        end = (end.max(REQUEST_KEY_CHARS) * 4).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let flat = collapse_whitespace(&text[..end]);
        let mut chars = flat.char_indices().map(|(at, _)| at);
        match chars.nth(REQUEST_KEY_CHARS) {
            Some(at) => return flat[..at].to_string(),
            None if end == text.len() => return flat,
            None => {}
        }
    }
}

/// The key of a command: its first non-empty line, clipped.
pub fn command_key(command: &str) -> String {
    let line = command.lines().map(str::trim).find(|l| !l.is_empty());
    clip(line.unwrap_or(""), MAX_FACT_CHARS)
}

/// A run of path characters holding a slash; checked further below.
static PATH_TOKEN: Pattern = Pattern::new(r"(?:~/|\.\.?/|/)?[\w\-.@+]+(?:/[\w\-.@+]+)*/?");

static EXTENSION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\.[A-Za-z0-9]{1,8}$").unwrap());

/// Path-shaped words of `text`: holding a slash, and either rooted (`/`, `./`, `../`, `~/`)
/// or ending in a file extension. URLs, dates, fractions, devices and interpreters are not
/// paths ([`is_file_path`]).
pub fn paths_in_text(text: &str) -> impl Iterator<Item = String> + '_ {
    // Every path holds a slash: a text without one is not searched.
    let searched = if text.contains('/') { text } else { "" };
    PATH_TOKEN.find_ranges(searched).filter_map(move |m| {
        let before = text[..m.start].chars().next_back();
        let after = &text[m.end..];
        let token = &text[m];
        let glued = before.is_some_and(|c| c.is_alphanumeric() || matches!(c, ':' | '/' | '.'));
        if !token.contains('/') || after.starts_with("://") || glued {
            return None;
        }
        let path = token.trim_end_matches(['.', ',']);
        let rooted = path.starts_with('/')
            || path.starts_with("./")
            || path.starts_with("../")
            || path.starts_with("~/");
        let has_letters = path.chars().any(|c| c.is_ascii_alphabetic());
        let parts = path.split('/').filter(|p| !p.is_empty()).count();
        let looks_like_file = EXTENSION.is_match(path) && !path.starts_with("//");
        ((rooted && parts >= 2 || looks_like_file)
            && has_letters
            && path.len() <= 200
            && is_file_path(path))
        .then(|| path.to_string())
    })
}

/// Directories whose entries are devices, kernel views or installed programs — never a file
/// the session works on (`/dev/null`, `/usr/bin/env`).
const SYSTEM_DIRS: [&str; 9] = [
    "/dev/",
    "/proc/",
    "/sys/",
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
];

/// Whether a path argument names a file of the session: not empty, not a URL, not a device or
/// an installed program.
pub fn is_file_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains("://")
        && !SYSTEM_DIRS
            .iter()
            .any(|d| path.starts_with(d) || path == d.trim_end_matches('/'))
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

/// The error lines of `text`, each trimmed, in order, none shorter than 8 bytes: only the
/// lines holding a needle are looked at (needles never span lines), so a text is searched in
/// one pass of the automaton rather than line by line.
pub fn error_lines_in(text: &str) -> impl Iterator<Item = &str> {
    let mut searched = 0;
    std::iter::from_fn(move || {
        while searched < text.len() {
            let m = ERROR_FINDER.find(&text[searched..])?;
            let at = searched + m.start();
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            searched = end + 1;
            let line = text[start..end].trim();
            if line.len() >= 8 {
                return Some(line);
            }
        }
        None
    })
}

/// The first `first` and the last `last` of `lines`, or all of them when there are no more
/// than that; only those are held, however long `lines` runs.
pub fn first_and_last<'a>(
    lines: impl Iterator<Item = &'a str>,
    first: usize,
    last: usize,
) -> Vec<&'a str> {
    let mut ends = Ends::new(first, last);
    lines.for_each(|l| ends.push(l));
    ends.lines()
}

/// The error lines of a tool output or observation: the first three and the last two, each
/// trimmed and clipped; with `flagged` (`is_error`), the first line counts even without a
/// telltale word. Lines shorter than 8 bytes once trimmed never count.
pub fn error_lines(text: &str, flagged: bool) -> Vec<String> {
    let mut errors = first_and_last(error_lines_in(text), ERRORS_FIRST, ERRORS_LAST);
    if flagged && errors.is_empty() {
        errors.extend(text.lines().map(str::trim).find(|l| l.len() >= 8));
    }
    errors
        .into_iter()
        .map(|l| clip(l, MAX_FACT_CHARS))
        .collect()
}

static ERROR_SHAPE: Pattern = Pattern::new(concat!(
    r"^(?:E\s+)?(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)$", // Python, JS, Java
    r"|(?:^|[\s(])(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): ",
    r"|^Traceback \(most recent call last\)",
    r"|^(?:[\w./-]+:\d+(?::\d+)?:? )?(?:error|ERROR|Error|fatal|FATAL)(?:\[\w+\])?:", // error[E0425]:, f.c:1:2: error:
    r"|^\*\* \(\w[\w.]*\)", // Elixir: ** (CompileError)
    r"|\berror TS\d+:",
    r"|panicked at",
    r"|^npm ERR!",
    r"|^(?:FAILED|FAIL:?|ERROR)\b",
    r"|: (?:No such file or directory|Permission denied|command not found)",
    r"|\b[1-9]\d* (?:failures?|failed|errors?)\b",
));

static EXIT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // Claude Code ("Exit code 1"), Codex ("Exit code: 1", "Process exited with code 1").
    Regex::new(r"^(?:Exit code:? |Process exited with code )(-?\d+)").unwrap()
});

/// Substrings of which every match of [`ERROR_SHAPE`] holds one (each of its alternatives
/// requires one of these words, in this case), so a line without any is not error-shaped.
const SHAPE_NEEDLES: [&str; 15] = [
    "Error",
    "Exception",
    "Traceback",
    "error",
    "ERROR",
    "fatal",
    "FATAL",
    "** (",
    "panicked at",
    "npm ERR!",
    "FAIL",
    "fail",
    "No such file or directory",
    "Permission denied",
    "command not found",
];

/// All [`SHAPE_NEEDLES`] in one automaton: most lines hold none and are passed over in one
/// linear scan. [`ERROR_SHAPE`] alone is slow on them: its Unicode word classes and
/// boundaries send long lines of non-ASCII text to the regex engine's slowest search (a
/// third of a 3 MB session's fact gathering went there).
static SHAPE_FINDER: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(SHAPE_NEEDLES).expect("fixed needles"));

/// Whether a line of command output has the shape of an error message (not merely the word).
pub fn is_error_shaped(line: &str) -> bool {
    let line = line.trim();
    SHAPE_FINDER.is_match(line) && ERROR_SHAPE.is_match(line)
}

/// The error lines of a tool result, given the calls it answers: error-shaped lines of a
/// command's output, and the message of a failed call (`is_error`, non-zero exit). What a
/// read-like call returned is file contents, not errors, unless the call failed. An empty
/// list when the call did not fail and printed no error.
pub fn result_errors(item: &Item, calls: &[&CallArgs]) -> Vec<String> {
    let output = tool_output(item);
    let output = clean::clean(&output);
    // Streamed, never collected: a list of every line costs 16 bytes a line, more than a
    // large output of short lines itself, and set the peak memory of a compaction.
    // ctxc's own markers (`[ctxc: 8 of 22 lines cut ...; 2 error lines kept]`) say what an
    // earlier step did, not what failed.
    let mut lines = output
        .lines()
        .map(str::trim)
        .filter(|l| l.len() >= 4 && !l.starts_with(crate::transcript::EDIT_MARKER))
        .peekable();
    let exit = lines
        .peek()
        .and_then(|l| EXIT_LINE.captures(l))
        .and_then(|c| c[1].parse::<i64>().ok());
    if exit.is_some() {
        lines.next();
    }
    let first = lines.peek().copied();
    let failed = item.is_error || exit.is_some_and(|code| code != 0);
    if item.is_error && first.is_some_and(|l| l.starts_with("The user doesn't want to")) {
        return Vec::new(); // A rejected call did not fail.
    }
    let read_like = !calls.is_empty() && calls.iter().all(|c| c.is_read_like());
    let runs_commands = calls.is_empty() || calls.iter().any(|c| c.is_shell());
    // What a reader printed is file contents; only its own complaints (`ls: cannot access
    // 'x': No such file or directory`) are errors.
    let prefixes: Vec<String> = if read_like {
        calls
            .iter()
            .filter_map(|c| c.command())
            .flat_map(|c| programs_of(&c))
            .map(|p| format!("{p}: "))
            .collect()
    } else {
        Vec::new()
    };
    let is_error = |l: &str| {
        if read_like {
            prefixes.iter().any(|p| l.starts_with(p.as_str())) && is_error_shaped(l)
        } else {
            // A file tool's or an agent's output is content unless the call failed.
            runs_commands && is_error_shaped(l)
        }
    };
    let mut errors = Ends::new(ERRORS_FIRST, ERRORS_LAST);
    let mut last = None;
    for line in lines {
        if is_error(line) {
            errors.push(line);
        }
        last = Some(line);
    }
    // A failed call without an error-shaped line: a command's verdict comes last (`5 tests,
    // 1 failure`), a tool's message first.
    if failed && errors.is_empty() && runs_commands && !read_like {
        errors.extend(last);
    } else if failed && errors.is_empty() && item.is_error {
        errors.extend(first);
    }
    errors.clipped()
}

/// The first word of every step of a shell command.
fn programs_of(command: &str) -> Vec<String> {
    command
        .split(['|', ';', '\n'])
        .flat_map(|s| s.split("&&"))
        .filter_map(|s| s.split_whitespace().next())
        .map(|w| w.rsplit('/').next().unwrap_or(w).to_string())
        .collect()
}

/// Error lines a user quotes in a request.
pub fn reported_errors(text: &str) -> Vec<String> {
    let mut errors = Ends::new(ERRORS_FIRST, ERRORS_LAST);
    text.lines()
        .map(str::trim)
        .filter(|l| l.len() >= 8 && is_error_shaped(l))
        .for_each(|l| errors.push(l));
    errors.clipped()
}

/// How many error lines of one text are kept: the first three and the last two.
const ERRORS_FIRST: usize = 3;
const ERRORS_LAST: usize = 2;

/// The first and the last few of a run of lines, kept as they stream by: all of them when
/// there are no more than that.
struct Ends<'a> {
    first: usize,
    last: usize,
    head: Vec<&'a str>,
    tail: std::collections::VecDeque<&'a str>,
}

impl<'a> Ends<'a> {
    fn new(first: usize, last: usize) -> Self {
        Ends {
            first,
            last,
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
        }
    }

    fn push(&mut self, line: &'a str) {
        if self.head.len() < self.first {
            self.head.push(line);
            return;
        }
        if self.last == 0 {
            return;
        }
        if self.tail.len() == self.last {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    fn extend(&mut self, line: Option<&'a str>) {
        line.into_iter().for_each(|l| self.push(l));
    }

    fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    /// The lines kept, in order.
    fn lines(self) -> Vec<&'a str> {
        self.head.into_iter().chain(self.tail).collect()
    }

    /// The lines kept, clipped.
    fn clipped(self) -> Vec<String> {
        self.lines()
            .into_iter()
            .map(|l| clip(l, MAX_FACT_CHARS))
            .collect()
    }
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

static DECISION_FINDER: LazyLock<Cues> = LazyLock::new(|| Cues::new(&DECISION_CUES));

/// Whether a text states a decision or a finding (the extractive summarizer keeps such
/// sentences; importance scores them up).
pub fn states_decision(text: &str) -> bool {
    DECISION_FINDER.in_lowercase_of(text)
}

/// Lowercase ASCII phrases looked for in a text's lowercase.
pub struct Cues {
    list: &'static [&'static str],
    /// The phrases in one automaton, ASCII case folded.
    finder: AhoCorasick,
}

impl Cues {
    /// The phrases of `list` (lowercase ASCII).
    pub fn new(list: &'static [&'static str]) -> Cues {
        debug_assert!(list.iter().all(|c| c.is_ascii() && c.to_lowercase() == *c));
        let finder = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(list)
            .expect("fixed phrases");
        Cues { list, finder }
    }

    /// Whether `text` lowercased holds one of the phrases. An ASCII text is searched once,
    /// case folded, without lowercasing it (the same answer: its lowercase is its ASCII
    /// lowercase); another is lowercased first, as some non-ASCII letters lowercase to
    /// ASCII ones (`K`, the Kelvin sign, to `k`).
    pub fn in_lowercase_of(&self, text: &str) -> bool {
        if text.is_ascii() {
            return self.finder.is_match(text);
        }
        let lower = text.to_lowercase();
        self.list.iter().any(|cue| lower.contains(cue))
    }
}

#[cfg(test)]
mod tests;
