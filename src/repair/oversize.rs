//! Oversized sessions: a Claude Code session above 20–40 MB is refused before any request is
//! made, and `/compact` then silently does nothing (claude-agent-acp#1024, claude-code#19443).
//! Most of such a file is never sent to the model (progress records, snapshots, history above
//! the latest compact boundary, `toolUseResult` copies), so dropping it — what `compact
//! --drop-stored` does, run here through the same pipeline with every trigger off — makes
//! the session loadable without changing what the model is sent. Whether the model's context
//! then fits its window is measured and reported; if not, `compact` is what helps.

use super::Repair;
use crate::config::{CompactConfig, Layer};
use crate::pipeline::{self, OnFindings, Settings};
use crate::strategy::StrategySettings;
use crate::summarizer::extractive::Extractive;
use crate::transcript::{ReadOptions, Transcript};
use serde::Serialize;

/// How the model's window is found: as `compact` finds it.
#[derive(Debug, Clone, Default)]
pub struct Fit {
    /// `--model`.
    pub model: Option<String>,
    /// `--context-window`.
    pub context_window: Option<usize>,
}

/// An oversized session, measured.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Size {
    /// The size the client loads at most.
    pub limit_bytes: u64,
    /// Bytes before stored-only payloads were dropped.
    pub bytes_before: usize,
    /// Bytes after.
    pub bytes_after: usize,
    /// What the model is sent, in tokens (calibrated when the session records usage).
    pub context_tokens: usize,
    /// The model's context window.
    pub context_window: usize,
    /// Whether the session is now small enough to load and its context fits the window.
    pub fits: bool,
}

/// `t` without its stored-only payloads (`None` when there were none, or they could not be
/// dropped), the session measured, and the repair to report.
pub fn drop_stored(t: &Transcript, limit: u64, fit: &Fit) -> (Option<String>, Size, Vec<Repair>) {
    let bytes_before = t.source.len();
    let (output, measured) = match run(t, fit) {
        Some((output, measured)) => (output.filter(|o| o.len() < bytes_before), Some(measured)),
        None => (None, None),
    };
    let bytes_after = output.as_ref().map_or(bytes_before, String::len);
    let (context_tokens, context_window) = measured.unwrap_or((0, 0));
    let loads = bytes_after as u64 <= limit;
    let size = Size {
        limit_bytes: limit,
        bytes_before,
        bytes_after,
        context_tokens,
        context_window,
        fits: loads && context_tokens <= context_window,
    };
    let fault = format!(
        "session is {}, above the {} its client loads",
        megabytes(bytes_before as u64),
        megabytes(limit)
    );
    let mut action = match &output {
        Some(_) => format!(
            "dropped {} of stored-only records and copies (what the model is sent is unchanged): now {}",
            megabytes((bytes_before - bytes_after) as u64),
            megabytes(bytes_after as u64)
        ),
        None => "nothing stored-only to drop".to_string(),
    };
    action.push_str(&if size.fits {
        format!(
            "; its context ({} tokens) fits the {}-token window",
            context_tokens, context_window
        )
    } else {
        format!(
            "; still too large for the model ({} context tokens, {}-token window): run `ctxc compact` on it",
            context_tokens, context_window
        )
    });
    (output, size, vec![Repair::new(0, fault, action)])
}

/// The session through the compaction pipeline with only `--drop-stored`: its output when it
/// changed, and what the model is then sent (tokens, provider-calibrated where the session
/// records usage) against its window; `None` when it could not go through (nothing dropped).
fn run(t: &Transcript, fit: &Fit) -> Option<(Option<String>, (usize, usize))> {
    let layer = Layer {
        model: fit.model.clone(),
        context_window: fit.context_window,
        trigger_ratio: Some(0.0),
        conversation_turn_threshold: Some(0),
        max_events: Some(0),
        summary_marker: Some(false),
        ..Layer::default()
    };
    let config = CompactConfig::from_layer(layer, false).ok()?;
    let counter = config.tokens.counter().ok()?;
    let settings = Settings {
        read: ReadOptions {
            format: Some(t.format),
            messages_path: None,
        },
        strategy: StrategySettings {
            drop_stored: true,
            step_plans: false,
            ..config.strategy.clone()
        },
        ..config.pipeline(&Extractive, &counter)
    };
    let (read, plans) =
        pipeline::read_and_plan(t.source.clone(), &settings, OnFindings::Allow).ok()?;
    let outcome = pipeline::finish(&read, plans, &settings).ok()?;
    let measured = (outcome.sent_tokens_after(), outcome.context_window());
    let output = outcome.changed.then(|| outcome.output.to_string());
    Some((output, measured))
}

/// Bytes in MiB (as sizes are given), one decimal.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}
