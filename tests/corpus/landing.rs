//! Where every strategy lands (DESIGN "How far"): every corpus conversation × every strategy
//! × targets of 50% and 25% of its context tokens (`--force --target-ratio R`). Each ends in
//! [0.85, 1.0] × target, or says why not:
//! - over the target, with a breakdown (verbatim, summaries, what the rules keep) whose
//!   parts add up to the tokens of the output read back, also as the report prints it;
//! - under 85% of it, only when the least the strategy could take ends with one unit (a
//!   message, or a tool call with its results) too many, with nothing in it long enough to
//!   cut, and one unit less is over the target. Those cases are listed in `COARSE` with why.

use crate::{forced_settings as settings, supported_transcripts};
use ctxc::pipeline;
use ctxc::strategy::StrategyName;
use ctxc::summarizer::extractive::Extractive;
use ctxc::tokens::{Encoding, TokenCounter};
use rayon::prelude::*;
use std::collections::BTreeMap;

const RATIOS: [f64; 2] = [0.5, 0.25];

/// Conversations that land under 85% of their target, by strategy and ratio, and why (the
/// numbers are the report's note). All are conversations whose only history a
/// summary may take ends in one unit that has no tool output long enough to cut: taking it
/// drops under the band, leaving it stays over the target. `adaptive` reaches them through
/// its `full-summary` rung.
const COARSE: &[(&str, &str, f64, &str)] = &[
    (
        "claude-code/claude-code-log-samples/assistant/thinking.jsonl",
        "full-summary",
        0.5,
        "the whole session is one 551-token assistant message, most of it a thinking block \
         (signed, so never cut, and among the last 3, which stay): its summary lands at 40 for a target of 277",
    ),
    (
        "claude-code/claude-code-log-samples/assistant/thinking.jsonl",
        "full-summary",
        0.25,
        "the same message: 40 tokens for a target of 138",
    ),
    (
        "claude-code/claude-code-log-samples/tools/AskUserQuestion-tool_use.jsonl",
        "full-summary",
        0.5,
        "one 288-token call (its arguments are the questions, kept verbatim by every cut) with \
         a short result: 66 tokens for a target of 145",
    ),
    (
        "claude-code/claude-code-log-samples/tools/ExitPlanMode-tool_use.jsonl",
        "full-summary",
        0.5,
        "one 240-token ExitPlanMode call with a short result: 66 tokens for a target of 121",
    ),
    (
        "claude-code/claude-code-log-samples/tools/AskUserQuestion-tool_use.jsonl",
        "trim-calls",
        0.5,
        "adaptive, before any summary: the same call, its questions cut to a marked head (the \
         call and its first lines kept): 291 tokens to 119 for a target of 145",
    ),
    (
        "claude-code/claude-code-log-samples/tools/ExitPlanMode-tool_use.jsonl",
        "trim-calls",
        0.5,
        "adaptive: the same call, its plan cut to a marked head: 243 tokens to 100 for a \
         target of 121",
    ),
    (
        "claude-code/claude-code-log-samples/tools/AskUserQuestion-tool_use.jsonl",
        "trim-calls",
        0.25,
        "adaptive at its tersest: the usual cut (119 tokens) misses the target of 72, the \
         tersest keeps the call and the first line of its questions: 38",
    ),
    (
        "claude-code/claude-code-log-samples/tools/ExitPlanMode-tool_use.jsonl",
        "trim-calls",
        0.25,
        "adaptive at its tersest: the usual cut (100 tokens) misses the target of 60, the \
         tersest keeps the call and the first line of its plan: 32",
    ),
    (
        "claude-code/claude-code-log-samples/tools/Edit-tool_use.jsonl",
        "trim-calls",
        0.5,
        "adaptive at its tersest: one 264-token Edit call; the usual cut misses the target \
         of 133, the tersest keeps the call, its path and each text's first line: 97",
    ),
    (
        "claude-code/spotter/tool_heavy.jsonl",
        "observation-masking",
        0.25,
        "adaptive, masking the recent outputs too before any summary: one unit less leaves \
         1,646 tokens; masking its 1,259-token unit's output, 505",
    ),
    (
        "claude-code/claude-code-log/edge_cases.jsonl",
        "full-summary",
        0.5,
        "one unit less leaves 695 tokens for a target of 500; with the 268-token unit, 390",
    ),
    (
        "openhands/resolver/output.jsonl",
        "selective",
        0.25,
        "the second run's history ends in a 1,793-token CodeAct `run_ipython` action (its code \
         is the call's arguments, never cut) with a short output: one unit less leaves 5,870 \
         tokens for a target of 5,048; with it, 4,077",
    ),
    (
        "openhands/resolver/output.jsonl",
        "truncate",
        0.25,
        "the same unit: 4,077 tokens for a target of 5,048",
    ),
    (
        "claude-code/spotter/tool_heavy.jsonl",
        "full-summary",
        0.25,
        "the least full-summary could take ends with one 1,259-token unit: one unit less \
         leaves 1,495 tokens for a target of 1,007; with it, 253 (the artifact index's folded \
         summary is smaller than the lists it replaced)",
    ),
];

/// Conversations that land under the band with no undershoot the engine can name, and why.
/// KNOWN GAP (issue 23, for the engine): the summary refit at the target's budget leaves a
/// whole long request out (extractive lines are all or nothing), so the summary ends well
/// under its budget; the engine reports no undershoot for it.
const UNDER_UNEXPLAINED: &[(&str, &str, f64, &str)] = &[(
    "claude-code/claude-code-log/edge_cases.jsonl",
    "full-summary",
    0.25,
    "the refit summary (budget 192) drops the second, long user request whole: 207 tokens \
     for a target of 250 (before the artifact index its summary overshot to 339)",
)];

/// How one conversation landed, or what is wrong with it.
fn landing(
    rel: &str,
    strategy: StrategyName,
    ratio: f64,
    conv: &pipeline::ConversationResult,
) -> Result<&'static str, String> {
    let target = conv.target_tokens.expect("a target");
    let after = conv.tokens_after;
    let compaction = conv.compaction.as_ref().expect("--force compacts");
    if after > target {
        let Some(short) = &compaction.shortfall else {
            return Err(format!(
                "{after} tokens, over the target {target}, no reason"
            ));
        };
        let parts = short.verbatim_tokens() + short.summaries + short.kept;
        if short.tokens != after || parts != after || short.target != target {
            return Err(format!(
                "{after} tokens (target {target}) but the breakdown says {short:?}"
            ));
        }
        printed_parts_add_up(&short.to_string())?;
        return Ok(if short.verbatim_tokens() >= target {
            "over: verbatim"
        } else {
            "over: rules"
        });
    }
    if after * 100 >= target * 85 {
        return Ok("in band");
    }
    let Some(coarse) = &compaction.undershoot else {
        let named = match strategy {
            StrategyName::Adaptive => "full-summary",
            other => other.name(),
        };
        if UNDER_UNEXPLAINED
            .iter()
            .any(|&(f, s, r, _)| f == rel && s == named && r == ratio)
        {
            return Ok("under: unexplained (known)");
        }
        return Err(format!(
            "{after} tokens, under 85% of the target {target}, no reason"
        ));
    };
    if coarse.landed != after || coarse.short_of <= target || coarse.unit_tokens == 0 {
        return Err(format!("target {target}, after {after}: {coarse:?}"));
    }
    // `adaptive` reaches these through its `full-summary` rung.
    let named = if strategy == StrategyName::Adaptive {
        coarse.strategy
    } else {
        strategy
    };
    if !COARSE
        .iter()
        .any(|&(f, s, r, _)| f == rel && s == named.name() && r == ratio)
    {
        return Err(format!(
            "under 85% of the target, not listed in COARSE: {coarse}"
        ));
    }
    Ok("under: one unit")
}

/// The numbers of a miss note as printed: the verbatim parts sum to the verbatim total, and
/// verbatim, summaries and kept sum to the tokens left.
fn printed_parts_add_up(note: &str) -> Result<(), String> {
    let number = |s: &str| -> usize { s.trim().replace(',', "").parse().unwrap_or(usize::MAX) };
    let (left, rest) = note.split_once(" tokens left, target ").ok_or(note)?;
    let (_, rest) = rest.split_once(": ").ok_or(note)?;
    let (verbatim, rest) = rest.split_once(" must stay verbatim (").ok_or(note)?;
    let (listed, rest) = rest.split_once("), ").ok_or(note)?;
    let (summaries, rest) = rest.split_once(" are summaries, ").ok_or(note)?;
    let (kept, _) = rest.split_once(" are messages").ok_or(note)?;
    let parts: usize = listed
        .split(", ")
        .map(|p| number(p.rsplit_once(' ').map_or(p, |(_, n)| n)))
        .sum();
    let ok = parts == number(verbatim)
        && number(verbatim) + number(summaries) + number(kept) == number(left);
    ok.then_some(())
        .ok_or(format!("the numbers do not add up: {note}"))
}

#[test]
fn every_strategy_lands_in_the_band_or_says_why() {
    let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
    let transcripts = supported_transcripts();
    let cases: Vec<(usize, StrategyName, f64)> = (0..transcripts.len())
        .flat_map(|f| {
            StrategyName::ALL
                .into_iter()
                // drop-stored leaves the context as it is (tests/corpus/drop_stored.rs).
                .filter(|s| *s != StrategyName::DropStored)
                .flat_map(move |s| RATIOS.iter().map(move |r| (f, s, *r)))
        })
        .collect();
    let results: Vec<(StrategyName, f64, Result<&str, String>, String)> = cases
        .par_iter()
        .flat_map(|&(f, strategy, ratio)| {
            let (rel, t) = &transcripts[f];
            let summarizer = Extractive;
            let settings = settings(strategy, ratio, &counter, &summarizer);
            let outcome = pipeline::run(t, &settings).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
            outcome
                .conversations
                .iter()
                .map(|c| {
                    let at = format!("{rel}{} [{strategy} at {ratio}]", c.location);
                    (strategy, ratio, landing(rel, strategy, ratio, c), at)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut table: BTreeMap<(String, &str), BTreeMap<&str, usize>> = BTreeMap::new();
    let mut failures = Vec::new();
    for (strategy, ratio, result, at) in &results {
        match result {
            Ok(class) => {
                *table
                    .entry((ratio.to_string(), strategy.name()))
                    .or_default()
                    .entry(class)
                    .or_default() += 1
            }
            Err(why) => failures.push(format!("{at}: {why}")),
        }
    }
    // The landing table, for `cargo test --test corpus landing -- --nocapture`.
    for ((ratio, strategy), classes) in &table {
        println!("{ratio:5} {strategy:20} {classes:?}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every listed exception still happens: the list stays narrow.
    for (file, strategy, ratio, why) in COARSE {
        // An entry of a rung (`trim-calls`, `observation-masking`) is seen through
        // `adaptive`, which names the rung it landed on.
        let seen = results.iter().any(|(s, r, result, at)| {
            (s.name() == *strategy || *s == StrategyName::Adaptive)
                && r == ratio
                && at.starts_with(file)
                && *result == Ok("under: one unit")
        });
        assert!(
            seen,
            "{file} [{strategy} at {ratio}] now lands in band ({why}): drop it from COARSE"
        );
    }
}
