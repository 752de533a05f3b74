//! Compaction strategies, one file each behind [`Strategy`]. A strategy is a pure function of
//! a plan: it reads the plan's units (whole tool-call groups), never touches preserved or
//! frozen items, and returns a plan that is never larger in tokens than the one it was given.
//! `adaptive` (the default) chooses and chains the others.

mod context;
mod old_thinking;
mod signals;

pub use adaptive::{Rung, TaskType, chain as adaptive_chain, detect_task_type};
pub use context::{CoarseStep, Context, MIN_FITTED_SUMMARY, SummaryStats, compactable};
pub use drop_stored::drop_stored;
pub use old_thinking::dropped as thinking_dropped;
pub use selective::{Rule, RuleAction, default_rules};
pub use signals::Signals;

use crate::plan::Plan;
use anyhow::Result;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Settings every strategy reads (DESIGN "Strategies" defaults; config keys in brackets).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StrategySettings {
    /// Sliding window: user and tool messages kept [`sliding_window_size` / 2].
    pub window_user_messages: usize,
    /// Sliding window: assistant messages kept [the rest of `sliding_window_size`].
    pub window_assistant_messages: usize,
    /// Importance: messages scoring at least this are kept [`importance_score_threshold`].
    pub importance_threshold: f64,
    /// Importance: the most recent low-scoring units kept anyway.
    pub importance_keep_recent: usize,
    /// Key events: the most recent non-key units kept anyway.
    pub key_events_keep_recent: usize,
    /// Incremental: user/tool turns per chunk [`incremental_summary_chunk_size`].
    pub incremental_chunk_turns: usize,
    /// Observation masking: the most recent tool outputs left whole.
    pub masking_keep_recent: usize,
    /// Truncate: the most recent messages kept [`keep_recent_count`].
    pub truncate_keep_recent: usize,
    /// The summary budget in tokens [`summary_max_tokens`].
    pub summary_max_tokens: usize,
    /// Selective: the rule table, in priority order.
    pub selective_rules: Vec<Rule>,
    /// Adaptive: skip `strip-payloads` [`--keep-payloads`].
    pub keep_payloads: bool,
    /// End every conversation with `drop-stored`, whether or not a trigger fired
    /// [`--drop-stored`].
    pub drop_stored: bool,
    /// Keep the plan after each step for the archive ([`crate::engine::Compaction::plan_after`]);
    /// without an archive only the final plan is needed, and each kept plan holds a copy of
    /// its summaries.
    #[serde(skip)]
    pub step_plans: bool,
}

impl Default for StrategySettings {
    fn default() -> Self {
        StrategySettings {
            window_user_messages: 4,
            window_assistant_messages: 5,
            importance_threshold: 3.0,
            importance_keep_recent: 5,
            key_events_keep_recent: 5,
            incremental_chunk_turns: 20,
            masking_keep_recent: 3,
            truncate_keep_recent: 10,
            summary_max_tokens: 1000,
            selective_rules: default_rules(),
            keep_payloads: false,
            drop_stored: false,
            step_plans: true,
        }
    }
}

/// One compaction strategy.
pub trait Strategy: Sync {
    /// Its name on the command line and in reports.
    fn name(&self) -> StrategyName;

    /// Applies the strategy once; returns `plan` unchanged when it has nothing to do.
    fn apply(&self, cx: &Context, plan: Plan) -> Result<Plan>;
}

/// Declares the strategies: for each, its enum variant, its name on the command line and in
/// reports (serde's too), its module and its type. The order is [`StrategyName::ALL`]'s:
/// help texts, completions and the corpus tests list them so. Adding a strategy is one new
/// file under `strategy/` and one line here.
macro_rules! strategies {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal => $module:ident::$type:ident,)*) => {
        $(mod $module;)*

        /// The strategies, by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
        pub enum StrategyName {
            $($(#[doc = $doc])* #[serde(rename = $name)] $variant,)*
        }

        impl StrategyName {
            /// Every strategy.
            pub const ALL: [StrategyName; [$($name),*].len()] = [$(StrategyName::$variant),*];

            /// The name on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(StrategyName::$variant => $name,)*
                }
            }

            /// The strategy itself.
            pub fn strategy(self) -> &'static dyn Strategy {
                match self {
                    $(StrategyName::$variant => &$module::$type,)*
                }
            }
        }
    };
}

strategies! {
    /// Chooses and chains the others.
    Adaptive = "adaptive" => adaptive::Adaptive,
    /// Drops records that never reach the model; stubs embedded media.
    StripPayloads = "strip-payloads" => strip_payloads::StripPayloads,
    /// Replaces tool outputs a later copy supersedes with a pointer to it.
    Dedup = "dedup" => dedup::Dedup,
    /// Cuts old tool outputs to their head, tail and error lines.
    TrimOutputs = "trim-outputs" => trim_outputs::TrimOutputs,
    /// Cuts the bulk inside old calls (file bodies, heredocs) to a marked head.
    TrimCalls = "trim-calls" => trim_calls::TrimCalls,
    /// Keeps the latest messages, summarizes the rest.
    SlidingWindow = "sliding-window" => sliding_window::SlidingWindow,
    /// Keeps high-scoring messages, summarizes the rest.
    Importance = "importance" => importance::Importance,
    /// Keeps key events, summarizes the rest.
    KeyEvents = "key-events" => key_events::KeyEvents,
    /// Summarizes history chunk by chunk, all but the last.
    Incremental = "incremental" => incremental::Incremental,
    /// Per-kind DROP / TRUNCATE / NONE rules.
    Selective = "selective" => selective::Selective,
    /// Replaces old tool outputs with placeholders.
    ObservationMasking = "observation-masking" => observation_masking::ObservationMasking,
    /// One summary for everything not preserved.
    FullSummary = "full-summary" => full_summary::FullSummary,
    /// Keeps the last messages, drops the rest without a summary.
    Truncate = "truncate" => truncate::Truncate,
    /// Drops what is stored but never sent; the model's context stays as it is.
    DropStored = "drop-stored" => drop_stored::DropStored,
}

impl fmt::Display for StrategyName {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StrategyName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        StrategyName::ALL
            .into_iter()
            .find(|n| n.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = StrategyName::ALL.iter().map(|n| n.name()).collect();
                format!(
                    "unknown strategy '{s}' (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests;
