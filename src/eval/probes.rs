//! Deriving probes from an original conversation. Files, commands and error lines are the
//! facts `retention` counts ([`Facts::located`]), so `eval` and the compaction report agree on
//! them; the rest is read here.

use super::{Probe, Subject};
use crate::facts::actions::file_actions;
use crate::facts::prose::{chooses, sentences};
use crate::facts::{
    Effect, Facts, REQUEST_KEY_CHARS, clip, collapse_whitespace, command_key, request_key,
    request_text, tool_calls,
};
use crate::summarizer::artifacts::indexed_actions;
use crate::transcript::{Conversation, Item, Kind, PartKind};
use regex::Regex;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// Every probe of `conv`, by category: artifact, recall, continuation, decision.
pub fn derive(conv: &Conversation) -> Vec<Probe> {
    let items: Vec<&Item> = conv.items.iter().filter(|i| i.in_context).collect();
    let (facts, lines) = Facts::located(items.iter().copied());
    let mut probes = artifacts(&items, &facts, &lines[0]);
    probes.extend(recall(&items, &facts, &lines));
    probes.extend(continuation(&items));
    probes.extend(decisions(&items));
    probes.extend(super::trail::derive(&items));
    probes
}

/// The last action on each file that `items` show: taken by a call, or (with `indexes`)
/// listed in a summary's artifact index (which stands for the calls it replaced).
pub(super) fn last_actions(items: &[&Item], indexes: bool) -> HashMap<String, Effect> {
    let mut last: HashMap<String, Effect> = HashMap::new();
    let mut note = |path: String, effect: Effect| {
        // A read after an edit does not undo it: the file's last change is its state.
        let keep = last
            .get(&path)
            .is_some_and(|e| e.changes() && !effect.changes());
        if !keep {
            last.insert(path, effect);
        }
    };
    for item in items {
        for part in item
            .parts
            .iter()
            .filter(|p| indexes && p.kind == PartKind::Text)
        {
            for (path, effect) in indexed_actions(&part.text) {
                note(path, effect);
            }
        }
        for call in tool_calls(item) {
            for (path, effect) in file_actions(&call) {
                note(path, effect);
            }
        }
    }
    last
}

/// One probe per file path (those `retention` counts), with the last action a call took on it.
fn artifacts(items: &[&Item], facts: &Facts, lines: &[usize]) -> Vec<Probe> {
    let last = last_actions(items, true);
    facts
        .paths
        .iter()
        .zip(lines)
        .map(|(path, &line)| {
            let action = last.get(path).map_or("named by the user", |e| e.verb());
            Probe {
                subject: Subject::File,
                line,
                question: format!("Which file is `{path}`, and what was last done to it?"),
                answer: path.clone(),
                action: Some(action),
                also: None,
            }
        })
        .collect()
}

/// Commands and error lines (as `retention` counts them), then identifiers and numbers in
/// the user's requests.
fn recall(items: &[&Item], facts: &Facts, lines: &[Vec<usize>; 4]) -> Vec<Probe> {
    let mut probes = Vec::new();
    for (command, &line) in facts.commands.iter().zip(&lines[1]) {
        probes.push(Probe {
            subject: Subject::Command,
            line,
            question: format!("Which command was run that starts `{}`?", clip(command, 40)),
            answer: command.clone(),
            action: None,
            also: None,
        });
    }
    for (error, &line) in facts.errors.iter().zip(&lines[2]) {
        probes.push(Probe {
            subject: Subject::Error,
            line,
            question: "Which error was seen, word for word?".into(),
            answer: error.clone(),
            action: None,
            also: None,
        });
    }
    let mut seen = HashSet::new();
    for item in items {
        let Some(text) = request_text(item) else {
            continue;
        };
        for (subject, word) in user_values(&text) {
            if seen.insert(word.clone()) {
                let what = match subject {
                    Subject::Number => "number",
                    _ => "identifier",
                };
                probes.push(Probe {
                    subject,
                    line: item.line,
                    question: format!("Which {what} did the user give (`{word}`)?"),
                    answer: word,
                    action: None,
                    also: None,
                });
            }
        }
    }
    probes
}

/// Code in backticks (short), identifiers with `_`, `::` or an inner capital.
static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"`([^`\n]{3,60})`|\b([A-Za-z_][A-Za-z0-9]*(?:(?:_|::)[A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+)\b").unwrap()
});

/// Numbers of two digits or more, decimals and versions too.
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d{2,}(?:[.,]\d+)*\b|\b\d+\.\d+(?:\.\d+)*\b").unwrap());

/// Identifiers and numbers a user wrote: what a user gives an agent to work with. Paths are
/// artifact probes already; numbers inside paths, identifiers or dates are not numbers given.
fn user_values(text: &str) -> Vec<(Subject, String)> {
    let mut found = Vec::new();
    for c in IDENTIFIER.captures_iter(text) {
        let word = c
            .get(1)
            .or_else(|| c.get(2))
            .map_or("", |m| m.as_str())
            .trim();
        if word.len() >= 3 && !word.contains('/') && !word.contains("://") {
            found.push((Subject::Identifier, word.to_string()));
        }
    }
    for m in NUMBER.find_iter(text) {
        let before = text[..m.start()].chars().next_back();
        let after = text[m.end()..].chars().next();
        let glued = |c: Option<char>| c.is_some_and(|c| matches!(c, '/' | '-' | '_' | ':' | '.'));
        let in_identifier = found.iter().any(|(_, w)| w.contains(m.as_str()));
        if !glued(before) && !glued(after) && !in_identifier {
            found.push((Subject::Number, m.as_str().to_string()));
        }
    }
    found
}

/// The original task, the latest request (when it is another), and the in-flight call or next
/// step.
fn continuation(items: &[&Item]) -> Vec<Probe> {
    let mut probes = Vec::new();
    let requests: Vec<(&Item, String)> = items
        .iter()
        .filter_map(|i| request_text(i).map(|t| (*i, t)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    if let Some((item, text)) = requests.first() {
        probes.push(Probe {
            subject: Subject::Task,
            line: item.line,
            question: "What task did the user set at the start?".into(),
            answer: request_key(text),
            action: None,
            also: None,
        });
    }
    if let Some((item, text)) = requests.last().filter(|_| requests.len() > 1) {
        probes.push(Probe {
            subject: Subject::LatestRequest,
            line: item.line,
            question: "What did the user ask for last?".into(),
            answer: request_key(text),
            action: None,
            also: None,
        });
    }
    probes.extend(next_step(items));
    probes
}

/// The last assistant move: its last call (the command, or the file it works on), else the
/// last sentence it wrote.
fn next_step(items: &[&Item]) -> Option<Probe> {
    let item = items
        .iter()
        .rev()
        .find(|i| matches!(i.kind, Kind::AssistantText | Kind::ToolCall))?;
    if let Some(call) = tool_calls(item).pop() {
        let answer = call
            .command()
            .map(|c| command_key(&c))
            .or_else(|| call.paths().into_iter().next())?;
        return Some(Probe {
            subject: Subject::NextStep,
            line: item.line,
            question: format!("What was the agent doing last (its `{}` call)?", call.name),
            answer: collapse_whitespace(&answer),
            action: None,
            also: None,
        });
    }
    let text = item.prose();
    let last = sentences(&text).last()?;
    Some(Probe {
        subject: Subject::NextStep,
        line: item.line,
        question: "What did the agent say it would do next?".into(),
        answer: clip(&collapse_whitespace(last), REQUEST_KEY_CHARS),
        action: None,
        also: None,
    })
}

/// Every distinct assistant sentence that chooses or rejects something.
fn decisions(items: &[&Item]) -> Vec<Probe> {
    let mut seen = HashSet::new();
    let mut probes = Vec::new();
    for item in items
        .iter()
        .filter(|i| matches!(i.kind, Kind::AssistantText | Kind::ToolCall))
    {
        let text = crate::facts::clean::clean(&item.prose()).into_owned();
        for sentence in sentences(&text).filter(|s| chooses(s)) {
            let answer = clip(&collapse_whitespace(sentence), REQUEST_KEY_CHARS);
            if seen.insert(answer.clone()) {
                probes.push(Probe {
                    subject: Subject::Decision,
                    line: item.line,
                    question: "What was decided here, and why?".into(),
                    answer,
                    action: None,
                    also: None,
                });
            }
        }
    }
    probes
}

/// [`user_values`], for the unit tests.
#[cfg(test)]
pub(super) fn user_values_for_test(text: &str) -> Vec<(Subject, String)> {
    user_values(text)
}
