//! Text as a person would read it: terminal escapes and the client's own wrappers removed.
//!
//! Claude Code stores slash commands, local command output, hook notices and reminders as
//! user messages wrapped in tags (`<command-name>`, `<local-command-stdout>`,
//! `<system-reminder>`, ...), often with ANSI colour codes. None of it is something the user
//! asked for, so facts and summaries read messages through [`clean`].

use aho_corasick::{AhoCorasick, MatchKind};
use regex::bytes::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// Tags whose whole block is the client's, never the user's words.
const CLIENT_BLOCKS: [&str; 14] = [
    "system-reminder",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "user-prompt-submit-hook",
    "user-memory-input",
];

/// Tags dropped but whose content is kept (the text inside is the message).
const CLIENT_WRAPPERS: [&str; 1] = ["tool_use_error"];

// The escapes are ASCII, so the pattern runs on bytes without Unicode classes: what
// `[^\x07\x1b]` passes over ends at an ASCII byte, never inside a character, and the matches
// are the Unicode pattern's own, for a third of the cost of compiling it (2.1 M instructions).
static ANSI: LazyLock<Regex> = LazyLock::new(|| {
    // CSI sequences (colours, cursor moves) and OSC sequences (titles, links).
    Regex::new(r"(?-u)\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
        .unwrap()
});

/// The block tags, opening then closing: a match of pattern `i` opens a block when
/// `i < CLIENT_BLOCKS.len()`.
static BLOCK_TAGS: LazyLock<AhoCorasick> = LazyLock::new(|| tags(&CLIENT_BLOCKS));

/// The closing block tags alone.
static BLOCK_ENDS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(CLIENT_BLOCKS.map(|name| format!("</{name}>")))
        .expect("fixed tags")
});

/// `<name>` for each of `names`, then `</name>` for each, found left to right as a regex
/// alternation would.
fn tags(names: &[&str]) -> AhoCorasick {
    let opening = names.iter().map(|name| format!("<{name}>"));
    let closing = names.iter().map(|name| format!("</{name}>"));
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(opening.chain(closing))
        .expect("fixed tags")
}

/// Where the client's blocks are in `text`, left to right: an opening tag through the first
/// closing tag after it (of any block), or a stray opening or closing tag alone. What the
/// regex `(?s)<(names)>.*?</(names)>|</?(names)>` matched, without compiling ~3 M
/// instructions' worth of alternations.
fn blocks(text: &str) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let tag = BLOCK_TAGS.find(&text[at..])?;
        let (start, mut end) = (at + tag.start(), at + tag.end());
        if tag.pattern().as_usize() < CLIENT_BLOCKS.len() {
            if let Some(close) = BLOCK_ENDS.find(&text[end..]) {
                end += close.end();
            }
        }
        at = end;
        Some(start..end)
    })
}

/// `text` without the client's blocks.
fn remove_blocks(text: Cow<'_, str>) -> Cow<'_, str> {
    let mut kept = String::new();
    let mut last = 0;
    for block in blocks(&text) {
        kept.push_str(&text[last..block.start]);
        last = block.end;
    }
    if last == 0 {
        return text;
    }
    kept.push_str(&text[last..]);
    Cow::Owned(kept)
}

/// The wrapper tags, opening or closing, found left to right as a regex alternation would.
static WRAPPERS: LazyLock<AhoCorasick> = LazyLock::new(|| tags(&CLIENT_WRAPPERS));

/// `text` without ANSI escapes.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    match ANSI.replace_all(text.as_bytes(), &b""[..]) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Whole escapes were removed, each starting and ending at ASCII: whole characters are
        // left.
        Cow::Owned(left) => Cow::Owned(String::from_utf8(left).expect("whole characters")),
    }
}

/// `text` without ANSI escapes and without the client's wrapper blocks.
pub fn clean(text: &str) -> Cow<'_, str> {
    let text = strip_ansi(text);
    if !text.contains('<') {
        return text;
    }
    let without_blocks = remove_blocks(text);
    if !WRAPPERS.is_match(without_blocks.as_ref()) {
        return without_blocks;
    }
    Cow::Owned(WRAPPERS.replace_all(&without_blocks, &[""; 2 * CLIENT_WRAPPERS.len()]))
}

/// Whether a cleaned user message is something the client wrote in the user's name rather
/// than a request: empty once wrappers are gone, an interruption notice, a local-command
/// caveat.
pub fn is_client_notice(cleaned: &str) -> bool {
    let text = cleaned.trim();
    text.is_empty()
        || text.starts_with("[Request interrupted by user")
        || text.starts_with("Caveat: The messages below were generated by the user")
}

/// Whether `text` holds a client wrapper tag or an ANSI escape (for tests and checks).
pub fn has_client_markup(text: &str) -> bool {
    text.contains('\x1b') || blocks(text).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_commands_and_their_output_clean_to_nothing() {
        let command = "<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>";
        assert_eq!(clean(command).trim(), "");
        let output = "<local-command-stdout>\x1b[2mCompacted (ctrl+o to see full summary)\x1b[22m</local-command-stdout>";
        assert_eq!(clean(output), "");
        assert!(is_client_notice(&clean(output)));
        assert!(is_client_notice(
            "[Request interrupted by user for tool use]"
        ));
    }

    /// `clean` as it was written first: Unicode patterns on `str`, wrappers by regex.
    fn clean_with_unicode_patterns(text: &str) -> String {
        let ansi = regex::Regex::new(
            r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]",
        )
        .unwrap();
        let names = CLIENT_BLOCKS.join("|");
        let blocks =
            regex::Regex::new(&format!(r"(?s)<({names})>.*?</({names})>|</?({names})>")).unwrap();
        let wrappers = regex::Regex::new(r"</?(tool_use_error)>").unwrap();
        let text = ansi.replace_all(text, "");
        let text = blocks.replace_all(&text, "");
        wrappers.replace_all(&text, "").into_owned()
    }

    #[test]
    fn the_byte_patterns_clean_as_the_unicode_ones_over_the_corpus() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
        let mut texts = vec![
            "é <system-reminder>ü\nß</system-reminder> 日本 <bash-stdout>x".to_string(),
            "\x1b]0;títle\x07ok \x1b]8;;é\x1b\\link \x1b[1mé\x1b[0m \x1bZ".to_string(),
            "<tool_use_<tool_use_error>error>é</tool_use_error>".to_string(),
            "</bash-stdout><bash-input>a</bash-stdout>b<command-name>c</command-args> <bash-input>"
                .to_string(),
        ];
        let mut marked = 0;
        for entry in walkdir::WalkDir::new(&corpus).into_iter().flatten() {
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                let text = text.replace("\\n", "\n").replace("\\u001b", "\x1b");
                marked += usize::from(has_client_markup(&text));
                texts.push(text);
            }
        }
        assert!(marked >= 10, "{marked} files with client markup");
        for text in &texts {
            assert_eq!(clean(text), clean_with_unicode_patterns(text));
        }
    }

    #[test]
    fn words_around_wrappers_are_kept() {
        let text = "Fix the build.\n<system-reminder>\nThe task tools exist.\n</system-reminder>";
        assert_eq!(clean(text).trim(), "Fix the build.");
        assert_eq!(
            clean("<tool_use_error>File does not exist.</tool_use_error>"),
            "File does not exist."
        );
        assert_eq!(strip_ansi("\x1b[31merror:\x1b[0m bad"), "error: bad");
        assert!(matches!(clean("plain text"), Cow::Borrowed(_)));
        assert!(has_client_markup("a <system-reminder>"));
        assert!(!has_client_markup("a <div>"));
        assert!(!is_client_notice("Fix it"));
    }
}
