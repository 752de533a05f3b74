//! `ctxc repair`'s core: one session's text in, the repaired text and every repair made out.
//!
//! A repair runs in steps, each over the whole file and each re-reading what the one before
//! wrote, so every step sees a consistent session: lines that are not JSON (a torn last line,
//! garbage in the middle) are left out first ([`lines`]); then come the format's own steps,
//! which its adapter names and keeps in its folder ([`Format::repair_steps`]): replayed
//! history is dropped, broken chains are re-linked (Claude Code), and unanswered calls get the
//! result the client writes for an interrupted call while results that answer nothing are
//! dropped. OpenAI and Anthropic message lists, in any container, get the same pairing
//! repairs ([`lists`]). A session still above the size its client loads then loses its
//! stored-only payloads ([`oversize`]). Steps work on whole lines ([`Draft`]), list repairs on whole messages: a
//! record no step touches is written back byte-for-byte, and a session with nothing to repair
//! comes back byte-identical.
//!
//! What the pure steps cannot fix stays in [`Repaired::remaining`]: the output is checked
//! again, as `ctxc check` would, before anything is written.

pub mod lines;
mod lists;
pub mod oversize;
mod restore;
#[cfg(test)]
mod tests;

pub use crate::transcript::edit::Repair;
pub use restore::pieces;

use crate::transcript::edit::{Draft, Edits};
use crate::transcript::{self, Finding, Format, ReadError, ReadOptions, Transcript};

/// How a repair runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// How the input is read.
    pub read: ReadOptions,
    /// Above this many bytes a session's stored-only payloads are dropped (the size its client
    /// refuses to load).
    pub max_session_bytes: u64,
    /// What the model's window is measured with, for an oversized session.
    pub fit: oversize::Fit,
}

/// A repaired session.
#[derive(Debug)]
pub struct Repaired {
    /// The format the input was read as.
    pub format: Format,
    /// The repaired text (the input itself when nothing was repaired).
    pub output: String,
    /// Every repair, in input line order.
    pub repairs: Vec<Repair>,
    /// What `check` still finds in the output: faults no repair fixes.
    pub remaining: Vec<Finding>,
    /// The session's size and context, when it was above [`Options::max_session_bytes`].
    pub size: Option<oversize::Size>,
}

/// Repairs `source`; an input that cannot be read as a transcript even without its lines
/// that are not JSON is an error with the reader's findings (lines of the input).
pub fn repair(source: &str, opts: &Options) -> Result<Repaired, ReadError> {
    let (mut draft, mut repairs) = salvage(source);
    let mut t = read(&draft, &opts.read)?;
    // A client's own session is JSON Lines; its JSON forms are hand-made samples.
    let steps = match t.container.as_str() {
        "jsonl" => t.format.repair_steps(),
        _ => &[],
    };
    for step in steps {
        let (edits, found) = step(&t, &draft);
        repairs.extend(found);
        if !edits.is_empty() {
            draft = draft.apply(&edits);
            t = read(&draft, &opts.read)?;
        }
    }
    if lists::repairs(t.format) {
        if let Some((text, found)) = lists::pairing(&t, &draft) {
            repairs.extend(found);
            // Lines of the output from here on: a list's elements do not map to lines.
            draft = Draft::of(&text);
            t = read(&draft, &opts.read)?;
        }
    }
    let mut size = None;
    if draft.text.len() as u64 > opts.max_session_bytes {
        let (text, measured, repair) = oversize::drop_stored(&t, opts.max_session_bytes, &opts.fit);
        repairs.extend(repair);
        if let Some(text) = text {
            t = read(&Draft::of(&text), &opts.read)?;
            draft = Draft::of(&text);
        }
        size = Some(measured);
    }
    repairs.sort_by_key(|r| r.line);
    let remaining = transcript::check(&t)
        .into_iter()
        .map(|f| Finding {
            line: draft.origin_of(f.line),
            ..f
        })
        .collect();
    let output = if repairs.is_empty() {
        source.to_string()
    } else {
        draft.text
    };
    Ok(Repaired {
        format: t.format,
        output,
        repairs,
        remaining,
        size,
    })
}

/// For a JSON Lines file with lines that are not JSON: the format and the findings of the
/// rest of it, at the input's lines (`None` when it has no such lines or the rest is not a
/// transcript either). `check` names what a torn or garbage line would otherwise hide.
pub fn check_rest(source: &str, opts: &ReadOptions) -> Option<(Format, Vec<Finding>)> {
    let (draft, bad) = salvage(source);
    if bad.is_empty() {
        return None;
    }
    let t = read(&draft, opts).ok()?;
    let findings = transcript::check(&t)
        .into_iter()
        .map(|f| Finding {
            line: draft.origin_of(f.line),
            ..f
        })
        .collect();
    Some((t.format, findings))
}

/// The input without its lines that are not JSON, and a repair for each.
fn salvage(source: &str) -> (Draft, Vec<Repair>) {
    let draft = Draft::of(source);
    let Some(bad) = lines::bad_lines(source).filter(|b| !b.is_empty()) else {
        return (draft, Vec::new());
    };
    let mut edits = Edits::default();
    let repairs = bad
        .iter()
        .map(|b| {
            edits.drop.insert(b.line);
            let fault = if b.torn {
                format!(
                    "torn last line (no newline, not valid JSON, {} bytes)",
                    b.bytes
                )
            } else {
                format!("invalid JSON line ({} bytes)", b.bytes)
            };
            Repair::new(b.line, fault, "moved to the archive")
        })
        .collect();
    (draft.apply(&edits), repairs)
}

/// `draft` read as a transcript; findings name the input's lines.
fn read(draft: &Draft, opts: &ReadOptions) -> Result<Transcript, ReadError> {
    transcript::read(draft.text.clone(), opts).map_err(|e| ReadError {
        findings: e
            .findings
            .into_iter()
            .map(|f| Finding {
                line: draft.origin_of(f.line),
                ..f
            })
            .collect(),
    })
}
