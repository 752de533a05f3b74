//! Writing an edited Qwen Code session: kept records byte for byte, `parentUuid`s re-pointed
//! where a parent went, and a ctxc summary written the way the client writes its own.
//!
//! A summary that nothing the client sends precedes becomes a `chat_compression` record, as
//! `/compress` writes one (its `compressedHistory` the summary turn and the model's
//! acknowledgement): the client then sends it, then every kept record after it. A summary after
//! sent records cannot be one (the client would stop sending them), so it is a user message
//! record in the chain instead, which the client sends where it stands.

use super::super::{Conversation, OutItem, SUMMARY_MARKER, Transcript};
use super::{Chain, Links, ORPHAN_REASON};
use crate::json::{quote, replace_member};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::HashSet;

/// The model turn the client's compression writes after its summary.
const ACKNOWLEDGEMENT: &str = "Got it. Thanks for the additional context!";

/// One record of an edited list, without link changes (the list's writer makes them).
pub(super) fn render_alone(t: &Transcript, conv: &Conversation, out: &OutItem) -> String {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    match out {
        OutItem::Keep(i) | OutItem::DropThinking(i) | OutItem::ReplaceArguments(i, _) => {
            raw(*i).to_string()
        }
        OutItem::Strip(i) => crate::transcript::payload::strip(raw(*i), &[]),
        OutItem::ReplaceResult(i, text) => edit(raw(*i), |v| replace_result(v, text)),
        OutItem::ReplaceText(i, text) => edit(raw(*i), |v| replace_text(v, text)),
        OutItem::Summary { text, replaces } => {
            let base = Links::of(raw(replaces.start));
            summary_message(t, conv, replaces.start, &base, None, None, text)
        }
    }
}

/// Appends the edited list, each record ending as its original did.
pub(super) fn render_list(t: &Transcript, conv: &Conversation, items: &[OutItem], out: &mut String) {
    let chain = Chain::from_links(
        conv.items
            .iter()
            .map(|i| Links::of(&t.source[i.span.clone()]))
            .collect(),
    );
    let plan = Plan::of(&chain, conv, items);
    let texts: Vec<Cow<str>> = items
        .iter()
        .enumerate()
        .map(|(k, item)| plan.render(t, conv, &chain, k, item))
        .collect();
    super::super::render_layout(t, conv, items, texts.iter(), out);
}

/// What the writer settles before rendering.
struct Plan {
    /// For each original record, the output position standing for it, if any.
    stands: Vec<Option<usize>>,
    /// Each output position's uuid (a kept record's own; a summary's new one).
    ids: Vec<Option<String>>,
    /// Whether each output position is a summary written as a `chat_compression` record.
    compression: Vec<bool>,
    /// The client's own estimate of what it sent before (chars / 4 of the sent records).
    tokens_before: u64,
}

impl Plan {
    fn of(chain: &Chain, conv: &Conversation, items: &[OutItem]) -> Plan {
        let mut stands = vec![None; conv.items.len()];
        for (k, item) in items.iter().enumerate() {
            for i in item.originals() {
                stands[i] = Some(k);
            }
        }
        let mut taken: HashSet<String> = chain.links.iter().filter_map(|l| l.uuid.clone()).collect();
        let ids = items
            .iter()
            .map(|item| match item {
                OutItem::Summary { replaces, .. } => Some(new_uuid(&chain.links[replaces.clone()], &mut taken)),
                other => other.kept().and_then(|i| chain.links[i].uuid.clone()),
            })
            .collect();
        let mut sent_before = false;
        let compression = items
            .iter()
            .map(|item| {
                let summary = matches!(item, OutItem::Summary { .. });
                let is = summary && !sent_before;
                sent_before |= summary || item.kept().is_some_and(|i| conv.items[i].in_context);
                is
            })
            .collect();
        let tokens_before = conv
            .items
            .iter()
            .filter(|i| i.in_context)
            .map(|i| i.span.len() as u64)
            .sum::<u64>()
            / 4;
        Plan {
            stands,
            ids,
            compression,
            tokens_before,
        }
    }

    /// The uuid of the nearest record above original `i` that the output keeps, other than
    /// output position `own`.
    fn parent_uuid(&self, chain: &Chain, i: usize, own: usize) -> Option<String> {
        let mut seen = HashSet::new();
        let mut at = chain.parent[i];
        while let Some(p) = at {
            if !seen.insert(p) {
                return None;
            }
            match self.stands[p] {
                Some(k) if k != own => return self.ids[k].clone(),
                _ => at = chain.parent[p],
            }
        }
        None
    }

    fn render<'t>(
        &self,
        t: &'t Transcript,
        conv: &Conversation,
        chain: &Chain,
        k: usize,
        item: &OutItem,
    ) -> Cow<'t, str> {
        let raw = |i: usize| &t.source[conv.items[i].span.clone()];
        if let OutItem::Summary { text, replaces } = item {
            let base = &chain.links[replaces.start];
            let parent = self.parent_uuid(chain, replaces.start, k);
            let record = if self.compression[k] {
                self.compression_record(t, conv, replaces.start, base, self.ids[k].clone(), parent, text)
            } else {
                summary_message(t, conv, replaces.start, base, self.ids[k].clone(), parent, text)
            };
            return Cow::Owned(record);
        }
        let Some(i) = item.kept() else {
            return Cow::Borrowed("");
        };
        let mut text = match item {
            OutItem::Keep(_) | OutItem::DropThinking(_) => Cow::Borrowed(raw(i)),
            other => Cow::Owned(render_alone(t, conv, other)),
        };
        let links = &chain.links[i];
        if links.uuid.is_some() {
            let parent = self.parent_uuid(chain, i, k);
            // A parent the file never had stays as it was (the client stops there either way).
            let known = links.parent_uuid.is_none() || chain.parent[i].is_some();
            if known && parent != links.parent_uuid {
                let value = parent.as_deref().map_or("null".to_string(), quote);
                if let Some(relinked) = replace_member(&text, "parentUuid", &value) {
                    text = Cow::Owned(relinked);
                }
            }
        }
        text
    }

    /// The `chat_compression` record the client's `/compress` writes, member for member.
    #[allow(clippy::too_many_arguments)]
    fn compression_record(
        &self,
        t: &Transcript,
        conv: &Conversation,
        at: usize,
        base: &Links,
        uuid: Option<String>,
        parent: Option<String>,
        text: &str,
    ) -> String {
        let summary = format!("{SUMMARY_MARKER}\n{text}");
        let new_tokens = (summary.len() + ACKNOWLEDGEMENT.len()) as u64 / 4;
        let mut record = head(t, conv, at, base, uuid, parent, "system");
        record.insert("subtype".into(), "chat_compression".into());
        record.insert(
            "systemPayload".into(),
            json!({
                "info": {
                    "originalTokenCount": self.tokens_before,
                    "newTokenCount": new_tokens,
                    "newTokenCountIsEstimated": true,
                    "compressionStatus": 1,
                    "triggerReason": "manual",
                    "originalTokenCountIsEstimated": true
                },
                "compressedHistory": [
                    {"role": "user", "parts": [{"text": summary}]},
                    {"role": "model", "parts": [{"text": ACKNOWLEDGEMENT}]}
                ],
                "completedToolCallIds": []
            }),
        );
        Value::Object(record).to_string()
    }
}

/// The members every record starts with, as the client writes them: identity, then the
/// replaced record's session, time, cwd and version.
fn head(
    t: &Transcript,
    conv: &Conversation,
    at: usize,
    base: &Links,
    uuid: Option<String>,
    parent: Option<String>,
    kind: &str,
) -> Map<String, Value> {
    let original: Value = serde_json::from_str(&t.source[conv.items[at].span.clone()]).unwrap_or_default();
    let session = base.session_id.clone().or_else(|| {
        let first = conv.items.first()?;
        Links::of(&t.source[first.span.clone()]).session_id
    });
    let mut record = Map::new();
    record.insert("uuid".into(), uuid.map_or(Value::Null, Value::String));
    record.insert("parentUuid".into(), parent.map_or(Value::Null, Value::String));
    record.insert("sessionId".into(), session.map_or(Value::Null, Value::String));
    if let Some(ts) = &base.timestamp {
        record.insert("timestamp".into(), ts.clone().into());
    }
    record.insert("type".into(), kind.into());
    for key in ["cwd", "version"] {
        if let Some(v) = original.get(key) {
            record.insert(key.into(), v.clone());
        }
    }
    record
}

/// A ctxc summary as a user message record: the client sends it where it stands.
fn summary_message(
    t: &Transcript,
    conv: &Conversation,
    at: usize,
    base: &Links,
    uuid: Option<String>,
    parent: Option<String>,
    text: &str,
) -> String {
    let mut record = head(t, conv, at, base, uuid, parent, "user");
    record.insert(
        "message".into(),
        json!({"role": "user", "parts": [{"text": format!("{SUMMARY_MARKER}\n{text}")}]}),
    );
    Value::Object(record).to_string()
}

/// A v4-shaped uuid derived from the replaced records' uuids (so output never depends on
/// chance) and unused in the file.
fn new_uuid(replaced: &[Links], taken: &mut HashSet<String>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for id in replaced.iter().filter_map(|l| l.uuid.as_deref()) {
        for b in id.bytes().chain([0]) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    loop {
        let low = hash.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            (hash >> 32) as u32,
            (hash >> 16) as u16,
            hash as u16 & 0xfff,
            (low >> 48) as u16 & 0xfff,
            low & 0xffff_ffff_ffff
        );
        if taken.insert(id.clone()) {
            return id;
        }
        hash = hash.wrapping_mul(0x100_0000_01b3).wrapping_add(1);
    }
}

/// `record` edited as a value (an edited record is written anew, its members in order).
fn edit(record: &str, f: impl FnOnce(&mut Value) -> bool) -> String {
    let Ok(mut v) = serde_json::from_str::<Value>(record) else {
        return record.to_string();
    };
    if f(&mut v) { v.to_string() } else { record.to_string() }
}

/// A tool result's responses replaced: the first takes `text` as its output, others go.
fn replace_result(v: &mut Value, text: &str) -> bool {
    let Some(parts) = v["message"]["parts"].as_array_mut() else {
        return false;
    };
    let Some(at) = parts.iter().position(|p| p.get("functionResponse").is_some()) else {
        return false;
    };
    parts[at]["functionResponse"]["response"] = json!({ "output": text });
    let mut seen = 0;
    parts.retain(|p| {
        let response = p.get("functionResponse").is_some();
        seen += usize::from(response);
        !response || seen == 1
    });
    true
}

/// A message's text replaced: the first text part takes it, other text parts go (thoughts,
/// calls, responses and media stay); a compression record's summary turn likewise.
fn replace_text(v: &mut Value, text: &str) -> bool {
    let parts = if v["message"]["parts"].is_array() {
        v["message"]["parts"].as_array_mut()
    } else {
        v["systemPayload"]["compressedHistory"][0]["parts"].as_array_mut()
    };
    let Some(parts) = parts else {
        return false;
    };
    let is_text = |p: &Value| p["text"].is_string() && p["thought"] != true;
    let Some(at) = parts.iter().position(is_text) else {
        parts.insert(0, json!({ "text": text }));
        return true;
    };
    parts[at]["text"] = text.into();
    let mut k = 0;
    parts.retain(|p| {
        let keep = !is_text(p) || k == at;
        k += 1;
        keep
    });
    true
}

/// The `tool_result` record the client's history repair amounts to for call `id` (`name`)
/// of the assistant record `caller`, answering it with [`ORPHAN_REASON`]: chained under
/// `parent`, with the uuid `uuid`.
pub fn orphan_result(caller: &Value, uuid: &str, parent: &str, id: &str, name: &str) -> String {
    let mut record = Map::new();
    record.insert("uuid".into(), uuid.into());
    record.insert("parentUuid".into(), parent.into());
    for key in ["sessionId", "timestamp"] {
        if let Some(v) = caller.get(key) {
            record.insert(key.into(), v.clone());
        }
    }
    record.insert("type".into(), "tool_result".into());
    for key in ["cwd", "version"] {
        if let Some(v) = caller.get(key) {
            record.insert(key.into(), v.clone());
        }
    }
    record.insert(
        "message".into(),
        json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": name, "response": {"error": ORPHAN_REASON}}}]}),
    );
    record.insert(
        "toolCallResult".into(),
        json!({"callId": id, "status": "error", "resultDisplay": ORPHAN_REASON, "error": {"message": ORPHAN_REASON}}),
    );
    Value::Object(record).to_string()
}
