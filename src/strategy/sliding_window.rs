//! `sliding-window` (seeds 000, 001): keep the most recent messages — by default 4 user or
//! tool messages and 5 assistant messages, an odd total so the window does not start and end
//! on the same role — and replace everything older with a summary. Preserved messages (the
//! original task, pins) stay where they are and split the summarized history around them.

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
        let units = plan.units(cx.subject);
        let start = window_start(
            &units,
            cx.settings.window_user_messages,
            cx.settings.window_assistant_messages,
        );
        let older = runs(&units[..start], |_, u| compactable(u));
        cx.summarize_runs(plan, older, Scope::Span)
    }
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
