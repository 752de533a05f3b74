//! Judge mode of `ctxc eval` (`--judge openai|anthropic --judge-model M`): a model answers a
//! sample of each conversation's probe questions from the compacted context and from the
//! original, and a judge scores every answer 0–5 on the six dimensions of Factory's
//! probe-based evaluation of context compression. Both go through the summarizers' HTTP client
//! ([`Client`]: key handling, redaction, retries, the cap on requests in flight).
//!
//! A reply that cannot be read (no numbered answer, no valid score line) is asked again once,
//! then the conversation's answers are reported skipped with the reason: a score is only ever
//! one the judge wrote. Replies are cached by the digest of the request ([`Cache`]), and what
//! the requests cost is reported in tokens as the provider counted them.

mod cache;
mod prompt;

pub use cache::Cache;

use super::{Category, Probe};
use crate::summarizer::llm::prompt::Prompt;
use crate::summarizer::llm::{Client, Cost, LlmSettings};
use crate::summarizer::render::{Outputs, render_entries};
use crate::summarizer::{redact, safety_truncate};
use crate::transcript::{Conversation, Item};
use anyhow::Result;
use serde::Serialize;
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Factory's six scoring dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    /// Facts, names, paths and values right.
    Accuracy,
    /// Reflects the state of the conversation.
    ContextAwareness,
    /// Which files were touched and how.
    ArtifactTrail,
    /// Covers the whole question.
    Completeness,
    /// The work could go on from it.
    Continuity,
    /// Answers what was asked, as asked.
    InstructionFollowing,
}

impl Dimension {
    /// Every dimension, in the order the judge scores them.
    pub const ALL: [Dimension; 6] = [
        Dimension::Accuracy,
        Dimension::ContextAwareness,
        Dimension::ArtifactTrail,
        Dimension::Completeness,
        Dimension::Continuity,
        Dimension::InstructionFollowing,
    ];

    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Accuracy => "accuracy",
            Dimension::ContextAwareness => "context awareness",
            Dimension::ArtifactTrail => "artifact trail",
            Dimension::Completeness => "completeness",
            Dimension::Continuity => "continuity",
            Dimension::InstructionFollowing => "instruction following",
        }
    }
}

/// Scores summed over the answers scored, per dimension (sums, so they add up over
/// conversations and files; a mean is a sum over `answers`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scores {
    /// Answers scored.
    pub answers: usize,
    /// Sum of accuracy scores.
    pub accuracy: usize,
    /// Sum of context awareness scores.
    pub context_awareness: usize,
    /// Sum of artifact trail scores.
    pub artifact_trail: usize,
    /// Sum of completeness scores.
    pub completeness: usize,
    /// Sum of continuity scores.
    pub continuity: usize,
    /// Sum of instruction following scores.
    pub instruction_following: usize,
}

impl Scores {
    /// The sum of one dimension.
    pub fn sum(&self, dimension: Dimension) -> usize {
        match dimension {
            Dimension::Accuracy => self.accuracy,
            Dimension::ContextAwareness => self.context_awareness,
            Dimension::ArtifactTrail => self.artifact_trail,
            Dimension::Completeness => self.completeness,
            Dimension::Continuity => self.continuity,
            Dimension::InstructionFollowing => self.instruction_following,
        }
    }

    /// The mean score of one dimension, `None` when nothing was scored.
    pub fn mean(&self, dimension: Dimension) -> Option<f64> {
        (self.answers > 0).then(|| self.sum(dimension) as f64 / self.answers as f64)
    }

    fn add(&mut self, scores: [u8; 6]) {
        let [a, b, c, d, e, f] = scores.map(usize::from);
        self.answers += 1;
        self.accuracy += a;
        self.context_awareness += b;
        self.artifact_trail += c;
        self.completeness += d;
        self.continuity += e;
        self.instruction_following += f;
    }
}

impl std::ops::AddAssign for Scores {
    fn add_assign(&mut self, o: Scores) {
        self.answers += o.answers;
        self.accuracy += o.accuracy;
        self.context_awareness += o.context_awareness;
        self.artifact_trail += o.artifact_trail;
        self.completeness += o.completeness;
        self.continuity += o.continuity;
        self.instruction_following += o.instruction_following;
    }
}

/// The answers to one sample of probes, scored: or why they could not be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assessment {
    /// The scores of the answers the judge scored.
    pub scores: Scores,
    /// Answers not scored (the judge gave no valid line for them, or the requests failed).
    pub skipped: usize,
    /// Why none was scored, when the requests failed or no reply could be read.
    pub error: Option<String>,
}

/// How the judge is set up.
#[derive(Debug, Clone)]
pub struct JudgeSettings {
    /// The endpoint and model (answering and judging).
    pub llm: LlmSettings,
    /// Probes asked per conversation, spread over the categories.
    pub probes: usize,
    /// Where replies are cached; `None` for no cache.
    pub cache: Option<PathBuf>,
}

/// What the judge's requests cost, and how many replies came from the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spent {
    /// Tokens and requests sent in this run.
    #[serde(flatten)]
    pub cost: Cost,
    /// Replies read from the cache instead of asked for.
    pub cached_replies: usize,
}

/// The judge of a run, shared by every worker thread.
#[derive(Debug)]
pub struct Judge {
    client: Client,
    cache: Option<Cache>,
    probes: usize,
    spent: Mutex<Cost>,
    cached: AtomicUsize,
    cache_error: Mutex<Option<String>>,
}

impl Judge {
    /// Checks the settings, opens the cache and builds the client.
    pub fn new(settings: JudgeSettings) -> Result<Judge> {
        if settings.llm.model.trim().is_empty() {
            anyhow::bail!("--judge needs a model (--judge-model)");
        }
        if settings.probes == 0 {
            anyhow::bail!("--judge-probes must be at least 1");
        }
        let cache = settings.cache.as_deref().map(Cache::open).transpose()?;
        Ok(Judge {
            client: Client::new(settings.llm)?,
            cache,
            probes: settings.probes,
            spent: Mutex::new(Cost::default()),
            cached: AtomicUsize::new(0),
            cache_error: Mutex::new(None),
        })
    }

    /// The URL requests go to (any password redacted).
    pub fn endpoint(&self) -> &str {
        self.client.endpoint()
    }

    /// The settings it was built with.
    pub fn settings(&self) -> &LlmSettings {
        self.client.settings()
    }

    /// What was spent so far.
    pub fn spent(&self) -> Spent {
        Spent {
            cost: *self.spent.lock().unwrap_or_else(|e| e.into_inner()),
            cached_replies: self.cached.load(Ordering::SeqCst),
        }
    }

    /// The first failure to write the cache, if any (the scores stand; a re-run asks again).
    pub fn cache_error(&self) -> Option<String> {
        self.cache_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The probes asked about a conversation: at most the configured number, taken from the
    /// categories in turn and spread evenly over each, in their order.
    pub fn sample<'a>(&self, probes: &'a [Probe]) -> Vec<&'a Probe> {
        sample(probes, self.probes)
    }

    /// Has the model answer `probes` from what `context` sends the model, and the judge score
    /// the answers.
    pub fn assess(&self, context: &Conversation, probes: &[&Probe]) -> Assessment {
        if probes.is_empty() {
            return Assessment::default();
        }
        let asked = self
            .ask(
                prompt::answering(&transcript(context), probes),
                probes.len(),
                |r| prompt::parse_answers(r, probes.len()),
            )
            .and_then(|answers| {
                self.ask(prompt::judging(probes, &answers), probes.len(), |r| {
                    prompt::parse_scores(r, probes.len())
                })
            });
        let mut assessment = Assessment::default();
        match asked {
            Ok(scores) => {
                for score in scores {
                    match score {
                        Some(score) => assessment.scores.add(score),
                        None => assessment.skipped += 1,
                    }
                }
            }
            Err(reason) => {
                assessment.skipped = probes.len();
                assessment.error = Some(reason);
            }
        }
        assessment
    }

    /// The reply to `prompt` read by `parse`: from the cache when it holds one, else asked
    /// (and kept).
    fn ask<T>(
        &self,
        mut prompt: Prompt,
        items: usize,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, String> {
        if self.settings().redact {
            let r = redact::redact(&prompt.user);
            prompt.redacted = r.count;
            prompt.user = r.text.into_owned();
        }
        let max_tokens = prompt::max_tokens(items);
        let key = Cache::key(self.endpoint(), &self.client.body(&prompt, max_tokens));
        if let Some(entry) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            if let Ok(value) = parse(&entry.reply) {
                self.cached.fetch_add(1, Ordering::SeqCst);
                return Ok(value);
            }
        }
        let mut cost = Cost::default();
        let asked = self.client.complete(
            &prompt,
            max_tokens,
            |reply| parse(reply).map(|v| (v, reply.to_string())),
            &mut cost,
        );
        *self.spent.lock().unwrap_or_else(|e| e.into_inner()) += cost;
        let (value, reply) = asked?;
        if let Some(cache) = &self.cache {
            let entry = cache::Entry {
                reply,
                prompt_tokens: cost.prompt_tokens,
                completion_tokens: cost.completion_tokens,
            };
            if let Err(e) = cache.put(&key, &entry) {
                let mut first = self.cache_error.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert_with(|| format!("{e:#}"));
            }
        }
        Ok(value)
    }
}

/// What the model is sent of `conv`, as delimited plain text (tool outputs in full; the
/// summarizers' input limit applies).
fn transcript(conv: &Conversation) -> String {
    let entries: Vec<Cow<Item>> = conv
        .items
        .iter()
        .filter(|i| i.in_context)
        .map(Cow::Borrowed)
        .collect();
    let text = render_entries(&entries, Outputs::Full).concat();
    safety_truncate(&text).into_owned()
}

/// At most `n` of `probes`: one from each category in turn while any is left, spread evenly
/// over each category, in their original order.
fn sample(probes: &[Probe], n: usize) -> Vec<&Probe> {
    let groups: Vec<Vec<usize>> = Category::ALL
        .iter()
        .map(|&c| {
            (0..probes.len())
                .filter(|&i| probes[i].category() == c)
                .collect()
        })
        .collect();
    let mut take = vec![0usize; groups.len()];
    let mut left = n;
    while left > 0 {
        let before = left;
        for (g, group) in groups.iter().enumerate() {
            if left > 0 && take[g] < group.len() {
                take[g] += 1;
                left -= 1;
            }
        }
        if left == before {
            break;
        }
    }
    let mut chosen: Vec<usize> = groups
        .iter()
        .zip(&take)
        .flat_map(|(group, &k)| (0..k).map(move |j| group[j * group.len() / k]))
        .collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| &probes[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Subject;

    fn probe(subject: Subject, line: usize) -> Probe {
        Probe {
            subject,
            line,
            question: String::new(),
            answer: format!("{line}"),
            action: None,
            also: None,
        }
    }

    #[test]
    fn the_sample_takes_categories_in_turn_spread_over_each() {
        let mut probes: Vec<Probe> = (0..10).map(|i| probe(Subject::File, i)).collect();
        probes.push(probe(Subject::Task, 10));
        probes.extend((11..15).map(|i| probe(Subject::Command, i)));
        let lines = |n| -> Vec<usize> { sample(&probes, n).iter().map(|p| p.line).collect() };
        assert_eq!(lines(3), [0, 10, 11]);
        // Artifacts 0, 5 (spread over ten), recall 11, 13, the task.
        assert_eq!(lines(5), [0, 5, 10, 11, 13]);
        assert_eq!(lines(100).len(), probes.len());
    }

    #[test]
    fn scores_sum_per_dimension() {
        let mut s = Scores::default();
        s.add([5, 4, 3, 2, 1, 0]);
        s.add([5, 4, 3, 2, 1, 2]);
        assert_eq!(s.answers, 2);
        assert_eq!(s.mean(Dimension::Accuracy), Some(5.0));
        assert_eq!(s.mean(Dimension::InstructionFollowing), Some(1.0));
        assert_eq!(Scores::default().mean(Dimension::Continuity), None);
    }
}
