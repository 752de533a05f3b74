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
    self, Conversation, Copied, Finding, Item, Kind, OutItem, Part, PartKind, ReadOptions,
    Transcript, conversation_findings, sort_findings,
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
    let copied = |c: usize, k: usize, text: &str| copied(original, edits, c, k, text);
    let mut edits = edits.iter().peekable();
    let mut c = 0;
    let read = transcript::read_back(output, format, opts, &copied, &mut |after| {
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

/// The input record that record `k` of edited conversation `c` copies, when `text` (the
/// record as written) is byte for byte what the plan copied and the input's item still holds
/// its decoded content: reading it back would only decode that content again. Checked on the
/// bytes, not taken on trust from the plan: a writer that copied the wrong span or edited a
/// kept record is still read back, and caught.
fn copied<'a>(
    original: &'a Transcript,
    edits: &[Edited],
    c: usize,
    k: usize,
    text: &str,
) -> Option<Copied<'a>> {
    // In conversation order, as `finish` lists them.
    let edit = &edits[edits.binary_search_by_key(&c, |e| e.index).ok()?];
    let (i, strip) = match edit.plan.items.get(k)? {
        OutItem::Keep(i) => (*i, false),
        OutItem::Strip(i) => (*i, true),
        _ => return None,
    };
    let item = &original.conversations[c].items[i];
    let raw = &original.source[item.span.clone()];
    let cut = if text == raw {
        false
    } else if strip && is_cut(raw, item, text) {
        true
    } else {
        return None;
    };
    // Released content reads as no parts, which the digest of what was read tells apart.
    (digest(&item.parts) == edit.digests[i]).then_some(Copied { item, cut })
}

/// Whether `text` is `raw`, item `item`, with its stored-only copy cut where the read found it.
fn is_cut(raw: &str, item: &Item, text: &str) -> bool {
    item.copy_cut.as_ref().is_some_and(|cut| {
        text.len() + cut.len() == raw.len()
            && text.as_bytes()[..cut.start] == raw.as_bytes()[..cut.start]
            && text.as_bytes()[cut.start..] == raw.as_bytes()[cut.end..]
    })
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
            | OutItem::DropThinking(i)
            | OutItem::ReplaceArguments(i, _) => {
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

#[cfg(test)]
mod read_back {
    use super::*;
    use crate::transcript::Format;

    fn session(rel: &str) -> Transcript {
        let path = format!(
            "{}/../shared/corpus/claude-code/{rel}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let t = transcript::read(text, &ReadOptions::default()).unwrap();
        assert_eq!(t.format, Format::ClaudeCode);
        t
    }

    /// A plan that drops every third disposable record (their neighbours are re-linked),
    /// strips every stored copy and keeps the rest.
    fn plan_of(t: &Transcript) -> Plan {
        let items = &t.conversations[0].items;
        let mut disposable = 0;
        let items = (0..items.len())
            .filter(|&i| {
                disposable += usize::from(items[i].disposable);
                !(items[i].disposable && disposable % 3 == 0)
            })
            .map(|i| match items[i].stored_only_bytes {
                0 => OutItem::Keep(i),
                _ => OutItem::Strip(i),
            })
            .collect();
        Plan { items }
    }

    /// `conv` as the read-back gives it: no usage, no model.
    fn shown(mut conv: Conversation) -> String {
        conv.items.iter_mut().for_each(|item| item.usage = None);
        conv.model = None;
        format!("{conv:?}")
    }

    /// `t` written with `plans` (one per conversation), read back taking copies and read by
    /// decoding every record: the conversations each gives, and the records taken as copies.
    fn read_back_and_decoded(t: &Transcript, plans: &[Plan]) -> (Vec<String>, Vec<String>, usize) {
        let output = t.write(
            &plans
                .iter()
                .map(|p| Some(p.items.clone()))
                .collect::<Vec<_>>(),
        );
        let digests: Vec<Vec<u128>> = t
            .conversations
            .iter()
            .map(|conv| conv.items.iter().map(|i| digest(&i.parts)).collect())
            .collect();
        let edits: Vec<Edited> = plans
            .iter()
            .enumerate()
            .map(|(c, plan)| Edited {
                index: c,
                plan,
                holds: &[],
                tokens_before: 0,
                digests: &digests[c],
            })
            .collect();
        let taken = std::cell::Cell::new(0);
        let copies = |c: usize, k: usize, text: &str| {
            let found = copied(t, &edits, c, k, text);
            taken.set(taken.get() + usize::from(found.is_some()));
            found
        };
        let opts = ReadOptions::default();
        let mut decoded = Vec::new();
        transcript::read_each(&output, t.format, &opts, &mut |c| decoded.push(shown(c))).unwrap();
        let mut back = Vec::new();
        transcript::read_back(&output, t.format, &opts, &copies, &mut |c| {
            back.push(shown(c))
        })
        .unwrap();
        (back, decoded, taken.get())
    }

    #[test]
    fn copied_records_read_back_as_decoding_them_again_does() {
        for rel in [
            "spotter/tool_heavy.jsonl",
            "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        ] {
            let t = session(rel);
            let plan = plan_of(&t);
            let records = plan.items.len();
            let (back, decoded, taken) = read_back_and_decoded(&t, &[plan]);
            assert_eq!(back, decoded, "{rel}");
            assert!(
                taken * 2 > records,
                "{rel}: {taken} of {records} records taken as copies"
            );
        }
    }

    /// Every conversation of `t` with every third message dropped and a summary in place of
    /// its first two; the rest kept.
    fn messages_dropped(t: &Transcript) -> Vec<Plan> {
        t.conversations
            .iter()
            .map(|conv| {
                let n = conv.items.len();
                let summary = OutItem::Summary {
                    text: "earlier turns".into(),
                    replaces: 0..2.min(n),
                };
                let kept = (2..n).filter(|i| i % 3 != 0).map(OutItem::Keep);
                Plan {
                    items: std::iter::once(summary).chain(kept).collect(),
                }
            })
            .collect()
    }

    #[test]
    fn copied_messages_of_chat_lists_read_back_as_decoding_them_again_does() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
        // Runs of a dataset; text-based actions paired by position (`action-LINE` ids);
        // legacy function calls paired by order (`function-call-N`); Anthropic messages.
        for (path, format) in [
            (
                format!("{corpus}/openai-chat/tau-bench/gpt-4o-airline.json"),
                Format::OpenAi,
            ),
            (
                format!("{corpus}/swe-agent/ctf__crypto__BabyEncryption.traj"),
                Format::OpenAi,
            ),
            (
                format!("{fixtures}/llamafactory/openai-roles.json"),
                Format::OpenAi,
            ),
            (
                format!("{fixtures}/anthropic/request.json"),
                Format::Anthropic,
            ),
        ] {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let t = transcript::read(text, &ReadOptions::default()).unwrap();
            assert_eq!(t.format, format, "{path}");
            let plans = messages_dropped(&t);
            let kept: usize = plans.iter().map(|p| p.items.len() - 1).sum();
            let (back, decoded, taken) = read_back_and_decoded(&t, &plans);
            assert_eq!(back, decoded, "{path}");
            assert!(taken > 0, "{path}: no message taken as a copy");
            if path.contains("tau-bench") {
                assert_eq!(taken, kept, "{path}: every kept message taken as a copy");
            }
        }
    }

    #[test]
    fn a_copied_record_written_wrong_is_decoded_and_caught() {
        let t = session("spotter/tool_heavy.jsonl");
        let conv = &t.conversations[0];
        let plan = Plan {
            items: (0..conv.items.len()).map(OutItem::Keep).collect(),
        };
        let digests: Vec<u128> = conv.items.iter().map(|i| digest(&i.parts)).collect();
        let holds = vec![Hold::Free; conv.items.len()];
        let counter = TokenCounter::new(crate::tokens::Encoding::O200kBase).unwrap();
        let verify_output = |output: &str| {
            let edit = Edited {
                index: 0,
                plan: &plan,
                holds: &holds,
                tokens_before: usize::MAX,
                digests: &digests,
            };
            let findings = transcript::check(&t);
            let opts = ReadOptions::default();
            verify(
                &t,
                &findings,
                output,
                &[edit],
                &opts,
                &counter,
                &mut |_, _, _| {},
            )
        };
        assert_eq!(verify_output(&t.source), Ok(()));
        // A user message's text changed in place, and two messages in each other's place.
        let user = conv
            .items
            .iter()
            .position(|i| i.kind == Kind::User)
            .unwrap();
        let raw = t.raw(0, user);
        let changed = raw.replacen("\"content\":\"", "\"content\":\"(edited) ", 1);
        assert_ne!(changed, raw);
        let output = t.source.replacen(raw, &changed, 1);
        let err = verify_output(&output).unwrap_err();
        assert!(err.0.contains("a kept message reads back changed"), "{err}");
        let (a, b) = (user, user + 1);
        let mut swapped = t.source.clone();
        let (ra, rb) = (t.raw(0, a).to_string(), t.raw(0, b).to_string());
        swapped.replace_range(conv.items[b].span.clone(), &ra);
        swapped.replace_range(conv.items[a].span.clone(), &rb);
        assert!(verify_output(&swapped).is_err());
    }
}
