//! `trim-outputs` (near-free; peers: `aichat trim` keeps each call and cuts each result): cut
//! old tool outputs to their head, their tail and every error line, with a marker saying how
//! many lines and tokens were cut. The call and its arguments — paths, commands — stay
//! verbatim, and so do the most recent outputs (3). The engine reaches back only as far as
//! the target needs, so the oldest outputs are cut first. Old thinking blocks go too, whole
//! (they cannot be cut: see [`super::old_thinking`]).

use super::{Context, Strategy, StrategyName};
use crate::human::thousands;
use crate::facts::{MAX_FACT_CHARS, error_lines_in, first_and_last, head_chars, tool_output};
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
            // The whole output is priced once, however many scales are tried.
            let whole = std::cell::OnceCell::new();
            let saving = |scale: usize| -> Option<(OutItem, usize)> {
                let text = trimmed_by(
                    &output,
                    scale,
                    || *whole.get_or_init(|| s.counter.count(&output)),
                    |cut| s.counter.count(cut),
                )?;
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
    const MAX_SCALE: usize = 64;
    // The gentlest cut first: a long output usually still saves enough with it, and each try
    // walks the whole output.
    if let Some(found) = saving(MAX_SCALE).filter(|found| found.1 >= need) {
        return Some(found);
    }
    let (mut lo, mut hi) = (1usize, MAX_SCALE - 1);
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
/// `whole` gives the output's tokens and `count` prices the text kept, for the marker.
/// `scale` multiplies the head and tail kept. Lines are walked, never collected: an output
/// of millions of short lines would cost more as a list of lines than as text.
fn trimmed_by(
    output: &str,
    scale: usize,
    whole: impl Fn() -> usize,
    count: impl Fn(&str) -> usize,
) -> Option<String> {
    let total = output.lines().count();
    let head = take_within(output.lines(), HEAD_LINES * scale, HEAD_CHARS * scale);
    let tail =
        take_within(output.lines().rev(), TAIL_LINES * scale, TAIL_CHARS * scale).min(total - head);
    let middle = total - head - tail;
    let edge_chars = HEAD_CHARS * scale;
    let head: Vec<&str> = output.lines().take(head).collect();
    let mut tail: Vec<&str> = output.lines().rev().take(tail).collect();
    tail.reverse();
    let clipped_edge = head
        .iter()
        .chain(&tail)
        .any(|l| l.len() > HEAD_CHARS * scale);
    if middle == 0 && !clipped_edge {
        return None;
    }
    let errors = first_and_last(
        error_lines_in(middle_text(output, head.len(), tail.len())),
        MIDDLE_ERRORS,
        MIDDLE_ERRORS,
    );
    // Lines clipped as borrowed slices: copying them char by char into new Strings, only to
    // join them, was most of this function's cost.
    let head: Vec<&str> = head.iter().map(|l| head_chars(l, edge_chars)).collect();
    let errors: Vec<&str> = errors.iter().map(|l| head_chars(l, MAX_FACT_CHARS)).collect();
    let tail: Vec<&str> = tail.iter().map(|l| head_chars(l, edge_chars)).collect();
    let kept = [head.join("\n"), errors.join("\n"), tail.join("\n")].join("\n");
    let marker = format!(
        "[ctxc: {} of {} lines ({} tokens) cut from this output; head, tail and {} error lines kept]",
        thousands(middle - errors.len()),
        thousands(total),
        thousands(whole().saturating_sub(count(&kept))),
        errors.len()
    );
    let text: Vec<&str> = head
        .into_iter()
        .chain([marker.as_str()])
        .chain(errors)
        .chain(tail)
        .collect();
    let text = text.join("\n");
    (text.len() < output.len()).then_some(text)
}

/// The text of `output` between its first `head` and its last `tail` lines.
fn middle_text(output: &str, head: usize, tail: usize) -> &str {
    let pieces = || output.split_inclusive('\n');
    let start: usize = pieces().take(head).map(str::len).sum();
    let end = output.len() - pieces().rev().take(tail).map(str::len).sum::<usize>();
    &output[start..end.max(start)]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("error: case {i} failed")).collect()
    }

    #[test]
    fn middle_errors_keeps_all_up_to_twice_the_limit_else_first_and_last() {
        let middle = |lines: &[String]| -> Vec<String> {
            let text = lines.join("\n");
            first_and_last(error_lines_in(&text), MIDDLE_ERRORS, MIDDLE_ERRORS)
                .into_iter()
                .map(String::from)
                .collect()
        };
        let mut few = errors(2 * MIDDLE_ERRORS);
        few.push("ok: fine, nothing wrong".into());
        assert_eq!(middle(&few), few[..2 * MIDDLE_ERRORS]);
        let many = errors(2 * MIDDLE_ERRORS + 7);
        let expected: Vec<String> = many[..MIDDLE_ERRORS]
            .iter()
            .chain(&many[many.len() - MIDDLE_ERRORS..])
            .cloned()
            .collect();
        assert_eq!(middle(&many), expected);
    }

    #[test]
    fn the_middle_is_the_text_between_head_and_tail_lines() {
        assert_eq!(middle_text("a\nb\r\nc\nd", 1, 1), "b\r\nc\n");
        assert_eq!(middle_text("a\nb\nc\n", 1, 1), "b\n");
        assert_eq!(middle_text("a\nb", 1, 1), "");
    }

    #[test]
    fn a_long_output_keeps_head_tail_and_errors_with_a_true_marker() {
        let mut lines: Vec<String> = (0..100).map(|i| format!("line {i}")).collect();
        lines[50] = "error: the build failed".into();
        let output = lines.join("\n");
        let text = trimmed_by(&output, 1, || 500, |_| 100).unwrap();
        let kept: Vec<&str> = text.lines().collect();
        assert_eq!(kept[..HEAD_LINES], lines[..HEAD_LINES]);
        assert!(kept.contains(&"error: the build failed"));
        assert_eq!(kept[kept.len() - TAIL_LINES..], lines[100 - TAIL_LINES..]);
        let cut = 100 - HEAD_LINES - TAIL_LINES - 1;
        let marker = format!(
            "[ctxc: {cut} of 100 lines (400 tokens) cut from this output; head, tail and 1 error lines kept]"
        );
        assert_eq!(kept[HEAD_LINES], marker);
    }
}
