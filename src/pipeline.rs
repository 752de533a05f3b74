//! One transcript through the whole pipeline: count → triggers → plan (strategy chain) →
//! summarize → write → verify the invariants → report. Pure: text in, text and a report
//! out; `commands::compact` does the file I/O and runs files in parallel.
//!
//! Each conversation of a container is compacted on its own; conversations that need
//! nothing are written back byte-for-byte, and a file where nothing fires comes out
//! byte-identical.

use crate::calibrate::{self, Calibration, Prior};
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

/// From this input size on, the token tables' pages are given back after each phase that
/// counts much (a large conversation's first count, planning, verifying): they would
/// otherwise weigh in peak memory as much as the input's decoded text.
const RELEASE_TABLE_BYTES: usize = 8 << 20;

fn release_table_pages(counter: &TokenCounter, bytes: usize) {
    if bytes >= RELEASE_TABLE_BYTES {
        counter.release_table_pages();
    }
}

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
    /// The target it was compacted towards (in ctxc's counts).
    pub target_tokens: Option<usize>,
    /// How provider tokens relate to ctxc's counts, fitted on the usage the conversation
    /// records (none without usage): `before.provider_tokens` and [`Self::provider_tokens_after`].
    pub calibration: Option<Calibration>,
    /// The compaction, when one ran.
    pub compaction: Option<Compaction>,
    /// Context tokens after (exact, from the output read back).
    pub tokens_after: usize,
    /// Logical messages after.
    pub messages_after: usize,
    /// Facts kept.
    pub retention: Retention,
}

impl ConversationResult {
    /// Context tokens after, as the provider would count them (the fit applied to the output).
    pub fn provider_tokens_after(&self) -> Option<usize> {
        self.calibration.map(|c| c.predict(self.tokens_after))
    }
}

/// The result of one transcript.
#[derive(Debug, Clone)]
pub struct Outcome<'a> {
    /// The output text: the input itself, borrowed, when nothing changed.
    pub output: Cow<'a, str>,
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
pub fn run<'t>(t: &'t Transcript, settings: &Settings) -> Result<Outcome<'t>> {
    compact_once(t, settings)
}

fn compact_once<'t>(t: &'t Transcript, settings: &Settings) -> Result<Outcome<'t>> {
    let counter = settings.counter;
    let planned: Vec<Planned> = (0..t.conversations.len())
        .into_par_iter()
        .map(|c| plan_conversation(t, c, settings))
        .collect::<Result<_>>()?;
    release_table_pages(counter, t.source.len());
    // Borrowed from the plans: a copy of every summary and replaced output would count in
    // peak memory.
    let edits: Vec<Option<&[OutItem]>> = planned
        .iter()
        .map(|(s, _, compaction, ..)| {
            compaction
                .as_ref()
                .map(|c| &c.plan)
                .filter(|plan| **plan != s.keep_all())
                .map(|plan| plan.items.as_slice())
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
        .map(|(c, (s, _, compaction, ..))| Edited {
            index: c,
            plan: &compaction.as_ref().expect("edited").plan,
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
    release_table_pages(counter, t.source.len());
    let mut stats = SummaryStats::default();
    let conversations = planned
        .into_iter()
        .enumerate()
        .map(
            |(c, (_, goal, compaction, before, triggers, calibration))| {
                if let Some(compaction) = &compaction {
                    stats.add(&compaction.stats);
                }
                let after = &out.conversations[c];
                let tokens_after = crate::count::count_conversation(counter, after).total();
                let messages_after = Measures::of(after, tokens_after).events;
                ConversationResult {
                    location: t.conversations[c].location.clone(),
                    why_not: triggers
                        .is_empty()
                        .then(|| trigger::why_not(&settings.triggers, &before)),
                    target_tokens: goal.map(|g| g.target_tokens),
                    calibration,
                    before,
                    triggers,
                    retention: retention(&t.conversations[c], after),
                    compaction,
                    tokens_after,
                    messages_after,
                }
            },
        )
        .collect();
    // `read` keeps its text as `source`, byte for byte: the verified output is what is written.
    let output = match out {
        Cow::Owned(read_back) => Cow::Owned(read_back.source),
        Cow::Borrowed(t) => Cow::Borrowed(t.source.as_str()),
    };
    Ok(Outcome {
        output,
        changed,
        spans,
        conversations,
        stats,
    })
}

/// A conversation measured, its goal when a trigger fired, and its compaction when one ran.
type Planned<'a> = (
    Subject<'a>,
    Option<Goal>,
    Option<Compaction>,
    Measures,
    Vec<Trigger>,
    Option<Calibration>,
);

/// Measures conversation `c`, checks its triggers and, when one fires, compacts it; with
/// `--drop-stored`, drops what is stored but never sent in any case.
fn plan_conversation<'a>(
    t: &'a Transcript,
    c: usize,
    settings: &Settings<'a>,
) -> Result<Planned<'a>> {
    let subject = Subject::new(t, c, settings.counter);
    release_table_pages(settings.counter, t.conversations[c].span.len());
    let tokens = subject.keep_all().tokens(&subject);
    // Only a fit on recorded usage steers compaction; a default estimate is only reported.
    let calibration = calibrate::conversation(
        settings.counter,
        subject.conv,
        &subject.tokens,
        subject.preamble_tokens,
        Prior::for_transcript(t.format, None),
    )
    .filter(|c| !c.is_estimate());
    let measures = Measures::of(&t.conversations[c], tokens)
        .with_provider(calibration.map(|c| c.predict(tokens)));
    let fired = trigger::fired(&settings.triggers, &measures);
    let mut planned = None;
    if !fired.is_empty() {
        let steering = calibration.filter(|_| !settings.triggers.raw_tokens);
        let goal = goal(settings, &measures, &fired, steering);
        let compaction = engine::compact(
            &subject,
            settings.summarizer,
            &settings.strategy,
            &settings.strategies,
            goal,
        )?;
        planned = Some((goal, compaction));
    }
    let (goal, mut compaction) = planned.unzip();
    if settings.strategy.drop_stored {
        compaction = Some(engine::drop_stored(&subject, compaction));
    }
    Ok((subject, goal, compaction, measures, fired, calibration))
}

/// The goal for a conversation whose triggers fired. With a `calibration`, the threshold and
/// `--target-tokens` are provider tokens, turned into the count the strategies work in.
fn goal(
    settings: &Settings,
    m: &Measures,
    fired: &[Trigger],
    calibration: Option<Calibration>,
) -> Goal {
    let triggers = &settings.triggers;
    let threshold = triggers
        .token_threshold()
        .unwrap_or((0.8 * triggers.context_window as f64) as usize);
    let counted = |provider: usize| calibration.map_or(provider, |c| c.counted_for(provider));
    let target_tokens = match settings.target {
        Target::Threshold => counted(threshold),
        Target::Tokens(n) => counted(n),
        Target::Ratio(r) => (r * m.tokens as f64).floor() as usize,
    };
    Goal {
        target_tokens,
        at_least_one_step: fired.iter().any(|t| t.name() != "tokens"),
    }
}
