//! A newcomer's first hour, round two (issue 46), each as a user sees it: a target on the
//! command line that acts, walks that are safe to repeat over ctxc's own files, one number,
//! quiet output that still speaks when it matters.

use crate::{ctxc, fixture, stderr_of, stdout_of};
use std::path::Path;

/// A temp dir holding copies of the two examples under `sessions/`.
fn examples() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    for name in ["claude-code-session.jsonl", "swe-agent.traj"] {
        std::fs::copy(fixture("examples").join(name), sessions.join(name)).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    ctxc().current_dir(dir).args(args).output().unwrap()
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(&stdout_of(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout_of(out)))
}

/// The README's dry run: a target given on the command line compacts files no trigger
/// fires for, as `--force` would.
#[test]
fn a_target_on_the_command_line_compacts_files_under_the_triggers() {
    let dir = examples();
    let args = ["compact", "--dry-run", "--json", "sessions/"];
    let plain = json_of(&run(dir.path(), &args));
    let targeted = run(
        dir.path(),
        &[&args[..], &["--target-ratio", "0.5"]].concat(),
    );
    assert_eq!(targeted.status.code(), Some(0), "{}", stderr_of(&targeted));
    let targeted = json_of(&targeted);
    for (before, after) in plain["files"]
        .as_array()
        .unwrap()
        .iter()
        .zip(targeted["files"].as_array().unwrap())
    {
        assert_eq!(before["savedRatio"], 0.0, "{before}");
        let saved = after["savedRatio"].as_f64().unwrap();
        assert!(saved >= 0.3, "{after}");
        assert_eq!(after["triggers"], serde_json::json!(["target"]), "{after}");
    }
}

/// A target only in the settings file says how far once a trigger fires: on its own it
/// compacts nothing; and a command-line target a file is under already cuts nothing.
#[test]
fn a_target_in_the_settings_file_or_already_met_leaves_files_alone() {
    let dir = examples();
    std::fs::write(dir.path().join("ctxc.yaml"), "target_ratio: 0.5\n").unwrap();
    let out = run(dir.path(), &["compact", "--dry-run", "--json", "sessions/"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    for file in json_of(&out)["files"].as_array().unwrap() {
        assert_eq!(file["savedRatio"], 0.0, "{file}");
    }
    let big = [
        "compact",
        "--dry-run",
        "--json",
        "--no-config",
        "--target-tokens",
        "1000000",
        "sessions/",
    ];
    let out = run(dir.path(), &big);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    for file in json_of(&out)["files"].as_array().unwrap() {
        assert_eq!(file["savedRatio"], 0.0, "{file}");
    }
}

/// The files under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn check_after_an_in_place_archive_run_skips_the_archive_and_says_so() {
    let dir = examples();
    let out = run(
        dir.path(),
        &[
            "compact",
            "--in-place",
            "--archive",
            "--target-ratio",
            "0.5",
            "sessions/",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        tree(&dir.path().join("sessions"))
            .iter()
            .any(|n| n.ends_with(".ctxc-archive.json"))
    );
    let check = run(dir.path(), &["check", "sessions/"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr_of(&check));
    assert!(
        stderr_of(&check).contains("skipped 2 files of ctxc's own"),
        "{}",
        stderr_of(&check)
    );
    let stats = run(dir.path(), &["stats", "-q", "sessions/"]);
    assert_eq!(stats.status.code(), Some(0), "{}", stderr_of(&stats));
    assert!(
        !stderr_of(&stats).contains("skipped"),
        "-q: {}",
        stderr_of(&stats)
    );
}

#[test]
fn repair_of_a_folder_twice_skips_its_own_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("examples/claude-code-session.jsonl")).unwrap();
    let (damaged, _) = crate::damage::damage(&text, crate::damage::Damage::DeleteToolResult);
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::fs::write(dir.path().join("d/s.jsonl"), damaged).unwrap();
    let first = run(dir.path(), &["repair", "d/"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let written = tree(&dir.path().join("d"));
    assert_eq!(
        written,
        [
            "s.jsonl",
            "s.repaired.ctxc-archive.json",
            "s.repaired.jsonl"
        ]
    );
    let second = run(dir.path(), &["repair", "d/"]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr_of(&second));
    assert!(
        stderr_of(&second).contains("skipped 2 files of ctxc's own"),
        "{}",
        stderr_of(&second)
    );
    assert_eq!(tree(&dir.path().join("d")), written);
}

#[test]
fn compact_into_a_folder_inside_its_input_twice_leaves_that_folder_alone() {
    let dir = examples();
    let args = [
        "compact",
        "--target-ratio",
        "0.5",
        "sessions/",
        "--out-dir",
        "sessions/out",
    ];
    let first = run(dir.path(), &args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let written = tree(&dir.path().join("sessions"));
    assert_eq!(
        written,
        [
            "claude-code-session.jsonl",
            "out/claude-code-session.jsonl",
            "out/swe-agent.traj",
            "swe-agent.traj"
        ]
    );
    let second = run(dir.path(), &[&args[..], &["--force-overwrite"]].concat());
    assert_eq!(second.status.code(), Some(0), "{}", stderr_of(&second));
    assert!(
        stderr_of(&second).contains("and 1 folder this run writes into")
            || stderr_of(&second).contains("skipped 1 folder this run writes into"),
        "{}",
        stderr_of(&second)
    );
    assert_eq!(tree(&dir.path().join("sessions")), written);
}

#[test]
fn a_dry_run_says_so_and_unchanged_files_take_one_line() {
    let dir = examples();
    let out = run(dir.path(), &["compact", "--dry-run", "sessions/"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert_eq!(text.matches("no trigger fired").count(), 1, "{text}");
    let folded = "2 files unchanged, no trigger fired: the first, sessions/claude-code-session.jsonl: 29,733 < 160,000 tokens";
    assert!(text.contains(folded), "{text}");
    assert!(
        text.trim_end().ends_with("dry run: nothing was written"),
        "{text}"
    );
    let out = run(
        dir.path(),
        &["compact", "--dry-run", "--target-ratio", "0.5", "sessions/"],
    );
    let text = stdout_of(&out);
    assert_eq!(text.matches("would compact").count(), 3, "{text}");
    assert!(!text.contains(" compacted "), "{text}");
    assert!(text.contains("2 would compact, 0 failed"), "{text}");
}

#[test]
fn in_place_without_archive_or_backup_warns_the_originals_are_not_kept() {
    let dir = examples();
    let warning = "--in-place without --archive or --backup: the originals";
    let kept = run(
        dir.path(),
        &[
            "compact",
            "--in-place",
            "--backup",
            "--target-ratio",
            "0.5",
            "sessions/",
        ],
    );
    assert_eq!(kept.status.code(), Some(0), "{}", stderr_of(&kept));
    assert!(!stderr_of(&kept).contains(warning), "{}", stderr_of(&kept));
    let lost = run(
        dir.path(),
        &[
            "compact",
            "--in-place",
            "--target-ratio",
            "0.5",
            "sessions/swe-agent.traj",
        ],
    );
    assert_eq!(lost.status.code(), Some(0), "{}", stderr_of(&lost));
    assert!(stderr_of(&lost).contains(warning), "{}", stderr_of(&lost));
}

#[test]
fn the_declared_licenses_are_shipped() {
    let manifest = std::fs::read_to_string(crate::root().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    let mit = std::fs::read_to_string(crate::root().join("LICENSE-MIT")).unwrap();
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = std::fs::read_to_string(crate::root().join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004"));
}

/// Saved is said on the figure the trigger uses: the provider's where the file records usage
/// (the table's SAVED, `providerSavedRatio`), beside ctxc's own (`savedRatio`); `stats` puts the
/// provider's first and names ctxc's.
#[test]
fn saved_is_said_in_provider_tokens_where_the_file_records_usage() {
    let dir = examples();
    let session = "sessions/claude-code-session.jsonl";
    let args = ["compact", "--dry-run", "--target-ratio", "0.5", session];
    let json = json_of(&run(dir.path(), &[&args[..], &["--json"]].concat()));
    let file = &json["files"][0];
    let (before, after) = (
        file["calibratedTokensBefore"].as_f64().unwrap(),
        file["calibratedTokensAfter"].as_f64().unwrap(),
    );
    let provider = file["providerSavedRatio"].as_f64().unwrap();
    assert!((provider - (1.0 - after / before)).abs() < 1e-3, "{file}");
    assert!(provider < file["savedRatio"].as_f64().unwrap(), "{file}");
    assert_eq!(
        json["totals"]["providerSavedRatio"],
        file["providerSavedRatio"]
    );
    let table = stdout_of(&run(dir.path(), &args));
    let percent = format!(" {:.0}% ", provider * 100.0);
    let row = table.lines().nth(1).unwrap();
    assert!(row.contains(&percent), "{percent} in {row}");
    let stats = stdout_of(&run(dir.path(), &["stats", session]));
    let header = stats.lines().next().unwrap();
    let provider_at = header.find("PROVIDER TOKENS").unwrap();
    assert!(
        provider_at < header.find("CTXC TOKENS").unwrap(),
        "{header}"
    );
}

/// `convert -o - | head` ends quietly, as `compact -o - | head` does.
#[test]
fn convert_to_a_pipe_closed_early_ends_quietly() {
    let input = crate::shared("corpus/openai-chat/tau-bench/gpt-4o-airline.json");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxc"))
        .args(["convert", "--to", "atif", "-o", "-"])
        .arg(&input)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    std::io::Read::read_exact(&mut child.stdout.take().unwrap(), &mut head).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
}

/// `report merge -` reads a report from standard input; a flag's bad value names the flag.
#[test]
fn report_merge_reads_standard_input_and_errors_name_the_flag() {
    let dir = examples();
    let report = run(
        dir.path(),
        &[
            "compact",
            "--dry-run",
            "--json",
            "--target-ratio",
            "0.5",
            "sessions/",
        ],
    );
    let merged = ctxc()
        .args(["report", "merge", "-", "--json"])
        .write_stdin(report.stdout.clone())
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", stderr_of(&merged));
    assert_eq!(json_of(&merged)["totals"], json_of(&report)["totals"]);
    let bad = run(
        dir.path(),
        &["compact", "--target-ratio", "1.5", "sessions/"],
    );
    assert_eq!(bad.status.code(), Some(2), "{}", stderr_of(&bad));
    assert!(
        stderr_of(&bad).contains("got 1.5: --target-ratio"),
        "{}",
        stderr_of(&bad)
    );
}

/// The hint of an unknown format points at a help that lists the formats.
#[test]
fn the_format_hint_points_at_help_that_lists_the_formats() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.json"), "{\"neither\": 1}").unwrap();
    let out = run(dir.path(), &["check", "x.json"]);
    let hint = "`ctxc compact --help` lists the formats under --format";
    let said = format!("{}{}", stdout_of(&out), stderr_of(&out));
    assert!(said.contains(hint), "{said}");
    let help = stdout_of(&run(dir.path(), &["compact", "--help"]));
    let listed = help.split("--format <FORMAT>").nth(1).unwrap();
    assert!(listed.contains("claude-code, codex"), "{help}");
}

/// A page's text (`README.md`, `CONTRIBUTING.md`, `docs/…`) with its line breaks and runs of
/// spaces made single spaces.
fn words_of(page: &str) -> String {
    let text = std::fs::read_to_string(crate::root().join(page)).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The Quick start says how to put `ctxc` on PATH, and its dry run prints the savings it
/// quotes.
#[test]
fn the_quick_start_installs_ctxc_and_its_dry_run_prints_what_it_says() {
    let readme = words_of("README.md");
    let quick =
        &readme[readme.find("## Quick start").unwrap()..readme.find("## Three ways").unwrap()];
    assert!(quick.contains("cargo install --locked --path ."), "{quick}");
    let out = ctxc()
        .current_dir(crate::root())
        .args([
            "compact",
            "--target-ratio",
            "0.5",
            "--dry-run",
            "fixtures/examples/",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let row = |name: &str| text.lines().find(|l| l.contains(name)).unwrap().to_string();
    for (name, saved, said) in [
        (
            "swe-agent.traj",
            " 52% ",
            "52% for the SWE-agent trajectory",
        ),
        (
            "claude-code-session.jsonl",
            " 7% ",
            "7% for the Claude Code session",
        ),
    ] {
        assert!(row(name).contains(saved), "{saved} in {}", row(name));
        assert!(quick.contains(said), "{said} in {quick}");
    }
}

/// The Node.js version CONTRIBUTING.md asks for is the one the pinned clients need.
#[test]
fn the_guide_asks_for_the_node_the_e2e_clients_need() {
    let lock = std::fs::read_to_string(crate::root().join("tests/e2e/package-lock.json")).unwrap();
    let lock: serde_json::Value = serde_json::from_str(&lock).unwrap();
    let packages = lock["packages"].as_object().unwrap();
    let majors: Vec<u32> = [
        "node_modules/@anthropic-ai/claude-code",
        "node_modules/@openai/codex",
    ]
    .iter()
    .map(|p| {
        let engines = packages[*p]["engines"]["node"].as_str().unwrap();
        let digits: String = engines
            .trim_start_matches(">=")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    })
    .collect();
    let needed = majors.into_iter().max().unwrap();
    let guide = words_of("CONTRIBUTING.md");
    assert!(
        guide.contains(&format!("Needs Node.js {needed}+")),
        "Node.js {needed}+"
    );
    assert!(guide.contains("CTXC_E2E_INSTALL=1"));
    assert!(guide.contains("about 767 MB"));
}

/// `ctxc --help` lists the commands in the order of use.
#[test]
fn help_lists_the_commands_in_the_order_of_use() {
    let help = stdout_of(&ctxc().arg("--help").output().unwrap());
    let listed: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| !l.starts_with("Options"))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        listed,
        [
            "sessions",
            "stats",
            "check",
            "compact",
            "repair",
            "restore",
            "archive",
            "convert",
            "fit",
            "eval",
            "report",
            "config",
            "completions",
            "man",
            "help"
        ]
    );
}
