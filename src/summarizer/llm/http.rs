//! One HTTP attempt against the summary endpoint, and the cap on attempts in flight.
//!
//! The reqwest blocking client is built once per summarizer: connect and request time-outs,
//! no redirects (a redirect would send the transcript somewhere the user did not name), no
//! proxy for loopback endpoints (a proxy would carry a local transcript off the machine). Each
//! attempt ends as a reply or as a [`Failure`] that says whether trying again can help.

use super::Provider;
use super::wire::{self, ANTHROPIC_VERSION, LimitField, Reply};
use reqwest::blocking::Client;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::Value;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, SystemTime};

/// A counting semaphore: at most `permits` holders at once, across every thread that shares it.
#[derive(Debug)]
pub struct Semaphore {
    free: Mutex<usize>,
    released: Condvar,
}

/// A held permit, given back when dropped.
pub struct Permit<'a>(&'a Semaphore);

impl Semaphore {
    /// A semaphore with `permits` permits.
    pub fn new(permits: usize) -> Self {
        Semaphore {
            free: Mutex::new(permits),
            released: Condvar::new(),
        }
    }

    /// Waits for a permit.
    pub fn acquire(&self) -> Permit<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.released.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.released.notify_one();
    }
}

/// Why an attempt failed, and what may follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong, for the report (never holds the API key).
    pub reason: String,
    /// The same in a few words, alike for every request that failed alike (`401
    /// Unauthorized`, `no response within 30 s`): what the run's warning groups failures by.
    pub cause: String,
    /// What to do about it.
    pub next: Next,
    /// Whether the request reached the server (and so may be billed).
    pub reached: bool,
}

/// What may follow a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Nothing: the same request would fail the same way.
    GiveUp,
    /// Try again, after the server's requested wait if it gave one.
    Retry(Option<Duration>),
    /// Try again at once with `max_completion_tokens` instead of `max_tokens`.
    SwitchLimit,
    /// Ask again at once: the reply came but cannot be used (another sample may be fine).
    Resample,
}

/// The endpoint and the client that talks to it.
#[derive(Clone)]
pub struct Endpoint {
    /// The full URL requests are posted to.
    pub url: Url,
    provider: Provider,
    client: Client,
    auth: Option<HeaderValue>,
    timeout: Duration,
}

impl Endpoint {
    /// Builds the client for `url`. `api_key` must be a valid header value.
    pub fn new(
        provider: Provider,
        url: Url,
        api_key: Option<&str>,
        timeout: Duration,
    ) -> Result<Self, String> {
        let auth = api_key.map(|key| auth_header(provider, key)).transpose()?;
        let mut builder = Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("ctxc/", env!("CARGO_PKG_VERSION")));
        if super::is_loopback(&url) {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {}", chain(&e)))?;
        Ok(Endpoint {
            url,
            provider,
            client,
            auth,
            timeout,
        })
    }

    /// Posts `body` once and classifies the outcome.
    pub fn attempt(&self, body: &Value, limit: LimitField) -> Result<Reply, Failure> {
        let response = self
            .request(body)
            .send()
            .map_err(|e| self.send_failure(&e))?;
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().map_err(|e| self.send_failure(&e))?;
        if status.is_success() {
            return wire::parse(self.provider, &text).map_err(|reason| Failure {
                reason,
                cause: "unreadable reply".into(),
                next: Next::Retry(None),
                reached: true,
            });
        }
        Err(self.status_failure(status, &headers, &text, limit))
    }

    fn request(&self, body: &Value) -> reqwest::blocking::RequestBuilder {
        let mut request = self.client.post(self.url.clone()).json(body);
        if let Some(auth) = &self.auth {
            request = match self.provider {
                Provider::OpenAi => request.header(AUTHORIZATION, auth.clone()),
                Provider::Anthropic => request.header("x-api-key", auth.clone()),
            };
        }
        if self.provider == Provider::Anthropic {
            request = request.header("anthropic-version", ANTHROPIC_VERSION);
        }
        request
    }

    fn send_failure(&self, e: &reqwest::Error) -> Failure {
        if e.is_connect() {
            return Failure {
                reason: format!("cannot connect to {}: {}", self.url, chain(e)),
                cause: format!("cannot connect to {}", self.url),
                next: Next::Retry(None),
                reached: false,
            };
        }
        if e.is_timeout() {
            // A model slower than summary_timeout will be as slow again: no retry.
            return Failure {
                reason: format!(
                    "no response from {} within {} (summary_timeout)",
                    self.url,
                    seconds(self.timeout)
                ),
                cause: format!("no response within {}", seconds(self.timeout)),
                next: Next::GiveUp,
                reached: true,
            };
        }
        Failure {
            reason: format!("request to {} failed: {}", self.url, chain(e)),
            cause: "request failed".into(),
            next: Next::Retry(None),
            reached: true,
        }
    }

    fn status_failure(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        body: &str,
        limit: LimitField,
    ) -> Failure {
        let mut reason = format!("{} answered HTTP {status}", self.url);
        let message = wire::error_body_message(body);
        if !message.is_empty() {
            reason = format!("{reason}: {message}");
        }
        let next = if status == StatusCode::BAD_REQUEST
            && self.provider == Provider::OpenAi
            && limit == LimitField::MaxTokens
            && wire::wants_completion_limit(body)
        {
            Next::SwitchLimit
        } else if super::retry::retryable_status(status) {
            Next::Retry(super::retry::server_wait(headers, SystemTime::now()))
        } else {
            if status.is_redirection() {
                let to = headers.get("location").and_then(|v| v.to_str().ok());
                reason = format!(
                    "{reason} (redirect to {}; ctxc does not follow redirects: set the base URL to where the server points)",
                    to.unwrap_or("an unnamed location")
                );
            }
            Next::GiveUp
        };
        Failure {
            reason,
            cause: status.to_string(),
            next,
            reached: true,
        }
    }
}

/// The authentication header value for `key`, marked sensitive so it is never printed.
fn auth_header(provider: Provider, key: &str) -> Result<HeaderValue, String> {
    let value = match provider {
        Provider::OpenAi => format!("Bearer {key}"),
        Provider::Anthropic => key.to_string(),
    };
    let mut header = HeaderValue::from_str(&value).map_err(|_| {
        "the API key from the environment holds characters that cannot be sent in an HTTP header"
            .to_string()
    })?;
    header.set_sensitive(true);
    Ok(header)
}

/// An error and its causes on one line ("error sending request: ... : Connection refused").
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// A duration as people write it: `30 s`, `1.5 s`.
pub fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn semaphore_caps_holders() {
        let sem = Arc::new(Semaphore::new(2));
        let inside = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (sem, inside, peak) = (sem.clone(), inside.clone(), peak.clone());
                std::thread::spawn(move || {
                    let _permit = sem.acquire();
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(peak.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn auth_headers_are_sensitive_and_checked() {
        let h = auth_header(Provider::OpenAi, "sk-x").unwrap();
        assert!(h.is_sensitive());
        assert_eq!(h.to_str().unwrap(), "Bearer sk-x");
        let err = auth_header(Provider::Anthropic, "bad\nkey-SECRET").unwrap_err();
        assert!(!err.contains("SECRET"));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
