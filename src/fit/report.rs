//! What `fit` made of each trajectory (a [`RowReport`]) and of the whole run ([`Totals`]):
//! samples, tokens per sample, turns trained, turns cut, the summaries' share of the tokens.

use super::Sample;
use super::messages::Trajectory;
use serde::Serialize;

/// A text cut so that its turn fits.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Cut {
    /// Which turn (its index among the trajectory's units); `None` for the system prompt or
    /// the task.
    pub turn: Option<usize>,
    /// Which message of the turn.
    pub message: usize,
    /// Which of its texts (`content`, `reasoning_content`, `tool_calls[0].arguments`).
    pub field: String,
    /// Its characters before the cut.
    pub chars_before: usize,
    /// The characters kept (the marker aside).
    pub chars_kept: usize,
}

impl Cut {
    pub(super) fn new(
        message: usize,
        field: &super::cut::Field,
        before: usize,
        kept: usize,
    ) -> Self {
        Cut {
            turn: None,
            message,
            field: field.name(),
            chars_before: before,
            chars_kept: kept,
        }
    }

    pub(super) fn in_unit(self, unit: usize) -> Self {
        Cut {
            turn: Some(unit),
            ..self
        }
    }

    pub(super) fn in_header(self) -> Self {
        Cut { turn: None, ..self }
    }
}

/// One trajectory's report.
#[derive(Debug, Clone, Serialize)]
pub struct RowReport {
    /// Which trajectory: the input and where the conversation is in it (set by the caller).
    pub sample_of: String,
    /// Its assistant turns.
    pub assistant_turns: usize,
    /// Samples made.
    pub samples: usize,
    /// Each sample's tokens.
    pub tokens: Vec<usize>,
    /// Assistant turns trained (flag 1), over all samples.
    pub turns_trained: usize,
    /// Assistant turns only summarized (`--policy one`).
    pub turns_summarized: usize,
    /// Texts cut to fit.
    pub cuts: Vec<Cut>,
    /// Tokens of summary text over all samples.
    pub summary_tokens: usize,
}

impl RowReport {
    pub(super) fn new(t: &Trajectory, samples: &[Sample], cuts: Vec<Cut>, flag: &str) -> Self {
        let assistant_turns = t.units.iter().map(|u| u.assistant_turns()).sum();
        let turns_trained = samples
            .iter()
            .flat_map(|s| &s.messages)
            .filter(|m| m.get(flag).and_then(serde_json::Value::as_u64) == Some(1))
            .count();
        RowReport {
            sample_of: String::new(),
            assistant_turns,
            samples: samples.len(),
            tokens: samples.iter().map(|s| s.tokens).collect(),
            turns_trained,
            turns_summarized: assistant_turns.saturating_sub(turns_trained),
            cuts,
            summary_tokens: samples.iter().map(|s| s.summary_tokens).sum(),
        }
    }
}

/// Upper bounds of the tokens-per-sample histogram's buckets, as shares of `--max-len`.
const BUCKETS: [(usize, &str); 4] = [(25, "≤25%"), (50, "≤50%"), (75, "≤75%"), (100, "≤100%")];

/// The run's totals.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Totals {
    /// Trajectories read.
    pub trajectories: usize,
    /// Trajectories that failed (named on stderr).
    pub failed: usize,
    /// Samples made.
    pub samples: usize,
    /// Tokens over all samples.
    pub tokens: usize,
    /// The longest sample.
    pub max_tokens: usize,
    /// Assistant turns read.
    pub assistant_turns: usize,
    /// Assistant turns trained.
    pub turns_trained: usize,
    /// Assistant turns only summarized.
    pub turns_summarized: usize,
    /// Texts cut to fit.
    pub turns_cut: usize,
    /// Summary tokens.
    pub summary_tokens: usize,
    /// Samples per bucket of length (`≤25%` of --max-len, ...).
    pub histogram: Vec<(String, usize)>,
}

impl Totals {
    /// Totals of `rows` at `max_len`, with `failed` trajectories that made nothing.
    pub fn of(rows: &[RowReport], failed: usize, max_len: usize) -> Totals {
        let mut totals = Totals {
            trajectories: rows.len() + failed,
            failed,
            histogram: BUCKETS.iter().map(|(_, l)| (l.to_string(), 0)).collect(),
            ..Totals::default()
        };
        for row in rows {
            totals.samples += row.samples;
            totals.tokens += row.tokens.iter().sum::<usize>();
            totals.max_tokens = totals
                .max_tokens
                .max(row.tokens.iter().copied().max().unwrap_or(0));
            totals.assistant_turns += row.assistant_turns;
            totals.turns_trained += row.turns_trained;
            totals.turns_summarized += row.turns_summarized;
            totals.turns_cut += row
                .cuts
                .iter()
                .filter_map(|c| c.turn)
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            totals.summary_tokens += row.summary_tokens;
            for &n in &row.tokens {
                let share = (n * 100).div_ceil(max_len.max(1));
                let bucket = BUCKETS
                    .iter()
                    .position(|(b, _)| share <= *b)
                    .unwrap_or(BUCKETS.len() - 1);
                totals.histogram[bucket].1 += 1;
            }
        }
        totals
    }

    /// The summaries' share of all sample tokens.
    pub fn summary_share(&self) -> f64 {
        self.summary_tokens as f64 / self.tokens.max(1) as f64
    }

    /// The report's closing lines, for stderr.
    pub fn lines(&self, max_len: usize) -> Vec<String> {
        let histogram: Vec<String> = self
            .histogram
            .iter()
            .map(|(bucket, n)| format!("{bucket} {n}"))
            .collect();
        vec![
            format!(
                "{} → {} ({} tokens, longest {} of --max-len {max_len}); failed {}",
                crate::human::plural(self.trajectories, "conversation"),
                crate::human::plural(self.samples, "sample"),
                crate::human::thousands(self.tokens as u64),
                crate::human::thousands(self.max_tokens as u64),
                self.failed,
            ),
            format!(
                "assistant turns: {} read, {} trained, {} summarized only, {} cut to fit",
                self.assistant_turns, self.turns_trained, self.turns_summarized, self.turns_cut
            ),
            format!(
                "tokens per sample (share of --max-len): {}; summaries {:.1}% of tokens",
                histogram.join(", "),
                100.0 * self.summary_share()
            ),
        ]
    }
}
