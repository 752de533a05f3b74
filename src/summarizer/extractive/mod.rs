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

mod entry;

pub use entry::EntryMemo;

use super::artifacts::{self, ArtifactIndex};
use super::{Scope, Summarizer, Summary, SummaryRequest};
use crate::facts::clean::clean;
use crate::facts::{
    CallArgs, Cues, Effect, clip, collapse_whitespace, command_key, head_chars, request_text,
    tail_chars,
};
use crate::transcript::{Item, Kind};
use anyhow::Result;
use entry::{Call, Op};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The extractive summarizer.
pub struct Extractive;

impl Summarizer for Extractive {
    fn name(&self) -> &str {
        "extractive"
    }

    fn summarize(&self, request: &SummaryRequest) -> Result<Summary> {
        // The whole span is read, however long: an entry's notes are worked out once (the
        // memo) and folded in order, the running summary carried from one to the next as the
        // seeds' incremental summaries carry theirs from chunk to chunk. Nothing here is sent
        // anywhere, so the 200,000-character cut, which bounds what a model is sent, would
        // only leave the middle unread.
        let read: Vec<&Cow<Item>> = request.entries.iter().collect();
        if request.entries.iter().all(|e| is_client_noise(e)) {
            // Slash commands, their output, interruptions: a stub, not a summary of them.
            return Ok(Summary {
                text: stub(request),
                ..Summary::default()
            });
        }
        let mut notes = Notes::default();
        let fresh;
        let memo = match request.memo {
            Some(memo) => memo,
            None => {
                fresh = EntryMemo::default();
                &fresh
            }
        };
        notes.gather(&read, memo);
        let intro = intro(request);
        let text = notes.write(&intro, request);
        Ok(Summary {
            text,
            ..Summary::default()
        })
    }
}

/// Whether an entry is the client's alone: a user message that is no request (a slash
/// command, its output, an interruption, a caveat) and carries no injected prompt worth a
/// line (hook output, a skill body), or a record the model never sees.
fn is_client_noise(item: &Item) -> bool {
    match item.kind {
        Kind::User if item.meta => entry::injected_words(item).is_none(),
        Kind::User => request_text(item).is_none(),
        Kind::NonContext => true,
        _ => false,
    }
}

/// The text for a span of client records only: says so, and names the slash commands.
fn stub(request: &SummaryRequest) -> String {
    let mut commands: Vec<String> = Vec::new();
    for item in request.entries {
        let text = item.text();
        for part in text.split("<command-name>").skip(1) {
            let name = part.split("</command-name>").next().unwrap_or("").trim();
            if !name.is_empty() && !commands.iter().any(|c| c == name) {
                commands.push(clip(name, 40));
            }
        }
    }
    let mut out = intro(request);
    out.push_str("\nNothing to carry over: only client commands, their output and notices");
    if !commands.is_empty() {
        out.push_str(&format!(" ({})", commands.join(", ")));
    }
    out.push('.');
    out
}

fn intro(request: &SummaryRequest) -> String {
    let entries = request.entries;
    let messages = entries
        .iter()
        .filter(|e| e.kind != Kind::NonContext)
        .count();
    let (first, last) = (request.records.start + 1, request.records.end);
    let what = match request.scope {
        Scope::Span => "earlier messages",
        Scope::Full => "messages (the whole conversation but what is kept verbatim)",
    };
    format!("Continuation summary of {messages} {what} (records {first}-{last}), by ctxc.")
}

/// The lists a summary is written from, each in order of first appearance.
#[derive(Default)]
struct Notes {
    lists: HashMap<List, Vec<String>>,
    seen: HashSet<(List, String)>,
    /// Git diff statistics, the latest seen.
    git: Option<String>,
    /// Files touched and commands run.
    artifacts: ArtifactIndex,
}

/// The lists of a summary, in the order they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum List {
    Requests,
    Errors,
    Decisions,
    Tasks,
    LastMessage,
    Pins,
    Preferences,
    Injected,
    Earlier,
}

impl List {
    const ALL: [List; 9] = [
        List::Requests,
        List::Errors,
        List::Decisions,
        List::Tasks,
        List::LastMessage,
        List::Pins,
        List::Preferences,
        List::Injected,
        List::Earlier,
    ];

    fn title(self) -> &'static str {
        match self {
            List::Requests => "User requests, oldest first:",
            List::Errors => "Errors (failed calls) and what followed:",
            List::Decisions => "Decisions and findings:",
            List::Tasks => "Task list (latest state):",
            List::LastMessage => "Last assistant message of the span:",
            List::Pins => "Pinned:",
            List::Preferences => "User preferences and constraints:",
            List::Injected => "Injected by the client (hook output, skill and command bodies):",
            List::Earlier => "Earlier summaries:",
        }
    }

    fn section(self) -> usize {
        match self {
            List::Requests => 1,
            List::Errors | List::Decisions => 3,
            List::Tasks | List::LastMessage => 4,
            List::Pins | List::Preferences | List::Injected | List::Earlier => 5,
        }
    }

    /// Which lines are kept first when the budget is short (higher first).
    fn priority(self) -> u32 {
        match self {
            List::Pins => 100,
            List::Requests => 90,
            List::LastMessage => 88,
            List::Tasks => 85,
            List::Preferences => 80,
            // What a hook reported (a lint, a compile error) after an edit: worth a line
            // when there is room, after the agent's own findings.
            List::Injected => 40,
            List::Errors => 75,
            List::Earlier => 55,
            List::Decisions => 45,
        }
    }

    /// Whether the most recent lines of the list matter most (else the oldest).
    fn recent_first(self) -> bool {
        !matches!(self, List::Requests | List::Pins | List::Tasks)
    }

    fn from_title(title: &str) -> Option<List> {
        // Titles of earlier ctxc versions too, so their summaries still merge.
        match title {
            "Open tasks (latest task list):" => Some(List::Tasks),
            "Errors and what followed:" => Some(List::Errors),
            _ => List::ALL.into_iter().find(|l| l.title() == title),
        }
    }
}

/// What the lines under a title of an earlier ctxc summary are.
#[derive(Debug, Clone, Copy)]
enum Merged {
    List(List),
    /// The artifact index (files or commands, by its title).
    Index(&'static str),
    /// A file list of ctxc before the artifact index, by what was done to its files.
    OldFiles(Effect),
    /// The command list of ctxc before the artifact index.
    OldCommands,
}

impl Merged {
    fn of_title(title: &str) -> Option<Merged> {
        if let Some(list) = List::from_title(title) {
            return Some(Merged::List(list));
        }
        Some(match title {
            artifacts::FILES_TITLE => Merged::Index(artifacts::FILES_TITLE),
            artifacts::COMMANDS_TITLE => Merged::Index(artifacts::COMMANDS_TITLE),
            "Files created:" => Merged::OldFiles(Effect::Create),
            "Files modified:" => Merged::OldFiles(Effect::Modify),
            "Files deleted:" => Merged::OldFiles(Effect::Delete),
            "Files read:" => Merged::OldFiles(Effect::Read),
            "Files mentioned:" => Merged::OldFiles(Effect::None),
            "Commands run, oldest first:" => Merged::OldCommands,
            _ => return None,
        })
    }
}

const SECTIONS: [&str; 5] = [
    "## 1. Task overview",
    "## 2. Current state",
    "## 3. Important discoveries",
    "## 4. Next steps",
    "## 5. Context to preserve",
];

/// The share of a summary's budget the artifact index is sure of, in percent.
const INDEX_SHARE_PERCENT: usize = 95;

/// Tokens kept from the index for the last assistant message, so the next steps are never
/// empty (it is cut to what is left).
const LAST_MESSAGE_MIN: usize = 40;

/// Longest line written for prose (requests, decisions, messages).
const MAX_PROSE_CHARS: usize = 400;

impl Notes {
    fn add(&mut self, list: List, line: String) {
        self.push(list, clean(&line).trim());
    }

    /// Adds a cleaned line to `list`, unless it is empty or already there (a request by its
    /// words: the same request sent twice, or quoted again by an earlier summary, once).
    fn push(&mut self, list: List, line: &str) {
        let key = match list {
            List::Requests => request_words(line),
            _ => line.to_string(),
        };
        if matches!(line, "" | "\"\"" | "``") || !self.seen.insert((list, key)) {
            return;
        }
        self.lists.entry(list).or_default().push(line.to_string());
    }

    /// Folds the entries' notes ([`EntryNotes`]) into the lists, in order: failures are
    /// matched with the calls that followed them, the latest task list and last message win.
    fn gather(&mut self, entries: &[&Cow<Item>], memo: &EntryMemo) {
        let notes = memo.notes(entries.iter().copied());
        let mut calls: HashMap<&str, &CallArgs> = HashMap::new();
        let mut failures: Vec<Failure> = Vec::new();
        let mut last_tasks: Option<&Vec<String>> = None;
        let mut last_action: Option<&str> = None;
        for (item, notes) in entries.iter().zip(&notes) {
            for line in &notes.reported {
                failures.push(Failure::reported(line.clone()));
            }
            for call in &notes.calls {
                if let Some(id) = &call.id {
                    calls.insert(id, &call.args);
                }
                for failure in failures.iter_mut().filter(|f| f.followed.is_none()) {
                    if failure.is_followed_by(call) {
                        failure.followed = Some(call.described.clone());
                    }
                }
                last_action = Some(&call.described);
            }
            if notes.tasks.is_some() {
                last_tasks = notes.tasks.as_ref();
            }
            if item.kind == Kind::ToolResult {
                let answered: Vec<&CallArgs> = item
                    .results
                    .iter()
                    .filter_map(|id| calls.get(id.as_str()).copied())
                    .collect();
                let lines = notes.result_errors(item, &answered);
                if !lines.is_empty() {
                    // The index says which command failed, with its first error line.
                    if let Some(command) = answered.iter().find_map(|c| c.command()) {
                        self.artifacts
                            .command_failed(&command_key(&command), &lines[0]);
                    }
                    let paths = notes.output_paths(item);
                    failures.push(Failure::new(lines, answered.first().copied(), paths));
                }
            }
            self.replay(&notes.ops);
            if let Some(stat) = &notes.git {
                self.git = Some(stat.clone());
            }
        }
        for failure in failures {
            self.add(List::Errors, failure.line());
        }
        if let Some(tasks) = last_tasks {
            self.lists.remove(&List::Tasks);
            tasks.iter().for_each(|t| self.add(List::Tasks, t.clone()));
        }
        // A span of tool calls without prose still says where it stopped.
        if !self.lists.contains_key(&List::LastMessage) {
            if let Some(action) = last_action {
                self.add(
                    List::LastMessage,
                    format!("(no text) its last call: {action}"),
                );
            }
        }
    }

    /// Takes an entry's notes into the lists and the artifact index.
    fn replay(&mut self, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Add(list, line) => self.push(*list, line),
                Op::ClearLastMessage => {
                    self.lists.remove(&List::LastMessage);
                    self.seen.retain(|(l, _)| *l != List::LastMessage);
                }
                Op::File(path, effect) => self.artifacts.file(path, *effect),
                Op::Command(key, more) => self.artifacts.command(key, *more, 1),
                Op::MergeIndex(title, line) => self.artifacts.merge_line(title, line),
                Op::Git(stat) => self.git = Some(stat.clone()),
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
        // The artifact index is sure of a share of what the user's own words (requests,
        // pins), the errors (up to a third of the budget: what failed is never pushed out
        // by the command list) and a cut last message leave, and takes what the other
        // lists leave.
        let whole_index = counter.count(&self.artifacts.render(usize::MAX, counter)) + 1;
        let errors = self.cost(&[List::Errors], counter).min(budget / 3);
        let protected =
            self.cost(&[List::Requests, List::Pins], counter) + errors + LAST_MESSAGE_MIN;
        let reserve = whole_index.min(budget.saturating_sub(protected) * INDEX_SHARE_PERCENT / 100);
        let first = self.artifacts.render(reserve.saturating_sub(1), counter);
        // What the index could not use goes to the other lists.
        let used = if first.is_empty() {
            0
        } else {
            counter.count(&first) + 1
        };
        let (chosen, cut_message, left) = self.choose(budget - used, counter);
        let index = if left > 0 && used < whole_index {
            self.artifacts.render(used + left - 1, counter)
        } else {
            first
        };
        let mut out = intro.to_string();
        for (s, header) in SECTIONS.iter().enumerate() {
            out.push_str("\n\n");
            out.push_str(header);
            let mut wrote = false;
            if s == 1 && !index.is_empty() {
                out.push('\n');
                out.push_str(&index);
                wrote = true;
            }
            for list in List::ALL.into_iter().filter(|l| l.section() == s + 1) {
                let all = self.lists.get(&list).map_or(&[][..], Vec::as_slice);
                let kept: Vec<&str> = all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| chosen.contains(&(list, *i)))
                    .map(|(_, l)| match (&cut_message, list) {
                        (Some(cut), List::LastMessage) => cut.as_str(),
                        _ => l.as_str(),
                    })
                    .collect();
                // A list is shown with some of its lines or not at all: a bare count of
                // lines left out says nothing.
                if kept.is_empty() {
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

    /// What `lists` cost written whole, titles included.
    fn cost(&self, lists: &[List], counter: &crate::tokens::TokenCounter) -> usize {
        lists
            .iter()
            .filter_map(|list| Some((list, self.lists.get(list)?)))
            .map(|(list, lines)| {
                counter.count(list.title())
                    + 4
                    + lines.iter().map(|l| counter.count(l) + 2).sum::<usize>()
            })
            .sum()
    }

    /// The (list, index) of every line that fits in `budget` tokens, and the tokens left: pins and requests, then
    /// the line that matters most of every other list (its newest, or its first for the task
    /// list), by list priority, then the others. A list whose first line does not fit shows
    /// none. The last assistant message is cut to fit rather than left out (returned when
    /// cut), so the next steps are never empty.
    fn choose(
        &self,
        budget: usize,
        counter: &crate::tokens::TokenCounter,
    ) -> (HashSet<(List, usize)>, Option<String>, usize) {
        // Pins and requests first (whole lists), then the first line of every other list,
        // then the rest by priority.
        const FIRST_LINE_PRIORITY: u32 = 89;
        // The newest error before even the user's words: a span where something failed
        // always says so, whatever the requests and the index take.
        const FIRST_ERROR_PRIORITY: u32 = 95;
        let mut candidates: Vec<(u32, usize, List, usize)> = Vec::new();
        for (&list, lines) in &self.lists {
            let n = lines.len();
            for i in 0..n {
                let rank = if list.recent_first() { n - 1 - i } else { i };
                let priority = if rank == 0 && list == List::Errors {
                    FIRST_ERROR_PRIORITY
                } else if rank == 0 {
                    list.priority().max(FIRST_LINE_PRIORITY)
                } else {
                    list.priority()
                };
                candidates.push((priority, rank, list, i));
            }
        }
        candidates.sort_by_key(|&(priority, rank, list, i)| {
            // The last message before other first lines: the next steps are never empty.
            let later = list != List::LastMessage;
            (std::cmp::Reverse(priority), rank, later, list, i)
        });
        let mut left = budget;
        let mut chosen = HashSet::new();
        let mut shown: HashSet<List> = HashSet::new();
        let mut cut_message = None;
        for (_, rank, list, i) in candidates {
            if rank > 0 && !shown.contains(&list) {
                continue;
            }
            // A list's title is paid for with its first line.
            let title = if shown.contains(&list) {
                0
            } else {
                counter.count(list.title()) + 4
            };
            let line = &self.lists[&list][i];
            let cost = counter.count(line) + 2 + title;
            if cost <= left {
                left -= cost;
            } else if list == List::LastMessage && left >= title + 16 {
                let cut = cut_to_tokens(line, left - title - 6, counter);
                left = left.saturating_sub(counter.count(&cut) + 2 + title);
                cut_message = Some(cut);
            } else {
                continue;
            }
            chosen.insert((list, i));
            shown.insert(list);
        }
        (chosen, cut_message, left)
    }
}

/// A quoted line cut to about `tokens` tokens (at least a few words), ending in `…"`.
fn cut_to_tokens(line: &str, tokens: usize, counter: &crate::tokens::TokenCounter) -> String {
    let body = line.trim_matches('"');
    let mut chars = body.chars().count();
    loop {
        let cut = format!("\"{} …\"", head_chars(body, chars).trim_end());
        if chars <= 40 || counter.count(&cut) <= tokens {
            return cut;
        }
        chars = chars * 3 / 4;
    }
}

/// A call in a few words: `ran `cargo test``, `Edit src/main.rs`.
fn describe(call: &CallArgs) -> String {
    if let Some(command) = call.command() {
        return format!("ran `{}`", command_key(&command));
    }
    let paths = call.paths();
    match paths.first() {
        Some(path) => format!("{} {path}", call.name),
        None => call.name.clone(),
    }
}

/// A failed call: its error lines, what it was, and the next call that dealt with it.
struct Failure {
    lines: Vec<String>,
    /// Where it came from: `from `cargo test``, `reported by the user`.
    source: Option<String>,
    /// The program and subcommand it ran (`cargo test`, `mix compile`).
    program: Option<String>,
    /// Files it touched or its errors name.
    files: Vec<String>,
    /// The next call that re-ran the command or touched one of the files.
    followed: Option<String>,
}

impl Failure {
    /// A failure of `call` (the call a failed output answers, when known) whose output
    /// names `output_paths`.
    fn new(lines: Vec<String>, call: Option<&CallArgs>, output_paths: &[String]) -> Failure {
        let mut files: Vec<String> = call.map(CallArgs::paths).unwrap_or_default();
        // A compiler names the file of an error on the lines around it.
        files.extend(output_paths.iter().cloned());
        Failure {
            source: call.map(|c| match c.command() {
                Some(command) => format!("from `{}`", command_key(&command)),
                None => format!("from {}", describe(c)),
            }),
            program: call.and_then(CallArgs::command).and_then(|c| program(&c)),
            files,
            lines,
            followed: None,
        }
    }

    /// An error line a user quotes.
    fn reported(line: String) -> Failure {
        Failure {
            lines: vec![line],
            source: Some("reported by the user".into()),
            program: None,
            files: Vec::new(),
            followed: Some(String::new()),
        }
    }

    /// Whether `call` is what followed this failure: the same program run again, or a call
    /// on one of its files.
    fn is_followed_by(&self, call: &Call) -> bool {
        let same_program = self.program.is_some() && call.program == self.program;
        same_program
            || call
                .paths
                .iter()
                .any(|p| self.files.iter().any(|f| same_file(p, f)))
    }

    /// The summary line: the error lines verbatim, where they came from, what followed.
    fn line(&self) -> String {
        let quoted: Vec<String> = self.lines.iter().map(|l| format!("`{l}`")).collect();
        let mut line = quoted.join(" · ");
        if let Some(source) = &self.source {
            line.push_str(&format!(" ({source})"));
        }
        if let Some(followed) = self.followed.as_ref().filter(|f| !f.is_empty()) {
            line.push_str(&format!(" → then: {followed}"));
        }
        line
    }
}

/// Whether two paths name the same file, one possibly relative (`/repo/src/a.rs`, `src/a.rs`).
fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_start_matches("./"), b.trim_start_matches("./"));
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long == short || long.ends_with(&format!("/{short}"))
}

/// The program and subcommand of a command's last step, without `cd dir &&` and variable
/// assignments: `cd web && npm run build` → `npm run build`, `cargo test -p x` → `cargo test`.
fn program(command: &str) -> Option<String> {
    let first = command.lines().map(str::trim).find(|l| !l.is_empty())?;
    let step = first
        .split("&&")
        .map(str::trim)
        .filter(|s| !s.starts_with("cd ") && !s.is_empty())
        .last()?;
    let words: Vec<&str> = step
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .collect();
    let mut key: Vec<&str> = Vec::new();
    for word in words {
        if word.starts_with('-') || key.len() == 3 {
            break;
        }
        key.push(word);
        // `npm run build`, `python -m pytest`: the third word names what runs.
        if key.len() == 2 && !matches!(key[1], "run" | "exec" | "x") {
            break;
        }
    }
    (!key.is_empty()).then(|| key.join(" "))
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
    let mut done = Vec::new();
    for entry in items {
        let status = entry
            .get("status")
            .and_then(|s| s.as_str())
            .unwrap_or("pending");
        let text = ["content", "step", "task", "title", "description"]
            .iter()
            .find_map(|k| entry.get(k).and_then(|v| v.as_str()))
            .unwrap_or("");
        if text.is_empty() {
            continue;
        }
        let line = format!("[{status}] {}", head_chars(text, MAX_PROSE_CHARS));
        if status == "completed" || status == "done" {
            done.push(line);
        } else {
            open.push(line);
        }
    }
    // Open tasks first: they are the next steps; what is done follows.
    open.extend(done);
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

/// The task stated by a runtime's compaction summary: Claude Code's "Primary Request and
/// Intent" section, else the summary's first paragraph past its preamble.
fn task_statement(summary: &str) -> Option<String> {
    const PREAMBLE: &str = "This session is being continued from a previous conversation";
    if let Some(at) = summary.find("Primary Request and Intent") {
        let rest = &summary[at..];
        let body = rest.split_once(':').map_or("", |(_, b)| b);
        // Up to the next numbered section ("2. Key Technical Concepts:").
        let end = body
            .match_indices('\n')
            .map(|(i, _)| i)
            .find(|&i| {
                let next = body[i + 1..].trim_start();
                next.chars().next().is_some_and(|c| c.is_ascii_digit())
                    && next
                        .split_once(". ")
                        .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .unwrap_or(body.len());
        let task = body[..end].trim();
        return (!task.is_empty()).then(|| task.to_string());
    }
    summary
        .split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with(PREAMBLE) && !p.starts_with("Analysis:"))
        .map(str::to_string)
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

/// A request line's words, to know it again: without the mark of an earlier compaction
/// summary's task and the quotes, whitespace collapsed, in lowercase.
fn request_words(line: &str) -> String {
    let line = line.strip_prefix(EARLIER_TASK).unwrap_or(line);
    collapse_whitespace(line.trim().trim_matches('"')).to_lowercase()
}

/// How a task stated by a runtime's compaction summary starts its request line.
const EARLIER_TASK: &str = "Task (from an earlier compaction summary): ";

/// Prose for a bullet: whitespace collapsed; verbatim up to [`MAX_PROSE_CHARS`], else its
/// start and end around an ellipsis.
fn quote_prose(text: &str) -> String {
    // Pieces pushed, not `format!`: the formatting machinery cost more than the copies
    // (every summary of every landing probe quotes the requests again).
    let quoted = |pieces: &[&str]| {
        let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum::<usize>() + 2);
        out.push('"');
        pieces.iter().for_each(|p| out.push_str(p));
        out.push('"');
        out
    };
    let flat = collapse_whitespace(text);
    let chars = flat.chars().count();
    if chars <= MAX_PROSE_CHARS {
        return quoted(&[&flat]);
    }
    quoted(&[head_chars(&flat, 300), " […] ", tail_chars(&flat, 80)])
}

/// Phrases by which a user states a preference or a constraint.
const PREFERENCE_CUES: [&str; 10] = [
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
];

static PREFERENCE_FINDER: LazyLock<Cues> = LazyLock::new(|| Cues::new(&PREFERENCE_CUES));

fn is_preference(sentence: &str) -> bool {
    PREFERENCE_FINDER.in_lowercase_of(sentence)
}

#[cfg(test)]
mod tests;
