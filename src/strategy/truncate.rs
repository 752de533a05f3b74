//! `truncate` (seed 004; the hard limit when summaries fail or do not suffice): keep what is
//! preserved plus the most recent messages (`keep_recent_count`, 10) and drop everything
//! else, earlier summaries included, without writing a summary.

use super::{Context, Strategy, StrategyName};
use crate::plan::{Plan, fit_drop_run, runs};
use anyhow::Result;

/// Hard truncation.
pub struct Truncate;

impl Strategy for Truncate {
    fn name(&self) -> StrategyName {
        StrategyName::Truncate
    }

    fn apply(&self, cx: &Context, mut plan: Plan) -> Result<Plan> {
        let units = cx.units(&plan);
        let keep = cx.settings.truncate_keep_recent;
        let mut messages = 0;
        let mut start = units.len();
        for (i, unit) in units.iter().enumerate().rev() {
            let n = unit.user_messages + unit.assistant_messages;
            if messages + n > keep {
                break;
            }
            messages += n;
            start = i;
        }
        let doomed = runs(&units[..start], |_, u| u.free);
        for run in doomed.into_iter().rev() {
            if let Some(run) = fit_drop_run(cx.subject, &units, run) {
                plan.drop_units(&units, run);
            }
        }
        Ok(plan)
    }
}
