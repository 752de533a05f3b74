//! Which compaction triggers fire for a conversation (DESIGN "Triggers"): context tokens
//! against a share of the window, conversation turns, events, the `!!!SUMMARY!!!` marker, or
//! the user's `--force`. Any one firing is enough.

use crate::transcript::{Conversation, Kind};
use serde::Serialize;

/// The marker an agent writes in its last message to ask for a summary (seed 000).
pub const SUMMARY_REQUEST_MARKER: &str = "!!!SUMMARY!!!";

/// Trigger thresholds; a threshold of 0 switches that trigger off.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerSettings {
    /// The model's context window in tokens.
    pub context_window: usize,
    /// Fire when context tokens ≥ this share of the window (0 = off).
    pub trigger_ratio: f64,
    /// Fire when the conversation has this many turns (user messages) (0 = off).
    pub turn_threshold: usize,
    /// Fire when the conversation has this many events (logical messages) (0 = off).
    pub max_events: usize,
    /// Fire when the last assistant message contains `!!!SUMMARY!!!`.
    pub marker: bool,
    /// Always fire (the user asks).
    pub force: bool,
    /// Fire because a target was given on the command line: the user asks for that size
    /// (unlike `force`, a conversation already under it is left alone).
    pub target: bool,
    /// Compare ctxc's own count with the threshold even when the transcript records provider
    /// usage (`--raw-tokens`); by default the provider's calibrated figure is compared.
    pub raw_tokens: bool,
    /// Whether `context_window` was given; if not, a conversation that records its window (or
    /// names a known model) is measured against that instead ([`Self::for_conversation`]).
    #[serde(skip)]
    pub window_given: bool,
}

impl Default for TriggerSettings {
    fn default() -> Self {
        TriggerSettings {
            context_window: crate::tokens::DEFAULT_CONTEXT_WINDOW,
            trigger_ratio: 0.8,
            turn_threshold: 200,
            max_events: 700,
            marker: true,
            force: false,
            target: false,
            raw_tokens: false,
            window_given: false,
        }
    }
}

impl TriggerSettings {
    /// The settings for `conv`: unless a window was given, the window the transcript records
    /// (Codex `model_context_window`), else the known window of the model it names (Claude
    /// Code `message.model`), else the configured default.
    pub fn for_conversation(&self, conv: &crate::transcript::Conversation) -> TriggerSettings {
        if self.window_given {
            return self.clone();
        }
        let recorded = conv.context_window.or_else(|| {
            conv.model
                .as_deref()
                .and_then(crate::tokens::model_info)
                .map(|m| m.context_window)
        });
        TriggerSettings {
            context_window: recorded.filter(|&w| w > 0).unwrap_or(self.context_window),
            ..self.clone()
        }
    }

    /// The token count at which the token trigger fires, if it is on.
    pub fn token_threshold(&self) -> Option<usize> {
        (self.trigger_ratio > 0.0)
            .then(|| (self.trigger_ratio * self.context_window as f64).ceil() as usize)
    }
}

/// What is measured of a conversation for its triggers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Measures {
    /// Context tokens (ctxc's exact count).
    pub tokens: usize,
    /// Context tokens as the provider would count them, calibrated on the usage the
    /// transcript records (DESIGN "Which tokens"); `None` without usage.
    pub provider_tokens: Option<usize>,
    /// User turns in the live context.
    pub turns: usize,
    /// Logical messages in the live context.
    pub events: usize,
    /// Whether the last assistant message carries the summary marker.
    pub marker: bool,
}

impl Measures {
    /// Measures `conv` given its context tokens.
    pub fn of(conv: &Conversation, tokens: usize) -> Self {
        let live = || conv.items.iter().filter(|i| i.in_context);
        let turns = live().filter(|i| i.kind == Kind::User).count();
        let first = crate::count::first_of_message(conv);
        let events = conv
            .items
            .iter()
            .zip(first)
            .filter(|(i, first)| i.in_context && *first)
            .count();
        let marker = live()
            .rev()
            .find(|i| matches!(i.kind, Kind::AssistantText | Kind::ToolCall))
            .is_some_and(|i| {
                i.parts
                    .iter()
                    .any(|p| p.text.contains(SUMMARY_REQUEST_MARKER))
            });
        Measures {
            tokens,
            provider_tokens: None,
            turns,
            events,
            marker,
        }
    }

    /// These measures with the provider's calibrated figure.
    pub fn with_provider(self, provider_tokens: Option<usize>) -> Self {
        Measures {
            provider_tokens,
            ..self
        }
    }

    /// The figure the token trigger compares: the provider's when known and not overridden.
    pub fn trigger_tokens(&self, settings: &TriggerSettings) -> usize {
        match self.provider_tokens {
            Some(n) if !settings.raw_tokens => n,
            _ => self.tokens,
        }
    }
}

/// A trigger that fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "trigger")]
pub enum Trigger {
    /// Context tokens reached the threshold.
    Tokens {
        /// Context tokens.
        tokens: usize,
        /// The threshold.
        threshold: usize,
    },
    /// Turns reached the threshold.
    Turns {
        /// User turns.
        turns: usize,
        /// The threshold.
        threshold: usize,
    },
    /// Events reached the threshold.
    Events {
        /// Logical messages.
        events: usize,
        /// The threshold.
        threshold: usize,
    },
    /// The last assistant message asked for a summary.
    Marker,
    /// The user forced compaction.
    Force,
    /// The user gave a target on the command line.
    Target,
}

impl Trigger {
    /// Short name for tables and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Trigger::Tokens { .. } => "tokens",
            Trigger::Turns { .. } => "turns",
            Trigger::Events { .. } => "events",
            Trigger::Marker => "marker",
            Trigger::Force => "force",
            Trigger::Target => "target",
        }
    }
}

/// Every trigger that fires for `m` under `settings`.
pub fn fired(settings: &TriggerSettings, m: &Measures) -> Vec<Trigger> {
    let mut fired = Vec::new();
    let tokens = m.trigger_tokens(settings);
    if let Some(threshold) = settings.token_threshold().filter(|&t| tokens >= t) {
        fired.push(Trigger::Tokens { tokens, threshold });
    }
    let turns = settings.turn_threshold;
    if turns > 0 && m.turns >= turns {
        fired.push(Trigger::Turns {
            turns: m.turns,
            threshold: turns,
        });
    }
    let events = settings.max_events;
    if events > 0 && m.events >= events {
        fired.push(Trigger::Events {
            events: m.events,
            threshold: events,
        });
    }
    if settings.marker && m.marker {
        fired.push(Trigger::Marker);
    }
    if settings.force {
        fired.push(Trigger::Force);
    } else if settings.target {
        fired.push(Trigger::Target);
    }
    fired
}

/// Why nothing fired, for the report.
pub fn why_not(settings: &TriggerSettings, m: &Measures) -> String {
    let provider = if m.provider_tokens.is_some() && !settings.raw_tokens {
        " (provider, calibrated)"
    } else {
        ""
    };
    use crate::human::{plural, thousands};
    let tokens = match settings.token_threshold() {
        Some(t) => format!(
            "{} < {} tokens{provider}",
            thousands(m.trigger_tokens(settings) as u64),
            thousands(t as u64)
        ),
        None => "token trigger off".into(),
    };
    format!(
        "no trigger fired: {tokens}, {}, {}, no {SUMMARY_REQUEST_MARKER} marker",
        plural(m.turns, "turn"),
        plural(m.events, "event")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ReadOptions, read};

    fn conversation(jsonl: &str) -> crate::transcript::Conversation {
        let t = read(jsonl.to_string(), &ReadOptions::default()).unwrap();
        t.conversations.into_iter().next().unwrap()
    }

    #[test]
    fn a_transcript_that_records_its_window_is_measured_against_it_unless_one_is_given() {
        let codex = conversation(concat!(
            r#"{"type":"session_meta","payload":{"id":"s","cwd":"/w","instructions":""}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":10},"model_context_window":1000}}}"#,
            "\n",
        ));
        let claude = conversation(concat!(
            r#"{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"a","parentUuid":"u","message":{"role":"assistant","model":"claude-2.0","content":[{"type":"text","text":"hello"}]}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"b","parentUuid":"a","message":{"role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#,
            "\n",
        ));
        assert_eq!(
            claude.model.as_deref(),
            Some("claude-2.0"),
            "not <synthetic>"
        );
        let default = TriggerSettings::default();
        assert_eq!(default.for_conversation(&codex).context_window, 1000);
        assert_eq!(default.for_conversation(&claude).context_window, 100_000);
        let given = TriggerSettings {
            context_window: 50_000,
            window_given: true,
            ..Default::default()
        };
        assert_eq!(given.for_conversation(&codex).context_window, 50_000);
        assert_eq!(given.for_conversation(&claude).context_window, 50_000);
        let plain = conversation(r#"{"role":"user","content":"hi"}"#);
        assert_eq!(
            default.for_conversation(&plain).context_window,
            crate::tokens::DEFAULT_CONTEXT_WINDOW
        );
    }

    #[test]
    fn each_trigger_fires_at_its_threshold_and_zero_switches_it_off() {
        let s = TriggerSettings {
            context_window: 1000,
            ..Default::default()
        };
        let below = Measures {
            tokens: 799,
            provider_tokens: None,
            turns: 199,
            events: 699,
            marker: false,
        };
        assert!(fired(&s, &below).is_empty());
        let at = Measures {
            tokens: 800,
            provider_tokens: None,
            turns: 200,
            events: 700,
            marker: true,
        };
        let names: Vec<_> = fired(&s, &at).iter().map(Trigger::name).collect();
        assert_eq!(names, ["tokens", "turns", "events", "marker"]);
        let off = TriggerSettings {
            trigger_ratio: 0.0,
            turn_threshold: 0,
            max_events: 0,
            marker: false,
            force: true,
            ..s
        };
        let names: Vec<_> = fired(&off, &at).iter().map(Trigger::name).collect();
        assert_eq!(names, ["force"]);
    }

    #[test]
    fn the_provider_figure_fires_the_token_trigger_unless_raw_counts_are_asked_for() {
        let s = TriggerSettings {
            context_window: 1000,
            ..Default::default()
        };
        let m = Measures {
            tokens: 500,
            ..Default::default()
        }
        .with_provider(Some(850));
        assert_eq!(
            fired(&s, &m),
            [Trigger::Tokens {
                tokens: 850,
                threshold: 800
            }]
        );
        let raw = TriggerSettings {
            raw_tokens: true,
            ..s
        };
        assert!(fired(&raw, &m).is_empty());
        assert!(why_not(&raw, &m).contains("500 < 800 tokens"));
    }
}
