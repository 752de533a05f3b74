//! `ctxc stats` on a fixed set of fixtures: every report format pinned by an insta snapshot,
//! plus what a user would check by hand — totals that add up, `--quiet` agreeing with the
//! JSON, a bad input reported without hiding the others, no progress bar off a terminal.
//!
//! Paths are relative to the project root (the command runs there), so snapshots hold no
//! machine paths. `INSTA_UPDATE=always cargo test --test cli stats` rewrites the snapshots.

use crate::{ctxc, root, stdout_of};
use serde_json::Value;
use std::process::Output;

/// One transcript per format: a directory (Claude Code session, SWE-agent trajectory) and
/// one file each of Codex, ShareGPT and Anthropic.
const INPUTS: [&str; 4] = [
    "fixtures/examples/",
    "fixtures/codex/session.jsonl",
    "fixtures/sharegpt/toolcall.json",
    "fixtures/anthropic/request.json",
];

/// Runs `ctxc stats ARGS... INPUTS...` from the project root.
fn stats_on(args: &[&str], inputs: &[&str]) -> Output {
    ctxc()
        .current_dir(root())
        .arg("stats")
        .args(args)
        .args(inputs)
        .output()
        .unwrap()
}

/// Runs `ctxc stats ARGS...` on [`INPUTS`], checks it succeeded quietly and returns stdout.
fn stats(args: &[&str]) -> String {
    let out = stats_on(args, &INPUTS);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    // Not a terminal: no progress bar, and nothing else to say when every input reads.
    assert!(stderr.is_empty(), "{args:?}: unexpected stderr {stderr:?}");
    stdout_of(&out)
}

fn stats_json(args: &[&str]) -> Value {
    let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    serde_json::from_str(&stats(&args)).expect("--json prints JSON")
}

fn as_u64(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not a non-negative integer: {v}"))
}

#[test]
fn table() {
    insta::assert_snapshot!("table", stats(&[]));
}

#[test]
fn json() {
    insta::assert_snapshot!("json", stats(&["--json"]));
}

#[test]
fn yaml() {
    let text = stats(&["--yaml"]);
    let parsed: Value = serde_yaml::from_str(&text).expect("--yaml prints YAML");
    assert_eq!(parsed, stats_json(&[]), "YAML and JSON hold the same data");
    insta::assert_snapshot!("yaml", text);
}

#[test]
fn markdown() {
    insta::assert_snapshot!("markdown", stats(&["--markdown"]));
}

/// `-q` prints the total in provider tokens when the files record usage (docs/measuring.md, "Two figures").
#[test]
fn quiet_prints_the_total_context_tokens_alone() {
    let text = stats(&["--quiet"]);
    insta::assert_snapshot!("quiet", text);
    let n: u64 = text
        .strip_suffix('\n')
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("--quiet prints one integer and a newline, got {text:?}"));
    let totals = &stats_json(&[])["totals"];
    assert_eq!(n, as_u64(&totals["calibratedContextTokens"]));
    assert!(n > as_u64(&totals["contextTokens"]));
    assert_eq!(stats(&["-q"]), text);
}

#[test]
fn model_gpt_4o() {
    let text = stats(&["--model", "gpt-4o"]);
    assert!(
        text.contains("tokens: gpt-4o, o200k_base (exact); context window 128,000"),
        "{text}"
    );
    assert!(!text.contains("(est.)"), "{text}");
    insta::assert_snapshot!("model_gpt_4o", text);
    let report = stats_json(&["--model", "gpt-4o"]);
    assert_eq!(
        report["tokenizer"],
        serde_json::json!({
            "model": "gpt-4o",
            "encoding": "o200k_base",
            "contextWindow": 128_000,
            "exact": true
        })
    );
    assert_eq!(report["triggerThreshold"], 102_400, "80% of the window");
}

#[test]
fn model_claude_is_counted_with_o200k_and_marked_estimated() {
    let text = stats(&["--model", "claude-sonnet-4-5"]);
    assert!(text.contains("CTXC (est.)"), "{text}");
    assert!(
        text.contains("tokens: claude-sonnet-4-5, o200k_base (estimated); context window 200,000"),
        "{text}"
    );
    insta::assert_snapshot!("model_claude_sonnet_4_5", text);
    let report = stats_json(&["--model", "claude-sonnet-4-5"]);
    assert_eq!(report["tokenizer"]["exact"], false);
    assert_eq!(report["tokenizer"]["encoding"], "o200k_base");
    // Same encoding as the default, so the same counts: only the label differs (and the
    // provider figure, whose fallback ratio is Claude's where a file has too few calls to fit).
    let without_provider = |mut totals: Value| {
        let figures = totals.as_object_mut().unwrap();
        // `tokens` is the provider figure where there is one.
        for provider in ["calibratedContextTokens", "tokens"] {
            figures.remove(provider);
        }
        totals
    };
    assert_eq!(
        without_provider(report["totals"].clone()),
        without_provider(stats_json(&[])["totals"].clone())
    );
}

#[test]
fn encoding_estimate() {
    let text = stats(&["--encoding", "estimate"]);
    assert!(text.contains("CTXC (est.)"), "{text}");
    insta::assert_snapshot!("encoding_estimate", text);
    let report = stats_json(&["--encoding", "estimate"]);
    assert_eq!(report["tokenizer"]["encoding"], "estimate");
    assert_eq!(report["tokenizer"]["exact"], false);
    // The estimate imitates o200k: within 15% of the exact total on ordinary transcripts.
    let estimate = as_u64(&report["totals"]["contextTokens"]) as f64;
    let exact = as_u64(&stats_json(&[])["totals"]["contextTokens"]) as f64;
    let ratio = estimate / exact;
    assert!((0.85..1.15).contains(&ratio), "estimate / exact = {ratio}");
}

#[test]
fn json_totals_are_the_sums_of_the_files() {
    let report = stats_json(&[]);
    assert_eq!(report["schemaVersion"], 1);
    let files = report["files"].as_array().unwrap();
    let totals = &report["totals"];
    assert_eq!(as_u64(&totals["files"]), files.len() as u64);
    assert_eq!(
        files.len(),
        5,
        "the examples directory holds two transcripts"
    );
    assert_eq!(totals["failed"], 0);
    for key in [
        "contextTokens",
        "conversations",
        "messages",
        "bytes",
        "storedOnlyBytes",
    ] {
        let sum: u64 = files.iter().map(|f| as_u64(&f[key])).sum();
        assert_eq!(as_u64(&totals[key]), sum, "totals.{key}");
    }
    let max = files
        .iter()
        .map(|f| as_u64(&f["maxConversationTokens"]))
        .max();
    assert_eq!(totals["maxConversationTokens"].as_u64(), max);
    for file in files {
        let path = file["path"].as_str().unwrap();
        assert!(path.starts_with("fixtures/"), "relative path: {path}");
        assert!(as_u64(&file["contextTokens"]) > 0, "{path}");
        assert!(
            as_u64(&file["maxConversationTokens"]) <= as_u64(&file["contextTokens"]),
            "{path}"
        );
        // Every context token is attributed to one role and one kind, except the 3 tokens
        // that prime each conversation's reply.
        let unattributed = 3 * as_u64(&file["conversations"]);
        for breakdown in [["byRole", "by_role"], ["byKind", "by_kind"]] {
            let sum: u64 = breakdown
                .iter()
                .find_map(|key| file[key].as_object())
                .unwrap_or_else(|| panic!("{path}: no {breakdown:?}"))
                .values()
                .map(as_u64)
                .sum();
            assert_eq!(
                sum + unattributed,
                as_u64(&file["contextTokens"]),
                "{path}: {breakdown:?}"
            );
        }
    }
}

/// Fields whose values are maps keyed by data (roles, kinds, tool and trigger names), not
/// by field names, in either spelling.
const DATA_KEYED: &[&str] = &[
    "by_role", "by_kind", "by_tool", "byRole", "byKind", "byTool", "triggers",
];

/// Field names allowed to stay snake_case although the report promises camelCase (none).
const KNOWN_SNAKE_CASE: &[&str] = &[];

/// Every field name in `v`, with its JSON pointer, skipping the data-keyed maps' entries.
fn field_names(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{at}/{key}");
                out.push((key.clone(), here.clone()));
                if !DATA_KEYED.contains(&key.as_str()) {
                    field_names(value, &here, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                field_names(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn json_field_names_are_camel_case() {
    // The codex fixture carries provider usage, so `providerUsage`'s fields are checked too.
    let report = stats_json(&[]);
    let mut names = Vec::new();
    field_names(&report, "", &mut names);
    assert!(names.iter().any(|(k, _)| k == "lastContextTokens"));
    let is_camel = |k: &str| {
        k.starts_with(|c: char| c.is_ascii_lowercase())
            && k.chars().all(|c| c.is_ascii_alphanumeric())
    };
    let wrong: Vec<&String> = names
        .iter()
        .filter(|(k, _)| !is_camel(k) && !KNOWN_SNAKE_CASE.contains(&k.as_str()))
        .map(|(_, at)| at)
        .collect();
    assert!(wrong.is_empty(), "not camelCase: {wrong:?}");
    for known in KNOWN_SNAKE_CASE {
        assert!(
            names.iter().any(|(k, _)| k == known),
            "`{known}` is no longer in the report: remove it from KNOWN_SNAKE_CASE"
        );
    }
}

#[test]
fn a_bad_input_is_reported_and_the_others_still_counted() {
    let inputs = [
        "fixtures/anthropic/request.json",
        "no/such/file.json",
        "fixtures/broken/openai-truncated.jsonl",
        "fixtures/codex/session.jsonl",
    ];
    let out = stats_on(&[], &inputs);
    // A path that cannot be opened is an I/O error: 2, as ripgrep's.
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let errors: Vec<&str> = stderr.lines().collect();
    assert!(
        errors.contains(&"ctxc: no/such/file.json: no such file or directory"),
        "{stderr}"
    );
    assert!(
        errors.contains(
            &"ctxc: fixtures/broken/openai-truncated.jsonl:3: torn last line (no newline, not valid JSON): EOF while parsing a string (byte 116)"
        ),
        "{stderr}"
    );
    assert_eq!(errors.len(), 2, "one line per bad input: {stderr}");
    let table = stdout_of(&out);
    insta::assert_snapshot!(
        "bad_input",
        format!("--- stdout\n{table}--- stderr\n{stderr}")
    );

    let out = stats_on(&["--json"], &inputs);
    assert_eq!(out.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["totals"]["files"], 4);
    assert_eq!(report["totals"]["failed"], 2);
    let files = report["files"].as_array().unwrap();
    for path in inputs {
        let file = files
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("{path} is not in the report"));
        if path.starts_with("fixtures/broken") || path.starts_with("no/") {
            assert!(file["error"].is_string(), "{path}: {file}");
            let line = path.starts_with("fixtures/broken").then_some(3);
            assert_eq!(file["errorLine"].as_u64(), line, "{path}: {file}");
            assert_eq!(file["contextTokens"], 0, "{path}");
        } else {
            assert!(file.get("error").is_none(), "{path}: {file}");
            assert!(as_u64(&file["contextTokens"]) > 0, "{path}");
        }
    }
    let good: u64 = [
        "fixtures/anthropic/request.json",
        "fixtures/codex/session.jsonl",
    ]
    .iter()
    .map(|p| as_u64(&stats_json_on(p)["totals"]["contextTokens"]))
    .sum();
    assert_eq!(as_u64(&report["totals"]["contextTokens"]), good);
}

/// A device and a file over --max-input-bytes are refused, each in its own row, without
/// being read; the other inputs are still measured.
#[test]
fn devices_and_files_over_the_limit_are_refused_and_the_others_counted() {
    let inputs = [
        "/dev/zero",
        "fixtures/codex/session.jsonl",
        "fixtures/anthropic/request.json",
    ];
    let out = stats_on(&["--json", "--max-input-bytes", "2K"], &inputs);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = |path: &str| {
        let files = report["files"].as_array().unwrap();
        let file = files.iter().find(|f| f["path"] == path).unwrap();
        file["error"].as_str().map(String::from)
    };
    assert_eq!(
        error("/dev/zero").as_deref(),
        Some("is a character device, not a transcript file")
    );
    assert_eq!(
        error("fixtures/codex/session.jsonl").as_deref(),
        Some("larger than --max-input-bytes (2048 bytes): 3120 bytes, not read")
    );
    assert_eq!(error("fixtures/anthropic/request.json"), None);
    assert_eq!(report["totals"]["failed"], 2);
}

fn stats_json_on(input: &str) -> Value {
    let out = stats_on(&["--json"], &[input]);
    assert_eq!(out.status.code(), Some(0), "{input}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    // Many inputs so a visible bar would certainly draw; assert_cmd pipes stdout and stderr.
    let out = ctxc()
        .current_dir(root())
        .args(["stats", "fixtures/"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in stderr.lines() {
        assert!(
            line.starts_with("ctxc: fixtures/"),
            "not an input error: {line:?}"
        );
    }
    assert!(
        !stderr.contains('\r') && !stderr.contains('\x1b'),
        "{stderr:?}"
    );
    assert!(!stderr.contains(" files "), "progress bar text: {stderr:?}");
    let report = stats(&[]);
    assert!(report.starts_with("FILE "), "{report}");
}

#[test]
fn an_open_weight_model_is_counted_exactly_in_its_own_vocabulary() {
    let qwen = stats_json(&["--model", "Qwen/Qwen3-8B"]);
    assert_eq!(qwen["tokenizer"]["encoding"], "qwen2");
    assert_eq!(qwen["tokenizer"]["exact"], true);
    let named = stats_json(&["--encoding", "qwen2"]);
    assert_eq!(qwen["totals"]["tokens"], named["totals"]["tokens"]);
    // Another vocabulary counts the same files differently; a family without a public
    // tokenizer stays an estimate.
    let o200k = stats_json(&["--encoding", "o200k_base"]);
    assert_ne!(qwen["totals"]["tokens"], o200k["totals"]["tokens"]);
    let llama2 = stats_json(&["--model", "llama-2-70b"]);
    assert_eq!(llama2["tokenizer"]["encoding"], "o200k_base");
    assert_eq!(llama2["tokenizer"]["exact"], false);
}
