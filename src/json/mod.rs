//! Span-preserving JSON access.
//!
//! ctxc must write back every untouched value byte-for-byte: re-serializing with serde_json
//! reorders keys and rewrites numbers and escapes. So containers are read as borrowed
//! [`RawValue`]s, whose text is a slice of the input, and every value is located by its byte
//! span. Only the values an adapter needs to understand are parsed into `serde_json::Value`.

pub mod lenient;
mod scan;
mod tree;

pub use tree::Node;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;
use std::ops::Range;

/// A byte range in a transcript's source text.
pub type Span = Range<usize>;

/// Where `sub` (a slice borrowed from `src`) lies within `src`.
pub fn span_of(src: &str, sub: &str) -> Span {
    let start = sub.as_ptr() as usize - src.as_ptr() as usize;
    debug_assert!(start + sub.len() <= src.len(), "sub is not a slice of src");
    start..start + sub.len()
}

/// Parses one complete JSON document without copying it.
pub fn parse_raw(text: &str) -> serde_json::Result<&RawValue> {
    serde_json::from_str(text)
}

/// The elements of a JSON array, in order, or `None` when `raw` is not an array.
pub fn array_elements(raw: &RawValue) -> Option<Vec<&RawValue>> {
    if !raw.get().starts_with('[') {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// The members of a JSON object in their written order, or `None` when `raw` is not an object.
pub fn object_members(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    if !raw.get().starts_with('{') {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    de.deserialize_map(OrderedMembers).ok()
}

/// For `#[serde(default, deserialize_with = "json::present")]` on an `Option<&RawValue>`
/// field of a struct that picks a few members out of an object in one scan: a member that is
/// there, whatever its value, is `Some` (a plain `Option` reads `null` as absent).
pub fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as serde::Deserialize>::deserialize(d).map(Some)
}

/// The raw value of member `key` of an object.
pub fn member<'a>(raw: &'a RawValue, key: &str) -> Option<&'a RawValue> {
    object_members(raw)?
        .into_iter()
        .find_map(|(k, v)| (k == key).then_some(v))
}

struct OrderedMembers;

impl<'de> Visitor<'de> for OrderedMembers {
    type Value = Vec<(String, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
            members.push((key, value));
        }
        Ok(members)
    }
}

/// Line numbers (1-based) of byte offsets in one text.
///
/// The line at every [`LINE_CHUNK`]-th byte is kept and the newlines after it are counted on
/// each lookup, so a lookup reads at most one chunk whatever the lines are like. (Keeping
/// every 8th line start instead made a minified file, one line, count from byte 0 on every
/// lookup: 15 s for a 4.8 MB array of 20,000 messages.) The index lives as long as a large
/// input is read: one entry per chunk weighs 1/64 of the text, less than one entry a line
/// would for a pretty-printed file.
pub struct LineIndex<'a> {
    text: &'a [u8],
    /// `chunk_lines[k]` is the line holding byte `k × LINE_CHUNK`.
    chunk_lines: Vec<usize>,
}

/// Bytes between two kept positions of a [`LineIndex`].
const LINE_CHUNK: usize = 512;

impl<'a> LineIndex<'a> {
    /// Indexes the lines of `text`.
    pub fn new(text: &'a str) -> Self {
        let text = text.as_bytes();
        let mut chunk_lines = Vec::with_capacity(text.len() / LINE_CHUNK + 1);
        let mut line = 1;
        for chunk in text.chunks(LINE_CHUNK) {
            chunk_lines.push(line);
            line += newlines(chunk);
        }
        // The end of a text of whole chunks (and of an empty one) has its own entry.
        if text.len() % LINE_CHUNK == 0 {
            chunk_lines.push(line);
        }
        LineIndex { text, chunk_lines }
    }

    /// The 1-based line holding byte `offset` (the last line for offsets past the end).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        let k = offset / LINE_CHUNK;
        self.chunk_lines[k] + newlines(&self.text[k * LINE_CHUNK..offset])
    }
}

fn newlines(bytes: &[u8]) -> usize {
    // Counted into a byte per run of at most 255 bytes, which the compiler turns into wide
    // compares and adds: counting into a `usize` per byte cost 5 instructions a byte, a fifth
    // of reading a large JSON document, since every document's lines are indexed.
    bytes
        .chunks(255)
        .map(|run| {
            let count = run
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b'\n')));
            usize::from(count)
        })
        .sum()
}

/// Replaces byte ranges of `src` (sorted, non-overlapping) with new text.
pub fn splice(src: &str, edits: &[(Span, String)]) -> String {
    // The exact size: a compacted output is often far smaller than its input, and room for
    // the whole input would count in peak memory.
    let removed: usize = edits.iter().map(|(span, _)| span.len()).sum();
    let added: usize = edits.iter().map(|(_, text)| text.len()).sum();
    let mut out = String::with_capacity(src.len() - removed + added);
    let mut at = 0;
    for (span, text) in edits {
        out.push_str(&src[at..span.start]);
        out.push_str(text);
        at = span.end;
    }
    out.push_str(&src[at..]);
    out
}

/// `object` (raw JSON text of an object) with member `key`'s value replaced by `new_value`
/// (raw JSON), everything else byte-for-byte; `None` when there is no such member.
pub fn replace_member(object: &str, key: &str, new_value: &str) -> Option<String> {
    let raw = parse_raw(object).ok()?;
    let value = member(raw, key)?;
    let span = span_of(object, value.get());
    Some(splice(object, &[(span, new_value.to_string())]))
}

/// A JSON string literal for `s`, escaped as serde_json writes it.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

/// The layout of a JSON array as written: what precedes the first element, what separates
/// elements, what follows the last. Used to re-write an edited array in the same style.
#[derive(Debug, Clone)]
pub struct ArrayLayout {
    /// `[` plus whitespace before the first element.
    pub open: String,
    /// The comma and whitespace between elements.
    pub separator: String,
    /// Whitespace after the last element plus `]`.
    pub close: String,
}

impl ArrayLayout {
    /// Reads the layout of `array` (the raw text) given its elements' spans within it.
    pub fn of(array: &str, elements: &[Span]) -> Self {
        match (elements.first(), elements.last()) {
            (Some(first), Some(last)) => {
                let separator = match elements.get(1) {
                    Some(second) => array[first.end..second.start].to_string(),
                    None => guess_separator(&array[..first.start]),
                };
                ArrayLayout {
                    open: array[..first.start].to_string(),
                    separator,
                    close: array[last.end..].to_string(),
                }
            }
            _ => ArrayLayout {
                open: "[".into(),
                separator: ",".into(),
                close: array[1..].to_string(),
            },
        }
    }

    /// Writes elements in this layout.
    pub fn render<S: AsRef<str>>(&self, elements: impl IntoIterator<Item = S>) -> String {
        let mut out = String::new();
        self.render_into(elements, &mut out);
        out
    }

    /// Appends elements in this layout to `out`.
    pub fn render_into<S: AsRef<str>>(
        &self,
        elements: impl IntoIterator<Item = S>,
        out: &mut String,
    ) {
        let start = out.len();
        out.push_str(&self.open);
        for (i, e) in elements.into_iter().enumerate() {
            if i > 0 {
                out.push_str(&self.separator);
            }
            out.push_str(e.as_ref());
        }
        if out[start..] == self.open && self.open.len() > 1 {
            // An empty array: keep it compact rather than leaving the indentation dangling.
            out.truncate(start);
            out.push_str("[]");
            return;
        }
        out.push_str(&self.close);
    }

    /// The indentation used inside the array, for pretty-printing new elements to match.
    pub fn indent(&self) -> Option<&str> {
        let ws = self.open.trim_start_matches('[');
        ws.rfind('\n').map(|i| &ws[i + 1..])
    }
}

fn guess_separator(open: &str) -> String {
    let ws = open.trim_start_matches('[');
    if ws.is_empty() {
        ",".into()
    } else {
        format!(",{ws}")
    }
}

/// Serializes `value` for insertion where elements are written with indentation `indent`
/// (`None` = compact), matching the surrounding document's style.
pub fn to_string_styled(value: &serde_json::Value, indent: Option<&str>) -> String {
    match indent {
        None => value.to_string(),
        Some(indent) => {
            let unit = indent_unit(indent);
            let mut buf = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
            serde::Serialize::serialize(value, &mut ser).expect("a Value always serializes");
            let pretty = String::from_utf8(buf).expect("serde_json writes UTF-8");
            pretty.replace('\n', &format!("\n{indent}"))
        }
    }
}

fn indent_unit(indent: &str) -> String {
    if indent.starts_with('\t') {
        "\t".into()
    } else if indent.is_empty() {
        "  ".into()
    } else {
        // Most pretty printers nest by 2 or 4; the element indent is a whole number of units.
        let n = indent.len();
        if n % 4 == 0 && n >= 4 && n != 8 {
            " ".repeat(4)
        } else {
            " ".repeat(2.min(n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_order_and_spans() {
        let src = r#"{"b": 1, "a": [1, 2.50], "c": "x\u0041"}"#;
        let raw = parse_raw(src).unwrap();
        let members = object_members(raw).unwrap();
        let keys: Vec<_> = members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        let a = members[1].1;
        assert_eq!(&src[span_of(src, a.get())], "[1, 2.50]");
        let elems = array_elements(a).unwrap();
        assert_eq!(elems[1].get(), "2.50");
    }

    #[test]
    fn array_layout_round_trips() {
        let src = "[\n  {\"a\": 1},\n  {\"b\": 2}\n]";
        let raw = parse_raw(src).unwrap();
        let spans: Vec<_> = array_elements(raw)
            .unwrap()
            .iter()
            .map(|e| span_of(src, e.get()))
            .collect();
        let layout = ArrayLayout::of(src, &spans);
        let again = layout.render(spans.iter().map(|s| &src[s.clone()]));
        assert_eq!(again, src);
        assert_eq!(layout.indent(), Some("  "));
        assert_eq!(layout.render::<&str>([]), "[]");
    }

    /// The line of every offset of `text` and a few past its end, as [`LineIndex`] gives
    /// them, against counting newlines from the start.
    fn assert_lines(text: &str) {
        let idx = LineIndex::new(text);
        let mut line = 1;
        for offset in 0..text.len() + 3 {
            assert_eq!(idx.line_of(offset), line, "offset {offset} of {text:?}");
            line += usize::from(text.as_bytes().get(offset) == Some(&b'\n'));
        }
    }

    #[test]
    fn line_index() {
        let idx = LineIndex::new("a\nbb\n\nc");
        assert_eq!(idx.line_of(0), 1);
        assert_eq!(idx.line_of(1), 1, "a newline is on the line it ends");
        assert_eq!(idx.line_of(2), 2);
        assert_eq!(idx.line_of(5), 3);
        assert_eq!(idx.line_of(6), 4);
        assert_eq!(idx.line_of(7), 4, "the end");
        assert_eq!(idx.line_of(100), 4, "past the end");
        for text in ["", "\n", "x", "x\n", "\n\n", "\r\n\r\n"] {
            assert_lines(text);
        }
    }

    #[test]
    fn line_index_without_newlines() {
        let one_line = "x".repeat(3 * LINE_CHUNK + 7);
        let idx = LineIndex::new(&one_line);
        assert_eq!(idx.line_of(0), 1);
        assert_eq!(idx.line_of(2 * LINE_CHUNK + 5), 1);
        assert_eq!(idx.line_of(one_line.len()), 1);
        assert_lines(&one_line);
        assert_lines(&"x".repeat(2 * LINE_CHUNK));
    }

    #[test]
    fn line_index_with_one_newline_at_and_around_chunk_ends() {
        for at in [
            0,
            1,
            LINE_CHUNK - 2,
            LINE_CHUNK - 1,
            LINE_CHUNK,
            LINE_CHUNK + 1,
            2 * LINE_CHUNK - 1,
        ] {
            let mut text = "x".repeat(2 * LINE_CHUNK);
            text.replace_range(at..at + 1, "\n");
            let idx = LineIndex::new(&text);
            assert_eq!(idx.line_of(at), 1, "the newline at {at}");
            assert_eq!(idx.line_of(at + 1), 2, "after the newline at {at}");
            assert_lines(&text);
        }
    }

    #[test]
    fn line_index_with_many_newlines() {
        // Short lines, long lines, blank lines and CRLF, across many chunks.
        let text: String = (0..400)
            .map(|i| match i % 5 {
                0 => "\n".to_string(),
                1 => format!("{}\r\n", "y".repeat(i)),
                _ => format!("{}\n", "x".repeat(i % 4)),
            })
            .collect();
        assert!(text.len() > 4 * LINE_CHUNK);
        assert_lines(&text);
        let idx = LineIndex::new(&text);
        assert_eq!(idx.line_of(text.len()), 401);
    }
}
