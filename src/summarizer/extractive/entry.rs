//! What one entry gives a summary, worked out once: its notes in the order the summary takes
//! them, its calls described, the errors a user reports in it, its output's facts. A summary
//! is then a fold of its entries' notes ([`super::Notes::gather`]).
//!
//! Finding those facts (sentences, decisions, paths, file actions) is most of a summary's
//! cost, and the landing search summarizes overlapping runs of the same conversation many
//! times over (DESIGN "How far"); an [`EntryMemo`] keeps each entry's facts for the whole
//! conversation, so each entry is read once however many summaries take it in.

use super::{List, Merged, describe, git_stat, pins, program, quote_prose, todo_list};
use super::{is_preference, task_statement};
use crate::facts::actions::file_actions;
use crate::facts::clean::clean;
use crate::facts::prose::{chooses, sentences};
use crate::facts::removed::removed_paths;
use crate::facts::{
    CallArgs, Effect, command_key, has_tool_parts, paths_in_text, reported_errors, request_text,
    result_errors, tool_calls, tool_output,
};
use crate::summarizer::artifacts;
use crate::transcript::{Item, Kind, PartKind, SUMMARY_MARKER};
use foldhash::HashMap;
use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

/// One note of an entry, in the order the summary takes it.
pub(super) enum Op {
    /// A line for a list, cleaned and trimmed.
    Add(List, String),
    /// A newer assistant message: the last one noted is no longer the last.
    ClearLastMessage,
    /// A file and what was done to it.
    File(String, Effect),
    /// A command run (its key), and whether it had more lines.
    Command(String, bool),
    /// A line of an earlier summary's artifact index, under its title.
    MergeIndex(&'static str, String),
    /// Git diff statistics.
    Git(String),
}

/// A tool call an assistant entry makes, with what following a failure needs of it.
pub(super) struct Call {
    /// The call.
    pub args: CallArgs,
    /// The id its results answer, when the entry names one.
    pub id: Option<String>,
    /// The call in a few words.
    pub described: String,
    /// The program and subcommand it runs.
    pub program: Option<String>,
    /// The files it names.
    pub paths: Vec<String>,
}

/// Everything an entry gives a summary.
#[derive(Default)]
pub(super) struct EntryNotes {
    /// Its notes, in order.
    pub ops: Vec<Op>,
    /// The calls it makes (assistant entries).
    pub calls: Vec<Call>,
    /// The task list its last task-list call sets, if it makes one.
    pub tasks: Option<Vec<String>>,
    /// Error lines a user quotes.
    pub reported: Vec<String>,
    /// Git diff statistics in a tool output.
    pub git: Option<String>,
    /// The files a tool output's text names (asked only of failed calls).
    output_paths: OnceCell<Vec<String>>,
    /// A tool output's error lines, by the calls it answers in the span (by address: they
    /// are notes of the same memo, which keeps them): each probe's summary asks again.
    errors: RefCell<Vec<(Vec<usize>, Vec<String>)>>,
}

impl EntryNotes {
    /// The facts of `item`.
    pub fn of(item: &Item) -> EntryNotes {
        let mut notes = EntryNotes::default();
        match item.kind {
            Kind::User if item.meta => notes.injected(item),
            Kind::User => {
                notes.user(item);
                let text = request_text(item).unwrap_or_default();
                notes.reported = reported_errors(&text);
            }
            Kind::AssistantText | Kind::ToolCall => notes.assistant(item),
            Kind::ToolResult => notes.git = git_stat(&tool_output(item)),
            Kind::Summary => notes.earlier_summary(item),
            _ => {}
        }
        notes
    }

    /// The files `item`'s output names (at most 50), where a compiler names the file of an
    /// error; `item` is the entry these notes are of.
    pub fn output_paths(&self, item: &Item) -> &[String] {
        self.output_paths.get_or_init(|| {
            let output = clean(&tool_output(item)).into_owned();
            paths_in_text(&output).take(50).collect()
        })
    }

    /// The error lines of the tool output `item` (the entry these notes are of) answering
    /// `answered` ([`result_errors`]), worked out once per set of calls answered.
    pub fn result_errors(&self, item: &Item, answered: &[&CallArgs]) -> Vec<String> {
        let key: Vec<usize> = answered
            .iter()
            .map(|c| std::ptr::from_ref(*c) as usize)
            .collect();
        if let Some((_, lines)) = self.errors.borrow().iter().find(|(k, _)| *k == key) {
            return lines.clone();
        }
        let lines = result_errors(item, answered);
        self.errors.borrow_mut().push((key, lines.clone()));
        lines
    }

    fn add(&mut self, list: List, line: String) {
        let line = clean(&line).trim().to_string();
        self.ops.push(Op::Add(list, line));
    }

    fn user(&mut self, item: &Item) {
        let Some(text) = request_text(item) else {
            return;
        };
        self.add(List::Requests, quote_prose(&text));
        for path in paths_in_text(&text) {
            self.ops.push(Op::File(path, Effect::None));
        }
        for pin in pins(&text) {
            self.add(List::Pins, pin);
        }
        // A sentence holds a cue only where the whole text does (its lowercase is part of
        // the text's): one search of the text spares a search a sentence in most messages.
        if is_preference(&text) {
            for sentence in sentences(&text).filter(|s| is_preference(s)) {
                self.add(List::Preferences, quote_prose(sentence));
            }
        }
    }

    /// Notes a prompt the client injected (Claude Code `isMeta`): its words without the
    /// wrapper tags cleaning would drop them with; the caveat about local commands says
    /// nothing.
    fn injected(&mut self, item: &Item) {
        if let Some(words) = injected_words(item) {
            self.add(List::Injected, quote_prose(&words));
        }
    }

    /// Notes an assistant message: its prose, decisions, and what its calls did.
    fn assistant(&mut self, item: &Item) {
        let text = item.prose();
        if !text.trim().is_empty() {
            self.ops.push(Op::ClearLastMessage);
            self.add(List::LastMessage, quote_prose(&text));
            let decides = |s: &str| crate::facts::states_decision(s) || chooses(s);
            // As for preferences: no sentence holds a cue the whole text does not.
            if decides(&text) {
                for sentence in sentences(&text).filter(|s| decides(s)) {
                    self.add(List::Decisions, quote_prose(sentence));
                }
            }
        }
        let ids = call_ids(item);
        for (n, args) in tool_calls(item).into_iter().enumerate() {
            if let Some(list) = todo_list(&args) {
                self.tasks = Some(list);
            }
            for (path, effect) in file_actions(&args) {
                self.ops.push(Op::File(path, effect));
            }
            for path in removed_paths(&args) {
                self.ops.push(Op::File(path, Effect::Delete));
            }
            let command = args.command();
            if let Some(command) = &command {
                let more = command.trim().lines().nth(1).is_some();
                self.ops.push(Op::Command(command_key(command), more));
            }
            self.calls.push(Call {
                id: ids.get(n).cloned(),
                described: describe(&args),
                program: command.as_deref().and_then(program),
                paths: args.paths(),
                args,
            });
        }
    }

    /// Merges an earlier summary: ctxc's line by line, others as clipped text.
    fn earlier_summary(&mut self, item: &Item) {
        let text = item.text();
        let Some(body) = text.strip_prefix(SUMMARY_MARKER) else {
            // A runtime's summary (Claude Code, Codex): its task goes to the overview.
            if let Some(task) = task_statement(&text) {
                self.add(
                    List::Requests,
                    format!("{}{}", super::EARLIER_TASK, quote_prose(&task)),
                );
            }
            self.add(List::Earlier, quote_prose(&text));
            return;
        };
        // The index's shared root written out: its entries merge whole.
        let body = artifacts::expand_roots(body);
        let mut list = None;
        for line in body.lines() {
            let line = line.trim_end();
            if let Some(found) = Merged::of_title(line.trim()) {
                list = Some(found);
            } else if line.starts_with("## ") || line.is_empty() {
                list = None;
            } else if let (Some(l), Some(entry)) = (list, line.strip_prefix("- ")) {
                if entry.starts_with('(') && entry.ends_with("not shown)") {
                    continue;
                }
                let op = match l {
                    Merged::List(l) => {
                        self.add(l, entry.to_string());
                        continue;
                    }
                    Merged::Index(title) => Op::MergeIndex(title, entry.to_string()),
                    Merged::OldFiles(effect) => Op::File(entry.to_string(), effect),
                    Merged::OldCommands => {
                        let (key, more) = match entry.strip_suffix(" …") {
                            Some(key) => (key, true),
                            None => (entry, false),
                        };
                        Op::Command(key.trim_matches('`').to_string(), more)
                    }
                };
                self.ops.push(op);
            } else if let Some(git) = line.strip_prefix("Git: ") {
                self.ops.push(Op::Git(git.to_string()));
            }
        }
    }
}

/// The words of a prompt the client injected (`isMeta`), without wrapper tags; `None` for
/// another item, or for the caveat about local commands, which says nothing.
pub(super) fn injected_words(item: &Item) -> Option<String> {
    if item.kind != Kind::User || !item.meta {
        return None;
    }
    let words = untagged(&item.text());
    let cleaned = clean(&words);
    (!crate::facts::clean::is_client_notice(&cleaned)).then(|| cleaned.trim().to_string())
}

/// `text` without tags like `<system-reminder>` (their content kept).
fn untagged(text: &str) -> String {
    static TAG: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"</?[A-Za-z][A-Za-z0-9_-]*>").expect("a fixed pattern")
    });
    TAG.replace_all(text, " ").into_owned()
}

/// The ids under which `item`'s calls are answered, in the order of [`tool_calls`]: each
/// call's own, or for a text-based agent's closing action the item's first call.
fn call_ids(item: &Item) -> Vec<String> {
    let ids = item.calls.iter().map(|c| c.id.clone());
    if has_tool_parts(item) {
        ids.collect()
    } else {
        ids.take(1).collect()
    }
}

/// Which entry a memo entry is of.
#[derive(PartialEq, Eq, Hash)]
enum EntryKey {
    /// An item of the conversation as stored, by its address: the conversation outlives
    /// the memo and does not move.
    Stored(usize),
    /// An item a step rewrote (an output cut, thinking dropped, a summary), by its
    /// content: where it stands and what the model sees of it.
    Rewritten {
        span: (usize, usize),
        kind: Kind,
        parts: Vec<(PartKind, String)>,
    },
}

impl EntryKey {
    fn rewritten(item: &Item) -> EntryKey {
        EntryKey::Rewritten {
            span: (item.span.start, item.span.end),
            kind: item.kind,
            parts: item
                .parts
                .iter()
                .map(|p| (p.kind, p.text.clone()))
                .collect(),
        }
    }
}

/// The facts of every entry summarized so far in one conversation. Made with the
/// conversation's strategy context and dropped with it, never shared between conversations
/// (stored entries are known by address).
#[derive(Default)]
pub struct EntryMemo {
    notes: RefCell<HashMap<EntryKey, Rc<EntryNotes>>>,
}

impl EntryMemo {
    /// The facts of each of `entries`, each worked out on first sight.
    pub(super) fn notes<'e, 'a: 'e>(
        &self,
        entries: impl IntoIterator<Item = &'e Cow<'a, Item>>,
    ) -> Vec<Rc<EntryNotes>> {
        entries
            .into_iter()
            .map(|entry| {
                let key = match entry {
                    Cow::Borrowed(item) => EntryKey::Stored(std::ptr::from_ref(*item) as usize),
                    Cow::Owned(item) => EntryKey::rewritten(item),
                };
                self.one(key, entry)
            })
            .collect()
    }

    fn one(&self, key: EntryKey, item: &Item) -> Rc<EntryNotes> {
        if let Some(notes) = self.notes.borrow().get(&key) {
            return Rc::clone(notes);
        }
        let notes = Rc::new(EntryNotes::of(item));
        self.notes.borrow_mut().insert(key, Rc::clone(&notes));
        notes
    }
}
