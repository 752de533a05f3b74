//! The invariants of compaction over every corpus transcript × every strategy × targets of
//! 75%, 50%, 25% and 10% of each conversation's context tokens (`--force --target-ratio R`):
//! the pipeline's own checks pass (re-parse, `check`, kept and preserved content, no token
//! growth), every conversation ends at or under its target or says why not, and a second
//! run gives the same bytes (invariant 5: the pipeline computes each result once and leaves
//! this proof to this test).

use crate::{cases, forced_settings as settings, supported_transcripts};
use ctxc::count::count_conversation;
use ctxc::pipeline;
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::Transcript;
use rayon::prelude::*;

const RATIOS: [f64; 4] = [0.75, 0.5, 0.25, 0.1];

/// What is wrong with one run, if anything.
fn problems(
    t: &Transcript,
    strategy: StrategyName,
    ratio: f64,
    counter: &TokenCounter,
) -> Vec<String> {
    let summarizer = Extractive;
    let settings = settings(strategy, ratio, counter, &summarizer);
    let outcome = match pipeline::run(t, &settings) {
        Ok(o) => o,
        Err(e) => return vec![format!("{e:#}")],
    };
    let mut problems = Vec::new();
    for (c, conv) in outcome.conversations.iter().enumerate() {
        let before = count_conversation(counter, &t.conversations[c]).total();
        if conv.tokens_after > before {
            problems.push(format!(
                "{}: tokens grew {before} → {}",
                conv.location, conv.tokens_after
            ));
        }
        let compaction = conv
            .compaction
            .as_ref()
            .expect("--force compacts every conversation");
        let target = conv.target_tokens.expect("a target");
        if conv.tokens_after > target && compaction.shortfall.is_none() {
            problems.push(format!(
                "{}: {} tokens over the target {target} and no reason given",
                conv.location, conv.tokens_after
            ));
        }
        // The plan's own price is what the report shows; it must match the output.
        if outcome.changed && compaction.tokens_after != conv.tokens_after {
            problems.push(format!(
                "{}: planned {} tokens but the output has {}",
                conv.location, compaction.tokens_after, conv.tokens_after
            ));
        }
    }
    let again = pipeline::run(t, &settings).map(|o| o.output);
    if again.as_ref().ok() != Some(&outcome.output) {
        problems.push("a second run gave different bytes".into());
    }
    problems
}

#[test]
fn every_strategy_keeps_every_invariant_on_every_corpus_file() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let failures = invariant_failures(&supported_transcripts(), &counter);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every invariant broken by any strategy at any of [`RATIOS`] on `transcripts`, named
/// `file [strategy at ratio]: problem`.
fn invariant_failures(transcripts: &[(String, Transcript)], counter: &TokenCounter) -> Vec<String> {
    cases(transcripts.len(), &RATIOS)
        .par_iter()
        .flat_map(|&(f, strategy, ratio)| {
            let (rel, t) = &transcripts[f];
            problems(t, strategy, ratio, counter)
                .into_iter()
                .map(|p| format!("{rel} [{strategy} at {ratio}]: {p}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The corpus holds no pi session (none public but pi's own test fixtures, which are version 1),
/// so the same invariants are held over the pi fixtures: the real version 1 excerpt of pi's
/// own test session and the hand-written version 3 tree (see fixtures/pi/README.md).
#[test]
fn every_strategy_keeps_every_invariant_on_the_pi_fixtures() {
    let names = ["v1-head.jsonl", "session.jsonl"];
    assert_fixtures_keep_every_invariant("pi", &names, ctxc::transcript::Format::Pi);
}

/// The corpus holds no Gemini CLI session either: the invariants are held over the sessions
/// recorded with the real client (0.61.0 JSON Lines resumed four times, 0.30.0 whole-file
/// JSON, and one with a call cut off; see fixtures/gemini/README.md).
#[test]
fn every_strategy_keeps_every_invariant_on_the_gemini_fixtures() {
    let names = ["resumed.jsonl", "legacy.json", "unanswered.jsonl"];
    assert_fixtures_keep_every_invariant("gemini", &names, ctxc::transcript::Format::Gemini);
}

/// Nor a Qwen Code session: the invariants are held over the sessions recorded with the real
/// client (0.24.4: resumed, compressed by `/compress`, long, and one with a call cut off; see
/// fixtures/qwen/README.md).
#[test]
fn every_strategy_keeps_every_invariant_on_the_qwen_fixtures() {
    let names = [
        "resumed.jsonl",
        "compressed.jsonl",
        "long.jsonl",
        "unanswered.jsonl",
    ];
    assert_fixtures_keep_every_invariant("qwen", &names, ctxc::transcript::Format::Qwen);
}

fn assert_fixtures_keep_every_invariant(
    dir: &str,
    names: &[&str],
    format: ctxc::transcript::Format,
) {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let root = crate::paths::fixture(dir);
    let transcripts: Vec<(String, Transcript)> = names
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(name)).unwrap();
            let t = ctxc::transcript::read(text, &Default::default()).unwrap();
            assert_eq!(t.format, format, "{name}");
            (format!("{dir}/{name}"), t)
        })
        .collect();
    let failures = invariant_failures(&transcripts, &counter);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The default at half of each conversation's tokens keeps at least 95% of paths and
/// commands, 90% of error lines and 98% of user requests over the whole corpus, counted in
/// what the model is sent.
#[test]
fn the_default_at_half_keeps_the_facts_an_agent_needs() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let summarizer = Extractive;
    let settings = settings(StrategyName::Adaptive, 0.5, &counter, &summarizer);
    let mut total = ctxc::retention::Retention::default();
    for (rel, t) in supported_transcripts() {
        let outcome = pipeline::run(&t, &settings).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        for conv in &outcome.conversations {
            total += conv.retention;
        }
    }
    let shares = [
        ("paths", total.paths, 0.95),
        ("commands", total.commands, 0.95),
        ("errors", total.errors, 0.90),
        ("user requests", total.user_requests, 0.98),
    ];
    for (kind, tally, least) in shares {
        assert!(
            tally.ratio() >= least,
            "{kind}: {} of {} kept, under {least}",
            tally.kept,
            tally.total
        );
    }
}
