//! What a unit of conversation says about itself: the signals `importance` scores and
//! `key-events` keys on.
//!
//! Importance score of a unit = the highest base score of its messages + its features:
//!
//! | base | score | feature | adds |
//! |---|---:|---|---:|
//! | user message | 3.0 | error (flagged result, or an error line) | +2.0 |
//! | earlier summary | 5.0 | task completion said by the assistant | +2.0 |
//! | assistant text | 2.0 | state change (file written, mutating command or API call) | +1.5 |
//! | tool call round | 1.0 | decision or finding stated | +1.0 |
//! | thinking, tool output | 0.5 | names a file path | +0.5 |
//! |  |  | bulky (over 2,000 tokens) | −1.0 |
//!
//! With the default threshold 3.0, user messages, errors, decisions and completions stay;
//! routine tool rounds and chatter are summarized.

use crate::facts::{
    Cues, Effect, error_lines, file_effect, paths_in_text, tool_calls, tool_output,
};
use crate::plan::{Plan, Subject, Unit};
use crate::transcript::{Item, Kind, OutItem};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

/// What a unit shows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Signals {
    /// The highest base score of its messages.
    pub base: f64,
    /// It holds a user message.
    pub user: bool,
    /// It holds an error.
    pub error: bool,
    /// It changes state (files, repository, packages, a service's records).
    pub state_change: bool,
    /// The assistant says a task is done.
    pub completion: bool,
    /// The assistant states a decision or finding.
    pub decision: bool,
    /// It names a file path.
    pub path: bool,
    /// Its tokens.
    pub tokens: usize,
}

impl Signals {
    /// Reads the signals of a unit's entries.
    pub fn of(unit: &Unit, entries: &[std::borrow::Cow<Item>]) -> Signals {
        let mut s = Signals {
            tokens: unit.tokens,
            ..Signals::default()
        };
        for item in entries {
            s.base = s.base.max(base_score(item.kind));
            match item.kind {
                Kind::User => {
                    s.user = true;
                    s.error |= !error_lines(&item.text(), false).is_empty();
                    s.path |= paths_in_text(&item.text()).next().is_some();
                }
                Kind::ToolResult => {
                    s.error |= !error_lines(&tool_output(item), item.is_error).is_empty();
                }
                Kind::AssistantText | Kind::ToolCall => {
                    let text = item.prose();
                    s.completion |= says_done(&text);
                    s.decision |= crate::facts::states_decision(&text);
                    s.path |= paths_in_text(&text).next().is_some();
                    for call in tool_calls(item) {
                        s.state_change |= changes_state(&call);
                        s.path |= !call.paths().is_empty();
                    }
                }
                _ => {}
            }
        }
        s
    }

    /// The importance score (see the module table).
    pub fn score(&self) -> f64 {
        let mut score = self.base;
        for (on, weight) in [
            (self.error, 2.0),
            (self.completion, 2.0),
            (self.state_change, 1.5),
            (self.decision, 1.0),
            (self.path, 0.5),
            (self.tokens > 2_000, -1.0),
        ] {
            if on {
                score += weight;
            }
        }
        score
    }

    /// Whether the unit is a key event: a user message, an error, a state change or a
    /// completed task.
    pub fn is_key(&self) -> bool {
        self.user || self.error || self.state_change || self.completion
    }
}

/// The signals of units kept as stored, by the original items they hold: `importance` and
/// `key-events` read every unit of the same conversation, and each landing probe reads them
/// again. Made with a conversation's strategy context and dropped with it.
#[derive(Default)]
pub struct SignalsMemo {
    kept: RefCell<HashMap<Vec<usize>, Signals>>,
}

impl SignalsMemo {
    /// The signals of `unit` of `plan` ([`Signals::of`] its entries).
    pub fn of(&self, subject: &Subject, plan: &Plan, unit: &Unit) -> Signals {
        let elements = &plan.items[unit.elements.clone()];
        let read = || Signals::of(unit, &plan.entries(subject, unit.elements.clone()));
        // Only a unit of items kept whole is known by its items: its entries are those
        // items, and its tokens theirs.
        let Some(key) = elements
            .iter()
            .map(|o| match o {
                OutItem::Keep(i) => Some(*i),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>()
        else {
            return read();
        };
        if let Some(signals) = self.kept.borrow().get(&key) {
            return *signals;
        }
        let signals = read();
        self.kept.borrow_mut().insert(key, signals);
        signals
    }
}

fn base_score(kind: Kind) -> f64 {
    match kind {
        Kind::Summary => 5.0,
        Kind::User => 3.0,
        Kind::AssistantText => 2.0,
        Kind::ToolCall => 1.0,
        Kind::Thinking | Kind::ToolResult => 0.5,
        Kind::System | Kind::NonContext => 0.0,
    }
}

/// Phrases by which the assistant says a task is done.
const DONE_CUES: [&str; 11] = [
    "all tests pass",
    "tests pass",
    "task is complete",
    "task complete",
    "is now fixed",
    "has been fixed",
    "successfully",
    "completed",
    "is done",
    "i've finished",
    "i have finished",
];

static DONE_FINDER: LazyLock<Cues> = LazyLock::new(|| Cues::new(&DONE_CUES));

fn says_done(text: &str) -> bool {
    DONE_FINDER.in_lowercase_of(text)
}

/// Shell words that change files, the repository or installed packages.
const MUTATING_COMMANDS: [&str; 22] = [
    " > ",
    ">>",
    "rm ",
    "mv ",
    "cp ",
    "mkdir",
    "touch ",
    "sed -i",
    "tee ",
    "chmod ",
    "git add",
    "git commit",
    "git checkout",
    "git apply",
    "git merge",
    "git rebase",
    "git reset",
    "git push",
    "pip install",
    "npm install",
    "cargo add",
    "patch ",
];

/// API verbs that change a service's records (`update_reservation`, `cancel_order`, ...).
const MUTATING_VERBS: [&str; 18] = [
    "update", "cancel", "book", "create", "delete", "remove", "add", "set", "send", "submit",
    "write", "edit", "insert", "modify", "transfer", "apply", "commit", "exchange",
];

/// Whether a tool call changes state: writes a file, runs a mutating command, or calls an
/// API whose name starts with a mutating verb.
pub fn changes_state(call: &crate::facts::CallArgs) -> bool {
    if matches!(
        file_effect(call),
        Effect::Create | Effect::Modify | Effect::Delete
    ) {
        return true;
    }
    if let Some(command) = call.command() {
        let padded = format!(" {command} ");
        return MUTATING_COMMANDS.iter().any(|w| padded.contains(w));
    }
    // The name compared in place, any case: a lowercased copy and a `verb_` string per verb
    // were built for every call of every item.
    let name = call.name.as_bytes();
    MUTATING_VERBS.iter().any(|verb| {
        let verb = verb.as_bytes();
        name.get(..verb.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(verb))
            && matches!(name.get(verb.len()), None | Some(b'_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::CallArgs;

    #[test]
    fn an_api_changes_state_where_its_name_starts_with_a_mutating_verb_in_any_case() {
        // What the name lowercased answers: equal to a verb, or starting with `verb_`.
        let lowered = |name: &str| {
            let name = name.to_ascii_lowercase();
            MUTATING_VERBS
                .iter()
                .any(|verb| name == *verb || name.starts_with(&format!("{verb}_")))
        };
        let names = [
            "update_reservation_flights",
            "Book_Reservation",
            "CANCEL",
            "cancellation_policy",
            "get_user_details",
            "add",
            "address_lookup",
            "set_",
            "sendmail",
            "",
            "é_update",
            "transfer_to_human_agents",
        ];
        let mut changing = 0;
        for name in names {
            let call = CallArgs {
                name: name.to_string(),
                args: serde_json::json!({}),
            };
            assert_eq!(changes_state(&call), lowered(name), "{name}");
            changing += usize::from(lowered(name));
        }
        assert_eq!(changing, 6);
    }
}
