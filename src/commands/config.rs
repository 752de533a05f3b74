//! `ctxc config show`: every setting of `ctxc compact`, its value and where it came from
//! (flag, `CTXC_*` variable, settings file, default).

use crate::ExitStatus;
use crate::cli::ConfigCommand;
use crate::config::{CompactConfig, KEYS, Source};
use crate::report::{OutputFormat, Table, render};
use anyhow::Result;
use clap::Parser;
use serde::Serialize;

/// One setting as shown.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Shown {
    key: &'static str,
    value: serde_json::Value,
    source: String,
}

/// Runs `ctxc config ...`.
pub fn run(command: &ConfigCommand) -> Result<ExitStatus> {
    let ConfigCommand::Show {
        config,
        json,
        flags,
    } = command;
    // The settings compact would use with these flags: parse them as a compact command line.
    let line = ["ctxc", "compact"]
        .into_iter()
        .chain(flags.iter().map(String::as_str))
        .chain(["-"]);
    let cli = crate::cli::Cli::try_parse_from(line).unwrap_or_else(|e| e.exit());
    let crate::cli::Command::Compact(mut args) = cli.command else {
        unreachable!("parsed as compact")
    };
    // Its own flags may come among compact's, which has them too.
    if config.config.is_some() || config.no_config {
        args.config = config.clone();
    }
    let json = *json || args.report.json;
    let resolved = CompactConfig::resolve(&args)?;
    let shown = shown(&resolved);
    let text = if json {
        let notes: Vec<String> = window_note(&resolved).into_iter().collect();
        let data = serde_json::json!({
            "schemaVersion": 1,
            "settings": shown,
            "resolved": resolved,
            "notes": notes,
        });
        format!("{}\n", serde_json::to_string_pretty(&data)?)
    } else {
        let table = Table {
            // The value last: a long one (`selective`'s rules) widens no other row, and
            // the table stays within a terminal.
            headers: vec!["KEY".into(), "SOURCE".into(), "VALUE".into()],
            numeric: vec![false, false, false],
            rows: shown
                .iter()
                .map(|s| vec![s.key.to_string(), s.source.clone(), value_text(&s.value)])
                .collect(),
            total: None,
            notes: window_note(&resolved).into_iter().collect(),
        };
        render(OutputFormat::Table, &(), &table)?
    };
    crate::output::write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// When no window is given (by --context-window, --model or a setting), the one shown is only
/// the fallback: each transcript's own applies first.
fn window_note(resolved: &CompactConfig) -> Option<String> {
    (!resolved.tokens.window_given).then(|| {
        "context_window: each transcript's own window applies (the one it records, else its \
         model's); this one only when it has none. --context-window or --model sets one for all"
            .to_string()
    })
}

fn shown(resolved: &CompactConfig) -> Vec<Shown> {
    let values = effective_json(resolved);
    KEYS.iter()
        .filter(|k| **k != "force")
        .map(|key| {
            let source = resolved.sources.get(key).unwrap_or(&Source::Default);
            let from_model = matches!(*key, "context_window" | "encoding")
                && *source == Source::Default
                && resolved.tokens.model.is_some();
            Shown {
                key,
                value: values.get(*key).cloned().unwrap_or(serde_json::Value::Null),
                source: if from_model {
                    "model".to_string()
                } else {
                    source.to_string()
                },
            }
        })
        .collect()
}

/// The effective value of every key, defaults filled in, as the settings file would spell it.
pub fn effective_json(c: &CompactConfig) -> serde_json::Value {
    let s = &c.strategy;
    let (target_tokens, target_ratio) = match c.target {
        crate::pipeline::Target::Tokens(n) => (Some(n), None),
        crate::pipeline::Target::Ratio(r) => (None, Some(r)),
        crate::pipeline::Target::Threshold => (None, None),
    };
    let strategies: Vec<&str> = c.strategies.iter().map(|n| n.name()).collect();
    serde_json::json!({
        "model": c.tokens.model,
        "context_window": c.tokens.context_window,
        "encoding": c.tokens.encoding,
        "trigger_ratio": c.triggers.trigger_ratio,
        "trigger_remaining_ratio": c.merged.trigger_remaining_ratio,
        "conversation_turn_threshold": c.triggers.turn_threshold,
        "max_events": c.triggers.max_events,
        "summary_marker": c.triggers.marker,
        "strategy": strategies,
        "target_tokens": target_tokens,
        "target_ratio": target_ratio,
        "keep_recent_rounds": c.merged.keep_recent_rounds,
        "sliding_window_size": c.merged.sliding_window_size.unwrap_or(
            crate::strategy::StrategySettings::default().window_user_messages
                + crate::strategy::StrategySettings::default().window_assistant_messages
        ),
        "importance_score_threshold": s.importance_threshold,
        "importance_keep_recent": s.importance_keep_recent,
        "key_events_keep_recent": s.key_events_keep_recent,
        "incremental_summary_chunk_size": s.incremental_chunk_turns,
        "observation_masking_keep_recent": s.masking_keep_recent,
        "keep_recent_count": s.truncate_keep_recent,
        "summary_max_tokens": s.summary_max_tokens,
        "keep_payloads": s.keep_payloads,
        "selective": s.selective_rules,
        "summarizer": c.summarizer.kind,
        "summary_model": c.summarizer.model,
        "base_url": c.summarizer.base_url,
        "summary_timeout": c.summarizer.timeout,
        "llm_concurrency": c.summarizer.concurrency,
        "on_summary_failure": c.summarizer.on_failure,
        "redact": c.summarizer.redact,
        "allow_insecure_http": c.summarizer.allow_insecure_http,
    })
}

fn value_text(v: &serde_json::Value) -> String {
    match v {
        // The selective table: `kind:action(keep)` per rule.
        serde_json::Value::Array(rules) if rules.iter().all(|r| r.get("kind").is_some()) => rules
            .iter()
            .map(|r| {
                let kind = r["kind"].as_str().unwrap_or("?");
                let action = r["strategy"].as_str().unwrap_or("?");
                match r.get("keep_recent") {
                    Some(n) => format!("{kind}:{action}({n})"),
                    None => format!("{kind}:{action}"),
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        serde_json::Value::Null => "-".into(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) if a.iter().all(|x| x.is_string()) => a
            .iter()
            .filter_map(|x| x.as_str())
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}
