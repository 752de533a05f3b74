//! `selective` (seed 002): per-kind rules applied in priority order — DROP removes every
//! unit of a kind, TRUNCATE keeps the most recent N and removes older ones, NONE never
//! touches the kind — stopping as soon as the conversation is under target. Removal is
//! without a summary, as in the seed. Units are whole tool-call groups, so a tool result is
//! removed together with its call.
//!
//! Kinds: `tool_result` (tool-call rounds), `skill_prompt` (harness-injected messages that
//! carry a skill or command body, Claude Code `isMeta` records mentioning a skill),
//! `skill_metadata` (other harness-injected records), `assistant` (assistant text), `user`,
//! `thinking`, `system`, `summary`.

use super::{Context, Strategy, StrategyName, compactable};
use crate::plan::{Plan, Unit, fit_drop_run, runs};
use crate::transcript::{Item, Kind};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The kinds rules apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// Tool-call rounds (a call and its results).
    ToolResult,
    /// Harness-injected skill or command bodies.
    SkillPrompt,
    /// Other harness-injected records.
    SkillMetadata,
    /// Assistant text.
    Assistant,
    /// User messages.
    User,
    /// Reasoning-only messages.
    Thinking,
    /// System messages.
    System,
    /// Summaries of earlier compactions.
    Summary,
}

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleAction {
    /// Remove every unit of the kind.
    Drop,
    /// Keep the most recent `keep_recent`, remove older ones.
    Truncate {
        /// How many of the most recent to keep.
        keep_recent: usize,
    },
    /// Never touch the kind.
    None,
}

/// One row of the rule table, written `{kind, strategy: drop | truncate | none,
/// keep_recent}` as in seed 002.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RuleRow", into = "RuleRow")]
pub struct Rule {
    /// The kind it applies to.
    pub kind: RuleKind,
    /// What it does.
    pub action: RuleAction,
}

/// A rule as written in a settings file.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleRow {
    kind: RuleKind,
    strategy: RuleStrategy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keep_recent: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RuleStrategy {
    Drop,
    Truncate,
    None,
}

impl TryFrom<RuleRow> for Rule {
    type Error = String;
    fn try_from(row: RuleRow) -> Result<Rule, String> {
        let action = match (row.strategy, row.keep_recent) {
            (RuleStrategy::Truncate, Some(keep_recent)) => RuleAction::Truncate { keep_recent },
            (RuleStrategy::Truncate, None) => {
                return Err("a truncate rule needs keep_recent (how many to keep)".into());
            }
            (_, Some(_)) => return Err("keep_recent only goes with strategy: truncate".into()),
            (RuleStrategy::Drop, None) => RuleAction::Drop,
            (RuleStrategy::None, None) => RuleAction::None,
        };
        Ok(Rule {
            kind: row.kind,
            action,
        })
    }
}

impl From<Rule> for RuleRow {
    fn from(rule: Rule) -> RuleRow {
        let (strategy, keep_recent) = match rule.action {
            RuleAction::Drop => (RuleStrategy::Drop, None),
            RuleAction::Truncate { keep_recent } => (RuleStrategy::Truncate, Some(keep_recent)),
            RuleAction::None => (RuleStrategy::None, None),
        };
        RuleRow {
            kind: rule.kind,
            strategy,
            keep_recent,
        }
    }
}

/// Seed 002's table, in its priority order.
pub fn default_rules() -> Vec<Rule> {
    use RuleAction::*;
    use RuleKind::*;
    [
        (ToolResult, Truncate { keep_recent: 3 }),
        (SkillPrompt, Drop),
        (SkillMetadata, Drop),
        (Assistant, Truncate { keep_recent: 5 }),
        (User, Truncate { keep_recent: 5 }),
        (System, None),
        (Summary, None),
    ]
    .into_iter()
    .map(|(kind, action)| Rule { kind, action })
    .collect()
}

/// The selective rule engine.
pub struct Selective;

impl Strategy for Selective {
    fn name(&self) -> StrategyName {
        StrategyName::Selective
    }

    fn apply(&self, cx: &Context, mut plan: Plan) -> Result<Plan> {
        for rule in &cx.settings.selective_rules {
            if cx.tokens(&plan) <= cx.target {
                break;
            }
            let keep = match rule.action {
                RuleAction::None => continue,
                RuleAction::Drop => 0,
                RuleAction::Truncate { keep_recent } => keep_recent,
            };
            plan = remove_older(cx, plan, rule.kind, keep);
        }
        Ok(plan)
    }
}

/// `plan` without the units of `kind` but the `keep` most recent ones.
fn remove_older(cx: &Context, mut plan: Plan, kind: RuleKind, keep: usize) -> Plan {
    let units = cx.units(&plan);
    let of_kind: Vec<bool> = units
        .iter()
        .map(|u| {
            let entries = plan.entries(cx.subject, u.elements.clone());
            rule_kind(u, &entries) == Some(kind)
        })
        .collect();
    let spare = super::importance::recent_indices(&of_kind, keep);
    let doomed = runs(&units, |i, u| {
        of_kind[i] && compactable(u) && !spare.contains(&i)
    });
    for run in doomed.into_iter().rev() {
        if let Some(run) = fit_drop_run(cx.subject, &units, run) {
            plan.drop_units(&units, run);
        }
    }
    plan
}

/// The rule kind of a unit, from the messages it holds.
fn rule_kind(unit: &Unit, entries: &[Cow<Item>]) -> Option<RuleKind> {
    if unit.summary {
        return Some(RuleKind::Summary);
    }
    if entries
        .iter()
        .any(|e| e.kind == Kind::ToolResult || e.kind == Kind::ToolCall)
    {
        return Some(RuleKind::ToolResult);
    }
    let first = entries
        .iter()
        .find(|e| e.in_context && e.kind != Kind::NonContext)?;
    Some(match first.kind {
        Kind::User if first.meta && first.text().to_lowercase().contains("skill") => {
            RuleKind::SkillPrompt
        }
        Kind::User if first.meta => RuleKind::SkillMetadata,
        Kind::User => RuleKind::User,
        Kind::AssistantText => RuleKind::Assistant,
        Kind::Thinking => RuleKind::Thinking,
        Kind::System => RuleKind::System,
        _ => return None,
    })
}
