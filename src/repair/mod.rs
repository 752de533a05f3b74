//! `ctxc repair`'s core: one session's text in, the repaired text and every repair made out.
//!
//! A repair runs in steps, each over the whole file and each re-reading what the one before
//! wrote, so every step sees a consistent session: lines that are not JSON (a torn last line,
//! garbage in the middle) are left out first; then, per format, replayed history is dropped,
//! broken chains are re-linked (Claude Code), and unanswered calls get the result the client
//! writes for an interrupted call while results that answer nothing are dropped. OpenAI and
//! Anthropic message lists, in any container, get the same pairing repairs ([`lists`]). A session
//! still above the size its client loads then loses its stored-only payloads
//! ([`oversize`]). Steps work on whole lines ([`lines`]), list repairs on whole messages: a
//! record no step touches is written back byte-for-byte, and a session with nothing to repair
//! comes back byte-identical.
//!
//! What the pure steps cannot fix stays in [`Repaired::remaining`]: the output is checked
//! again, as `ctxc check` would, before anything is written.

mod claude_code;
mod codex;
mod gemini;
pub mod lines;
mod lists;
pub mod oversize;
mod pairing;
mod pi;
mod qwen;
mod restore;

pub use restore::pieces;

use crate::transcript::{self, Finding, Format, ReadError, ReadOptions, Transcript};
use lines::{Draft, Edits};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One repair: the input line it concerns, what was wrong, what was done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Repair {
    /// 1-based line of the input (0: the whole file).
    pub line: usize,
    /// The last line, when the repair covers a run of lines (a replayed block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_line: Option<usize>,
    /// What was wrong.
    pub fault: String,
    /// What was done about it.
    pub action: String,
}

impl Repair {
    /// A repair at input line `line`.
    pub fn new(line: usize, fault: impl Into<String>, action: impl Into<String>) -> Self {
        Repair {
            line,
            last_line: None,
            fault: fault.into(),
            action: action.into(),
        }
    }
}

impl Repair {
    /// Where it is: `12`, `12-40` for a run of lines, empty for the whole file.
    pub fn lines(&self) -> String {
        match (self.line, self.last_line) {
            (0, _) => String::new(),
            (line, Some(last)) => format!("{line}-{last}"),
            (line, None) => line.to_string(),
        }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.lines().as_str() {
            "" => write!(f, "{} → {}", self.fault, self.action),
            lines => write!(f, "{lines}: {} → {}", self.fault, self.action),
        }
    }
}

/// A replayed record, at input lines.
#[derive(Debug, Clone, Copy)]
struct Replayed {
    line: usize,
    first: usize,
    same_uuid: bool,
}

/// The repairs of dropped replays: a run of records replaying a run of records (a block
/// re-appended whole) is one repair.
fn replay_repairs(found: &[Replayed]) -> Vec<Repair> {
    let mut repairs = Vec::new();
    let mut at = 0;
    while at < found.len() {
        let start = found[at];
        let mut end = at;
        while let Some(next) = found.get(end + 1) {
            let prev = found[end];
            if next.line != prev.line + 1
                || next.first != prev.first + 1
                || next.same_uuid != start.same_uuid
            {
                break;
            }
            end += 1;
        }
        let same = if start.same_uuid {
            "same uuid"
        } else {
            "same content and timestamp"
        };
        let mut repair = Repair::new(start.line, "", "dropped (the archive keeps it)");
        repair.fault = match end - at {
            0 => format!("record replays line {} ({same})", start.first),
            n => {
                repair.last_line = Some(found[end].line);
                format!(
                    "{} records replay lines {}-{} ({same})",
                    n + 1,
                    start.first,
                    found[end].first
                )
            }
        };
        repairs.push(repair);
        at = end + 1;
    }
    repairs
}

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

/// A repair step: the edits it makes to a session, and the repairs it names.
type Step = fn(&Transcript, &Draft) -> (Edits, Vec<Repair>);

/// Repairs `source`; an input that cannot be read as a transcript even without its lines
/// that are not JSON is an error with the reader's findings (lines of the input).
pub fn repair(source: &str, opts: &Options) -> Result<Repaired, ReadError> {
    let (mut draft, mut repairs) = salvage(source);
    let mut t = read(&draft, &opts.read)?;
    let jsonl = t.container == "jsonl";
    let steps: &[Step] = match t.format {
        Format::ClaudeCode if jsonl => &[
            claude_code::replays,
            claude_code::chain,
            claude_code::pairing,
        ],
        Format::Codex if jsonl => &[codex::replays, codex::pairing],
        Format::Pi => &[pi::pairing],
        Format::Gemini if jsonl => &[gemini::pairing],
        Format::Qwen if jsonl => &[qwen::pairing],
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
