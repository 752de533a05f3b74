//! Precedence and validation of settings.

use super::*;
use crate::cli::{Cli, Command};
use clap::Parser;
use std::collections::HashMap;

fn args(flags: &[&str]) -> CompactArgs {
    let mut argv = vec!["ctxc", "compact"];
    argv.extend_from_slice(flags);
    argv.push("-");
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Compact(a) => *a,
        _ => unreachable!(),
    }
}

fn file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f
}

fn resolve(flags: &[&str], yaml: Option<&str>, env: &[(&str, &str)]) -> Result<CompactConfig> {
    let f = yaml.map(file);
    let vars: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    CompactConfig::resolve_from(&args(flags), f.as_ref().map(|f| f.path()), |n| {
        vars.get(n).cloned()
    })
}

/// The strategy defaults of a run without `--archive`: no step's plan is kept.
fn run_defaults() -> StrategySettings {
    StrategySettings {
        step_plans: false,
        ..StrategySettings::default()
    }
}

#[test]
fn the_run_flags_are_resolved_with_the_settings() {
    let c = resolve(
        &[
            "--drop-stored",
            "--archive",
            "--format",
            "openai",
            "--messages-path",
            "/runs/*/messages",
        ],
        None,
        &[],
    )
    .unwrap();
    assert!(c.strategy.drop_stored && c.strategy.step_plans);
    assert_eq!(c.read.format, Some(crate::transcript::Format::OpenAi));
    assert_eq!(c.read.messages_path.as_deref(), Some("/runs/*/messages"));
    let plain = resolve(&[], None, &[]).unwrap();
    assert!(!plain.strategy.drop_stored && !plain.strategy.step_plans);
    assert_eq!(plain.read.format, None);
}

#[test]
fn defaults_are_the_seeds() {
    let c = resolve(&[], None, &[]).unwrap();
    assert_eq!(c.triggers.trigger_ratio, 0.8);
    assert_eq!(c.triggers.turn_threshold, 200);
    assert_eq!(c.triggers.max_events, 700);
    assert_eq!(c.tokens.context_window, 200_000);
    assert_eq!(c.strategies, [StrategyName::Adaptive]);
    assert_eq!(c.strategy, run_defaults());
    assert_eq!(c.summarizer.kind, "extractive");
    assert!(c.sources.values().all(|s| *s == Source::Default));
}

#[test]
fn flags_beat_environment_beat_file_beat_defaults() {
    let yaml = "trigger_ratio: 0.5\nsummary_max_tokens: 600\nsliding_window_size: 7\n";
    let env = [
        ("CTXC_TRIGGER_RATIO", "0.6"),
        ("CTXC_SUMMARY_MAX_TOKENS", "700"),
    ];
    let c = resolve(&["--trigger-ratio", "0.7"], Some(yaml), &env).unwrap();
    assert_eq!(c.triggers.trigger_ratio, 0.7);
    assert_eq!(c.sources["trigger_ratio"], Source::Flag);
    assert_eq!(c.strategy.summary_max_tokens, 700);
    assert_eq!(
        c.sources["summary_max_tokens"],
        Source::Env("CTXC_SUMMARY_MAX_TOKENS".into())
    );
    assert_eq!(c.strategy.window_user_messages, 3);
    assert_eq!(c.strategy.window_assistant_messages, 4);
    assert!(matches!(c.sources["sliding_window_size"], Source::File(_)));
    assert_eq!(c.sources["max_events"], Source::Default);
}

#[test]
fn the_remaining_ratio_form_and_strategy_lists() {
    let c = resolve(&["--trigger-remaining", "0.25"], None, &[]).unwrap();
    assert_eq!(c.triggers.trigger_ratio, 0.75);
    let c = resolve(&[], Some("strategy: [sliding-window, truncate]\n"), &[]).unwrap();
    assert_eq!(
        c.strategies,
        [StrategyName::SlidingWindow, StrategyName::Truncate]
    );
    let c = resolve(&[], None, &[("CTXC_STRATEGY", "importance,truncate")]).unwrap();
    assert_eq!(
        c.strategies,
        [StrategyName::Importance, StrategyName::Truncate]
    );
}

#[test]
fn the_selective_table_is_configuration() {
    let yaml = "selective:\n  - kind: tool_result\n    strategy: truncate\n    keep_recent: 1\n  - kind: user\n    strategy: none\n";
    let c = resolve(&[], Some(yaml), &[]).unwrap();
    assert_eq!(c.strategy.selective_rules.len(), 2);
    assert_eq!(
        c.strategy.selective_rules[0].action,
        crate::strategy::RuleAction::Truncate { keep_recent: 1 }
    );
}

#[test]
fn unknown_keys_and_bad_values_name_the_key_and_the_source() {
    let err = resolve(&[], Some("tigger_ratio: 0.7\n"), &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown field `tigger_ratio`") && err.contains("settings file"),
        "{err}"
    );
    let err = resolve(&[], Some("trigger_ratio: 1.5\n"), &[]).unwrap_err();
    let text = format!("{err:#}");
    assert!(
        text.contains("trigger_ratio") && text.contains(".yaml"),
        "{text}"
    );
    let err = resolve(&[], None, &[("CTXC_MAX_EVENTS", "many")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("CTXC_MAX_EVENTS"), "{err}");
    let err = resolve(&[], Some("summarizer: openai\n"), &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("summary model") && err.contains("summary_model"),
        "{err}"
    );
    let err = resolve(&[], Some("strategy: [sliding-windows]\n"), &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown strategy 'sliding-windows'"), "{err}");
}

#[test]
fn the_example_file_in_fixtures_reads_and_spells_the_defaults() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ctxc.example.yaml");
    let c = CompactConfig::resolve_from(&args(&[]), Some(&path), |_| None).unwrap();
    assert_eq!(c.tokens.model.as_deref(), Some("claude-sonnet-4-5"));
    assert!(!c.tokens.exact, "Claude counts are estimates");
    assert_eq!(c.strategy, run_defaults());
    assert_eq!(c.triggers.trigger_ratio, 0.8);
    assert_eq!(c.summarizer.kind, "extractive");
}
