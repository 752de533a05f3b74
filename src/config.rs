//! Resolved settings: command-line arguments turned into validated values that nothing below
//! `run` needs clap for.

use crate::cli::{TokenArgs, TriggerArgs};
use crate::tokens::{DEFAULT_CONTEXT_WINDOW, Encoding, TokenCounter, model_info};
use crate::trigger::TriggerSettings;
use anyhow::{Result, bail};
use serde::Serialize;

/// How tokens are counted, resolved from `--model`, `--encoding` and `--context-window`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenSettings {
    /// The model named, if any.
    pub model: Option<String>,
    /// The encoding counted with.
    pub encoding: Encoding,
    /// The context window in tokens.
    pub context_window: usize,
    /// False when counts only estimate the model's tokens (no public tokenizer, or `estimate`).
    pub exact: bool,
    /// Whether repeated text is counted once (always, outside measurements).
    #[serde(skip)]
    pub cache: bool,
}

impl TokenSettings {
    /// Resolves the token flags; an unknown model is a usage error.
    pub fn from_args(args: &TokenArgs) -> Result<Self> {
        let model = match &args.model {
            Some(name) => match model_info(name) {
                Some(info) => Some(info),
                None => bail!(
                    "unknown model '{name}': name a known model, or give --encoding and --context-window"
                ),
            },
            None => None,
        };
        let encoding = args
            .encoding
            .or(model.map(|m| m.encoding))
            .unwrap_or_default();
        let context_window = args
            .context_window
            .or(model.map(|m| m.context_window))
            .unwrap_or(DEFAULT_CONTEXT_WINDOW);
        if context_window == 0 {
            bail!("--context-window must be at least 1");
        }
        // A model without a public tokenizer is estimated whatever encoding stands in for it.
        let exact = encoding != Encoding::Estimate && model.is_none_or(|m| m.exact);
        Ok(TokenSettings {
            model: args.model.clone(),
            encoding,
            context_window,
            exact,
            cache: !args.no_cache,
        })
    }

    /// Builds the one counter of a run.
    pub fn counter(&self) -> Result<TokenCounter> {
        if self.cache {
            TokenCounter::new(self.encoding)
        } else {
            TokenCounter::without_cache(self.encoding)
        }
    }
}

/// Resolves the trigger flags against the context window.
pub fn trigger_settings(
    args: &TriggerArgs,
    tokens: &TokenSettings,
    force: bool,
) -> Result<TriggerSettings> {
    let defaults = TriggerSettings::default();
    let trigger_ratio = args.trigger_ratio.unwrap_or(defaults.trigger_ratio);
    if !(0.0..=1.0).contains(&trigger_ratio) {
        bail!("--trigger-ratio must be between 0 and 1, got {trigger_ratio}");
    }
    Ok(TriggerSettings {
        context_window: tokens.context_window,
        trigger_ratio,
        turn_threshold: args.turn_threshold.unwrap_or(defaults.turn_threshold),
        max_events: args.max_events.unwrap_or(defaults.max_events),
        marker: !args.no_marker,
        force,
    })
}
