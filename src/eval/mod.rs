//! Fidelity probes (`ctxc eval`): questions an agent resuming from a compacted conversation
//! must still be able to answer, derived from the original, each with the line it came from,
//! in the four categories of Factory's probe-based study of context compression:
//! - **artifact**: every file the conversation touched, with its last action;
//! - **recall**: distinct commands, error lines, and identifiers and numbers the user gave;
//! - **continuation**: the original task, the latest user request, the in-flight call or
//!   next step;
//! - **decision**: assistant sentences that choose or reject something.
//!
//! Beyond names, the agent's trail ([`trail`]): what an edit wrote before a later edit changed
//! the same place and a file created then deleted (artifact), the last failing command with
//! its error (recall), prompts the client injected (continuation), the user's answers to the
//! agent's questions (decision).
//!
//! A probe passes when its answer is findable in what the model is sent after the compacted
//! output loads — the definition `retention` uses ([`findable_text`]): verbatim in a kept
//! message or written into a summary, a summary's folded artifact index read as the paths it
//! folds.

pub mod judge;
mod probes;
mod trail;

pub use probes::derive;

use crate::facts::collapse_whitespace;
use crate::retention::{context_text, findable_text, verbatim_text};
use crate::transcript::Conversation;
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use serde::Serialize;

/// The four kinds of question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Category {
    /// Files touched and how.
    Artifact,
    /// Specific facts.
    Recall,
    /// What the task is and what comes next.
    Continuation,
    /// What was decided.
    Decision,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 4] = [
        Category::Artifact,
        Category::Recall,
        Category::Continuation,
        Category::Decision,
    ];

    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Category::Artifact => "artifact",
            Category::Recall => "recall",
            Category::Continuation => "continuation",
            Category::Decision => "decision",
        }
    }
}

/// What a probe asks about, within its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Subject {
    /// A file and its last action (artifact).
    File,
    /// A shell command (recall).
    Command,
    /// An error line (recall).
    Error,
    /// An identifier the user gave (recall).
    Identifier,
    /// A number the user gave (recall).
    Number,
    /// The original task (continuation).
    Task,
    /// The latest user request (continuation).
    LatestRequest,
    /// The in-flight call or the next step (continuation).
    NextStep,
    /// A choice made or rejected (decision).
    Decision,
    /// The line an edit wrote before a later edit changed the same place (artifact).
    EditText,
    /// A file created and later deleted, known as deleted (artifact).
    Deleted,
    /// The last failing command and its first error line (recall).
    LastFailure,
    /// A prompt the client injected, Claude Code `isMeta` (continuation).
    MetaPrompt,
    /// The user's answer to the agent's question, `AskUserQuestion` (decision).
    Answer,
}

impl Subject {
    /// Every subject, in report order.
    pub const ALL: [Subject; 14] = [
        Subject::File,
        Subject::Command,
        Subject::Error,
        Subject::Identifier,
        Subject::Number,
        Subject::Task,
        Subject::LatestRequest,
        Subject::NextStep,
        Subject::Decision,
        Subject::EditText,
        Subject::Deleted,
        Subject::LastFailure,
        Subject::MetaPrompt,
        Subject::Answer,
    ];

    /// The name reports use (as in `--json`).
    pub fn name(self) -> &'static str {
        match self {
            Subject::File => "file",
            Subject::Command => "command",
            Subject::Error => "error",
            Subject::Identifier => "identifier",
            Subject::Number => "number",
            Subject::Task => "task",
            Subject::LatestRequest => "latestRequest",
            Subject::NextStep => "nextStep",
            Subject::Decision => "decision",
            Subject::EditText => "editText",
            Subject::Deleted => "deleted",
            Subject::LastFailure => "lastFailure",
            Subject::MetaPrompt => "metaPrompt",
            Subject::Answer => "answer",
        }
    }

    /// The category it belongs to.
    pub fn category(self) -> Category {
        match self {
            Subject::File | Subject::EditText | Subject::Deleted => Category::Artifact,
            Subject::Command
            | Subject::Error
            | Subject::Identifier
            | Subject::Number
            | Subject::LastFailure => Category::Recall,
            Subject::Task | Subject::LatestRequest | Subject::NextStep | Subject::MetaPrompt => {
                Category::Continuation
            }
            Subject::Decision | Subject::Answer => Category::Decision,
        }
    }

    /// How the answer is looked for.
    fn matching(self) -> Matching {
        match self {
            Subject::File
            | Subject::Command
            | Subject::Error
            | Subject::EditText
            | Subject::Deleted
            | Subject::LastFailure => Matching::Exact,
            Subject::Identifier | Subject::Number => Matching::Word,
            Subject::Task
            | Subject::LatestRequest
            | Subject::NextStep
            | Subject::Decision
            | Subject::Answer => Matching::Prose,
            Subject::MetaPrompt => Matching::Untagged,
        }
    }
}

/// How a probe's answer is found in the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Matching {
    /// Verbatim (paths, commands, error lines: as `retention` looks for them).
    Exact,
    /// Verbatim and not part of a longer word (`42` is not found in `1423`).
    Word,
    /// With whitespace collapsed on both sides (prose may be re-wrapped).
    Prose,
    /// In the text as sent, before cleaning, its wrapper tags left out and whitespace
    /// collapsed: what the client injects sits in `<system-reminder>` blocks, which
    /// cleaning drops.
    Untagged,
}

/// One question about the original conversation, with the answer that must stay findable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    /// What it asks about.
    pub subject: Subject,
    /// The 1-based line of the input it comes from.
    pub line: usize,
    /// The question, as a judge model is asked it.
    pub question: String,
    /// The text that answers it, as it must be found.
    pub answer: String,
    /// For a file: its last action (`modified`, `read`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<&'static str>,
    /// A second text that must be found too, verbatim (the command of a failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub also: Option<String>,
}

impl Probe {
    /// Its category.
    pub fn category(&self) -> Category {
        self.subject.category()
    }
}

/// Which of `probes` are answered by what the model is sent of `after`, in order. A file
/// probe needs its path findable and, when a call acted on the file, that last action: shown by
/// a kept call or by a summary's artifact index (a file kept but how it was last touched lost
/// is not an answer).
pub fn check(probes: &[Probe], after: &Conversation) -> Vec<bool> {
    check_in(probes, after, &findable_text(after), true)
}

/// What the model is sent of `after` before cleaning, its artifact indexes left out and its
/// wrapper tags dropped, whitespace collapsed ([`Matching::Untagged`]).
fn untagged_text(after: &Conversation) -> String {
    let raw = context_text(after);
    trail::untagged(&crate::summarizer::artifacts::without_indexes(&raw))
}

/// How each of `probes` survived in what the model is sent of `after`, in order: verbatim
/// (outside any artifact index, a file's last action shown by a kept call), only in an
/// artifact index ([`check`] passes it, the verbatim check does not), or lost.
pub fn check_kept(probes: &[Probe], after: &Conversation) -> Vec<Kept> {
    let verbatim = check_in(probes, after, &verbatim_text(after), false);
    let anywhere = check(probes, after);
    verbatim
        .into_iter()
        .zip(anywhere)
        .map(|(verbatim, anywhere)| match (verbatim, anywhere) {
            (true, _) => Kept::Verbatim,
            (false, true) => Kept::Index,
            (false, false) => Kept::Lost,
        })
        .collect()
}

/// How a probe's answer survived compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kept {
    /// Sent verbatim: in a kept message, or written into a summary's text.
    Verbatim,
    /// Only in a summary's artifact index: the file's name and last action, the command's
    /// first line, not what was done.
    Index,
    /// Not sent at all.
    Lost,
}

/// [`check`] against `text` (what the model is sent of `after`, with or without the artifact
/// indexes); with `indexes`, a file's last action may come from an index.
fn check_in(probes: &[Probe], after: &Conversation, text: &str, indexes: bool) -> Vec<bool> {
    let untagged = if probes
        .iter()
        .any(|p| p.subject.matching() == Matching::Untagged)
    {
        untagged_text(after)
    } else {
        String::new()
    };
    let mut found = check_text(probes, text, &untagged);
    let items: Vec<&crate::transcript::Item> =
        after.items.iter().filter(|i| i.in_context).collect();
    let actions = probes::last_actions(&items, indexes);
    for (probe, found) in probes.iter().zip(&mut found) {
        if *found && probe.subject == Subject::File && ACTED.contains(&probe.action.unwrap_or("")) {
            *found = actions.get(&probe.answer).map(|e| e.verb()) == probe.action;
        }
        if *found && probe.subject == Subject::Deleted {
            *found = trail::known_deleted(&items, &probe.answer, indexes);
        }
        if let Some(also) = probe.also.as_deref().filter(|_| *found) {
            *found = text.contains(also);
        }
    }
    found
}

/// The actions a file probe must find beside its path; a file only named has none to find.
const ACTED: [&str; 4] = ["created", "modified", "deleted", "read"];

/// Which of `probes` have their answer findable in `text`.
fn check_text(probes: &[Probe], text: &str, untagged: &str) -> Vec<bool> {
    let flat = collapse_whitespace(text);
    let mut found = vec![false; probes.len()];
    for (matching, haystack) in [
        (Matching::Exact, text),
        (Matching::Word, text),
        (Matching::Prose, flat.as_str()),
        (Matching::Untagged, untagged),
    ] {
        let chosen: Vec<usize> = (0..probes.len())
            .filter(|&i| probes[i].subject.matching() == matching)
            .collect();
        let needles: Vec<&str> = chosen.iter().map(|&i| probes[i].answer.as_str()).collect();
        for (n, hit) in find_all(&needles, haystack, matching == Matching::Word)
            .into_iter()
            .enumerate()
        {
            found[chosen[n]] = hit;
        }
    }
    found
}

/// Which of `needles` occur in `haystack` (with `word`, not inside a longer word).
fn find_all(needles: &[&str], haystack: &str, word: bool) -> Vec<bool> {
    let mut found = vec![false; needles.len()];
    if needles.is_empty() {
        return found;
    }
    let Ok(searcher) = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(needles)
    else {
        for (n, needle) in needles.iter().enumerate() {
            found[n] = haystack.contains(needle);
        }
        return found;
    };
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    for m in searcher.find_overlapping_iter(haystack) {
        let bounded = !word
            || !is_word(haystack[..m.start()].chars().next_back())
                && !is_word(haystack[m.end()..].chars().next());
        if bounded {
            found[m.pattern().as_usize()] = true;
        }
    }
    found
}

/// Kept and total probes of each category (`[kept, total]`, so reports add up and merge).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tallies {
    /// Artifact probes.
    pub artifact: [usize; 2],
    /// Recall probes.
    pub recall: [usize; 2],
    /// Continuation probes.
    pub continuation: [usize; 2],
    /// Decision probes.
    pub decision: [usize; 2],
}

impl Tallies {
    /// Counts `passed` of `probes`.
    pub fn of(probes: &[Probe], passed: &[bool]) -> Tallies {
        let mut tallies = Tallies::default();
        for (probe, &ok) in probes.iter().zip(passed) {
            let slot = tallies.slot(probe.category());
            slot[0] += usize::from(ok);
            slot[1] += 1;
        }
        tallies
    }

    /// The `[kept, total]` of a category.
    pub fn get(&self, category: Category) -> [usize; 2] {
        match category {
            Category::Artifact => self.artifact,
            Category::Recall => self.recall,
            Category::Continuation => self.continuation,
            Category::Decision => self.decision,
        }
    }

    fn slot(&mut self, category: Category) -> &mut [usize; 2] {
        match category {
            Category::Artifact => &mut self.artifact,
            Category::Recall => &mut self.recall,
            Category::Continuation => &mut self.continuation,
            Category::Decision => &mut self.decision,
        }
    }
}

impl std::ops::AddAssign for Tallies {
    fn add_assign(&mut self, other: Tallies) {
        for category in Category::ALL {
            let [kept, total] = other.get(category);
            let slot = self.slot(category);
            slot[0] += kept;
            slot[1] += total;
        }
    }
}

#[cfg(test)]
mod tests;

/// Probes of each subject by how they survived: `[verbatim, index only, total]` (lost is
/// the rest), so reports add up and merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BySubject([[usize; 3]; Subject::ALL.len()]);

impl BySubject {
    /// Counts how each of `probes` was `kept`.
    pub fn of(probes: &[Probe], kept: &[Kept]) -> BySubject {
        let mut counts = BySubject::default();
        for (probe, kept) in probes.iter().zip(kept) {
            let slot = &mut counts.0[Self::at(probe.subject)];
            slot[0] += usize::from(*kept == Kept::Verbatim);
            slot[1] += usize::from(*kept == Kept::Index);
            slot[2] += 1;
        }
        counts
    }

    /// `[verbatim, index only, total]` of `subject`.
    pub fn get(&self, subject: Subject) -> [usize; 3] {
        self.0[Self::at(subject)]
    }

    fn at(subject: Subject) -> usize {
        Subject::ALL.iter().position(|&s| s == subject).unwrap_or(0)
    }
}

impl std::ops::AddAssign for BySubject {
    fn add_assign(&mut self, other: BySubject) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }
}

impl Serialize for BySubject {
    /// `{"file": {"verbatim": 3, "index": 1, "lost": 0}, ...}`, subjects with no probe left out.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        #[derive(Serialize)]
        struct Split {
            verbatim: usize,
            index: usize,
            lost: usize,
        }
        let asked = Subject::ALL.iter().filter(|&&k| self.get(k)[2] > 0);
        let mut map = s.serialize_map(Some(asked.clone().count()))?;
        for &subject in asked {
            let [verbatim, index, total] = self.get(subject);
            let lost = total - verbatim - index;
            map.serialize_entry(
                subject.name(),
                &Split {
                    verbatim,
                    index,
                    lost,
                },
            )?;
        }
        map.end()
    }
}
