//! The `[action, observation]` pair form of an OpenHands history: early evaluation output
//! (`state.history.compatibility_for_eval_history_pairs()`, `history: list[tuple[dict, dict]]`)
//! stores each step as a 2-array of serialized events, a message action paired with a `null`
//! observation. ctxc reads the events in order, as if the pairs were flattened (a `null`
//! observation, which reaches no model, is no item but part of its pair), and writes an
//! edited history as pairs again: events that came from one pair stay in one pair (a pair both
//! of whose events are kept is copied byte for byte, with any edited event spliced into it), and
//! a summary is a pair of its own, and an event left alone in its pair (a summary, or an event
//! whose partner a summary replaced) is paired with a `null` observation, as OpenHands pairs an
//! action that had no observation.

use super::super::{Conversation, OutItem, Transcript};
use super::is_event;
use crate::json::{ArrayLayout, Node, Span, array_elements, parse_raw, span_of};

/// A pair: an array of one or two elements, the first of them an event.
pub(super) fn is_pair(node: &Node) -> bool {
    node.elements().is_some_and(|e| {
        (1..=2).contains(&e.len()) && is_event(&e[0]) && e.iter().all(|x| x.get().starts_with('{'))
    })
}

/// Whether a history (its first element) is in the pair form.
pub(super) fn is_pair_list(list: &Node) -> bool {
    list.elements()
        .is_some_and(|e| e.first().is_some_and(is_pair))
}

/// The events of a history, flattened when it is in the pair form, in order.
pub(super) fn events<'d, 'a>(list: &'d Node<'a>) -> Vec<&'d Node<'a>> {
    let elements = list.elements().unwrap_or_default();
    if !is_pair_list(list) {
        return elements.iter().collect();
    }
    elements
        .iter()
        .flat_map(|pair| {
            let events = pair.elements().unwrap_or_default();
            let n = 1 + usize::from(events.get(1).is_some_and(|o| !is_null(o)));
            events.iter().take(n)
        })
        .collect()
}

/// A `null` observation: in a pair, the partner of an action that had no observation. It
/// reaches no model and is no item: it is written back with its action, and an action left
/// alone gets a new one.
fn is_null(node: &Node) -> bool {
    node.members().is_some_and(|m| {
        m.iter()
            .any(|(k, v)| k == "observation" && v.get() == r#""null""#)
    })
}

/// The layout of a pair history's outer array: its elements are the pairs.
pub(super) fn layout(list: &Node) -> ArrayLayout {
    let text = list.get();
    let spans: Vec<Span> = list
        .elements()
        .unwrap_or_default()
        .iter()
        .map(|p| span_of(text, p.get()))
        .collect();
    ArrayLayout::of(text, &spans)
}

/// The `null` observation an unpaired event is paired with.
const NULL_OBSERVATION: &str =
    r#"{"message": "No observation", "observation": "null", "content": "", "extras": {}}"#;

/// Writes an edited pair history: `texts` are the rendered events of `items`, grouped back into
/// the pairs their events came from (a summary: the pair of the first event it replaces).
pub(super) fn render(
    t: &Transcript,
    conv: &Conversation,
    items: &[OutItem],
    texts: &[String],
    out: &mut String,
) {
    let list_text = &t.source[conv.span.clone()];
    let Ok(list) = parse_raw(list_text) else {
        return;
    };
    let pairs: Vec<Span> = array_elements(list)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let s = span_of(list_text, p.get());
            s.start + conv.span.start..s.end + conv.span.start
        })
        .collect();
    let pair_of = |k: usize| {
        let at = match &items[k] {
            OutItem::Summary { replaces, .. } => replaces.start,
            other => other.kept().unwrap_or(0),
        };
        let start = conv.items[at].span.start;
        pairs.iter().position(|p| p.contains(&start))
    };
    let mut written: Vec<String> = Vec::new();
    let mut k = 0;
    while k < items.len() {
        let pair = pair_of(k);
        let mut end = k + 1;
        let summary = |k: usize| matches!(items[k], OutItem::Summary { .. });
        while end < items.len()
            && end - k < 2
            && pair.is_some()
            && !summary(k)
            && !summary(end)
            && pair_of(end) == pair
        {
            end += 1;
        }
        written.push(write_pair(t, conv, pair.map(|p| &pairs[p]), items, texts, k..end));
        k = end;
    }
    layout(&Node::new(list)).render_into(written, out);
}

/// One pair holding the events `range` of `items`: the source pair with the events spliced
/// in when it held exactly these events, else a new 2-array.
fn write_pair(
    t: &Transcript,
    conv: &Conversation,
    pair: Option<&Span>,
    items: &[OutItem],
    texts: &[String],
    range: std::ops::Range<usize>,
) -> String {
    let kept: Vec<Span> = range
        .clone()
        .filter_map(|k| items[k].kept().map(|i| conv.items[i].span.clone()))
        .collect();
    if let Some(pair) = pair {
        let inside: Vec<&Span> = conv
            .items
            .iter()
            .map(|i| &i.span)
            .filter(|s| pair.contains(&s.start))
            .collect();
        if kept.len() == range.len() && inside.len() == kept.len() {
            let mut out = String::new();
            let mut at = pair.start;
            for (span, k) in kept.iter().zip(range) {
                out.push_str(&t.source[at..span.start]);
                out.push_str(&texts[k]);
                at = span.end;
            }
            out.push_str(&t.source[at..pair.end]);
            return out;
        }
    }
    let mut events: Vec<&str> = range.map(|k| texts[k].as_str()).collect();
    if events.len() < 2 {
        events.push(NULL_OBSERVATION);
    }
    format!("[{}]", events.join(", "))
}
