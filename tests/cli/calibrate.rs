//! Provider tokens (DESIGN "Which tokens"): `ctxc stats` reports the context as the provider
//! counts it when the transcript records usage, and the token trigger compares that figure —
//! checked on prefixes of a real Claude Code session from the corpus, as a live session is.

use crate::{ctxc, fixture, shared, stdout_of};
use serde_json::Value;
use std::process::Output;

const SESSION: &str = "corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";

/// The session's first `lines` lines (what Claude Code had written by then).
fn prefix(lines: usize) -> String {
    let text = std::fs::read_to_string(shared(SESSION)).unwrap();
    text.lines().take(lines).map(|l| format!("{l}\n")).collect()
}

/// Runs ctxc with `args`, `input` on stdin.
fn run(args: &[&str], input: &str) -> Output {
    ctxc().args(args).write_stdin(input).output().unwrap()
}

#[test]
fn stats_from_stdin_gives_the_calibrated_context_of_a_claude_code_prefix() {
    let input = prefix(300);
    let out = run(&["stats", "--json", "--format", "claude-code", "-"], &input);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let file = &report["files"][0];
    let calibrated = file["calibratedContextTokens"]
        .as_u64()
        .expect("calibrated");
    let raw = file["contextTokens"].as_u64().unwrap();
    let last_reported = file["providerUsage"]["lastContextTokens"].as_u64().unwrap();
    // The last reported prompt plus what came after it: at least that prompt, not far above.
    assert!(
        (last_reported..last_reported * 11 / 10).contains(&calibrated),
        "calibrated {calibrated}, last reported {last_reported}"
    );
    // ctxc's own count misses the hidden system prompt and Claude's larger tokens.
    assert!(
        raw * 10 < calibrated * 7,
        "raw {raw}, calibrated {calibrated}"
    );
    let calibration = &file["calibration"];
    assert_eq!(calibration["source"], "usage");
    assert_eq!(calibration["estimate"], false);
    assert!(
        calibration["calls"].as_u64().unwrap() >= 10,
        "{calibration}"
    );
    let ratio = calibration["ratio"].as_f64().unwrap();
    assert!((1.1..1.6).contains(&ratio), "{calibration}");
    assert!(
        calibration["fitError"].as_f64().unwrap() < 0.03,
        "{calibration}"
    );

    // -q prints the calibrated figure.
    let quiet = run(&["stats", "-q", "--format", "claude-code", "-"], &input);
    assert_eq!(stdout_of(&quiet).trim(), calibrated.to_string());
}

#[test]
fn without_usage_a_claude_code_file_gets_a_marked_estimate_and_no_calibrated_figure() {
    // The same prefix with every usage object renamed away.
    let input = prefix(300).replace("\"usage\":", "\"usage_removed\":");
    let out = run(&["stats", "--json", "--format", "claude-code", "-"], &input);
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let file = &report["files"][0];
    assert!(file.get("calibratedContextTokens").is_none(), "{file}");
    assert_eq!(file["calibration"]["source"], "default");
    assert_eq!(file["calibration"]["estimate"], true);
    assert_eq!(file["calibration"]["calls"], 0);
}

#[test]
fn a_session_claude_reported_above_80_percent_triggers_without_force() {
    // Up to the session's own compaction: its last calls reported 167,094 of 200,000 tokens.
    let input = prefix(713);
    let compact = |extra: &[&str]| {
        let mut args = vec!["compact", "--dry-run", "--json", "--format", "claude-code"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = run(&args, &input);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        report["files"][0].clone()
    };
    let file = compact(&[]);
    assert_eq!(file["triggers"], serde_json::json!(["tokens"]), "{file}");
    let before = file["calibratedTokensBefore"].as_u64().unwrap();
    let after = file["calibratedTokensAfter"].as_u64().unwrap();
    assert!(before >= 160_000, "{before}");
    // Compacted to the threshold in provider tokens; ctxc's own count was far below it.
    assert!(after <= 160_000, "{after}");
    assert!(
        file["contextTokensBefore"].as_u64().unwrap() < 120_000,
        "{file}"
    );
    // --target-tokens is in provider tokens too.
    let targeted = compact(&["--target-tokens", "120000"]);
    let after = targeted["calibratedTokensAfter"].as_u64().unwrap();
    assert!((90_000..=120_000).contains(&after), "{targeted}");
    // --raw-tokens compares ctxc's own count: nothing fires.
    let raw = compact(&["--raw-tokens"]);
    assert_eq!(raw["triggers"], serde_json::json!([]), "{raw}");
    assert_eq!(raw["status"], "unchanged");
}

#[test]
fn a_codex_rollout_is_measured_against_the_window_it_records_unless_one_is_given() {
    // The fixture records `model_context_window` 272,000 in its token_count events.
    let recorded = std::fs::read_to_string(fixture("codex/session.jsonl")).unwrap();
    assert!(recorded.contains("\"model_context_window\":272000"));
    let small = recorded.replace(
        "\"model_context_window\":272000",
        "\"model_context_window\":1000",
    );
    let compact = |input: &str, extra: &[&str]| {
        let mut args = vec!["compact", "--dry-run", "--json", "--format", "codex"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = run(&args, input);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        report["files"][0].clone()
    };
    // Its last call reported 1,080 tokens: over 80% of a 1,000-token window.
    let file = compact(&small, &[]);
    assert_eq!(file["triggers"], serde_json::json!(["tokens"]), "{file}");
    assert_eq!(compact(&recorded, &[])["triggers"], serde_json::json!([]));
    let given = compact(&small, &["--context-window", "200000"]);
    assert_eq!(given["triggers"], serde_json::json!([]), "{given}");
    let verbose = run(
        &["compact", "--dry-run", "-v", "--format", "codex", "-"],
        &small,
    );
    let log = String::from_utf8_lossy(&verbose.stderr);
    // The provider's figure (as stats shows it), which fired the trigger.
    assert!(
        log.contains("trigger=tokens usage=101% of 1000 (provider) "),
        "{log}"
    );
}

/// A real session whose two early tool outputs are made 300 times longer: its usage (the real
/// session's) describes far less than the file now holds, as in a synthetic file. Masking or
/// trimming those outputs leaves the calls before them as they were, and `stats` of the output
/// fits on those; compact's figure after is that same fit, never the input's line run down
/// past zero (it said 29,352 → 0 while `stats` of the output said 29,808).
#[test]
fn compacts_provider_figure_after_is_what_stats_says_of_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i + 1 != 11 && i + 1 != 17 {
                return line.to_string();
            }
            let mut record: Value = serde_json::from_str(line).unwrap();
            let output = &mut record["message"]["content"][0]["content"];
            *output = Value::String(format!("{}\n", output.as_str().unwrap()).repeat(300));
            serde_json::to_string(&record).unwrap()
        })
        .collect();
    let input = dir.path().join("synthetic.jsonl");
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let calibrated = |path: &std::path::Path| -> u64 {
        let out = ctxc()
            .arg("stats")
            .arg("--json")
            .arg(path)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report["files"][0]["calibratedContextTokens"]
            .as_u64()
            .expect("calibrated")
    };
    for strategy in ["observation-masking", "trim-outputs"] {
        let output = dir.path().join(format!("{strategy}.jsonl"));
        let out = ctxc()
            .args(["compact", "--force", "--json", "--strategy", strategy, "-o"])
            .arg(&output)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let file = &report["files"][0];
        assert_eq!(file["status"], "compacted", "{strategy}");
        let (before, after) = (
            file["calibratedTokensBefore"].as_u64().unwrap(),
            file["calibratedTokensAfter"].as_u64().unwrap(),
        );
        assert_eq!(before, calibrated(&input), "{strategy}: before");
        assert_eq!(after, calibrated(&output), "{strategy}: after");
        assert!(after > 20_000, "{strategy}: {before} → {after}");
    }
}

/// A compaction side file (Claude Code writes one per `/compact`, `subagents/agent-acompact-*`)
/// holds the summary request and its answer, but the call's usage is the parent context it
/// was forked with: 169,248 tokens reported for a file ctxc counts at 5,795. Fitted, that
/// priced the file at 173,684, fired the token trigger and set a target of 0. Usage the
/// file's messages cannot account for is not its context: the file gets the default
/// estimate, and no trigger fires.
#[test]
fn a_compaction_side_file_is_not_priced_at_its_parents_context() {
    let sides = [
        "corpus/claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
        "corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl",
    ];
    for rel in sides {
        let json = |args: &[&str]| -> Value {
            let out = ctxc().args(args).arg(shared(rel)).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{rel}: {out:?}");
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let stats = json(&["stats", "--json"]);
        let file = &stats["files"][0];
        let reported = file["providerUsage"]["lastContextTokens"].as_u64().unwrap();
        let counted = file["contextTokens"].as_u64().unwrap();
        assert!(reported > 160_000 && counted < 7_000, "{rel}: {file}");
        assert_eq!(file["calibration"]["source"], "default", "{rel}: {file}");
        assert!(
            file["calibration"]["contextTokens"].as_u64().unwrap() < 40_000,
            "{rel}"
        );
        let compact = json(&["compact", "--dry-run", "--json"]);
        let file = &compact["files"][0];
        assert_eq!(file["status"], "unchanged", "{rel}: {file}");
        assert_eq!(file["triggers"], serde_json::json!([]), "{rel}: {file}");
    }
}

/// A Codex rollout compacted a little (`trim-outputs` to 90%, with `--drop-stored`): its
/// provider figure after must fall with its count, and be what `stats` says of the output.
/// The fit through the calls before the first trimmed output used to take its slope from
/// those few early calls alone and overshoot (here 26,178 → 26,728 for 10% fewer tokens; on a
/// 702-call rollout, fitted on 79 calls, 153k → 288k); the slope now also comes from the
/// later calls, each group of them sent the same edits. The fixture's usage is synthesized as
/// ctxc's count + 4,000 + 5 per record, so the true figure is known.
#[test]
fn a_slightly_compacted_codex_rollout_keeps_its_provider_figure_in_proportion() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.jsonl");
    let out = ctxc()
        .args([
            "compact",
            "--json",
            "--drop-stored",
            "--force",
            "--target-ratio",
            "0.9",
        ])
        .args(["--strategy", "trim-outputs", "-o"])
        .arg(&output)
        .arg(fixture("codex/calibration.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    let before = file["calibratedTokensBefore"].as_u64().unwrap();
    let after = file["calibratedTokensAfter"].as_u64().unwrap();
    let (counted_before, counted_after) = (
        file["contextTokensBefore"].as_u64().unwrap(),
        file["contextTokensAfter"].as_u64().unwrap(),
    );
    assert!(counted_after < counted_before, "{file}");
    assert!(after < before, "{before} → {after}: {file}");
    // The hidden 4,000 stay; what ctxc removed goes at about the fixture's ratio of 1.
    let removed = (counted_before - counted_after) as f64;
    let fell = (before - after) as f64;
    assert!(
        (fell / removed - 1.0).abs() < 0.1,
        "{before} → {after} for {removed} removed"
    );
    let stats = ctxc()
        .args(["stats", "--json"])
        .arg(&output)
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(
        stats["files"][0]["calibratedContextTokens"].as_u64(),
        Some(after)
    );
}
