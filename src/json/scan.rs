//! Splitting JSON that is known to be valid, without checking it again.
//!
//! Every [`Node`](super::Node) holds text that a parse already checked (a document, a JSONL
//! line, a raw value inside one, or a byte-for-byte copy of one). Splitting such a container
//! with serde_json checks it again, byte by byte, string by string: most of what reading a
//! transcript cost after decoding its messages was splitting the containers above them (runs,
//! message lists, messages) once each. Here a container's parts are found by skipping its
//! strings with SIMD search for the next quote or backslash, and its nested containers by
//! counting brackets outside strings. Anything unexpected gives up (`None`), and the caller
//! splits with serde_json as before.

use std::borrow::Cow;

/// The elements of array `text` (valid JSON, no whitespace around it), as the texts serde_json
/// reads as their raw values; `None` when `text` is not an array or does not scan as one.
pub(super) fn elements(text: &str) -> Option<Vec<&str>> {
    let mut scan = Scan::open(text, b'[')?;
    let mut elements = Vec::new();
    if scan.close(b']')? {
        return Some(elements);
    }
    loop {
        elements.push(scan.value()?);
        if scan.next(b']')? {
            return Some(elements);
        }
    }
}

/// The members of object `text` (valid JSON, no whitespace around it) in their written order,
/// keys unescaped (borrowed when they hold no escape), values as the texts serde_json reads as
/// their raw values; `None` when `text` is not an object or does not scan as one.
pub(super) fn members(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    let mut scan = Scan::open(text, b'{')?;
    let mut members = Vec::new();
    if scan.close(b'}')? {
        return Some(members);
    }
    loop {
        let key = scan.key()?;
        scan.skip_whitespace();
        if scan.byte()? != b':' {
            return None;
        }
        scan.at += 1;
        scan.skip_whitespace();
        members.push((key, scan.value()?));
        if scan.next(b'}')? {
            return Some(members);
        }
    }
}

/// A position in a container's text.
struct Scan<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scan<'a> {
    /// After `open`, the container's first byte, and the whitespace after it.
    fn open(text: &'a str, open: u8) -> Option<Self> {
        (text.as_bytes().first() == Some(&open)).then_some(())?;
        let mut scan = Scan { text, at: 1 };
        scan.skip_whitespace();
        Some(scan)
    }

    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Whether the container closes here, with `close` as its last byte.
    fn close(&self, close: u8) -> Option<bool> {
        let closes = self.byte()? == close;
        Some(closes && self.at + 1 == self.text.len())
    }

    /// Past the comma and whitespace to the next part (`false`), or at the container's close
    /// (`true`).
    fn next(&mut self, close: u8) -> Option<bool> {
        self.skip_whitespace();
        match self.byte()? {
            b',' => {
                self.at += 1;
                self.skip_whitespace();
                Some(false)
            }
            _ => self.close(close)?.then_some(true),
        }
    }

    fn skip_whitespace(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// The value starting here, and past it.
    fn value(&mut self) -> Option<&'a str> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        self.at = match *bytes.get(start)? {
            b'"' => string_end(bytes, start)?,
            b'[' | b'{' => container_end(bytes, start)?,
            _ => scalar_end(bytes, start),
        };
        (self.at > start).then(|| &self.text[start..self.at])
    }

    /// The object key starting here, unescaped, and past it.
    fn key(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        if self.byte()? != b'"' {
            return None;
        }
        self.at = string_end(self.text.as_bytes(), start)?;
        let quoted = &self.text[start..self.at];
        let inner = &quoted[1..quoted.len() - 1];
        if inner.contains('\\') {
            serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(inner))
        }
    }
}

/// Past the string whose opening quote is at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', &bytes[at..])?;
        match bytes[at] {
            b'\\' => at += 2,
            _ => return Some(at + 1),
        }
        if at > bytes.len() {
            return None;
        }
    }
}

/// Past the array or object that opens at `start`.
fn container_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = start;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                at = string_end(bytes, at)?;
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// Past the number, `true`, `false` or `null` starting at `start`.
fn scalar_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start;
    while bytes
        .get(at)
        .is_some_and(|b| !matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// A container's parts: its raw elements, or its members.
    type Split<'a> = (Option<Vec<&'a str>>, Option<Vec<(String, &'a str)>>);

    /// What serde_json finds in `text`.
    fn by_serde(text: &str) -> Split<'_> {
        let elements = serde_json::from_str::<Vec<&RawValue>>(text)
            .ok()
            .map(|e| e.into_iter().map(RawValue::get).collect());
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let members = crate::json::object_members(raw)
            .map(|m| m.into_iter().map(|(k, v)| (k, v.get())).collect());
        (elements, members)
    }

    /// What the scan finds in `text`.
    fn by_scan(text: &str) -> Split<'_> {
        let members =
            members(text).map(|m| m.into_iter().map(|(k, v)| (k.into_owned(), v)).collect());
        (elements(text), members)
    }

    #[test]
    fn splits_as_serde_json_does() {
        for text in [
            "[]",
            "[ ]",
            "{}",
            "{ \n}",
            "[1,2.5e-3 , -0,true,false,null]",
            "[\"a\\\"b\\\\\", \"\\\\\", \"\", {\"k\": [1, {\"x\": \"]}\"}]}, [[]]]",
            "{\"a\": 1, \"a\": [2], \"b\\u0041\\n\": {\"c\": \"\\\"}\"}, \"\": null}",
            "{\n  \"role\": \"user\",\n  \"content\": [{\"type\": \"text\", \"text\": \"é ✓ \\ud83d\\ude00\"}]\n}",
            "\"a string\"",
            "12",
            "true",
        ] {
            assert_eq!(by_scan(text), by_serde(text), "{text}");
        }
    }

    #[test]
    fn splits_every_corpus_container_as_serde_json_does() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus");
        let mut containers = 0;
        for entry in walkdir::WalkDir::new(corpus) {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy();
            if !(name.ends_with(".json") || name.ends_with(".jsonl") || name.ends_with(".traj")) {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let values: Vec<&str> = match serde_json::from_str::<&RawValue>(&text) {
                Ok(raw) => vec![raw.get()],
                Err(_) => text.lines().filter(|l| !l.trim().is_empty()).collect(),
            };
            let mut todo = values;
            while let Some(value) = todo.pop() {
                let value = value.trim();
                if serde_json::from_str::<&RawValue>(value).is_err() {
                    continue;
                }
                let (elements, members) = by_scan(value);
                assert_eq!(
                    (elements.clone(), members.clone()),
                    by_serde(value),
                    "{value}"
                );
                containers += usize::from(elements.is_some() || members.is_some());
                todo.extend(elements.into_iter().flatten());
                todo.extend(members.into_iter().flatten().map(|(_, v)| v));
            }
        }
        assert!(containers > 10_000, "{containers} containers");
    }
}
