//! `ctxc compact` as a batch tool: output modes, refusals, dry runs, bad files among good
//! ones, settings precedence, shards, report merging, report formats.

use crate::stderr_of;
use crate::{ctxc, fixture, shared, stdout_of};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TRAJ: &str = "examples/swe-agent.traj";
const SESSION: &str = "examples/claude-code-session.jsonl";

/// A temp dir holding copies of fixtures under the given names.
fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, from) in files {
        let to = dir.path().join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixture(from), to).unwrap();
    }
    dir
}

/// Every file under `dir` with its bytes, relative paths as keys.
fn listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir(dir)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walkdir(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            stdout_of(out),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn the_output_goes_beside_the_input_which_is_never_touched() {
    let dir = workspace(&[("t.traj", TRAJ)]);
    let input = dir.path().join("t.traj");
    let before = std::fs::read(&input).unwrap();
    let out = ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "--json"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(std::fs::read(&input).unwrap(), before);
    let output = dir.path().join("t.compact.traj");
    let report = json_of(&out);
    let file = &report["files"][0];
    assert_eq!(file["status"], "compacted");
    assert_eq!(file["output"], output.display().to_string());
    assert!(file["contextTokensAfter"].as_u64() < file["contextTokensBefore"].as_u64());
    let check = ctxc().arg("check").arg(&output).output().unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", stdout_of(&check));
    // A second run over the directory does not take the output as an input.
    let again = ctxc()
        .args(["compact", "--dry-run", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(json_of(&again)["totals"]["files"], 1);
}

#[test]
fn with_no_trigger_the_output_is_byte_identical() {
    let dir = workspace(&[("s.jsonl", SESSION)]);
    let out = ctxc()
        .args(["compact", "--json"])
        .arg(dir.path().join("s.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let file = &json_of(&out)["files"][0];
    assert_eq!(file["status"], "unchanged");
    assert!(
        file["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("no trigger fired")
    );
    assert_eq!(
        std::fs::read(dir.path().join("s.compact.jsonl")).unwrap(),
        std::fs::read(fixture(SESSION)).unwrap()
    );
}

#[test]
fn output_to_a_file_to_stdout_and_to_a_mirrored_directory() {
    let dir = workspace(&[("in/a/t.traj", TRAJ), ("in/s.jsonl", SESSION)]);
    let root = dir.path();
    // -o FILE
    let target = root.join("picked.traj");
    let out = ctxc()
        .args(["compact", "--force", "-o"])
        .arg(&target)
        .arg(root.join("in/a/t.traj"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(target.is_file());
    // -o -: the transcript on stdout, the report on stderr.
    let out = ctxc()
        .args(["compact", "--force", "-o", "-"])
        .arg(root.join("in/a/t.traj"))
        .output()
        .unwrap();
    assert_eq!(out.stdout, std::fs::read(&target).unwrap());
    assert!(stderr_of(&out).contains("TOTAL (1 file)"));
    // --out-dir mirrors the tree under the directory given.
    let out = ctxc()
        .args(["compact", "--force", "--out-dir"])
        .arg(root.join("out"))
        .arg(root.join("in"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let written: Vec<String> = listing(&root.join("out")).into_keys().collect();
    assert_eq!(written, ["a/t.traj", "s.jsonl"]);
    // Standard input in, standard output out.
    let out = ctxc()
        .args(["compact", "--force", "-q", "-"])
        .write_stdin(std::fs::read(fixture(TRAJ)).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.stdout, std::fs::read(&target).unwrap());
}

#[test]
fn in_place_replaces_the_input_and_keeps_a_backup() {
    let dir = workspace(&[("t.traj", TRAJ)]);
    let input = dir.path().join("t.traj");
    let original = std::fs::read(&input).unwrap();
    let out = ctxc()
        .args(["compact", "--force", "--in-place", "--backup"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        std::fs::read(dir.path().join("t.traj.bak")).unwrap(),
        original
    );
    assert!(std::fs::read(&input).unwrap().len() < original.len());
    let names: Vec<String> = listing(dir.path()).into_keys().collect();
    assert_eq!(names, ["t.traj", "t.traj.bak"], "no temporary file is left");
}

/// A device and a file over --max-input-bytes are refused without being read, in place or
/// not, and left as they are; the other input is compacted.
#[test]
fn devices_and_files_over_the_limit_are_refused_and_the_others_compacted() {
    let dir = workspace(&[("small.jsonl", SESSION), ("big.traj", TRAJ)]);
    let big = dir.path().join("big.traj");
    let original = std::fs::read(&big).unwrap();
    let limit = std::fs::metadata(dir.path().join("small.jsonl"))
        .unwrap()
        .len();
    assert!((original.len() as u64) > limit);
    for mode in ["--in-place", "--dry-run"] {
        let out = ctxc()
            .args(["compact", "--force", "--json", mode, "--max-input-bytes"])
            .arg(limit.to_string())
            .arg("/dev/zero")
            .arg(dir.path())
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", stderr_of(&out));
        let report = json_of(&out);
        let file = |name: &str| {
            let files = report["files"].as_array().unwrap();
            files
                .iter()
                .find(|f| f["path"].as_str().unwrap().ends_with(name))
                .unwrap()
                .clone()
        };
        assert_eq!(file("/dev/zero")["failedStep"], "read");
        assert_eq!(
            file("/dev/zero")["error"],
            "is a character device, not a transcript file"
        );
        assert_eq!(
            file("big.traj")["error"],
            format!(
                "larger than --max-input-bytes ({limit} bytes): {} bytes, not read",
                original.len()
            )
        );
        assert_eq!(file("small.jsonl")["status"], "compacted", "{mode}");
    }
    assert_eq!(std::fs::read(&big).unwrap(), original);
}

/// `text` with every third line ending in CRLF, the others in LF.
fn mixed_endings(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, line)| format!("{line}{}", if i % 3 == 1 { "\r\n" } else { "\n" }))
        .collect()
}

/// The lines of `text` with their endings.
fn lines_with_endings(text: &str) -> Vec<(&str, &str)> {
    text.split_inclusive('\n')
        .map(|line| match line.strip_suffix("\r\n") {
            Some(content) => (content, "\r\n"),
            None => line
                .strip_suffix('\n')
                .map_or((line, ""), |content| (content, "\n")),
        })
        .collect()
}

/// In a file that mixes LF and CRLF endings, every line compaction leaves alone keeps its
/// bytes, its own ending included (every line used to take the file's CRLF), and what it
/// changes restores exactly. JSONL of Claude Code (records re-linked), Codex and OpenAI.
#[test]
fn untouched_lines_keep_their_own_endings() {
    let traj: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(TRAJ)).unwrap()).unwrap();
    let openai: String = traj["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{m}\n"))
        .collect();
    // Options with which each compacts some lines and leaves others alone.
    let read = |rel: &str| std::fs::read_to_string(fixture(rel)).unwrap();
    let ratio: &[&str] = &["--target-ratio", "0.3"];
    let inputs = [
        ("claude.jsonl", &[][..], read(SESSION)),
        ("codex.jsonl", ratio, read("codex/calibration.jsonl")),
        ("openai.jsonl", ratio, openai),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, options, text) in inputs {
        let input = dir.path().join(name);
        let text = mixed_endings(&text);
        std::fs::write(&input, &text).unwrap();
        let output = dir.path().join(format!("out-{name}"));
        let out = ctxc()
            .args(["compact", "-q", "--force", "--archive"])
            .args(options)
            .arg("-o")
            .arg(&output)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr_of(&out));
        let compacted = std::fs::read_to_string(&output).unwrap();
        // Lines told apart by their content (a Codex file repeats some records).
        let mut before: BTreeMap<&str, Option<&str>> = BTreeMap::new();
        for (content, ending) in lines_with_endings(&text) {
            let seen = before.insert(content, Some(ending)).is_some();
            if seen {
                before.insert(content, None);
            }
        }
        let after = lines_with_endings(&compacted);
        let untouched: Vec<&str> = after
            .iter()
            .filter_map(|(content, ending)| {
                let was = (*before.get(content)?)?;
                assert_eq!(*ending, was, "{name}: an untouched line changed its ending");
                Some(*ending)
            })
            .collect();
        assert!(
            untouched.len() < before.len(),
            "{name}: nothing was compacted"
        );
        for ending in ["\n", "\r\n"] {
            assert!(
                untouched.contains(&ending),
                "{name}: no untouched {ending:?} line"
            );
        }
        let restored = dir.path().join(format!("restored-{name}"));
        let archive = dir.path().join(format!(
            "out-{}",
            name.replace(".jsonl", ".ctxc-archive.json")
        ));
        let out = ctxc()
            .args(["restore", "-q"])
            .arg(&archive)
            .arg("-o")
            .arg(&restored)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr_of(&out));
        assert_eq!(std::fs::read_to_string(&restored).unwrap(), text, "{name}");
    }
}

#[test]
fn dry_run_changes_nothing_on_disk() {
    let dir = workspace(&[("t.traj", TRAJ), ("sub/s.jsonl", SESSION)]);
    let before = listing(dir.path());
    let out = ctxc()
        .args(["compact", "--force", "--dry-run", "--archive", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(listing(dir.path()), before);
    let report = json_of(&out);
    assert_eq!(report["dryRun"], true);
    assert_eq!(report["totals"]["compacted"], 2);
    assert!(report["files"][0]["output"].is_null());
    // The one file a dry run writes is the report asked for (docs/outputs.md says so).
    let reports = tempfile::tempdir().unwrap();
    let file = reports.path().join("r.json");
    let out = ctxc()
        .args(["compact", "--force", "--dry-run", "-q", "--report"])
        .arg(&file)
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(listing(dir.path()), before);
    let written: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(written["dryRun"], true);
}

#[test]
fn refusals() {
    let dir = workspace(&[("t.traj", TRAJ), ("u.traj", TRAJ)]);
    let input = dir.path().join("t.traj");
    let existing = dir.path().join("t.compact.traj");
    std::fs::write(&existing, "keep me").unwrap();
    // An existing output is not replaced...
    let out = ctxc()
        .args(["compact", "--force"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out)
            .contains("exists and differs from this result (--force-overwrite replaces it)")
    );
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    // ... unless asked.
    let out = ctxc()
        .args(["compact", "--force", "--force-overwrite"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_ne!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    // An output that is the input.
    let out = ctxc()
        .args(["compact", "--force", "--force-overwrite", "-o"])
        .arg(dir.path().join(".").join("t.traj"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("is the input itself"),
        "{}",
        stderr_of(&out)
    );
    // Usage errors exit 2 and write nothing.
    let before = listing(dir.path());
    for args in [
        vec!["compact", "-o", "x.traj", "t.traj", "u.traj"],
        vec!["compact", "--in-place", "-"],
        vec!["compact", "--target-ratio", "1.5", "t.traj"],
        vec!["compact", "--strategy", "nope", "t.traj"],
        vec!["compact", "--shard", "3/2", "t.traj"],
    ] {
        let out = ctxc().current_dir(dir.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
    }
    assert_eq!(listing(dir.path()), before);
}

#[test]
fn a_malformed_file_fails_alone_and_is_named_with_its_line() {
    let dir = workspace(&[
        ("good.traj", TRAJ),
        ("bad.jsonl", "broken/openai-truncated.jsonl"),
    ]);
    let bad_before = std::fs::read(dir.path().join("bad.jsonl")).unwrap();
    let out = ctxc()
        .args(["compact", "--force"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.contains(
            "bad.jsonl:3: torn last line (no newline, not valid JSON): EOF while parsing a string"
        ),
        "{err}"
    );
    assert!(dir.path().join("good.compact.traj").is_file());
    assert!(!dir.path().join("bad.compact.jsonl").exists());
    assert_eq!(
        std::fs::read(dir.path().join("bad.jsonl")).unwrap(),
        bad_before
    );
}

#[test]
fn fail_fast_stops_after_the_first_failure() {
    let dir = workspace(&[
        ("a-bad.jsonl", "broken/openai-truncated.jsonl"),
        ("b.traj", TRAJ),
    ]);
    let out = ctxc()
        .args(["compact", "--force", "--fail-fast", "-j", "1", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = json_of(&out);
    assert_eq!(report["files"][0]["status"], "failed");
    assert_eq!(report["files"][1]["status"], "skipped");
    assert!(!dir.path().join("b.compact.traj").exists());
}

#[test]
fn flags_beat_environment_beat_the_settings_file() {
    let dir = workspace(&[("t.traj", TRAJ)]);
    std::fs::write(
        dir.path().join("ctxc.yaml"),
        "strategy: truncate\ntarget_ratio: 0.5\n",
    )
    .unwrap();
    let strategies = |env: Option<&str>, flag: Option<&str>| {
        let mut cmd = ctxc();
        cmd.current_dir(dir.path())
            .args(["compact", "--force", "--dry-run", "--json", "t.traj"]);
        if let Some(v) = env {
            cmd.env("CTXC_STRATEGY", v);
        }
        if let Some(v) = flag {
            cmd.args(["--strategy", v]);
        }
        let report = json_of(&cmd.output().unwrap());
        report["strategies"].clone()
    };
    assert_eq!(strategies(None, None), serde_json::json!(["truncate"]));
    assert_eq!(
        strategies(Some("observation-masking"), None),
        serde_json::json!(["observation-masking"])
    );
    assert_eq!(
        strategies(Some("observation-masking"), Some("sliding-window")),
        serde_json::json!(["sliding-window"])
    );
    // --no-config ignores the file.
    let out = ctxc()
        .current_dir(dir.path())
        .args([
            "compact",
            "--no-config",
            "--force",
            "--dry-run",
            "--json",
            "t.traj",
        ])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["strategies"], serde_json::json!(["adaptive"]));
    // config show says where each value came from.
    let out = ctxc()
        .current_dir(dir.path())
        .env("CTXC_SUMMARY_MAX_TOKENS", "500")
        .args(["config", "show", "--json"])
        .output()
        .unwrap();
    let shown = json_of(&out);
    let source = |key: &str| {
        shown["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .unwrap()["source"]
            .clone()
    };
    assert_eq!(source("strategy"), "file ctxc.yaml");
    assert_eq!(source("summary_max_tokens"), "env CTXC_SUMMARY_MAX_TOKENS");
    assert_eq!(source("max_events"), "default");
    // A bad key is a usage error naming the key and the file.
    std::fs::write(dir.path().join("ctxc.yaml"), "tigger_ratio: 0.5\n").unwrap();
    let out = ctxc()
        .current_dir(dir.path())
        .args(["compact", "t.traj"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("ctxc.yaml") && err.contains("tigger_ratio"),
        "{err}"
    );
}

/// Copies of corpus files to shard.
pub(crate) fn corpus_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "swe-agent/ctf__crypto__katy.traj",
        "swe-agent/ctf__misc__networking_1.traj",
        "swe-agent/ctf__crypto__BabyEncryption.traj",
        "claude-code/spotter/tool_heavy.jsonl",
        "claude-code/spotter/short.jsonl",
        "claude-code/claude-code-transcripts/sample_session.jsonl",
        "codex-rollout/claude-code-log-samples/tools/function-call.json",
        "sharegpt/llamafactory/mllm_demo.json",
    ] {
        let name = rel.replace('/', "__");
        std::fs::copy(shared(&format!("corpus/{rel}")), dir.path().join(name)).unwrap();
    }
    dir
}

fn run_json(args: &[&str], dir: &Path) -> Value {
    let out = ctxc().args(args).arg(dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    json_of(&out)
}

#[test]
fn shards_split_the_inputs_and_merged_reports_add_up() {
    let dir = corpus_workspace();
    let base = [
        "compact",
        "--force",
        "--target-ratio",
        "0.5",
        "--dry-run",
        "--json",
    ];
    let whole = run_json(&base, dir.path());
    let mut seen: Vec<String> = Vec::new();
    let mut report_files = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let mut args = base.to_vec();
        args.extend(["--shard", &shard]);
        let part = run_json(&args, dir.path());
        for f in part["files"].as_array().unwrap() {
            seen.push(f["path"].as_str().unwrap().to_string());
        }
        let path = dir.path().join(format!("report-{k}.json.out"));
        std::fs::write(&path, serde_json::to_vec(&part).unwrap()).unwrap();
        report_files.push(path);
    }
    seen.sort();
    let all: Vec<String> = whole["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(seen, all, "every input in exactly one shard");
    let out = ctxc()
        .args(["report", "merge", "--json"])
        .args(&report_files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let merged = json_of(&out);
    for key in [
        "files",
        "compacted",
        "contextTokensBefore",
        "contextTokensAfter",
        "savedRatio",
        "retention",
        "summaries",
    ] {
        assert_eq!(merged["totals"][key], whole["totals"][key], "{key}");
    }
    let paths = |r: &Value| -> Vec<Value> {
        r["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].clone())
            .collect()
    };
    assert_eq!(paths(&merged), paths(&whole));
}

/// A syntax error in a report to merge or in the settings file is reported at its place,
/// `path:line:column: message`, as `check` and `stats` report a transcript's.
#[test]
fn report_and_settings_syntax_errors_say_path_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("r.json"),
        "{\n  \"schemaVersion\": 1,\n  \"files\": [\n    {\"path\": \"a\" \"x\": 1}\n  ]\n}\n",
    )
    .unwrap();
    let out = ctxc()
        .current_dir(dir.path())
        .args(["report", "merge", "r.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_of(&out),
        "ctxc: r.json:4:18: not a JSON report of `ctxc compact --json`: expected `,` or `}`\n"
    );
    // The settings file ./ctxc.yaml, found without being named, and named with --config.
    std::fs::write(
        dir.path().join("ctxc.yaml"),
        "trigger_ratio: 0.5\nstrategy: [truncate\nmax_events: 10\n",
    )
    .unwrap();
    let syntax = "ctxc: settings file ctxc.yaml:3:11: did not find expected ',' or ']', while parsing a flow sequence at line 2 column 11\n";
    for args in [&["config", "show"][..], &["compact", "--dry-run", "-"]] {
        let out = ctxc().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr_of(&out), syntax, "{args:?}");
    }
    std::fs::write(
        dir.path().join("bad.yaml"),
        "max_events: 10\ntigger_ratio: 0.5\n",
    )
    .unwrap();
    let out = ctxc()
        .current_dir(dir.path())
        .args(["config", "show", "--config", "bad.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out)
            .starts_with("ctxc: settings file bad.yaml:2:1: unknown field `tigger_ratio`"),
        "{}",
        stderr_of(&out)
    );
}

/// The report of compacting two fixtures, run from the project root with relative paths.
fn report_in(format: &[&str]) -> String {
    let out = ctxc()
        .current_dir(crate::root())
        .args(["compact", "--force", "--target-ratio", "0.5", "--dry-run"])
        .args(format)
        .args([
            "fixtures/examples/swe-agent.traj",
            "fixtures/sharegpt/toolcall.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    stdout_of(&out)
}

#[test]
fn report_formats() {
    insta::assert_snapshot!("compact_table", report_in(&[]));
    insta::assert_snapshot!("compact_markdown", report_in(&["--markdown"]));
    let json: Value = serde_json::from_str(&report_in(&["--json"])).unwrap();
    insta::assert_json_snapshot!("compact_json", json, {
        ".files[].timeMs" => "[ms]",
        ".totals.meanTimeMs" => "[ms]",
    });
    let yaml: Value = serde_yaml::from_str(&report_in(&["--yaml"])).unwrap();
    assert_eq!(
        without_times(yaml),
        without_times(json),
        "YAML holds what JSON holds"
    );
}

/// A report without its timings, which differ from run to run.
fn without_times(mut report: Value) -> Value {
    for file in report["files"].as_array_mut().unwrap() {
        file.as_object_mut().unwrap().remove("timeMs");
    }
    report["totals"]
        .as_object_mut()
        .unwrap()
        .remove("meanTimeMs");
    report
}

#[test]
fn the_report_file_takes_its_format_from_its_extension() {
    let dir = workspace(&[("t.traj", TRAJ)]);
    for (name, check) in [
        ("r.json", "\"schemaVersion\": 2"),
        ("r.yaml", "schemaVersion: 2"),
        ("r.md", "| FILE |"),
        ("r.txt", "TOTAL (1 file)"),
    ] {
        let out = ctxc()
            .current_dir(dir.path())
            .args([
                "compact",
                "--force",
                "--dry-run",
                "-q",
                "--report",
                name,
                "t.traj",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "-q prints nothing");
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.contains(check), "{name}: {text}");
    }
}

#[test]
fn error_output() {
    let out = ctxc()
        .current_dir(crate::root())
        .args([
            "compact",
            "--force",
            "--dry-run",
            "-q",
            "fixtures/broken/openai-truncated.jsonl",
            "no/such/file.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!("compact_errors", stderr_of(&out));
}

#[test]
fn verbose_logs_carry_the_monitoring_fields() {
    let out = ctxc()
        .current_dir(crate::root())
        .args([
            "compact",
            "--force",
            "--dry-run",
            "-vv",
            "fixtures/examples/swe-agent.traj",
        ])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    for field in [
        "[info]",
        "trigger=force",
        "usage=",
        "messages=",
        "summaries=",
        "[debug]",
        "step trim-outputs",
    ] {
        assert!(err.contains(field), "{field} in {err}");
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("ctxc"))
        .args(["compact", "--force", "-q", "-o", "-"])
        .arg(shared("corpus/openai-chat/tau-bench/gpt-4o-airline.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone; ctxc must neither panic nor complain.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// An input that fails `check` is refused (its row says so), unless --allow-findings.
#[test]
fn inputs_with_findings_are_refused_unless_allowed() {
    let dir = workspace(&[("bad.json", "broken/openai-orphan-result.json")]);
    let input = dir.path().join("bad.json");
    let out = ctxc()
        .args(["compact", "--force"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = stdout_of(&out);
    assert!(table.contains("failed (check)"), "{table}");
    assert!(
        stderr_of(&out).contains("bad.json:4: ") && stderr_of(&out).contains("--on-findings allow"),
        "{}",
        stderr_of(&out)
    );
    assert!(!dir.path().join("bad.compact.json").exists());
    let allowed = ctxc()
        .args(["compact", "--force", "--allow-findings"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr_of(&allowed));
}

/// A Claude Code record that repeats an earlier record's uuid, named by a link: compaction
/// re-links by uuid, so once the first record is gone the link lands on the repeat (here a
/// loop). Refused up front as a check finding, and still refused with --allow-findings.
#[test]
fn a_repeated_uuid_is_refused_even_with_allow_findings() {
    let dir = workspace(&[("s.jsonl", "broken/claude-code-repeated-uuid.jsonl")]);
    let input = dir.path().join("s.jsonl");
    let finding = "s.jsonl:27: uuid '8565db80-925a-45e5-8912-159a151b6d24' appears again (first at line 5): the chain cannot be followed: ";
    for (allow, then) in [
        (None, "the input fails `ctxc check`"),
        (
            Some("--allow-findings"),
            "compaction cannot work around it, so the input is not compacted, even with --allow-findings",
        ),
    ] {
        let out = ctxc()
            .args(["compact", "--force", "--strategy", "truncate"])
            .args(allow)
            .arg(&input)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{allow:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{finding}{then}")),
            "{allow:?}: {stderr}"
        );
        assert!(stdout_of(&out).contains("failed (check)"), "{allow:?}");
        assert!(!dir.path().join("s.compact.jsonl").exists(), "{allow:?}");
    }
}

/// A file that could not be parsed has no figures: its row shows `-`, not zeros.
#[test]
fn a_failed_row_says_what_failed() {
    let dir = workspace(&[("bad.jsonl", "broken/openai-truncated.jsonl")]);
    let out = ctxc()
        .args(["compact", "--force"])
        .arg(dir.path().join("bad.jsonl"))
        .output()
        .unwrap();
    let table = stdout_of(&out);
    let row = table.lines().find(|l| l.contains("bad.jsonl")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[1..6], ["-", "failed", "(parse)", "-", "-"], "{row}");
    // Why is said once, on stderr, not again under the table.
    assert!(!table.contains("torn last line"), "{table}");
    assert!(stderr_of(&out).contains("bad.jsonl:3: torn last line"));
}

/// Claude Code's own compaction summary states the task once the history before the compact
/// boundary is gone: every strategy keeps it, byte for byte, in what the model is sent.
#[test]
fn every_strategy_keeps_claude_codes_compaction_summary() {
    let file = "../shared/corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
    let source = std::fs::read_to_string(file).unwrap();
    let summaries: Vec<&str> = source
        .lines()
        .filter(|l| l.contains("\"isCompactSummary\":true"))
        .collect();
    assert!(!summaries.is_empty());
    for strategy in ctxc::strategy::StrategyName::ALL {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxc"))
            .args(["compact", "--force", "-q", "--target-ratio", "0.2"])
            .args(["--strategy", strategy.name(), "-o", "-", file])
            .output()
            .unwrap();
        assert!(out.status.success(), "{strategy}: {}", stderr_of(&out));
        let written = String::from_utf8(out.stdout).unwrap();
        assert!(written.len() <= source.len(), "{strategy} grew the file");
        for line in &summaries {
            assert!(
                written.contains(line),
                "{strategy} lost the compaction summary"
            );
        }
    }
}

/// A Codex rollout of `turns` prompts, written as Codex CLI writes each turn: turn_context,
/// the user message, its `user_message` event, then a bulky shell call and the answer.
fn codex_rollout(turns: usize) -> String {
    use serde_json::json;
    let mut records = vec![json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/w"}})];
    for t in 0..turns {
        let prompt = format!("step {t}: fix module {t}");
        let call = format!("call_{t}");
        let output: String = (0..60).map(|l| format!("mod{t} line {l}: ok\n")).collect();
        records.extend([
            json!({"type": "turn_context", "payload": {"cwd": "/w", "model": "gpt-5-codex"}}),
            json!({"type": "response_item", "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": prompt}]}}),
            json!({"type": "event_msg", "payload": {"type": "user_message", "message": prompt,
                "images": []}}),
            json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                "arguments": json!({"command": ["cat", format!("mod{t}.rs")]}).to_string(),
                "call_id": call}}),
            json!({"type": "response_item", "payload": {"type": "function_call_output",
                "call_id": call, "output": output}}),
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": format!("fixed module {t}")}]}}),
        ]);
    }
    records.iter().map(|r| format!("{r}\n")).collect()
}

/// The `user_message` event texts and the kept prompt texts of a Codex rollout.
fn codex_prompts_and_events(rollout: &str) -> (Vec<String>, Vec<String>) {
    let records: Vec<Value> = rollout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let prompts = records
        .iter()
        .filter(|r| r["payload"]["role"] == "user")
        .filter_map(|r| r["payload"]["content"][0]["text"].as_str())
        .filter(|t| t.starts_with("step "))
        .map(str::to_string)
        .collect();
    let events = records
        .iter()
        .filter(|r| r["type"] == "event_msg" && r["payload"]["type"] == "user_message")
        .map(|r| r["payload"]["message"].as_str().unwrap().to_string())
        .collect();
    (prompts, events)
}

/// Codex lists a session under its first `user_message` event and shows each turn's prompt
/// from its event: with every strategy, a compacted rollout keeps the first event (the title)
/// and the event of every prompt it keeps, and drops those of the prompts it summarized.
#[test]
fn codex_keeps_the_title_and_the_user_message_events_of_kept_turns() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("rollout.jsonl");
    std::fs::write(&input, codex_rollout(12)).unwrap();
    let mut summarized = 0;
    for strategy in [
        "adaptive",
        "sliding-window",
        "importance",
        "key-events",
        "incremental",
        "full-summary",
        "truncate",
    ] {
        let output = dir.path().join(format!("{strategy}.jsonl"));
        ctxc()
            .args(["compact", "--force", "--strategy", strategy])
            .args(["--target-ratio", "0.5", "-o"])
            .arg(&output)
            .arg(&input)
            .assert()
            .success();
        let (prompts, events) =
            codex_prompts_and_events(&std::fs::read_to_string(&output).unwrap());
        summarized += usize::from(prompts.len() < 12);
        assert_eq!(
            events[0], "step 0: fix module 0",
            "{strategy}: the title changed"
        );
        assert_eq!(
            events, prompts,
            "{strategy}: events and kept prompts differ"
        );
        ctxc().arg("check").arg(&output).assert().success();
    }
    assert!(
        summarized >= 3,
        "the test needs strategies that summarize prompts"
    );
}

#[test]
fn the_report_says_why_a_result_lands_far_under_or_over_the_target() {
    let run = |file: &str, strategy: &str| -> Value {
        let out = ctxc()
            .args([
                "compact",
                "--force",
                "--dry-run",
                "--json",
                "--target-ratio",
                "0.5",
            ])
            .args(["--strategy", strategy])
            .arg(shared(file))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        json_of(&out)["files"][0].clone()
    };
    // The whole session is one assistant message: its summary is the least full-summary can
    // take, and lands far under the target.
    let file = run(
        "corpus/claude-code/claude-code-log-samples/assistant/thinking.jsonl",
        "full-summary",
    );
    let (after, target) = (
        file["contextTokensAfter"].as_u64(),
        file["targetTokens"].as_u64(),
    );
    assert!(after.unwrap() * 100 < target.unwrap() * 85, "{file}");
    let note = file["notes"][0].as_str().unwrap();
    assert!(
        note.starts_with(&format!(
            "landed at {} tokens: the least full-summary could take",
            after.unwrap()
        )) && note.ends_with("one unit less leaves 554 tokens, over the target"),
        "{note}"
    );
    // Over the target: the note's parts add up to what is left.
    let file = run("corpus/claude-code/spotter/short.jsonl", "truncate");
    let note = file["notes"][0].as_str().unwrap();
    let numbers: Vec<u64> = note
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
        .map(|s| s.replace(',', "").parse().unwrap())
        .collect();
    // left, target, verbatim, its parts..., summaries, kept.
    let (left, verbatim) = (numbers[0], numbers[2]);
    let parts = &numbers[3..numbers.len() - 2];
    let (summaries, kept) = (numbers[numbers.len() - 2], numbers[numbers.len() - 1]);
    assert_eq!(left, file["contextTokensAfter"].as_u64().unwrap(), "{note}");
    assert_eq!(parts.iter().sum::<u64>(), verbatim, "{note}");
    assert_eq!(verbatim + summaries + kept, left, "{note}");
}

/// Claude Code ≥ 2.1.330 writes each request again for replay (`api-request-shape`,
/// `api-request-blob`, `api-request`; fixture `claude-code/request-replay.jsonl`, shapes from
/// that version's binary): the session is still detected as Claude Code's, those records
/// count as stored, not sent, and `--drop-stored` drops them (the old blob's summary
/// included), leaving every message and a session `check` passes.
#[test]
fn request_replay_records_are_stored_only_and_drop_stored_drops_them() {
    let input = fixture("claude-code/request-replay.jsonl");
    let text = std::fs::read_to_string(&input).unwrap();
    let replay: Vec<usize> = text
        .lines()
        .filter(|l| l.starts_with(r#"{"type":"api-request"#))
        .map(str::len)
        .collect();
    assert_eq!(replay.len(), 7);
    let stored: usize = replay.iter().sum();
    let stats = ctxc()
        .args(["stats", "--json"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(stats.status.code(), Some(0), "{stats:?}");
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let file = &stats["files"][0];
    assert_eq!(file["format"], "claude-code", "{file}");
    assert!(
        file["storedOnlyBytes"].as_u64().unwrap() >= stored as u64,
        "{file}"
    );
    assert!(file["contextTokens"].as_u64().unwrap() < 200, "{file}");
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.jsonl");
    let out = ctxc()
        .args(["compact", "--drop-stored", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(!written.contains(r#""type":"api-request"#), "{written}");
    assert!(!written.contains("continued from a previous conversation"));
    assert_eq!(written.len(), text.len() - stored - replay.len());
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(r#"{"type":"api-request"#))
        .collect();
    assert_eq!(written.lines().collect::<Vec<_>>(), kept);
    let check = ctxc().arg("check").arg(&output).output().unwrap();
    assert_eq!(check.status.code(), Some(0), "{check:?}");
}
