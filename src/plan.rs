//! The working edit of one conversation while strategies run: a list of [`OutItem`]s over the
//! original items, with what the engine knows about those items ([`Subject`]) to price and
//! group it.
//!
//! Strategies never see raw bytes. They look at the plan as *units* — runs of output items that
//! share a tool-call group or logical message, so no step can split a call from its results —
//! and replace runs of units with summaries, drop them, or rewrite tool outputs. Every change
//! keeps the output items in original order, so a summary always stands for one contiguous
//! range of original items.

use crate::count::{count_conversation, first_of_message};
use crate::preserve::{Hold, holds};
use crate::tokens::{TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, TokenCounter};
use crate::transcript::{
    CallEdit, Conversation, Format, Item, Kind, OutItem, Part, PartKind, Role, SUMMARY_MARKER,
    Transcript,
};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

/// A conversation as the engine sees it before any edit.
pub struct Subject<'a> {
    /// The conversation.
    pub conv: &'a Conversation,
    /// The transcript's source text (items' spans point into it).
    pub source: &'a str,
    /// Record members that only duplicate what the model is sent (`OutItem::Strip` removes them).
    pub copy_members: &'static [&'static str],
    /// The counter every price is taken with.
    pub counter: &'a TokenCounter,
    /// Context tokens of each original item.
    pub tokens: Vec<usize>,
    /// Tokens of the preamble (tool definitions, top-level system prompt).
    pub preamble_tokens: usize,
    /// For each item, whether it pays its logical message's overhead (one record a message).
    pub first_of_message: Vec<bool>,
    /// For each item, its tool-call group (index into `groups`).
    pub group_of: Vec<usize>,
    /// The tool-call groups, as ranges of item indices.
    pub groups: Vec<Range<usize>>,
    /// What compaction may do with each item.
    pub holds: Vec<Hold>,
    /// Whether user and assistant turns must strictly alternate (ShareGPT).
    pub strict_alternation: bool,
    /// Whether the format can drop a message's thinking blocks ([`OutItem::DropThinking`]).
    pub drops_thinking_blocks: bool,
    /// Whether the format can rewrite a call's arguments ([`OutItem::ReplaceArguments`]).
    pub rewrites_arguments: bool,
    /// Each item's tokens once stripped, taken the first time a plan asks: pricing a strip
    /// parses the record for its media stubs, and the engine prices the same items over and
    /// over while it lands on a target.
    stripped: Vec<OnceLock<usize>>,
}

impl<'a> Subject<'a> {
    /// Counts and classifies conversation `c` of `t`.
    pub fn new(t: &'a Transcript, c: usize, counter: &'a TokenCounter) -> Self {
        Self::of(t.format, &t.source, &t.conversations[c], counter)
    }

    /// Counts and classifies `conv`, of a `format` transcript whose text is `source`.
    pub fn of(
        format: Format,
        source: &'a str,
        conv: &'a Conversation,
        counter: &'a TokenCounter,
    ) -> Self {
        let counts = count_conversation(counter, conv);
        let groups = conv.groups();
        let mut group_of = vec![0; conv.items.len()];
        for (g, range) in groups.iter().enumerate() {
            range.clone().for_each(|i| group_of[i] = g);
        }
        Subject {
            holds: holds(conv, &groups),
            conv,
            source,
            copy_members: format.copy_members(),
            counter,
            tokens: counts.items,
            first_of_message: first_of_message(conv),
            preamble_tokens: counts.preamble,
            group_of,
            groups,
            strict_alternation: format.strict_alternation(),
            drops_thinking_blocks: format.drops_thinking_blocks(),
            rewrites_arguments: format.rewrites_arguments(),
            stripped: (0..conv.items.len()).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The raw text of item `i`.
    pub fn raw(&self, i: usize) -> &'a str {
        &self.source[self.conv.items[i].span.clone()]
    }

    /// The plan that keeps everything.
    pub fn keep_all(&self) -> Plan {
        Plan {
            items: (0..self.conv.items.len()).map(OutItem::Keep).collect(),
        }
    }

    /// Tokens of one output item.
    pub fn out_tokens(&self, out: &OutItem) -> usize {
        match out {
            OutItem::Keep(i) => self.tokens[*i],
            OutItem::Strip(i) => self.stripped_tokens(*i),
            // A result is replaced whole, its images and documents with it.
            OutItem::ReplaceResult(i, text) => self.replaced_tokens(*i, text, |k| {
                matches!(k, PartKind::ToolResult | PartKind::Media)
            }),
            OutItem::ReplaceText(i, text) => {
                self.replaced_tokens(*i, text, |k| k == PartKind::Text)
            }
            OutItem::DropThinking(i) => self.replaced_tokens(*i, "", |k| k == PartKind::Thinking),
            OutItem::ReplaceArguments(i, edits) => self.edited_call_tokens(*i, edits),
            OutItem::Summary { text, .. } => self.summary_tokens(text),
        }
    }

    /// Tokens of a summary message holding `text`.
    pub fn summary_tokens(&self, text: &str) -> usize {
        TOKENS_PER_MESSAGE + self.counter.count(&summary_content(text))
    }

    /// Tokens of item `i` once [`OutItem::Strip`] replaced its large media with text stubs.
    fn stripped_tokens(&self, i: usize) -> usize {
        *self.stripped[i].get_or_init(|| self.count_stripped(i))
    }

    fn count_stripped(&self, i: usize) -> usize {
        if !self.conv.items[i].in_context {
            return self.tokens[i];
        }
        let stubs = crate::transcript::payload::stubs(self.raw(i), self.copy_members);
        let stub_tokens: usize = stubs.iter().map(|s| self.counter.count(s)).sum();
        self.tokens[i] - (stubs.len() * crate::count::MEDIA_TOKENS).min(self.tokens[i])
            + stub_tokens
    }

    /// Tokens of item `i` with the call arguments `edits` names rewritten.
    fn edited_call_tokens(&self, i: usize, edits: &[CallEdit]) -> usize {
        let args = self.conv.items[i]
            .parts
            .iter()
            .filter(|p| p.kind == PartKind::ToolArguments);
        let (old, new) = args
            .enumerate()
            .filter_map(|(k, p)| Some((p, edits.iter().find(|e| e.call == k)?)))
            .fold((0, 0), |(old, new), (p, e)| {
                (
                    old + self.counter.count(&p.text),
                    new + self.counter.count(&e.arguments),
                )
            });
        self.tokens[i] - old.min(self.tokens[i]) + new
    }

    fn replaced_tokens(&self, i: usize, text: &str, replaced: impl Fn(PartKind) -> bool) -> usize {
        let item = &self.conv.items[i];
        let old: usize = item
            .parts
            .iter()
            .filter(|p| replaced(p.kind))
            .map(|p| crate::count::part_tokens(self.counter, p))
            .sum();
        self.tokens[i] - old.min(self.tokens[i]) + self.counter.count(text)
    }

    /// The item an output item puts before the model, for summarizers and scoring.
    pub fn entry(&self, out: &OutItem) -> Cow<'a, Item> {
        let conv = self.conv;
        match out {
            OutItem::Keep(i) | OutItem::Strip(i) => Cow::Borrowed(&conv.items[*i]),
            OutItem::ReplaceResult(i, text) => {
                Cow::Owned(replace_parts(&conv.items[*i], PartKind::ToolResult, text))
            }
            OutItem::ReplaceText(i, text) => {
                Cow::Owned(replace_parts(&conv.items[*i], PartKind::Text, text))
            }
            OutItem::DropThinking(i) => {
                let mut item = conv.items[*i].clone();
                item.parts.retain(|p| p.kind != PartKind::Thinking);
                Cow::Owned(item)
            }
            OutItem::ReplaceArguments(i, edits) => {
                let mut item = conv.items[*i].clone();
                let args = item
                    .parts
                    .iter_mut()
                    .filter(|p| p.kind == PartKind::ToolArguments);
                for (k, part) in args.enumerate() {
                    if let Some(edit) = edits.iter().find(|e| e.call == k) {
                        part.text.clone_from(&edit.arguments);
                    }
                }
                Cow::Owned(item)
            }
            OutItem::Summary { text, replaces } => {
                let first = &conv.items[replaces.start];
                let mut item = Item::new(first.span.clone(), first.line, Role::User, Kind::Summary);
                item.parts
                    .push(Part::new(PartKind::Text, summary_content(text)));
                item.ctxc_summary = true;
                Cow::Owned(item)
            }
        }
    }
}

/// The content of a summary message as adapters write it.
pub fn summary_content(text: &str) -> String {
    // Not `format!`: a plan's summaries are priced every time the engine counts the plan,
    // and the formatting machinery cost four times the copy (18 M instructions of compacting
    // the tau-bench file).
    let mut content = String::with_capacity(SUMMARY_MARKER.len() + 1 + text.len());
    content.push_str(SUMMARY_MARKER);
    content.push('\n');
    content.push_str(text);
    content
}

fn replace_parts(item: &Item, kind: PartKind, text: &str) -> Item {
    let mut edited = item.clone();
    edited.parts.retain(|p| p.kind != kind);
    edited.parts.push(Part::new(kind, text));
    edited
}

/// The output items of a conversation being compacted, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The output items.
    pub items: Vec<OutItem>,
}

/// Which side of the conversation a message is on, for alternation rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// User messages, tool results, summaries.
    User,
    /// Assistant messages and tool calls.
    Assistant,
    /// System messages and records that are not messages.
    Neither,
}

/// A run of output items that no step may split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Positions in the plan.
    pub elements: Range<usize>,
    /// Context tokens.
    pub tokens: usize,
    /// Whether every item in it may be removed or rewritten.
    pub free: bool,
    /// Whether it is a summary (ctxc's or the runtime's).
    pub summary: bool,
    /// Whether it holds no message the model sees (only stored records).
    pub silent: bool,
    /// Logical user-side messages in it (user messages and tool results).
    pub user_messages: usize,
    /// Logical assistant messages in it.
    pub assistant_messages: usize,
    /// The side of its first message.
    pub first_side: Side,
}

impl Plan {
    /// Context tokens of the plan, reply priming included.
    pub fn tokens(&self, s: &Subject) -> usize {
        s.preamble_tokens
            + self.items.iter().map(|o| s.out_tokens(o)).sum::<usize>()
            + TOKENS_PER_REPLY
    }

    /// The plan's units, in order.
    pub fn units(&self, s: &Subject) -> Vec<Unit> {
        let mut units: Vec<Unit> = Vec::new();
        let mut last_group: Option<usize> = None;
        for (at, out) in self.items.iter().enumerate() {
            let originals = out.originals();
            let first_group = s.group_of[originals.start];
            let joins = last_group.is_some_and(|g| first_group <= g);
            last_group = Some(s.group_of[originals.end - 1]);
            let element = element_unit(s, at, out);
            match units.last_mut() {
                Some(unit) if joins => unit.absorb(element),
                _ => units.push(element),
            }
        }
        units
    }

    /// What the model sees of the plan's items at `elements`.
    pub fn entries<'a>(&self, s: &Subject<'a>, elements: Range<usize>) -> Vec<Cow<'a, Item>> {
        self.items[elements].iter().map(|o| s.entry(o)).collect()
    }

    /// Replaces the elements of `units[run]` with one summary of `text`.
    pub fn summarize(&mut self, units: &[Unit], run: Range<usize>, text: String) {
        let elements = units[run.start].elements.start..units[run.end - 1].elements.end;
        let replaces = self.items[elements.start].originals().start
            ..self.items[elements.end - 1].originals().end;
        self.items
            .splice(elements, [OutItem::Summary { text, replaces }]);
    }

    /// Removes the elements of `units[run]`.
    pub fn drop_units(&mut self, units: &[Unit], run: Range<usize>) {
        let elements = units[run.start].elements.start..units[run.end - 1].elements.end;
        self.items.drain(elements);
    }

    /// Counts of the plan's logical messages and user turns as the model would see them.
    pub fn measures(&self, s: &Subject) -> (usize, usize) {
        let units = self.units(s);
        let events = units
            .iter()
            .map(|u| u.user_messages + u.assistant_messages)
            .sum();
        let turns = self
            .items
            .iter()
            .filter(|o| match o {
                OutItem::Summary { .. } => false,
                other => other.kept().is_some_and(|i| {
                    let item = &s.conv.items[i];
                    item.in_context && item.kind == Kind::User
                }),
            })
            .count();
        (turns, events)
    }
}

impl Unit {
    fn absorb(&mut self, other: Unit) {
        self.elements.end = other.elements.end;
        self.tokens += other.tokens;
        self.free &= other.free;
        self.summary |= other.summary;
        self.silent &= other.silent;
        self.user_messages += other.user_messages;
        self.assistant_messages += other.assistant_messages;
        if self.first_side == Side::Neither {
            self.first_side = other.first_side;
        }
    }
}

fn element_unit(s: &Subject, at: usize, out: &OutItem) -> Unit {
    let tokens = s.out_tokens(out);
    let elements = at..at + 1;
    let Some(i) = out.kept() else {
        return Unit {
            elements,
            tokens,
            free: true,
            summary: true,
            silent: false,
            user_messages: 1,
            assistant_messages: 0,
            first_side: Side::User,
        };
    };
    let item = &s.conv.items[i];
    let counted = item.in_context && item.kind != Kind::NonContext && s.first_of_message[i];
    let side = side_of(item);
    Unit {
        elements,
        tokens,
        free: s.holds[i].is_free(),
        summary: item.kind == Kind::Summary,
        silent: !item.in_context || item.kind == Kind::NonContext,
        user_messages: usize::from(counted && side == Side::User),
        assistant_messages: usize::from(counted && side == Side::Assistant),
        first_side: if item.in_context { side } else { Side::Neither },
    }
}

/// The side of the conversation an item is on.
pub fn side_of(item: &Item) -> Side {
    match item.kind {
        Kind::System | Kind::NonContext => Side::Neither,
        Kind::User | Kind::ToolResult | Kind::Summary => Side::User,
        Kind::AssistantText | Kind::ToolCall | Kind::Thinking => Side::Assistant,
    }
}

/// Maximal runs of consecutive units for which `pick` holds.
pub fn runs(units: &[Unit], pick: impl Fn(usize, &Unit) -> bool) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = None;
    for (u, unit) in units.iter().enumerate() {
        match (pick(u, unit), start) {
            (true, None) => start = Some(u),
            (false, Some(s)) => {
                runs.push(s..u);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push(s..units.len());
    }
    runs
}

/// `run` narrowed so that a user-side summary can stand in its place: with strict
/// alternation it must start on a user-side unit and be followed by an assistant-side one.
pub fn fit_summary_run(s: &Subject, units: &[Unit], run: Range<usize>) -> Option<Range<usize>> {
    if !s.strict_alternation {
        return (!run.is_empty()).then_some(run);
    }
    let start = (run.start..run.end).find(|&u| units[u].first_side == Side::User)?;
    let end = (start + 1..=run.end).rev().find(|&e| {
        units
            .get(e)
            .is_some_and(|u| u.first_side == Side::Assistant)
    })?;
    (start < end).then_some(start..end)
}

/// `run` reaching back over an earlier ctxc summary right before it (past silent records that
/// may go), so the new summary absorbs it instead of standing after it: the summarizer merges
/// the earlier one's lists, task included, and repeated runs do not stack summaries.
pub fn absorb_earlier_summary(
    s: &Subject,
    plan: &Plan,
    units: &[Unit],
    run: Range<usize>,
) -> Range<usize> {
    let mut start = run.start;
    while start > 0 && units[start - 1].silent && units[start - 1].free {
        start -= 1;
    }
    let earlier = start.checked_sub(1).filter(|&u| {
        let elements = &units[u].elements;
        elements.len() == 1
            && plan.items[elements.start]
                .kept()
                .is_some_and(|i| crate::preserve::mergeable(s.holds[i], &s.conv.items[i]))
    });
    earlier.map_or(run.clone(), |u| u..run.end)
}

/// `run` narrowed so that it can be removed: with strict alternation it must start on a
/// user-side unit and be followed by another (or by nothing).
pub fn fit_drop_run(s: &Subject, units: &[Unit], run: Range<usize>) -> Option<Range<usize>> {
    if !s.strict_alternation {
        return (!run.is_empty()).then_some(run);
    }
    let start = (run.start..run.end).find(|&u| units[u].first_side == Side::User)?;
    let end = (start + 1..=run.end)
        .rev()
        .find(|&e| units.get(e).is_none_or(|u| u.first_side == Side::User))?;
    (start < end).then_some(start..end)
}
