//! Compacting one conversation: run the chosen strategies (or the adaptive chain) one step at
//! a time, re-counting after each (seed 000), until the goal is met; a step that would add
//! tokens is not taken. When the chain runs out first, say why.

use crate::plan::{Plan, Subject};
use crate::preserve::{Hold, Reason};
use crate::strategy::{Context, StrategyName, StrategySettings, SummaryStats, TaskType};
use crate::summarizer::Summarizer;
use anyhow::Result;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// When a conversation is compact enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Goal {
    /// Context tokens to get to or under.
    pub target_tokens: usize,
    /// User turns to get under (when the turn trigger fired).
    pub turns_below: Option<usize>,
    /// Messages to get under (when the event trigger fired).
    pub events_below: Option<usize>,
    /// Take at least one step that changes something, even when already under target
    /// (`--force`, the `!!!SUMMARY!!!` marker).
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
    /// The plan after it (for archives).
    #[serde(skip)]
    pub plan: Plan,
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
    pub shortfall: Option<String>,
}

/// Compacts the subject's conversation with `strategies` towards `goal`.
pub fn compact(
    subject: &Subject,
    summarizer: &dyn Summarizer,
    settings: &StrategySettings,
    strategies: &[StrategyName],
    goal: Goal,
) -> Result<Compaction> {
    let cx = Context {
        subject,
        summarizer,
        settings,
        target: goal.target_tokens,
        stats: RefCell::new(SummaryStats::default()),
    };
    let (task_type, chain) = expand(subject, settings, strategies);
    let mut plan = subject.keep_all();
    let tokens_before = plan.tokens(subject);
    let mut steps: Vec<Step> = Vec::new();
    for name in chain {
        let changed_yet = steps.iter().any(|s| s.changed);
        if met(subject, &plan, &goal) && (changed_yet || !goal.at_least_one_step) {
            break;
        }
        let before = plan.tokens(subject);
        let next = name.strategy().apply(&cx, plan.clone())?;
        let after = next.tokens(subject);
        let changed = next != plan && after <= before;
        if changed {
            plan = next;
        }
        steps.push(Step {
            strategy: name,
            tokens_before: before,
            tokens_after: plan.tokens(subject),
            messages_after: plan.measures(subject).1,
            changed,
            plan: plan.clone(),
        });
    }
    let tokens_after = plan.tokens(subject);
    let shortfall = (!met(subject, &plan, &goal)).then(|| shortfall(subject, &plan, &goal));
    Ok(Compaction {
        plan,
        steps,
        task_type,
        stats: cx.stats.into_inner(),
        tokens_before,
        tokens_after,
        shortfall,
    })
}

/// The chain to run: `adaptive` expands to its steps (its task type is reported).
fn expand(
    subject: &Subject,
    settings: &StrategySettings,
    strategies: &[StrategyName],
) -> (Option<TaskType>, Vec<StrategyName>) {
    let mut task_type = None;
    let mut chain = Vec::new();
    for &name in strategies {
        if name == StrategyName::Adaptive {
            let (task, steps) = crate::strategy::adaptive_chain(subject, settings.keep_payloads);
            task_type = Some(task);
            chain.extend(steps);
        } else {
            chain.push(name);
        }
    }
    (task_type, chain)
}

fn met(subject: &Subject, plan: &Plan, goal: &Goal) -> bool {
    let (turns, events) = plan.measures(subject);
    plan.tokens(subject) <= goal.target_tokens
        && goal.turns_below.is_none_or(|t| turns < t)
        && goal.events_below.is_none_or(|e| events < e)
}

/// Why `plan` misses `goal`: how much of what is left is preserved, and why.
fn shortfall(subject: &Subject, plan: &Plan, goal: &Goal) -> String {
    let tokens = plan.tokens(subject);
    let (turns, events) = plan.measures(subject);
    let mut misses = Vec::new();
    if tokens > goal.target_tokens {
        misses.push(format!(
            "{} tokens left, target {}",
            thousands(tokens),
            thousands(goal.target_tokens)
        ));
    }
    if let Some(t) = goal.turns_below.filter(|t| turns >= *t) {
        misses.push(format!("{turns} turns left, below {t} wanted"));
    }
    if let Some(e) = goal.events_below.filter(|e| events >= *e) {
        misses.push(format!("{events} messages left, below {e} wanted"));
    }
    let mut by_reason: BTreeMap<Reason, usize> = BTreeMap::new();
    let mut fixed = subject.preamble_tokens;
    for out in &plan.items {
        let Some(i) = out.kept() else { continue };
        match subject.holds[i] {
            Hold::Preserved(reason) => {
                *by_reason.entry(reason).or_default() += subject.out_tokens(out);
            }
            Hold::Frozen => {}
            Hold::Free => continue,
        }
        fixed += subject.out_tokens(out);
    }
    let reasons: Vec<String> = by_reason
        .iter()
        .map(|(r, t)| format!("{} {}", r.label(), thousands(*t)))
        .collect();
    let preamble = if subject.preamble_tokens > 0 {
        format!(
            ", tool definitions and system prompt {}",
            thousands(subject.preamble_tokens)
        )
    } else {
        String::new()
    };
    format!(
        "{}: {} tokens must stay verbatim ({}{preamble}) and every strategy has run",
        misses.join("; "),
        thousands(fixed),
        if reasons.is_empty() {
            "nothing preserved".to_string()
        } else {
            reasons.join(", ")
        },
    )
}

fn thousands(n: usize) -> String {
    crate::report::thousands(n as u64)
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
        }
    });
    let before = c.plan.tokens(subject);
    let next = crate::strategy::drop_stored(subject, c.plan.clone());
    let changed = next != c.plan;
    c.plan = next;
    c.tokens_after = c.plan.tokens(subject);
    debug_assert_eq!(before, c.tokens_after, "drop-stored changed the context");
    c.steps.push(Step {
        strategy: StrategyName::DropStored,
        tokens_before: before,
        tokens_after: c.tokens_after,
        messages_after: c.plan.measures(subject).1,
        changed,
        plan: c.plan.clone(),
    });
    c
}
