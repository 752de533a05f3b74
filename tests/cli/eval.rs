//! `ctxc eval`: probes derived from a transcript are found in what each strategy keeps, a
//! fact a strategy removes is reported missing with its line, the numbers add up, and a bad
//! input is reported without stopping the others. Nothing is written beside the inputs.

use crate::agent_run::agent_run_messages;
use crate::{ctxc, stderr_of, stdout_of};
use serde_json::Value;
use std::path::Path;

/// An OpenAI agent run, one message per line (message `i` on line `i + 2`): the task, an
/// early failing test (line 4), a decision (line 5), then 20 rounds of large reads, and a
/// last request.
fn agent_run() -> String {
    let messages = agent_run_messages(
        "Fix `parse_header` in /repo/http.py so headers over 8192 bytes are refused",
    );
    let lines: Vec<String> = messages.iter().map(Value::to_string).collect();
    format!("[\n{}\n]\n", lines.join(",\n"))
}

fn eval_json(dir: &Path, args: &[&str]) -> Value {
    let out = ctxc()
        .current_dir(dir)
        .arg("eval")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    serde_json::from_str(&stdout_of(&out)).expect("--json prints JSON")
}

fn pair(v: &Value) -> [u64; 2] {
    [v[0].as_u64().unwrap(), v[1].as_u64().unwrap()]
}

#[test]
fn probes_are_found_and_a_removed_fact_is_reported_missing_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.json"), agent_run()).unwrap();
    let report = eval_json(
        dir.path(),
        &[
            "run.json",
            "--strategy",
            "adaptive,truncate",
            "--target-ratio",
            "0.5,0.25",
        ],
    );
    let runs = report["runs"].as_array().unwrap();
    let names: Vec<String> = runs
        .iter()
        .map(|r| format!("{}@{}", r["strategy"].as_str().unwrap(), r["targetRatio"]))
        .collect();
    assert_eq!(
        names,
        [
            "adaptive@0.5",
            "adaptive@0.25",
            "truncate@0.5",
            "truncate@0.25"
        ]
    );
    // Nothing written beside the input.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    // Truncation keeps the task and the last messages only: the early error and the
    // decision are gone, and said to be, with the line they came from.
    let truncated = &runs[3]["files"][0];
    let missing: Vec<(String, u64, String)> = truncated["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["subject"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
                p["answer"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        missing.contains(&("error".into(), 4, "E   AssertionError: 413 != 200".into())),
        "{missing:?}"
    );
    assert!(
        missing.contains(&(
            "decision".into(),
            5,
            "I'll use a length check instead of a regex.".into()
        )),
        "{missing:?}"
    );
    // The task is preserved by every strategy: found everywhere.
    for run in runs {
        let file = &run["files"][0];
        assert!(
            !file["missing"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["subject"] == "task"),
            "{}",
            run["strategy"]
        );
        assert!(file["tokensAfter"].as_u64() < file["tokensBefore"].as_u64());
    }
    // The adaptive default keeps the error and the decision in its summary at half.
    let adaptive = &runs[0]["files"][0]["missing"];
    assert!(
        !adaptive
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["subject"] == "error" || p["subject"] == "decision"),
        "{adaptive}"
    );
}

#[test]
fn the_numbers_add_up_over_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.json"), agent_run()).unwrap();
    let other = agent_run()
        .replace("parse_header", "read_body")
        .replace("8192", "4096");
    std::fs::write(dir.path().join("b.json"), other).unwrap();
    let report = eval_json(
        dir.path(),
        &[
            ".",
            "--strategy",
            "sliding-window",
            "--target-ratio",
            "0.25",
        ],
    );
    let run = &report["runs"][0];
    let files = run["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    for field in ["tokensBefore", "tokensAfter"] {
        let sum: u64 = files.iter().map(|f| f[field].as_u64().unwrap()).sum();
        assert_eq!(run[field].as_u64().unwrap(), sum, "{field}");
    }
    for (group, keys) in [
        (
            "probes",
            &["artifact", "recall", "continuation", "decision"][..],
        ),
        (
            "retention",
            &["paths", "commands", "errors", "userRequests"][..],
        ),
    ] {
        for key in keys {
            let total = pair(&run[group][key]);
            let mut sum = [0, 0];
            for f in files {
                let [kept, all] = pair(&f[group][key]);
                assert!(kept <= all);
                sum = [sum[0] + kept, sum[1] + all];
            }
            assert_eq!(total, sum, "{group}.{key}");
        }
    }
    // Every probe not kept is listed, and only those.
    for f in files {
        let probes = &f["probes"];
        let lost: u64 = ["artifact", "recall", "continuation", "decision"]
            .iter()
            .map(|k| {
                let [kept, all] = pair(&probes[*k]);
                all - kept
            })
            .sum();
        assert_eq!(f["missing"].as_array().unwrap().len() as u64, lost);
    }
    // Each kind's verbatim, index-only and lost probes add up to the categories' totals,
    // and a probe listed as missing says which of the two it is.
    let subjects = run["subjects"].as_object().unwrap();
    let by_kind = |key: &str| -> u64 { subjects.values().map(|s| s[key].as_u64().unwrap()).sum() };
    let categories = ["artifact", "recall", "continuation", "decision"];
    let verbatim: u64 = categories.iter().map(|k| pair(&run["probes"][k])[0]).sum();
    let index: u64 = categories
        .iter()
        .map(|k| pair(&run["probesInIndex"][k])[0])
        .sum();
    let asked: u64 = categories.iter().map(|k| pair(&run["probes"][k])[1]).sum();
    assert_eq!(by_kind("verbatim"), verbatim);
    assert_eq!(by_kind("index"), index);
    assert_eq!(
        by_kind("verbatim") + by_kind("index") + by_kind("lost"),
        asked
    );
    let missing: Vec<&Value> = files
        .iter()
        .flat_map(|f| f["missing"].as_array().unwrap())
        .collect();
    let listed_in_index = missing.iter().filter(|p| p["kept"] == "index").count() as u64;
    assert_eq!(listed_in_index, index);
    assert_eq!(missing.len() as u64, asked - verbatim);
    // Files and paths probes agree: every path retention counts is an artifact probe.
    assert_eq!(
        pair(&run["probes"]["artifact"])[1],
        pair(&run["retention"]["paths"])[1]
    );
}

/// The eval run the table tests look at: truncate at a quarter, over `run.json`.
const TRUNCATE_QUARTER: [&str; 6] = [
    "eval",
    "run.json",
    "--strategy",
    "truncate",
    "--target-ratio",
    "0.25",
];

#[test]
fn the_table_has_a_row_per_run_bars_and_with_v_the_failing_probes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.json"), agent_run()).unwrap();
    let out = ctxc()
        .current_dir(dir.path())
        .arg("-v")
        .args(TRUNCATE_QUARTER)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let row = text
        .lines()
        .find(|l| l.starts_with("truncate"))
        .unwrap_or_else(|| panic!("no row:\n{text}"));
    assert!(row.contains("0.25"), "{row}");
    assert!(
        text.contains("Probes by kind: kept verbatim, only in an artifact index, lost:"),
        "{text}"
    );
    // Piped, no bars: they are drawn for a terminal.
    assert!(!text.contains("probes kept verbatim\n"), "{text}");
    assert!(!text.contains('█') && !text.contains('░'), "{text}");
    assert!(
        text.contains("run.json:4: truncate @ 0.25 recall/error: E   AssertionError: 413 != 200"),
        "{text}"
    );
    let markdown = ctxc()
        .current_dir(dir.path())
        .args(["eval", "run.json", "--markdown"])
        .output()
        .unwrap();
    let markdown = stdout_of(&markdown);
    assert!(markdown.starts_with("| strategy |"), "{markdown}");
    assert!(markdown.contains("| adaptive | 0.5 |"), "{markdown}");
}

#[test]
fn a_bad_input_is_named_with_its_line_and_the_others_are_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("good.json"), agent_run()).unwrap();
    std::fs::write(
        dir.path().join("bad.jsonl"),
        "{\"role\":\"user\",\"content\":\"hi\"}\n{oops\n",
    )
    .unwrap();
    let out = ctxc()
        .current_dir(dir.path())
        .args(["eval", ".", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("bad.jsonl:2:"),
        "{}",
        stderr_of(&out)
    );
    let report: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    let files = report["runs"][0]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["errorLine"], 2);
    assert!(files[1]["error"].is_null());
    assert!(pair(&files[1]["probes"]["artifact"])[1] > 0);
    let bad_ratio = ctxc()
        .args(["eval", "x.json", "--target-ratio", "1.5"])
        .output()
        .unwrap();
    assert_eq!(
        bad_ratio.status.code(),
        Some(2),
        "{}",
        stderr_of(&bad_ratio)
    );
}

#[test]
fn a_parquet_dataset_is_evaluated_row_by_row() {
    use parquet::basic::Compression;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("runs.parquet");
    crate::parquet::write_dataset(
        &input,
        &crate::parquet::tau_bench_rows(3),
        2,
        Compression::UNCOMPRESSED,
    );
    let report = eval_json(dir.path(), &["runs.parquet", "--target-ratio", "0.5"]);
    let run = &report["runs"][0];
    let files = run["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "runs.parquet#row=0",
            "runs.parquet#row=1",
            "runs.parquet#row=2"
        ]
    );
    // Each row measured as `stats` measures it, compacted, and its probes checked.
    let stats = ctxc()
        .current_dir(dir.path())
        .args(["stats", "--json", "runs.parquet"])
        .output()
        .unwrap();
    let stats: Value = serde_json::from_str(&stdout_of(&stats)).unwrap();
    for (file, measured) in files.iter().zip(stats["files"].as_array().unwrap()) {
        assert!(file["error"].is_null(), "{file}");
        assert_eq!(file["tokensBefore"], measured["contextTokens"], "{file}");
        assert!(file["tokensAfter"].as_u64() < file["tokensBefore"].as_u64());
        assert!(pair(&file["probes"]["continuation"])[1] > 0, "{file}");
    }
    let sum: u64 = files.iter().map(|f| pair(&f["probes"]["recall"])[1]).sum();
    assert_eq!(pair(&run["probes"]["recall"])[1], sum);
    // Nothing written beside the dataset.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_terminal_sees_bars_for_the_probe_kinds_asked_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.json"), agent_run()).unwrap();
    let line = format!(
        "cd '{}' && \"$CTXC\" {}",
        dir.path().to_str().unwrap(),
        TRUNCATE_QUARTER.join(" ")
    );
    let Some(shown) = crate::on_a_terminal(&line, None) else {
        return;
    };
    assert!(shown.contains("artifact probes kept verbatim"), "{shown}");
    assert!(shown.contains('█') || shown.contains('░'), "{shown}");
    // A block per probe kind the run asked, none for a kind it did not.
    let asked = |kind: &str| shown.contains(&format!("{kind} probes kept verbatim"));
    let run = ctxc()
        .current_dir(dir.path())
        .args(TRUNCATE_QUARTER)
        .arg("--json")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let probes = &report["runs"][0]["probes"];
    for (kind, counts) in probes.as_object().unwrap() {
        let total = counts.as_array().map_or(0, |c| c[1].as_u64().unwrap_or(0));
        assert_eq!(asked(kind), total > 0, "{kind}: {counts} in {shown}");
    }
}
