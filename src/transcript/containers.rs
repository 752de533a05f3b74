//! Where message lists live in a document, and reading them: a JSON array of messages; an
//! object holding the list under `messages`, `history` (SWE-agent `.traj`) or a similar key;
//! an array of run objects each holding a list (tau-bench `traj`, dataset files); JSONL with
//! one message per line or one conversation object per line; or any list named by
//! `--messages-path`. Shared by the OpenAI and Anthropic adapters, which store messages the
//! same way and differ only in how one message is parsed.

use super::common::{lines_span, value_error};
use super::{
    Conversation, Doc, Item, Kind, ListLayout, Part, PartKind, ReadError, ReadOptions, Role,
};
use crate::json::{ArrayLayout, Node};
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

/// Reads every list `find_lists` names, parsing each element with `parse`, and hands each
/// conversation to `each`; returns the container description.
pub(super) fn read_lists(
    doc: &Doc,
    opts: &ReadOptions,
    parse: fn(&mut Value, &mut Item),
    each: &mut dyn FnMut(Conversation),
) -> Result<String, ReadError> {
    let lists = find_lists(doc, opts.messages_path.as_deref())?;
    if lists.is_empty() {
        return Err(ReadError::whole(format!(
            "no message list found: {}",
            doc.describe()
        )));
    }
    let container = describe_container(doc, &lists);
    let mut fn_calls = 0;
    for list in lists {
        let mut conv = match list {
            ListRef::Array {
                location,
                list,
                owner,
            } => array_conversation(doc, location, list, owner, parse)?,
            ListRef::AllLines => lines_conversation(doc, parse)?,
        };
        pair_legacy_function_calls(&mut conv, &mut fn_calls);
        each(conv);
    }
    Ok(container)
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

fn array_conversation(
    doc: &Doc,
    location: String,
    list: &Node,
    owner: Option<&Node>,
    parse: fn(&mut Value, &mut Item),
) -> Result<Conversation, ReadError> {
    let elements = list.elements().unwrap_or_default();
    let base = doc.span_of(list).start;
    let mut items = Vec::with_capacity(elements.len());
    let mut relative = Vec::with_capacity(elements.len());
    for element in elements {
        let span = doc.span_of(element);
        relative.push(span.start - base..span.end - base);
        items.push(parse_item(doc, element.get(), span, parse)?);
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

fn lines_conversation(
    doc: &Doc,
    parse: fn(&mut Value, &mut Item),
) -> Result<Conversation, ReadError> {
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
    for line in lines {
        items.push(parse_item(doc, line.node.get(), line.range(), parse)?);
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
    text: &str,
    span: crate::json::Span,
    parse: fn(&mut Value, &mut Item),
) -> Result<Item, ReadError> {
    let line = doc.line_of(span.start);
    let mut value: Value =
        crate::json::lenient::value(text).map_err(|e| value_error(line, span.start, &e))?;
    let mut item = Item::new(span, line, Role::None, Kind::NonContext);
    // `parse` may move the message's texts out of the value rather than copy them.
    parse(&mut value, &mut item);
    Ok(item)
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
            call.id = format!("function-call-{counter}");
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
