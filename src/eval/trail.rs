//! Probes of the agent's trail beyond names (issue 40, item 3): what an edit wrote before a
//! later edit changed the same place, a file created and later deleted, the last command that
//! failed with its error, the user's answers to the agent's questions, and prompts the
//! client injected. A name in a summary's index does not answer them: the edit's text, the
//! error, the answer must be sent.

use super::{Probe, Subject};
use crate::facts::actions::file_actions;
use crate::facts::removed::{removed_paths, same_file};
use crate::facts::{
    CallArgs, CallIndex, Effect, MAX_FACT_CHARS, clip, collapse_whitespace, command_key,
    request_key, result_errors, tool_calls,
};
use crate::summarizer::artifacts::indexed_actions;
use crate::transcript::{Item, Kind, PartKind};
use regex::Regex;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// The trail probes of `items` (the original's items in context), in that order of kinds.
pub fn derive(items: &[&Item]) -> Vec<Probe> {
    let mut probes = overwritten_edits(items);
    probes.extend(deleted_files(items));
    probes.extend(last_failure(items));
    probes.extend(answers(items));
    probes.extend(meta_prompts(items));
    probes
}

/// One text replacement: the file, the text replaced and the text put in its place.
struct Replacement {
    path: String,
    old: String,
    new: String,
}

/// The replacements of an editing call: Claude Code `Edit` / `MultiEdit`, `str_replace_editor`
/// and the like (`old_string`/`new_string`, `old_str`/`new_str`).
fn replacements(call: &CallArgs) -> Vec<Replacement> {
    let Some(path) = call.paths().into_iter().next() else {
        return Vec::new();
    };
    let pair = |v: &Value| {
        let text = |keys: [&str; 2]| {
            keys.iter()
                .find_map(|k| v.get(*k).and_then(Value::as_str))
                .map(str::to_string)
        };
        Some(Replacement {
            path: path.clone(),
            old: text(["old_string", "old_str"])?,
            new: text(["new_string", "new_str"])?,
        })
    };
    match call.args.get("edits").and_then(Value::as_array) {
        Some(edits) => edits.iter().filter_map(pair).collect(),
        None => pair(&call.args).into_iter().collect(),
    }
}

/// Shortest line worth asking for: shorter ones (`}`, `end`) are found anywhere.
const MIN_EDIT_LINE_CHARS: usize = 8;

/// The first line an edit brought in (not in the text it replaced), trimmed.
fn introduced_line(edit: &Replacement) -> Option<String> {
    let old: HashSet<&str> = edit.old.lines().map(str::trim).collect();
    edit.new
        .lines()
        .map(str::trim)
        .find(|l| l.chars().count() >= MIN_EDIT_LINE_CHARS && !old.contains(l))
        .map(|l| clip(l, MAX_FACT_CHARS))
}

/// For each edit whose place a later edit of the same file changed again (the later one
/// replaces a line the earlier one wrote), the line the earlier one brought in: what the
/// file held in between is the edit's text, and only a sent call still says it.
fn overwritten_edits(items: &[&Item]) -> Vec<Probe> {
    let edits: Vec<(usize, Replacement)> = items
        .iter()
        .filter(|i| matches!(i.kind, Kind::AssistantText | Kind::ToolCall))
        .flat_map(|i| tool_calls(i).into_iter().map(move |c| (i.line, c)))
        .flat_map(|(line, c)| replacements(&c).into_iter().map(move |r| (line, r)))
        .collect();
    let mut seen = HashSet::new();
    let mut probes = Vec::new();
    for (n, (line, edit)) in edits.iter().enumerate() {
        let Some(introduced) = introduced_line(edit) else {
            continue;
        };
        let rewritten = edits[n + 1..].iter().any(|(_, later)| {
            later.path == edit.path && later.old.lines().any(|l| l.trim() == introduced)
        });
        if rewritten && seen.insert(introduced.clone()) {
            probes.push(Probe {
                subject: Subject::EditText,
                line: *line,
                question: format!(
                    "What did the edit of `{}` write there before a later edit changed it?",
                    edit.path
                ),
                answer: introduced,
                action: None,
                also: None,
            });
        }
    }
    probes
}

/// The files a call deletes: by the tool (`file_actions`) or by a shell command (`rm`).
fn deletions(call: &CallArgs) -> Vec<String> {
    let mut paths: Vec<String> = file_actions(call)
        .into_iter()
        .filter(|(_, e)| *e == Effect::Delete)
        .map(|(p, _)| p)
        .collect();
    paths.extend(removed_paths(call));
    paths
}

/// Each file a call created and a later call deleted: the file is gone, and a model that
/// knows only its creation would look for it.
fn deleted_files(items: &[&Item]) -> Vec<Probe> {
    let mut created: Vec<String> = Vec::new();
    let mut deleted: Vec<(String, usize)> = Vec::new();
    for item in items {
        for call in tool_calls(item) {
            for (path, effect) in file_actions(&call) {
                if effect == Effect::Create && !created.contains(&path) {
                    created.push(path);
                }
            }
            for gone in deletions(&call) {
                for path in created.iter().filter(|c| same_file(c, &gone)) {
                    deleted.retain(|(p, _)| p != path);
                    deleted.push((path.clone(), item.line));
                }
            }
        }
    }
    deleted
        .into_iter()
        .map(|(path, line)| Probe {
            subject: Subject::Deleted,
            line,
            question: format!("Does `{path}`, created earlier, still exist?"),
            answer: path,
            action: Some(Effect::Delete.verb()),
            also: None,
        })
        .collect()
}

/// Whether what `items` send says `path` was deleted: a kept call deletes it, or (with
/// `indexes`) a summary's artifact index lists it as deleted.
pub(super) fn known_deleted(items: &[&Item], path: &str, indexes: bool) -> bool {
    items.iter().any(|item| {
        let by_call = tool_calls(item)
            .iter()
            .flat_map(deletions)
            .any(|gone| same_file(&gone, path));
        let by_index = indexes
            && item
                .parts
                .iter()
                .filter(|p| p.kind == PartKind::Text)
                .any(|p| {
                    indexed_actions(&p.text)
                        .iter()
                        .any(|(p, e)| *e == Effect::Delete && same_file(p, path))
                });
        by_call || by_index
    })
}

/// The last command whose output carried an error: its first error line, with the command.
fn last_failure(items: &[&Item]) -> Option<Probe> {
    let mut calls = CallIndex::default();
    let mut last = None;
    for item in items {
        if matches!(item.kind, Kind::AssistantText | Kind::ToolCall) {
            calls.note(item, tool_calls(item));
        }
        if item.kind != Kind::ToolResult {
            continue;
        }
        let answered = calls.answered_by(item);
        let Some(command) = answered.iter().find_map(|c| c.command()) else {
            continue;
        };
        if let Some(error) = result_errors(item, &answered).into_iter().next() {
            last = Some((command_key(&command), error, item.line));
        }
    }
    let (command, error, line) = last?;
    Some(Probe {
        subject: Subject::LastFailure,
        line,
        question: format!(
            "Which command failed last (`{}`), and with which error?",
            clip(&command, 40)
        ),
        answer: error,
        action: None,
        also: Some(command),
    })
}

/// Whether a tool asks the user a question (Claude Code `AskUserQuestion`, `ask_user`...).
fn asks_user(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace(['_', '-'], "");
    name.contains("askuser") || name.contains("askquestion")
}

/// `"question"="answer"` in Claude Code's result of `AskUserQuestion`.
static ANSWERED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""([^"\n]+)"="([^"\n]+)""#).unwrap());

/// The user's answers to the agent's questions: each answer of a question tool's result
/// (Claude Code: `User has answered your questions: "Q"="A"`), else its first line.
fn answers(items: &[&Item]) -> Vec<Probe> {
    let mut asked: HashMap<&str, &str> = HashMap::new();
    let mut probes = Vec::new();
    let mut seen = HashSet::new();
    for item in items {
        for call in &item.calls {
            if asks_user(&call.name) {
                asked.insert(call.id.as_str(), call.name.as_str());
            }
        }
        if item.kind != Kind::ToolResult || item.is_error {
            continue;
        }
        if !item
            .results
            .iter()
            .any(|id| asked.contains_key(id.as_str()))
        {
            continue;
        }
        let output = crate::facts::tool_output(item);
        let mut found: Vec<(String, String)> = ANSWERED
            .captures_iter(&output)
            .map(|c| (c[1].to_string(), collapse_whitespace(&c[2])))
            .collect();
        if found.is_empty() {
            if let Some(first) = output.lines().map(str::trim).find(|l| !l.is_empty()) {
                found.push((String::new(), request_key(first)));
            }
        }
        for (question, answer) in found {
            if answer.chars().count() < 2 || !seen.insert(answer.clone()) {
                continue;
            }
            let question = if question.is_empty() {
                "What did the user answer the agent's question?".to_string()
            } else {
                format!("What did the user answer to \"{}\"?", clip(&question, 80))
            };
            probes.push(Probe {
                subject: Subject::Answer,
                line: item.line,
                question,
                answer,
                action: None,
                also: None,
            });
        }
    }
    probes
}

/// Tags of the client's wrappers (`<system-reminder>`), left out of a meta prompt's words.
static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"</?[A-Za-z][A-Za-z0-9_-]*>").unwrap());

/// A meta prompt's words: the text without its wrapper tags, whitespace collapsed.
pub(super) fn untagged(text: &str) -> String {
    collapse_whitespace(&TAG.replace_all(text, " "))
}

/// Prompts the client injected (Claude Code `isMeta` user records: skill bodies, command
/// expansions, hook context), each by the start of its words; the caveat about local
/// commands says nothing to carry.
fn meta_prompts(items: &[&Item]) -> Vec<Probe> {
    let mut seen = HashSet::new();
    let mut probes = Vec::new();
    for item in items.iter().filter(|i| i.kind == Kind::User && i.meta) {
        let words = untagged(&item.text());
        if words.chars().count() < MIN_EDIT_LINE_CHARS
            || crate::facts::clean::is_client_notice(&words)
        {
            continue;
        }
        let answer = request_key(&words);
        if seen.insert(answer.clone()) {
            probes.push(Probe {
                subject: Subject::MetaPrompt,
                line: item.line,
                question: "What did the client inject into the conversation here?".into(),
                answer,
                action: None,
                also: None,
            });
        }
    }
    probes
}
