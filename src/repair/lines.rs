//! The line layer of a repair: a JSON Lines session as lines that each remember the line of
//! the input they came from, and the edits a repair step makes to them (drop a line, replace
//! it, insert new ones after it).
//!
//! Every step works on whole lines, so a line no step touches is written back byte-for-byte,
//! terminator included, and a report can name the input's line however many lines earlier
//! steps removed or added.

use crate::json::parse_raw;
use std::collections::{BTreeMap, BTreeSet, HashMap};

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

/// A line that is not JSON, found in a JSON Lines file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// Its 1-based line.
    pub line: usize,
    /// Whether it is the last line, cut short (no terminator): a crash mid-write.
    pub torn: bool,
    /// Its length in bytes.
    pub bytes: usize,
}

/// The lines of `text` that are not JSON, when `text` is JSON Lines (most of its lines are
/// JSON); `None` when it is not JSON Lines, or is one JSON document.
pub fn bad_lines(text: &str) -> Option<Vec<BadLine>> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if parse_raw(body).is_ok() {
        return None;
    }
    let lines = split(body);
    let mut bad = Vec::new();
    let mut good = 0;
    for (i, (line, end)) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if parse_raw(line).is_ok() {
            good += 1;
        } else {
            bad.push(BadLine {
                line: i + 1,
                torn: end.is_empty(),
                bytes: line.len(),
            });
        }
    }
    // A pretty-printed document with a syntax error has few lines that are JSON alone.
    (good > bad.len()).then_some(bad)
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

    #[test]
    fn bad_lines_are_found_in_json_lines_only() {
        let found = bad_lines("{\"a\":1}\nnot json\n{\"b\":2}\n{}\n{\"c\":").unwrap();
        assert_eq!(
            found,
            vec![
                BadLine {
                    line: 2,
                    torn: false,
                    bytes: 8
                },
                BadLine {
                    line: 5,
                    torn: true,
                    bytes: 5
                }
            ]
        );
        assert_eq!(bad_lines("[\n{\"a\": 1},\n]"), None);
        assert_eq!(bad_lines("{\"a\": 1}"), None);
        assert_eq!(bad_lines("{\"a\":1}\n{\"b\":2}\n"), Some(vec![]));
    }
}
