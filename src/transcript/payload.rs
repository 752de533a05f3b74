//! Stored payloads that cost bytes but not context: duplicate copies of tool results and
//! embedded base64 media. `strip-payloads` removes the first and replaces the second with a
//! short text stub; everything else in the record stays byte-for-byte.
//!
//! Media blocks are recognised by shape, whatever the format: Anthropic / Claude Code
//! `{"type": "image" | "document", "source": {"type": "base64", "data": ...}}`, OpenAI
//! `{"type": "image_url", "image_url": {"url": "data:..."}}` and `{"type": "input_image",
//! "image_url": "data:..."}` (Codex, Responses API). A stub is a text block of the same family
//! (`text` or `input_text`), so the message stays valid for the API.

use crate::json::{
    Node, array_elements, member, object_members, parse_raw, quote, span_of, splice,
};
use serde_json::value::RawValue;

/// Embedded media smaller than this stays: small icons cost little and may matter.
pub const MEDIA_STUB_MIN_BYTES: usize = 8 * 1024;

/// Whether `record` holds anything [`strip`] would change.
pub fn has_payload(record: &str, copies: &[&str]) -> bool {
    let Ok(raw) = parse_raw(record) else {
        return false;
    };
    let has_copy = copies.iter().any(|key| member(raw, key).is_some());
    has_copy || (might_hold_media(record) && !media_edits(record, raw).is_empty())
}

/// Whether `record` has one of the top-level members `copies`.
pub fn has_copy(record: &str, copies: &[&str]) -> bool {
    !copies.is_empty()
        && parse_raw(record).is_ok_and(|raw| copies.iter().any(|key| member(raw, key).is_some()))
}

/// Whether `record` embeds base64 media that [`strip`] would replace.
pub fn has_large_media(record: &str) -> bool {
    might_hold_media(record)
        && parse_raw(record).is_ok_and(|raw| !media_edits(record, raw).is_empty())
}

/// The texts of the stubs [`strip`] would write into `record` (none inside removed copies).
pub fn stubs(record: &str, copies: &[&str]) -> Vec<String> {
    if !might_hold_media(record) {
        return Vec::new();
    }
    let Ok(raw) = parse_raw(record) else {
        return Vec::new();
    };
    let removed: Vec<std::ops::Range<usize>> = copies
        .iter()
        .filter_map(|key| member(raw, key))
        .map(|v| span_of(record, v.get()))
        .collect();
    media_edits(record, raw)
        .into_iter()
        .filter(|(span, _)| {
            !removed
                .iter()
                .any(|r| r.start <= span.start && span.end <= r.end)
        })
        .filter_map(|(_, stub)| {
            let value: serde_json::Value = serde_json::from_str(&stub).ok()?;
            Some(value.get("text")?.as_str()?.to_string())
        })
        .collect()
}

/// `record` with the top-level members `copies` removed and every base64 media block of at
/// least [`MEDIA_STUB_MIN_BYTES`] replaced by a text stub.
pub fn strip(record: &str, copies: &[&str]) -> String {
    // One scan checks the record and finds its members (a record stripped is mostly the copy
    // it loses: scanning it twice cost half of writing a stripped Claude Code session).
    let Ok(node) = Node::parse(record) else {
        return record.to_string();
    };
    let mut edits = match might_hold_media(record).then(|| parse_raw(record)) {
        Some(Ok(raw)) => media_edits(record, raw),
        _ => Vec::new(),
    };
    if let Some(members) = node.members() {
        let spans: Vec<std::ops::Range<usize>> = members
            .iter()
            .map(|(_, v)| span_of(record, v.get()))
            .collect();
        for (j, (key, _)) in members.iter().enumerate() {
            if copies.contains(&key.as_ref()) {
                let removal = member_removal(record, &spans, j);
                // Media inside a removed copy goes with it.
                edits.retain(|(span, _)| span.end <= removal.start || span.start >= removal.end);
                edits.push((removal, String::new()));
            }
        }
    }
    edits.sort_by_key(|(span, _)| span.start);
    splice(record, &edits)
}

/// The bytes to cut to remove member `j` of an object whose members' value spans are `spans`:
/// from the end of the previous value (taking its comma), or for the first member from its
/// key up to the next member's key.
pub(super) fn member_removal(
    record: &str,
    spans: &[std::ops::Range<usize>],
    j: usize,
) -> std::ops::Range<usize> {
    let value = &spans[j];
    if j > 0 {
        return spans[j - 1].end..value.end;
    }
    let key_start = record.find('"').unwrap_or(value.start);
    match spans.get(1) {
        Some(next) => {
            let comma = value.end + record[value.end..].find(',').unwrap_or(0);
            let next_key = comma + record[comma..next.start].find('"').unwrap_or(0);
            key_start..next_key
        }
        None => key_start..value.end,
    }
}

/// Whether `record` is large enough and says enough to hold media [`strip`] would stub.
pub(super) fn might_hold_media(record: &str) -> bool {
    record.len() >= MEDIA_STUB_MIN_BYTES && (record.contains("base64") || record.contains("data:"))
}

/// Replacements for every large media block in `raw` (a value inside `record`).
fn media_edits(record: &str, raw: &RawValue) -> Vec<(std::ops::Range<usize>, String)> {
    let mut edits = Vec::new();
    collect_media(record, raw, &mut edits, MEDIA_DEPTH);
    edits
}

/// How deep media blocks are looked for: real ones sit 2–6 levels down, and the bound keeps a
/// hostile record nested thousands deep from overflowing the stack.
const MEDIA_DEPTH: usize = 32;

fn collect_media(
    record: &str,
    raw: &RawValue,
    edits: &mut Vec<(std::ops::Range<usize>, String)>,
    depth: usize,
) {
    if raw.get().len() < MEDIA_STUB_MIN_BYTES || depth == 0 {
        return;
    }
    if let Some(elements) = array_elements(raw) {
        for element in elements {
            match media_stub(element) {
                Some(stub) => edits.push((span_of(record, element.get()), stub)),
                None => collect_media(record, element, edits, depth - 1),
            }
        }
    } else if let Some(members) = object_members(raw) {
        for (_, value) in members {
            collect_media(record, value, edits, depth - 1);
        }
    }
}

/// The stub for a media block, if `block` is one and large enough.
fn media_stub(block: &RawValue) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(block.get()).ok()?;
    let kind = value.get("type")?.as_str()?;
    let (media_type, data, text_type) = match kind {
        "image" | "document" => {
            let source = value.get("source")?;
            if source.get("type")?.as_str()? != "base64" {
                return None;
            }
            let media_type = source.get("media_type").and_then(|m| m.as_str());
            (
                media_type.unwrap_or(kind).to_string(),
                source.get("data")?.as_str()?.to_string(),
                "text",
            )
        }
        "image_url" => {
            let url = value.get("image_url")?;
            let url = url.get("url").unwrap_or(url).as_str()?;
            let (media_type, data) = data_url(url)?;
            (media_type, data.to_string(), "text")
        }
        "input_image" => {
            let (media_type, data) = data_url(value.get("image_url")?.as_str()?)?;
            (media_type, data.to_string(), "input_text")
        }
        _ => return None,
    };
    if data.len() < MEDIA_STUB_MIN_BYTES {
        return None;
    }
    let hash = xxhash_rust::xxh3::xxh3_64(data.as_bytes());
    let text = format!(
        "[ctxc: {media_type} removed, {} bytes of base64, xxh3 {hash:016x}]",
        crate::human::thousands(data.len() as u64)
    );
    Some(format!(
        "{{\"type\":{},\"text\":{}}}",
        quote(text_type),
        quote(&text)
    ))
}

/// `data:image/png;base64,AAAA` → (`image/png`, `AAAA`).
fn data_url(url: &str) -> Option<(String, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    let media_type = header.split(';').next().filter(|m| !m.is_empty());
    Some((media_type.unwrap_or("media").to_string(), data))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(n: usize) -> String {
        "QUJD".repeat(n / 4)
    }

    #[test]
    fn copies_are_removed_wherever_they_sit() {
        let copies = ["toolUseResult"];
        for (record, want) in [
            (
                r#"{"a":1,"toolUseResult":{"x":[1]},"b":2}"#,
                r#"{"a":1,"b":2}"#,
            ),
            (r#"{"toolUseResult":"x", "b":2}"#, r#"{"b":2}"#),
            (r#"{"a":1, "toolUseResult":"x"}"#, r#"{"a":1}"#),
            (r#"{"toolUseResult":"x"}"#, r#"{}"#),
            (r#"{"a":"toolUseResult"}"#, r#"{"a":"toolUseResult"}"#),
        ] {
            assert_eq!(strip(record, &copies), want, "{record}");
            assert!(parse_raw(&strip(record, &copies)).is_ok());
            assert_eq!(has_payload(record, &copies), record != want, "{record}");
        }
    }

    #[test]
    fn large_media_becomes_a_stub_of_the_same_family() {
        let data = blob(20_000);
        let anthropic = format!(
            r#"{{"role":"user","content":[{{"type":"text","text":"see"}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{data}"}}}}]}}"#
        );
        let out = strip(&anthropic, &[]);
        assert!(out.starts_with(r#"{"role":"user","content":[{"type":"text","text":"see"},{"type":"text","text":"[ctxc: image/png removed, 20,000 bytes of base64, xxh3 "#), "{out}");
        assert!(out.len() < 200);
        let openai = format!(
            r#"{{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"data:image/jpeg;base64,{data}"}}}}]}}"#
        );
        assert!(
            strip(&openai, &[]).contains(r#"{"type":"text","text":"[ctxc: image/jpeg removed"#)
        );
        let codex = format!(
            r#"{{"type":"message","content":[{{"type":"input_image","image_url":"data:image/png;base64,{data}"}}]}}"#
        );
        assert!(
            strip(&codex, &[]).contains(r#"{"type":"input_text","text":"[ctxc: image/png removed"#)
        );
        // Nested in a tool result, and a small image left alone.
        let small = blob(400);
        let nested = format!(
            r#"{{"content":[{{"type":"tool_result","content":[{{"type":"image","source":{{"type":"base64","media_type":"image/gif","data":"{data}"}}}},{{"type":"image","source":{{"type":"base64","media_type":"image/gif","data":"{small}"}}}}]}}]}}"#
        );
        let out = strip(&nested, &[]);
        assert!(
            out.contains("image/gif removed") && out.contains(&small),
            "{out}"
        );
        assert!(has_payload(&nested, &[]));
        assert!(!has_payload(&format!(r#"{{"text":"{small}"}}"#), &[]));
    }
}
