//! The context a strategy works in, and the landing machinery every partial strategy shares:
//! the plan's units within reach ([`Context::units`]), a step brought into the target band
//! ([`Context::land`], [`Context::apply_to_target`]), runs of units summarized within the
//! budget the target leaves ([`Context::summarize_runs`]), and the summaries' cost
//! ([`SummaryStats`]). Strategies themselves live one per file beside this one.

use super::signals::{Signals, SignalsMemo};
use super::{Rung, StrategyName, StrategySettings};
use crate::plan::{Plan, Subject, Unit, absorb_earlier_summary, fit_summary_run};
use crate::summarizer::{EntryMemo, Scope, Summarizer, SummaryRequest};
use crate::transcript::{Item, Kind, PartKind};
use anyhow::Result;
use serde::Serialize;
use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::rc::Rc;

/// Summaries written while compacting one conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryStats {
    /// Summaries asked of the summarizer (used or not).
    pub requests: usize,
    /// Summaries written.
    pub summaries: usize,
    /// Their tokens.
    pub summary_tokens: usize,
    /// Requests made to a model.
    pub llm_calls: usize,
    /// Prompt tokens the model reported.
    pub prompt_tokens: u64,
    /// Completion tokens the model reported.
    pub completion_tokens: u64,
    /// Fallbacks taken when the summarizer failed, with why.
    pub fallbacks: Vec<crate::summarizer::Fallback>,
}

impl SummaryStats {
    /// Adds `other`'s figures to these.
    pub fn add(&mut self, other: &SummaryStats) {
        self.requests += other.requests;
        self.summaries += other.summaries;
        self.summary_tokens += other.summary_tokens;
        self.llm_calls += other.llm_calls;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.fallbacks.extend(other.fallbacks.iter().cloned());
    }
}

/// What a strategy works with.
pub struct Context<'a> {
    /// The conversation and its counts.
    pub subject: &'a Subject<'a>,
    /// Who writes summaries.
    pub summarizer: &'a dyn Summarizer,
    /// Strategy settings.
    pub settings: &'a StrategySettings,
    /// The token count to get under.
    pub target: usize,
    /// Summaries written so far.
    pub stats: RefCell<SummaryStats>,
    /// Only units wholly before this original item may change: how the engine makes a
    /// strategy take the oldest history first and no more than the target needs.
    pub horizon: usize,
    /// Size each summary to what the target leaves for it (never over `summary_max_tokens`):
    /// how the engine lands on the target when a full-size summary would miss it.
    pub fit_summaries: bool,
    /// Cut at the tersest (adaptive, once the usual cut of every output and call in reach
    /// still misses the target): a masked output is `[ctxc: output masked]` and its error
    /// lines, the reasoning before a call goes whole, a long text inside a call keeps its
    /// first line. What is left is the calls themselves, each still as the client reads it.
    pub terse: bool,
    /// Why the last step landed under 85% of the target, when it did.
    pub coarse: RefCell<Option<CoarseStep>>,
    /// What each entry gave a summary, shared by every probe of the conversation: the
    /// landing search summarizes overlapping runs, and each entry is read once.
    memo: Rc<EntryMemo>,
    /// The signals of each unit kept as stored, shared the same way.
    signals: Rc<SignalsMemo>,
}

/// A step that landed under 85% of the target because the least it could take was one unit
/// too many: one unit short of it the plan is over the target, and neither a smaller summary
/// nor cutting that unit's outputs lands between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoarseStep {
    /// The strategy.
    pub strategy: StrategyName,
    /// Tokens of the last unit it took (a message, or a tool call with its results).
    pub unit_tokens: usize,
    /// Tokens of the plan one unit short of it: over the target.
    pub short_of: usize,
    /// Tokens it landed at.
    pub landed: usize,
}

impl fmt::Display for CoarseStep {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "landed at {} tokens: the least {} could take ends with one unit of {} tokens (a \
             message, or a tool call with its results, with no output long enough to cut); \
             one unit less leaves {} tokens, over the target",
            crate::human::thousands(self.landed as u64),
            self.strategy,
            crate::human::thousands(self.unit_tokens as u64),
            crate::human::thousands(self.short_of as u64),
        )
    }
}

impl<'a> Context<'a> {
    /// A context with no summaries written yet and the whole conversation in reach.
    pub fn new(
        subject: &'a Subject<'a>,
        summarizer: &'a dyn Summarizer,
        settings: &'a StrategySettings,
        target: usize,
    ) -> Self {
        Context {
            subject,
            summarizer,
            settings,
            target,
            stats: RefCell::new(SummaryStats::default()),
            horizon: usize::MAX,
            fit_summaries: false,
            terse: false,
            coarse: RefCell::new(None),
            memo: Rc::default(),
            signals: Rc::default(),
        }
    }

    /// The same context cutting at its tersest ([`Self::terse`]).
    pub fn at_tersest(self) -> Self {
        Context {
            terse: true,
            ..self
        }
    }

    /// The same context reaching only the units before original item `horizon`, with its
    /// own summary count.
    fn reaching(&self, horizon: usize) -> Context<'a> {
        Context {
            horizon,
            terse: self.terse,
            memo: Rc::clone(&self.memo),
            signals: Rc::clone(&self.signals),
            ..Context::new(self.subject, self.summarizer, self.settings, self.target)
        }
    }

    /// What `unit` of `plan` shows ([`Signals::of`]), read once per conversation where the
    /// unit is kept as stored.
    pub fn signals(&self, plan: &Plan, unit: &Unit) -> Signals {
        self.signals.of(self.subject, plan, unit)
    }

    /// Tokens of `plan`.
    pub fn tokens(&self, plan: &Plan) -> usize {
        plan.tokens(self.subject)
    }

    /// The plan's units; those reaching past the horizon are not free.
    pub fn units(&self, plan: &Plan) -> Vec<Unit> {
        let mut units = plan.units(self.subject);
        for unit in &mut units {
            if plan.items[unit.elements.end - 1].originals().end > self.horizon {
                unit.free = false;
            }
        }
        units
    }

    /// The positions in `plan` of tool outputs a strategy may rewrite: tool results in
    /// compactable units, in order (possibly stripped or already rewritten).
    pub fn free_outputs(&self, plan: &Plan) -> Vec<usize> {
        self.free_items(plan, |item| item.kind == Kind::ToolResult)
    }

    /// The positions in `plan` of messages calling tools that a strategy may rewrite: kept
    /// items of compactable units whose content holds calls, in order.
    pub fn free_calls(&self, plan: &Plan) -> Vec<usize> {
        self.free_items(plan, |item| {
            crate::facts::has_tool_parts(item) || item.text_call.is_some()
        })
    }

    /// The positions in `plan` of the agent's reasoning kept as a message of its own just
    /// before a call (Claude Code's text record before its `tool_use`): an assistant text
    /// with one text part, no calls and no other parts, whose next item calls a tool.
    pub fn free_reasoning(&self, plan: &Plan) -> Vec<usize> {
        let items = &self.subject.conv.items;
        self.free_items(plan, |item| {
            item.kind == Kind::AssistantText
                && item.calls.is_empty()
                && item.text_call.is_none()
                && !item.parts.is_empty()
                && item.parts.iter().all(|p| p.kind == PartKind::Text)
        })
        .into_iter()
        .filter(|&at| {
            let (Some(i), Some(next)) = (plan.items[at].kept(), plan.items.get(at + 1)) else {
                return false;
            };
            next.kept().is_some_and(|n| {
                n == i + 1
                    && (crate::facts::has_tool_parts(&items[n]) || items[n].text_call.is_some())
            })
        })
        .collect()
    }

    /// The positions in `plan` of kept, sent items of compactable units that `wanted` picks,
    /// in order: what a strategy may rewrite.
    fn free_items(&self, plan: &Plan, wanted: impl Fn(&Item) -> bool) -> Vec<usize> {
        let s = self.subject;
        self.units(plan)
            .iter()
            .filter(|u| compactable(u))
            .flat_map(|u| u.elements.clone())
            .filter(|&at| {
                plan.items[at].kept().is_some_and(|i| {
                    let item = &s.conv.items[i];
                    item.in_context && wanted(item)
                })
            })
            .collect()
    }

    /// `strategy` applied to `plan` taking only what the target needs (DESIGN "How far"):
    /// when applying it in full lands under 85% of the target, it is applied again to the
    /// shortest stretch of oldest history whose result still meets the target; when the last
    /// unit of that stretch is too big a step, smaller summaries or that unit's outputs cut
    /// to head and tail may land in between ([`Self::land`]). `full` applies it everywhere (a
    /// forced step). A summarizer that may answer differently each time is not asked twice.
    pub fn apply_to_target(&self, name: StrategyName, plan: Plan, full: bool) -> Result<Plan> {
        let (next, stats) = self.land(name, plan, full)?;
        self.merge(&stats);
        Ok(next)
    }

    /// [`Self::apply_to_target`] for one rung of a chain: a rung with the recent outputs and
    /// calls in reach runs with none kept whole by rule (the horizon still takes the oldest
    /// first, and no more than the target needs), and when even that misses the target, once
    /// more at its tersest ([`Self::terse`]) before any summary takes a turn. A forced step
    /// under the target (`full`) keeps to the strategy's own rule: nothing needs the recent
    /// ones.
    pub fn apply_rung(&self, rung: Rung, plan: Plan, full: bool) -> Result<Plan> {
        if !rung.recent_too || full {
            return self.apply_to_target(rung.strategy, plan, full);
        }
        let settings = StrategySettings {
            masking_keep_recent: 0,
            ..self.settings.clone()
        };
        let reach = |terse: bool| Context {
            settings: &settings,
            terse,
            ..self.reaching(self.horizon)
        };
        let usual = reach(false);
        let (mut next, mut stats) = usual.land(rung.strategy, plan.clone(), full)?;
        let mut coarse = usual.coarse.take();
        if self.tokens(&next) > self.target {
            let terse = reach(true);
            let (tersest, terse_stats) = terse.land(rung.strategy, plan, full)?;
            if self.tokens(&tersest) < self.tokens(&next) {
                (next, stats, coarse) = (tersest, terse_stats, terse.coarse.take());
            }
        }
        self.merge(&stats);
        *self.coarse.borrow_mut() = coarse;
        Ok(next)
    }

    /// Whether `plan` lands in [0.85, 1.0] × target.
    pub fn in_band(&self, plan: &Plan) -> bool {
        self.tokens_in_band(self.tokens(plan))
    }

    /// Whether a plan of `tokens` lands in [0.85, 1.0] × target.
    fn tokens_in_band(&self, tokens: usize) -> bool {
        tokens <= self.target && tokens * 100 >= self.target * 85
    }

    /// [`Self::apply_to_target`] without booking its summaries: the plan and what it cost.
    pub fn land(&self, name: StrategyName, plan: Plan, full: bool) -> Result<(Plan, SummaryStats)> {
        self.coarse.take();
        let strategy = name.strategy();
        let probe = |horizon: usize, plan: Plan| -> Result<(Plan, SummaryStats)> {
            let cx = self.reaching(horizon.min(self.horizon));
            let next = strategy.apply(&cx, plan)?;
            Ok((next, cx.stats.into_inner()))
        };
        let whole = probe(usize::MAX, plan.clone())?;
        let tokens = self.tokens(&whole.0);
        if full || self.tokens_in_band(tokens) || !self.summarizer.deterministic() {
            return Ok(whole);
        }
        if tokens > self.target {
            // Full-size summaries miss the target: smaller ones may meet it.
            // Not even the least fitted summaries would: do not ask.
            let least = tokens - whole.1.summary_tokens + whole.1.summaries * MIN_FITTED_SUMMARY;
            if whole.1.summaries > 0 && !self.fit_summaries && least <= self.target {
                let fitted = self.probe_fitted(name, usize::MAX, plan)?;
                if self.tokens(&fitted.0) <= self.target {
                    return Ok(fitted);
                }
            }
            return Ok(whole);
        }
        // Horizons: the end of each unit, oldest first. The last one reaches everything.
        let units = plan.units(self.subject);
        let ends: Vec<usize> = units
            .iter()
            .map(|u| plan.items[u.elements.end - 1].originals().end)
            .collect();
        let (mut lo, mut hi) = (0, ends.len());
        let (mut best, mut best_tokens) = (whole, tokens);
        // Invariant: reaching ends[hi - 1] meets the target (hi = len: the whole run did).
        while lo + 1 < hi {
            let mid = lo + (hi - lo) / 2;
            let next = probe(ends[mid - 1], plan.clone())?;
            let next_tokens = self.tokens(&next.0);
            if next_tokens <= self.target {
                hi = mid;
                (best, best_tokens) = (next, next_tokens);
            } else {
                lo = mid;
            }
        }
        if self.tokens_in_band(best_tokens) {
            return Ok(best);
        }
        // The trimming rungs write no summaries: there is nothing smaller to try, and the
        // last unit they took was the least step.
        if matches!(name, StrategyName::TrimOutputs | StrategyName::TrimCalls) {
            let short_of = if lo == 0 {
                self.tokens(&plan)
            } else {
                self.tokens(&probe(ends[lo - 1], plan)?.0)
            };
            *self.coarse.borrow_mut() = Some(CoarseStep {
                strategy: name,
                unit_tokens: units[hi - 1].tokens,
                short_of,
                landed: best_tokens,
            });
            return Ok(best);
        }
        // The last unit taken was too big a step. From one unit short of it, try smaller
        // summaries, then cutting that unit's tool outputs to head and tail instead; the
        // lightest that meets the target wins.
        let short_of = if lo == 0 { 0 } else { ends[lo - 1] };
        // Only a strategy that summarizes has summaries to shrink.
        let fitted = if best.1.requests > 0 {
            Some(self.probe_fitted(name, short_of, plan.clone())?)
        } else {
            None
        };
        let (short, stats) = if lo == 0 {
            (plan, SummaryStats::default())
        } else {
            probe(ends[lo - 1], plan)?
        };
        let short_tokens = self.tokens(&short);
        // The unit would be summarized or dropped whole otherwise, so the trim rule's
        // recent outputs are fair game here.
        let settings = StrategySettings {
            masking_keep_recent: 0,
            ..self.settings.clone()
        };
        let reach = Context {
            settings: &settings,
            ..self.reaching(ends[hi - 1].min(self.horizon))
        };
        let (trimmed, _) = reach.land(StrategyName::TrimOutputs, short, false)?;
        let chosen = fitted
            .into_iter()
            .chain([(trimmed, stats)])
            .filter(|(p, _)| self.tokens(p) <= self.target)
            .fold(best, |best, next| {
                if self.tokens(&next.0) > self.tokens(&best.0) {
                    next
                } else {
                    best
                }
            });
        if !self.in_band(&chosen.0) {
            *self.coarse.borrow_mut() = Some(CoarseStep {
                strategy: name,
                unit_tokens: units[hi - 1].tokens,
                short_of: short_tokens,
                landed: self.tokens(&chosen.0),
            });
        }
        Ok(chosen)
    }

    /// `name` applied up to `horizon` with its summaries sized to what the target leaves.
    fn probe_fitted(
        &self,
        name: StrategyName,
        horizon: usize,
        plan: Plan,
    ) -> Result<(Plan, SummaryStats)> {
        let cx = Context {
            fit_summaries: true,
            ..self.reaching(horizon.min(self.horizon))
        };
        let next = name.strategy().apply(&cx, plan)?;
        Ok((next, cx.stats.into_inner()))
    }

    /// Adds a probe's summaries to this context's.
    fn merge(&self, one: &SummaryStats) {
        self.stats.borrow_mut().add(one);
    }

    /// Replaces each run of `units` (the plan's, [`Self::units`]: the strategy chose the runs
    /// from them) with a summary of it, when the summary is smaller than the run. Runs are
    /// narrowed first where the format needs it (strict alternation).
    pub fn summarize_runs(
        &self,
        mut plan: Plan,
        units: Vec<Unit>,
        runs: Vec<Range<usize>>,
        scope: Scope,
    ) -> Result<Plan> {
        debug_assert!(units == self.units(&plan), "units of another plan");
        let runs: Vec<Range<usize>> = runs
            .into_iter()
            .map(|run| absorb_earlier_summary(self.subject, &plan, &units, run))
            .filter_map(|run| fit_summary_run(self.subject, &units, run))
            .collect();
        let budget = self.summary_budget(&plan, &units, &runs);
        // Back to front, so earlier units keep their positions.
        for run in runs.into_iter().rev() {
            let run_tokens: usize = units[run.clone()].iter().map(|u| u.tokens).sum();
            let elements = units[run.start].elements.start..units[run.end - 1].elements.end;
            let records = plan.items[elements.start].originals().start
                ..plan.items[elements.end - 1].originals().end;
            let entries = plan.entries(self.subject, elements);
            let ask = |max_tokens: usize| {
                self.summarizer.summarize(&SummaryRequest {
                    entries: &entries,
                    scope,
                    records: records.clone(),
                    max_tokens,
                    counter: self.subject.counter,
                    memo: Some(&self.memo),
                })
            };
            let room = self.room_for(budget(run_tokens, true), run_tokens);
            let mut summary = ask(room)?;
            if summary.drop_span {
                self.record(&summary, None);
                if let Some(run) = crate::plan::fit_drop_run(self.subject, &units, run) {
                    plan.drop_units(&units, run);
                }
                continue;
            }
            // Each summary is counted once: a summary's text is the longest thing counted
            // per probe of the landing search.
            let mut tokens = self.subject.summary_tokens(&summary.text);
            // A summary sized to the room must still fit in it.
            let allowed = if room > self.settings.summary_max_tokens {
                budget(run_tokens, true)
            } else {
                budget(run_tokens, false)
            };
            if allowed < tokens {
                // A smaller summary is used only when it still states the task and the next
                // steps the full one does.
                let (smaller, smaller_tokens) = self.summary_within(allowed, &ask)?;
                if keeps_essentials(&smaller.text, &summary.text) {
                    self.record(&summary, None);
                    summary = smaller;
                    tokens = smaller_tokens;
                } else {
                    self.record(&smaller, None);
                }
            }
            let applied = tokens < run_tokens;
            self.record(&summary, applied.then_some(tokens));
            if applied {
                plan.summarize(&units, run, summary.text);
            }
        }
        Ok(plan)
    }

    /// A summary whose message costs at most `allowed` tokens where the summarizer can make
    /// one that small (its budget is for the text, and only roughly kept): asked again, at
    /// most twice, with the budget lowered by what the last answer went over. Returns the
    /// summary and what its message costs.
    fn summary_within(
        &self,
        allowed: usize,
        ask: &impl Fn(usize) -> Result<crate::summarizer::Summary>,
    ) -> Result<(crate::summarizer::Summary, usize)> {
        let least = MIN_FITTED_SUMMARY.min(self.settings.summary_max_tokens);
        let mut max_tokens = allowed.saturating_sub(SUMMARY_OVERHEAD).max(least);
        let mut summary = ask(max_tokens)?;
        let mut tokens = self.subject.summary_tokens(&summary.text);
        for _ in 0..2 {
            let over = tokens.saturating_sub(allowed);
            if over == 0 || max_tokens == least {
                break;
            }
            self.record(&summary, None);
            max_tokens = max_tokens.saturating_sub(over).max(least);
            summary = ask(max_tokens)?;
            tokens = self.subject.summary_tokens(&summary.text);
        }
        Ok((summary, tokens))
    }

    /// What a summary of `run_tokens` tokens may cost: anything, or with
    /// [`Self::fit_summaries`] (or `share`) its share of what the target leaves after
    /// everything the runs do not cover.
    fn summary_budget(
        &self,
        plan: &Plan,
        units: &[Unit],
        runs: &[Range<usize>],
    ) -> impl Fn(usize, bool) -> usize + use<> {
        let covered: usize = runs
            .iter()
            .flat_map(|r| &units[r.clone()])
            .map(|u| u.tokens)
            .sum();
        let left = self.target.saturating_sub(self.tokens(plan) - covered);
        let fit = self.fit_summaries;
        move |run_tokens: usize, share: bool| {
            if !(fit || share) || covered == 0 {
                return usize::MAX;
            }
            (left as u128 * run_tokens as u128 / covered as u128) as usize
        }
    }

    /// The budget a summary of a run of `run_tokens` is first asked for: the room the target
    /// leaves it (`share`, less a tenth for the summarizer's rough count), not a fixed cap —
    /// never under `summary_max_tokens`, over half the run (the summary must pay for
    /// itself), nor over [`ROOM_CAP_FACTOR`] times `summary_max_tokens`.
    fn room_for(&self, share: usize, run_tokens: usize) -> usize {
        let least = self.settings.summary_max_tokens;
        (share / 10 * 9)
            .min(run_tokens / 2)
            .min(least.saturating_mul(ROOM_CAP_FACTOR))
            .max(least)
    }

    /// Books a summary's cost, and the summary itself when it is used (`tokens`).
    fn record(&self, summary: &crate::summarizer::Summary, tokens: Option<usize>) {
        let mut stats = self.stats.borrow_mut();
        stats.requests += 1;
        if let Some(tokens) = tokens {
            stats.summaries += 1;
            stats.summary_tokens += tokens;
        }
        stats.llm_calls += summary.llm_calls;
        stats.prompt_tokens += summary.prompt_tokens;
        stats.completion_tokens += summary.completion_tokens;
        if let Some(why) = &summary.fallback {
            stats.fallbacks.push(why.clone());
        }
    }
}

/// Whether `smaller` still says what `full` says of the task and the next steps (the
/// sections a resuming agent needs first; `## 1.` and `## 4.` of the seed-002 layout).
fn keeps_essentials(smaller: &str, full: &str) -> bool {
    let has = |text: &str, heading: &str| text.lines().any(|l| l.starts_with(heading));
    ["## 1.", "## 4."]
        .iter()
        .all(|h| has(smaller, h) || !has(full, h))
}

/// The most a summary is asked for, as a multiple of `summary_max_tokens`, however much room
/// the target leaves: a summary is read by the model every turn, and an LLM summarizer's
/// answer takes time in proportion.
const ROOM_CAP_FACTOR: usize = 8;

/// The least budget a fitted summary gets: below it a summary says too little to be worth
/// its place.
pub const MIN_FITTED_SUMMARY: usize = 64;

/// Tokens a summary message costs beyond its text (message overhead, the ctxc marker), about.
const SUMMARY_OVERHEAD: usize = 16;

/// Whether a unit may be summarized or dropped by a partial strategy: free, not an earlier
/// summary, and a message the model sees.
pub fn compactable(unit: &Unit) -> bool {
    unit.free && !unit.summary
}
