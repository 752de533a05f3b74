//! `adaptive` (seed 000, "prefer light compression first"; the default): a ladder ordered by
//! what is lost per token saved, each rung taking only what the target still needs:
//! 1. free for the model: `strip-payloads` (when the file has any), `dedup`;
//! 2. near-free: `trim-outputs` (calls verbatim, outputs cut to head, tail and error lines),
//!    then `observation-masking` (old outputs cut to a one-line head and their error lines),
//!    then `trim-calls` (the bulk inside old calls — file bodies, new text, heredocs — cut to
//!    a marked head, the call itself verbatim): what the agent saw goes before what it did,
//!    and the bulk of what it did before any summary of it. Here masking and call trimming
//!    reach the most recent outputs and calls too (oldest first, only as far as the target
//!    needs), which the named strategies leave whole: a recent output cut to its head costs
//!    the model less than older calls summarized away;
//! 3. the detected task type's chain, with summaries;
//! 4. the remaining strategies in a fixed order, then `full-summary`, then `truncate`.
//!
//! The engine re-counts after every step and stops as soon as the target is met.
//!
//! Task types, from the tool calls of the live context (a text-based agent's fenced action
//! counts as a shell command):
//! - **conversation**: no tool calls, or fewer than one per ten messages;
//! - **code**: at least 20% of calls write files or run shell commands, and under half only
//!   read or search;
//! - **analysis**: at least half the calls read, search, fetch, list or get, and under 20%
//!   write or run commands;
//! - **mixed**: both at once (20%+ writing and 50%+ reading), or some of each below those
//!   shares;
//! - **unknown**: tool calls mostly of unrecognised kinds (below both shares, and not some of
//!   each).
//!
//! Chains: code → sliding-window, key-events, incremental; analysis, conversation and
//! unknown → sliding-window, importance, incremental; mixed → sliding-window, incremental,
//! importance. Fixed fallback order: sliding-window, importance, key-events, incremental,
//! selective.

use super::{Context, Strategy, StrategyName};
use crate::facts::{Effect, file_effect, holds_ignoring_case, tool_calls};
use crate::plan::{Plan, Subject};
use crate::transcript::Kind;
use anyhow::Result;
use serde::Serialize;

/// What kind of work a conversation records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskType {
    /// Writing code: file edits and shell commands.
    Code,
    /// Reading, searching, querying.
    Analysis,
    /// Talk with few or no tool calls.
    Conversation,
    /// Both code and analysis.
    Mixed,
    /// Tool calls of unrecognised kinds.
    Unknown,
}

impl TaskType {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            TaskType::Code => "code",
            TaskType::Analysis => "analysis",
            TaskType::Conversation => "conversation",
            TaskType::Mixed => "mixed",
            TaskType::Unknown => "unknown",
        }
    }

    /// The seed-000 chain for this type.
    pub fn chain(self) -> [StrategyName; 3] {
        use StrategyName::*;
        match self {
            TaskType::Code => [SlidingWindow, KeyEvents, Incremental],
            TaskType::Mixed => [SlidingWindow, Incremental, Importance],
            _ => [SlidingWindow, Importance, Incremental],
        }
    }
}

/// The fixed order tried after the type's chain.
pub const FALLBACK: [StrategyName; 5] = [
    StrategyName::SlidingWindow,
    StrategyName::Importance,
    StrategyName::KeyEvents,
    StrategyName::Incremental,
    StrategyName::Selective,
];

/// Tool names (lowercased substrings) of read-only tools.
const READ_WORDS: [&str; 12] = [
    "read", "search", "grep", "glob", "find", "list", "get", "fetch", "query", "view", "open",
    "look",
];

/// Detects the task type of a conversation (see the module doc for the rules).
pub fn detect_task_type(s: &Subject) -> TaskType {
    let live = s
        .conv
        .items
        .iter()
        .filter(|i| i.in_context && i.kind != Kind::NonContext);
    let mut messages = 0;
    let (mut calls, mut writes, mut reads) = (0usize, 0usize, 0usize);
    for item in live {
        messages += 1;
        // Calls with their arguments where the item has them; text-based actions by name.
        let described = tool_calls(item);
        for call in &item.calls {
            calls += 1;
            let Some(call) = described.iter().find(|c| c.name == call.name) else {
                // A text-based action is a command the agent runs.
                writes += 1;
                continue;
            };
            let effect = file_effect(call);
            if matches!(effect, Effect::Create | Effect::Modify | Effect::Delete) || call.is_shell()
            {
                writes += 1;
            } else if effect == Effect::Read || READ_WORDS
                .iter()
                .any(|w| holds_ignoring_case(&call.name, w)) {
                reads += 1;
            }
        }
    }
    if calls == 0 || calls * 10 < messages {
        return TaskType::Conversation;
    }
    let writing = writes * 5 >= calls;
    let reading = reads * 2 >= calls;
    match (writing, reading) {
        (true, true) => TaskType::Mixed,
        (true, false) => TaskType::Code,
        (false, true) => TaskType::Analysis,
        (false, false) if writes > 0 && reads > 0 => TaskType::Mixed,
        _ => TaskType::Unknown,
    }
}

/// One step of a chain: a strategy, and whether it may also cut the most recent outputs and
/// calls its rule leaves whole ([`StrategySettings::masking_keep_recent`]).
///
/// [`StrategySettings::masking_keep_recent`]: super::StrategySettings::masking_keep_recent
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rung {
    /// The strategy.
    pub strategy: StrategyName,
    /// Whether the most recent outputs and calls are in reach.
    pub recent_too: bool,
}

impl From<StrategyName> for Rung {
    fn from(strategy: StrategyName) -> Rung {
        Rung {
            strategy,
            recent_too: false,
        }
    }
}

/// The whole adaptive chain for a conversation: its steps in order, and the task type.
pub fn chain(s: &Subject, keep_payloads: bool) -> (TaskType, Vec<Rung>) {
    let task = detect_task_type(s);
    let mut steps = Vec::new();
    if !keep_payloads && super::strip_payloads::has_payloads(s) {
        steps.push(StrategyName::StripPayloads);
    }
    steps.push(StrategyName::Dedup);
    steps.push(StrategyName::TrimOutputs);
    steps.push(StrategyName::ObservationMasking);
    steps.push(StrategyName::TrimCalls);
    steps.extend(task.chain());
    steps.extend(FALLBACK.into_iter().filter(|f| !task.chain().contains(f)));
    steps.push(StrategyName::FullSummary);
    steps.push(StrategyName::Truncate);
    let rungs = steps
        .into_iter()
        .map(|strategy| Rung {
            strategy,
            recent_too: matches!(
                strategy,
                StrategyName::ObservationMasking | StrategyName::TrimCalls
            ),
        })
        .collect();
    (task, rungs)
}

/// The adaptive strategy, for use inside an explicit chain: runs the adaptive steps until
/// the plan is under target.
pub struct Adaptive;

impl Strategy for Adaptive {
    fn name(&self) -> StrategyName {
        StrategyName::Adaptive
    }

    fn apply(&self, cx: &Context, mut plan: Plan) -> Result<Plan> {
        let (_, steps) = chain(cx.subject, cx.settings.keep_payloads);
        for step in steps {
            if cx.tokens(&plan) <= cx.target {
                break;
            }
            let next = cx.apply_rung(step, plan.clone(), false)?;
            if cx.tokens(&next) <= cx.tokens(&plan) {
                plan = next;
            }
        }
        Ok(plan)
    }
}
