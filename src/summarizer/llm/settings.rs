//! What an LLM summarizer is configured with, and the checks made before any request: the
//! model is named, the URL is http(s), plain `http://` goes only to loopback unless allowed,
//! the providers' own hosts get a key. The API key is held here but never printed: `Debug` is
//! written by hand, and [`LlmSettings::scrub`] takes it out of any text that could echo it.

use anyhow::{Result, bail};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Which API an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI Chat Completions and every server compatible with it.
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

impl Provider {
    /// Both providers.
    pub const ALL: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The base URL used when none is given.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
        }
    }

    /// The provider's own API host, where a request without a key can only fail.
    fn own_host(self) -> &'static str {
        match self {
            Provider::OpenAi => "api.openai.com",
            Provider::Anthropic => "api.anthropic.com",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown LLM provider '{s}' (expected openai or anthropic)"))
    }
}

/// What to do when a summary cannot be had from the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// Write the extractive summary instead (the default).
    #[default]
    Extractive,
    /// Drop the span without a summary, as the `truncate` strategy does (an empty text).
    Truncate,
    /// Fail the file; nothing is written for it.
    Fail,
}

impl OnFailure {
    /// Every choice.
    pub const ALL: [OnFailure; 3] = [OnFailure::Extractive, OnFailure::Truncate, OnFailure::Fail];

    /// The name on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            OnFailure::Extractive => "extractive",
            OnFailure::Truncate => "truncate",
            OnFailure::Fail => "fail",
        }
    }
}

impl fmt::Display for OnFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OnFailure {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        OnFailure::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown summary failure action '{s}' (expected extractive, truncate or fail)"
                )
            })
    }
}

/// Settings of an LLM summarizer. `Debug` never shows the API key.
#[derive(Clone, PartialEq, Eq)]
pub struct LlmSettings {
    /// Which API the endpoint speaks.
    pub provider: Provider,
    /// The summary model (`--summary-model`, required).
    pub model: String,
    /// The API base, e.g. `http://127.0.0.1:8080/v1`; the provider's default when `None`.
    /// Requests go to `{base}/chat/completions` or `{base}/messages` (a base that already ends
    /// with that path is used as it is).
    pub base_url: Option<String>,
    /// The API key, from the environment only ([`api_key_from_env`]); none for local servers.
    pub api_key: Option<String>,
    /// Connect and request time-out (`summary_timeout`, seed 004: 30 s).
    pub timeout: Duration,
    /// Retries after a connect error, 408, 429 or 5xx.
    pub max_retries: u32,
    /// Requests in flight at once, across all threads (`--llm-concurrency`).
    pub concurrency: usize,
    /// What to do when no summary can be had.
    pub on_failure: OnFailure,
    /// Redact secrets before sending (`--no-redact` turns it off).
    pub redact: bool,
    /// Allow plain `http://` to hosts other than loopback (`--allow-insecure-http`).
    pub allow_insecure_http: bool,
}

impl LlmSettings {
    /// Settings for `model` at `provider` with every default: the provider's URL, no key,
    /// 30 s time-out, 4 retries, 4 requests in flight, extractive fallback, redaction on.
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        LlmSettings {
            provider,
            model: model.into(),
            base_url: None,
            api_key: None,
            timeout: Duration::from_secs(30),
            max_retries: 4,
            concurrency: 4,
            on_failure: OnFailure::Extractive,
            redact: true,
            allow_insecure_http: false,
        }
    }

    /// Checks what can be checked without a request.
    pub fn validate(&self) -> Result<()> {
        let p = self.provider;
        if self.model.trim().is_empty() {
            bail!("the {p} summarizer needs a summary model (--summary-model)");
        }
        if self.concurrency == 0 {
            bail!("--llm-concurrency must be at least 1");
        }
        if self.timeout.is_zero() {
            bail!("summary_timeout must be more than 0 seconds");
        }
        Ok(())
    }

    /// The URL requests are posted to, checked: http(s) only, plain http only to loopback
    /// (unless allowed), a key present for the provider's own host.
    pub fn endpoint_url(&self) -> Result<Url> {
        let p = self.provider;
        let base = self.base_url.as_deref().unwrap_or(p.default_base_url());
        let shown = crate::summarizer::redact::redact(base).text.into_owned();
        let path = super::wire::path(p);
        let trimmed = base.trim_end_matches('/');
        let full = if trimmed.ends_with(path) {
            trimmed.to_string()
        } else {
            format!("{trimmed}{path}")
        };
        let url = Url::parse(&full)
            .map_err(|e| anyhow::anyhow!("invalid {p} base URL '{shown}': {e}"))?;
        match url.scheme() {
            "https" => {}
            "http" if super::is_loopback(&url) || self.allow_insecure_http => {}
            "http" => bail!(
                "refusing to send transcripts over plain http to {shown}: http:// is allowed only to loopback (localhost, 127.0.0.0/8, ::1); use https:// or pass --allow-insecure-http"
            ),
            other => {
                bail!("the {p} base URL '{shown}' must be http:// or https://, not {other}://")
            }
        }
        if self.api_key.is_none() && url.host_str() == Some(p.own_host()) {
            let vars = api_key_vars(p).join(" or ");
            bail!("the {p} summarizer needs an API key for {shown}: set {vars}");
        }
        Ok(url)
    }

    /// `text` with the API key taken out, wherever a server or library echoed it.
    pub fn scrub(&self, text: &str) -> String {
        match self.api_key.as_deref().filter(|k| k.len() >= 4) {
            Some(key) if text.contains(key) => text.replace(key, "[API key]"),
            _ => text.to_string(),
        }
    }
}

impl fmt::Debug for LlmSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmSettings")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url.as_deref().map(redacted))
            .field("api_key", &self.api_key.as_ref().map(|_| "[hidden]"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("concurrency", &self.concurrency)
            .field("on_failure", &self.on_failure)
            .field("redact", &self.redact)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .finish()
    }
}

fn redacted(url: &str) -> String {
    crate::summarizer::redact::redact(url).text.into_owned()
}

/// The environment variables an API key is read from, in order: ctxc's own first, so a key
/// meant for ctxc can differ from the one other tools use.
pub fn api_key_vars(provider: Provider) -> [&'static str; 2] {
    match provider {
        Provider::OpenAi => ["CTXC_API_KEY", "OPENAI_API_KEY"],
        Provider::Anthropic => ["CTXC_API_KEY", "ANTHROPIC_API_KEY"],
    }
}

/// The API key for `provider` from the environment ([`api_key_vars`]); empty values count as
/// unset.
pub fn api_key_from_env(provider: Provider) -> Option<String> {
    api_key_from(provider, |name| std::env::var(name).ok())
}

fn api_key_from(provider: Provider, var: impl Fn(&str) -> Option<String>) -> Option<String> {
    api_key_vars(provider)
        .into_iter()
        .filter_map(var)
        .map(|v| v.trim().to_string())
        .find(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(base: &str) -> Result<Url> {
        let mut s = LlmSettings::new(Provider::OpenAi, "m");
        s.base_url = Some(base.into());
        s.endpoint_url()
    }

    #[test]
    fn names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(p.name().parse::<Provider>().unwrap(), p);
        }
        for o in OnFailure::ALL {
            assert_eq!(o.name().parse::<OnFailure>().unwrap(), o);
        }
        assert!("gemini".parse::<Provider>().unwrap_err().contains("openai"));
        assert!(
            "skip"
                .parse::<OnFailure>()
                .unwrap_err()
                .contains("truncate")
        );
    }

    #[test]
    fn endpoint_urls() {
        let u = url("http://127.0.0.1:8080/v1/").unwrap();
        assert_eq!(u.as_str(), "http://127.0.0.1:8080/v1/chat/completions");
        let u = url("http://localhost:11434/v1/chat/completions").unwrap();
        assert_eq!(u.path(), "/v1/chat/completions");
        assert!(url("http://[::1]:9/v1").is_ok());
        assert!(url("https://llm.example.com/v1").is_ok());
        let err = url("http://llm.example.com/v1").unwrap_err().to_string();
        assert!(err.contains("--allow-insecure-http"), "{err}");
        assert!(url("ftp://127.0.0.1/v1").is_err());
        let err = url("http://u:hunter22@llm.example.com/v1")
            .unwrap_err()
            .to_string();
        assert!(!err.contains("hunter22"), "{err}");
        let mut s = LlmSettings::new(Provider::Anthropic, "m");
        assert!(
            s.endpoint_url()
                .unwrap_err()
                .to_string()
                .contains("ANTHROPIC_API_KEY")
        );
        s.api_key = Some("k".into());
        assert_eq!(
            s.endpoint_url().unwrap().as_str(),
            "https://api.anthropic.com/v1/messages"
        );
        s.base_url = Some("http://10.0.0.5/v1".into());
        s.allow_insecure_http = true;
        assert!(s.endpoint_url().is_ok());
    }

    #[test]
    fn validation() {
        let mut s = LlmSettings::new(Provider::OpenAi, " ");
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("--summary-model")
        );
        s.model = "m".into();
        s.concurrency = 0;
        assert!(s.validate().is_err());
    }

    #[test]
    fn keys_come_from_ctxc_first_and_never_show() {
        let env = |pairs: &'static [(&str, &str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let both = env(&[("CTXC_API_KEY", "a"), ("OPENAI_API_KEY", "b")]);
        assert_eq!(api_key_from(Provider::OpenAi, both).as_deref(), Some("a"));
        let blank = env(&[("CTXC_API_KEY", " "), ("ANTHROPIC_API_KEY", "c")]);
        assert_eq!(
            api_key_from(Provider::Anthropic, blank).as_deref(),
            Some("c")
        );
        assert_eq!(api_key_from(Provider::OpenAi, env(&[])), None);
        let mut s = LlmSettings::new(Provider::OpenAi, "m");
        s.api_key = Some("sk-SENTINEL-123".into());
        assert!(!format!("{s:?}").contains("SENTINEL"));
        assert_eq!(s.scrub("bad key sk-SENTINEL-123!"), "bad key [API key]!");
    }
}
