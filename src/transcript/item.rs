//! The model's pieces: an [`Item`] (one stored record or message) with its role, kind,
//! parts, calls and provider usage.

use super::claude_code;
use crate::json::Span;

/// Who a message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// System prompt.
    System,
    /// OpenAI `developer` instructions.
    Developer,
    /// The user (or the harness speaking as the user).
    User,
    /// The model.
    Assistant,
    /// A tool's output (OpenAI `tool`, ShareGPT `observation`).
    Tool,
    /// A record with no conversational role (metadata, progress...).
    None,
}

impl Role {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::None => "none",
        }
    }
}

/// What an item is, independent of format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// System or developer instructions (and tool definitions).
    System,
    /// A user message.
    User,
    /// Assistant prose.
    AssistantText,
    /// An assistant message that calls one or more tools.
    ToolCall,
    /// A tool's result.
    ToolResult,
    /// Model reasoning (thinking blocks, Codex reasoning items).
    Thinking,
    /// A summary left by an earlier compaction (ctxc's own or the runtime's).
    Summary,
    /// A stored record that never reaches the model (progress, snapshots, metadata).
    NonContext,
}

impl Kind {
    /// The name used in reports and configuration (`selective` rules).
    pub fn name(self) -> &'static str {
        match self {
            Kind::System => "system",
            Kind::User => "user",
            Kind::AssistantText => "assistant",
            Kind::ToolCall => "tool_call",
            Kind::ToolResult => "tool_result",
            Kind::Thinking => "thinking",
            Kind::Summary => "summary",
            Kind::NonContext => "non_context",
        }
    }
}

/// What a piece of content is, for token breakdowns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartKind {
    /// Prose: user, assistant or system text.
    Text,
    /// Reasoning text.
    Thinking,
    /// A tool's name in a call.
    ToolName,
    /// A tool call's arguments (usually JSON text).
    ToolArguments,
    /// A tool's output.
    ToolResult,
    /// Tool definitions sent with the request.
    ToolDefinitions,
    /// An image or document reference; `text` holds what a model would be charged for, if known.
    Media,
}

/// One piece of content that reaches the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What the text is.
    pub kind: PartKind,
    /// The text as the model sees it.
    pub text: String,
}

impl Part {
    /// A part of `kind` holding `text`.
    pub fn new(kind: PartKind, text: impl Into<String>) -> Self {
        Part {
            kind,
            text: text.into(),
        }
    }
}

/// A tool call made by an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The id results refer to (positional ids are synthesized for formats without ids).
    pub id: String,
    /// The tool's name.
    pub name: String,
}

/// A call a text-based agent writes in its prose (SWE-agent without function calling): the
/// command block or XML function call that ends an assistant message the harness answered.
/// The adapter that knows the format sets it ([`Item::text_call`]); facts and strategies read
/// it as the message's tool call, so no strategy parses prose for actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCall {
    /// The tool: `shell` for a command block, the function's name for an XML call.
    pub name: String,
    /// The arguments as a JSON object: `{"command": …}` for a command block, the
    /// `<parameter=…>` values for an XML call.
    pub arguments: serde_json::Value,
    /// The byte of the message's last text part where the action opens: what comes before
    /// is the agent's reasoning, what follows the call as the harness parses it.
    pub start: usize,
}

/// Token usage a provider reported in the transcript (e.g. Claude Code `message.usage`).
/// Shown beside ctxc's own counts, never mixed into them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens billed without cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// The whole prompt the provider counted for the call: uncached input plus cache writes
    /// and reads.
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// One stored record or message, with the bytes it came from.
#[derive(Debug, Clone)]
pub struct Item {
    /// The item's bytes in [`Transcript::source`].
    pub span: Span,
    /// The 1-based line where the item starts.
    pub line: usize,
    /// Who it is from.
    pub role: Role,
    /// What it is.
    pub kind: Kind,
    /// Whether the model would be sent this item (false for non-context records and for history
    /// before the latest compact boundary).
    pub in_context: bool,
    /// The content that reaches the model.
    pub parts: Vec<Part>,
    /// Tool calls this item makes.
    pub calls: Vec<ToolCall>,
    /// Ids of the calls this item answers.
    pub results: Vec<String>,
    /// Items sharing a message id form one logical message (Claude Code splits one API response
    /// over several records).
    pub message_id: Option<String>,
    /// Bytes of this item that are stored but never sent: its members named in its format's
    /// [`Format::copy_members`] (Claude Code's `toolUseResult`), so non-zero exactly when it
    /// has one (`strip-payloads` relies on that rather than parsing the record again).
    pub stored_only_bytes: usize,
    /// The bytes of the item's span that [`OutItem::Strip`] cuts to remove its one stored-only
    /// copy, relative to the span's start, when the read split the record and found exactly
    /// one (Claude Code): stripping a record without large media then needs no parse.
    pub copy_cut: Option<Span>,
    /// Usage the provider reported for this message, if any.
    pub usage: Option<Box<Usage>>,
    /// Whether the item is a summary written by ctxc.
    pub ctxc_summary: bool,
    /// Whether a tool result is flagged as an error by the format (`is_error`).
    pub is_error: bool,
    /// Whether the record never reaches the model and nothing needs it to resume the session
    /// (Claude Code progress records and file-history snapshots): `strip-payloads` drops it.
    pub disposable: bool,
    /// Whether the record anchors the file's structure — a compaction boundary, session
    /// metadata — and so is never removed, whatever reaches the model.
    pub anchor: bool,
    /// Whether the record is history before the latest compaction that the client no longer
    /// reads to resume (Claude Code: chain records above the latest compact boundary):
    /// `--drop-stored` drops it, nothing else does.
    pub stale_history: bool,
    /// Whether the harness injected the message rather than the user typing it (Claude Code
    /// `isMeta`: skill bodies, command expansions, caveats).
    pub meta: bool,
    /// Whether the model's context restarts at this record (a Claude Code `compact_boundary`,
    /// a Codex `compacted` record): calls after it were sent nothing before it.
    pub boundary: bool,
    /// The record's uuid links, as read with it (Claude Code; None elsewhere, and for an item
    /// not read from its span): checking and writing a chain take them from here rather than
    /// parsing every record again.
    pub chain: Option<Box<claude_code::Chain>>,
    /// The call a text-based agent's message makes in its text, which its adapter found
    /// (the item's one entry in `calls` carries its id); `None` for every other item.
    pub text_call: Option<Box<TextCall>>,
}

impl Item {
    /// An item spanning `span` with no content yet; adapters fill in the rest.
    pub fn new(span: Span, line: usize, role: Role, kind: Kind) -> Self {
        Item {
            span,
            line,
            role,
            kind,
            in_context: kind != Kind::NonContext,
            parts: Vec::new(),
            calls: Vec::new(),
            results: Vec::new(),
            message_id: None,
            stored_only_bytes: 0,
            copy_cut: None,
            usage: None,
            ctxc_summary: false,
            is_error: false,
            disposable: false,
            anchor: false,
            stale_history: false,
            meta: false,
            boundary: false,
            chain: None,
            text_call: None,
        }
    }

    /// All text of the item that reaches the model, joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.parts.iter().map(|p| p.text.as_str()).collect();
        texts.join("\n")
    }

    /// The item's prose: its text parts (no images, documents or reasoning), joined by
    /// newlines.
    pub fn prose(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter(|p| p.kind == PartKind::Text)
            .map(|p| p.text.as_str())
            .collect();
        texts.join("\n")
    }
}
