//! The format-neutral transcript model and the format adapters.
//!
//! A [`Transcript`] is a source text plus the conversations found in it. Each conversation is a
//! list of [`Item`]s — one per stored record or message — that remember the byte span they came
//! from, so anything a compaction leaves alone is written back byte-for-byte. Adapters (one file
//! per format, behind [`Adapter`]) read a parsed [`Doc`] into this model and write an edited
//! conversation back in their own shape; everything above them (check, tokens, strategies) sees
//! only the model.

mod check;
mod common;
mod containers;
mod doc;
pub mod edit;
mod item;
pub mod payload;
pub mod replay;
mod text_actions;

pub use common::{text_call, trailing_action};

pub use check::{
    Finding, PairingFault, StrayWhy, check, conversation_findings, pairing_faults, sort_findings,
};
pub use claude_code::uuid_from;
pub use doc::{Doc, Line, ParseError, TornTail};
pub use gemini::{ignored_user_text as gemini_ignored_user_text, user_text as gemini_user_text};
pub use item::{Item, Kind, Part, PartKind, Role, TextCall, ToolCall, Usage};
pub use pi::sent_order as pi_sent_order;
pub use qwen::{ORPHAN_REASON as QWEN_ORPHAN_REASON, user_text as qwen_user_text};

use crate::json::{ArrayLayout, Span};
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// Declares the formats: for each, its enum variant, its name on the command line and in
/// reports, its module and its adapter. The order is detection order (most specific first),
/// [`Format::ALL`]'s. Adding a format is one new adapter file under `transcript/` and one line
/// here.
macro_rules! formats {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal => $module:ident::$adapter:ident,)*) => {
        $(mod $module;)*

        /// The transcript formats ctxc reads and writes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Format {
            /// Every format, in detection order (most specific first).
            pub const ALL: [Format; [$($name),*].len()] = [$(Format::$variant),*];

            /// The name used on the command line and in reports.
            pub fn name(self) -> &'static str {
                match self {
                    $(Format::$variant => $name,)*
                }
            }

            fn adapter(self) -> &'static dyn Adapter {
                match self {
                    $(Format::$variant => &$module::$adapter,)*
                }
            }
        }
    };
}

formats! {
    /// Qwen Code session JSONL (`uuid` / `parentUuid` records holding Gemini `parts`).
    Qwen = "qwen" => qwen::Qwen,
    /// Claude Code session JSONL (and its `{"loglines": [...]}` JSON form).
    ClaudeCode = "claude-code" => claude_code::ClaudeCode,
    /// Codex CLI rollout JSONL (and JSON arrays of rollout lines).
    Codex = "codex" => codex::Codex,
    /// pi coding agent session JSONL (`id` / `parentId` entries after a `session` header).
    Pi = "pi" => pi::Pi,
    /// Gemini CLI session JSONL (a metadata record, then message records) and its older JSON.
    Gemini = "gemini" => gemini::Gemini,
    /// ShareGPT `{"conversations": [{"from", "value"}]}`.
    ShareGpt = "sharegpt" => sharegpt::ShareGpt,
    /// OpenHands event streams (a JSON array of events, or runs with a `history` of events).
    OpenHands = "openhands" => openhands::OpenHands,
    /// OpenHands V1 software-agent-sdk events (`kind`-tagged, as a list or one per line).
    OpenHandsSdk = "openhands-sdk" => openhands_sdk::OpenHandsSdk,
    /// ATIF trajectories (Harbor's Agent Trajectory Interchange Format).
    Atif = "atif" => atif::Atif,
    /// Anthropic Messages API (`system`, `tools`, `messages` with content blocks).
    Anthropic = "anthropic" => anthropic::Anthropic,
    /// OpenAI Chat Completions messages, in any of the containers DESIGN lists.
    OpenAi = "openai" => openai::OpenAi,
}

impl Format {
    /// Record members that only duplicate what the model is sent.
    pub fn copy_members(self) -> &'static [&'static str] {
        self.adapter().copy_members()
    }

    /// Whether user-side and assistant-side turns must strictly alternate in this format.
    pub fn strict_alternation(self) -> bool {
        self.adapter().strict_alternation()
    }

    /// Whether verifying an output of this format, written from an input of `source_len`
    /// bytes, takes the records it copies from the input ([`read_back`]): the items a plan
    /// keeps must then keep their decoded content until then.
    pub fn reads_back_copies(self, source_len: usize) -> bool {
        self.adapter().reads_back_copies(source_len)
    }

    /// Whether [`OutItem::DropThinking`] removes thinking blocks from this format's messages.
    pub fn drops_thinking_blocks(self) -> bool {
        self.adapter().drops_thinking_blocks()
    }

    /// Whether [`OutItem::ReplaceArguments`] rewrites tool call arguments in this format.
    pub fn rewrites_arguments(self) -> bool {
        self.adapter().rewrites_arguments()
    }

    /// The format's own repair steps for a JSON Lines session ([`Adapter::repair_steps`]), in
    /// the order `ctxc repair` takes them.
    pub fn repair_steps(self) -> &'static [edit::Step] {
        self.adapter().repair_steps()
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown format '{s}' (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// How a conversation's items are laid out in the source, so an edited list can be written in
/// the same style.
#[derive(Debug, Clone)]
pub enum ListLayout {
    /// Elements of a JSON array.
    Array(ArrayLayout),
    /// One item per line (JSONL). Each line written keeps the ending it had in the source
    /// (see `line_end`); these say how the file ends and what most lines end with.
    Lines {
        /// The line terminator most lines use (`\n` or `\r\n`).
        newline: &'static str,
        /// Whether the last line ends with a terminator.
        trailing_newline: bool,
    },
    /// A document that is a single record (a pretty-printed object). Written back as-is while
    /// its one item is kept; edited records are joined by newlines.
    Single,
}

/// One conversation: the unit ctxc compacts.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// The bytes of the whole list in the source (the array, or the run of lines).
    pub span: Span,
    /// Where the list sits, e.g. `/3/traj` (empty for a whole-file list).
    pub location: String,
    /// The items, in order.
    pub items: Vec<Item>,
    /// Content sent with every request but kept outside the list: tool definitions, a
    /// top-level system prompt. Always preserved.
    pub preamble: Vec<Part>,
    /// How the list is written.
    pub layout: ListLayout,
    /// The model the transcript says answered last (Claude Code `message.model`).
    pub model: Option<String>,
    /// The context window the client recorded (Codex `token_count` `model_context_window`).
    pub context_window: Option<usize>,
}

impl Conversation {
    /// Frees every item's decoded content (its parts) once nothing needs it any more, keeping
    /// spans, lines, links, flags and the preamble: all that writing, verifying and archiving
    /// read. A large input's decoded text weighs about as much as the input itself.
    pub fn release_parts(&mut self) {
        self.release_parts_except(&[]);
    }

    /// Like [`Conversation::release_parts`], but items `keep[i]` keep theirs.
    pub fn release_parts_except(&mut self, keep: &[bool]) {
        for (i, item) in self.items.iter_mut().enumerate() {
            if !keep.get(i).copied().unwrap_or(false) {
                item.parts = Vec::new();
            }
        }
    }

    /// Units that no step may split: a tool call with every item up to its last result, and
    /// the records of one logical message. Returned as sorted, disjoint, covering index ranges.
    pub fn groups(&self) -> Vec<Range<usize>> {
        let n = self.items.len();
        // reach[i] = the last index that must stay with item i.
        let mut reach: Vec<usize> = (0..n).collect();
        let mut call_at = std::collections::HashMap::new();
        let mut message_at = std::collections::HashMap::new();
        for (i, item) in self.items.iter().enumerate() {
            for call in &item.calls {
                call_at.insert(call.id.as_str(), i);
            }
            for id in &item.results {
                if let Some(&c) = call_at.get(id.as_str()) {
                    reach[c] = reach[c].max(i);
                }
            }
            if let Some(id) = &item.message_id {
                let first = *message_at.entry(id.as_str()).or_insert(i);
                reach[first] = reach[first].max(i);
            }
        }
        let mut groups = Vec::new();
        let mut start = 0;
        let mut end = 0;
        for (i, &r) in reach.iter().enumerate() {
            end = end.max(r);
            if i == end {
                groups.push(start..i + 1);
                start = i + 1;
            }
        }
        groups
    }
}

/// A transcript file read into the model.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The format it was read as.
    pub format: Format,
    /// The full source text (a UTF-8 BOM, if any, included).
    pub source: String,
    /// The conversations found in it, in source order.
    pub conversations: Vec<Conversation>,
    /// A short description of the container, e.g. `json array`, `jsonl`, `object /history`.
    pub container: String,
}

/// The first line of every summary message ctxc writes; how ctxc recognises its own summaries.
pub const SUMMARY_MARKER: &str = "[ctxc summary]";

/// How every note ctxc leaves in place of what it removed from a message begins (`[ctxc:
/// output of Bash masked, ...]`, `[ctxc: 80 of 100 lines ... cut from this output ...]`,
/// `[ctxc: image/png removed, ...]`): how ctxc recognises a message it edited.
pub const EDIT_MARKER: &str = "[ctxc: ";

/// Whether `text` holds an [`EDIT_MARKER`]: with a searcher built once, as every part of every
/// message is asked (`str::contains` reads every byte; memmem skips on a rare one).
pub fn holds_edit_marker(text: &str) -> bool {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(EDIT_MARKER));
    FINDER.find(text.as_bytes()).is_some()
}

/// An item of an edited conversation, as a strategy leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutItem {
    /// Item `i` of the conversation, written back byte-for-byte.
    Keep(usize),
    /// A ctxc summary message standing in for the items it replaced (`replaces`, indices into
    /// the original conversation), written where those items were.
    Summary {
        /// The summary text (without [`SUMMARY_MARKER`], which the adapter adds).
        text: String,
        /// The original items this summary replaces.
        replaces: Range<usize>,
    },
    /// Item `i`, a tool result, with its output replaced by this text (masking, truncation).
    ReplaceResult(usize, String),
    /// Item `i`, a text message, with its text replaced by this text (truncation).
    ReplaceText(usize, String),
    /// Item `i` without its stored payloads: duplicate copies that never reach the model
    /// (Claude Code `toolUseResult`) removed, and embedded base64 media above
    /// [`payload::MEDIA_STUB_MIN_BYTES`] replaced by a text stub naming its type, size and hash.
    Strip(usize),
    /// Item `i`, an assistant message, without its thinking blocks: a signed block cannot be
    /// edited, so old thinking goes whole while the rest of the message stays.
    DropThinking(usize),
    /// Item `i`, an assistant message, with some of its tool calls' arguments rewritten (the
    /// bulk inside them cut to a marked head), everything else byte-for-byte.
    ReplaceArguments(usize, Vec<CallEdit>),
}

/// New arguments for one tool call of an item ([`OutItem::ReplaceArguments`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallEdit {
    /// Which call: the index among the item's [`PartKind::ToolArguments`] parts.
    pub call: usize,
    /// The new arguments as that part reads them: JSON text where the call's arguments are
    /// JSON, else the text itself. Adapters write it back in the call's own shape (a JSON
    /// object stays an object, a JSON string holding JSON stays a string).
    pub arguments: String,
}

impl OutItem {
    /// The original items this output item stands for.
    pub fn originals(&self) -> Range<usize> {
        match self {
            OutItem::Keep(i)
            | OutItem::ReplaceResult(i, _)
            | OutItem::ReplaceText(i, _)
            | OutItem::Strip(i)
            | OutItem::DropThinking(i)
            | OutItem::ReplaceArguments(i, _) => *i..*i + 1,
            OutItem::Summary { replaces, .. } => replaces.clone(),
        }
    }

    /// The original item written (possibly edited) in this output item's place, if any.
    pub fn kept(&self) -> Option<usize> {
        match self {
            OutItem::Keep(i)
            | OutItem::ReplaceResult(i, _)
            | OutItem::ReplaceText(i, _)
            | OutItem::Strip(i)
            | OutItem::DropThinking(i)
            | OutItem::ReplaceArguments(i, _) => Some(*i),
            OutItem::Summary { .. } => None,
        }
    }
}

/// Options that steer reading.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Force this format instead of detecting it.
    pub format: Option<Format>,
    /// A JSON pointer (with `*` for "each element") naming the message lists.
    pub messages_path: Option<String>,
}

/// Why a file could not be read as a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// Problems found, each with its line (0 when the whole file is concerned).
    pub findings: Vec<Finding>,
}

impl ReadError {
    /// An error about the whole file.
    pub fn whole(message: impl Into<String>) -> Self {
        ReadError {
            findings: vec![Finding::new(0, message)],
        }
    }

    /// A reader found none of `what` (what its format holds conversations in) in `doc`;
    /// `hint` says what that looks like, where the name alone would not tell.
    pub fn none_found(what: &str, hint: &str, doc: &Doc) -> Self {
        ReadError::whole(format!("no {what} found{hint}: {}", doc.describe()))
    }
}

/// An output record that verification knows before reading it: byte-identical to the record
/// of input item `item` (when `cut`, to that record with its stored-only copy cut at
/// [`Item::copy_cut`]), so reading it gives what reading the input gave (see [`read_back`]).
#[derive(Debug, Clone, Copy)]
pub struct Copied<'a> {
    /// The input's item, its parts still decoded.
    pub item: &'a Item,
    /// Whether the record is the input's less its stored-only copy.
    pub cut: bool,
}

/// The largest input of several conversations whose copied records are held until its output
/// is read back: up to as much decoded text again as the output, for a read-back that then
/// decodes only what changed. A larger input is read back decoding every record, one
/// conversation at a time.
const COPIES_HELD_MAX_BYTES: usize = 64 << 20;

/// For record `k` of conversation `c` of an output, and the record's text, the input record
/// it copies, if it is one ([`Copied`]).
pub type CopiedRecords<'a> = dyn Fn(usize, usize, &str) -> Option<Copied<'a>> + 'a;

/// A format's reader and writer.
trait Adapter: Sync {
    /// Whether `doc` looks like this format (used by auto-detection, in [`Format::ALL`] order).
    fn detect(&self, doc: &Doc) -> bool;

    /// The members (of a record, or of the message object inside it) that carry what the
    /// model sees: a conversation none of whose messages has one, nor any text, is refused
    /// ([`common::contentless`]). Empty: no such check (the message-list readers check their
    /// lists themselves).
    fn content_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// Reads `doc`'s conversations, handing each to `each` in source order as soon as it is
    /// read (a caller may check and drop it before the next is decoded); returns a container
    /// description.
    fn read(
        &self,
        doc: &Doc,
        opts: &ReadOptions,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError>;

    /// Reads an output to verify it, as [`Adapter::read`] does, except that a record `copied`
    /// names is taken from the input's item instead of decoded again, and no usage or model is
    /// read (verifying needs neither). The default decodes every record.
    fn read_back(
        &self,
        doc: &Doc,
        opts: &ReadOptions,
        copied: &CopiedRecords,
        each: &mut dyn FnMut(Conversation),
    ) -> Result<String, ReadError> {
        let _ = copied;
        self.read(doc, opts, each)
    }

    /// Whether [`Adapter::read_back`] takes copied records from the input of `source_len`
    /// bytes: only then is it worth keeping the decoded content of the items a plan keeps
    /// until the output is read. Where a file holds one conversation, that is the text the
    /// read-back would decode; where it holds many, the read-back decodes one at a time, so
    /// holding every conversation's copies is bounded by the input's size
    /// ([`COPIES_HELD_MAX_BYTES`]).
    fn reads_back_copies(&self, _source_len: usize) -> bool {
        false
    }

    /// Writes one item of an edited conversation (a new or changed item) as raw text.
    fn render(&self, t: &Transcript, conv: &Conversation, out: &OutItem) -> String;

    /// Appends an edited conversation's list to `out`. The default keeps the list's layout and
    /// renders each item; adapters that must fix links between records override it.
    fn render_list(
        &self,
        t: &Transcript,
        conv: &Conversation,
        items: &[OutItem],
        out: &mut String,
    ) {
        let texts = items.iter().map(|item| match item {
            OutItem::Keep(i) => Cow::Borrowed(&t.source[conv.items[*i].span.clone()]),
            other => Cow::Owned(self.render(t, conv, other)),
        });
        render_layout(t, conv, items, texts, out);
    }

    /// Format-specific findings of one conversation in `source` (role order, chain links); the
    /// model-wide ones are in `check`.
    fn check(&self, _source: &str, _conv: &Conversation) -> Vec<Finding> {
        Vec::new()
    }

    /// Top-level record members that only duplicate what the model is sent, removed by
    /// [`OutItem::Strip`].
    fn copy_members(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether user-side and assistant-side messages must strictly alternate (ShareGPT as
    /// LLaMA-Factory reads it), so a summary may only stand where a user turn did.
    fn strict_alternation(&self) -> bool {
        false
    }

    /// Whether messages hold thinking as content blocks that [`OutItem::DropThinking`] can
    /// remove (Anthropic's `thinking` / `redacted_thinking`); elsewhere it writes the item as
    /// it is, and no strategy asks for it.
    fn drops_thinking_blocks(&self) -> bool {
        false
    }

    /// Whether this adapter writes [`OutItem::ReplaceArguments`] (it knows where each call's
    /// arguments sit in its records); elsewhere the item is written as it is, and no strategy
    /// asks for it.
    fn rewrites_arguments(&self) -> bool {
        false
    }

    /// The steps `ctxc repair` takes over a JSON Lines session of this format, in order, once
    /// its lines that are not JSON are left out ([`edit::Step`]: drop replayed history,
    /// re-link a chain, answer unanswered calls as the client does). None by default; message
    /// lists get the generic list repairs instead.
    fn repair_steps(&self) -> &'static [edit::Step] {
        &[]
    }

    /// How replayed history is told in this format ([`replay::Keys`]), for `check` and
    /// `repair`; `None` (the default) where records are never replays.
    fn replay_keys(&self) -> Option<replay::Keys> {
        None
    }
}

/// Item `i` of `conv` with its payloads stripped, as [`OutItem::Strip`] writes it.
fn strip_item(adapter: &dyn Adapter, t: &Transcript, conv: &Conversation, i: usize) -> String {
    payload::strip(
        &t.source[conv.items[i].span.clone()],
        adapter.copy_members(),
    )
}

/// Appends the elements of an edited list to `out` in `conv`'s layout: `texts` are the
/// rendered `items`, in order.
fn render_layout<S: AsRef<str>>(
    t: &Transcript,
    conv: &Conversation,
    items: &[OutItem],
    texts: impl Iterator<Item = S>,
    out: &mut String,
) {
    match &conv.layout {
        ListLayout::Array(array) => array.render_into(texts, out),
        ListLayout::Lines {
            newline,
            trailing_newline,
        } => {
            for (k, (item, text)) in items.iter().zip(texts).enumerate() {
                out.push_str(text.as_ref());
                let last = k + 1 == items.len();
                out.push_str(line_end(t, conv, item, last, newline, *trailing_newline));
            }
        }
        ListLayout::Single => {
            for (i, item) in texts.enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(item.as_ref());
            }
        }
    }
}

/// What follows a JSONL line written for `item`: what followed the line it stands for (a
/// summary: the last line it replaces) in the source — its own `\n` or `\r\n` and any blank
/// lines after it. So a line a compaction leaves alone keeps its bytes in a file that mixes
/// endings, and a new line takes the ending of the line it replaces. The file ends as it did:
/// when its last line is gone, the `last` line written ends with its own ending if the file
/// ended with one, else with none.
fn line_end<'a>(
    t: &'a Transcript,
    conv: &Conversation,
    item: &OutItem,
    last: bool,
    newline: &'a str,
    trailing_newline: bool,
) -> &'a str {
    let n = conv.items.len();
    let i = item.originals().end.clamp(1, n) - 1;
    let next = conv
        .items
        .get(i + 1)
        .map_or(conv.span.end, |l| l.span.start);
    let after = &t.source[conv.items[i].span.end..next];
    let own = own_line_ending(after, newline);
    if i + 1 == n || !last {
        after
    } else if trailing_newline {
        own
    } else {
        ""
    }
}

/// The line ending that `after` (what followed a line in the source) begins with, else
/// `newline`: a line keeps its own ending in a file that mixes them.
pub(crate) fn own_line_ending<'a>(after: &str, newline: &'a str) -> &'a str {
    if after.starts_with("\r\n") {
        "\r\n"
    } else if after.starts_with('\n') {
        "\n"
    } else {
        newline
    }
}

/// A list element written as it is (by [`Transcript::write_elements`]), with the original item
/// whose place it takes.
pub type Element<'a> = (usize, Cow<'a, str>);

/// Reads `source` as a transcript: detects (or takes) its format and builds the model.
pub fn read(source: String, opts: &ReadOptions) -> Result<Transcript, ReadError> {
    read_with(source, opts, &mut |_, _, conv, done| done.push(conv))
}

/// What [`read_with`] hands each conversation to: the format, the source, the conversation,
/// and the list the transcript is made of.
pub type EachConversation<'a> = dyn FnMut(Format, &str, Conversation, &mut Vec<Conversation>) + 'a;

/// Like [`read`], but hands each conversation to `each` — with the format and the source — as
/// soon as it is read; the transcript holds the conversations `each` pushes onto its last
/// argument, which it may do later (and the caller after reading), in order. A caller can so
/// work on a large file's conversations and drop what it no longer needs of them while the
/// rest is still being read.
pub fn read_with(
    source: String,
    opts: &ReadOptions,
    each: &mut EachConversation,
) -> Result<Transcript, ReadError> {
    let doc = Doc::parse(&source).map_err(|e| ReadError {
        findings: e.into_iter().map(Finding::from).collect(),
    })?;
    let format = match opts.format {
        Some(f) => f,
        None if opts.messages_path.is_some() => Format::OpenAi,
        None => detect(&doc)?,
    };
    let mut conversations = Vec::new();
    let mut contentless = None;
    let container = format.adapter().read(&doc, opts, &mut |conv| {
        if contentless.is_none() {
            contentless = common::contentless(&source, &conv, format.adapter().content_keys());
        }
        each(format, &source, conv, &mut conversations)
    })?;
    if let Some(why) = contentless {
        return Err(ReadError::whole(why));
    }
    drop(doc);
    Ok(Transcript {
        format,
        source,
        conversations,
        container,
    })
}

/// Reads `source` as a `format` transcript one conversation at a time: each is handed to
/// `each` and dropped before the next is decoded, so a large file's decoded content is never
/// all in memory. Fails as [`read`] does on text that does not read as `format`.
pub fn read_each(
    source: &str,
    format: Format,
    opts: &ReadOptions,
    each: &mut dyn FnMut(Conversation),
) -> Result<(), ReadError> {
    let doc = Doc::parse(source).map_err(|e| ReadError {
        findings: e.into_iter().map(Finding::from).collect(),
    })?;
    let mut contentless = None;
    format.adapter().read(&doc, opts, &mut |conv| {
        if contentless.is_none() {
            contentless = common::contentless(source, &conv, format.adapter().content_keys());
        }
        each(conv)
    })?;
    match contentless {
        Some(why) => Err(ReadError::whole(why)),
        None => Ok(()),
    }
}

/// Reads `source`, an output written as `format`, one conversation at a time as
/// [`read_each`] does, to verify it: the records `copied` names are taken from the input's
/// items rather than decoded again (by the formats that can, [`Format::reads_back_copies`]),
/// and the conversations may carry no usage and no model.
pub fn read_back(
    source: &str,
    format: Format,
    opts: &ReadOptions,
    copied: &CopiedRecords,
    each: &mut dyn FnMut(Conversation),
) -> Result<(), ReadError> {
    // Copied lines parsed in the input; their nodes are split only if a record is decoded.
    let takes_copies = format.reads_back_copies(source.len());
    let lines = |k: usize, text: &str| takes_copies && copied(0, k, text).is_some();
    let doc = Doc::parse_with_copies(source, &lines).map_err(|e| ReadError {
        findings: e.into_iter().map(Finding::from).collect(),
    })?;
    format.adapter().read_back(&doc, opts, copied, each)?;
    Ok(())
}

/// The warning for a transcript read as the format `--format` named that holds no message
/// though its text has some: most likely another format's (named when it reads as one).
/// `None` when it holds messages, the format was detected, or the text is empty.
pub fn named_format_found_nothing(
    format: Format,
    source: &str,
    opts: &ReadOptions,
    messages: usize,
) -> Option<String> {
    if opts.format.is_none() || messages > 0 || source.trim().is_empty() {
        return None;
    }
    let hint = match Doc::parse(source).ok().and_then(|doc| detect(&doc).ok()) {
        Some(found) if found != format => {
            format!(": it reads as {found} (leave --format out, or name that one)")
        }
        _ => String::new(),
    };
    Some(format!(
        "read as {format} (--format), it holds no messages{hint}"
    ))
}

fn detect(doc: &Doc) -> Result<Format, ReadError> {
    Format::ALL
        .into_iter()
        .find(|f| f.adapter().detect(doc))
        .ok_or_else(|| {
            ReadError::whole(format!(
                "cannot tell the format: {} (name it with --format, or point at the message list with --messages-path; `ctxc compact --help` lists the formats under --format)",
                doc.describe()
            ))
        })
}

impl Transcript {
    /// Writes the transcript with some conversations edited. `edits[c]` is `None` for a
    /// conversation left alone; untouched bytes are copied from the source.
    pub fn write(&self, edits: &[Option<Vec<OutItem>>]) -> String {
        let edits: Vec<Option<&[OutItem]>> = edits.iter().map(Option::as_deref).collect();
        self.write_with_spans(&edits).0
    }

    /// Like [`Transcript::write`], also returning where each edited conversation's list
    /// landed in the output (`None` for conversations left alone).
    pub fn write_with_spans(&self, edits: &[Option<&[OutItem]>]) -> (String, Vec<Option<Span>>) {
        let adapter = self.format.adapter();
        // Each list is rendered straight into the output, in order: holding every rendered
        // list until the end would count twice in peak memory. Room for the input is only
        // reserved (pages never written take no memory); a compaction rarely outgrows it.
        let mut out = String::with_capacity(self.source.len());
        let mut spans = Vec::with_capacity(self.conversations.len());
        let mut at = 0;
        for (conv, edit) in self.conversations.iter().zip(edits) {
            let Some(items) = edit else {
                spans.push(None);
                continue;
            };
            out.push_str(&self.source[at..conv.span.start]);
            let start = out.len();
            adapter.render_list(self, conv, items, &mut out);
            spans.push(Some(start..out.len()));
            at = conv.span.end;
        }
        out.push_str(&self.source[at..]);
        out.shrink_to_fit();
        (out, spans)
    }

    /// Writes the transcript with some conversations' lists given as raw elements, each
    /// with the original item whose place (and JSONL line ending) it takes: a repair adds and
    /// changes messages no [`OutItem`] describes. Untouched bytes are copied from the source.
    pub fn write_elements(&self, edits: &[Option<Vec<Element>>]) -> String {
        let mut out = String::with_capacity(self.source.len());
        let mut at = 0;
        for (conv, edit) in self.conversations.iter().zip(edits) {
            let Some(elements) = edit else {
                continue;
            };
            out.push_str(&self.source[at..conv.span.start]);
            let places: Vec<OutItem> = elements.iter().map(|(i, _)| OutItem::Keep(*i)).collect();
            let texts = elements.iter().map(|(_, text)| text);
            render_layout(self, conv, &places, texts, &mut out);
            at = conv.span.end;
        }
        out.push_str(&self.source[at..]);
        out
    }

    /// The raw text of item `i` of conversation `c`.
    pub fn raw(&self, c: usize, i: usize) -> &str {
        &self.source[self.conversations[c].items[i].span.clone()]
    }
}

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
