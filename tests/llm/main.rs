//! The LLM summarizers against a loopback HTTP server inside the test process: request shape
//! for both APIs, reply checks, retries, time-outs, fallbacks, the concurrency cap, and that
//! neither a planted secret nor the API key ever leaves in a request body or an error. No test
//! reaches beyond 127.0.0.1.

#[path = "../common/agent_run.rs"]
mod agent_run;
mod cli;
mod concurrency;
mod failures;
mod judge;
#[path = "../common/process.rs"]
mod process;
mod safety;
mod server;
mod shape;

use ctxc::summarizer::llm::{LlmSettings, LlmSummarizer, OnFailure, Provider};
use ctxc::summarizer::{Scope, Summarizer, Summary, SummaryRequest};
use ctxc::tokens::{Encoding, TokenCounter};
use ctxc::transcript::{Item, ReadOptions, read};
use std::borrow::Cow;
use std::sync::LazyLock;
use std::time::Duration;

/// A fake OpenAI project key planted in the transcript.
pub const PLANTED_OPENAI: &str = "sk-proj-PLANTEDabcdefghijklmnop0123456789";
/// A fake AWS access key id planted in the transcript.
pub const PLANTED_AWS: &str = "AKIAPLANTED000000000";
/// Arguments of the call left pending at the end of [`SESSION`].
pub const PENDING: &str = "PENDING_CALL_MARKER";

/// A small OpenAI-format session: a task, a failing test, a fix, a call still running.
pub static SESSION: LazyLock<String> = LazyLock::new(|| {
    serde_json::json!([
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": format!(
            "Fix the failing test in src/lib.rs. My key is {PLANTED_OPENAI} and AWS {PLANTED_AWS}."
        )},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "bash", "arguments": "{\"cmd\": \"cargo test\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "error[E0425]: cannot find value `x` in src/lib.rs"},
        {"role": "assistant", "content": "Fixed the typo in src/lib.rs; the tests pass."},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function",
            "function": {"name": "bash", "arguments": format!("{{\"cmd\": \"{PENDING}\"}}")}}]},
    ])
    .to_string()
});

/// The run's token counter, built once.
pub static COUNTER: LazyLock<TokenCounter> =
    LazyLock::new(|| TokenCounter::new(Encoding::O200kBase).expect("tokenizer"));

/// The items of the first conversation of `source`.
pub fn items(source: &str) -> Vec<Item> {
    let t = read(source.to_string(), &ReadOptions::default()).expect("transcript reads");
    t.conversations
        .into_iter()
        .next()
        .expect("a conversation")
        .items
}

/// Summarizes all of `items` with `summarizer`, budget 321 tokens.
pub fn summarize(summarizer: &dyn Summarizer, items: &[Item]) -> anyhow::Result<Summary> {
    let entries: Vec<Cow<Item>> = items.iter().map(Cow::Borrowed).collect();
    summarizer.summarize(&SummaryRequest {
        entries: &entries,
        scope: Scope::Span,
        records: 0..entries.len(),
        max_tokens: 321,
        counter: &COUNTER,
        memo: None,
    })
}

/// Settings for `server` with fast failure: 2 s time-out, 2 retries.
pub fn settings(provider: Provider, base_url: &str) -> LlmSettings {
    let mut s = LlmSettings::new(provider, "test-model");
    s.base_url = Some(base_url.to_string());
    s.timeout = Duration::from_secs(2);
    s.max_retries = 2;
    s.on_failure = OnFailure::Extractive;
    s
}

/// A summarizer for `settings`.
pub fn summarizer(settings: LlmSettings) -> LlmSummarizer {
    LlmSummarizer::new(settings).expect("valid settings")
}
