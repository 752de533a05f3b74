//! A model's reply checked before it becomes a summary: the text inside `<summary>` tags (else
//! the whole reply, without `<think>` blocks), not empty, not shaped like a conversation turn or
//! a tool call, and within the token budget.
//!
//! A reply that looks like a turn or a call means the model continued the transcript instead of
//! summarizing it; written into the transcript it would read as a message the agent never sent,
//! so it is rejected (the caller retries once, then falls back) rather than sanitised line by
//! line, which could leave half a fabricated turn behind.

use crate::tokens::TokenCounter;
use regex::Regex;
use std::sync::LazyLock;

/// A reply longer than this many times the budget is clipped to the budget. Up to it, the
/// difference is put down to tokenizers: the model counted with its own when it kept within
/// `max_tokens`, ctxc counts with the run's.
pub const LENGTH_SLACK: usize = 2;

/// Lines and markup that only a conversation turn or a tool call has.
static TURN_SHAPED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\s*(?:user|assistant|system|Human|Assistant):",
        r"|^--- (?:user|assistant|assistant thinking|system|tool result|earlier summary)\b[^\n]*---\s*$",
        r#"|"tool_calls"\s*:|"type"\s*:\s*"tool_use""#,
        r"|</?(?:tool_call|function_calls|invoke|tool_use)\b",
        r"|<\|(?:im_start|im_end|start_header_id|eot_id)\|>",
    ))
    .expect("turn pattern")
});

static THINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<think(?:ing)?>.*?(?:</think(?:ing)?>|\z)").expect("think"));

/// The summary in `reply`, or why it cannot be used.
pub fn check(reply: &str, budget: usize, counter: &TokenCounter) -> Result<String, String> {
    let text = extract(reply);
    let text = text.trim();
    if text.is_empty() {
        return Err("the model returned an empty summary".into());
    }
    if let Some(m) = TURN_SHAPED.find(text) {
        let line = text[m.start()..].lines().next().unwrap_or_default();
        return Err(format!(
            "the reply looks like a conversation turn or tool call, not a summary: {}",
            super::wire::snippet(line)
        ));
    }
    Ok(fit(text, budget, counter))
}

/// The text inside the first `<summary>` tags (to the end when the closing tag is missing:
/// the reply was cut at `max_tokens`), else the reply without reasoning blocks.
pub fn extract(reply: &str) -> String {
    let reply = THINK.replace_all(reply, "");
    match reply.find("<summary>") {
        Some(open) => {
            let inner = &reply[open + "<summary>".len()..];
            let end = inner.find("</summary>").unwrap_or(inner.len());
            inner[..end].to_string()
        }
        None => reply.into_owned(),
    }
}

/// `text`, clipped to `budget` tokens (at a line end where one is near) when it is over
/// [`LENGTH_SLACK`] times the budget.
pub fn fit(text: &str, budget: usize, counter: &TokenCounter) -> String {
    if counter.count(text) <= budget.saturating_mul(LENGTH_SLACK) {
        return text.to_string();
    }
    let note = "\n[... ctxc: the summary was longer than its token budget and was cut here ...]";
    let room = budget.saturating_sub(counter.count(note));
    let cut = longest_prefix(text, room, counter);
    let prefix = &text[..cut];
    // Prefer ending on a whole line when that keeps at least three quarters of the prefix.
    let cut = match prefix.rfind('\n') {
        Some(nl) if nl >= prefix.len() * 3 / 4 => nl,
        _ => cut,
    };
    format!("{}{note}", text[..cut].trim_end())
}

/// The byte length of the longest prefix of `text` (on a char boundary) within `tokens`.
fn longest_prefix(text: &str, tokens: usize, counter: &TokenCounter) -> usize {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    // Binary search over char boundaries: token counts grow with the prefix.
    let (mut lo, mut hi) = (0, bounds.len() - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if counter.count(&text[..bounds[mid]]) <= tokens {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    bounds[lo]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    fn counter() -> TokenCounter {
        TokenCounter::new(Encoding::O200kBase).unwrap()
    }

    #[test]
    fn extracts_the_summary_tags() {
        assert_eq!(extract("Sure.\n<summary>\nA\n</summary>\nBye"), "\nA\n");
        assert_eq!(extract("<summary>cut at max_tok"), "cut at max_tok");
        assert_eq!(extract("plain text"), "plain text");
        assert_eq!(extract("<think>hmm</think>\nThe summary"), "\nThe summary");
        assert_eq!(extract("<think>never closed"), "");
    }

    #[test]
    fn rejects_empty_and_turn_shaped_replies() {
        let c = counter();
        assert!(check("<summary>  </summary>", 100, &c).is_err());
        for bad in [
            "user: please continue",
            "Sure\nassistant: I will now run the tests",
            "\n\nHuman: hi",
            "Assistant: done",
            "--- assistant ---\nI ran ls",
            r#"{"tool_calls": [{"id": "x"}]}"#,
            r#"{"type": "tool_use", "name": "bash"}"#,
            "<tool_call>{\"name\": \"bash\"}</tool_call>",
            "<function_calls><invoke name=\"x\">",
            "<|im_start|>assistant",
        ] {
            assert!(check(bad, 100, &c).is_err(), "accepted {bad:?}");
        }
        let good = "1. Task Overview\nUser: wants the parser fixed.\nThe user asked for tool_calls support in src/wire.rs.";
        assert_eq!(check(good, 100, &c).unwrap(), good);
    }

    #[test]
    fn clips_only_far_over_budget() {
        let c = counter();
        let text: String = (0..200)
            .map(|i| format!("line {i} of the summary\n"))
            .collect();
        let tokens = c.count(&text);
        assert_eq!(fit(&text, tokens / 2 + 1, &c), text);
        let clipped = fit(&text, 100, &c);
        assert!(c.count(&clipped) <= 100, "{}", c.count(&clipped));
        assert!(clipped.starts_with("line 0 of the summary\n"));
        assert!(clipped.ends_with("was cut here ...]"));
        assert!(clipped.contains("summary\n[..."), "ends on a whole line");
    }
}
