//! Reading a value ctxc must interpret, when serde_json refuses text that is still valid JSON
//! syntax: a lone surrogate escape (`"\ud800"`, which Node writes for broken strings), a
//! number out of `f64` range (`1e400`), nesting deeper than serde_json's recursion limit.
//!
//! Such content passes through byte-for-byte (the output is spliced from the source text); only
//! the copy read for interpretation is mended: each offending escape, number or too-deep value
//! becomes U+FFFD, which is what gets counted in its place. The scan is iterative, so no input
//! can overflow the stack here, and a mended value is never deeper than [`MAX_DEPTH`], so
//! nothing that walks it recursively can either.

use serde_json::Value;
use serde_json::value::RawValue;

/// Containers nested deeper than this are read as a U+FFFD string: below serde_json's
/// recursion limit (128), far above anything a transcript format nests (about 10 levels).
pub const MAX_DEPTH: usize = 100;

/// The JSON text written in place of whatever had to be mended.
const REPLACEMENT: &str = "\"\\ufffd\"";

/// From this size on, a value is read container by container with its long strings decoded
/// straight into their own buffer: serde_json decodes an escaped string through a scratch
/// buffer that grows to up to twice its size and then copies it, which made reading one huge
/// tool output cost three times its size.
const LARGE: usize = 1 << 20;

/// How deep [`large`] follows containers that are themselves large: a record holds its long
/// strings at most 6 levels down (Claude Code: `message.content[i].content[j].text`). Each
/// level parses its text again, so a megabyte nested a million deep was parsed once a level,
/// one stack frame each, until the stack overflowed. Deeper, the whole-text path reads the
/// value (and mends it past [`MAX_DEPTH`]).
const LARGE_NESTING: usize = 8;

/// Parses `text` into a `Value`, mending what serde_json refuses (see the module doc). Errors
/// are serde_json's own for text that is not JSON at all.
pub fn value(text: &str) -> serde_json::Result<Value> {
    if let Some(value) = large_value(text) {
        return Ok(value);
    }
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(e) => {
            let mended = mend(text);
            serde_json::from_str(&mended).map_err(|_| e)
        }
    }
}

/// `text` read as serde_json reads it, or `None` where [`value`] would have to mend it.
pub fn strict(text: &str) -> Option<Value> {
    large_value(text).or_else(|| serde_json::from_str(text).ok())
}

/// A text of [`LARGE`] bytes or more read container by container, when nothing needs mending.
fn large_value(text: &str) -> Option<Value> {
    if text.len() < LARGE {
        return None;
    }
    super::parse_raw(text).ok().and_then(|raw| large(raw, 0))
}

/// A large value, `depth` containers down, read as serde_json would read it; `None` when some
/// part needs mending or it nests large containers deeper than [`LARGE_NESTING`], left to
/// the whole-text path.
fn large(raw: &RawValue, depth: usize) -> Option<Value> {
    let text = raw.get();
    if depth > LARGE_NESTING {
        return None;
    }
    if text.len() < LARGE {
        return serde_json::from_str(text).ok();
    }
    if let Some(members) = super::object_members(raw) {
        let mut map = serde_json::Map::with_capacity(members.len());
        for (key, member) in members {
            // Inserted in order, a repeated key replacing the earlier value, as serde_json does.
            map.insert(key, large(member, depth + 1)?);
        }
        return Some(Value::Object(map));
    }
    if let Some(elements) = super::array_elements(raw) {
        let elements: Option<Vec<Value>> =
            elements.into_iter().map(|e| large(e, depth + 1)).collect();
        return elements.map(Value::Array);
    }
    if text.starts_with('"') {
        return unescape(text).map(Value::String);
    }
    serde_json::from_str(text).ok()
}

/// The text of a JSON string literal, decoded into a buffer of the literal's size (a decoded
/// string is never longer); `None` for anything serde_json might read otherwise or refuse
/// (a lone surrogate, an unescaped control character).
fn unescape(literal: &str) -> Option<String> {
    let body = literal.strip_prefix('"')?.strip_suffix('"')?;
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    while let Some(k) = b[at..]
        .iter()
        .position(|&c| c == b'\\' || c == b'"' || c < 0x20)
    {
        let i = at + k;
        out.push_str(&body[at..i]);
        if b[i] != b'\\' {
            return None;
        }
        let (c, len) = match *b.get(i + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => match hex4(b, i + 2)? {
                high @ 0xD800..0xDC00 => {
                    if b.get(i + 6..i + 8)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(b, i + 8).filter(|u| (0xDC00..0xE000).contains(u))?;
                    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    (char::from_u32(code)?, 12)
                }
                0xDC00..0xE000 => return None,
                unit => (char::from_u32(unit)?, 6),
            },
            _ => return None,
        };
        out.push(c);
        at = i + len;
    }
    out.push_str(&body[at..]);
    Some(out)
}

/// `text` with lone surrogate escapes, out-of-range numbers and too-deep values replaced.
pub fn mend(text: &str) -> String {
    let b = text.as_bytes();
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = string_end(b, i, &mut edits),
            b'[' | b'{' if depth >= MAX_DEPTH => {
                let end = value_end(b, i);
                edits.push((i..end, REPLACEMENT));
                i = end;
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(b, i);
                if text[i..end].parse::<f64>().is_ok_and(f64::is_infinite) {
                    edits.push((i..end, REPLACEMENT));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, with) in edits {
        out.push_str(&text[at..span.start]);
        out.push_str(with);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The end of the string opening at `start`, recording lone surrogate escapes on the way.
fn string_end(b: &[u8], start: usize, edits: &mut Vec<(std::ops::Range<usize>, &str)>) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'"' => return i + 1,
            b'\\' if b.get(i + 1) == Some(&b'u') => {
                let unit = hex4(b, i + 2);
                let paired = |at: usize| {
                    b.get(at) == Some(&b'\\')
                        && b.get(at + 1) == Some(&b'u')
                        && hex4(b, at + 2).is_some_and(|u| (0xDC00..0xE000).contains(&u))
                };
                match unit {
                    Some(0xD800..0xDC00) if paired(i + 6) => i += 12,
                    Some(0xD800..0xE000) => {
                        edits.push((i..i + 6, "\\ufffd"));
                        i += 6;
                    }
                    _ => i += 2,
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    b.len()
}

/// The four hex digits at `at` (digits only: `from_str_radix` alone would take a sign).
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

fn number_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
        i += 1;
    }
    i
}

/// The end of the array or object opening at `start` (strings skipped, so their brackets do
/// not count).
fn value_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    let mut ignored = Vec::new();
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i, &mut ignored);
                ignored.clear();
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_values_are_read_as_serde_reads_them() {
        let text = r#"{"a": [1, 2.5, "x\u00e9\ud83d\ude00"], "b": null}"#;
        assert_eq!(
            value(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let v = value(r#"{"t": "a\ud800b\udc00c", "ok": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(v["t"], "a\u{fffd}b\u{fffd}c");
        assert_eq!(v["ok"], "\u{1f600}");
    }

    #[test]
    fn numbers_out_of_range_become_replacement_characters() {
        let v = value(r#"{"n": 1e400, "m": -1E+999, "k": 12}"#).unwrap();
        assert_eq!(v["n"], "\u{fffd}");
        assert_eq!(v["m"], "\u{fffd}");
        assert_eq!(v["k"], 12);
    }

    #[test]
    fn too_deep_values_are_cut_without_recursion() {
        let deep = format!("{}{}", "[".repeat(30_000), "]".repeat(30_000));
        let text = format!(r#"{{"role": "user", "content": "hi", "extra": {deep}, "s": "]["}}"#);
        let v = value(&text).unwrap();
        assert_eq!(v["content"], "hi");
        assert_eq!(v["s"], "][");
        let mut at = &v["extra"];
        let mut levels = 1;
        while let Some(inner) = at.as_array().and_then(|a| a.first()) {
            at = inner;
            levels += 1;
        }
        assert_eq!(at, "\u{fffd}");
        assert_eq!(levels, MAX_DEPTH);
    }

    /// Nesting levels of the container holding value `v`'s `key`, followed down first elements
    /// and members.
    fn levels(v: &Value) -> (usize, &Value) {
        let mut at = v;
        let mut levels = 0;
        loop {
            let inner = match at {
                Value::Array(a) => a.first(),
                Value::Object(o) => o.values().next(),
                _ => None,
            };
            let Some(inner) = inner else {
                return (levels, at);
            };
            at = inner;
            levels += 1;
        }
    }

    #[test]
    fn large_values_nested_a_million_deep_are_mended_without_recursion() {
        for (open, close) in [("[", "]"), (r#"{"a":"#, "}")] {
            let n = 1_000_000;
            let deep = format!("{}1{}", open.repeat(n), close.repeat(n));
            let text = format!(r#"{{"role": "tool", "content": "ok", "extra": {deep}}}"#);
            assert!(text.len() > LARGE);
            let v = value(&text).unwrap();
            assert_eq!(v["content"], "ok");
            let (levels, innermost) = levels(&v["extra"]);
            assert_eq!(
                (levels, innermost),
                (MAX_DEPTH - 1, &Value::from("\u{fffd}"))
            );
        }
    }

    #[test]
    fn large_values_are_read_as_serde_reads_them() {
        let long = "ok: test \\\"passed\\\"\\n\\t\\u00e9\\ud83d\\ude00 \\/ caf\u{e9}\\n"
            .repeat(LARGE / 40 + 1);
        let text = format!(
            r#"{{"role": "tool", "n": [1, 2.5, -3e5], "content": "{long}", "role": "tool2", "list": ["{long}", {{"k": "{long}"}}], "z": null}}"#
        );
        assert!(text.len() > 3 * LARGE);
        let want: Value = serde_json::from_str(&text).unwrap();
        let raw = crate::json::parse_raw(&text).unwrap();
        assert_eq!(
            large(raw, 0).as_ref(),
            Some(&want),
            "read in place, not by serde_json"
        );
        let got = value(&text).unwrap();
        assert_eq!(got, want);
        let keys: Vec<&String> = got.as_object().unwrap().keys().collect();
        let want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
        assert_eq!(keys, want_keys, "member order kept");
        assert!(
            got["content"]
                .as_str()
                .unwrap()
                .contains("\u{1f600} / caf\u{e9}\n")
        );
    }

    #[test]
    fn large_values_needing_mends_take_the_whole_text_path() {
        let long = "x".repeat(LARGE);
        let lone = format!(r#"{{"a": "{long}\ud800", "b": "\ud83d\ude00"}}"#);
        assert_eq!(large(crate::json::parse_raw(&lone).unwrap(), 0), None);
        let v = value(&lone).unwrap();
        assert!(v["a"].as_str().unwrap().ends_with("x\u{fffd}"));
        assert_eq!(v["b"], "\u{1f600}");
        let far = format!(r#"{{"a": "{long}", "n": 1e400}}"#);
        assert_eq!(value(&far).unwrap()["n"], "\u{fffd}");
        assert!(value(&format!(r#"{{"a": "{long}\u+123"}}"#)).is_err());
    }

    #[test]
    fn text_that_is_not_json_still_fails() {
        assert!(value(r#"{"a": }"#).is_err());
        assert!(value(r#"{"a": "\ud800"#).is_err());
    }
}
