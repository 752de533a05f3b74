//! `dedup` (free for the model; peers: cozempic's stale reads): replace what the model also
//! has in a later, complete form with a short pointer to that copy —
//! - a file read superseded by a later whole read of the same file (the later one shows the
//!   file as it now is);
//! - a tool output identical to a later one;
//! - a harness message (`<system-reminder>`, meta records) identical to a later one.
//!
//! The later copy must reach the model verbatim, and the call of a replaced output stays, so
//! no path or command is lost. The engine reaches back only as far as the target needs.

use super::{Context, Strategy, StrategyName};
use crate::facts::{CallArgs, Effect, file_effect, holds_ignoring_case, tool_calls, tool_output};
use crate::plan::Plan;
use crate::transcript::{Item, Kind, OutItem};
use anyhow::Result;
use std::borrow::Cow;
use foldhash::{HashMap, HashMapExt, HashSet};

/// Outputs and messages shorter than this (characters) are left alone: a pointer would save
/// next to nothing.
const MIN_CHARS: usize = 200;
/// Argument keys that make a read partial.
const PARTIAL_KEYS: [&str; 6] = [
    "offset",
    "limit",
    "view_range",
    "start_line",
    "end_line",
    "line_range",
];

/// De-duplication.
pub struct Dedup;

impl Strategy for Dedup {
    fn name(&self) -> StrategyName {
        StrategyName::Dedup
    }

    fn apply(&self, cx: &Context, mut plan: Plan) -> Result<Plan> {
        let s = cx.subject;
        let calls = calls_by_id(&s.conv.items);
        let free: HashSet<usize> = cx.free_outputs(&plan).into_iter().collect();
        let free_messages = free_messages(cx, &plan);
        let mut later = Later::default();
        for at in (0..plan.items.len()).rev() {
            let (OutItem::Keep(i) | OutItem::Strip(i)) = plan.items[at] else {
                continue;
            };
            let item = &s.conv.items[i];
            if !item.in_context {
                continue;
            }
            let replacement = match item.kind {
                Kind::ToolResult if free.contains(&at) => later
                    .output_pointer(item, &calls)
                    .map(|text| OutItem::ReplaceResult(i, text)),
                Kind::User if free_messages.contains(&at) => later
                    .message_pointer(item)
                    .map(|text| OutItem::ReplaceText(i, text)),
                _ => None,
            };
            match replacement {
                Some(out) if s.out_tokens(&out) < s.out_tokens(&plan.items[at]) => {
                    plan.items[at] = out;
                }
                _ => later.add(item, &calls),
            }
        }
        Ok(plan)
    }
}

/// What later in the conversation reaches the model verbatim.
#[derive(Default)]
struct Later<'a> {
    /// Whole reads by path: the id of the call and the output's length.
    reads: HashMap<String, (String, usize)>,
    /// Outputs by text (borrowed from the items, not copied): the id of the call.
    outputs: HashMap<Cow<'a, str>, String>,
    /// Harness messages by text.
    messages: HashSet<String>,
}

impl<'a> Later<'a> {
    fn add(&mut self, item: &'a Item, calls: &HashMap<&str, CallArgs>) {
        match item.kind {
            Kind::ToolResult if !item.is_error => {
                let output = tool_output(item);
                let Some(id) = item.results.first() else {
                    return;
                };
                if let Some(path) = read_path(item, calls, true) {
                    self.reads.insert(path, (id.clone(), output.len()));
                }
                if output.len() >= MIN_CHARS {
                    self.outputs.insert(output, id.clone());
                }
            }
            Kind::User if is_harness(item) => {
                self.messages.insert(item.text());
            }
            _ => {}
        }
    }

    /// The pointer that replaces a tool output the model has later, if it has.
    fn output_pointer(&self, item: &Item, calls: &HashMap<&str, CallArgs>) -> Option<String> {
        let output = tool_output(item);
        if output.len() < MIN_CHARS {
            return None;
        }
        if let Some(id) = self.outputs.get(output.as_ref()) {
            return Some(format!(
                "[ctxc: identical to the later output of call {id}, kept there]"
            ));
        }
        let path = read_path(item, calls, false)?;
        let (id, len) = self.reads.get(&path)?;
        // A later read that only says "unchanged" is no complete copy.
        (*len * 2 >= output.len()).then(|| {
            format!("[ctxc: superseded by the later read of {path} (call {id}), kept there]")
        })
    }

    /// The pointer that replaces a harness message the model has later, if it has.
    fn message_pointer(&self, item: &Item) -> Option<String> {
        if !is_harness(item) {
            return None;
        }
        let text = item.text();
        (text.len() >= MIN_CHARS && self.messages.contains(&text))
            .then(|| "[ctxc: a harness message repeated later verbatim]".to_string())
    }
}

/// Every tool call of the conversation by id, with its arguments.
fn calls_by_id(items: &[Item]) -> HashMap<&str, CallArgs> {
    let mut by_id = HashMap::new();
    for item in items.iter().filter(|i| !i.calls.is_empty()) {
        let described = tool_calls(item);
        if described.len() != item.calls.len() {
            continue;
        }
        for (call, args) in item.calls.iter().zip(described) {
            by_id.insert(call.id.as_str(), args);
        }
    }
    by_id
}

/// The file a tool result shows the content of, when it answers one read call (a whole-file
/// read with `whole`).
fn read_path(item: &Item, calls: &HashMap<&str, CallArgs>, whole: bool) -> Option<String> {
    let [id] = item.results.as_slice() else {
        return None;
    };
    let call = calls.get(id.as_str())?;
    let reads_content = ["read", "view", "cat", "open"]
        .iter()
        .any(|w| holds_ignoring_case(&call.name, w));
    if file_effect(call) != Effect::Read || !reads_content {
        return None;
    }
    if whole && PARTIAL_KEYS.iter().any(|k| call.args.get(k).is_some()) {
        return None;
    }
    let [path] = call.paths().try_into().ok()?;
    Some(path)
}

/// Whether a user-side message was written by the harness, not the user.
fn is_harness(item: &Item) -> bool {
    item.meta || item.text().trim_start().starts_with("<system-reminder>")
}

/// Positions of user messages in compactable units.
fn free_messages(cx: &Context, plan: &Plan) -> HashSet<usize> {
    cx.units(plan)
        .iter()
        .filter(|u| super::compactable(u))
        .flat_map(|u| u.elements.clone())
        .filter(|&at| {
            plan.items[at]
                .kept()
                .is_some_and(|i| cx.subject.conv.items[i].kind == Kind::User)
        })
        .collect()
}
