//! The lines of a JSON Lines session that are not JSON (a torn last line, garbage in the
//! middle): what a repair leaves out first. The lines themselves and the edits of a repair
//! step are [`crate::transcript::edit`]'s.

use crate::json::parse_raw;
use crate::transcript::edit::split;

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
