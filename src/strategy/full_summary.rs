//! `full-summary` (seeds 000, 002, 003; the last resort): everything that is not preserved —
//! earlier summaries included — becomes one summary. What is preserved stays verbatim beside
//! it (system, the original task, pins, the current turn); the summary carries the latest task
//! list, the files touched, the commands run and git diff statistics.

use super::{Context, Strategy, StrategyName};
use crate::plan::{Plan, runs};
use crate::summarizer::Scope;
use anyhow::Result;

/// The full summary.
pub struct FullSummary;

impl Strategy for FullSummary {
    fn name(&self) -> StrategyName {
        StrategyName::FullSummary
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        let units = cx.units(&plan);
        let free = runs(&units, |_, u| u.free);
        cx.summarize_runs(plan, units, free, Scope::Full)
    }
}
