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
use crate::transcript::{
    self, Conversation, Finding, Kind, OutItem, Part, PartKind, ReadOptions, Transcript,
    conversation_findings, sort_findings,
};
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

/// One edited conversation, as verified: all it needs of the input's decoded content is taken
/// at planning, so that content can be released before the output is written and read back.
pub struct Edited<'a> {
    /// Its index in the transcript.
    pub index: usize,
    /// The plan that was written.
    pub plan: &'a Plan,
    /// The holds the plan was made under.
    pub holds: &'a [Hold],
    /// Its context tokens before compaction (already counted by the engine).
    pub tokens_before: usize,
    /// The [`digest`] of each original item's content.
    pub digests: &'a [u128],
}

/// A digest of the content an item carries, as the kept-content check compares it: kind and text
/// of each part (a media part's text aside, which only says "media").
pub fn digest(parts: &[Part]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        // Kind, then length and text: no two part lists encode alike.
        h.update(&[part.kind as u8]);
        if part.kind != PartKind::Media {
            h.update(&(part.text.len() as u64).to_le_bytes());
            h.update(part.text.as_bytes());
        }
    }
    h.digest128()
}

/// Checks `output`, written from `original` with `edits`, reading it back one conversation
/// at a time so its decoded content is never all in memory; hands `each` every edited
/// conversation read back, with its index and context tokens (the others are the input's
/// bytes). `findings` are the input's
/// (`transcript::check` before its content was released); `original` needs only its
/// skeleton: spans, lines, flags and preambles.
pub fn verify(
    original: &Transcript,
    findings: &[Finding],
    output: &str,
    edits: &[Edited],
    opts: &ReadOptions,
    counter: &TokenCounter,
    each: &mut dyn FnMut(usize, &Conversation, usize),
) -> Result<(), Violation> {
    let format = original.format;
    let expected = original.conversations.len();
    let mut found: Vec<Finding> = Vec::new();
    // The first broken conversation, reported once the whole output has read back and
    // passed `check`, in the order the checks always ran.
    let mut broken: Option<Violation> = None;
    let mut edits = edits.iter().peekable();
    let mut c = 0;
    let read = transcript::read_each(output, format, opts, &mut |after| {
        found.extend(conversation_findings(format, output, &after));
        if let Some(edit) = edits.next_if(|e| e.index == c) {
            let tokens = count_conversation(counter, &after).total();
            if broken.is_none() {
                broken = check_conversation(original, &after, tokens, edit).err();
            }
            each(c, &after, tokens);
        }
        c += 1;
    });
    read.map_err(|e| {
        let first = e
            .findings
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        Violation(format!(
            "the output does not read back as {format}: {first}"
        ))
    })?;
    if c != expected {
        return Err(Violation(format!(
            "the output holds {c} conversations, the input {expected}"
        )));
    }
    sort_findings(&mut found);
    check_findings(findings, &found)?;
    broken.map_or(Ok(()), Err)
}

/// The output may only repeat findings the input already had.
fn check_findings(original: &[Finding], out: &[Finding]) -> Result<(), Violation> {
    let mut known: HashMap<&str, usize> = HashMap::new();
    for finding in original {
        *known.entry(finding.problem()).or_default() += 1;
    }
    for finding in out {
        match known.get_mut(finding.problem()) {
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

/// Checks edited conversation `after`, read back with `tokens_after` context tokens.
fn check_conversation(
    original: &Transcript,
    after: &Conversation,
    tokens_after: usize,
    edit: &Edited,
) -> Result<(), Violation> {
    let before = &original.conversations[edit.index];
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
                if !strip_may_change && edit.digests[*i] != digest(&got.parts) {
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
    if tokens_after > tokens_before {
        return Err(Violation(format!(
            "context tokens grew{place}: {tokens_before} → {tokens_after}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preserve::Reason;
    use crate::tokens::Encoding;

    const SRC: &str = "[\n  {\"role\": \"user\", \"content\": \"fix the parser\"},\n  {\"role\": \"assistant\", \"content\": \"on it\"},\n  {\"role\": \"user\", \"content\": \"thanks\"}\n]";

    /// Verifies `output` as the input written with `plan`, item 0 preserved.
    fn check(output: &str, plan: Vec<OutItem>) -> Result<(), Violation> {
        let t = transcript::read(SRC.to_string(), &ReadOptions::default()).unwrap();
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let items = &t.conversations[0].items;
        let digests: Vec<u128> = items.iter().map(|i| digest(&i.parts)).collect();
        let holds = [
            Hold::Preserved(Reason::OriginalTask),
            Hold::Free,
            Hold::Free,
        ];
        let plan = Plan { items: plan };
        let edit = Edited {
            index: 0,
            plan: &plan,
            holds: &holds,
            tokens_before: 1_000,
            digests: &digests,
        };
        let mut seen = Vec::new();
        verify(
            &t,
            &transcript::check(&t),
            output,
            &[edit],
            &ReadOptions::default(),
            &counter,
            &mut |c, _, _| seen.push(c),
        )?;
        assert_eq!(seen, [0], "the edited conversation is handed on");
        Ok(())
    }

    #[test]
    fn a_kept_message_must_read_back_unchanged() {
        let dropped = "[\n  {\"role\": \"user\", \"content\": \"fix the parser\"},\n  {\"role\": \"user\", \"content\": \"thanks\"}\n]";
        let plan = vec![OutItem::Keep(0), OutItem::Keep(2)];
        assert_eq!(check(dropped, plan.clone()), Ok(()));
        let changed = dropped.replace("thanks", "thank you");
        let err = check(&changed, plan).unwrap_err();
        assert!(err.0.contains("a kept message reads back changed"), "{err}");
    }

    #[test]
    fn a_preserved_message_must_be_kept_and_the_output_must_read_back() {
        let without_first = "[\n  {\"role\": \"assistant\", \"content\": \"on it\"},\n  {\"role\": \"user\", \"content\": \"thanks\"}\n]";
        let err = check(without_first, vec![OutItem::Keep(1), OutItem::Keep(2)]).unwrap_err();
        assert!(err.0.contains("was not kept"), "{err}");
        let err = check("[{\"role\": ", vec![OutItem::Keep(0)]).unwrap_err();
        assert!(err.0.contains("does not read back"), "{err}");
    }
}
