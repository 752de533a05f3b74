//! One transcript through the whole pipeline: count → triggers → plan (strategy chain) →
//! summarize → write → verify the invariants → report. Pure: text in, text and a report
//! out; `commands::compact` does the file I/O and runs files in parallel.
//!
//! Each conversation of a container is compacted on its own; conversations that need
//! nothing are written back byte-for-byte, and a file where nothing fires comes out
//! byte-identical.

use crate::calibrate::{self, Calibration, Prior};
use crate::engine::{self, Compaction, Goal};
use crate::facts::Facts;
use crate::plan::{Plan, Subject};
use crate::preserve::Hold;
use crate::retention::{Retention, retention, retention_of};
use crate::strategy::{StrategyName, StrategySettings, SummaryStats};
use crate::summarizer::Summarizer;
use crate::tokens::TokenCounter;
use crate::transcript::{
    Conversation, Finding, Format, OutItem, ReadError, ReadOptions, Transcript,
};
use crate::trigger::{self, Measures, Trigger, TriggerSettings};
use crate::verify::{self, Edited};
use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use std::borrow::Cow;

/// From this input size on, the pages of the program's read-only mappings (the token
/// tables, the code) are given back after each phase (a large conversation's first count,
/// each batch planned, planning, verifying): the next phase reads back only what it uses,
/// and what the last one touched would otherwise weigh in peak memory beside the input.
const RELEASE_PAGES_BYTES: usize = 8 << 20;

/// How much of a large source is planned between two releases while it is read.
const RELEASE_STEP_BYTES: usize = 4 << 20;

fn release_program_pages(bytes: usize) {
    if bytes >= RELEASE_PAGES_BYTES {
        crate::resident::release_read_only_pages();
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
    /// The context window it was measured against (given, or the one the transcript records).
    pub context_window: usize,
    /// Its measures before compaction.
    pub before: Measures,
    /// Triggers that fired.
    pub triggers: Vec<Trigger>,
    /// Why none fired, when none did; or why a conversation under its target was compacted
    /// (a trigger other than tokens asked).
    pub why_not: Option<String>,
    /// The target it was compacted towards (in ctxc's counts).
    pub target_tokens: Option<usize>,
    /// How provider tokens relate to ctxc's counts, fitted on the usage the conversation
    /// records (none without usage): `before.provider_tokens`.
    pub calibration: Option<Calibration>,
    /// The same for the output, [`Self::provider_tokens_after`]: fitted on the calls whose
    /// usage the compaction left describing what they were sent (what `ctxc stats` fits on
    /// the output), else [`Self::calibration`].
    pub calibration_after: Option<Calibration>,
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
        self.calibration_after.map(|c| c.predict(self.tokens_after))
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
    /// Conversations left as they were because they fail `check` ([`OnFindings::Keep`]).
    pub kept: Vec<Kept>,
}

impl Outcome<'_> {
    /// The context window of the largest conversation (the report's `contextWindow`).
    pub fn context_window(&self) -> usize {
        self.conversations
            .iter()
            .max_by_key(|c| c.before.tokens)
            .map_or(0, |c| c.context_window)
    }

    /// Context tokens after, summed over the conversations, as the model will be sent them:
    /// the provider's count over those that record usage when any does (the report's
    /// `calibratedContextTokensAfter`), else ctxc's (`contextTokensAfter`).
    pub fn sent_tokens_after(&self) -> usize {
        let calibrated = self
            .conversations
            .iter()
            .filter_map(ConversationResult::provider_tokens_after)
            .reduce(|a, b| a + b);
        calibrated.unwrap_or_else(|| self.conversations.iter().map(|c| c.tokens_after).sum())
    }
}

/// Compacts `t` under `settings`; an error means nothing may be written.
///
/// Each result is computed once. That the same input and settings give the same bytes
/// (invariant 5) is proven by the tests, which compact every corpus file twice with every
/// strategy and compare the bytes (tests/corpus/compact.rs), not by doing the work twice here.
pub fn run<'t>(t: &'t Transcript, settings: &Settings) -> Result<Outcome<'t>> {
    let planned = (0..t.conversations.len())
        .into_par_iter()
        .map(|c| plan_conversation(t.format, &t.source, &t.conversations[c], settings))
        .collect::<Result<_>>()?;
    finish(t, Plans::new(t, planned, None), settings)
}

/// A conversation kept as it was because it fails `check`: measured as it is, with no
/// trigger and no compaction, and the reason as its note.
fn measure_kept(
    format: Format,
    source: &str,
    conv: &Conversation,
    settings: &Settings,
    kept: &Kept,
) -> Planned {
    let subject = Subject::of(format, source, conv, settings.counter);
    let tokens = subject.keep_all().tokens(&subject);
    let triggers = settings.triggers.for_conversation(conv);
    let first = &kept.findings[0];
    let more = match kept.findings.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Planned {
        goal: None,
        compaction: None,
        why_not: Some(format!(
            "left as it was: line {}: {}{more} (fails `ctxc check`; --on-findings allow compacts it anyway)",
            first.line, first.message
        )),
        window: triggers.context_window,
        before: Measures::of(conv, tokens),
        triggers: Vec::new(),
        calibration: None,
        calibration_after: None,
        fate: Fate::Unedited(After {
            tokens,
            messages: Measures::of(conv, tokens).events,
            retention: retention(conv, conv),
        }),
    }
}

/// What a conversation that fails `ctxc check` does to its file (`--on-findings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnFindings {
    /// The conversation is left byte-for-byte as it was and reported; the file's other
    /// conversations are compacted. The caller decides when that is not enough: a file that
    /// is one conversation, or one session (Claude Code, Codex), is refused instead
    /// ([`crate::api::plan`]).
    #[default]
    Keep,
    /// The whole file is refused.
    Refuse,
    /// The conversation is compacted anyway; the output never has findings the input did not.
    Allow,
}

impl OnFindings {
    /// Every choice, as the command line lists them.
    pub const ALL: [OnFindings; 3] = [OnFindings::Keep, OnFindings::Refuse, OnFindings::Allow];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OnFindings::Keep => "keep",
            OnFindings::Refuse => "refuse",
            OnFindings::Allow => "allow",
        }
    }
}

/// A conversation left as it was because it fails `check` ([`OnFindings::Keep`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Its index in the transcript.
    pub conversation: usize,
    /// Where it is in the file (`/3/traj`; empty for the whole file).
    pub location: String,
    /// Its findings, sorted as `check` reports them.
    pub findings: Vec<Finding>,
}

/// Why [`read_and_plan`] failed, by step.
#[derive(Debug)]
pub enum PlanFailure {
    /// The text does not read as a transcript.
    Read(ReadError),
    /// The input has findings (all of them, sorted as `check` reports them) and findings were
    /// refused.
    Findings(Vec<Finding>),
    /// A conversation could not be compacted.
    Compact(anyhow::Error),
}

/// An input finding no edit can work around ([`Finding::blocks_edits`]): with findings
/// allowed, the file is still not compacted, and nothing is written.
#[derive(Debug, Clone)]
pub struct Unwritable(pub Finding);

impl std::fmt::Display for Unwritable {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{}: a compacted copy could not keep it faithfully, so nothing is written",
            self.0
        )
    }
}

impl std::error::Error for Unwritable {}

/// Reads `source` and plans its conversations as they are read, a batch at a time, releasing
/// each one's decoded content ([`Conversation::release_parts`]) once planned: writing,
/// verifying and reporting need only what the plans keep of it, so a large file's decoded text
/// is never all in memory. The transcript returned keeps its source, spans, lines and layouts.
///
/// With [`OnFindings::Refuse`], the input must pass `check`: nothing more is planned once a
/// conversation has a finding; with [`OnFindings::Keep`], a conversation with findings is not
/// planned, and is written back as it was ([`Plans::kept`]). A summarizer that calls a service plans nothing before the
/// whole file is read and checked. Failures come in the order the steps run: reading, then
/// checking, then compacting.
pub fn read_and_plan(
    source: String,
    settings: &Settings,
    on_findings: OnFindings,
) -> Result<(Transcript, Plans), PlanFailure> {
    let mut s = Streaming {
        settings,
        on_findings,
        batch_len: if settings.summarizer.local() {
            16 * rayon::current_num_threads()
        } else {
            usize::MAX
        },
        batch: Vec::new(),
        planned: Vec::new(),
        findings: Vec::new(),
        kept: Vec::new(),
        read: 0,
        failed: None,
        released_at: 0,
    };
    let mut t =
        crate::transcript::read_with(source, &settings.read, &mut |format, src, conv, done| {
            s.take(format, src, conv, done)
        })
        .map_err(PlanFailure::Read)?;
    s.flush(t.format, &t.source, &mut t.conversations);
    if !s.findings.is_empty() {
        crate::transcript::sort_findings(&mut s.findings);
        return Err(PlanFailure::Findings(s.findings));
    }
    if let Some(e) = s.failed {
        return Err(PlanFailure::Compact(e));
    }
    // Findings refused or kept were all taken as the file was read.
    let known = (s.on_findings != OnFindings::Allow).then(|| {
        let mut all: Vec<Finding> = s.kept.iter().flat_map(|k| k.findings.clone()).collect();
        crate::transcript::sort_findings(&mut all);
        all
    });
    let mut plans = Plans::new(&t, s.planned, known);
    plans.kept = s.kept;
    Ok((t, plans))
}

/// The state of [`read_and_plan`] while the file is read.
struct Streaming<'s, 'a> {
    settings: &'s Settings<'a>,
    on_findings: OnFindings,
    /// Conversations planned together (in parallel).
    batch_len: usize,
    batch: Vec<Conversation>,
    planned: Vec<Planned>,
    /// The findings so far, when they are refused.
    findings: Vec<Finding>,
    /// The conversations kept as they were, when findings are kept.
    kept: Vec<Kept>,
    /// Conversations read so far.
    read: usize,
    /// The first compaction that failed: nothing more is planned.
    failed: Option<anyhow::Error>,
    /// Where in the source the program's pages were last given back.
    released_at: usize,
}

impl Streaming<'_, '_> {
    /// Takes one conversation just read; plans the batch once it is full.
    fn take(
        &mut self,
        format: Format,
        source: &str,
        conv: Conversation,
        done: &mut Vec<Conversation>,
    ) {
        match self.on_findings {
            OnFindings::Refuse => self
                .findings
                .extend(crate::transcript::conversation_findings(
                    format, source, &conv,
                )),
            OnFindings::Keep => {
                let mut findings = crate::transcript::conversation_findings(format, source, &conv);
                if !findings.is_empty() {
                    crate::transcript::sort_findings(&mut findings);
                    self.kept.push(Kept {
                        conversation: self.read,
                        location: conv.location.clone(),
                        findings,
                    });
                }
            }
            OnFindings::Allow => {}
        }
        self.read += 1;
        self.batch.push(conv);
        if self.batch.len() >= self.batch_len {
            self.flush(format, source, done);
        }
    }

    /// Plans the batch (unless a finding or a failure already sank the file), releases its
    /// decoded content and hands it on.
    fn flush(&mut self, format: Format, source: &str, done: &mut Vec<Conversation>) {
        if self.findings.is_empty() && self.failed.is_none() {
            let settings = self.settings;
            let first = self.read - self.batch.len();
            let kept = &self.kept;
            let planned: Result<Vec<Planned>> = self
                .batch
                .par_iter()
                .enumerate()
                .map(|(k, conv)| {
                    let index = first + k;
                    match kept.iter().find(|kept| kept.conversation == index) {
                        Some(kept) => Ok(measure_kept(format, source, conv, settings, kept)),
                        None => plan_conversation(format, source, conv, settings),
                    }
                })
                .collect();
            match planned {
                Ok(planned) => self.planned.extend(planned),
                Err(e) => self.failed = Some(e),
            }
        }
        let read_to = self.batch.last().map_or(0, |c| c.span.end);
        let first = self.read - self.batch.len();
        // Plans for every conversation read so far, this batch's included: none failed.
        let planned = self.planned.len() == self.read && format.reads_back_copies(source.len());
        for (k, mut conv) in self.batch.drain(..).enumerate() {
            // What a plan copies is taken from here when the output is read back, where the
            // format can (`verify`), rather than decoded again: the same text in memory then
            // as the read-back would hold.
            let kept = match self.planned.get(first + k) {
                Some(p) if planned => p.copied(conv.items.len()),
                _ => Vec::new(),
            };
            conv.release_parts_except(&kept);
            done.push(conv);
        }
        // Every few MB, not every batch: reading /proc/self/smaps and faulting pages back
        // cost ~1 ms, 9% of the time on 600 tau-bench conversations when done per batch.
        if read_to >= self.released_at + RELEASE_STEP_BYTES {
            self.released_at = read_to;
            release_program_pages(source.len());
        }
    }
}

/// Every conversation of a transcript planned, with all that writing, verifying and
/// reporting need of the input's decoded content (see [`read_and_plan`]); [`finish`] does
/// the rest.
pub struct Plans {
    planned: Vec<Planned>,
    /// The input's findings, when some conversation changes (what the output may repeat).
    findings: Option<Vec<Finding>>,
    /// The conversations left as they were because they fail `check` ([`OnFindings::Keep`]).
    pub kept: Vec<Kept>,
}

impl Plans {
    /// `known`: the input's findings when they were already taken (`check` is not run twice).
    fn new(t: &Transcript, planned: Vec<Planned>, known: Option<Vec<Finding>>) -> Plans {
        release_program_pages(t.source.len());
        let changed = planned.iter().any(|p| matches!(p.fate, Fate::Edited(_)));
        // `check` reads no decoded content: it runs on a released transcript too.
        Plans {
            findings: changed.then(|| known.unwrap_or_else(|| crate::transcript::check(t))),
            planned,
            kept: Vec::new(),
        }
    }
}

/// A conversation's results after compaction.
#[derive(Debug, Clone, Copy)]
struct After {
    tokens: usize,
    messages: usize,
    retention: Retention,
}

/// Writes `t` as `plans` say, verifies the output and reports. Reads no decoded content of
/// `t`: its source, spans, lines and layouts are enough.
pub fn finish<'t>(t: &'t Transcript, plans: Plans, settings: &Settings) -> Result<Outcome<'t>> {
    let counter = settings.counter;
    let Plans {
        planned,
        findings,
        kept,
    } = plans;
    let mut afters: Vec<Option<After>> = planned
        .iter()
        .map(|p| match &p.fate {
            Fate::Unedited(after) => Some(*after),
            Fate::Edited(_) => None,
        })
        .collect();
    let (output, spans) = match findings {
        None => (Cow::Borrowed(t.source.as_str()), vec![None; planned.len()]),
        Some(findings) => {
            if let Some(finding) = findings.iter().find(|f| f.blocks_edits) {
                return Err(Unwritable(finding.clone()).into());
            }
            // Borrowed from the plans: a copy of every summary and replaced output would
            // count in peak memory.
            let edits: Vec<Option<&[OutItem]>> = planned
                .iter()
                .map(|p| p.edited().map(|(plan, _)| plan.items.as_slice()))
                .collect();
            let (output, spans) = t.write_with_spans(&edits);
            let verified: Vec<Edited> = planned
                .iter()
                .enumerate()
                .filter_map(|(c, p)| {
                    let (plan, check) = p.edited()?;
                    Some(Edited {
                        index: c,
                        plan,
                        holds: &check.holds,
                        tokens_before: check.tokens_before,
                        digests: &check.digests,
                    })
                })
                .collect();
            verify::verify(
                t,
                &findings,
                &output,
                &verified,
                &settings.read,
                counter,
                &mut |c, after, tokens| {
                    let Fate::Edited(check) = &planned[c].fate else {
                        return;
                    };
                    afters[c] = Some(After {
                        tokens,
                        messages: Measures::of(after, tokens).events,
                        retention: retention_of(&check.facts, after),
                    });
                },
            )?;
            release_program_pages(t.source.len());
            (Cow::Owned(output), spans)
        }
    };
    let changed = matches!(output, Cow::Owned(_));
    let mut stats = SummaryStats::default();
    let conversations = planned
        .into_iter()
        .zip(afters)
        .enumerate()
        .map(|(c, (p, after))| {
            let after = after.expect("every edited conversation is read back");
            if let Some(compaction) = &p.compaction {
                stats.add(&compaction.stats);
            }
            ConversationResult {
                location: t.conversations[c].location.clone(),
                context_window: p.window,
                why_not: p.why_not,
                target_tokens: p.goal.map(|g| g.target_tokens),
                calibration: p.calibration,
                calibration_after: p.calibration_after,
                before: p.before,
                triggers: p.triggers,
                retention: after.retention,
                compaction: p.compaction,
                tokens_after: after.tokens,
                messages_after: after.messages,
            }
        })
        .collect();
    Ok(Outcome {
        output,
        changed,
        spans,
        conversations,
        stats,
        kept,
    })
}

/// A conversation measured, its goal when a trigger fired, and its compaction when one ran.
struct Planned {
    goal: Option<Goal>,
    compaction: Option<Compaction>,
    /// Why no trigger fired, or why one under its target was compacted.
    why_not: Option<String>,
    /// The context window the triggers measured against.
    window: usize,
    before: Measures,
    triggers: Vec<Trigger>,
    calibration: Option<Calibration>,
    calibration_after: Option<Calibration>,
    fate: Fate,
}

/// Whether a conversation changes, with what is needed of its decoded content afterwards.
enum Fate {
    /// Written back byte-for-byte: its results after are its own, taken at planning.
    Unedited(After),
    /// Written from its plan: what verifying and reporting it need.
    Edited(EditCheck),
}

impl Planned {
    /// For each of the conversation's `n` items, whether its edit copies it to the output
    /// (kept, or stripped of stored-only copies).
    fn copied(&self, n: usize) -> Vec<bool> {
        let mut copied = vec![false; n];
        for out in self.edited().map_or(&[][..], |(plan, _)| &plan.items) {
            if let OutItem::Keep(i) | OutItem::Strip(i) = out {
                copied[*i] = true;
            }
        }
        copied
    }

    /// The plan written and what checks it, when the conversation changes.
    fn edited(&self) -> Option<(&Plan, &EditCheck)> {
        match (&self.fate, &self.compaction) {
            (Fate::Edited(check), Some(compaction)) => Some((&compaction.plan, check)),
            _ => None,
        }
    }
}

/// What [`verify`] and retention need of an edited conversation's input.
struct EditCheck {
    holds: Vec<Hold>,
    tokens_before: usize,
    digests: Vec<u128>,
    facts: Facts,
}

/// Measures conversation `conv` (of a `format` transcript whose text is `source`), checks its
/// triggers and, when one fires, compacts it; with `--drop-stored`, drops what is stored but
/// never sent in any case.
fn plan_conversation(
    format: Format,
    source: &str,
    conv: &Conversation,
    settings: &Settings,
) -> Result<Planned> {
    let mut subject = Subject::of(format, source, conv, settings.counter);
    release_program_pages(conv.span.len());
    let tokens = subject.keep_all().tokens(&subject);
    // Only a fit on recorded usage steers compaction; a default estimate is only reported.
    let usage = calibrate::Usage::of(
        settings.counter,
        subject.conv,
        &subject.tokens,
        subject.preamble_tokens,
    );
    let prior = Prior::for_transcript(format, None);
    let calibration = usage.fit(prior).filter(|c| !c.is_estimate());
    let measures = Measures::of(conv, tokens).with_provider(calibration.map(|c| c.predict(tokens)));
    // The window the transcript records, unless one was given.
    let triggers = settings.triggers.for_conversation(conv);
    let fired = trigger::fired(&triggers, &measures);
    let mut planned = None;
    if !fired.is_empty() {
        let steering = calibration.filter(|_| !triggers.raw_tokens);
        let goal = goal(settings, &triggers, &measures, &fired, steering);
        let compaction = engine::compact(
            &subject,
            settings.summarizer,
            &settings.strategy,
            &settings.strategies,
            goal,
        )?;
        planned = Some((goal, compaction));
    }
    // Under the target already, but a trigger other than tokens asked for a compaction:
    // the report says why anything was cut.
    let under_target = planned.as_ref().and_then(|(goal, k)| {
        let asked: Vec<&str> = fired.iter().map(Trigger::name).filter(|&n| n != "tokens").collect();
        (goal.at_least_one_step && k.tokens_before <= goal.target_tokens).then(|| {
            format!(
                "under its target already ({} ≤ {} tokens): {} asked for a compaction, so the first step that changes something was taken; --target-ratio or --target-tokens says how far",
                crate::human::thousands(k.tokens_before as u64),
                crate::human::thousands(goal.target_tokens as u64),
                asked.join("+")
            )
        })
    });
    let (goal, mut compaction) = planned.unzip();
    if settings.strategy.drop_stored {
        compaction = Some(engine::drop_stored(&subject, compaction));
    }
    // What follows copies a conversation's text (facts, retention) but counts nothing: a large
    // conversation's table pages go first.
    release_program_pages(conv.span.len());
    let keep_all = subject.keep_all();
    // The output's provider tokens, as `stats` of the output fits them: through the last call
    // the plan left as it was, when there is one (its usage still describes what it was
    // sent), with the slope of every call it keeps; else on every call, which is all that
    // describes this conversation.
    let calibration_after = calibration.map(|all| {
        compaction
            .as_ref()
            .and_then(|k| output_fit(&subject, &usage, &k.plan, prior.0))
            .unwrap_or(all)
    });
    let fate = if compaction.as_ref().is_some_and(|k| k.plan != keep_all) {
        Fate::Edited(EditCheck {
            tokens_before: keep_all.tokens(&subject),
            digests: conv
                .items
                .iter()
                .map(|item| verify::digest(&item.parts))
                .collect(),
            facts: Facts::of(&conv.items),
            holds: std::mem::take(&mut subject.holds),
        })
    } else {
        // Written back byte-for-byte, it reads back the same: the same count, messages and
        // facts.
        Fate::Unedited(After {
            tokens,
            messages: measures.events,
            retention: retention(conv, conv),
        })
    };
    Ok(Planned {
        goal,
        compaction,
        why_not: fired
            .is_empty()
            .then(|| trigger::why_not(&triggers, &measures))
            .or(under_target),
        window: triggers.context_window,
        before: measures,
        triggers: fired,
        calibration,
        calibration_after,
        fate,
    })
}

/// The fit `stats` makes of `plan`'s output (none: the plan changes nothing the model sees,
/// or no call before its first change is left).
fn output_fit(
    subject: &Subject,
    usage: &calibrate::Usage,
    plan: &Plan,
    prior: Prior,
) -> Option<Calibration> {
    let changes = changes(subject, plan);
    if changes.is_empty() {
        return None;
    }
    let mut kept = vec![false; subject.conv.items.len()];
    for i in plan.items.iter().filter_map(OutItem::kept) {
        kept[i] = true;
    }
    usage.fit_output(&changes, |i| kept[i], prior)
}

/// The items whose context `plan` changes, in order: each item dropped or summarized while
/// the model saw it, or edited in what it sees (a summary at the first item it replaces).
/// Records the model never sees may go and stored copies may be stripped: that changes no
/// call's context.
fn changes(subject: &Subject, plan: &Plan) -> Vec<usize> {
    let tokens = &subject.tokens;
    let seen = |range: std::ops::Range<usize>| range.into_iter().filter(|&i| tokens[i] > 0);
    let mut changes = Vec::new();
    let mut next = 0;
    for out in &plan.items {
        let originals = out.originals();
        // Items skipped since the previous output item were dropped.
        changes.extend(seen(next..originals.start));
        let changed = match out {
            OutItem::Keep(_) => false,
            OutItem::Strip(i) => subject.out_tokens(out) != tokens[*i],
            _ => true,
        };
        if changed {
            changes.push(originals.start);
        }
        next = next.max(originals.end);
    }
    changes.extend(seen(next..tokens.len()));
    changes.sort_unstable();
    changes.dedup();
    changes
}

/// The goal for a conversation whose triggers fired. With a `calibration`, the threshold and
/// `--target-tokens` are provider tokens, turned into the count the strategies work in.
fn goal(
    settings: &Settings,
    triggers: &TriggerSettings,
    m: &Measures,
    fired: &[Trigger],
    calibration: Option<Calibration>,
) -> Goal {
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
        // `--force`, the marker, turns and events ask for a compaction even under the target:
        // at least one step is taken (the report says so). A target on the command line asks
        // only for its size.
        at_least_one_step: fired
            .iter()
            .any(|t| !matches!(t, Trigger::Tokens { .. } | Trigger::Target)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::StrategyName;
    use crate::summarizer::extractive::Extractive;
    use crate::tokens::Encoding;
    use crate::trigger::TriggerSettings;

    fn settings<'a>(counter: &'a TokenCounter, summarizer: &'a Extractive) -> Settings<'a> {
        Settings {
            read: ReadOptions::default(),
            triggers: TriggerSettings {
                force: true,
                ..Default::default()
            },
            target: Target::Ratio(0.5),
            strategies: vec![StrategyName::ObservationMasking],
            strategy: StrategySettings::default(),
            summarizer,
            counter,
        }
    }

    /// Runs of a tau-bench-like file: `n` conversations, each a task, ten tool rounds with
    /// long outputs, and an answer; `orphan` adds a tool result without a call to run 1.
    fn runs(n: usize, orphan: bool) -> String {
        let runs: Vec<serde_json::Value> = (0..n)
            .map(|r| {
                let mut traj = vec![serde_json::json!({"role": "user", "content": format!("task {r}: check the order")})];
                for k in 0..10 {
                    let id = format!("c{r}_{k}");
                    traj.push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "get_order", "arguments": format!("{{\"id\": {k}}}")}}]}));
                    traj.push(serde_json::json!({"role": "tool", "tool_call_id": id, "content": format!("order {k}: ").repeat(200)}));
                }
                if orphan && r == 1 {
                    traj.push(serde_json::json!({"role": "tool", "tool_call_id": "nowhere", "content": "late"}));
                }
                traj.push(serde_json::json!({"role": "assistant", "content": "all checked"}));
                serde_json::json!({"task_id": r, "traj": traj})
            })
            .collect();
        serde_json::to_string_pretty(&runs).unwrap()
    }

    #[test]
    fn planning_while_reading_gives_what_run_gives() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let summarizer = Extractive;
        let settings = settings(&counter, &summarizer);
        let source = runs(30, false);
        let whole = crate::transcript::read(source.clone(), &settings.read).unwrap();
        let expected = run(&whole, &settings).unwrap();
        assert!(expected.changed);
        let (t, plans) = read_and_plan(source, &settings, OnFindings::Refuse).unwrap();
        // Released, but for what the plan copies, which verifying takes from the input.
        let items = &t.conversations[0].items;
        let copied = plans.planned[0].copied(items.len());
        assert!(
            items
                .iter()
                .zip(&copied)
                .all(|(i, c)| *c || i.parts.is_empty())
        );
        assert!(
            items
                .iter()
                .zip(&copied)
                .any(|(i, c)| *c && !i.parts.is_empty())
        );
        let got = finish(&t, plans, &settings).unwrap();
        assert_eq!(got.output, expected.output);
        assert_eq!(got.spans, expected.spans);
        let results = |o: &Outcome| -> Vec<(usize, usize, Retention)> {
            o.conversations
                .iter()
                .map(|c| (c.tokens_after, c.messages_after, c.retention))
                .collect()
        };
        assert_eq!(results(&got), results(&expected));
    }

    #[test]
    fn without_step_plans_only_the_final_plan_is_kept() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let summarizer = Extractive;
        let mut settings = settings(&counter, &summarizer);
        settings.strategies = vec![StrategyName::ObservationMasking, StrategyName::FullSummary];
        settings.target = Target::Ratio(0.2);
        let t = crate::transcript::read(runs(3, false), &settings.read).unwrap();
        let kept = run(&t, &settings).unwrap();
        settings.strategy.step_plans = false;
        let lean = run(&t, &settings).unwrap();
        assert_eq!(lean.output, kept.output);
        let mut multi = 0;
        for (k, l) in kept.conversations.iter().zip(&lean.conversations) {
            let (k, l) = (
                k.compaction.as_ref().unwrap(),
                l.compaction.as_ref().unwrap(),
            );
            let changed: Vec<usize> = (0..k.steps.len()).filter(|&i| k.steps[i].changed).collect();
            multi += usize::from(changed.len() > 1);
            for (n, &i) in changed.iter().enumerate() {
                assert!(k.plan_after(i).is_some());
                if n + 1 == changed.len() {
                    assert_eq!(l.plan_after(i), Some(&l.plan));
                } else {
                    assert_eq!(l.plan_after(i), None, "step {i} kept its plan");
                }
            }
        }
        assert!(multi > 0, "no conversation changed in two steps");
    }

    #[test]
    fn a_kept_conversation_is_written_as_it_was_and_the_others_compacted() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let summarizer = Extractive;
        let settings = settings(&counter, &summarizer);
        let source = runs(30, true);
        let (t, plans) = read_and_plan(source.clone(), &settings, OnFindings::Keep).unwrap();
        assert_eq!(plans.kept.len(), 1);
        assert_eq!(plans.kept[0].conversation, 1);
        assert!(plans.kept[0].findings[0].message.contains("nowhere"));
        let out = finish(&t, plans, &settings).unwrap();
        let value: Vec<serde_json::Value> = serde_json::from_str(&out.output).unwrap();
        let original: Vec<serde_json::Value> = serde_json::from_str(&source).unwrap();
        assert_eq!(value[1], original[1]);
        assert!(
            out.spans[1].is_none(),
            "the kept conversation is copied from the input"
        );
        let compacted = out
            .conversations
            .iter()
            .filter(|c| c.compaction.is_some())
            .count();
        assert_eq!(compacted, 29);
        assert!(
            out.conversations[1]
                .why_not
                .as_deref()
                .unwrap()
                .starts_with("left as it was")
        );
    }

    #[test]
    fn a_finding_in_a_later_conversation_refuses_the_file_with_every_finding() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let summarizer = Extractive;
        let settings = settings(&counter, &summarizer);
        let source = runs(30, true);
        let whole = crate::transcript::read(source.clone(), &settings.read).unwrap();
        let findings = crate::transcript::check(&whole);
        assert!(!findings.is_empty());
        match read_and_plan(source.clone(), &settings, OnFindings::Refuse) {
            Err(PlanFailure::Findings(got)) => assert_eq!(got, findings),
            other => panic!("expected the findings, got {:?}", other.map(|_| ())),
        }
        let (t, plans) = read_and_plan(source, &settings, OnFindings::Allow).unwrap();
        assert!(finish(&t, plans, &settings).unwrap().changed);
        match read_and_plan("[{\"traj\": [".into(), &settings, OnFindings::Refuse) {
            Err(PlanFailure::Read(_)) => {}
            other => panic!("expected a read error, got {:?}", other.map(|_| ())),
        }
    }
}
