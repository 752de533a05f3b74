//! Reading a session: where the records are (lines, an export's `loglines`, one record),
//! which reach the model, and each record as the model's items (blocks, usage, results).

use super::*;

/// Where a file keeps its records.
pub(super) enum Container<'d, 'a> {
    /// One record per line.
    Lines(ListLayout),
    /// A JSON array of records: an export's `loglines`, or the whole document.
    Array {
        list: &'d Node<'a>,
        location: &'static str,
    },
    /// One pretty-printed record.
    Single(&'d Node<'a>),
}

/// One stored record: its bytes in the source and its value.
pub(super) struct Record<'d, 'a> {
    pub(super) span: Span,
    pub(super) node: &'d Node<'a>,
}

pub(super) fn records<'d, 'a>(doc: &'d Doc<'a>) -> (Vec<Record<'d, 'a>>, Container<'d, 'a>) {
    let root = match doc {
        Doc::Lines {
            lines,
            newline,
            trailing_newline,
            ..
        } => {
            let records = lines
                .iter()
                .map(|l| Record {
                    span: l.range(),
                    node: &l.node,
                })
                .collect();
            let layout = ListLayout::Lines {
                newline,
                trailing_newline: *trailing_newline,
            };
            return (records, Container::Lines(layout));
        }
        Doc::Json { root, .. } => root,
    };
    let list = match root.member("loglines") {
        Some(list) if list.get().starts_with('[') => Some((list, "/loglines")),
        _ if root.get().starts_with('[') => Some((root, "")),
        _ => None,
    };
    match list {
        Some((list, location)) => {
            let records = list
                .elements()
                .unwrap_or_default()
                .iter()
                .map(|node| Record {
                    span: doc.span_of(node),
                    node,
                })
                .collect();
            (records, Container::Array { list, location })
        }
        None => {
            let record = Record {
                span: doc.span_of(root),
                node: root,
            };
            (vec![record], Container::Single(root))
        }
    }
}

/// Whether a record looks like Claude Code's (`Some(true)`), like another format's
/// (`Some(false)`: a Codex line, an OpenAI message), or says nothing (`None`).
pub(super) fn classify(node: &Node) -> Option<bool> {
    let members = node.members()?;
    let has = |key: &str| members.iter().any(|(k, _)| k == key);
    let kind = members
        .iter()
        .find(|(k, _)| k == "type")
        .and_then(|(_, v)| serde_json::from_str::<String>(v.get()).ok());
    let Some(kind) = kind else {
        // A usage export's record (what ccusage reads): a timestamp and a `message` holding
        // only what the answer cost (`usage`, `model`, `id`; any other keys in `usage`), beside
        // `costUSD`, `version` and `requestId`; its schema also allows a `content` of untyped
        // `{text}` parts, which no Claude Code message has.
        if has("role") {
            return Some(false);
        }
        let message = members
            .iter()
            .find(|(k, _)| k == "message")
            .map(|(_, v)| v);
        let usage_only = message.is_some_and(|m| {
            m.member("usage").is_some_and(|u| u.get().starts_with('{'))
                && m.member("content").is_none_or(is_usage_content)
                && m.member("role").is_none()
        });
        return (usage_only && has("timestamp")).then_some(true);
    };
    // Exports and older or stripped sessions drop the chain fields: a `user` or `assistant`
    // record carrying its `message` (even one holding only `usage`) is still Claude Code's.
    let message = members
        .iter()
        .any(|(k, v)| k == "message" && v.get().starts_with('{'));
    Some(match kind.as_str() {
        "user" | "assistant" => has("uuid") || has("parentUuid") || has("sessionId") || message,
        "system" | "progress" => has("uuid") || has("parentUuid") || has("sessionId"),
        "summary" => has("leafUuid"),
        "file-history-snapshot" => has("messageId") && has("snapshot"),
        "queue-operation" => has("operation"),
        // Claude Code 2.1.330 records each request for replay: its system prompt and tools
        // (`api-request-shape`), each message once (`api-request-blob`), and the request
        // naming them (`api-request`, `api-request-resumed`), all stamped with the session.
        t if REPLAY_TYPES.contains(&t) => has("sessionId"),
        "attachment" => has("uuid") && has("attachment"),
        _ => false,
    })
}

/// A usage export's `message.content` (ccusage's `usageDataSchema`): a list of objects
/// without a `type`, each at most a `text`.
fn is_usage_content(content: &Node) -> bool {
    content.elements().is_some_and(|parts| {
        parts.iter().all(|part| {
            part.members()
                .is_some_and(|members| members.iter().all(|(k, _)| k == "text"))
        })
    })
}

// ----- Reading -----

/// The records' items, and the model that answered last (`message.model` of the last
/// assistant record; `<synthetic>` marks messages Claude Code wrote itself).
///
/// A record `copied` names (verifying an output, [`Adapter::read_back`]) is taken from the
/// input's item as its own reading left it; the items then carry no usage, and no model is
/// named.
pub(super) fn read_items(
    doc: &Doc,
    records: &[Record],
    copied: Option<&CopiedRecords>,
) -> Result<(Vec<Item>, Option<String>), ReadError> {
    let mut items = Vec::with_capacity(records.len());
    let mut boundary = None;
    let mut model = None;
    let mut chains: Vec<Cow<Chain>> = Vec::with_capacity(records.len());
    for (i, record) in records.iter().enumerate() {
        let line = doc.line_of(record.span.start);
        let text = &doc.src()[record.span.clone()];
        if let Some((item, chain)) = copied
            .and_then(|copied| copied(0, i, text))
            .and_then(|c| as_read(c, record.span.clone(), line))
        {
            if item.boundary {
                boundary = Some(i);
            }
            chains.push(Cow::Owned(chain));
            items.push(item);
            continue;
        }
        let (read, split) = match Members::read(record.node) {
            Some(members) => (members, true),
            None => (
                Members::decoded(record.node)
                    .map_err(|e| value_error(line, record.span.start, &e))?,
                false,
            ),
        };
        let value = read.value;
        chains.push(Cow::Owned(read.chain));
        let is_boundary = is_compact_boundary(&value);
        if is_boundary {
            boundary = Some(i);
        }
        let mut item = Item::new(record.span.clone(), line, Role::None, Kind::NonContext);
        parse_record(&value, &mut item);
        if item.role == Role::Assistant {
            let named = value
                .get("message")
                .and_then(|m| m.get("model"))
                .and_then(Value::as_str);
            if let Some(name) = named.filter(|m| !m.is_empty() && !m.starts_with('<')) {
                model = Some(name.to_owned());
            }
        }
        item.anchor = is_boundary;
        item.boundary = is_boundary;
        item.stored_only_bytes = read.stored_only_bytes;
        if split && read.stored_only_bytes > 0 {
            item.copy_cut = copy_cut(text, record.node);
        }
        item.disposable = value
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| DISPOSABLE_TYPES.contains(&t));
        items.push(item);
    }
    // The model's live context starts at the latest compaction; older records are history.
    if let Some(boundary) = boundary {
        items[..boundary]
            .iter_mut()
            .for_each(|item| item.in_context = false);
    }
    merge_usage(&mut items);
    // Resuming walks up from the newest record and stops at the boundary, so the chain above
    // it is never read again; records outside the chain (titles, queue operations) stay.
    let above = boundary.unwrap_or(0);
    for (item, chain) in items[..above].iter_mut().zip(&chains) {
        item.stale_history = chain.is_linked() && !item.anchor;
    }
    // The first prompt the user typed titles the session wherever it is (when no record names
    // it): anchored, it outlives the history it opens.
    let title = records[..above]
        .iter()
        .position(|r| crate::sessions::claude_code_prompt(r.node.get()).is_some());
    if let Some(item) = title.map(|i| &mut items[i]) {
        item.anchor = true;
        item.stale_history = false;
    }
    drop_external_results(&mut items, &mut chains);
    for (item, chain) in items.iter_mut().zip(chains) {
        item.chain = Some(Box::new(chain.into_owned()));
    }
    if copied.is_some() {
        // Copied records bring no usage of their own (the input's was merged per message).
        items.iter_mut().for_each(|item| item.usage = None);
        model = None;
    }
    Ok((items, model))
}

/// Copied input item `c` as reading its record on its own gives it, at `span` and `line` of
/// the output: before the steps that look at its neighbours (the live context, merged usage,
/// stale history, the title's anchor, results set aside), which [`read_items`] takes again.
/// `None` when its reading cannot be told apart from theirs: results were set aside, or it
/// kept no links.
fn as_read(c: Copied, span: Span, line: usize) -> Option<(Item, Chain)> {
    let input = c.item;
    let chain = Chain::clone(input.chain.as_deref()?);
    if chain.results_dropped {
        return None;
    }
    let item = Item {
        span,
        line,
        in_context: input.kind != Kind::NonContext,
        usage: None,
        anchor: input.boundary,
        stale_history: false,
        stored_only_bytes: if c.cut { 0 } else { input.stored_only_bytes },
        copy_cut: if c.cut { None } else { input.copy_cut.clone() },
        chain: None,
        ..input.clone()
    };
    Some((item, chain))
}

/// The bytes [`crate::transcript::payload::strip`] cuts from `text`, the text of record
/// `node`, to remove its one stored-only copy (none when it has several).
fn copy_cut(text: &str, node: &Node) -> Option<Span> {
    let members = node.members()?;
    let mut copies = members
        .iter()
        .enumerate()
        .filter(|(_, (key, _))| COPY_MEMBERS.contains(&key.as_ref()))
        .map(|(j, _)| j);
    let (Some(j), None) = (copies.next(), copies.next()) else {
        return None;
    };
    let spans: Vec<Span> = members.iter().map(|(_, v)| span_of(text, v.get())).collect();
    Some(crate::transcript::payload::member_removal(text, &spans, j))
}

/// What reading a record needs of it: the members [`read_items`] looks at as a `Value`, its
/// links and the size of its stored-only `toolUseResult` copy.
pub(super) struct Members {
    pub(super) value: Value,
    pub(super) chain: Chain,
    pub(super) stored_only_bytes: usize,
}

/// The members of a record that reading it looks at, as JSON text, picked from the record's
/// split (the one detection made, when it classified the record): everything else (progress
/// payloads, `toolUseResult` copies, snapshots) is never decoded, where a whole `Value` of
/// every record cost most of reading a session. Absent members are `None`; present ones,
/// `null` included, are `Some`.
#[derive(Default)]
struct RawMembers<'a> {
    kind: Option<&'a str>,
    subtype: Option<&'a str>,
    message: Option<&'a str>,
    is_meta: Option<&'a str>,
    is_compact_summary: Option<&'a str>,
    ctxc_flag: Option<&'a str>,
    queue_transcript_only: Option<&'a str>,
    tool_use_result: Option<&'a str>,
    timestamp: Option<&'a str>,
    uuid: Option<&'a str>,
    parent_uuid: Option<&'a str>,
    logical_parent_uuid: Option<&'a str>,
    leaf_uuid: Option<&'a str>,
}

impl<'a> RawMembers<'a> {
    /// The members of object `record`; `None` when one of them is repeated (which of the two
    /// counts is for the whole decode to say).
    fn of(record: &Node<'a>) -> Option<Self> {
        let mut m = RawMembers::default();
        for (key, value) in record.members()? {
            let slot = match key.as_ref() {
                "type" => &mut m.kind,
                "subtype" => &mut m.subtype,
                "message" => &mut m.message,
                "isMeta" => &mut m.is_meta,
                "isCompactSummary" => &mut m.is_compact_summary,
                CTXC_FLAG => &mut m.ctxc_flag,
                "queueTranscriptOnly" => &mut m.queue_transcript_only,
                "toolUseResult" => &mut m.tool_use_result,
                "timestamp" => &mut m.timestamp,
                "uuid" => &mut m.uuid,
                "parentUuid" => &mut m.parent_uuid,
                "logicalParentUuid" => &mut m.logical_parent_uuid,
                "leafUuid" => &mut m.leaf_uuid,
                _ => continue,
            };
            if slot.replace(value.get()).is_some() {
                return None;
            }
        }
        Some(m)
    }
}

use crate::json::lenient::strict;

impl Members {
    /// An object record read from its members; `None` when they cannot stand in for a whole
    /// decode (not an object, a member repeated, a value serde_json refuses), which
    /// [`Members::decoded`] then does: the two give the same result on every record.
    pub(super) fn read(record: &Node) -> Option<Members> {
        let m = RawMembers::of(record)?;
        let kind = match m.kind {
            Some(kind) => Some(strict(kind)?),
            None => None,
        };
        // Only user and assistant records are read for their message.
        let speaks = matches!(kind.as_ref().and_then(Value::as_str), Some("user" | "assistant"));
        let mut value = serde_json::Map::new();
        let members = [
            ("type", m.kind),
            ("subtype", m.subtype),
            ("message", m.message.filter(|_| speaks)),
            ("isMeta", m.is_meta),
            ("isCompactSummary", m.is_compact_summary),
            (CTXC_FLAG, m.ctxc_flag),
            ("queueTranscriptOnly", m.queue_transcript_only),
            ("parentUuid", m.parent_uuid),
        ];
        for (key, raw) in members {
            if let Some(raw) = raw {
                value.insert(key.to_owned(), strict(raw)?);
            }
        }
        // As `Chain::of` reads it: a link that is not a string or null leaves the record none.
        let links = [m.uuid, m.parent_uuid, m.logical_parent_uuid, m.leaf_uuid]
            .map(|link| link.map_or(Ok(None), serde_json::from_str::<Option<String>>));
        let chain = match links {
            [Ok(uuid), Ok(parent_uuid), Ok(logical_parent_uuid), Ok(leaf_uuid)] => Chain {
                uuid,
                parent_uuid,
                logical_parent_uuid,
                leaf_uuid,
                replay: None,
                results_dropped: false,
            },
            _ => Chain::default(),
        };
        // What `check` needs to find replays, from the same scan.
        let replay = super::replay::stamped(m.kind, m.timestamp, m.uuid);
        let chain = Chain {
            replay: replay.map(Some),
            ..chain
        };
        Some(Members {
            value: Value::Object(value),
            chain,
            stored_only_bytes: m.tool_use_result.map_or(0, str::len),
        })
    }

    /// The whole record decoded (mending what serde_json refuses), its links read on their own.
    pub(super) fn decoded(record: &Node) -> serde_json::Result<Members> {
        Ok(Members {
            value: crate::json::lenient::value(record.get())?,
            chain: Chain::of(record.get()),
            stored_only_bytes: record.member("toolUseResult").map_or(0, |v| v.get().len()),
        })
    }
}

/// Where the model's context restarts: a `compact_boundary` record, or a runtime compact
/// summary that lost its boundary (a compaction that dropped the boundary re-links the summary
/// to null, and Claude Code's walk up the chain then stops at the summary).
pub(super) fn is_compact_boundary(value: &Value) -> bool {
    let is = |key: &str| value.get(key) == Some(&Value::Bool(true));
    let boundary = value.get("type").and_then(Value::as_str) == Some("system")
        && value.get("subtype").and_then(Value::as_str) == Some("compact_boundary");
    let orphaned_summary =
        is("isCompactSummary") && !is(CTXC_FLAG) && value.get("parentUuid") == Some(&Value::Null);
    boundary || orphaned_summary
}

/// Fills `item` from a `user` or `assistant` record; every other record stays non-context.
pub(super) fn parse_record(value: &Value, item: &mut Item) {
    let kind = value.get("type").and_then(Value::as_str);
    let Some(message) = value.get("message").filter(|m| m.is_object()) else {
        return;
    };
    // Claude Code 2.1 writes some user records for the transcript only (a background task's
    // notification, which reaches the model as a system reminder of the next prompt instead).
    let transcript_only = value.get("queueTranscriptOnly") == Some(&Value::Bool(true));
    if !matches!(kind, Some("user" | "assistant")) || transcript_only {
        return;
    }
    item.role = match message.get("role").and_then(Value::as_str).or(kind) {
        Some("assistant") => Role::Assistant,
        _ => Role::User,
    };
    match message.get("content") {
        Some(Value::String(s)) => item.parts.push(Part::new(PartKind::Text, s)),
        Some(Value::Array(blocks)) => blocks.iter().for_each(|b| push_block(b, item)),
        _ => {}
    }
    item.message_id = message.get("id").and_then(Value::as_str).map(String::from);
    item.meta = value.get("isMeta") == Some(&Value::Bool(true));
    item.usage = message.get("usage").map(usage_of).map(Box::new);
    let marked = value.get(CTXC_FLAG) == Some(&Value::Bool(true))
        || item
            .parts
            .first()
            .is_some_and(|p| p.text.starts_with(SUMMARY_MARKER));
    item.ctxc_summary = marked && item.role == Role::User;
    let compact_summary = value.get("isCompactSummary") == Some(&Value::Bool(true));
    item.kind = if item.ctxc_summary || compact_summary {
        Kind::Summary
    } else {
        message_kind(item)
    };
    item.in_context = true;
}

pub(super) fn message_kind(item: &Item) -> Kind {
    let all_thinking =
        !item.parts.is_empty() && item.parts.iter().all(|p| p.kind == PartKind::Thinking);
    match item.role {
        Role::Assistant if !item.calls.is_empty() => Kind::ToolCall,
        Role::Assistant if all_thinking => Kind::Thinking,
        Role::Assistant => Kind::AssistantText,
        _ if !item.results.is_empty() => Kind::ToolResult,
        _ => Kind::User,
    }
}

/// Adds one content block of an Anthropic message.
pub(super) fn push_block(block: &Value, item: &mut Item) {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    let Some(kind) = block.get("type").and_then(Value::as_str) else {
        // Bare strings in a content list: seen in hand-written fixtures, sent as text.
        if let Some(s) = block.as_str() {
            item.parts.push(Part::new(PartKind::Text, s));
        }
        return;
    };
    match kind {
        "text" => item.parts.push(Part::new(PartKind::Text, text("text"))),
        "thinking" => item
            .parts
            .push(Part::new(PartKind::Thinking, text("thinking"))),
        // Encrypted reasoning: its text is opaque, so only its presence is counted.
        "redacted_thinking" => item
            .parts
            .push(Part::new(PartKind::Thinking, "[redacted thinking]")),
        "tool_use" => {
            let name = text("name");
            item.calls.push(ToolCall {
                id: text("id").to_string(),
                name: name.to_string(),
            });
            item.parts.push(Part::new(PartKind::ToolName, name));
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            item.parts.push(Part::new(PartKind::ToolArguments, input));
        }
        "tool_result" => {
            if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                item.results.push(id.to_string());
            }
            item.is_error |= block.get("is_error") == Some(&Value::Bool(true));
            push_result(block.get("content"), item);
        }
        _ if block.get("text").is_some() => {
            item.parts.push(Part::new(PartKind::Text, text("text")))
        }
        // Images and documents: the model is charged for the media, not for its base64 text.
        other => item
            .parts
            .push(Part::new(PartKind::Media, format!("[{other}]"))),
    }
}

/// Adds a tool result's content: a string, or a list of text and media blocks.
pub(super) fn push_result(content: Option<&Value>, item: &mut Item) {
    match content {
        Some(Value::String(s)) => item.parts.push(Part::new(PartKind::ToolResult, s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                let text = block.get("text").and_then(Value::as_str).or(block.as_str());
                let part = match (text, block.get("type").and_then(Value::as_str)) {
                    (Some(text), _) => Part::new(PartKind::ToolResult, text),
                    (None, kind) => {
                        Part::new(PartKind::Media, format!("[{}]", kind.unwrap_or("media")))
                    }
                };
                item.parts.push(part);
            }
        }
        _ => {}
    }
}

pub(super) fn usage_of(usage: &Value) -> Usage {
    let field = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: field("input_tokens"),
        output_tokens: field("output_tokens"),
        cache_creation_input_tokens: field("cache_creation_input_tokens"),
        cache_read_input_tokens: field("cache_read_input_tokens"),
    }
}

/// Claude Code repeats one response's usage on every record of it, with `output_tokens`
/// growing as the response streams. Keeps it once per message id (on the first record, with
/// the largest value of each field) so totals are not multiplied.
pub(super) fn merge_usage(items: &mut [Item]) {
    let mut first: HashMap<String, usize> = HashMap::new();
    for i in 0..items.len() {
        let (Some(id), Some(usage)) = (&items[i].message_id, items[i].usage.as_deref().copied())
        else {
            continue;
        };
        match first.get(id) {
            None => {
                first.insert(id.clone(), i);
            }
            Some(&f) => {
                items[i].usage = None;
                let kept = items[f].usage.get_or_insert_default();
                **kept = larger(**kept, usage);
            }
        }
    }
}

/// The larger value of each field.
pub(super) fn larger(a: Usage, b: Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.max(b.input_tokens),
        output_tokens: a.output_tokens.max(b.output_tokens),
        cache_creation_input_tokens: a
            .cache_creation_input_tokens
            .max(b.cache_creation_input_tokens),
        cache_read_input_tokens: a.cache_read_input_tokens.max(b.cache_read_input_tokens),
    }
}

/// A file may begin mid-chain (single-record samples; compaction agents forked from their
/// parent session). A result whose call is not in the file, on a record whose chain runs out
/// of the file, answers a call stored elsewhere: the pairing rules cannot see that call, so the
/// result is not recorded as answering one. A result on a chain rooted in the file keeps its
/// id, and a missing call is reported.
pub(super) fn drop_external_results(items: &mut [Item], chains: &mut [Cow<Chain>]) {
    let index = uuid_index(chains);
    let mut calls: HashSet<String> = HashSet::new();
    let mut dropped = Vec::new();
    for (i, item) in items.iter_mut().enumerate() {
        let unseen = item.results.iter().any(|id| !calls.contains(id));
        if unseen && leaves_file(i, chains, &index) {
            item.results.retain(|id| calls.contains(id));
            dropped.push(i);
        }
        calls.extend(item.calls.iter().map(|c| c.id.clone()));
    }
    for i in dropped {
        chains[i].to_mut().results_dropped = true;
    }
}

/// Whether walking up from record `i` reaches a parent that is not in the file.
pub(super) fn leaves_file(i: usize, chains: &[Cow<Chain>], index: &HashMap<&str, usize>) -> bool {
    let mut at = i;
    // Bounded: a cycle of links must not hang the reader.
    for _ in 0..chains.len() {
        let Some(parent) = chains[at].parent_uuid.as_deref() else {
            return false;
        };
        match index.get(parent) {
            Some(&j) => at = j,
            None => return true,
        }
    }
    false
}
