//! `ctxc fit`: agent trajectories made into training samples that fit a model's sequence
//! length in its own tokenizer and chat template.
//!
//! Each sample is what the agent would see at inference after a compaction: the system
//! prompt and tools, the original task, a ctxc summary of every turn before the segment
//! (none for the first), then a verbatim segment of whole turns ([`messages::Unit`]: a tool
//! call never leaves its results). With [`Policy::Split`] the segments cover the trajectory,
//! each as long as fits, so every assistant turn is trained in exactly one sample; with
//! [`Policy::One`] one sample keeps the longest tail that fits and summarizes the rest. Only
//! the segment's assistant messages are trained (the train flag): the task, the summary and
//! the system prompt repeat in every sample and are context. A turn that alone does not fit
//! is cut with a visible marker ([`cut`]) and reported.
//!
//! Lengths are exact: every sample written is counted whole by a [`ChatCounter`] (a
//! rendered chat template, tokenized), per-turn estimates only choose where to look.

mod cut;
pub mod messages;
pub mod report;

use crate::summarizer::{EntryMemo, Scope, Summarizer, SummaryRequest};
use crate::tokens::{ChatCounter, TokenCounter};
use crate::transcript::{Conversation, SUMMARY_MARKER};
use anyhow::{Result, bail};
use messages::{Trajectory, Unit, is_assistant};
pub use report::{Cut, RowReport};
use serde_json::{Value, json};
use std::borrow::Cow;

/// How a trajectory is made into samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// The fewest samples that together train every assistant turn once.
    Split,
    /// One sample: the longest tail that fits, everything before it summarized.
    One,
}

/// What `fit` is asked for.
pub struct FitOptions<'a> {
    /// The longest sample, in tokens of `counter`.
    pub max_len: usize,
    /// Split or one sample.
    pub policy: Policy,
    /// The per-message train flag's name (`weight`: 1 trained, 0 context).
    pub train_field: &'a str,
    /// Counts samples exactly.
    pub counter: &'a dyn ChatCounter,
    /// Writes the summaries.
    pub summarizer: &'a dyn Summarizer,
    /// The summarizer's own budget counter (its `max_tokens` are in this encoding).
    pub budget_counter: &'a TokenCounter,
}

/// One training sample.
pub struct Sample {
    /// The messages, each with its train flag.
    pub messages: Vec<Value>,
    /// Its exact length.
    pub tokens: usize,
    /// Tokens of its summary message's text, if it has one.
    pub summary_tokens: usize,
}

/// A trajectory's samples and what was done to make them.
pub struct Fitted {
    /// The tool definitions every sample carries.
    pub tools: Option<Value>,
    /// The samples, in trajectory order.
    pub samples: Vec<Sample>,
    /// The report row.
    pub report: RowReport,
}

/// Makes `conv` into samples (see the module doc).
pub fn fit(conv: &Conversation, opts: &FitOptions) -> Result<Fitted> {
    let mut trajectory = messages::trajectory(conv);
    let mut cuts = Vec::new();
    // Turns after the final assistant turn (a closing user message) train nothing: a
    // sample of them alone would be all context.
    while trajectory
        .units
        .last()
        .is_some_and(|u| u.assistant_turns() == 0)
    {
        trajectory.units.pop();
    }
    if trajectory.units.is_empty() {
        // Nothing to train on (a rollout of metadata, a question never answered).
        let report = RowReport::new(&trajectory, &[], cuts, opts.train_field);
        return Ok(Fitted {
            tools: trajectory.tools,
            samples: Vec::new(),
            report,
        });
    }
    fit_header(&mut trajectory, opts, &mut cuts)?;
    let memo = EntryMemo::default();
    let fitter = Fitter {
        conv,
        t: &trajectory,
        opts,
        memo: &memo,
    };
    let samples = match opts.policy {
        Policy::Split => fitter.split(&mut cuts)?,
        Policy::One => fitter.one(&mut cuts)?.into_iter().collect(),
    };
    let report = RowReport::new(&trajectory, &samples, cuts, opts.train_field);
    Ok(Fitted {
        tools: trajectory.tools.clone(),
        samples,
        report,
    })
}

/// Cuts the task (then the system prompt) when they alone leave no room for a turn; fails
/// when the tools alone are over the length.
fn fit_header(t: &mut Trajectory, opts: &FitOptions, cuts: &mut Vec<Cut>) -> Result<()> {
    // Room for at least a short turn beside the header.
    let room = opts.max_len - opts.max_len / 4;
    let mut head: Vec<Value> = t.system.iter().chain(&t.task).cloned().collect();
    let tokens = |m: &[Value]| opts.counter.count_sample(m, t.tools.as_ref());
    if head.is_empty() || tokens(&head)? <= room {
        return Ok(());
    }
    // An empty user turn: a template may read `messages[0]`.
    let bare = tokens(&[json!({"role": "user", "content": ""})])?;
    if bare > room {
        bail!(
            "the tool definitions alone take {bare} tokens, more than {room} of --max-len {} \
             (a quarter is kept for the turns)",
            opts.max_len
        );
    }
    let n = head.len();
    let made = cut::cut_to_fit(&mut head, 0..n, room, &|m| tokens(m))?;
    cuts.extend(made.into_iter().map(|c| c.in_header()));
    let tasked = t.task.is_some();
    if tasked {
        t.task = head.pop();
    }
    t.system = head;
    Ok(())
}

/// The state one trajectory's fitting shares.
struct Fitter<'a> {
    conv: &'a Conversation,
    t: &'a Trajectory,
    opts: &'a FitOptions<'a>,
    memo: &'a EntryMemo,
}

/// A sample's head: system, task and the summary of the turns before its segment.
struct Head {
    messages: Vec<Value>,
    summary_tokens: usize,
}

impl Fitter<'_> {
    /// Segments that cover every unit, each the longest that fits after its head.
    fn split(&self, cuts: &mut Vec<Cut>) -> Result<Vec<Sample>> {
        let estimates = self.estimates()?;
        let mut samples = Vec::new();
        let mut start = 0;
        while start < self.t.units.len() {
            let (sample, end) = self.segment_from(start, &estimates, cuts)?;
            samples.push(sample);
            start = end;
        }
        if samples.is_empty() {
            // Nothing after the task: the head alone is the one sample.
            let head = self.head(0, 0)?;
            samples.push(self.sample(&head, &[])?);
        }
        Ok(samples)
    }

    /// The longest segment from `start` that fits, and where the next begins.
    fn segment_from(
        &self,
        start: usize,
        estimates: &[usize],
        cuts: &mut Vec<Cut>,
    ) -> Result<(Sample, usize)> {
        let units = &self.t.units;
        let head = self.head_that_fits(start)?;
        let head_tokens = self.count(&head.messages)?;
        // Where the estimates say the segment ends, then the exact count moves it.
        let mut end = start + 1;
        let mut acc = head_tokens + estimates[start];
        while end < units.len() && acc + estimates[end] <= self.opts.max_len {
            acc += estimates[end];
            end += 1;
        }
        while end > start + 1 && !self.fits(&head, &units[start..end])? {
            end -= 1;
        }
        while end < units.len() && self.fits(&head, &units[start..end + 1])? {
            end += 1;
        }
        if end == start + 1 && !self.fits(&head, &units[start..end])? {
            let unit = self.cut_unit(&head, start, cuts)?;
            return Ok((self.sample(&head, &[unit])?, end));
        }
        Ok((self.sample(&head, &units[start..end])?, end))
    }

    /// One sample: the longest tail that fits after the summary of what precedes it.
    fn one(&self, cuts: &mut Vec<Cut>) -> Result<Option<Sample>> {
        let units = &self.t.units;
        let Some(last) = units.len().checked_sub(1) else {
            let head = self.head(0, 0)?;
            return Ok(Some(self.sample(&head, &[])?));
        };
        let estimates = self.estimates()?;
        // The summary's room is kept aside while the tail is chosen by estimate.
        let room = self.opts.max_len - self.summary_budget(self.opts.max_len);
        let base = self.count(&self.head(0, 0)?.messages)?;
        let mut start = last;
        let mut acc = base + estimates[last];
        while start > 0 && acc + estimates[start - 1] <= room {
            start -= 1;
            acc += estimates[start];
        }
        loop {
            let head = self.head_that_fits(start)?;
            if self.fits(&head, &units[start..])? {
                return Ok(Some(self.sample(&head, &units[start..])?));
            }
            if start == last {
                let unit = self.cut_unit(&head, last, cuts)?;
                return Ok(Some(self.sample(&head, &[unit])?));
            }
            start += 1;
        }
    }

    /// Each unit's tokens as a loose text: a few tokens per message for the template's
    /// markup. Only steers the search; every sample is counted whole.
    fn estimates(&self) -> Result<Vec<usize>> {
        self.t
            .units
            .iter()
            .map(|unit| {
                let mut n = 0;
                for message in &unit.messages {
                    n += 8 + self.opts.counter.count_text(&message.to_string())? / 2;
                }
                Ok(n)
            })
            .collect()
    }

    /// The head for a segment from `start` that leaves room for its first unit (or a cut of
    /// it): the summary shrinks, then goes, before a turn is cut.
    fn head_that_fits(&self, start: usize) -> Result<Head> {
        let mut budget = self.summary_budget(self.opts.max_len);
        loop {
            let head = self.head(start, budget)?;
            if start == 0 || budget == 0 || self.fits(&head, &self.t.units[start..start + 1])? {
                return Ok(head);
            }
            budget /= 4;
            if budget < 64 {
                budget = 0;
            }
        }
    }

    /// The summary's budget in a sample of `max_len`: a quarter, at most 2,000 tokens.
    fn summary_budget(&self, max_len: usize) -> usize {
        (max_len / 4).min(2000)
    }

    /// System, task and a summary of units before `start` in at most `budget` tokens.
    fn head(&self, start: usize, budget: usize) -> Result<Head> {
        let mut messages: Vec<Value> = self.t.system.iter().chain(&self.t.task).cloned().collect();
        let mut summary_tokens = 0;
        if start > 0 && budget > 0 {
            let text = self.summary(start, budget)?;
            if !text.is_empty() {
                summary_tokens = self.opts.counter.count_text(&text)?;
                messages.push(json!({"role": "user", "content": text}));
            }
        }
        Ok(Head {
            messages,
            summary_tokens,
        })
    }

    /// A ctxc summary of units `..start`, its marker first.
    fn summary(&self, start: usize, budget: usize) -> Result<String> {
        let units = &self.t.units[..start];
        let records = units[0].items.start..units[start - 1].items.end;
        let entries: Vec<Cow<_>> = self.conv.items[records.clone()]
            .iter()
            .filter(|i| i.in_context)
            .map(Cow::Borrowed)
            .collect();
        let summary = self.opts.summarizer.summarize(&SummaryRequest {
            entries: &entries,
            scope: Scope::Span,
            records,
            max_tokens: budget,
            counter: self.opts.budget_counter,
            memo: Some(self.memo),
        })?;
        if summary.text.is_empty() {
            return Ok(String::new());
        }
        Ok(format!("{SUMMARY_MARKER}\n{}", summary.text))
    }

    /// Unit `i` cut until it fits after `head`, the cuts recorded.
    fn cut_unit(&self, head: &Head, i: usize, cuts: &mut Vec<Cut>) -> Result<Unit> {
        let mut unit = self.t.units[i].clone();
        let mut messages = self.compose(head, std::slice::from_ref(&unit));
        let from = head.messages.len();
        let n = messages.len();
        let made = cut::cut_to_fit(&mut messages, from..n, self.opts.max_len, &|m| {
            self.count(m)
        })?;
        cuts.extend(made.into_iter().map(|c| c.in_unit(i)));
        unit.messages = messages[from..]
            .iter()
            .map(|m| {
                let mut m = m.clone();
                if let Some(o) = m.as_object_mut() {
                    o.remove(self.opts.train_field);
                }
                m
            })
            .collect();
        Ok(unit)
    }

    fn fits(&self, head: &Head, units: &[Unit]) -> Result<bool> {
        Ok(self.count(&self.compose(head, units))? <= self.opts.max_len)
    }

    /// A sample's tokens; an empty head counts 0 (a template may read `messages[0]`, and
    /// its markup is counted with the sample it heads).
    fn count(&self, messages: &[Value]) -> Result<usize> {
        if messages.is_empty() {
            return Ok(0);
        }
        self.opts
            .counter
            .count_sample(messages, self.t.tools.as_ref())
    }

    /// The sample's messages with their train flags: the segment's assistant messages 1,
    /// everything else 0.
    fn compose(&self, head: &Head, units: &[Unit]) -> Vec<Value> {
        let flag = |mut m: Value, trained: bool| {
            if let Some(o) = m.as_object_mut() {
                o.insert(self.opts.train_field.to_string(), json!(u8::from(trained)));
            }
            m
        };
        let head = head.messages.iter().map(|m| flag(m.clone(), false));
        let segment = units
            .iter()
            .flat_map(|u| &u.messages)
            .map(|m| flag(m.clone(), is_assistant(m)));
        head.chain(segment).collect()
    }

    fn sample(&self, head: &Head, units: &[Unit]) -> Result<Sample> {
        let messages = self.compose(head, units);
        let tokens = self.count(&messages)?;
        Ok(Sample {
            messages,
            tokens,
            summary_tokens: head.summary_tokens,
        })
    }
}
