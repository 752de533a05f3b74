//! A transcript file parsed just enough to detect its format: one JSON document, or JSON Lines.
//!
//! Values stay borrowed slices of the source so adapters can keep byte spans, each held in a
//! [`Node`] that is split into its parts once, whichever detector or reader asks first: the
//! root (each line of JSONL) is split by the scan that checks its syntax, and detection and
//! reading share one scan of each container below it. A one-line object is treated as a
//! one-line JSONL file: Claude Code and Codex sessions of one record look exactly like that,
//! and reading a one-line `{"messages": ...}` as "one conversation per line" gives the same
//! result as reading it as a document.

use crate::json::{LineIndex, Node, Span, parse_raw, span_of};
use serde_json::value::RawValue;

const BOM: &str = "\u{feff}";

/// One line of a JSONL file.
pub struct Line<'a> {
    /// The line's bytes (without its terminator) in the source.
    pub span: (usize, usize),
    /// 1-based line number.
    pub number: usize,
    /// The parsed value, split as far as something asked.
    pub node: Node<'a>,
}

impl<'a> Line<'a> {
    /// The line's span as a range.
    pub fn range(&self) -> Span {
        self.span.0..self.span.1
    }

    /// The parsed value's text.
    pub fn text(&self) -> &'a str {
        self.node.get()
    }
}

/// A parsed transcript file.
pub enum Doc<'a> {
    /// One JSON document.
    Json {
        /// The whole source.
        src: &'a str,
        /// The root value, split as far as something asked.
        root: Node<'a>,
        /// Line numbers of offsets.
        lines: LineIndex<'a>,
    },
    /// JSON Lines: one value per non-blank line.
    Lines {
        /// The whole source.
        src: &'a str,
        /// The lines, blank ones left out.
        lines: Vec<Line<'a>>,
        /// `\n` or `\r\n`, whichever most lines end with.
        newline: &'static str,
        /// Whether the last line ends with a terminator.
        trailing_newline: bool,
    },
}

/// A syntax error at a place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line (0 = the whole file).
    pub line: usize,
    /// What is wrong, including the byte offset where known.
    pub message: String,
}

/// The torn last line of a JSON Lines file (see [`Doc::torn_tail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Where the torn line starts: the source up to here is the file without it.
    pub start: usize,
    /// Its 1-based line number.
    pub line: usize,
    /// What `check` says of it.
    pub message: String,
}

impl<'a> Doc<'a> {
    /// Parses `src` as one JSON document or as JSON Lines.
    pub fn parse(src: &'a str) -> Result<Doc<'a>, Vec<ParseError>> {
        Self::parse_with_copies(src, &|_, _| false)
    }

    /// Like [`Doc::parse`], for an output whose JSONL lines `copied(k, text)` (the `k`-th
    /// non-blank line) says are copies of lines that parsed: those are not checked again and
    /// are split only when something asks (a reader taking them from the input never does).
    pub fn parse_with_copies(
        src: &'a str,
        copied: &dyn Fn(usize, &str) -> bool,
    ) -> Result<Doc<'a>, Vec<ParseError>> {
        let body = src.strip_prefix(BOM).unwrap_or(src);
        let trimmed = body.trim();
        if trimmed.is_empty() {
            return Err(vec![ParseError {
                line: 0,
                message: "empty file: no JSON found".into(),
            }]);
        }
        let one_line = !trimmed.contains('\n');
        match parse_node(body) {
            Ok(root) if !(one_line && root.get().starts_with('{')) => Ok(Doc::Json {
                src,
                root,
                lines: LineIndex::new(src),
            }),
            Ok(_) => Self::parse_lines(src, body, copied),
            Err(whole) => {
                let first_line = body.trim_start().lines().next().unwrap_or("");
                if !one_line && parse_raw(first_line).is_ok() {
                    Self::parse_lines(src, body, copied)
                } else {
                    Err(vec![json_error(src, body, &whole)])
                }
            }
        }
    }

    fn parse_lines(
        src: &'a str,
        body: &'a str,
        copied: &dyn Fn(usize, &str) -> bool,
    ) -> Result<Doc<'a>, Vec<ParseError>> {
        // What most lines end with: each line written keeps its own ending; this is only
        // for a line that had none.
        let newline = if mostly_crlf(body) { "\r\n" } else { "\n" };
        let bom = src.len() - body.len();
        let mut lines = Vec::new();
        let mut errors = Vec::new();
        let mut offset = bom;
        for (i, text) in lines_of(body).enumerate() {
            let start = offset;
            offset += text.len() + 1;
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            if copied(lines.len(), text) {
                lines.push(Line {
                    span: (start, start + text.len()),
                    number: i + 1,
                    node: Node::copied(text),
                });
                continue;
            }
            match parse_node(text) {
                Ok(node) => lines.push(Line {
                    span: (start, start + text.len()),
                    number: i + 1,
                    node,
                }),
                // The last line, with no terminator after it (it would have moved `offset`
                // past the end): a write cut short.
                Err(e) if offset > src.len() => errors.push(ParseError {
                    line: i + 1,
                    message: torn_message(start, &e),
                }),
                Err(e) => errors.push(ParseError {
                    line: i + 1,
                    message: format!(
                        "invalid JSON: {} (byte {})",
                        strip_position(&e),
                        start + e.column().saturating_sub(1)
                    ),
                }),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Doc::Lines {
            src,
            lines,
            newline,
            trailing_newline: body.ends_with('\n'),
        })
    }

    /// The torn last line of JSON Lines `src`, if it has one: a last line that is not valid
    /// JSON and has no line terminator after it, which is what a client that crashed while
    /// appending a record leaves. A line that does end with a terminator is an ordinary
    /// syntax error, and so is a file that is not JSON Lines (its first line is not JSON).
    pub fn torn_tail(src: &str) -> Option<TornTail> {
        let body = src.strip_prefix(BOM).unwrap_or(src);
        if body.ends_with('\n') {
            return None;
        }
        let start = body.rfind('\n')? + 1;
        let text = &body[start..];
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.trim().is_empty() {
            return None;
        }
        let error = parse_raw(text).err()?;
        let first = body.trim_start().lines().next().unwrap_or("");
        if parse_raw(first).is_err() || parse_raw(body).is_ok() {
            return None;
        }
        let start = src.len() - body.len() + start;
        Some(TornTail {
            start,
            line: src[..start].matches('\n').count() + 1,
            message: torn_message(start, &error),
        })
    }

    /// The whole source text.
    pub fn src(&self) -> &'a str {
        match self {
            Doc::Json { src, .. } | Doc::Lines { src, .. } => src,
        }
    }

    /// The JSONL lines, if this is JSONL.
    pub fn lines(&self) -> Option<&[Line<'a>]> {
        match self {
            Doc::Lines { lines, .. } => Some(lines),
            Doc::Json { .. } => None,
        }
    }

    /// The root value, if this is one JSON document.
    pub fn root(&self) -> Option<&Node<'a>> {
        match self {
            Doc::Json { root, .. } => Some(root),
            Doc::Lines { .. } => None,
        }
    }

    /// The byte span of a raw value borrowed from this document.
    pub fn span(&self, raw: &RawValue) -> Span {
        span_of(self.src(), raw.get())
    }

    /// The byte span of a node of this document.
    pub fn span_of(&self, node: &Node) -> Span {
        span_of(self.src(), node.get())
    }

    /// The 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self {
            Doc::Json { lines, .. } => lines.line_of(offset),
            Doc::Lines { lines, .. } => {
                let i = lines.partition_point(|l| l.span.0 <= offset);
                lines.get(i.wrapping_sub(1)).map_or(1, |l| l.number)
            }
        }
    }

    /// A short description of what the file holds, for "cannot tell the format" errors.
    pub fn describe(&self) -> String {
        match self {
            Doc::Json { root, .. } => format!("the file is {}", shape(root)),
            // A one-line object is read as one JSONL record, but it is one JSON document.
            Doc::Lines { lines, .. } if lines.len() == 1 => {
                format!("the file is {}", shape(&lines[0].node))
            }
            Doc::Lines { lines, .. } => match lines.first() {
                Some(first) => format!(
                    "JSON Lines with {} records, the first {}",
                    lines.len(),
                    shape(&first.node)
                ),
                None => "JSON Lines with no records".into(),
            },
        }
    }
}

/// `text` parsed and split at its first level in one scan; a text that does not parse fails
/// with [`parse_raw`]'s error, the one `check` reports.
fn parse_node(text: &str) -> serde_json::Result<Node<'_>> {
    Node::parse(text).or_else(|_| parse_raw(text).map(Node::new))
}

/// "an object with keys [a, b]", "an array of 3 values, the first ...", "the scalar 1".
fn shape(node: &Node) -> String {
    let text = node.get().as_bytes();
    let nested = text
        .iter()
        .filter(|b| !b.is_ascii_whitespace())
        .take_while(|&&b| b == text[0] && (b == b'[' || b == b'{'))
        .count();
    if nested > SHAPE_DEPTH {
        let kind = if text[0] == b'[' { "array" } else { "object" };
        return format!("an {kind} nested {nested} levels deep");
    }
    shape_within(node, SHAPE_DEPTH)
}

/// Keys under which a message list is kept (the containers' and the datasets' names).
const LIST_KEYS: [&str; 9] = [
    "messages",
    "conversations",
    "conversation",
    "history",
    "traj",
    "trajectory",
    "chat",
    "dialog",
    "steps",
];

/// How many levels of first elements a description follows: enough to name a container, and
/// a bound so that `[[[…]]]` nested 30,000 deep is described, not recursed into.
const SHAPE_DEPTH: usize = 4;

fn shape_within(node: &Node, depth: usize) -> String {
    if depth == 0 {
        let kind = match node.get().as_bytes().first() {
            Some(b'[') => "an array",
            Some(b'{') => "an object",
            _ => "a value",
        };
        return format!("{kind}, nested deeper");
    }
    if let Some(members) = node.members() {
        let keys: Vec<&str> = members.iter().take(8).map(|(k, _)| k.as_ref()).collect();
        let more = if members.len() > 8 { ", ..." } else { "" };
        let tag = ["type", "action", "from", "role"]
            .iter()
            .find_map(|k| {
                node.member(k)
                    .map(|v| format!(" ({k} = {})", clip(v.get())))
            })
            .unwrap_or_default();
        // A list under a key that names one is described too: what is wrong with a message
        // list (empty, its first message without a string role) is told, not only its key.
        let list = LIST_KEYS.iter().find_map(|key| {
            let list = node.member(key)?;
            list.get()
                .starts_with('[')
                .then(|| format!(", its {key} {}", shape_within(list, depth - 1)))
        });
        format!(
            "an object with keys [{}{more}]{tag}{}",
            keys.join(", "),
            list.unwrap_or_default()
        )
    } else if let Some(items) = node.elements() {
        match items.first() {
            Some(first) => format!(
                "an array of {} values, the first {}",
                items.len(),
                shape_within(first, depth - 1)
            ),
            None => "an empty array".into(),
        }
    } else {
        format!("the scalar {}", clip(node.get()))
    }
}

/// At most 40 characters, with control characters escaped so messages stay printable.
fn clip(text: &str) -> String {
    let shown: String = text.chars().take(40).collect();
    let ellipsis = if shown.len() < text.len() { "..." } else { "" };
    let printable: String = shown
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    format!("{printable}{ellipsis}")
}

fn torn_message(start: usize, e: &serde_json::Error) -> String {
    format!(
        "torn last line (no newline, not valid JSON): {} (byte {})",
        strip_position(e),
        start + e.column().saturating_sub(1)
    )
}

fn json_error(src: &str, body: &str, e: &serde_json::Error) -> ParseError {
    let bom = src.len() - body.len();
    let line_start: usize = body
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let offset = bom + line_start + e.column().saturating_sub(1);
    ParseError {
        line: e.line().max(1),
        message: format!("invalid JSON: {} (byte {offset})", strip_position(e)),
    }
}

/// serde_json's message without its " at line L column C" tail: ctxc prints its own position.
pub(super) fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// `body` split at each `\n`, as `str::split('\n')` splits it (a last piece after the last
/// terminator, empty or not), found with memchr's SIMD search.
fn lines_of(body: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', body.as_bytes());
    std::iter::from_fn(move || {
        let end = match ends.next() {
            Some(end) => end,
            None if start <= body.len() => body.len(),
            None => return None,
        };
        let line = &body[start..end];
        start = end + 1;
        Some(line)
    })
}

/// Whether more than half of `body`'s line ends are `\r\n`. One search for `\n` (memchr),
/// where counting `"\r\n"` as a substring cost a two-way search of the whole file.
fn mostly_crlf(body: &str) -> bool {
    let bytes = body.as_bytes();
    let (mut crlf, mut all) = (0usize, 0usize);
    for at in memchr::memchr_iter(b'\n', bytes) {
        all += 1;
        crlf += usize::from(at > 0 && bytes[at - 1] == b'\r');
    }
    crlf * 2 > all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_str_split_does() {
        for body in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\na\n\n",
            "é\nü",
        ] {
            let got: Vec<&str> = lines_of(body).collect();
            let want: Vec<&str> = body.split('\n').collect();
            assert_eq!(got, want, "{body:?}");
        }
    }
}
