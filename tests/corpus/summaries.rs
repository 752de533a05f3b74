//! What the extractive summaries of real sessions say, read as a resuming agent would: every
//! corpus transcript × every strategy × targets of 50% and 25% (`--force --target-ratio R`).
//! Errors come from failed calls, never from what a file reader returned; a span with an
//! assistant message has next steps; no ANSI escape, client wrapper tag or system path
//! (`/usr/bin/env`, `/dev/null`) is written; no list is a bare count of lines left out. The
//! whole span is read (no middle left out), a span where a call failed has an errors section,
//! and no request is listed twice.

use crate::{cases, forced_settings as settings, supported_transcripts};
use ctxc::facts::{clean::has_client_markup, is_file_path, tool_output};
use ctxc::pipeline;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{Item, Kind, ReadOptions, SUMMARY_MARKER, Transcript, read};
use rayon::prelude::*;
use std::collections::HashMap;

const RATIOS: [f64; 2] = [0.5, 0.25];

/// Tools whose output is what they read (named independently of the summarizer's own rule).
fn reads(name: &str, args: &str) -> bool {
    let command = serde_json::from_str::<serde_json::Value>(args)
        .ok()
        .and_then(|v| v.get("command").and_then(|c| c.as_str()).map(String::from))
        .unwrap_or_default();
    let first = command.split_whitespace().next().unwrap_or("");
    matches!(
        name,
        "Read" | "Grep" | "Glob" | "LS" | "NotebookRead" | "read_file" | "view" | "open"
    ) || matches!(first, "cat" | "head" | "tail" | "grep" | "rg" | "nl")
}

/// The outputs of the original's tool results in records `from..=to` (from 1), each marked with whether
/// a reader produced it, and the user messages' text.
fn sources(items: &[Item], from: usize, to: usize) -> Vec<(bool, String)> {
    let mut calls: HashMap<&str, (String, String)> = HashMap::new();
    let mut out = Vec::new();
    for (at, item) in items.iter().enumerate() {
        let mut parts = item.parts.iter();
        for call in &item.calls {
            let name = parts.find(|p| p.kind == ctxc::transcript::PartKind::ToolName);
            let args = parts.next().map(|p| p.text.clone()).unwrap_or_default();
            let name = name.map_or(call.name.clone(), |p| p.text.clone());
            calls.insert(call.id.as_str(), (name, args));
        }
        if at + 1 < from || at + 1 > to {
            continue;
        }
        match item.kind {
            Kind::ToolResult => {
                let by_reader = !item.is_error
                    && item.results.iter().all(|id| {
                        calls
                            .get(id.as_str())
                            .is_some_and(|(name, args)| reads(name, args))
                    });
                out.push((by_reader, tool_output(item).into_owned()));
            }
            Kind::User | Kind::Summary => out.push((false, item.text())),
            _ => {}
        }
    }
    out
}

/// The `- ` lines of each list of a summary, by title.
fn lists(text: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(entry) = line.strip_prefix("- ") {
            if let Some((_, lines)) = out.last_mut() {
                lines.push(entry);
            }
        } else if line.ends_with(':') && !line.starts_with('#') {
            out.push((line, Vec::new()));
        }
    }
    out
}

/// The backquoted error lines of an "Errors" bullet.
fn error_lines(bullet: &str) -> Vec<&str> {
    let quoted = bullet.split(" (").next().unwrap_or(bullet);
    quoted
        .split(" · ")
        .filter_map(|q| q.strip_prefix('`').and_then(|q| q.strip_suffix('`')))
        .collect()
}

/// What is wrong with one summary of `original`.
fn summary_problems(original: &Transcript, conv: usize, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if has_client_markup(text) {
        problems.push("an ANSI escape or a client wrapper tag".to_string());
    }
    let Some((from, to)) = records(text) else {
        return vec![format!("no records named in:\n{text}")];
    };
    let items = &original.conversations[conv].items;
    if text.contains("characters from the middle of this span") {
        problems.push("the middle of the span left unread".into());
    }
    if failed_in(items, from, to) && !text.contains("\nErrors ") {
        problems.push("a call failed in the span and there is no errors section".into());
    }
    for (title, lines) in lists(text) {
        if title.starts_with("User requests") {
            let mut words: Vec<String> = lines.iter().map(|l| request_words(l)).collect();
            words.sort();
            if let Some(w) = words.windows(2).find(|w| w[0] == w[1]) {
                problems.push(format!("a request listed twice: {}", w[0]));
            }
        }
        match lines.first() {
            None => problems.push(format!("{title} shows nothing")),
            Some(l) if l.ends_with(" not shown)") => {
                problems.push(format!("{title} shows only a count"))
            }
            _ => {}
        }
        if title.starts_with("Files ") {
            for path in lines.iter().filter(|l| !l.ends_with(" not shown)")) {
                if !is_file_path(path) {
                    problems.push(format!("{title} lists {path}"));
                }
            }
        }
        if title.starts_with("Errors") {
            let sources = sources(items, from, to);
            for bullet in &lines {
                for error in error_lines(bullet) {
                    let from_reader_only = sources.iter().any(|(_, s)| s.contains(error))
                        && sources
                            .iter()
                            .filter(|(_, s)| s.contains(error))
                            .all(|(by_reader, _)| *by_reader);
                    if from_reader_only {
                        problems.push(format!("error line from a file reader: {error}"));
                    }
                }
            }
        }
    }
    let has_assistant = items[from - 1..to]
        .iter()
        .any(|i| matches!(i.kind, Kind::AssistantText | Kind::ToolCall));
    if has_assistant {
        let next = text
            .split("## 4. Next steps")
            .nth(1)
            .map(|s| s.split("\n## ").next().unwrap_or(s));
        let shows = next.is_some_and(|s| {
            s.lines()
                .any(|l| l.starts_with("- ") && !l.ends_with(" not shown)"))
        });
        if !shows {
            problems.push("a span with assistant messages and no next steps".into());
        }
    }
    problems
        .into_iter()
        .map(|p| format!("{p}\n--- summary ---\n{text}"))
        .collect()
}

/// Whether a tool result in records `from..=to` (from 1) is flagged failed and says something
/// (a call the user rejected did not fail).
fn failed_in(items: &[Item], from: usize, to: usize) -> bool {
    items[from - 1..to].iter().any(|item| {
        let output = tool_output(item);
        let first = output.lines().map(str::trim).find(|l| l.len() >= 4);
        item.kind == Kind::ToolResult
            && item.is_error
            && first.is_some_and(|l| !l.starts_with("The user doesn't want to"))
    })
}

/// A request bullet's words, lowercase, without the quotes or the mark of a task taken from
/// an earlier compaction summary.
fn request_words(line: &str) -> String {
    let line = line
        .strip_prefix("Task (from an earlier compaction summary): ")
        .unwrap_or(line);
    line.trim_matches('"')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `(records A-B)` of a summary's intro: the conversation's items A to B, counted from 1.
fn records(text: &str) -> Option<(usize, usize)> {
    let rest = text.split("(records ").nth(1)?;
    let (range, _) = rest.split_once(')')?;
    let (a, b) = range.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

#[test]
fn summaries_of_real_sessions_say_what_a_resuming_agent_needs() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let transcripts = supported_transcripts();
    let cases = cases(transcripts.len(), &RATIOS);
    let summarizer = Extractive;
    let results: Vec<(usize, Vec<String>)> = cases
        .par_iter()
        .map(|&(f, strategy, ratio)| {
            let (rel, t) = &transcripts[f];
            let outcome = pipeline::run(t, &settings(strategy, ratio, &counter, &summarizer))
                .unwrap_or_else(|e| panic!("{rel}: {e:#}"));
            let out = read(outcome.output.into_owned(), &ReadOptions::default()).unwrap();
            let mut seen = 0;
            let mut failures = Vec::new();
            for (c, conv) in out.conversations.iter().enumerate() {
                for item in conv.items.iter().filter(|i| i.ctxc_summary) {
                    let text = item.text();
                    let Some(body) = text.strip_prefix(SUMMARY_MARKER) else {
                        continue;
                    };
                    seen += 1;
                    failures.extend(
                        summary_problems(t, c, body)
                            .into_iter()
                            .map(|p| format!("{rel} [{strategy} at {ratio}]: {p}")),
                    );
                }
            }
            (seen, failures)
        })
        .collect();
    let seen: usize = results.iter().map(|(n, _)| n).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|(_, f)| f).collect();
    assert!(seen > 100, "only {seen} summaries written");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
