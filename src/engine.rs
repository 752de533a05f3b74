//! Compacting one conversation: run the chosen strategies (or the adaptive chain) one step at
//! a time, re-counting after each (seed 000), until the goal is met; a step that would add
//! tokens is not taken. When the chain runs out first, say why.

use crate::human::thousands;
use crate::plan::{Plan, Subject};
use crate::preserve::{Hold, Reason};
use crate::strategy::{
    CoarseStep, Context, Rung, StrategyName, StrategySettings, SummaryStats, TaskType,
};
use crate::summarizer::Summarizer;
use crate::tokens::TOKENS_PER_REPLY;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// When a conversation is compact enough. A trigger decides *whether* to compact; the target
/// alone decides how far (DESIGN "How far").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Goal {
    /// Context tokens to get to or under.
    pub target_tokens: usize,
    /// Take at least one step that changes something, even when already under target (a
    /// trigger other than tokens fired: `--force`, the marker, turns, messages).
    pub at_least_one_step: bool,
}

/// One strategy tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// The strategy.
    pub strategy: StrategyName,
    /// Context tokens before it.
    pub tokens_before: usize,
    /// Context tokens after it.
    pub tokens_after: usize,
    /// Messages after it.
    pub messages_after: usize,
    /// Whether it changed anything.
    pub changed: bool,
    /// Old thinking blocks it dropped (`trim-outputs`); its tokens are in the step's.
    #[serde(skip_serializing_if = "is_zero")]
    pub thinking_dropped: usize,
    /// The plan after it (for archives), when it changed the plan; `None` for the last step
    /// that did, whose plan is [`Compaction::plan`] (a copy of a large plan counts in peak
    /// memory). Read it with [`Compaction::plan_after`].
    #[serde(skip)]
    pub plan: Option<Plan>,
}

/// The result of compacting one conversation.
#[derive(Debug, Clone)]
pub struct Compaction {
    /// The final plan.
    pub plan: Plan,
    /// Strategies tried, in order.
    pub steps: Vec<Step>,
    /// The task type, when `adaptive` chose the chain.
    pub task_type: Option<TaskType>,
    /// Summaries written.
    pub stats: SummaryStats,
    /// Context tokens before.
    pub tokens_before: usize,
    /// Context tokens of the final plan.
    pub tokens_after: usize,
    /// Why the goal was not met, when it was not.
    pub shortfall: Option<Shortfall>,
    /// Why it landed under 85% of the target, when it did for a reason ctxc can name.
    pub undershoot: Option<CoarseStep>,
}

/// Compacts the subject's conversation with `strategies` towards `goal`.
///
/// A tighter target never yields a bigger output: a run that misses its target (what must
/// stay verbatim is more than it leaves) went deeper than a looser target would, and a
/// deeper step can come out bigger (a summary of everything, kept at full size because a
/// smaller one loses essentials). So a miss is compared with the run at twice the target,
/// itself compared so in turn, and the smaller is kept. A summarizer that calls a service or
/// may answer differently each time is not asked again.
pub fn compact(
    subject: &Subject,
    summarizer: &dyn Summarizer,
    settings: &StrategySettings,
    strategies: &[StrategyName],
    goal: Goal,
) -> Result<Compaction> {
    let mut best = compact_once(subject, summarizer, settings, strategies, goal)?;
    let again = summarizer.deterministic() && summarizer.local();
    let (mut target, mut missed) = (goal.target_tokens, best.tokens_after > goal.target_tokens);
    while again && missed && target > 0 && target.saturating_mul(2) < best.tokens_before {
        target *= 2;
        let looser = Goal {
            target_tokens: target,
            ..goal
        };
        let other = compact_once(subject, summarizer, settings, strategies, looser)?;
        missed = other.tokens_after > target;
        if other.tokens_after < best.tokens_after {
            let short = other.tokens_after > goal.target_tokens;
            best = Compaction {
                shortfall: short.then(|| shortfall(subject, &other.plan, &goal)),
                undershoot: None,
                ..other
            };
        }
    }
    Ok(best)
}

/// One run of the chain towards `goal`.
fn compact_once(
    subject: &Subject,
    summarizer: &dyn Summarizer,
    settings: &StrategySettings,
    strategies: &[StrategyName],
    goal: Goal,
) -> Result<Compaction> {
    let cx = Context::new(subject, summarizer, settings, goal.target_tokens);
    let (task_type, chain) = expand(subject, settings, strategies);
    let mut plan = subject.keep_all();
    // The plan's tokens and messages, measured again only when a step changes it: pricing a
    // plan counts its summaries and rewritten outputs again.
    let mut tokens = plan.tokens(subject);
    let mut messages = None;
    let tokens_before = tokens;
    let mut steps: Vec<Step> = Vec::new();
    for rung in chain {
        let name = rung.strategy;
        let changed_yet = steps.iter().any(|s| s.changed);
        let under = tokens <= goal.target_tokens;
        if under && (changed_yet || !goal.at_least_one_step) {
            break;
        }
        let before = tokens;
        // A forced step under target is taken in full; otherwise only as far as needed.
        let next = cx.apply_rung(rung, plan.clone(), under)?;
        let after = next.tokens(subject);
        let changed = next != plan && after <= before;
        let mut thinking_dropped = 0;
        if changed {
            thinking_dropped = crate::strategy::thinking_dropped(subject, &plan, &next);
            plan = next;
            tokens = after;
            messages = None;
        }
        let messages_after = *messages.get_or_insert_with(|| plan.measures(subject).1);
        steps.push(Step {
            strategy: name,
            tokens_before: before,
            tokens_after: tokens,
            messages_after,
            changed,
            thinking_dropped,
            plan: (changed && settings.step_plans).then(|| plan.clone()),
        });
    }
    // The last change's plan is the final one: no second copy.
    if let Some(last) = steps.iter_mut().rev().find(|s| s.changed) {
        last.plan = None;
    }
    let tokens_after = tokens;
    let shortfall = (tokens > goal.target_tokens).then(|| shortfall(subject, &plan, &goal));
    let undershoot = cx
        .coarse
        .take()
        .filter(|c| c.landed == tokens_after && tokens_after * 100 < goal.target_tokens * 85);
    Ok(Compaction {
        plan,
        steps,
        task_type,
        stats: cx.stats.into_inner(),
        tokens_before,
        tokens_after,
        shortfall,
        undershoot,
    })
}

impl Compaction {
    /// The plan after step `i`, when that step changed it and its plan was kept
    /// ([`StrategySettings::step_plans`]; the last change's is the final plan).
    pub fn plan_after(&self, i: usize) -> Option<&Plan> {
        let step = self.steps.get(i).filter(|s| s.changed)?;
        match &step.plan {
            Some(plan) => Some(plan),
            None if !self.steps[i + 1..].iter().any(|s| s.changed) => Some(&self.plan),
            None => None,
        }
    }
}

/// The chain to run: `adaptive` expands to its steps (its task type is reported).
fn expand(
    subject: &Subject,
    settings: &StrategySettings,
    strategies: &[StrategyName],
) -> (Option<TaskType>, Vec<Rung>) {
    let mut task_type = None;
    let mut chain = Vec::new();
    for &name in strategies {
        if name == StrategyName::Adaptive {
            let (task, steps) = crate::strategy::adaptive_chain(subject, settings.keep_payloads);
            task_type = Some(task);
            chain.extend(steps);
        } else {
            chain.push(name.into());
        }
    }
    (task_type, chain)
}

/// Why a plan misses its goal: what its tokens are made of, in parts that add up to the
/// total — what must stay verbatim (by reason), summaries, and the messages the strategies'
/// own rules keep (recent messages, outputs too short to shorten).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortfall {
    /// Context tokens left.
    pub tokens: usize,
    /// The target missed.
    pub target: usize,
    /// What must stay verbatim, by what it is, in report order.
    pub verbatim: Vec<(String, usize)>,
    /// Summaries (ctxc's, written by this run).
    pub summaries: usize,
    /// Free messages the strategies' rules keep.
    pub kept: usize,
}

impl Shortfall {
    /// Everything that must stay verbatim.
    pub fn verbatim_tokens(&self) -> usize {
        self.verbatim.iter().map(|(_, t)| t).sum()
    }
}

impl std::fmt::Display for Shortfall {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let parts: Vec<String> = self
            .verbatim
            .iter()
            .map(|(what, t)| format!("{what} {}", thousands(*t)))
            .collect();
        write!(
            f,
            "{} tokens left, target {}: {} must stay verbatim ({}), {} are summaries, {} are \
             messages the strategies' rules keep (the most recent ones, outputs too short to cut)",
            thousands(self.tokens),
            thousands(self.target),
            thousands(self.verbatim_tokens()),
            parts.join(", "),
            thousands(self.summaries),
            thousands(self.kept),
        )
    }
}

/// What `plan`'s tokens are made of, against `goal`.
fn shortfall(subject: &Subject, plan: &Plan, goal: &Goal) -> Shortfall {
    let mut by_reason: BTreeMap<Reason, usize> = BTreeMap::new();
    let (mut frozen, mut summaries, mut kept) = (0, 0, 0);
    for out in &plan.items {
        let t = subject.out_tokens(out);
        match out.kept().map(|i| subject.holds[i]) {
            Some(Hold::Preserved(reason)) => *by_reason.entry(reason).or_default() += t,
            Some(Hold::Frozen) => frozen += t,
            Some(Hold::Free) => kept += t,
            None => summaries += t,
        }
    }
    let mut verbatim: Vec<(String, usize)> = by_reason
        .iter()
        .map(|(r, t)| (r.label().to_string(), *t))
        .collect();
    if subject.preamble_tokens > 0 {
        verbatim.push((
            "tool definitions and system prompt".into(),
            subject.preamble_tokens,
        ));
    }
    if frozen > 0 {
        verbatim.push(("records before the compact boundary".into(), frozen));
    }
    verbatim.push(("reply priming".into(), TOKENS_PER_REPLY));
    Shortfall {
        tokens: plan.tokens(subject),
        target: goal.target_tokens,
        verbatim,
        summaries,
        kept,
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `--drop-stored`: `compaction` (or, when no trigger fired, one that keeps everything) with a
/// last `drop-stored` step, which removes what is stored but never sent and leaves the
/// model's context as it is.
pub fn drop_stored(subject: &Subject, compaction: Option<Compaction>) -> Compaction {
    let mut c = compaction.unwrap_or_else(|| {
        let plan = subject.keep_all();
        let tokens = plan.tokens(subject);
        Compaction {
            plan,
            steps: Vec::new(),
            task_type: None,
            stats: SummaryStats::default(),
            tokens_before: tokens,
            tokens_after: tokens,
            shortfall: None,
            undershoot: None,
        }
    });
    let before = c.plan.tokens(subject);
    let next = crate::strategy::drop_stored(subject, c.plan.clone());
    let changed = next != c.plan;
    let previous = std::mem::replace(&mut c.plan, next);
    if changed {
        // The plan of the last change so far is no longer the final one.
        if let Some(last) = c.steps.iter_mut().rev().find(|s| s.changed) {
            last.plan = Some(previous);
        }
    }
    c.tokens_after = c.plan.tokens(subject);
    debug_assert_eq!(before, c.tokens_after, "drop-stored changed the context");
    c.steps.push(Step {
        strategy: StrategyName::DropStored,
        tokens_before: before,
        tokens_after: c.tokens_after,
        messages_after: c.plan.measures(subject).1,
        changed,
        thinking_dropped: 0,
        plan: None,
    });
    c
}
