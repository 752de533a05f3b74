//! Writing an edited session: each kept record byte-for-byte or with only the edited value
//! spliced, summaries as records in the chain, and the fields copied from their neighbours.

use super::*;

/// Every other record kept, with `out` in its place: the context `render` writes one item in.
pub(super) fn plan_around(n: usize, out: &OutItem) -> Vec<OutItem> {
    match out {
        OutItem::Summary { replaces, .. } => {
            let mut plan: Vec<OutItem> = (0..n)
                .filter(|i| !replaces.contains(i))
                .map(OutItem::Keep)
                .collect();
            plan.insert(replaces.start.min(plan.len()), out.clone());
            plan
        }
        OutItem::Keep(i)
        | OutItem::ReplaceResult(i, _)
        | OutItem::ReplaceText(i, _)
        | OutItem::Strip(i)
        | OutItem::DropThinking(i)
        | OutItem::ReplaceArguments(i, _) => (0..n)
            .map(|j| {
                if j == *i {
                    out.clone()
                } else {
                    OutItem::Keep(j)
                }
            })
            .collect(),
    }
}

pub(super) fn render_item<'t>(
    t: &'t Transcript,
    conv: &Conversation,
    chains: &[Cow<Chain>],
    links: &Links,
    at: usize,
    out: &OutItem,
) -> Cow<'t, str> {
    let raw = |i: usize| &t.source[conv.items[i].span.clone()];
    match out {
        OutItem::Keep(i) => links.relink(Cow::Borrowed(raw(*i)), &chains[*i]),
        OutItem::Strip(i) => links.relink(
            Cow::Owned(strip_record(raw(*i), &conv.items[*i])),
            &chains[*i],
        ),
        OutItem::ReplaceResult(i, text) => {
            links.relink(Cow::Owned(replace_result(raw(*i), text)), &chains[*i])
        }
        OutItem::ReplaceText(i, text) => {
            let edited =
                replace_text(raw(*i), text).unwrap_or_else(|| replace_result(raw(*i), text));
            links.relink(Cow::Owned(edited), &chains[*i])
        }
        OutItem::DropThinking(i) => {
            let edited = drop_thinking(raw(*i)).unwrap_or_else(|| raw(*i).to_string());
            links.relink(Cow::Owned(edited), &chains[*i])
        }
        OutItem::ReplaceArguments(i, edits) => {
            let edited =
                replace_arguments(raw(*i), edits).unwrap_or_else(|| raw(*i).to_string());
            links.relink(Cow::Owned(edited), &chains[*i])
        }
        OutItem::Summary { text, replaces } => Cow::Owned(summary_record(
            t,
            conv,
            replaces,
            text,
            &links.summaries[&at],
        )),
    }
}

/// `record`, item `item`, as [`crate::transcript::payload::strip`] strips it: where the read
/// found where its one stored-only copy is and it holds no media to stub, that cut alone.
pub(super) fn strip_record(record: &str, item: &Item) -> String {
    use crate::transcript::payload;
    match &item.copy_cut {
        Some(cut) if !payload::might_hold_media(record) => {
            splice(record, &[(cut.clone(), String::new())])
        }
        _ => payload::strip(record, &COPY_MEMBERS),
    }
}

/// A user record carrying a ctxc summary, linked where the replaced records were.
pub(super) fn summary_record(
    t: &Transcript,
    conv: &Conversation,
    replaces: &Range<usize>,
    text: &str,
    link: &SummaryLink,
) -> String {
    let copied = copied_fields(t, &conv.items[replaces.clone()]);
    let mut record = Map::new();
    let parent = link.parent.clone().map_or(Value::Null, Value::String);
    record.insert("parentUuid".into(), parent);
    for key in CONTEXT_KEYS {
        if let Some(value) = copied.get(key) {
            record.insert(key.into(), value.clone());
        }
    }
    let content = format!("{SUMMARY_MARKER}\n{text}");
    record.insert("type".into(), "user".into());
    record.insert(
        "message".into(),
        serde_json::json!({ "role": "user", "content": content }),
    );
    // Claude Code shows a compact summary as such (collapsed, not as something the user
    // typed) and sends it to the model like any user message.
    record.insert("isCompactSummary".into(), true.into());
    record.insert(CTXC_FLAG.into(), true.into());
    record.insert("uuid".into(), link.uuid.clone().into());
    if let Some(timestamp) = copied.get("timestamp") {
        record.insert("timestamp".into(), timestamp.clone());
    }
    to_string_styled(&Value::Object(record), element_indent(conv))
}

/// Each context field (and `timestamp`) from the first of `items` that has it.
pub(super) fn copied_fields(t: &Transcript, items: &[Item]) -> HashMap<&'static str, Value> {
    let wanted: Vec<&'static str> = CONTEXT_KEYS.into_iter().chain(["timestamp"]).collect();
    let mut found = HashMap::new();
    for item in items {
        let raw = parse_raw(&t.source[item.span.clone()]).ok();
        for (key, value) in raw.and_then(object_members).unwrap_or_default() {
            let Some(&key) = wanted.iter().find(|w| **w == key) else {
                continue;
            };
            if let Ok(value) = serde_json::from_str(value.get()) {
                found.entry(key).or_insert(value);
            }
        }
        if found.len() == wanted.len() {
            break;
        }
    }
    found
}

/// The message content of a record, if it has one.
/// `record` with its message's thinking blocks removed (see [`crate::transcript::anthropic`]).
pub(super) fn drop_thinking(record: &str) -> Option<String> {
    let message = member(parse_raw(record).ok()?, "message")?;
    let edited = crate::transcript::common::drop_thinking(message.get())?;
    replace_member(record, "message", &edited)
}

/// `record` with its `tool_use` blocks' `input` rewritten as `edits` say.
pub(super) fn replace_arguments(record: &str, edits: &[super::super::CallEdit]) -> Option<String> {
    let content = message_content(parse_raw(record).ok()?)?;
    let inputs = super::super::common::block_inputs(content, &["tool_use"])?;
    super::super::common::replace_arguments(record, &inputs, edits)
}

pub(super) fn message_content(record: &RawValue) -> Option<&RawValue> {
    member(member(record, "message")?, "content")
}

pub(super) fn block_type(block: &RawValue) -> Option<String> {
    serde_json::from_str(member(block, "type")?.get()).ok()
}

/// `record` with each `tool_result` block's content and the `toolUseResult` copy replaced by
/// `text`; everything else byte-for-byte.
pub(super) fn replace_result(record: &str, text: &str) -> String {
    // A tree split once, level by level: looking each member up in the raw text scanned the
    // record once per question (six times for a one-block result).
    let Ok(node) = Node::parse(record) else {
        return record.to_string();
    };
    let value = quote(text);
    let blocks = node
        .member("message")
        .and_then(|m| m.member("content"))
        .and_then(Node::elements)
        .unwrap_or_default();
    let mut edits: Vec<(Span, String)> = blocks
        .iter()
        .filter(|b| node_type(b).as_deref() == Some("tool_result"))
        .filter_map(|b| b.member("content"))
        .map(|c| (span_of(record, c.get()), value.clone()))
        .collect();
    if let Some(copy) = node.member("toolUseResult") {
        edits.push((span_of(record, copy.get()), value));
    }
    edits.sort_by_key(|(span, _)| span.start);
    splice(record, &edits)
}

/// The `type` of a content block, as [`block_type`] reads it.
fn node_type(block: &Node) -> Option<String> {
    serde_json::from_str(block.member("type")?.get()).ok()
}

/// `record` with its message text replaced: string content, or the first text block (other
/// text blocks are dropped: the API rejects empty ones). `None` when it has no text.
pub(super) fn replace_text(record: &str, text: &str) -> Option<String> {
    let content = message_content(parse_raw(record).ok()?)?;
    let span = span_of(record, content.get());
    if content.get().starts_with('"') {
        return Some(splice(record, &[(span, quote(text))]));
    }
    let blocks = array_elements(content)?;
    let first_text = blocks
        .iter()
        .position(|b| block_type(b).as_deref() == Some("text"))?;
    let base = span.start;
    let relative: Vec<Span> = blocks
        .iter()
        .map(|b| {
            let s = span_of(record, b.get());
            s.start - base..s.end - base
        })
        .collect();
    let mut written: Vec<Cow<str>> = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.iter().enumerate() {
        if i == first_text {
            written.push(Cow::Owned(replace_member(
                block.get(),
                "text",
                &quote(text),
            )?));
        } else if block_type(block).as_deref() != Some("text") {
            written.push(Cow::Borrowed(block.get()));
        }
    }
    let array =
        ArrayLayout::of(content.get(), &relative).render(written.iter().map(|w| w.as_ref()));
    Some(splice(record, &[(span, array)]))
}
