//! Where message lists live in a document, and reading them: a JSON array of messages; an
//! object holding the list under `messages`, `history` (SWE-agent `.traj`) or a similar key;
//! an array of run objects each holding a list (tau-bench `traj`, dataset files); JSONL with
//! one message per line or one conversation object per line; or any list named by
//! `--messages-path`. Shared by the OpenAI and Anthropic adapters, which store messages the
//! same way and differ only in how one message is parsed.

use super::common::{lines_span, value_error};
use super::{
    Conversation, Copied, CopiedRecords, Doc, Item, Kind, ListLayout, Part, PartKind, ReadError,
    ReadOptions, Role,
};
use crate::json::{ArrayLayout, Node, Span};
use serde_json::Value;

/// Keys under which containers keep their message list, most common first.
const LIST_KEYS: [&str; 8] = [
    "messages",
    "history",
    "traj",
    "conversation",
    "conversations",
    "chat",
    "dialog",
    "dialogue",
];

/// Where a message list lives: nodes of a [`Doc`] borrowed for `'d`.
pub(super) enum ListRef<'d, 'a> {
    /// A JSON array at `location`; `owner` is the object holding it (for `tools`, `system`).
    Array {
        location: String,
        list: &'d Node<'a>,
        owner: Option<&'d Node<'a>>,
    },
    /// Every line of a JSONL file is one message.
    AllLines,
}

/// How an adapter reads one message: the members its parser looks at, and the parser, which
/// fills an item from those members.
pub(super) struct MessageReader {
    /// Every member `parse` asks for: only these are decoded.
    pub(super) keys: &'static [&'static str],
    /// The members that carry what the model sees (text, calls): a list none of whose
    /// messages has one is not a list of empty messages but a shape this reader does not know,
    /// and is refused ([`check_content`]).
    pub(super) content_keys: &'static [&'static str],
    pub(super) parse: fn(&mut Members, &mut Item),
}

/// The members of a message a [`MessageReader`] looks at, decoded, each once (the last of a
/// repeated key, as a whole decode keeps it). A handful: looked up by a comparison each,
/// where a `Value` map hashed every key it was asked for.
#[derive(Debug, Default)]
pub(super) struct Members(Vec<(&'static str, Value)>);

impl Members {
    /// Member `key`, if the message has it.
    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find_map(|(k, v)| (*k == key).then_some(v))
    }

    /// Member `key`, to move its text out.
    pub(super) fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0
            .iter_mut()
            .find_map(|(k, v)| (*k == key).then_some(v))
    }

    /// The members `keys` names taken out of a whole decoded message (none from a value
    /// that is not an object).
    fn from_value(value: Value, keys: &'static [&'static str]) -> Members {
        let Value::Object(object) = value else {
            return Members::default();
        };
        // One walk of the map, each key once (the decode kept the last of a repeated one),
        // rather than a hashed removal per key.
        let members = object
            .into_iter()
            .filter_map(|(key, value)| Some((*keys.iter().find(|k| **k == key)?, value)))
            .collect();
        Members(members)
    }
}

/// How ids made up to pair calls across messages begin: legacy function calls and their
/// results (`function-call-N`, [`pair_legacy_function_calls`]) and text-based agents' actions
/// and observations (`action-LINE`, the OpenAI adapter). An item holding one was changed by
/// its neighbours after its message was read.
pub(super) const LEGACY_CALL_ID: &str = "function-call-";
/// See [`LEGACY_CALL_ID`].
pub(super) const ACTION_ID: &str = "action-";

/// Reads every list `find_lists` names, parsing each element with `reader`, and hands each
/// conversation to `each`; returns the container description. A message `copied` names
/// (verifying an output, [`super::Adapter::read_back`]) is taken from the input's item
/// instead of decoded again, where that item is what reading its message alone gave.
pub(super) fn read_lists(
    doc: &Doc,
    opts: &ReadOptions,
    reader: &MessageReader,
    copied: Option<&CopiedRecords>,
    each: &mut dyn FnMut(Conversation),
) -> Result<String, ReadError> {
    let lists = find_lists(doc, opts.messages_path.as_deref())?;
    if lists.is_empty() {
        return Err(ReadError::none_found("message list", "", doc));
    }
    let container = describe_container(doc, &lists);
    let mut fn_calls = 0;
    for (c, list) in lists.into_iter().enumerate() {
        let source = Source {
            doc,
            reader,
            copied: copied.map(|copied| (copied, c)),
        };
        let mut conv = match list {
            ListRef::Array {
                location,
                list,
                owner,
            } => {
                let messages: Vec<&Node> = list.elements().unwrap_or_default().iter().collect();
                check_content(&messages, &location, reader)?;
                array_conversation(&source, location, list, owner)?
            }
            ListRef::AllLines => {
                let lines = doc.lines().unwrap_or_default();
                let messages: Vec<&Node> = lines.iter().map(|l| &l.node).collect();
                check_content(&messages, "", reader)?;
                lines_conversation(&source)?
            }
        };
        pair_legacy_function_calls(&mut conv, &mut fn_calls);
        each(conv);
    }
    Ok(container)
}

/// Fails when no message of a (non-empty) list carries any member `reader` reads content
/// from: read anyway, each would be an empty message, and a compaction would drop what it
/// cannot see. The error names the keys the messages have.
fn check_content(
    messages: &[&Node],
    location: &str,
    reader: &MessageReader,
) -> Result<(), ReadError> {
    let carries = |m: &&Node| reader.content_keys.iter().any(|k| m.member(k).is_some());
    if messages.is_empty() || messages.iter().any(carries) {
        return Ok(());
    }
    Err(ReadError::whole(no_content(
        messages,
        location,
        reader.content_keys,
    )))
}

/// The refusal of a message list whose messages carry none of `content_keys`, with the keys
/// they do have (of the first 16, in order of appearance).
pub(super) fn no_content(messages: &[&Node], location: &str, content_keys: &[&str]) -> String {
    let mut keys: Vec<String> = Vec::new();
    for message in messages.iter().take(16) {
        for (key, _) in message.members().unwrap_or_default() {
            if !keys.iter().any(|k| k == key) {
                keys.push(key.to_string());
            }
        }
    }
    let at = match location {
        "" => String::new(),
        location => format!(" at {location}"),
    };
    format!(
        "the {}{at} carry no content ctxc reads (none has {}); their keys: {} (name the format \
         with --format if it is another)",
        crate::human::plural(messages.len(), "message"),
        content_keys.join(", "),
        keys.join(", ")
    )
}

fn describe_container(doc: &Doc, lists: &[ListRef]) -> String {
    let first = match &lists[0] {
        ListRef::AllLines => return "jsonl, one message per line".into(),
        ListRef::Array { location, .. } => location.clone(),
    };
    let kind = if doc.lines().is_some() {
        "jsonl, one conversation per line"
    } else if first.is_empty() {
        "json array of messages"
    } else {
        "json"
    };
    if first.is_empty() || doc.lines().is_some() {
        kind.to_string()
    } else {
        // `/3/traj` → `/*/traj` so the description is the same for every run.
        let pattern: Vec<&str> = first
            .split('/')
            .map(|t| if t.parse::<usize>().is_ok() { "*" } else { t })
            .collect();
        format!("{kind} {}", pattern.join("/"))
    }
}

/// The message lists of `doc`: those `path` names, or the ones detection finds.
pub(super) fn find_lists<'d, 'a>(
    doc: &'d Doc<'a>,
    path: Option<&str>,
) -> Result<Vec<ListRef<'d, 'a>>, ReadError> {
    if let Some(path) = path {
        return lists_at_path(doc, path);
    }
    match doc {
        Doc::Json { root, .. } => Ok(detect_lists(root, "")),
        Doc::Lines { lines, .. } => {
            if lines.iter().any(|l| is_message(&l.node)) {
                return Ok(vec![ListRef::AllLines]);
            }
            let mut lists = Vec::new();
            for line in lines {
                lists.extend(detect_object_list(
                    &line.node,
                    &format!("line {}", line.number),
                ));
            }
            Ok(lists)
        }
    }
}

fn detect_lists<'d, 'a>(root: &'d Node<'a>, location: &str) -> Vec<ListRef<'d, 'a>> {
    if let Some(elements) = root.elements() {
        if elements.first().is_some_and(|e| is_message(e)) {
            return vec![ListRef::Array {
                location: location.to_string(),
                list: root,
                owner: None,
            }];
        }
        return elements
            .iter()
            .enumerate()
            .flat_map(|(i, e)| detect_object_list(e, &format!("{location}/{i}")))
            .collect();
    }
    detect_object_list(root, location)
}

/// The list of an object holding one under a known key.
fn detect_object_list<'d, 'a>(obj: &'d Node<'a>, location: &str) -> Vec<ListRef<'d, 'a>> {
    let Some(members) = obj.members() else {
        return Vec::new();
    };
    let found = LIST_KEYS.iter().find_map(|key| {
        let (_, list) = members.iter().find(|(k, _)| k == key)?;
        let elements = list.elements()?;
        elements
            .first()
            .is_some_and(is_message)
            .then_some((key, list))
    });
    match found {
        Some((key, list)) => vec![ListRef::Array {
            location: format!("{location}/{key}"),
            list,
            owner: Some(obj),
        }],
        None => Vec::new(),
    }
}

/// An object with a string `role`.
pub(super) fn is_message(node: &Node) -> bool {
    node.member("role").is_some_and(Node::is_string)
}

/// Resolves a JSON pointer with `*` ("each element") against the document (each line of JSONL).
fn lists_at_path<'d, 'a>(doc: &'d Doc<'a>, path: &str) -> Result<Vec<ListRef<'d, 'a>>, ReadError> {
    let roots: Vec<(String, &'d Node<'a>)> = match doc {
        Doc::Json { root, .. } => vec![(String::new(), root)],
        Doc::Lines { lines, .. } => lines
            .iter()
            .map(|l| (format!("line {}", l.number), &l.node))
            .collect(),
    };
    let tokens: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut found = Vec::new();
    for (location, root) in roots {
        resolve(root, &tokens, location, &mut found);
    }
    if found.is_empty() {
        return Err(ReadError::whole(format!(
            "--messages-path {path} matches no array"
        )));
    }
    // A path that finds arrays but no message in them names the wrong place: reading it as
    // an empty conversation would "succeed" on nothing.
    let messages = found.iter().any(|l| match l {
        ListRef::Array { list, .. } => list.elements().is_some_and(|m| m.iter().any(is_message)),
        ListRef::AllLines => true,
    });
    if !messages {
        return Err(ReadError::whole(format!(
            "--messages-path {path} matches {} but no message in it (an object with a string \"role\")",
            crate::human::plural(found.len(), "array")
        )));
    }
    Ok(found)
}

fn resolve<'d, 'a>(
    value: &'d Node<'a>,
    tokens: &[String],
    location: String,
    found: &mut Vec<ListRef<'d, 'a>>,
) {
    let Some((token, rest)) = tokens.split_first() else {
        if value.get().starts_with('[') {
            found.push(ListRef::Array {
                location,
                list: value,
                owner: None,
            });
        }
        return;
    };
    let children: Vec<(String, &Node)> = if let Some(elements) = value.elements() {
        elements
            .iter()
            .enumerate()
            .filter(|(i, _)| token == "*" || token.parse() == Ok(*i))
            .map(|(i, e)| (i.to_string(), e))
            .collect()
    } else if let Some(members) = value.members() {
        members
            .iter()
            .filter(|(k, _)| token == "*" || k == token)
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    } else {
        Vec::new()
    };
    for (name, child) in children {
        resolve(child, rest, format!("{location}/{name}"), found);
    }
}

/// Where one conversation's messages are read from: the document, the reader, and when
/// verifying an output, the input's copies with the conversation's index.
struct Source<'s, 'd, 'a> {
    doc: &'s Doc<'d>,
    reader: &'s MessageReader,
    copied: Option<(&'s CopiedRecords<'a>, usize)>,
}

impl Source<'_, '_, '_> {
    /// Message `k` of the conversation, `message` at `span`: the input's item it copies, else
    /// decoded.
    fn item(&self, k: usize, message: &Node, span: Span) -> Result<Item, ReadError> {
        let copy = self
            .copied
            .and_then(|(copied, c)| copied(c, k, &self.doc.src()[span.clone()]));
        match copy {
            Some(copy) if read_alone(copy) => Ok(Item {
                line: self.doc.line_of(span.start),
                span,
                ..copy.item.clone()
            }),
            _ => parse_item(self.doc, message, span, self.reader),
        }
    }
}

/// Whether copied input item `copy` is what reading its message alone gives: no pairing
/// across messages changed it (it holds no id [`LEGACY_CALL_ID`] or [`ACTION_ID`] made up;
/// an id a message wrote that looks like one only costs a decode), and nothing was cut from
/// it (these formats keep no stored-only copy).
fn read_alone(copy: Copied) -> bool {
    let made_up = |id: &str| id.starts_with(LEGACY_CALL_ID) || id.starts_with(ACTION_ID);
    let item = copy.item;
    !copy.cut
        && !item.calls.iter().any(|call| made_up(&call.id))
        && !item.results.iter().any(|id| made_up(id))
}

fn array_conversation(
    source: &Source,
    location: String,
    list: &Node,
    owner: Option<&Node>,
) -> Result<Conversation, ReadError> {
    let doc = source.doc;
    let elements = list.elements().unwrap_or_default();
    let base = doc.span_of(list).start;
    let mut items = Vec::with_capacity(elements.len());
    let mut relative = Vec::with_capacity(elements.len());
    for (k, element) in elements.iter().enumerate() {
        let span = doc.span_of(element);
        relative.push(span.start - base..span.end - base);
        items.push(source.item(k, element, span)?);
    }
    Ok(Conversation {
        span: doc.span_of(list),
        location,
        items,
        preamble: owner.map(preamble_of).unwrap_or_default(),
        layout: ListLayout::Array(ArrayLayout::of(list.get(), &relative)),
        model: None,
        context_window: None,
    })
}

fn lines_conversation(source: &Source) -> Result<Conversation, ReadError> {
    let doc = source.doc;
    let Doc::Lines {
        lines,
        newline,
        trailing_newline,
        ..
    } = doc
    else {
        unreachable!("AllLines comes only from JSONL")
    };
    let mut items = Vec::with_capacity(lines.len());
    for (k, line) in lines.iter().enumerate() {
        items.push(source.item(k, &line.node, line.range())?);
    }
    Ok(Conversation {
        span: lines_span(doc),
        location: String::new(),
        items,
        preamble: Vec::new(),
        layout: ListLayout::Lines {
            newline,
            trailing_newline: *trailing_newline,
        },
        model: None,
        context_window: None,
    })
}

fn parse_item(
    doc: &Doc,
    message: &Node,
    span: Span,
    reader: &MessageReader,
) -> Result<Item, ReadError> {
    let line = doc.line_of(span.start);
    let mut members = match picked_members(message, reader.keys) {
        Some(members) => members,
        None => crate::json::lenient::value(message.get())
            .map(|value| Members::from_value(value, reader.keys))
            .map_err(|e| value_error(line, span.start, &e))?,
    };
    let mut item = Item::new(span, line, Role::None, Kind::NonContext);
    // `parse` may move the message's texts out of the members rather than copy them.
    (reader.parse)(&mut members, &mut item);
    Ok(item)
}

/// The members `keys` names of message `message`, decoded from the
/// message's split when detection made one (the Anthropic detector splits every message of
/// an OpenAI list): a tool output's `name`, a run's metadata and whatever else a message
/// carries are never decoded. A message no detector split is left to the whole decode, one
/// scan where splitting it first would make two. `None` where this could read differently
/// from decoding the whole message (which the caller then does): not split, not an object,
/// one of `keys` repeated (the whole decode keeps the last), a value serde_json refuses (the
/// whole decode mends it), or one nested so deep that the whole decode could read it
/// otherwise (see [`nests_too_deep`]).
fn picked_members(message: &Node, keys: &'static [&'static str]) -> Option<Members> {
    let mut picked: Vec<(&'static str, &str)> = Vec::with_capacity(keys.len());
    for (key, value) in message.members_if_split()? {
        let Some(key) = keys.iter().find(|k| **k == key.as_ref()) else {
            continue;
        };
        if picked.iter().any(|(k, _)| k == key) {
            return None;
        }
        picked.push((key, value.get()));
    }
    let mut members = Vec::with_capacity(picked.len());
    for (key, text) in picked {
        let value = crate::json::lenient::strict(text)?;
        if nests_too_deep(&value) {
            return None;
        }
        members.push((key, value));
    }
    Some(Members(members))
}

/// Whether a member nests so deep that, one level further down inside its message, the
/// whole decode could read it otherwise: past serde_json's recursion limit, or past
/// [`MAX_DEPTH`](crate::json::lenient::MAX_DEPTH), where the whole decode, mending something
/// elsewhere in the message, turns it into U+FFFD. No real message nests near this.
fn nests_too_deep(member: &Value) -> bool {
    nesting(member) + 1 >= crate::json::lenient::MAX_DEPTH
}

/// How many containers deep `value` nests (0 for a scalar).
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(elements) => 1 + elements.iter().map(nesting).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// Tool definitions and a top-level system prompt kept beside the list.
fn preamble_of(owner: &Node) -> Vec<Part> {
    let mut parts = Vec::new();
    for (key, kind) in [
        ("tools", PartKind::ToolDefinitions),
        ("functions", PartKind::ToolDefinitions),
        ("system", PartKind::Text),
    ] {
        if let Some(raw) = owner.member(key) {
            let Ok(value) = serde_json::from_str::<Value>(raw.get()) else {
                continue;
            };
            let text = match &value {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                Value::Array(blocks) if kind == PartKind::Text => blocks_text(blocks),
                other => other.to_string(),
            };
            parts.push(Part::new(kind, text));
        }
    }
    parts
}

fn blocks_text(blocks: &[Value]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

/// Gives calls made without ids (legacy `function_call`s, LLaMA-Factory `tool_call` parts and
/// `function_call` messages) ids, and pairs the `tool` / `function` messages that follow them
/// without a `tool_call_id`: each answers the oldest open call, and the last of a run of them
/// answers every call still open (LLaMA-Factory answers parallel calls in one message). Calls
/// with real ids are left alone.
fn pair_legacy_function_calls(conv: &mut Conversation, counter: &mut usize) {
    let mut open: Vec<String> = Vec::new();
    for at in 0..conv.items.len() {
        let next_is_result = conv
            .items
            .get(at + 1)
            .is_some_and(|n| n.role == Role::Tool && n.results.is_empty());
        let item = &mut conv.items[at];
        if item.calls.iter().any(|c| c.id.is_empty()) {
            open.clear();
        }
        for call in item.calls.iter_mut().filter(|c| c.id.is_empty()) {
            *counter += 1;
            call.id = format!("{LEGACY_CALL_ID}{counter}");
            open.push(call.id.clone());
        }
        if item.role == Role::Tool && item.results.is_empty() && !open.is_empty() {
            if next_is_result {
                item.results.push(open.remove(0));
            } else {
                item.results.append(&mut open);
            }
        }
    }
}

/// What `find` finds in each record a document holds: each element of a top-level JSON array
/// (located at `/I`), else the document's one object (at ``), or each JSONL line (at `line N`).
/// Shared by the formats whose files hold one conversation per record (ShareGPT, ATIF,
/// OpenHands runs).
pub(super) fn each_record<'d, 'a, T>(
    doc: &'d Doc<'a>,
    find: impl Fn(&'d Node<'a>, String) -> Option<T>,
) -> Vec<T> {
    match doc {
        Doc::Json { root, .. } => match root.elements() {
            Some(elements) => elements
                .iter()
                .enumerate()
                .filter_map(|(i, e)| find(e, format!("/{i}")))
                .collect(),
            None => find(root, String::new()).into_iter().collect(),
        },
        Doc::Lines { lines, .. } => lines
            .iter()
            .filter_map(|l| find(&l.node, format!("line {}", l.number)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{lenient, parse_raw};

    /// What `reader` makes of `value`, as text to compare.
    fn item_of(mut members: Members, reader: &MessageReader) -> String {
        let mut item = Item::new(0..0, 1, Role::None, Kind::NonContext);
        (reader.parse)(&mut members, &mut item);
        format!("{item:?}")
    }

    /// Message `text`, split as detection splits it, read as `parse_item` reads it, and from
    /// a decode of the whole message.
    fn read_both(text: &str, reader: &MessageReader) -> (String, String, bool) {
        let node = Node::new(parse_raw(text).unwrap());
        node.members();
        let whole = || Members::from_value(lenient::value(text).unwrap(), reader.keys);
        let picked = picked_members(&node, reader.keys);
        let took_members = picked.is_some();
        let read = item_of(picked.unwrap_or_else(whole), reader);
        (read, item_of(whole(), reader), took_members)
    }

    fn nested(open: &str, inner: &str, close: &str, depth: usize) -> String {
        format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
    }

    #[test]
    fn odd_messages_read_as_a_whole_decode_reads_them() {
        let mut messages: Vec<String> = [
            r#"{"role": "user", "content": "hi", "name": "x", "extra": {"a": [1, 2]}}"#,
            r#"{"role": "user", "content": "a", "role": "assistant"}"#,
            r#"{"role": "assistant", "content": "first", "content": "second"}"#,
            r#"{"role": "tool", "tool_call_id": "a", "tool_call_id": 7, "content": "out"}"#,
            r#"{"role": 5, "content": "x"}"#,
            r#"{"role": null, "content": "x"}"#,
            r#"{"role": ["user"], "content": "x"}"#,
            r#"{"role": "user", "content": 12}"#,
            r#"{"role": "user", "content": {"text": "in an object"}}"#,
            r#"{"role": "user", "content": true}"#,
            r#"{"role": "user", "content": [[["deep"]], 1, "a", {"text": 2}, {"type": "image_url"}]}"#,
            r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"text": "r"}]}]}"#,
            r#"{"\u0072ole": "assistant", "cont\u0065nt": "escaped keys"}"#,
            r#"{"role": "user", "content": "lone \ud800 surrogate"}"#,
            r#"{"role": "user", "content": "fine", "name": "lone \udc00 elsewhere"}"#,
            r#"{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 1e400}}"#,
            r#"{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 18446744073709551615, "completion_tokens": -1}}"#,
            r#"{"role": "assistant", "tool_calls": [{"id": "a", "id": "b", "function": {"name": "f", "arguments": {"x": 1}}}]}"#,
            r#"{"role": "assistant", "tool_calls": "not a list", "function_call": {"name": "g"}}"#,
            r#"{"role": "function_call", "content": "{\"name\": \"f\", \"arguments\": {}}"}"#,
            r#"{"role": "assistant", "reasoning_content": "think", "reasoning": 3, "content": ""}"#,
            r#""a string, not a message""#,
            r#"[{"role": "user"}]"#,
            r#"{}"#,
        ]
        .map(String::from)
        .into();
        // Deep members, alone and beside a member the whole decode has to mend (which mends
        // everything nested past its depth limit too).
        for depth in (90..=135)
            .step_by(3)
            .chain([97, 98, 99, 100, 126, 127, 128])
        {
            let content = nested("[", "\"x\"", "]", depth);
            let arguments = nested("{\"a\": ", "1", "}", depth);
            let call = format!(
                r#"[{{"id": "c", "function": {{"name": "f", "arguments": {arguments}}}}}]"#
            );
            for elsewhere in ["", r#", "name": "\ud800""#] {
                messages.push(format!(
                    r#"{{"role": "user", "content": {content}{elsewhere}}}"#
                ));
                messages.push(format!(
                    r#"{{"role": "assistant", "tool_calls": {call}{elsewhere}}}"#
                ));
            }
        }
        let unsplit = Node::new(parse_raw(&messages[0]).unwrap());
        assert!(picked_members(&unsplit, super::super::openai::MESSAGE.keys).is_none());
        let mut took_members = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            for reader in [
                &super::super::openai::MESSAGE,
                &super::super::anthropic::MESSAGE,
            ] {
                let (read, whole, picked) = read_both(message, reader);
                assert_eq!(read, whole, "{message}");
                if picked {
                    took_members.push(i);
                }
            }
        }
        // Not every message fell back to the whole decode: a plain one, an odd role, one with
        // a broken string in a member no reader looks at, one nested 90 deep.
        for i in [0, 4, 7, 14, 24] {
            assert!(took_members.contains(&i), "{}", messages[i]);
        }
        // What a user would see of two of them: the last of a repeated key counts.
        let (read, ..) = read_both(&messages[1], &super::super::openai::MESSAGE);
        assert!(read.contains("role: Assistant"), "{read}");
        let (read, ..) = read_both(&messages[2], &super::super::openai::MESSAGE);
        assert!(
            read.contains("\"second\"") && !read.contains("\"first\""),
            "{read}"
        );
    }
}
