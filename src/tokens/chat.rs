//! Counting a whole chat sample (messages and tools) as one model sees it: [`ChatCounter`].
//!
//! Two ways: a Hugging Face tokenizer with the model's chat template ([`TemplateCounter`]:
//! the rendered text, tokenized — exact for open-weight models), or one of ctxc's encodings
//! with the OpenAI cookbook's per-message overhead ([`CookbookCounter`]: what `stats` counts).
//! Both also count a loose text, which callers use to estimate before they count exactly.

use super::template::ChatTemplate;
use super::{HfTokenizer, TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, TokenCounter};
use anyhow::Result;
use serde_json::Value;

/// Counts chat samples in one model's tokens.
pub trait ChatCounter: Sync {
    /// What counts, for reports: the tokenizer and template files, or the encoding.
    fn name(&self) -> String;

    /// Tokens of `text` alone.
    fn count_text(&self, text: &str) -> Result<usize>;

    /// Tokens of the sample `messages` (OpenAI-shaped) with `tools`, as the model is given it.
    fn count_sample(&self, messages: &[Value], tools: Option<&Value>) -> Result<usize>;
}

/// A Hugging Face tokenizer and a chat template: the rendered sample's tokens.
pub struct TemplateCounter {
    /// The tokenizer.
    pub tokenizer: HfTokenizer,
    /// The template.
    pub template: ChatTemplate,
}

impl ChatCounter for TemplateCounter {
    fn name(&self) -> String {
        format!(
            "{} with the chat template of {}",
            self.tokenizer.name(),
            self.template.name()
        )
    }

    fn count_text(&self, text: &str) -> Result<usize> {
        self.tokenizer.count(text)
    }

    fn count_sample(&self, messages: &[Value], tools: Option<&Value>) -> Result<usize> {
        let text = self.template.render(messages, tools)?;
        self.tokenizer.count(&text)
    }
}

/// One of ctxc's encodings: each message's texts plus [`TOKENS_PER_MESSAGE`], the tools'
/// JSON, and [`TOKENS_PER_REPLY`] once.
pub struct CookbookCounter(pub TokenCounter);

impl ChatCounter for CookbookCounter {
    fn name(&self) -> String {
        format!("{} (OpenAI chat overhead)", self.0.encoding())
    }

    fn count_text(&self, text: &str) -> Result<usize> {
        Ok(self.0.count(text))
    }

    fn count_sample(&self, messages: &[Value], tools: Option<&Value>) -> Result<usize> {
        let mut total = TOKENS_PER_REPLY + tools.map_or(0, |t| self.0.count(&t.to_string()));
        for message in messages {
            total += TOKENS_PER_MESSAGE;
            for key in ["role", "content", "reasoning_content"] {
                if let Some(text) = message.get(key).and_then(Value::as_str) {
                    total += self.0.count(text);
                }
            }
            if let Some(calls) = message.get("tool_calls") {
                total += self.0.count(&calls.to_string());
            }
        }
        Ok(total)
    }
}
