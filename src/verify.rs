//! The invariants of DESIGN, checked in code on every compacted output before it is written:
//! the output re-parses in its own format; it has no finding `check` did not already report
//! for the input (so tool calls and results still pair, role order holds, Claude Code chains
//! resolve); every kept message reads back unchanged and every preserved one is kept; tool
//! definitions and system prompts are untouched; no conversation gained tokens. A violation
//! fails the file and nothing is written.

use crate::count::count_conversation;
use crate::plan::Plan;
use crate::preserve::Hold;
use crate::tokens::TokenCounter;
use crate::transcript::{self, Kind, OutItem, Part, PartKind, ReadOptions, Transcript};
use std::collections::HashMap;

/// A broken invariant, with what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation(pub String);

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "invariant violated, nothing written: {}", self.0)
    }
}

impl std::error::Error for Violation {}

/// One edited conversation, as verified.
pub struct Edited<'a> {
    /// Its index in the transcript.
    pub index: usize,
    /// The plan that was written.
    pub plan: &'a Plan,
    /// The holds the plan was made under.
    pub holds: &'a [Hold],
    /// Its context tokens before compaction (already counted by the engine).
    pub tokens_before: usize,
}

/// Checks `output`, written from `original` with `edits`; returns it read back.
pub fn verify(
    original: &Transcript,
    output: String,
    edits: &[Edited],
    opts: &ReadOptions,
    counter: &TokenCounter,
) -> Result<Transcript, Violation> {
    let forced = ReadOptions {
        format: Some(original.format),
        ..opts.clone()
    };
    let out = transcript::read(output, &forced).map_err(|e| {
        let first = e
            .findings
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        Violation(format!(
            "the output does not read back as {}: {first}",
            original.format
        ))
    })?;
    if out.conversations.len() != original.conversations.len() {
        return Err(Violation(format!(
            "the output holds {} conversations, the input {}",
            out.conversations.len(),
            original.conversations.len()
        )));
    }
    check_findings(original, &out)?;
    for edit in edits {
        check_conversation(original, &out, edit, counter)?;
    }
    Ok(out)
}

/// The output may only repeat findings the input already had.
fn check_findings(original: &Transcript, out: &Transcript) -> Result<(), Violation> {
    let mut known: HashMap<String, usize> = HashMap::new();
    for finding in transcript::check(original) {
        *known.entry(finding.message).or_default() += 1;
    }
    for finding in transcript::check(out) {
        match known.get_mut(&finding.message) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                return Err(Violation(format!(
                    "the output fails `ctxc check`: {finding}"
                )));
            }
        }
    }
    Ok(())
}

fn check_conversation(
    original: &Transcript,
    out: &Transcript,
    edit: &Edited,
    counter: &TokenCounter,
) -> Result<(), Violation> {
    let before = &original.conversations[edit.index];
    let after = &out.conversations[edit.index];
    let place = if before.location.is_empty() {
        String::new()
    } else {
        format!(" in {}", before.location)
    };
    if before.preamble != after.preamble {
        return Err(Violation(format!(
            "tool definitions or system prompt changed{place}"
        )));
    }
    if after.items.len() != edit.plan.items.len() {
        return Err(Violation(format!(
            "{} messages planned{place} but {} read back",
            edit.plan.items.len(),
            after.items.len()
        )));
    }
    let mut kept = vec![false; before.items.len()];
    for (planned, got) in edit.plan.items.iter().zip(&after.items) {
        match planned {
            OutItem::Keep(i) | OutItem::Strip(i) => {
                kept[*i] = true;
                let strip_may_change = matches!(planned, OutItem::Strip(_))
                    && !matches!(edit.holds[*i], Hold::Preserved(_));
                let want = &before.items[*i];
                if !strip_may_change && !same_content(&want.parts, &got.parts) {
                    return Err(Violation(format!(
                        "line {}{place}: a kept message reads back changed",
                        want.line
                    )));
                }
            }
            OutItem::Summary { replaces, .. } => {
                // An earlier ctxc summary it absorbed lives on merged into it.
                for i in replaces.clone() {
                    kept[i] |= crate::preserve::mergeable(edit.holds[i], &before.items[i]);
                }
                if !(got.kind == Kind::Summary && got.ctxc_summary) {
                    return Err(Violation(format!(
                        "line {}{place}: a summary does not read back as a ctxc summary",
                        got.line
                    )));
                }
            }
            OutItem::ReplaceResult(i, _)
            | OutItem::ReplaceText(i, _)
            | OutItem::DropThinking(i) => {
                if let Hold::Preserved(reason) = edit.holds[*i] {
                    return Err(Violation(format!(
                        "line {}{place}: {} was rewritten",
                        before.items[*i].line,
                        reason.label()
                    )));
                }
                kept[*i] = true;
            }
        }
    }
    for (i, hold) in edit.holds.iter().enumerate() {
        if let Hold::Preserved(reason) = hold {
            if !kept[i] {
                return Err(Violation(format!(
                    "line {}{place}: {} was not kept",
                    before.items[i].line,
                    reason.label()
                )));
            }
        }
    }
    let tokens_before = edit.tokens_before;
    let tokens_after = count_conversation(counter, after).total();
    if tokens_after > tokens_before {
        return Err(Violation(format!(
            "context tokens grew{place}: {tokens_before} → {tokens_after}"
        )));
    }
    Ok(())
}

/// Whether two items carry the same content (media stubs aside, which only say "media").
fn same_content(a: &[Part], b: &[Part]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.kind == y.kind && (x.text == y.text || x.kind == PartKind::Media))
}
