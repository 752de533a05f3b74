//! `observation-masking`: replace old tool outputs with a one-line placeholder naming the
//! tool and the output's size, followed by the output's error lines (the first and last
//! few), keeping every call (and so every path and command) verbatim. The most recent
//! outputs (3) stay whole. Inside `adaptive` the recent outputs are in reach too, and when
//! masking every output still misses the target the placeholder is cut to
//! `[ctxc: output masked]`. Research on agent trajectories found this simple masking as good
//! as LLM summaries at half the cost; `adaptive` runs it before any summary, so what the
//! agent did and what failed outlive what it saw.

use super::{Context, Strategy, StrategyName};
use crate::facts::{CallIndex, result_errors, tool_calls, tool_output};
use crate::plan::Plan;
use crate::transcript::{Conversation, Kind, OutItem};
use anyhow::Result;
use std::collections::HashMap;

/// Observation masking.
pub struct ObservationMasking;

impl Strategy for ObservationMasking {
    fn name(&self) -> StrategyName {
        StrategyName::ObservationMasking
    }

    fn apply(&self, cx: &Context, mut plan: Plan) -> Result<Plan> {
        let s = cx.subject;
        let names = crate::count::tool_names(s.conv);
        let calls = call_index(s.conv);
        let outputs = cx.free_outputs(&plan);
        let keep_from = outputs
            .len()
            .saturating_sub(cx.settings.masking_keep_recent);
        for &at in &outputs[..keep_from] {
            let Some(i) = plan.items[at].kept() else {
                continue;
            };
            let masked = OutItem::ReplaceResult(i, placeholder(cx, i, &names, &calls));
            if s.out_tokens(&masked) < s.out_tokens(&plan.items[at]) {
                plan.items[at] = masked;
            }
        }
        Ok(plan)
    }
}

/// Every tool call of `conv` by id, to know what each output answers.
fn call_index(conv: &Conversation) -> CallIndex {
    let mut calls = CallIndex::default();
    for item in conv
        .items
        .iter()
        .filter(|i| matches!(i.kind, Kind::AssistantText | Kind::ToolCall) && !i.calls.is_empty())
    {
        calls.note(item, tool_calls(item));
    }
    calls
}

/// `[ctxc: output of Bash masked, 2,345 tokens in 120 lines]` (at the tersest
/// `[ctxc: output masked]`), and when the output has error lines, `; its 2 error lines
/// kept:]` with those lines below, each clipped as facts are.
fn placeholder(
    cx: &Context,
    i: usize,
    names: &HashMap<&str, &str>,
    calls: &CallIndex,
) -> String {
    let item = &cx.subject.conv.items[i];
    let mut text = if cx.terse {
        "[ctxc: output masked".to_string()
    } else {
        let output = tool_output(item);
        format!(
            "[ctxc: output of {} masked, {} tokens in {} lines",
            tools_answered(item, names),
            crate::human::thousands(cx.subject.counter.count(&output) as u64),
            crate::human::thousands(output.lines().count() as u64)
        )
    };
    // The error lines as facts read them (what a reader printed is not an error), so what
    // was kept is what retention and `eval` look for.
    let errors = result_errors(item, &calls.answered_by(item));
    match errors.len() {
        0 => text.push(']'),
        1 => text.push_str("; its error line kept:]"),
        n => text.push_str(&format!("; its {n} error lines kept:]")),
    }
    for error in &errors {
        text.push('\n');
        text.push_str(error);
    }
    text
}

/// The tools whose calls `item` answers, by name (`a tool` where a call is not found).
fn tools_answered(item: &crate::transcript::Item, names: &HashMap<&str, &str>) -> String {
    let mut tools: Vec<&str> = item
        .results
        .iter()
        .map(|id| names.get(id.as_str()).copied().unwrap_or("a tool"))
        .collect();
    tools.dedup();
    if tools.is_empty() {
        "a tool".to_string()
    } else {
        tools.join(", ")
    }
}
