//! Properties checked over every file of `../shared/corpus`: detection, byte-exact
//! round trips and `check`. No file is skipped silently: files ctxc does not support are
//! listed in `UNSUPPORTED` with the error they must give.
// Tests name the paths they made in assertion messages, for whoever reads a failure: raw
// `display()` is right there (clippy.toml forbids it in ctxc's own output).
#![allow(clippy::disallowed_methods)]

mod archive;
mod calibrate;
mod compact;
mod convert;
mod drop_stored;
mod eval;
mod landing;
mod monotone;
mod placement;
mod repair;

#[path = "../common/damage.rs"]
mod damage;
#[path = "../common/paths.rs"]
mod paths;
mod repeated;
mod summaries;
mod tokens;
mod verbatim;

use ctxc::transcript::{self, OutItem, ReadOptions};
use std::path::PathBuf;

/// Corpus files that are not one of ctxc's formats, with the error text they must produce.
pub const UNSUPPORTED: &[(&str, &str)] = &[];

/// Corpus files damaged on purpose by their authors (claude-code-log's `edge_cases.jsonl`
/// has misspelt keys, stray scalar lines, records from other sessions and repeated uuids that
/// no link names), with the findings
/// `check` must report for them, in order.
pub const KNOWN_INVALID: &[(&str, &[&str])] = &[(
    "claude-code/claude-code-log/edge_cases.jsonl",
    &[
        "9: tool call 'tool_edge_002' (MultiEdit) is never answered, yet the conversation goes on",
        "12: uuid 'edge_011' appears again (first at line 11): the chain cannot be followed",
        "17: parentUuid 'assistant_003' names no record in this file",
        "17: tool call 'toolu_todowrite_002' (TodoWrite) is never answered, yet the conversation goes on",
        "18: uuid 'edge_010' appears again (first at line 10): the chain cannot be followed",
    ],
)];

/// Every corpus transcript ctxc supports, read, with its path relative to the corpus.
pub fn supported_transcripts() -> Vec<(String, transcript::Transcript)> {
    corpus_files()
        .into_iter()
        .filter(|rel| !UNSUPPORTED.iter().any(|(f, _)| f == rel))
        .map(|rel| {
            let t = load(&rel).unwrap_or_else(|e| panic!("{rel}: {e:?}"));
            (rel, t)
        })
        .collect()
}

/// Every (transcript index, strategy, target ratio) combination.
pub fn cases(
    transcripts: usize,
    ratios: &[f64],
) -> Vec<(usize, ctxc::strategy::StrategyName, f64)> {
    (0..transcripts)
        .flat_map(|f| {
            ctxc::strategy::StrategyName::ALL
                .into_iter()
                .flat_map(move |s| ratios.iter().map(move |r| (f, s, *r)))
        })
        .collect()
}

/// Pipeline settings that compact every conversation with `strategy` to `ratio` of its tokens
/// (`--force --target-ratio R --strategy S`).
pub fn forced_settings<'a>(
    strategy: ctxc::strategy::StrategyName,
    ratio: f64,
    counter: &'a ctxc::tokens::TokenCounter,
    summarizer: &'a ctxc::summarizer::extractive::Extractive,
) -> ctxc::pipeline::Settings<'a> {
    ctxc::pipeline::Settings {
        read: ReadOptions::default(),
        triggers: ctxc::trigger::TriggerSettings {
            force: true,
            ..Default::default()
        },
        target: ctxc::pipeline::Target::Ratio(ratio),
        strategies: vec![strategy],
        strategy: ctxc::strategy::StrategySettings::default(),
        summarizer,
        counter,
    }
}

pub fn corpus_dir() -> PathBuf {
    paths::corpus("")
}

/// Every transcript file in the corpus, sorted, relative to the corpus root.
pub fn corpus_files() -> Vec<String> {
    let root = corpus_dir();
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus is readable") {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if dir != root {
                let rel = path.strip_prefix(&root).unwrap();
                files.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 78, "corpus not found at {}", root.display());
    files
}

pub fn load(rel: &str) -> Result<transcript::Transcript, transcript::ReadError> {
    let text = std::fs::read_to_string(corpus_dir().join(rel)).unwrap();
    transcript::read(text, &ReadOptions::default())
}

#[test]
fn every_corpus_file_round_trips_byte_for_byte() {
    let mut failures = Vec::new();
    for rel in corpus_files() {
        let expected_error = UNSUPPORTED.iter().find(|(f, _)| *f == rel).map(|(_, e)| *e);
        match (load(&rel), expected_error) {
            (Ok(t), None) => {
                let unchanged = t.write(&vec![None; t.conversations.len()]);
                let all_kept: Vec<_> = t
                    .conversations
                    .iter()
                    .map(|c| Some((0..c.items.len()).map(OutItem::Keep).collect()))
                    .collect();
                if unchanged != t.source {
                    failures.push(format!("{rel}: write without edits differs"));
                } else if t.write(&all_kept) != t.source {
                    failures.push(format!("{rel}: write keeping every item differs"));
                }
            }
            (Ok(t), Some(_)) => {
                failures.push(format!("{rel}: expected unsupported, read as {}", t.format))
            }
            (Err(e), None) => failures.push(format!("{rel}: {:?}", e.findings)),
            (Err(e), Some(want)) => {
                if !e.findings[0].message.contains(want) {
                    failures.push(format!("{rel}: wrong error {:?}", e.findings));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn check_is_clean_on_every_supported_corpus_file() {
    let mut failures = Vec::new();
    for rel in corpus_files() {
        if UNSUPPORTED.iter().any(|(f, _)| *f == rel) {
            continue;
        }
        let Ok(t) = load(&rel) else {
            failures.push(format!("{rel}: does not read"));
            continue;
        };
        let findings: Vec<String> = transcript::check(&t)
            .iter()
            .map(ToString::to_string)
            .collect();
        let expected: Vec<String> = KNOWN_INVALID
            .iter()
            .find(|(f, _)| *f == rel)
            .map(|(_, want)| want.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        if findings != expected {
            failures.push(format!("{rel}: {findings:?}, expected {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
