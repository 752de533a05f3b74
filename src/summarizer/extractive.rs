//! The default summarizer: offline, deterministic, free. It writes a continuation summary in
//! the five sections of the seed-002 prompt from the span itself — user requests (verbatim
//! when short), files created / modified / read with exact paths, commands run, errors and
//! what followed them, decisions, the latest task list, pins, stated preferences, git diff
//! statistics — within `summary_max_tokens`.
//!
//! When the facts do not all fit, lines are chosen by priority (user requests, pins, errors
//! and changed files first; files only read and decisions last), and each list says how many
//! of its lines were left out. Earlier ctxc summaries in the span are merged line by line, so
//! summarizing a summary loses nothing that still fits.

use super::render::{Outputs, entries_marker, fit_entries, render_entries};
use super::{Scope, Summarizer, Summary, SummaryRequest};
use crate::facts::{
    CallArgs, Effect, clip, collapse_whitespace, command_key, error_lines, file_effect,
    paths_in_text, tool_calls, tool_output,
};
use crate::transcript::{Item, Kind, PartKind, SUMMARY_MARKER};
use anyhow::Result;
use std::collections::{HashMap, HashSet};

/// The extractive summarizer.
pub struct Extractive;

impl Summarizer for Extractive {
    fn name(&self) -> &str {
        "extractive"
    }

    fn summarize(&self, request: &SummaryRequest) -> Result<Summary> {
        let rendered = render_entries(request.entries, Outputs::Clipped);
        let (head, tail, omitted_chars) = fit_entries(&rendered);
        let n = request.entries.len();
        let read: Vec<&Item> = request.entries[..head]
            .iter()
            .chain(&request.entries[n - tail..])
            .map(|e| e.as_ref())
            .collect();
        let mut notes = Notes::default();
        notes.gather(&read);
        let omitted = n - head - tail;
        let intro = intro(request, omitted, omitted_chars);
        let text = notes.write(&intro, request);
        Ok(Summary {
            text,
            ..Summary::default()
        })
    }
}

fn intro(request: &SummaryRequest, omitted: usize, omitted_chars: usize) -> String {
    let entries = request.entries;
    let messages = entries
        .iter()
        .filter(|e| e.kind != Kind::NonContext)
        .count();
    let first = entries.first().map_or(0, |e| e.line);
    let last = entries.last().map_or(0, |e| e.line);
    let what = match request.scope {
        Scope::Span => "earlier messages",
        Scope::Full => "messages (the whole conversation but what is kept verbatim)",
    };
    let mut intro = format!(
        "Continuation summary of {messages} {what} (source lines {first}-{last}), by ctxc."
    );
    if omitted > 0 {
        intro.push('\n');
        intro.push_str(&entries_marker(omitted, omitted_chars));
    }
    intro
}

/// The lists a summary is written from, each in order of first appearance.
#[derive(Default)]
struct Notes {
    lists: HashMap<List, Vec<String>>,
    seen: HashSet<(List, String)>,
    /// Git diff statistics, the latest seen.
    git: Option<String>,
}

/// The lists of a summary, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum List {
    Requests,
    Created,
    Modified,
    Deleted,
    Read,
    Mentioned,
    Commands,
    Errors,
    Decisions,
    Tasks,
    LastMessage,
    Pins,
    Preferences,
    Earlier,
}

impl List {
    const ALL: [List; 14] = [
        List::Requests,
        List::Created,
        List::Modified,
        List::Deleted,
        List::Read,
        List::Mentioned,
        List::Commands,
        List::Errors,
        List::Decisions,
        List::Tasks,
        List::LastMessage,
        List::Pins,
        List::Preferences,
        List::Earlier,
    ];

    fn title(self) -> &'static str {
        match self {
            List::Requests => "User requests, oldest first:",
            List::Created => "Files created:",
            List::Modified => "Files modified:",
            List::Deleted => "Files deleted:",
            List::Read => "Files read:",
            List::Mentioned => "Files mentioned:",
            List::Commands => "Commands run, oldest first:",
            List::Errors => "Errors and what followed:",
            List::Decisions => "Decisions and findings:",
            List::Tasks => "Open tasks (latest task list):",
            List::LastMessage => "Last assistant message of the span:",
            List::Pins => "Pinned:",
            List::Preferences => "User preferences and constraints:",
            List::Earlier => "Earlier summaries:",
        }
    }

    fn section(self) -> usize {
        match self {
            List::Requests => 1,
            List::Created
            | List::Modified
            | List::Deleted
            | List::Read
            | List::Mentioned
            | List::Commands => 2,
            List::Errors | List::Decisions => 3,
            List::Tasks | List::LastMessage => 4,
            List::Pins | List::Preferences | List::Earlier => 5,
        }
    }

    /// Which lines are kept first when the budget is short (higher first).
    fn priority(self) -> u32 {
        match self {
            List::Pins => 100,
            List::Requests => 90,
            List::Tasks => 85,
            List::Preferences => 80,
            List::Errors => 75,
            List::Modified | List::Created | List::Deleted => 70,
            List::Commands => 65,
            List::LastMessage => 60,
            List::Earlier => 55,
            List::Decisions => 45,
            List::Read => 40,
            List::Mentioned => 30,
        }
    }

    /// Whether the most recent lines of the list matter most (else the oldest).
    fn recent_first(self) -> bool {
        !matches!(self, List::Requests | List::Pins)
    }

    fn from_title(title: &str) -> Option<List> {
        List::ALL.into_iter().find(|l| l.title() == title)
    }
}

const SECTIONS: [&str; 5] = [
    "## 1. Task overview",
    "## 2. Current state",
    "## 3. Important discoveries",
    "## 4. Next steps",
    "## 5. Context to preserve",
];

/// Longest line written for prose (requests, decisions, messages).
const MAX_PROSE_CHARS: usize = 400;

impl Notes {
    fn add(&mut self, list: List, line: String) {
        let line = line.trim().to_string();
        if line.is_empty() || !self.seen.insert((list, line.clone())) {
            return;
        }
        self.lists.entry(list).or_default().push(line);
    }

    fn gather(&mut self, items: &[&Item]) {
        let mut pending_errors: Vec<String> = Vec::new();
        let mut last_tasks: Option<Vec<String>> = None;
        for item in items {
            match item.kind {
                Kind::User => self.user(item),
                Kind::AssistantText | Kind::ToolCall => {
                    let followed = self.assistant(item, &mut last_tasks);
                    if let Some(action) = followed {
                        for error in pending_errors.drain(..) {
                            self.add(List::Errors, format!("`{error}` → then: {action}"));
                        }
                    }
                }
                Kind::ToolResult => {
                    let output = tool_output(item);
                    for line in error_lines(&output, item.is_error) {
                        pending_errors.push(line);
                    }
                    if let Some(stat) = git_stat(&output) {
                        self.git = Some(stat);
                    }
                }
                Kind::Summary => self.earlier_summary(item),
                _ => {}
            }
        }
        for error in pending_errors {
            self.add(List::Errors, format!("`{error}`"));
        }
        if let Some(tasks) = last_tasks {
            self.lists.remove(&List::Tasks);
            tasks.into_iter().for_each(|t| self.add(List::Tasks, t));
        }
    }

    fn user(&mut self, item: &Item) {
        let text = item.text();
        if text.trim().is_empty() {
            return;
        }
        self.add(List::Requests, quote_prose(&text));
        for path in paths_in_text(&text) {
            self.add(List::Mentioned, path);
        }
        for pin in pins(&text) {
            self.add(List::Pins, pin);
        }
        for sentence in sentences(&text).filter(|s| is_preference(s)) {
            self.add(List::Preferences, quote_prose(sentence));
        }
        for line in error_lines(&text, false) {
            self.add(List::Errors, format!("`{line}` (reported by the user)"));
        }
    }

    /// Notes an assistant message; returns a short description of the state-changing action
    /// it takes, if any (what followed an error).
    fn assistant(&mut self, item: &Item, tasks: &mut Option<Vec<String>>) -> Option<String> {
        let texts: Vec<&str> = item
            .parts
            .iter()
            .filter(|p| p.kind == PartKind::Text)
            .map(|p| p.text.as_str())
            .collect();
        let text = texts.join("\n");
        if !text.trim().is_empty() {
            self.lists.remove(&List::LastMessage);
            self.seen.retain(|(l, _)| *l != List::LastMessage);
            self.add(List::LastMessage, quote_prose(&text));
            for sentence in sentences(&text).filter(|s| crate::facts::states_decision(s)) {
                self.add(List::Decisions, quote_prose(sentence));
            }
            for path in paths_in_text(&text) {
                self.add(List::Mentioned, path);
            }
            if !crate::facts::has_tool_parts(item) {
                if let Some(action) = crate::facts::trailing_action(&text) {
                    self.add(List::Commands, format!("`{}`", command_key(&action)));
                }
            }
        }
        let mut action = None;
        for call in tool_calls(item) {
            if let Some(list) = todo_list(&call) {
                *tasks = Some(list);
            }
            if let Some(described) = self.call(&call) {
                action = Some(described);
            }
        }
        action
    }

    /// Notes a tool call; returns its description when it changes state.
    fn call(&mut self, call: &CallArgs) -> Option<String> {
        let effect = file_effect(call);
        let patched = patch_effects(call);
        // A patch says per file what it does; its headers are not all modifications.
        let paths: Vec<String> = call
            .paths()
            .into_iter()
            .filter(|p| !patched.iter().any(|(q, _)| q == p))
            .collect();
        for path in &paths {
            let list = match effect {
                Effect::Create => List::Created,
                Effect::Modify => List::Modified,
                Effect::Delete => List::Deleted,
                Effect::Read => List::Read,
                Effect::None => List::Mentioned,
            };
            self.add(list, path.clone());
        }
        for (path, list) in patched {
            self.add(list, path);
        }
        if let Some(command) = call.command() {
            let key = command_key(&command);
            let more = if command.trim().lines().nth(1).is_some() {
                " …"
            } else {
                ""
            };
            self.add(List::Commands, format!("`{key}`{more}"));
            return Some(format!("ran `{key}`"));
        }
        match effect {
            Effect::Create | Effect::Modify | Effect::Delete => Some(format!(
                "{} {}",
                call.name,
                paths.first().map_or("", String::as_str)
            )),
            _ => None,
        }
    }

    /// Merges an earlier summary: ctxc's line by line, others as clipped text.
    fn earlier_summary(&mut self, item: &Item) {
        let text = item.text();
        let Some(body) = text.strip_prefix(SUMMARY_MARKER) else {
            self.add(List::Earlier, quote_prose(&text));
            return;
        };
        let mut list = None;
        for line in body.lines() {
            let line = line.trim_end();
            if let Some(found) = List::from_title(line.trim()) {
                list = Some(found);
            } else if line.starts_with("## ") || line.is_empty() {
                list = None;
            } else if let (Some(l), Some(entry)) = (list, line.strip_prefix("- ")) {
                if !entry.starts_with('(') || !entry.ends_with("not shown)") {
                    self.add(l, entry.to_string());
                }
            } else if let Some(git) = line.strip_prefix("Git: ") {
                self.git = Some(git.to_string());
            }
        }
    }

    /// Writes the summary within the request's token budget.
    fn write(&self, intro: &str, request: &SummaryRequest) -> String {
        let counter = request.counter;
        let mut budget = request.max_tokens.saturating_sub(counter.count(intro) + 16);
        for header in SECTIONS {
            budget = budget.saturating_sub(counter.count(header) + 1);
        }
        let git_line = self.git.as_ref().map(|g| format!("Git: {g}"));
        if let Some(git) = &git_line {
            budget = budget.saturating_sub(counter.count(git) + 1);
        }
        let chosen = self.choose(budget, counter);
        let mut out = intro.to_string();
        for (s, header) in SECTIONS.iter().enumerate() {
            out.push_str("\n\n");
            out.push_str(header);
            let mut wrote = false;
            for list in List::ALL.into_iter().filter(|l| l.section() == s + 1) {
                let all = self.lists.get(&list).map_or(&[][..], Vec::as_slice);
                let kept: Vec<&String> = all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| chosen.contains(&(list, *i)))
                    .map(|(_, l)| l)
                    .collect();
                if all.is_empty() {
                    continue;
                }
                wrote = true;
                out.push('\n');
                out.push_str(list.title());
                for line in &kept {
                    out.push_str("\n- ");
                    out.push_str(line);
                }
                if kept.len() < all.len() {
                    out.push_str(&format!("\n- ({} more not shown)", all.len() - kept.len()));
                }
            }
            if s == 4 {
                if let Some(git) = &git_line {
                    out.push('\n');
                    out.push_str(git);
                    wrote = true;
                }
            }
            if !wrote {
                // An empty section costs tokens and says nothing: leave its header out.
                out.truncate(out.len() - header.len() - 2);
            }
        }
        out
    }

    /// The (list, index) of every line that fits in `budget` tokens, by priority.
    fn choose(
        &self,
        budget: usize,
        counter: &crate::tokens::TokenCounter,
    ) -> HashSet<(List, usize)> {
        let mut candidates: Vec<(u32, usize, List, usize, usize)> = Vec::new();
        for (&list, lines) in &self.lists {
            let n = lines.len();
            for (i, line) in lines.iter().enumerate() {
                // Within a list, the end that matters most goes first.
                let rank = if list.recent_first() { n - 1 - i } else { i };
                let cost = counter.count(line) + 2;
                candidates.push((list.priority(), rank, list, i, cost));
            }
        }
        candidates.sort_by_key(|&(priority, rank, list, i, _)| {
            (std::cmp::Reverse(priority), rank, list, i)
        });
        let titles: usize = self
            .lists
            .keys()
            .map(|l| counter.count(l.title()) + 8)
            .sum();
        let mut left = budget.saturating_sub(titles);
        let mut chosen = HashSet::new();
        for (_, _, list, i, cost) in candidates {
            if cost <= left {
                left -= cost;
                chosen.insert((list, i));
            }
        }
        chosen
    }
}

/// Files a patch (Codex `apply_patch`, unified diffs) adds, updates or deletes.
fn patch_effects(call: &CallArgs) -> Vec<(String, List)> {
    let mut strings = Vec::new();
    crate::facts::string_values(&call.args, &mut strings);
    let mut found = Vec::new();
    for line in strings.iter().flat_map(|s| s.lines()) {
        let line = line.trim();
        for (prefix, list) in [
            ("*** Add File: ", List::Created),
            ("*** Update File: ", List::Modified),
            ("*** Delete File: ", List::Deleted),
        ] {
            if let Some(path) = line.strip_prefix(prefix) {
                found.push((path.trim().to_string(), list));
            }
        }
    }
    found
}

/// The open items of a task-list tool call (`TodoWrite`, `update_plan`, ...), or `None` when
/// the call is not one.
fn todo_list(call: &CallArgs) -> Option<Vec<String>> {
    let name = call.name.to_ascii_lowercase();
    if !(name.contains("todo") || name.contains("plan") && name.contains("update")) {
        return None;
    }
    let items = call
        .args
        .get("todos")
        .or_else(|| call.args.get("plan"))?
        .as_array()?;
    let mut open = Vec::new();
    let mut done = 0;
    for entry in items {
        let status = entry
            .get("status")
            .and_then(|s| s.as_str())
            .unwrap_or("pending");
        let text = ["content", "step", "task", "title", "description"]
            .iter()
            .find_map(|k| entry.get(k).and_then(|v| v.as_str()))
            .unwrap_or("");
        if status == "completed" || status == "done" {
            done += 1;
        } else if !text.is_empty() {
            open.push(format!("[{status}] {}", clip(text, MAX_PROSE_CHARS)));
        }
    }
    if done > 0 {
        open.push(format!("({done} completed)"));
    }
    Some(open)
}

/// `N files changed, X insertions(+), Y deletions(-)` from a `git diff --stat` output.
fn git_stat(output: &str) -> Option<String> {
    output
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| {
            (l.contains("file changed") || l.contains("files changed"))
                && (l.contains("insertion") || l.contains("deletion"))
        })
        .map(|l| clip(l, 200))
}

/// `<Pin>...</Pin>` contents.
fn pins(text: &str) -> Vec<String> {
    let mut pins = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<Pin>") {
        let after = &rest[start + 5..];
        let end = after.find("</Pin>").unwrap_or(after.len());
        pins.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    pins
}

/// Prose for a bullet: whitespace collapsed; verbatim up to [`MAX_PROSE_CHARS`], else its
/// start and end around an ellipsis.
fn quote_prose(text: &str) -> String {
    let flat = collapse_whitespace(text);
    let chars = flat.chars().count();
    if chars <= MAX_PROSE_CHARS {
        return format!("\"{flat}\"");
    }
    let head = clip(&flat, 300);
    let tail: String = flat.chars().skip(chars - 80).collect();
    format!("\"{head} […] {tail}\"")
}

/// The sentences of a text (split after `.`, `!`, `?` and at line ends).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| s.len() > 12)
}

fn is_preference(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    [
        "prefer",
        "always ",
        "never ",
        "don't",
        "do not",
        "please use",
        "make sure",
        "must ",
        "should not",
        "avoid ",
    ]
    .iter()
    .any(|cue| lower.contains(cue))
}

#[cfg(test)]
mod tests;
