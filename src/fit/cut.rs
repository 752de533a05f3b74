//! A turn (or a header) that alone is over `--max-len`: its longest texts cut, each to the
//! longest head that fits, with a marker saying how much went. Never silent: every cut is
//! returned for the report.

use super::report::Cut;
use anyhow::{Result, bail};
use serde_json::Value;
use std::ops::Range;

/// Tokens of a whole sample.
pub type Count<'a> = dyn Fn(&[Value]) -> Result<usize> + 'a;

/// Cuts texts of `messages[range]`, longest first, until `count(messages) <= max`.
pub fn cut_to_fit(
    messages: &mut [Value],
    range: Range<usize>,
    max: usize,
    count: &Count,
) -> Result<Vec<Cut>> {
    let mut cuts = Vec::new();
    while count(messages)? > max {
        let Some((at, field)) = longest_text(messages, range.clone()) else {
            bail!("a turn does not fit in --max-len {max} even with its texts cut");
        };
        let original = text_at(&messages[at], &field).to_string();
        let chars = original.chars().count();
        // Even 16 characters a token leaves more than fits: the search starts below that.
        let mut lo = 0;
        let mut hi = chars.min(max.saturating_mul(16));
        let cut_to = |keep: usize| {
            let head: String = original.chars().take(keep).collect();
            Value::String(format!(
                "{head}\n[ctxc: {} of {chars} characters cut from this message to fit --max-len {max}]",
                chars - keep
            ))
        };
        *text_mut(&mut messages[at], &field) = cut_to(0);
        if count(messages)? > max {
            // Not even the marker alone fits here: cut the next text as well.
            cuts.push(Cut::new(at - range.start, &field, chars, 0));
            continue;
        }
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            *text_mut(&mut messages[at], &field) = cut_to(mid);
            if count(messages)? <= max {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        *text_mut(&mut messages[at], &field) = cut_to(lo);
        cuts.push(Cut::new(at - range.start, &field, chars, lo));
    }
    Ok(cuts)
}

/// Where a message keeps a text: its `content`, its `reasoning_content`, or the arguments of
/// its call `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Content,
    Reasoning,
    Arguments(usize),
}

impl Field {
    /// The field's name in reports.
    pub fn name(&self) -> String {
        match self {
            Field::Content => "content".into(),
            Field::Reasoning => "reasoning_content".into(),
            Field::Arguments(i) => format!("tool_calls[{i}].arguments"),
        }
    }
}

/// The longest text not yet cut in `messages[range]`.
fn longest_text(messages: &[Value], range: Range<usize>) -> Option<(usize, Field)> {
    let mut best: Option<(usize, Field, usize)> = None;
    for at in range {
        for field in fields(&messages[at]) {
            let text = text_at(&messages[at], &field);
            if crate::transcript::holds_edit_marker(text) && text.starts_with("\n[ctxc: ") {
                continue;
            }
            let len = text.len();
            if len > 0 && best.as_ref().is_none_or(|b| len > b.2) {
                best = Some((at, field, len));
            }
        }
    }
    best.map(|(at, field, _)| (at, field))
}

fn fields(message: &Value) -> Vec<Field> {
    let mut out = vec![Field::Content, Field::Reasoning];
    if let Some(Value::Array(calls)) = message.get("tool_calls") {
        out.extend((0..calls.len()).map(Field::Arguments));
    }
    out
}

fn text_at<'v>(message: &'v Value, field: &Field) -> &'v str {
    let value = match field {
        Field::Content => message.get("content"),
        Field::Reasoning => message.get("reasoning_content"),
        Field::Arguments(i) => message
            .get("tool_calls")
            .and_then(|c| c.get(i))
            .and_then(|c| c.get("function"))
            .and_then(|f| f.get("arguments")),
    };
    value.and_then(Value::as_str).unwrap_or("")
}

fn text_mut<'v>(message: &'v mut Value, field: &Field) -> &'v mut Value {
    match field {
        Field::Content => &mut message["content"],
        Field::Reasoning => &mut message["reasoning_content"],
        Field::Arguments(i) => &mut message["tool_calls"][*i]["function"]["arguments"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Characters of every content, as a stand-in tokenizer.
    fn chars(messages: &[Value]) -> Result<usize> {
        Ok(messages
            .iter()
            .map(|m| m["content"].as_str().unwrap_or("").chars().count())
            .sum())
    }

    #[test]
    fn the_longest_text_is_cut_to_the_longest_head_that_fits_with_a_marker() {
        let mut messages = vec![
            json!({"role": "user", "content": "task"}),
            json!({"role": "tool", "content": "x".repeat(1000)}),
        ];
        let cuts = cut_to_fit(&mut messages, 1..2, 200, &chars).unwrap();
        let text = messages[1]["content"].as_str().unwrap();
        assert_eq!(chars(&messages).unwrap(), 200, "{text}");
        assert!(text.starts_with("xxxx") && text.contains("characters cut from this message"));
        assert_eq!(cuts.len(), 1);
        assert_eq!(cuts[0].chars_before, 1000);
        assert_eq!(
            messages[0]["content"], "task",
            "outside the range: untouched"
        );
    }

    #[test]
    fn a_header_that_cannot_fit_is_an_error_not_a_loop() {
        let mut messages = vec![json!({"role": "user", "content": "y".repeat(100)})];
        let err = cut_to_fit(&mut messages, 0..0, 10, &chars).unwrap_err();
        assert!(err.to_string().contains("does not fit"), "{err}");
    }
}
