//! `importance` (seed 000): score every unit (see `signals` for the features), keep those
//! scoring at least `importance_score_threshold` (3.0), keep the most recent low-scoring
//! units anyway (5), and summarize the rest, each run of low-scoring units on its own.

use super::{Context, Strategy, StrategyName, compactable};
use crate::plan::{Plan, runs};
use crate::summarizer::Scope;
use anyhow::Result;

/// Importance scoring.
pub struct Importance;

impl Strategy for Importance {
    fn name(&self) -> StrategyName {
        StrategyName::Importance
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        let units = cx.units(&plan);
        let low: Vec<bool> = units
            .iter()
            .map(|u| compactable(u) && cx.signals(&plan, u).score() < cx.settings.importance_threshold)
            .collect();
        let spare = recent_indices(&low, cx.settings.importance_keep_recent);
        let picked = runs(&units, |i, _| low[i] && !spare.contains(&i));
        cx.summarize_runs(plan, units, picked, Scope::Span)
    }
}

/// The indices of the last `keep` entries of `flags` that are set.
pub fn recent_indices(flags: &[bool], keep: usize) -> Vec<usize> {
    flags
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, f)| **f)
        .take(keep)
        .map(|(i, _)| i)
        .collect()
}
