//! `trim-calls` (near-free, after the outputs are cut): cut the bulk inside old calls the
//! agent made — a Write's content, an Edit's new text, a patch body, a long heredoc — to a
//! marked head, keeping the call itself verbatim: the tool's name, its path arguments, each
//! long text's first lines and last line (so a command's first line, an old text's first
//! line), and every line naming a file the call touches (a patch's file headers). Arguments
//! keep their keys and their shape, so the client still reads the call; the format's adapter
//! writes them back ([`OutItem::ReplaceArguments`]). A text-based agent's message (SWE-agent:
//! its action a command block or XML call in its text, [`Item::text_call`]) is a call too:
//! its reasoning is cut to its first line and a long action body as above, the action kept
//! as the harness parses it ([`OutItem::ReplaceText`]). The same holds where the client
//! stores the agent's reasoning as a message of its own just before a call (Claude Code's
//! text record before its `tool_use`): that message is cut to the head of its first line.
//! Calls of the most recent items (3) stay whole. Oldest first, stopping once the target is
//! met. Inside `adaptive` the recent calls are in reach too, and when the usual cut of every
//! call still misses the target, the tersest cut follows: no reasoning before a call, a long
//! text's first line and the lines naming its files.

use super::{Context, Strategy, StrategyName};
use crate::facts::{CallArgs, has_tool_parts, head_chars, tool_calls};
use crate::human::thousands;
use crate::plan::Plan;
use crate::tokens::TokenCounter;
use crate::transcript::{CallEdit, Item, OutItem, PartKind};
use anyhow::Result;
use serde_json::Value;

/// How far a cut of a long text inside a call goes.
#[derive(Debug, Clone, Copy)]
struct Depth {
    /// Lines and characters kept at the head of a long text.
    head_lines: usize,
    head_chars: usize,
    /// A text is cut only when it is longer than this many lines or characters ...
    long_lines: usize,
    long_chars: usize,
    /// ... and the cut saves at least this many tokens: less is not worth the marker.
    min_cut_tokens: usize,
    /// The text's last line is kept when it is at most this long (a heredoc's terminator,
    /// an action's closing fence, a closing brace).
    last_line_chars: usize,
    /// The tersest: the reasoning before a call goes whole (not to the head of its first
    /// line), and markers give no figures.
    terse: bool,
}

/// The usual cut.
const USUAL: Depth = Depth {
    head_lines: 5,
    head_chars: 400,
    long_lines: 11,
    long_chars: 1200,
    min_cut_tokens: 48,
    last_line_chars: usize::MAX,
    terse: false,
};

/// The tersest ([`Context::terse`]): a long text keeps its first line, the lines naming the
/// call's files and a short last line (what closes it); no reasoning is left before a call:
/// what the agent did outlives what it said about it.
const TERSEST: Depth = Depth {
    head_lines: 1,
    head_chars: 120,
    long_lines: 2,
    long_chars: 240,
    min_cut_tokens: 16,
    last_line_chars: 24,
    terse: true,
};

/// The marker left where the reasoning before a call went whole.
const REASONING_CUT: &str = "[ctxc: reasoning cut]";

/// Call trimming.
pub struct TrimCalls;

impl Strategy for TrimCalls {
    fn name(&self) -> StrategyName {
        StrategyName::TrimCalls
    }

    fn apply(&self, cx: &Context, mut plan: Plan) -> Result<Plan> {
        let s = cx.subject;
        // Over the target, cut oldest first and stop once it is met; a forced step under
        // the target cuts everything in reach.
        let stop = cx.tokens(&plan) > cx.target;
        let mut need = cx.tokens(&plan).saturating_sub(cx.target);
        let calls = cx.free_calls(&plan);
        let reasoning = cx.free_reasoning(&plan);
        let old_calls = calls.len().saturating_sub(cx.settings.masking_keep_recent);
        // Each call's own reasoning message first, then the call.
        let steps = calls[..old_calls].iter().flat_map(|&at| {
            // Both lists are in plan order.
            let before = at
                .checked_sub(1)
                .filter(|b| reasoning.binary_search(b).is_ok());
            before.into_iter().chain([at])
        });
        let depth = if cx.terse { TERSEST } else { USUAL };
        for at in steps {
            // At the tersest, a call already cut is cut again from what it was.
            let i = match plan.items[at] {
                OutItem::Keep(i) => i,
                OutItem::ReplaceText(i, _) | OutItem::ReplaceArguments(i, _) if cx.terse => i,
                _ => continue,
            };
            let item = &s.conv.items[i];
            let cut = if !has_tool_parts(item) && item.text_call.is_none() {
                trimmed_reasoning(item, s.counter, depth).map(|text| OutItem::ReplaceText(i, text))
            } else if item.text_call.is_some() && !has_tool_parts(item) {
                trimmed_text_call(item, s.counter, depth)
                    .map(|text| OutItem::ReplaceText(i, text))
            } else if s.rewrites_arguments {
                let edits = trimmed_calls(item, s.counter, depth);
                (!edits.is_empty()).then_some(OutItem::ReplaceArguments(i, edits))
            } else {
                None
            };
            let Some(cut) = cut else {
                continue;
            };
            let (old, new) = (s.out_tokens(&plan.items[at]), s.out_tokens(&cut));
            if new >= old {
                continue;
            }
            plan.items[at] = cut;
            if stop {
                need = need.saturating_sub(old - new);
                if need == 0 {
                    break;
                }
            }
        }
        Ok(plan)
    }
}

/// New arguments for each call of `item` that holds a long text, as its arguments part
/// reads them: JSON where they were JSON, else the cut text itself.
fn trimmed_calls(item: &Item, counter: &TokenCounter, depth: Depth) -> Vec<CallEdit> {
    let parts = item
        .parts
        .iter()
        .filter(|p| p.kind == PartKind::ToolArguments);
    let mut edits = Vec::new();
    for (call, (part, args)) in parts.zip(tool_calls(item)).enumerate() {
        let json = serde_json::from_str::<Value>(&part.text).is_ok();
        let keep = Keep::of(&args);
        let mut value = args.args;
        if !trim_value(&mut value, &keep, counter, depth) {
            continue;
        }
        let arguments = match value {
            Value::String(text) if !json => text,
            value => serde_json::to_string(&value).expect("a JSON value serializes"),
        };
        edits.push(CallEdit { call, arguments });
    }
    edits
}

/// Characters of a text-based action's reasoning kept: its first line, up to this many.
const THOUGHT_CHARS: usize = 80;
/// Tokens a text-based action's cut must save: its reasoning is short prose, and an old
/// SWE-agent step is a few dozen tokens of it.
const MIN_THOUGHT_CUT_TOKENS: usize = 16;

/// An old message of a text-based agent (SWE-agent), its action ([`Item::text_call`]) the
/// call: the reasoning before the action cut to the head of its first line with a marker, and a long
/// action body (an `edit`'s new text) cut as a call's long text is. The action itself stays
/// as the harness parses it. `None` when the message has more than one text part (one text
/// replaces them all) or the cut saves too little.
fn trimmed_text_call(item: &Item, counter: &TokenCounter, depth: Depth) -> Option<String> {
    let call = item.text_call.as_deref()?;
    let mut texts = item.parts.iter().filter(|p| p.kind == PartKind::Text);
    let (Some(part), None) = (texts.next(), texts.next()) else {
        return None;
    };
    let text = part.text.as_str();
    let (thought, action) = text.split_at(text.get(call.start..).map_or(0, |_| call.start));
    let args = CallArgs {
        name: call.name.clone(),
        args: call.arguments.clone(),
    };
    let action = trimmed(action, &Keep::of(&args), counter, depth)
        .unwrap_or_else(|| action.to_string());
    let first = thought.trim().lines().next().unwrap_or("");
    let head = head_chars(first, THOUGHT_CHARS);
    let cut_tokens = counter
        .count(thought)
        .saturating_sub(counter.count(head));
    let mut out = String::new();
    if depth.terse && !thought.trim().is_empty() {
        out.push_str(REASONING_CUT);
        out.push('\n');
    } else if cut_tokens >= MIN_THOUGHT_CUT_TOKENS / 2 {
        out.push_str(head);
        out.push('\n');
        out.push_str(&format!(
            "[ctxc: {} tokens of reasoning cut before this action]\n",
            thousands(cut_tokens as u64)
        ));
    } else {
        out.push_str(thought);
    }
    out.push_str(&action);
    let saved = counter.count(text).saturating_sub(counter.count(&out));
    (saved >= MIN_THOUGHT_CUT_TOKENS).then_some(out)
}

/// The agent's reasoning stored as a message of its own before a call: its one text cut to
/// the head of its first line with a marker. `None` when it has more than one text part or
/// the cut saves too little.
fn trimmed_reasoning(item: &Item, counter: &TokenCounter, depth: Depth) -> Option<String> {
    let mut texts = item.parts.iter().filter(|p| p.kind == PartKind::Text);
    let (Some(part), None) = (texts.next(), texts.next()) else {
        return None;
    };
    let text = part.text.as_str();
    let head = head_chars(text.trim().lines().next().unwrap_or(""), THOUGHT_CHARS);
    let cut_tokens = counter.count(text).saturating_sub(counter.count(head));
    let out = if depth.terse {
        REASONING_CUT.to_string()
    } else {
        format!(
            "{head}\n[ctxc: {} tokens of reasoning cut before this call]",
            thousands(cut_tokens as u64)
        )
    };
    let saved = counter.count(text).saturating_sub(counter.count(&out));
    (saved >= MIN_THOUGHT_CUT_TOKENS).then_some(out)
}

/// What of a call no cut may take.
struct Keep {
    /// The files the call touches: a cut keeps the first line naming each.
    paths: Vec<String>,
    /// The shell command it runs: its first line is kept whole, however long.
    command: Option<String>,
}

impl Keep {
    fn of(call: &CallArgs) -> Keep {
        Keep {
            paths: call.paths(),
            command: call.command(),
        }
    }
}

/// Cuts every long string inside `value`; whether any was cut. Keys and shape stay.
fn trim_value(value: &mut Value, keep: &Keep, counter: &TokenCounter, depth: Depth) -> bool {
    match value {
        Value::String(text) => match trimmed(text, keep, counter, depth) {
            Some(cut) => {
                *text = cut;
                true
            }
            None => false,
        },
        Value::Array(values) => values
            .iter_mut()
            .fold(false, |any, v| trim_value(v, keep, counter, depth) | any),
        Value::Object(members) => members
            .values_mut()
            .fold(false, |any, v| trim_value(v, keep, counter, depth) | any),
        _ => false,
    }
}

/// `text` cut to its head, its last line and the lines naming the call's files, with a
/// marker saying what was cut; `None` when it is not long enough to be worth cutting.
fn trimmed(text: &str, keep: &Keep, counter: &TokenCounter, depth: Depth) -> Option<String> {
    let total = text.lines().count();
    if total <= depth.long_lines && text.len() <= depth.long_chars {
        return None;
    }
    if total == 1 && keep.command.as_deref() == Some(text) {
        // A one-line command is the fact itself.
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    // The head starts at the command's first line: an action's opening fence or tag before
    // it is kept too, and the line itself is kept whole, however long.
    let lead = command_line(&lines, keep);
    let start = lead.unwrap_or(0);
    let head = start + take_within(&lines[start..], depth.head_lines, depth.head_chars);
    let short_last = lines[total - 1].len() <= depth.last_line_chars;
    let last = (total > head && short_last).then(|| total - 1);
    let mut kept: Vec<&str> = lines[..head]
        .iter()
        .enumerate()
        .map(|(k, l)| {
            if Some(k) == lead {
                l
            } else {
                head_chars(l, depth.head_chars)
            }
        })
        .collect();
    // The first line naming each file the head does not name.
    let mut unnamed: Vec<&str> = keep
        .paths
        .iter()
        .map(String::as_str)
        .filter(|p| !kept.iter().any(|l| l.contains(p)))
        .collect();
    let mut naming = Vec::new();
    for (k, line) in lines.iter().enumerate().take(last.unwrap_or(total)).skip(head) {
        if unnamed.is_empty() {
            break;
        }
        if unnamed.iter().any(|p| line.contains(p)) {
            unnamed.retain(|p| !line.contains(p));
            naming.push(k);
        }
    }
    let tail: Vec<usize> = naming.iter().copied().chain(last).collect();
    let cut_lines = total - head - tail.len();
    let cut: Vec<&str> = (head..total)
        .filter(|k| !tail.contains(k))
        .map(|k| lines[k])
        .collect();
    let cut_tokens = counter.count(&cut.join("\n"))
        + lines[..head]
            .iter()
            .zip(&kept)
            .filter(|(l, k)| l.len() > k.len())
            .map(|(l, k)| counter.count(&l[k.len()..]))
            .sum::<usize>();
    if cut_tokens < depth.min_cut_tokens {
        return None;
    }
    let mut also = String::new();
    if last.is_some() {
        also.push_str(", its last line");
    }
    match naming.len() {
        0 => {}
        1 => also.push_str(", a line naming its file"),
        n => also.push_str(&format!(", {n} lines naming its files")),
    }
    let marker = if depth.terse {
        format!("[ctxc: {} lines cut]", thousands(cut_lines as u64))
    } else {
        format!(
            "[ctxc: {} of {} lines ({} tokens) cut from this call; its head{also} kept]",
            thousands(cut_lines as u64),
            thousands(total as u64),
            thousands(cut_tokens as u64),
        )
    };
    kept.push(&marker);
    kept.extend(tail.iter().map(|&k| head_chars(lines[k], depth.head_chars)));
    let out = kept.join("\n");
    (out.len() < text.len()).then_some(out)
}

/// Which of the first few `lines` holds the first line of the call's command, if one does.
fn command_line(lines: &[&str], keep: &Keep) -> Option<usize> {
    let first = keep
        .command
        .as_deref()?
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?;
    lines.iter().take(3).position(|l| l.contains(first))
}

/// How many of `lines` fit in `max_lines` lines and `max_chars` characters (at least one).
fn take_within(lines: &[&str], max_lines: usize, max_chars: usize) -> usize {
    let mut chars = 0;
    let mut n = 0;
    for line in lines.iter().take(max_lines) {
        chars += line.len() + 1;
        if n > 0 && chars > max_chars {
            break;
        }
        n += 1;
    }
    n
}
