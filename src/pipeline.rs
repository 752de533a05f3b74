//! One transcript through the whole pipeline: count → triggers → plan (strategy chain) →
//! summarize → write → verify the invariants → report. Pure: text in, text and a report
//! out; `commands::compact` does the file I/O and runs files in parallel.
//!
//! Each conversation of a container is compacted on its own; conversations that need
//! nothing are written back byte-for-byte, and a file where nothing fires comes out
//! byte-identical.

use crate::engine::{self, Compaction, Goal};
use crate::plan::Subject;
use crate::retention::{Retention, retention};
use crate::strategy::{StrategyName, StrategySettings, SummaryStats};
use crate::summarizer::Summarizer;
use crate::tokens::TokenCounter;
use crate::transcript::{OutItem, ReadOptions, Transcript};
use crate::trigger::{self, Measures, Trigger, TriggerSettings};
use crate::verify::{self, Edited};
use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use std::borrow::Cow;

/// How far compaction should go.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "value")]
pub enum Target {
    /// The token trigger's threshold (the default).
    Threshold,
    /// This many tokens per conversation (`--target-tokens`).
    Tokens(usize),
    /// This share of each conversation's tokens before compaction (`--target-ratio`).
    Ratio(f64),
}

/// Everything the pipeline needs to know.
pub struct Settings<'a> {
    /// How transcripts are read.
    pub read: ReadOptions,
    /// When compaction is due.
    pub triggers: TriggerSettings,
    /// How far to go.
    pub target: Target,
    /// The strategies to run (`adaptive` by default).
    pub strategies: Vec<StrategyName>,
    /// Strategy settings.
    pub strategy: StrategySettings,
    /// Who writes summaries.
    pub summarizer: &'a dyn Summarizer,
    /// The run's token counter.
    pub counter: &'a TokenCounter,
}

/// What happened to one conversation.
#[derive(Debug, Clone)]
pub struct ConversationResult {
    /// Where it is in the file (`/3/traj`; empty for the whole file).
    pub location: String,
    /// Its measures before compaction.
    pub before: Measures,
    /// Triggers that fired.
    pub triggers: Vec<Trigger>,
    /// Why none fired, when none did.
    pub why_not: Option<String>,
    /// The target it was compacted towards.
    pub target_tokens: Option<usize>,
    /// The compaction, when one ran.
    pub compaction: Option<Compaction>,
    /// Context tokens after (exact, from the output read back).
    pub tokens_after: usize,
    /// Logical messages after.
    pub messages_after: usize,
    /// Facts kept.
    pub retention: Retention,
}

/// The result of one transcript.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The output text (the input itself when nothing changed).
    pub output: String,
    /// Whether any conversation changed.
    pub changed: bool,
    /// Where each edited conversation's list is in the output (`None`: left alone).
    pub spans: Vec<Option<crate::json::Span>>,
    /// Per conversation.
    pub conversations: Vec<ConversationResult>,
    /// Summaries written, over all conversations.
    pub stats: SummaryStats,
}

/// Compacts `t` under `settings`; an error means nothing may be written.
///
/// Each result is computed once. That the same input and settings give the same bytes
/// (invariant 5) is proven by the tests, which compact every corpus file twice with every
/// strategy and compare the bytes (tests/corpus/compact.rs), not by doing the work twice here.
pub fn run(t: &Transcript, settings: &Settings) -> Result<Outcome> {
    compact_once(t, settings)
}

fn compact_once(t: &Transcript, settings: &Settings) -> Result<Outcome> {
    let counter = settings.counter;
    let planned: Vec<Planned> = (0..t.conversations.len())
        .into_par_iter()
        .map(|c| plan_conversation(t, c, settings))
        .collect::<Result<_>>()?;
    let edits: Vec<Option<Vec<OutItem>>> = planned
        .iter()
        .map(|(s, compaction, ..)| {
            compaction
                .as_ref()
                .map(|(_, c)| &c.plan)
                .filter(|plan| **plan != s.keep_all())
                .map(|plan| plan.items.clone())
        })
        .collect();
    let changed = edits.iter().any(Option::is_some);
    let (output, spans) = if changed {
        let (output, spans) = t.write_with_spans(&edits);
        (Some(output), spans)
    } else {
        (None, vec![None; edits.len()])
    };
    let verified_edits: Vec<Edited> = planned
        .iter()
        .enumerate()
        .filter(|(c, _)| edits[*c].is_some())
        .map(|(c, (s, compaction, ..))| Edited {
            index: c,
            plan: &compaction.as_ref().expect("edited").1.plan,
            holds: &s.holds,
            tokens_before: s.keep_all().tokens(s),
        })
        .collect();
    // The output read back (or the input itself): borrowed or moved, never copied, since
    // large inputs make every copy count in peak memory.
    let out = match output {
        Some(output) => Cow::Owned(verify::verify(
            t,
            output,
            &verified_edits,
            &settings.read,
            counter,
        )?),
        None => Cow::Borrowed(t),
    };
    let mut stats = SummaryStats::default();
    let conversations = planned
        .into_iter()
        .enumerate()
        .map(|(c, (_, compaction, before, triggers))| {
            if let Some((_, compaction)) = &compaction {
                merge_stats(&mut stats, &compaction.stats);
            }
            let after = &out.conversations[c];
            let tokens_after = crate::count::count_conversation(counter, after).total();
            let messages_after = Measures::of(after, tokens_after).events;
            ConversationResult {
                location: t.conversations[c].location.clone(),
                why_not: triggers
                    .is_empty()
                    .then(|| trigger::why_not(&settings.triggers, &before)),
                target_tokens: compaction.as_ref().map(|(g, _)| g.target_tokens),
                before,
                triggers,
                retention: retention(&t.conversations[c], after),
                compaction: compaction.map(|(_, c)| c),
                tokens_after,
                messages_after,
            }
        })
        .collect();
    // `read` keeps its text as `source`, byte for byte: the verified output is what is written.
    let output = match out {
        Cow::Owned(read_back) => read_back.source,
        Cow::Borrowed(t) => t.source.clone(),
    };
    Ok(Outcome {
        output,
        changed,
        spans,
        conversations,
        stats,
    })
}

type Planned<'a> = (
    Subject<'a>,
    Option<(Goal, Compaction)>,
    Measures,
    Vec<Trigger>,
);

/// Measures conversation `c`, checks its triggers and, when one fires, compacts it.
fn plan_conversation<'a>(
    t: &'a Transcript,
    c: usize,
    settings: &Settings<'a>,
) -> Result<Planned<'a>> {
    let subject = Subject::new(t, c, settings.counter);
    let tokens = subject.keep_all().tokens(&subject);
    let measures = Measures::of(&t.conversations[c], tokens);
    let fired = trigger::fired(&settings.triggers, &measures);
    if fired.is_empty() {
        return Ok((subject, None, measures, fired));
    }
    let goal = goal(settings, &measures, &fired);
    let compaction = engine::compact(
        &subject,
        settings.summarizer,
        &settings.strategy,
        &settings.strategies,
        goal,
    )?;
    Ok((subject, Some((goal, compaction)), measures, fired))
}

/// The goal for a conversation whose triggers fired.
fn goal(settings: &Settings, m: &Measures, fired: &[Trigger]) -> Goal {
    let triggers = &settings.triggers;
    let threshold = triggers
        .token_threshold()
        .unwrap_or((0.8 * triggers.context_window as f64) as usize);
    let target_tokens = match settings.target {
        Target::Threshold => threshold,
        Target::Tokens(n) => n,
        Target::Ratio(r) => (r * m.tokens as f64).floor() as usize,
    };
    let has = |name: &str| fired.iter().any(|t| t.name() == name);
    Goal {
        target_tokens,
        turns_below: has("turns").then_some(triggers.turn_threshold),
        events_below: has("events").then_some(triggers.max_events),
        at_least_one_step: has("force") || has("marker"),
    }
}

fn merge_stats(total: &mut SummaryStats, one: &SummaryStats) {
    total.requests += one.requests;
    total.summaries += one.summaries;
    total.summary_tokens += one.summary_tokens;
    total.llm_calls += one.llm_calls;
    total.prompt_tokens += one.prompt_tokens;
    total.completion_tokens += one.completion_tokens;
    total.fallbacks.extend(one.fallbacks.iter().cloned());
}
