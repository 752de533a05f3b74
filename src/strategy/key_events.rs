//! `key-events` (seed 000): keep key events verbatim — user messages, errors (and, being
//! state changes, the fixes that follow them), state-changing tool calls, completed tasks —
//! keep the most recent non-key units (5), and summarize the other runs of non-key units.

use super::importance::recent_indices;
use super::{Context, Strategy, StrategyName, compactable};
use crate::plan::{Plan, runs};
use crate::summarizer::Scope;
use anyhow::Result;

/// Key-event extraction.
pub struct KeyEvents;

impl Strategy for KeyEvents {
    fn name(&self) -> StrategyName {
        StrategyName::KeyEvents
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        let units = cx.units(&plan);
        let routine: Vec<bool> = units
            .iter()
            .map(|u| compactable(u) && !cx.signals(&plan, u).is_key())
            .collect();
        let spare = recent_indices(&routine, cx.settings.key_events_keep_recent);
        let picked = runs(&units, |i, _| routine[i] && !spare.contains(&i));
        cx.summarize_runs(plan, units, picked, Scope::Span)
    }
}
