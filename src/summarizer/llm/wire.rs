//! The two wire formats: request bodies and headers, and what is read back from a response —
//! the reply's text and the usage the provider reported.
//!
//! OpenAI-compatible servers (OpenAI, vLLM, the llama.cpp server, Ollama, LiteLLM) take
//! `POST {base}/chat/completions`; Anthropic takes `POST {base}/messages`. Neither request
//! carries tools, so a well-behaved model cannot call one.

use super::Provider;
use super::prompt::Prompt;
use serde_json::{Value, json};

/// The Anthropic API version sent in `anthropic-version`.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The path appended to the base URL.
pub fn path(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => "/chat/completions",
        Provider::Anthropic => "/messages",
    }
}

/// Which field carries the completion limit in an OpenAI request. Compatible servers all take
/// `max_tokens`; OpenAI's reasoning models refuse it and want `max_completion_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitField {
    /// `max_tokens` (the default).
    MaxTokens,
    /// `max_completion_tokens`.
    MaxCompletionTokens,
}

/// The JSON body of a request.
pub fn body(
    provider: Provider,
    model: &str,
    prompt: &Prompt,
    max_tokens: usize,
    limit: LimitField,
) -> Value {
    match provider {
        Provider::OpenAi => {
            let field = match limit {
                LimitField::MaxTokens => "max_tokens",
                LimitField::MaxCompletionTokens => "max_completion_tokens",
            };
            json!({
                "model": model,
                "messages": [
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                field: max_tokens,
                "stream": false,
            })
        }
        Provider::Anthropic => json!({
            "model": model,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
            "max_tokens": max_tokens,
        }),
    }
}

/// Whether an HTTP 400 body says the server wants `max_completion_tokens` instead.
pub fn wants_completion_limit(error_body: &str) -> bool {
    error_body.contains("max_completion_tokens")
}

/// What a successful response holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The reply's text (text blocks joined).
    pub text: String,
    /// Prompt (input) tokens the provider reported.
    pub prompt_tokens: u64,
    /// Completion (output) tokens the provider reported.
    pub completion_tokens: u64,
    /// Why the reply cannot be used as it is (a tool call, no text), if so. Usage is still
    /// booked.
    pub problem: Option<String>,
}

/// Reads a 2xx response body. `Err` when it is not the provider's response shape at all.
pub fn parse(provider: Provider, body: &str) -> Result<Reply, String> {
    let value: Value = serde_json::from_str(body)
        .map_err(|e| format!("the response is not JSON ({e}): {}", snippet(body)))?;
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(format!(
            "the response is an error: {}",
            error_message(error)
        ));
    }
    match provider {
        Provider::OpenAi => parse_openai(&value),
        Provider::Anthropic => parse_anthropic(&value),
    }
}

fn parse_openai(value: &Value) -> Result<Reply, String> {
    let usage = &value["usage"];
    let mut reply = Reply {
        prompt_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
        ..Reply::default()
    };
    let message = value.pointer("/choices/0/message").ok_or_else(|| {
        format!(
            "no choices[0].message in the response: {}",
            snippet_of(value)
        )
    })?;
    if message["tool_calls"]
        .as_array()
        .is_some_and(|c| !c.is_empty())
        || !message["function_call"].is_null()
    {
        reply.problem = Some("the model answered with a tool call".into());
    }
    reply.text = match &message["content"] {
        Value::String(s) => s.clone(),
        // Some servers return content parts.
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    Ok(reply)
}

fn parse_anthropic(value: &Value) -> Result<Reply, String> {
    let usage = &value["usage"];
    let tokens = |field: &str| usage[field].as_u64().unwrap_or(0);
    let mut reply = Reply {
        // `input_tokens` leaves out what was read from or written to a prompt cache; the
        // prompt is all three (llama.cpp's server reuses its cache: 1 of 906 otherwise).
        prompt_tokens: tokens("input_tokens")
            + tokens("cache_read_input_tokens")
            + tokens("cache_creation_input_tokens"),
        completion_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
        ..Reply::default()
    };
    let blocks = value["content"]
        .as_array()
        .ok_or_else(|| format!("no content blocks in the response: {}", snippet_of(value)))?;
    if blocks.iter().any(|b| b["type"] == "tool_use") {
        reply.problem = Some("the model answered with a tool call".into());
    }
    reply.text = blocks
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("");
    Ok(reply)
}

/// The message of an error body (`{"error": {"message": ...}}` in both APIs), else its start.
pub fn error_message(error: &Value) -> String {
    match error {
        Value::String(s) => snippet(s),
        _ => match error.get("message").and_then(Value::as_str) {
            Some(message) => snippet(message),
            None => snippet_of(error),
        },
    }
}

/// The message of a non-2xx response body, for an error text.
pub fn error_body_message(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(value) => match value.get("error") {
            Some(error) => error_message(error),
            None => value
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| snippet(body), snippet),
        },
        Err(_) => snippet(body),
    }
}

fn snippet_of(value: &Value) -> String {
    snippet(&value.to_string())
}

/// At most 200 characters of `text` on one line.
pub fn snippet(text: &str) -> String {
    const MAX: usize = 200;
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &flat[..cut]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_reply_and_usage() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":"<summary>x</summary>"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
        let reply = parse(Provider::OpenAi, body).unwrap();
        assert_eq!(reply.text, "<summary>x</summary>");
        assert_eq!((reply.prompt_tokens, reply.completion_tokens), (12, 3));
        assert_eq!(reply.problem, None);
        let call = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"1"}]}}]}"#;
        assert!(parse(Provider::OpenAi, call).unwrap().problem.is_some());
    }

    #[test]
    fn anthropic_reply_and_usage() {
        let body = r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"usage":{"input_tokens":7,"output_tokens":2}}"#;
        let reply = parse(Provider::Anthropic, body).unwrap();
        assert_eq!(reply.text, "ab");
        assert_eq!((reply.prompt_tokens, reply.completion_tokens), (7, 2));
        // A prompt served partly from a cache (as llama.cpp's /v1/messages reports it).
        let cached = r#"{"content":[{"type":"text","text":"a"}],"usage":{"input_tokens":1,"cache_read_input_tokens":905,"cache_creation_input_tokens":4,"output_tokens":200}}"#;
        let reply = parse(Provider::Anthropic, cached).unwrap();
        assert_eq!((reply.prompt_tokens, reply.completion_tokens), (910, 200));
        let tool = r#"{"content":[{"type":"tool_use","id":"t","name":"bash","input":{}}]}"#;
        assert!(parse(Provider::Anthropic, tool).unwrap().problem.is_some());
    }

    #[test]
    fn malformed_and_error_bodies() {
        assert!(
            parse(Provider::OpenAi, "<html>")
                .unwrap_err()
                .contains("not JSON")
        );
        let err = r#"{"error":{"message":"model not found","type":"invalid_request_error"}}"#;
        assert!(
            parse(Provider::OpenAi, err)
                .unwrap_err()
                .contains("model not found")
        );
        assert_eq!(error_body_message(err), "model not found");
        assert_eq!(error_body_message("Bad   Gateway\n"), "Bad Gateway");
        assert!(snippet(&"x".repeat(500)).ends_with("..."));
    }
}
