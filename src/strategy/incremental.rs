//! `incremental` (seed 000): split the history before the current turn into chunks of
//! `incremental_summary_chunk_size` turns (20; a turn is a user message or tool result), and
//! summarize every chunk but the last, each on its own, so a later summary never re-reads an
//! earlier one. The chunks are laid over the whole history; when the target needs less, only
//! the oldest are summarized, the last of them possibly in part.

use super::{Context, Strategy, StrategyName, compactable};
use crate::plan::{Plan, Unit, runs};
use crate::summarizer::Scope;
use anyhow::Result;
use std::ops::Range;

/// Incremental chunk summaries.
pub struct Incremental;

impl Strategy for Incremental {
    fn name(&self) -> StrategyName {
        StrategyName::Incremental
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        // The chunks are laid out over the whole history; a horizon only decides how many of
        // them, the last one taken possibly in part, are summarized.
        let units = cx.units(&plan);
        let grid = plan.units(cx.subject);
        let chunks = chunks(&grid, cx.settings.incremental_chunk_turns.max(1));
        let Some((_, older)) = chunks.split_last() else {
            return Ok(plan);
        };
        let mut picked = Vec::new();
        for chunk in older {
            let inside = runs(&units[chunk.clone()], |_, u| compactable(u));
            picked.extend(
                inside
                    .into_iter()
                    .map(|r| r.start + chunk.start..r.end + chunk.start),
            );
        }
        cx.summarize_runs(plan, units, picked, Scope::Span)
    }
}

/// Consecutive unit ranges holding `turns` user-side messages each, up to the trailing block
/// of units that may not be compacted (the current turn).
fn chunks(units: &[Unit], turns: usize) -> Vec<Range<usize>> {
    let history = units.len() - units.iter().rev().take_while(|u| !u.free).count();
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, unit) in units[..history].iter().enumerate() {
        count += unit.user_messages;
        if count >= turns {
            chunks.push(start..i + 1);
            start = i + 1;
            count = 0;
        }
    }
    if start < history {
        chunks.push(start..history);
    }
    chunks
}
