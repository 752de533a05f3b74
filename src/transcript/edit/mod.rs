//! What a repair step makes of a session: a JSON Lines session as lines that each remember the
//! line of the input they came from ([`Draft`]), the edits a step makes to them ([`Edits`]:
//! drop a line, replace it, insert new ones after it), and the [`Repair`]s it names. A format's
//! own steps live in its adapter's folder ([`Adapter::repair_steps`](super::Adapter)); the
//! repair that runs them is `src/repair/`.
//!
//! Every step works on whole lines, so a line no step touches is written back byte-for-byte,
//! terminator included, and a report can name the input's line however many lines earlier
//! steps removed or added.

pub mod pairing;

use super::Transcript;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// A repair step: the edits it makes to a session, and the repairs it names.
pub type Step = fn(&Transcript, &Draft) -> (Edits, Vec<Repair>);

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

/// A session's text between repair steps, with each line's origin.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The text.
    pub text: String,
    /// For each line of `text` (split at `\n`), the 1-based line of the input it came from;
    /// 0 for a line a repair added.
    pub origin: Vec<usize>,
}

impl Draft {
    /// The input itself, each line its own origin.
    pub fn of(text: &str) -> Draft {
        let origin = (1..=split(text).len()).collect();
        Draft {
            text: text.to_string(),
            origin,
        }
    }

    /// The input line that line `line` (1-based, in this text) came from.
    pub fn origin_of(&self, line: usize) -> usize {
        line.checked_sub(1)
            .and_then(|i| self.origin.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// This text with `edits` made; lines no edit names are copied as they are.
    pub fn apply(&self, edits: &Edits) -> Draft {
        if edits.is_empty() {
            return self.clone();
        }
        let mut out = Out::default();
        if let Some(lines) = edits.insert_after.get(&0) {
            lines.iter().for_each(|l| out.push(l, "\n", 0));
        }
        for (i, (line, end)) in split(&self.text).into_iter().enumerate() {
            let number = i + 1;
            if !edits.drop.contains(&number) {
                let text = edits.replace.get(&number).map_or(line, String::as_str);
                out.push(text, end, self.origin[i]);
            }
            if let Some(lines) = edits.insert_after.get(&number) {
                lines.iter().for_each(|l| out.push(l, "\n", 0));
            }
        }
        Draft {
            text: out.text,
            origin: out.origin,
        }
    }
}

/// A text being written line by line.
#[derive(Default)]
struct Out {
    text: String,
    origin: Vec<usize>,
    /// Whether the last line written has no terminator.
    open: bool,
}

impl Out {
    fn push(&mut self, line: &str, end: &str, origin: usize) {
        // A last line without a terminator that gets a successor needs one now.
        if self.open {
            self.text.push('\n');
        }
        self.text.push_str(line);
        self.text.push_str(end);
        self.open = end.is_empty();
        self.origin.push(origin);
    }
}

/// What one repair step does to a draft's lines (1-based line numbers of the draft).
#[derive(Debug, Default)]
pub struct Edits {
    /// Lines left out.
    pub drop: BTreeSet<usize>,
    /// Lines written with new text (without terminator).
    pub replace: HashMap<usize, String>,
    /// New lines written after a line (0: before the first), in order.
    pub insert_after: BTreeMap<usize, Vec<String>>,
}

impl Edits {
    /// Whether the step changes nothing.
    pub fn is_empty(&self) -> bool {
        self.drop.is_empty() && self.replace.is_empty() && self.insert_after.is_empty()
    }
}

/// `text`'s lines with their terminators (`\n`, `\r\n`, or `""` for a last line without
/// one). A text that ends with a terminator has no empty line after it.
pub fn split(text: &str) -> Vec<(&str, &str)> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, end, next) = match rest.find('\n') {
            Some(at) => {
                let line = &rest[..at];
                match line.strip_suffix('\r') {
                    Some(stripped) => (stripped, &rest[at - 1..=at], &rest[at + 1..]),
                    None => (line, &rest[at..=at], &rest[at + 1..]),
                }
            }
            None => (rest, "", ""),
        };
        lines.push((line, end));
        rest = next;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_every_terminator() {
        assert_eq!(
            split("a\nb\r\nc"),
            vec![("a", "\n"), ("b", "\r\n"), ("c", "")]
        );
        assert_eq!(split("a\n\n"), vec![("a", "\n"), ("", "\n")]);
        assert!(split("").is_empty());
    }

    #[test]
    fn edits_keep_untouched_lines_and_origins() {
        let draft = Draft::of("{\"a\":1}\n{\"b\":2}\r\n{\"c\":3}");
        let mut edits = Edits::default();
        edits.drop.insert(2);
        edits.insert_after.insert(3, vec!["{\"d\":4}".into()]);
        let out = draft.apply(&edits);
        assert_eq!(out.text, "{\"a\":1}\n{\"c\":3}\n{\"d\":4}\n");
        assert_eq!(out.origin, vec![1, 3, 0]);
        assert_eq!(draft.apply(&Edits::default()).text, draft.text);
    }
}
