//! LLM summarizers: any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, the
//! llama.cpp server, Ollama, LiteLLM) and Anthropic's `/messages`, over reqwest's blocking
//! client with rustls.
//!
//! Safe by default: secrets are redacted from everything sent, plain `http://` is refused
//! except to loopback, the API key comes from the environment and never appears in an error
//! or a `Debug` print, the request carries no tools and the reply is checked before it is
//! used. A failed summary never loses data (seed 004): after the retries, the configured
//! [`OnFailure`] writes an extractive summary, drops the span as `truncate` does, or fails the
//! file.
//!
//! Build one [`LlmSummarizer`] per run and share it (it is `Sync`; clones share it too): its
//! semaphore is what caps the requests in flight across all worker threads.

mod client;
mod http;
mod output;
pub mod prompt;
mod retry;
mod settings;
mod wire;

pub use client::{Client, Cost};
pub use settings::{LlmSettings, OnFailure, Provider, api_key_from_env, api_key_vars};

use super::extractive::Extractive;
use super::{Fallback, Summarizer, Summary, SummaryRequest};
use crate::transcript::Kind;
use anyhow::{Result, anyhow};
use http::Failure;
use reqwest::Url;

/// A summarizer that asks a model.
#[derive(Clone, Debug)]
pub struct LlmSummarizer {
    client: Client,
}

impl LlmSummarizer {
    /// Checks `settings` (model named, URL scheme, plain HTTP only to loopback unless allowed,
    /// a key for the providers' own hosts) and builds the HTTP client.
    pub fn new(settings: LlmSettings) -> Result<Self> {
        let client = Client::new(settings)?;
        Ok(LlmSummarizer { client })
    }

    /// The URL requests are posted to (any password in it redacted), for the announcement.
    pub fn endpoint(&self) -> &str {
        self.client.endpoint()
    }

    /// The settings it was built with.
    pub fn settings(&self) -> &LlmSettings {
        self.client.settings()
    }
}

/// The line said on stderr before the first request: which endpoint receives how much.
pub fn announcement(endpoint: &str, files: usize, bytes: usize) -> String {
    let files = match files {
        1 => "1 file".to_string(),
        n => format!("{} files", crate::human::thousands(n as u64)),
    };
    format!(
        "ctxc: remote summarization: spans from {files} (at most {} bytes of transcript) will be sent to {endpoint}",
        crate::human::thousands(bytes as u64)
    )
}

impl Summarizer for LlmSummarizer {
    fn deterministic(&self) -> bool {
        false
    }

    fn local(&self) -> bool {
        false
    }

    fn name(&self) -> &str {
        self.settings().provider.name()
    }

    /// `llm_calls` counts the attempts that reached the server (every HTTP response, and
    /// requests that timed out after connecting, which may be billed); refused connections
    /// are not counted.
    fn summarize(&self, request: &SummaryRequest) -> Result<Summary> {
        let prompt = prompt::build(request, self.settings().redact);
        let intro = self.intro(request);
        // The model gets the whole budget; the checked text has to leave room for the intro.
        let budget = request
            .max_tokens
            .saturating_sub(request.counter.count(&intro) + 1);
        let mut cost = Cost::default();
        let check = |reply: &str| output::check(reply, budget, request.counter);
        match self
            .client
            .ask(&prompt, request.max_tokens, check, &mut cost)
        {
            Ok(text) => Ok(Summary {
                text: format!("{intro}\n{text}"),
                llm_calls: cost.calls,
                prompt_tokens: cost.prompt_tokens,
                completion_tokens: cost.completion_tokens,
                fallback: None,
                drop_span: false,
            }),
            Err(failure) => self.fall_back(request, &failure, &cost),
        }
    }
}

impl LlmSummarizer {
    /// The first line of a summary: what it covers and who wrote it.
    fn intro(&self, request: &SummaryRequest) -> String {
        let entries = request.entries;
        let messages = entries
            .iter()
            .filter(|e| e.kind != Kind::NonContext)
            .count();
        let (first, last) = (request.records.start + 1, request.records.end);
        format!(
            "Continuation summary of {messages} earlier messages (records {first}-{last}), written by {} for ctxc.",
            self.settings().model
        )
    }

    /// What the configured [`OnFailure`] makes of a failed summary.
    fn fall_back(
        &self,
        request: &SummaryRequest,
        failure: &Failure,
        cost: &Cost,
    ) -> Result<Summary> {
        // Neither the key nor a secret in the URL goes into the report or the warning.
        let clean = |text: &str| self.client.clean(text);
        let reason = clean(&failure.reason);
        let attempts = match cost.attempts {
            1 => "1 attempt".to_string(),
            n => format!("{n} attempts"),
        };
        let failed = format!(
            "{} summary failed after {attempts}: {reason}",
            self.settings().provider
        );
        let (text, then) = match self.settings().on_failure {
            OnFailure::Fail => return Err(anyhow!(failed)),
            OnFailure::Extractive => (Extractive.summarize(request)?.text, "used extractive"),
            OnFailure::Truncate => (String::new(), "dropped the span without a summary"),
        };
        Ok(Summary {
            text,
            llm_calls: cost.calls,
            prompt_tokens: cost.prompt_tokens,
            completion_tokens: cost.completion_tokens,
            fallback: Some(Fallback {
                cause: clean(&failure.cause),
                used: self.settings().on_failure,
                detail: format!("{failed}; {then}"),
            }),
            drop_span: self.settings().on_failure == OnFailure::Truncate,
        })
    }
}

/// Whether `url` names this machine: `localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let host = host.to_ascii_lowercase();
            host == "localhost" || host.ends_with(".localhost")
        }
    }
}
