//! A span of messages as delimited plain text: what summarizers read. Delimited and
//! labelled, never in chat form, so a model asked to summarize it does not continue it.

use crate::facts::clean::clean;
use crate::facts::is_error_shaped;
use crate::transcript::{Item, Kind, PartKind};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;

/// Characters of a long tool output the extractive input keeps from its start and its end
/// (error lines in between are kept too).
pub const OUTPUT_HEAD_CHARS: usize = 1_000;
/// See [`OUTPUT_HEAD_CHARS`].
pub const OUTPUT_TAIL_CHARS: usize = 500;

/// How tool outputs are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outputs {
    /// In full.
    Full,
    /// Long outputs clipped to their head, tail and error lines.
    Clipped,
}

/// Each entry rendered on its own.
pub fn render_entries(entries: &[Cow<Item>], outputs: Outputs) -> Vec<String> {
    let names: HashMap<&str, &str> = entries
        .iter()
        .flat_map(|e| e.calls.iter())
        .map(|c| (c.id.as_str(), c.name.as_str()))
        .collect();
    entries
        .iter()
        .map(|e| render_entry(e, &names, outputs))
        .collect()
}

fn render_entry(item: &Item, names: &HashMap<&str, &str>, outputs: Outputs) -> String {
    let mut out = String::new();
    let label = match item.kind {
        Kind::System => "system",
        Kind::User => "user",
        Kind::AssistantText | Kind::ToolCall => "assistant",
        Kind::Thinking => "assistant thinking",
        Kind::ToolResult => "tool result",
        Kind::Summary => "earlier summary",
        Kind::NonContext => return out,
    };
    let _ = write!(out, "--- {label}");
    if item.kind == Kind::ToolResult {
        let tools: Vec<&str> = item
            .results
            .iter()
            .map(|id| names.get(id.as_str()).copied().unwrap_or("tool"))
            .collect();
        if !tools.is_empty() {
            let _ = write!(out, " from {}", tools.join(", "));
        }
        if item.is_error {
            out.push_str(" (error)");
        }
    }
    out.push_str(" ---\n");
    let mut parts = item.parts.iter().peekable();
    while let Some(part) = parts.next() {
        match part.kind {
            PartKind::ToolName => {
                let args = parts
                    .next_if(|p| p.kind == PartKind::ToolArguments)
                    .map_or("", |p| p.text.as_str());
                let _ = writeln!(out, "[calls tool {}] {args}", part.text);
            }
            PartKind::ToolResult if outputs == Outputs::Clipped => {
                out.push_str(&clip_output(&clean(&part.text)));
                out.push('\n');
            }
            _ => {
                // What a summarizer reads has no terminal escapes or client wrappers.
                out.push_str(&clean(&part.text));
                out.push('\n');
            }
        }
    }
    out
}

/// A long output cut to its head, its tail and the error lines between.
pub fn clip_output(text: &str) -> Cow<'_, str> {
    let chars = text.chars().count();
    if chars <= OUTPUT_HEAD_CHARS + OUTPUT_TAIL_CHARS + 200 {
        return Cow::Borrowed(text);
    }
    let head_end = text
        .char_indices()
        .nth(OUTPUT_HEAD_CHARS)
        .map_or(text.len(), |(b, _)| b);
    let tail_start = text
        .char_indices()
        .nth(chars - OUTPUT_TAIL_CHARS)
        .map_or(text.len(), |(b, _)| b);
    let middle = &text[head_end..tail_start];
    let errors: Vec<&str> = middle
        .lines()
        .filter(|l| is_error_shaped(l))
        .take(20)
        .collect();
    let mut out = text[..head_end].to_string();
    let _ = write!(
        out,
        "\n[... {} characters of output not shown",
        middle.chars().count()
    );
    if errors.is_empty() {
        out.push_str(" ...]\n");
    } else {
        out.push_str("; its error lines: ...]\n");
        for line in errors {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&text[tail_start..]);
    Cow::Owned(out)
}
