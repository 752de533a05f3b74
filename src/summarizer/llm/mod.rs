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

mod http;
mod output;
pub mod prompt;
mod retry;
mod settings;
mod wire;

pub use settings::{LlmSettings, OnFailure, Provider, api_key_from_env, api_key_vars};

use super::extractive::Extractive;
use super::{Fallback, Summarizer, Summary, SummaryRequest};
use crate::tokens::TokenCounter;
use crate::transcript::Kind;
use anyhow::{Result, anyhow};
use http::{Endpoint, Failure, Next, Semaphore};
use reqwest::Url;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use wire::{LimitField, Reply};

/// A summarizer that asks a model.
#[derive(Clone)]
pub struct LlmSummarizer {
    settings: LlmSettings,
    endpoint: Endpoint,
    display: String,
    in_flight: Arc<Semaphore>,
}

impl fmt::Debug for LlmSummarizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmSummarizer")
            .field("endpoint", &self.display)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl LlmSummarizer {
    /// Checks `settings` (model named, URL scheme, plain HTTP only to loopback unless allowed,
    /// a key for the providers' own hosts) and builds the HTTP client.
    pub fn new(settings: LlmSettings) -> Result<Self> {
        settings.validate()?;
        let url = settings.endpoint_url()?;
        let display = crate::summarizer::redact::redact(url.as_str())
            .text
            .into_owned();
        let endpoint = Endpoint::new(
            settings.provider,
            url,
            settings.api_key.as_deref(),
            settings.timeout,
        )
        .map_err(|e| anyhow!("{} summarizer: {e}", settings.provider))?;
        Ok(LlmSummarizer {
            in_flight: Arc::new(Semaphore::new(settings.concurrency)),
            settings,
            endpoint,
            display,
        })
    }

    /// The URL requests are posted to (any password in it redacted), for the announcement.
    pub fn endpoint(&self) -> &str {
        &self.display
    }

    /// The settings it was built with.
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
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

/// What the attempts for one summary cost.
#[derive(Debug, Default)]
struct Cost {
    attempts: usize,
    calls: usize,
    prompt_tokens: u64,
    completion_tokens: u64,
}

impl Cost {
    fn book(&mut self, reply: &Reply) {
        self.prompt_tokens += reply.prompt_tokens;
        self.completion_tokens += reply.completion_tokens;
    }
}

/// Replies rejected by the output check are retried this many times: a second sample often
/// behaves, a third rarely does better than the second.
const BAD_REPLY_RETRIES: u32 = 1;

impl Summarizer for LlmSummarizer {
    fn deterministic(&self) -> bool {
        false
    }

    fn local(&self) -> bool {
        false
    }

    fn name(&self) -> &str {
        self.settings.provider.name()
    }

    /// `llm_calls` counts the attempts that reached the server (every HTTP response, and
    /// requests that timed out after connecting, which may be billed); refused connections
    /// are not counted.
    fn summarize(&self, request: &SummaryRequest) -> Result<Summary> {
        let prompt = prompt::build(request, self.settings.redact);
        let intro = self.intro(request);
        // The model gets the whole budget; the checked text has to leave room for the intro.
        let budget = request
            .max_tokens
            .saturating_sub(request.counter.count(&intro) + 1);
        let mut cost = Cost::default();
        match self.ask(&prompt, request, budget, &mut cost) {
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
    /// Asks until a reply passes the checks or the retries run out; `Err` holds why.
    fn ask(
        &self,
        prompt: &prompt::Prompt,
        request: &SummaryRequest,
        budget: usize,
        cost: &mut Cost,
    ) -> Result<String, Failure> {
        let mut limit = LimitField::MaxTokens;
        let (mut retries, mut bad_replies) = (0u32, 0u32);
        loop {
            let body = wire::body(
                self.settings.provider,
                &self.settings.model,
                prompt,
                request.max_tokens,
                limit,
            );
            cost.attempts += 1;
            let attempt = {
                let _permit = self.in_flight.acquire();
                self.endpoint.attempt(&body, limit)
            };
            let failure =
                match attempt.and_then(|reply| accept(reply, budget, request.counter, cost)) {
                    Ok(text) => {
                        cost.calls += 1;
                        return Ok(text);
                    }
                    Err(failure) => failure,
                };
            if failure.reached {
                cost.calls += 1;
            }
            let wait = match failure.next {
                Next::GiveUp => return Err(failure),
                Next::SwitchLimit => {
                    limit = LimitField::MaxCompletionTokens;
                    continue;
                }
                Next::Resample if bad_replies >= BAD_REPLY_RETRIES => return Err(failure),
                Next::Resample | Next::Retry(_) if retries >= self.settings.max_retries => {
                    return Err(failure);
                }
                Next::Resample => {
                    bad_replies += 1;
                    Duration::ZERO
                }
                Next::Retry(None) => retry::backoff(retries),
                Next::Retry(Some(asked)) if asked > retry::RETRY_AFTER_MAX => {
                    return Err(Failure {
                        reason: format!(
                            "{}; the server asked to retry after {}, longer than ctxc waits ({})",
                            failure.reason,
                            http::seconds(asked),
                            http::seconds(retry::RETRY_AFTER_MAX)
                        ),
                        ..failure
                    });
                }
                Next::Retry(Some(asked)) => asked,
            };
            retries += 1;
            std::thread::sleep(wait);
        }
    }

    /// The first line of a summary: what it covers and who wrote it.
    fn intro(&self, request: &SummaryRequest) -> String {
        let entries = request.entries;
        let messages = entries
            .iter()
            .filter(|e| e.kind != Kind::NonContext)
            .count();
        let first = entries.first().map_or(0, |e| e.line);
        let last = entries.last().map_or(0, |e| e.line);
        format!(
            "Continuation summary of {messages} earlier messages (source lines {first}-{last}), written by {} for ctxc.",
            self.settings.model
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
        let clean = |text: &str| {
            let scrubbed = self.settings.scrub(text);
            crate::summarizer::redact::redact(&scrubbed)
                .text
                .into_owned()
        };
        let reason = clean(&failure.reason);
        let attempts = match cost.attempts {
            1 => "1 attempt".to_string(),
            n => format!("{n} attempts"),
        };
        let failed = format!(
            "{} summary failed after {attempts}: {reason}",
            self.settings.provider
        );
        let (text, then) = match self.settings.on_failure {
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
                used: self.settings.on_failure,
                detail: format!("{failed}; {then}"),
            }),
            drop_span: self.settings.on_failure == OnFailure::Truncate,
        })
    }
}

/// The checked summary of a reply (its usage booked either way).
fn accept(
    reply: Reply,
    budget: usize,
    counter: &TokenCounter,
    cost: &mut Cost,
) -> Result<String, Failure> {
    cost.book(&reply);
    let checked = match reply.problem {
        Some(problem) => Err(problem),
        None => output::check(&reply.text, budget, counter),
    };
    checked.map_err(|why| Failure {
        reason: format!("unusable reply: {why}"),
        cause: "unusable reply".into(),
        next: Next::Resample,
        reached: true,
    })
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
