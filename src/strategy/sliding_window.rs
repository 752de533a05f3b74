//! `sliding-window` (seeds 000, 001): keep the most recent messages — at least 4 user or
//! tool messages and 5 assistant messages, an odd total so the window does not start and end
//! on the same role — and replace everything older with a summary. Preserved messages (the
//! original task, pins) stay where they are and split the summarized history around them.
//!
//! When the target leaves room, the window grows back in time as far as the result still fits
//! under the target (a summary is priced at its budget): compacting further than asked only
//! loses verbatim history.

use super::{Context, Strategy, StrategyName, compactable};
use crate::plan::{Plan, Unit, runs};
use crate::summarizer::Scope;
use anyhow::Result;

/// The sliding window.
pub struct SlidingWindow;

impl Strategy for SlidingWindow {
    fn name(&self) -> StrategyName {
        StrategyName::SlidingWindow
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        let units = cx.units(&plan);
        let least = window_start(
            &units,
            cx.settings.window_user_messages,
            cx.settings.window_assistant_messages,
        );
        let start = grow_to_target(cx, &plan, &units, least);
        let older = runs(&units[..start], |_, u| compactable(u));
        cx.summarize_runs(plan, units, older, Scope::Span)
    }
}

/// The earliest window start at or before `least` whose result still fits under the target,
/// or `least` when even the smallest window does not.
fn grow_to_target(cx: &Context, plan: &Plan, units: &[Unit], least: usize) -> usize {
    let total = cx.tokens(plan);
    // A summary costs at most its budget plus the marker and message overhead.
    let cap = cx.settings.summary_max_tokens + 40;
    let after = |start: usize| -> usize {
        let summarized: usize = runs(&units[..start], |_, u| compactable(u))
            .iter()
            .map(|run| {
                let tokens: usize = units[run.clone()].iter().map(|u| u.tokens).sum();
                tokens - tokens.min(cap)
            })
            .sum();
        total - summarized
    };
    let mut start = least;
    while start > 0 && after(start - 1) <= cx.target {
        start -= 1;
    }
    start
}

/// The first unit of the window: units are taken from the end while they fit in the quotas.
pub fn window_start(units: &[Unit], users: usize, assistants: usize) -> usize {
    let (mut u, mut a) = (0, 0);
    let mut start = units.len();
    for (i, unit) in units.iter().enumerate().rev() {
        if u + unit.user_messages > users || a + unit.assistant_messages > assistants {
            break;
        }
        u += unit.user_messages;
        a += unit.assistant_messages;
        start = i;
    }
    start
}
