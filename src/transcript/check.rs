//! Validation of a transcript: the rules every format shares (tool call/result pairing) plus
//! each adapter's own (role order, chain links).

use super::{Conversation, Format, Kind, ParseError, Transcript};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::fmt;

/// One problem found in a transcript, at a line (0 = the whole file).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Finding {
    /// 1-based line, 0 when the problem concerns the whole file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// Whether compaction cannot work around it: an edited output could not be written
    /// faithfully, so the file is not compacted even when findings are allowed.
    #[serde(skip)]
    pub blocks_edits: bool,
    /// What makes it the same problem wherever the lines fall, for a message that names
    /// another line (`None`: the message does): how a compacted output's findings are matched
    /// with the input's.
    #[serde(skip)]
    pub identity: Option<String>,
    /// For a record that repeats an earlier one: the line it repeats and how the two are the
    /// same (`same uuid`), so that `check` prints a replayed block as one line.
    #[serde(skip)]
    pub repeats: Option<(usize, &'static str)>,
}

impl Finding {
    /// A finding at `line`.
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        Finding {
            line,
            message: message.into(),
            blocks_edits: false,
            identity: None,
            repeats: None,
        }
    }

    /// This finding as a repeat of line `first` (see [`Finding::repeats`]).
    pub fn repeating(self, first: usize, how: &'static str) -> Self {
        Finding {
            repeats: Some((first, how)),
            ..self
        }
    }

    /// This finding with `identity` (see [`Finding::identity`]).
    pub fn with_identity(self, identity: impl Into<String>) -> Self {
        Finding {
            identity: Some(identity.into()),
            ..self
        }
    }

    /// What the finding is about, wherever the lines fall.
    pub fn problem(&self) -> &str {
        self.identity.as_deref().unwrap_or(&self.message)
    }

    /// A finding at `line` that no edit of the file can work around (see
    /// [`Finding::blocks_edits`]).
    pub fn blocking(line: usize, message: impl Into<String>) -> Self {
        Finding {
            blocks_edits: true,
            ..Finding::new(line, message)
        }
    }
}

impl From<ParseError> for Finding {
    fn from(e: ParseError) -> Self {
        Finding::new(e.line, e.message)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.line, self.message)
        }
    }
}

/// Every finding for a transcript, sorted by line.
pub fn check(t: &Transcript) -> Vec<Finding> {
    let mut findings: Vec<Finding> = t
        .conversations
        .iter()
        .flat_map(|conv| conversation_findings(t.format, &t.source, conv))
        .collect();
    sort_findings(&mut findings);
    findings
}

/// The findings of one conversation of a `format` transcript whose text is `source`, in no
/// particular order: [`check`] is these over every conversation, then [`sort_findings`].
pub fn conversation_findings(format: Format, source: &str, conv: &Conversation) -> Vec<Finding> {
    let mut findings = check_pairing(conv);
    findings.extend(format.adapter().check(source, conv));
    findings.extend(super::replay::findings(format, source, conv));
    findings
}

/// Sorts findings by line and drops repeats, as [`check`] reports them.
pub fn sort_findings(findings: &mut Vec<Finding>) {
    findings.sort();
    findings.dedup();
}

/// A tool call/result pairing fault, by item: what [`check`] reports and `ctxc repair` fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairingFault {
    /// The call `id` (tool `name`) made by item `item` is never answered, yet the conversation
    /// goes on. `caller` is the first item of the logical message or run of calls it is part of.
    Unanswered {
        /// The calling item.
        item: usize,
        /// The first item of its message (or run of consecutive calls).
        caller: usize,
        /// The call id.
        id: String,
        /// The tool.
        name: String,
    },
    /// Item `item` answers the call `id`, which it cannot.
    StrayResult {
        /// The answering item.
        item: usize,
        /// The call id.
        id: String,
        /// Why the answer does not count.
        why: StrayWhy,
    },
}

/// Why a tool result answers no open call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrayWhy {
    /// The call was answered before: this is a second answer.
    AnsweredBefore,
    /// The call was made but the conversation had moved on.
    NotOpen,
    /// No earlier item makes the call.
    NoCall,
}

impl StrayWhy {
    /// What is wrong with the result, as `check` words it.
    pub fn describe(self) -> &'static str {
        match self {
            StrayWhy::AnsweredBefore => "answers a call that already has a result",
            StrayWhy::NotOpen => "answers a call that is not open",
            StrayWhy::NoCall => "has no earlier tool call",
        }
    }
}

/// Every tool result follows its call; every call is answered unless the conversation ends
/// while it is still running (nothing but calls and results after it).
fn check_pairing(conv: &Conversation) -> Vec<Finding> {
    pairing_faults(conv)
        .into_iter()
        .map(|fault| match fault {
            PairingFault::Unanswered { item, id, name, .. } => Finding::new(
                conv.items[item].line,
                format!(
                    "tool call '{id}' ({name}) is never answered, yet the conversation goes on"
                ),
            ),
            PairingFault::StrayResult { item, id, why } => Finding::new(
                conv.items[item].line,
                format!("tool result for call '{id}' {}", why.describe()),
            ),
        })
        .collect()
}

/// The pairing faults of a conversation, in the order they are found.
pub fn pairing_faults(conv: &Conversation) -> Vec<PairingFault> {
    let mut faults = Vec::new();
    // Open calls: id → (index of the item making it, tool name, index of the calling item).
    let mut open: HashMap<&str, (usize, &str, usize)> = HashMap::new();
    let mut seen_calls: HashSet<&str> = HashSet::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let unanswered = |id: &str, item: usize, name: &str, caller: usize| PairingFault::Unanswered {
        item,
        caller,
        id: id.to_string(),
        name: name.to_string(),
    };
    // Records of one logical message (Claude Code splits parallel calls over several) count
    // as one caller; so do consecutive call records without a message id (Codex writes each
    // parallel `function_call` as its own item, and answers them in any order).
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    let mut call_run: Option<usize> = None;
    for (at, item) in conv.items.iter().enumerate() {
        if !item.in_context || item.kind == Kind::NonContext {
            // Records the model never sees neither start nor end a run of calls.
        } else if item.calls.is_empty() || !item.results.is_empty() {
            call_run = None;
        } else if item.message_id.is_none() {
            call_run.get_or_insert(at);
        }
        let caller_index = match &item.message_id {
            Some(id) => *first_of.entry(id.as_str()).or_insert(at),
            None if !item.calls.is_empty() => call_run.unwrap_or(at),
            None => at,
        };
        for id in &item.results {
            let Some((_, _, caller)) = open.remove(id.as_str()) else {
                let why = if answered.contains(id.as_str()) {
                    StrayWhy::AnsweredBefore
                } else if seen_calls.contains(id.as_str()) {
                    StrayWhy::NotOpen
                } else {
                    StrayWhy::NoCall
                };
                faults.push(PairingFault::StrayResult {
                    item: at,
                    id: id.clone(),
                    why,
                });
                answered.insert(id.as_str());
                continue;
            };
            answered.insert(id.as_str());
            // A later call got its result: calls made before it are not still running.
            let mut abandoned: Vec<&str> = open
                .iter()
                .filter(|(_, (_, _, c))| *c < caller)
                .map(|(id, _)| *id)
                .collect();
            abandoned.sort_by_key(|id| open[id].0);
            for id in abandoned {
                let (made_by, name, caller) = open.remove(id).expect("listed above");
                faults.push(unanswered(id, made_by, name, caller));
            }
        }
        if moves_on(item.kind) && item.in_context {
            let mut left: Vec<(&str, (usize, &str, usize))> = open.drain().collect();
            left.sort_by_key(|(_, (made_by, _, _))| *made_by);
            faults.extend(
                left.into_iter()
                    .map(|(id, (made_by, name, caller))| unanswered(id, made_by, name, caller)),
            );
        }
        for call in &item.calls {
            seen_calls.insert(call.id.as_str());
            open.insert(call.id.as_str(), (at, call.name.as_str(), caller_index));
        }
    }
    faults
}

/// Items after which an unanswered call can no longer be "still running".
fn moves_on(kind: Kind) -> bool {
    matches!(kind, Kind::User | Kind::AssistantText | Kind::Summary)
}
