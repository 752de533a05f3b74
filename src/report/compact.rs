//! The report of `ctxc compact`: per file and totals (DESIGN "Report"), as serde data for
//! JSON and YAML and as a table for people.

use crate::config::TokenSettings;
use crate::human::thousands;
use crate::pipeline::Outcome;
use crate::retention::{Counts, Retention};
use crate::strategy::StrategyName;
use crate::summarizer::Fallback;
use crate::summarizer::llm::OnFailure;
use serde::{Deserialize, Serialize};

/// Bumped when a field changes meaning or goes away. 2: a failed file's figures it never had
/// are `null` (were 0, and retention 1.0), and so is the retention of a kind with nothing to
/// keep (was 1.0 for 0 of 0).
pub const SCHEMA_VERSION: u32 = 2;

/// Conversations of one file whose shortfall is spelled out; the rest are counted.
const MAX_NOTES: usize = 3;

/// The whole report.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactReport {
    /// See [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// How tokens were counted (and whether counts are exact).
    pub tokenizer: TokenSettings,
    /// The strategies asked for.
    pub strategies: Vec<StrategyName>,
    /// The summarizer.
    pub summarizer: String,
    /// Whether outputs were written.
    pub dry_run: bool,
    /// Whether Ctrl-C stopped the run: the files it had not started are `skipped`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// One entry per input, in input order.
    #[serde(serialize_with = "public_files")]
    pub files: Vec<FileReport>,
    /// Sums over all files.
    pub totals: Totals,
}

/// The files as reports show them ([`FileReport::public`]).
fn public_files<S: serde::Serializer>(files: &[FileReport], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(files.len()))?;
    for file in files {
        seq.serialize_element(&file.public())?;
    }
    seq.end()
}

/// A number a report may write as `null` (no value), read back as 0.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// The figures a file that failed before it was measured never had: `null` in reports.
const UNMEASURED: [&str; 10] = [
    "conversations",
    "conversationsCompacted",
    "bytesBefore",
    "bytesAfter",
    "messagesBefore",
    "messagesAfter",
    "contextTokensBefore",
    "contextTokensAfter",
    "savedRatio",
    "retention",
];

/// What became of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Compacted and written.
    Compacted,
    /// Nothing to do: written back byte-identical.
    #[default]
    Unchanged,
    /// Could not be read, compacted or written; nothing was written.
    Failed,
    /// Not processed (`--fail-fast` after a failure) or not written (declined at `--confirm`).
    Skipped,
}

impl Status {
    /// The name in tables and logs.
    pub fn name(self) -> &'static str {
        match self {
            Status::Compacted => "compacted",
            Status::Unchanged => "unchanged",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }
}

/// `sum + n`, `None` while both are nothing.
fn add_some(sum: Option<usize>, n: usize) -> Option<usize> {
    (sum.is_some() || n > 0).then(|| sum.unwrap_or(0) + n)
}

/// One strategy's effect on a file, summed over the conversations it ran on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    /// The strategy.
    pub strategy: StrategyName,
    /// Conversations it ran on.
    pub conversations: usize,
    /// Context tokens before it.
    pub tokens_before: usize,
    /// Context tokens after it.
    pub tokens_after: usize,
    /// Old thinking blocks it dropped (`trim-outputs`), when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_dropped: Option<usize>,
}

/// The figures of one file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FileReport {
    /// The input.
    pub path: String,
    /// Where the output went (`-` for stdout), when written.
    pub output: Option<String>,
    /// compacted, unchanged or failed.
    pub status: Status,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The line the error is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_line: Option<usize>,
    /// The step that failed: `read`, `parse`, `check`, `compact` or `write`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<String>,
    /// Detected (or forced) format.
    pub format: Option<String>,
    /// Task types adaptive detected, per conversation compacted (deduplicated).
    pub task_types: Vec<String>,
    /// Conversations in the file.
    #[serde(deserialize_with = "null_as_default")]
    pub conversations: usize,
    /// The context window its largest conversation was measured against (for `-v`).
    #[serde(skip)]
    pub context_window: usize,
    /// Conversations that were compacted.
    #[serde(deserialize_with = "null_as_default")]
    pub conversations_compacted: usize,
    /// File size before.
    #[serde(deserialize_with = "null_as_default")]
    pub bytes_before: usize,
    /// File size after.
    #[serde(deserialize_with = "null_as_default")]
    pub bytes_after: usize,
    /// Logical messages the model sees, before.
    #[serde(deserialize_with = "null_as_default")]
    pub messages_before: usize,
    /// Logical messages the model sees, after.
    #[serde(deserialize_with = "null_as_default")]
    pub messages_after: usize,
    /// Context tokens before (summed over conversations).
    #[serde(deserialize_with = "null_as_default")]
    pub context_tokens_before: usize,
    /// Context tokens after (exact: counted on the output read back).
    #[serde(deserialize_with = "null_as_default")]
    pub context_tokens_after: usize,
    /// Context tokens before as the provider would count them, calibrated on the usage the
    /// file records (absent without usage).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_tokens_before: Option<usize>,
    /// The same after: the output's exact count, calibrated as `ctxc stats` of the output
    /// calibrates it (on the calls the compaction left as they were), else with the input's fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_tokens_after: Option<usize>,
    /// The target (in ctxc's counts), summed over compacted conversations.
    pub target_tokens: Option<usize>,
    /// 1 − after / before, in ctxc's counts.
    #[serde(deserialize_with = "null_as_default")]
    pub saved_ratio: f64,
    /// 1 − after / before in provider tokens (the figure the token trigger uses), when the
    /// file records usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_saved_ratio: Option<f64>,
    /// Triggers that fired, in order of first firing.
    pub triggers: Vec<String>,
    /// Why nothing fired, or why the target was not reached.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What `compact` warns about on stderr, each after `PATH:` (conversations left as they
    /// were because they fail `check`); in `notes` too.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Repairs made before the compaction (`--repair`), in input line order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<crate::repair::Repair>,
    /// Strategies tried, with tokens before and after each.
    pub steps: Vec<StepReport>,
    /// Summaries asked of the summarizer.
    pub summary_requests: usize,
    /// Summaries written.
    pub summaries: usize,
    /// Their tokens.
    pub summary_tokens: usize,
    /// Requests made to a model.
    pub llm_calls: usize,
    /// Prompt tokens reported by the model.
    pub llm_prompt_tokens: u64,
    /// Completion tokens reported by the model.
    pub llm_completion_tokens: u64,
    /// Summaries a fallback wrote because the summarizer failed, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub summary_fallbacks: Vec<String>,
    /// The same by cause: what stood in, and in how many conversations.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub summary_failures: Vec<SummaryFailure>,
    /// Share of the original's facts still present (from `retentionCounts` when read back).
    #[serde(skip_deserializing)]
    pub retention: Retention,
    /// The counts behind `retention`: `[kept, total]` per kind.
    #[serde(deserialize_with = "null_as_default")]
    pub retention_counts: Counts,
    /// Milliseconds spent on the file.
    pub time_ms: u64,
    /// The command that resumes the session, when the file is a client's session compacted in
    /// place in its store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
}

impl FileReport {
    /// The report of a file that went through the pipeline.
    pub fn of(path: String, t: &crate::transcript::Transcript, outcome: &Outcome) -> FileReport {
        let mut r = FileReport {
            path,
            status: if outcome.changed {
                Status::Compacted
            } else {
                Status::Unchanged
            },
            format: Some(t.format.to_string()),
            conversations: outcome.conversations.len(),
            bytes_before: t.source.len(),
            bytes_after: outcome.output.len(),
            summary_requests: outcome.stats.requests,
            summaries: outcome.stats.summaries,
            summary_tokens: outcome.stats.summary_tokens,
            llm_calls: outcome.stats.llm_calls,
            llm_prompt_tokens: outcome.stats.prompt_tokens,
            llm_completion_tokens: outcome.stats.completion_tokens,
            summary_fallbacks: outcome
                .stats
                .fallbacks
                .iter()
                .map(|f| f.detail.clone())
                .collect(),
            ..FileReport::default()
        };
        let many = outcome.conversations.len() > 1;
        let mut targets = None::<usize>;
        let mut unreached = 0;
        let mut undershot = 0;
        r.context_window = outcome.context_window();
        for conv in &outcome.conversations {
            let at = if many && !conv.location.is_empty() {
                format!("{}: ", conv.location)
            } else {
                String::new()
            };
            r.messages_before += conv.before.events;
            r.messages_after += conv.messages_after;
            r.context_tokens_before += conv.before.tokens;
            r.context_tokens_after += conv.tokens_after;
            // Conversations without usage count as ctxc counts them.
            if let Some(after) = conv.provider_tokens_after() {
                let before = conv.before.provider_tokens.unwrap_or(conv.before.tokens);
                *r.calibrated_tokens_before.get_or_insert(0) += before;
                *r.calibrated_tokens_after.get_or_insert(0) += after;
            }
            r.retention += conv.retention;
            for trigger in &conv.triggers {
                let name = trigger.name().to_string();
                if !r.triggers.contains(&name) {
                    r.triggers.push(name);
                }
            }
            if let Some(target) = conv.target_tokens {
                *targets.get_or_insert(0) += target;
            }
            if !many {
                r.notes.extend(conv.why_not.iter().cloned());
            }
            let Some(c) = &conv.compaction else { continue };
            count_failures(&mut r.summary_failures, &c.stats.fallbacks);
            if c.steps.iter().any(|s| s.changed) {
                r.conversations_compacted += 1;
            }
            if let Some(task) = c.task_type {
                let name = task.name().to_string();
                if !r.task_types.contains(&name) {
                    r.task_types.push(name);
                }
            }
            if let Some(why) = &c.shortfall {
                unreached += 1;
                if unreached <= MAX_NOTES {
                    r.notes.push(format!("{at}{why}"));
                }
            }
            if let Some(why) = &c.undershoot {
                undershot += 1;
                if undershot <= MAX_NOTES {
                    r.notes.push(format!("{at}{why}"));
                }
            }
            for step in &c.steps {
                match r.steps.iter_mut().find(|s| s.strategy == step.strategy) {
                    Some(s) => {
                        s.conversations += 1;
                        s.tokens_before += step.tokens_before;
                        s.tokens_after += step.tokens_after;
                        s.thinking_dropped = add_some(s.thinking_dropped, step.thinking_dropped);
                    }
                    None => r.steps.push(StepReport {
                        strategy: step.strategy,
                        conversations: 1,
                        tokens_before: step.tokens_before,
                        tokens_after: step.tokens_after,
                        thinking_dropped: add_some(None, step.thinking_dropped),
                    }),
                }
            }
        }
        if unreached > MAX_NOTES {
            r.notes.push(format!(
                "... and {} more conversations that did not reach their target",
                unreached - MAX_NOTES
            ));
        }
        if undershot > MAX_NOTES {
            r.notes.push(format!(
                "... and {} that landed under 85% of their target",
                crate::human::plural(undershot - MAX_NOTES, "more conversation")
            ));
        }
        if many && r.triggers.is_empty() {
            r.notes.push(format!(
                "no trigger fired in any of the {} conversations",
                thousands(outcome.conversations.len() as u64)
            ));
        }
        for kept in &outcome.kept {
            let at = match kept.location.as_str() {
                "" => String::new(),
                location => format!(" at {location}"),
            };
            for f in &kept.findings {
                let warning = format!(
                    "{}: {}: the conversation{at} is left as it was, the others compacted (--on-findings)",
                    f.line, f.message
                );
                r.notes.push(warning.clone());
                r.warnings.push(warning);
            }
        }
        r.target_tokens = targets;
        r.saved_ratio = saved(r.context_tokens_before, r.context_tokens_after);
        r.provider_saved_ratio = r
            .calibrated_tokens_before
            .zip(r.calibrated_tokens_after)
            .map(|(before, after)| saved(before, after));
        r.retention_counts = r.retention.into();
        r
    }

    /// The report of a file that was not processed, and why.
    pub fn skipped(path: String, why: &str) -> FileReport {
        FileReport {
            path,
            status: Status::Skipped,
            notes: vec![why.to_string()],
            ..FileReport::default()
        }
    }

    /// The report of a file that failed.
    pub fn failed(path: String, error: String) -> FileReport {
        FileReport {
            path,
            status: Status::Failed,
            error: Some(error),
            ..FileReport::default()
        }
    }

    /// Marks this report failed at `step` (at `line`, 0 for none), keeping what was already
    /// measured (a file that fails to be written still has its format and tokens).
    pub fn fail(mut self, step: &str, line: usize, error: String) -> FileReport {
        self.status = Status::Failed;
        self.error = Some(error);
        self.error_line = (line > 0).then_some(line);
        self.failed_step = Some(step.to_string());
        self.output = None;
        // Nothing was written: nothing was saved.
        self.bytes_after = self.bytes_before;
        self.context_tokens_after = self.context_tokens_before;
        self.messages_after = self.messages_before;
        self.saved_ratio = 0.0;
        self
    }

    /// `path:line: error` (or `path: error`) for a failed file, as `check` prints findings.
    pub fn error_message(&self) -> Option<String> {
        let error = self.error.as_deref()?;
        Some(match self.error_line {
            Some(line) => format!("{}:{line}: {error}", self.path),
            None => format!("{}: {error}", self.path),
        })
    }

    /// Whether the file was read far enough to be measured.
    pub fn measured(&self) -> bool {
        self.format.is_some()
    }

    /// This report as reports show it: a file that failed before it was measured has `null`
    /// for the figures it never had, as the table shows `-` (internally they are 0).
    pub fn public(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).expect("a report serializes");
        if self.status == Status::Failed && !self.measured() {
            if let Some(fields) = value.as_object_mut() {
                for key in UNMEASURED {
                    if let Some(v) = fields.get_mut(key) {
                        *v = serde_json::Value::Null;
                    }
                }
                fields.insert("retentionCounts".into(), serde_json::Value::Null);
            }
        }
        value
    }
}

fn saved(before: usize, after: usize) -> f64 {
    if before == 0 {
        0.0
    } else {
        let ratio = 1.0 - after as f64 / before as f64;
        (ratio * 10_000.0).round() / 10_000.0
    }
}

/// Sums over all files, plus seed 004's monitoring figures.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Totals {
    /// Inputs.
    pub files: usize,
    /// Files compacted.
    pub compacted: usize,
    /// Files left unchanged.
    pub unchanged: usize,
    /// Files that failed.
    pub failed: usize,
    /// Files not processed or not written (`--fail-fast`, `--confirm`).
    pub skipped: usize,
    /// Files where a trigger fired.
    pub triggered: usize,
    /// Bytes before.
    pub bytes_before: usize,
    /// Bytes after.
    pub bytes_after: usize,
    /// Context tokens before.
    pub context_tokens_before: usize,
    /// Context tokens after.
    pub context_tokens_after: usize,
    /// 1 − after / before, in ctxc's counts.
    pub saved_ratio: f64,
    /// Context tokens before in provider tokens where files record usage, else in ctxc's
    /// counts (absent when no file records usage).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_tokens_before: Option<usize>,
    /// The same after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_tokens_after: Option<usize>,
    /// 1 − after / before on those figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_saved_ratio: Option<f64>,
    /// Summaries written.
    pub summaries: usize,
    /// Summaries asked of the summarizer.
    pub summary_requests: usize,
    /// Share of summary requests the configured summarizer answered itself (no fallback).
    pub summary_success_rate: f64,
    /// Requests made to a model.
    pub llm_calls: usize,
    /// Prompt tokens reported by the model.
    pub llm_prompt_tokens: u64,
    /// Completion tokens reported by the model.
    pub llm_completion_tokens: u64,
    /// Retention over all files.
    #[serde(skip_deserializing)]
    pub retention: Retention,
    /// Mean milliseconds per file.
    pub mean_time_ms: f64,
}

/// Summaries the configured summarizer could not write, by cause and what stood in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryFailure {
    /// The failure in a few words (`401 Unauthorized`).
    pub cause: String,
    /// What stood in: `extractive` or `truncate`.
    pub fallback: OnFailure,
    /// Conversations where it happened (once each, however many of its summaries failed).
    pub conversations: usize,
}

impl SummaryFailure {
    /// The warning and the report's note: one line per cause, over the whole run.
    pub fn note(&self) -> String {
        let conversations = crate::human::plural(self.conversations, "conversation");
        let instead = match self.fallback {
            OnFailure::Extractive => format!("extractive used for {conversations}"),
            OnFailure::Truncate => format!("spans dropped without a summary in {conversations}"),
            OnFailure::Fail => format!("failed in {conversations}"),
        };
        format!("summary requests failed ({}): {instead}", self.cause)
    }
}

/// Books one conversation's fallbacks into `into`: each cause and fallback once.
fn count_failures(into: &mut Vec<SummaryFailure>, fallbacks: &[Fallback]) {
    for (i, f) in fallbacks.iter().enumerate() {
        let seen = |g: &Fallback| g.cause == f.cause && g.used == f.used;
        if fallbacks[..i].iter().any(seen) {
            continue;
        }
        add_failure(
            into,
            SummaryFailure {
                cause: f.cause.clone(),
                fallback: f.used,
                conversations: 1,
            },
        );
    }
}

fn add_failure(into: &mut Vec<SummaryFailure>, failure: SummaryFailure) {
    match into
        .iter_mut()
        .find(|g| g.cause == failure.cause && g.fallback == failure.fallback)
    {
        Some(g) => g.conversations += failure.conversations,
        None => into.push(failure),
    }
}

/// The summary failures of every file, by cause, in the order they first appear.
pub fn summary_failures(files: &[FileReport]) -> Vec<SummaryFailure> {
    let mut all = Vec::new();
    for failure in files.iter().flat_map(|f| &f.summary_failures) {
        add_failure(&mut all, failure.clone());
    }
    all
}

/// Totals of `files`.
pub fn totals(files: &[FileReport]) -> Totals {
    let mut tally = Tally::default();
    for f in files {
        tally.add(f);
    }
    tally.totals()
}

/// Totals and summary failures, counted one file at a time (a dataset's rows are not all in
/// memory at once).
#[derive(Debug, Default)]
pub struct Tally {
    t: Totals,
    fallbacks: usize,
    time: u64,
    failures: Vec<SummaryFailure>,
    /// Files that record usage, and the tokens before and after in provider tokens (ctxc's
    /// counts for files without).
    provider_files: usize,
    provider_before: usize,
    provider_after: usize,
}

impl Tally {
    /// Counts one more file.
    pub fn add(&mut self, f: &FileReport) {
        let t = &mut self.t;
        t.files += 1;
        match f.status {
            Status::Compacted => t.compacted += 1,
            Status::Unchanged => t.unchanged += 1,
            Status::Failed => t.failed += 1,
            Status::Skipped => t.skipped += 1,
        }
        t.triggered += usize::from(!f.triggers.is_empty());
        t.bytes_before += f.bytes_before;
        t.bytes_after += f.bytes_after;
        t.context_tokens_before += f.context_tokens_before;
        t.context_tokens_after += f.context_tokens_after;
        // In provider tokens where the file records usage, else in ctxc's counts.
        let provider = f.calibrated_tokens_before.zip(f.calibrated_tokens_after);
        self.provider_files += usize::from(provider.is_some());
        let (before, after) = provider.unwrap_or((f.context_tokens_before, f.context_tokens_after));
        self.provider_before += before;
        self.provider_after += after;
        t.summaries += f.summaries;
        t.summary_requests += f.summary_requests;
        self.fallbacks += f.summary_fallbacks.len();
        t.llm_calls += f.llm_calls;
        t.llm_prompt_tokens += f.llm_prompt_tokens;
        t.llm_completion_tokens += f.llm_completion_tokens;
        t.retention += f.retention;
        self.time += f.time_ms;
        for failure in &f.summary_failures {
            add_failure(&mut self.failures, failure.clone());
        }
    }

    /// The totals of the files counted.
    pub fn totals(&self) -> Totals {
        let mut t = self.t.clone();
        t.saved_ratio = saved(t.context_tokens_before, t.context_tokens_after);
        if self.provider_files > 0 {
            t.calibrated_tokens_before = Some(self.provider_before);
            t.calibrated_tokens_after = Some(self.provider_after);
            t.provider_saved_ratio = Some(saved(self.provider_before, self.provider_after));
        }
        t.summary_success_rate = if t.summary_requests == 0 {
            1.0
        } else {
            1.0 - self.fallbacks as f64 / t.summary_requests as f64
        };
        t.mean_time_ms = if t.files == 0 {
            0.0
        } else {
            self.time as f64 / t.files as f64
        };
        t
    }

    /// The summary failures of the files counted, by cause, in the order they first appear.
    pub fn summary_failures(&self) -> &[SummaryFailure] {
        &self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fallback(cause: &str, used: OnFailure) -> Fallback {
        Fallback {
            cause: cause.into(),
            used,
            detail: format!("openai summary failed after 1 attempt: {cause}"),
        }
    }

    #[test]
    fn summary_failures_count_conversations_once_per_cause_over_the_run() {
        let unauthorized = fallback("401 Unauthorized", OnFailure::Extractive);
        let mut a = FileReport::default();
        // Three failed summaries in one conversation, two of one cause.
        count_failures(
            &mut a.summary_failures,
            &[
                unauthorized.clone(),
                fallback("unusable reply", OnFailure::Extractive),
                unauthorized.clone(),
            ],
        );
        count_failures(&mut a.summary_failures, std::slice::from_ref(&unauthorized));
        let mut b = FileReport::default();
        count_failures(&mut b.summary_failures, &[unauthorized]);
        count_failures(
            &mut b.summary_failures,
            &[fallback("401 Unauthorized", OnFailure::Truncate)],
        );
        let notes: Vec<String> = summary_failures(&[a, b])
            .iter()
            .map(SummaryFailure::note)
            .collect();
        assert_eq!(
            notes,
            [
                "summary requests failed (401 Unauthorized): extractive used for 3 conversations",
                "summary requests failed (unusable reply): extractive used for 1 conversation",
                "summary requests failed (401 Unauthorized): spans dropped without a summary in 1 conversation",
            ]
        );
    }
}
