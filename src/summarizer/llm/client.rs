//! One model endpoint as every caller in a run shares it: the checked settings, the HTTP
//! client, and the semaphore that caps requests in flight across all worker threads. It asks
//! until a reply passes the caller's check or the retries run out, booking what each attempt
//! cost; the summarizer and `ctxc eval --judge` both ask through it.

use super::http::{self, Endpoint, Failure, Next, Semaphore};
use super::prompt::Prompt;
use super::retry;
use super::settings::LlmSettings;
use super::wire::{self, LimitField, Reply};
use anyhow::{Result, anyhow};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// A model endpoint. Clones share the endpoint and its cap on requests in flight.
#[derive(Clone)]
pub struct Client {
    settings: LlmSettings,
    endpoint: Endpoint,
    display: String,
    in_flight: Arc<Semaphore>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.display)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// What the attempts for one answer cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Requests made, reached or not.
    #[serde(skip)]
    pub attempts: usize,
    /// Requests that reached the server (every HTTP response, and requests that timed out
    /// after connecting, which may be billed).
    pub calls: usize,
    /// Prompt (input) tokens the provider reported.
    pub prompt_tokens: u64,
    /// Completion (output) tokens the provider reported.
    pub completion_tokens: u64,
}

impl Cost {
    fn book(&mut self, reply: &Reply) {
        self.prompt_tokens += reply.prompt_tokens;
        self.completion_tokens += reply.completion_tokens;
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        self.attempts += other.attempts;
        self.calls += other.calls;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }
}

/// Replies rejected by the caller's check are retried this many times: a second sample often
/// behaves, a third rarely does better than the second.
const BAD_REPLY_RETRIES: u32 = 1;

impl Client {
    /// Checks `settings` (model named, URL scheme, plain HTTP only to loopback unless
    /// allowed, a key for the providers' own hosts) and builds the HTTP client.
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
        .map_err(|e| anyhow!("{} endpoint: {e}", settings.provider))?;
        Ok(Client {
            in_flight: Arc::new(Semaphore::new(settings.concurrency)),
            settings,
            endpoint,
            display,
        })
    }

    /// The URL requests are posted to (any password in it redacted).
    pub fn endpoint(&self) -> &str {
        &self.display
    }

    /// The settings it was built with.
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// The request body `prompt` is sent as: what a cache of answers is keyed by.
    pub fn body(&self, prompt: &Prompt, max_tokens: usize) -> serde_json::Value {
        wire::body(
            self.settings.provider,
            &self.settings.model,
            prompt,
            max_tokens,
            LimitField::MaxTokens,
        )
    }

    /// Asks until `check` accepts a reply or the retries run out. `Err` says why, without the
    /// API key or any secret in the URL.
    pub fn complete<T>(
        &self,
        prompt: &Prompt,
        max_tokens: usize,
        check: impl Fn(&str) -> Result<T, String>,
        cost: &mut Cost,
    ) -> Result<T, String> {
        self.ask(prompt, max_tokens, check, cost)
            .map_err(|failure| self.clean(&failure.reason))
    }

    /// `text` with the API key and URL secrets taken out.
    pub(super) fn clean(&self, text: &str) -> String {
        let scrubbed = self.settings.scrub(text);
        crate::summarizer::redact::redact(&scrubbed)
            .text
            .into_owned()
    }

    /// [`Client::complete`], with the last failure as it came.
    pub(super) fn ask<T>(
        &self,
        prompt: &Prompt,
        max_tokens: usize,
        check: impl Fn(&str) -> Result<T, String>,
        cost: &mut Cost,
    ) -> Result<T, Failure> {
        let mut limit = LimitField::MaxTokens;
        let (mut retries, mut bad_replies) = (0u32, 0u32);
        loop {
            let body = wire::body(
                self.settings.provider,
                &self.settings.model,
                prompt,
                max_tokens,
                limit,
            );
            cost.attempts += 1;
            let attempt = {
                let _permit = self.in_flight.acquire();
                self.endpoint.attempt(&body, limit)
            };
            let failure = match attempt.and_then(|reply| accept(reply, &check, cost)) {
                Ok(value) => {
                    cost.calls += 1;
                    return Ok(value);
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
}

/// What `check` makes of a reply (its usage booked either way).
fn accept<T>(
    reply: Reply,
    check: &impl Fn(&str) -> Result<T, String>,
    cost: &mut Cost,
) -> Result<T, Failure> {
    cost.book(&reply);
    let checked = match reply.problem {
        Some(problem) => Err(problem),
        None => check(&reply.text),
    };
    checked.map_err(|why| Failure {
        reason: format!("unusable reply: {why}"),
        cause: "unusable reply".into(),
        next: Next::Resample,
        reached: true,
    })
}
