//! `trim-outputs` (near-free; peers: `aichat trim` keeps each call and cuts each result): cut
//! old tool outputs to their head, their tail and every error line, with a marker saying how
//! many lines and tokens were cut. The call and its arguments — paths, commands — stay
//! verbatim, and so do the most recent outputs (3). The engine reaches back only as far as
//! the target needs, so the oldest outputs are cut first. Old thinking blocks go too, whole
//! (they cannot be cut: see [`super::old_thinking`]).

use super::{Context, Strategy, StrategyName};
use crate::facts::{MAX_FACT_CHARS, clip, is_error_line, tool_output};
use crate::plan::Plan;
use crate::transcript::OutItem;
use anyhow::Result;

/// Lines and characters kept at the head of an output.
const HEAD_LINES: usize = 8;
const HEAD_CHARS: usize = 600;
/// Lines and characters kept at the tail.
const TAIL_LINES: usize = 4;
const TAIL_CHARS: usize = 300;
/// Error lines kept from the middle: the first and the last this many.
const MIDDLE_ERRORS: usize = 15;

/// Output trimming.
pub struct TrimOutputs;

impl Strategy for TrimOutputs {
    fn name(&self) -> StrategyName {
        StrategyName::TrimOutputs
    }

    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan> {
        let s = cx.subject;
        let keep_recent = cx.settings.masking_keep_recent;
        // Over the target, cut oldest first and stop once it is met; a forced step under
        // the target cuts everything in reach.
        let stop = cx.tokens(&plan) > cx.target;
        let mut plan = super::old_thinking::drop_old(cx, plan, keep_recent);
        let outputs = cx.free_outputs(&plan);
        let recent = outputs.len().saturating_sub(keep_recent);
        let mut need = cx.tokens(&plan).saturating_sub(cx.target);
        if stop && need == 0 {
            // Old thinking alone met the target.
            return Ok(plan);
        }
        for &at in &outputs[..recent] {
            let (OutItem::Keep(i) | OutItem::Strip(i)) = plan.items[at] else {
                continue;
            };
            let output = tool_output(&s.conv.items[i]);
            let old = s.out_tokens(&plan.items[at]);
            let saving = |scale: usize| -> Option<(OutItem, usize)> {
                let text = trimmed_by(&output, scale, |cut| s.counter.count(cut))?;
                let cut = OutItem::ReplaceResult(i, text);
                let new = s.out_tokens(&cut);
                (new < old).then(|| (cut, old - new))
            };
            let Some((mut cut, mut saved)) = saving(1) else {
                continue;
            };
            if stop && saved > need {
                // Keep as much of this output as the target allows.
                if let Some(gentler) = gentlest(need, &saving) {
                    (cut, saved) = gentler;
                }
            }
            plan.items[at] = cut;
            if stop {
                need = need.saturating_sub(saved);
                if need == 0 {
                    break;
                }
            }
        }
        Ok(plan)
    }
}

/// The cut keeping the most of an output (the largest head and tail scale up to 64) that
/// still saves `need` tokens.
fn gentlest(
    need: usize,
    saving: &impl Fn(usize) -> Option<(OutItem, usize)>,
) -> Option<(OutItem, usize)> {
    let (mut lo, mut hi) = (1usize, 64);
    let mut best = None;
    // Invariant: scale lo saves enough; scales above hi are not tried.
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match saving(mid) {
            Some(found) if found.1 >= need => {
                lo = mid;
                best = Some(found);
            }
            _ => hi = mid - 1,
        }
    }
    best
}

/// `output` cut to head, tail and error lines with a marker, or `None` when too short to cut.
/// `count` prices the text cut, for the marker.
/// `scale` multiplies the head and tail kept.
fn trimmed_by(output: &str, scale: usize, count: impl Fn(&str) -> usize) -> Option<String> {
    let lines: Vec<&str> = output.lines().collect();
    let head = take_within(
        lines.iter().copied(),
        HEAD_LINES * scale,
        HEAD_CHARS * scale,
    );
    let tail_start = lines.len()
        - take_within(
            lines.iter().rev().copied(),
            TAIL_LINES * scale,
            TAIL_CHARS * scale,
        )
        .min(lines.len() - head);
    let middle = &lines[head..tail_start];
    let clipped_edge = lines[..head]
        .iter()
        .chain(&lines[tail_start..])
        .any(|l| l.len() > HEAD_CHARS * scale);
    if middle.is_empty() && !clipped_edge {
        return None;
    }
    let errors: Vec<&str> = middle
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.len() >= 8 && is_error_line(l))
        .collect();
    let errors: Vec<&str> = if errors.len() > 2 * MIDDLE_ERRORS {
        [
            &errors[..MIDDLE_ERRORS],
            &errors[errors.len() - MIDDLE_ERRORS..],
        ]
        .concat()
    } else {
        errors
    };
    let head: Vec<String> = lines[..head]
        .iter()
        .map(|l| clip(l, HEAD_CHARS * scale))
        .collect();
    let errors: Vec<String> = errors.iter().map(|l| clip(l, MAX_FACT_CHARS)).collect();
    let tail: Vec<String> = lines[tail_start..]
        .iter()
        .map(|l| clip(l, HEAD_CHARS * scale))
        .collect();
    let kept = [head.join("\n"), errors.join("\n"), tail.join("\n")].join("\n");
    let marker = format!(
        "[ctxc: {} of {} lines ({} tokens) cut from this output; head, tail and {} error lines kept]",
        thousands(middle.len() - errors.len()),
        thousands(lines.len()),
        thousands(count(output).saturating_sub(count(&kept))),
        errors.len()
    );
    let text: Vec<String> = head
        .into_iter()
        .chain([marker])
        .chain(errors)
        .chain(tail)
        .collect();
    let text = text.join("\n");
    (text.len() < output.len()).then_some(text)
}

/// How many of `lines` fit in `max_lines` lines and `max_chars` characters (at least one).
fn take_within<'a>(
    lines: impl Iterator<Item = &'a str>,
    max_lines: usize,
    max_chars: usize,
) -> usize {
    let mut chars = 0;
    let mut n = 0;
    for line in lines.take(max_lines) {
        chars += line.len() + 1;
        if n > 0 && chars > max_chars {
            break;
        }
        n += 1;
    }
    n
}

fn thousands(n: usize) -> String {
    crate::report::thousands(n as u64)
}
