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
        text.trim_end()
            .ends_with("dry run: 0 of 2 files would be compacted; nothing was written"),
        "{text}"
    );
    let out = run(
        dir.path(),
        &["compact", "--dry-run", "--target-ratio", "0.5", "sessions/"],
    );
    let text = stdout_of(&out);
    assert_eq!(text.matches(" would compact ").count(), 2, "{text}");
    assert!(!text.contains(" compacted "), "{text}");
    assert!(
        text.trim_end()
            .ends_with("dry run: 2 of 2 files would be compacted; nothing was written"),
        "{text}"
    );
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
    let provider_at = header.find("TOKENS (WINDOW)").unwrap();
    assert!(provider_at < header.find("CTXC").unwrap(), "{header}");
    assert!(
        stats.lines().nth(1).unwrap().contains("29,733* "),
        "{stats}"
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
            " 50% ",
            "50% for the SWE-agent trajectory",
        ),
        (
            "claude-code-session.jsonl",
            " 8% ",
            "8% for the Claude Code session",
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
        "node_modules/@qwen-code/qwen-code",
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
    assert!(guide.contains("about 1,194 MB"));
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

#[test]
fn a_named_format_that_reads_no_messages_warns_and_names_the_one_it_reads_as() {
    let dir = examples();
    let out = run(
        dir.path(),
        &[
            "stats",
            "--format",
            "codex",
            "sessions/claude-code-session.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let warning = "sessions/claude-code-session.jsonl: read as codex (--format), it holds no messages: it reads as claude-code";
    assert!(stderr_of(&out).contains(warning), "{}", stderr_of(&out));
    // Read as what it is, nothing to warn of.
    let out = run(
        dir.path(),
        &[
            "stats",
            "--format",
            "claude-code",
            "sessions/claude-code-session.jsonl",
        ],
    );
    assert!(
        !stderr_of(&out).contains("holds no messages"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn check_prints_one_line_per_replayed_block_as_repair_does() {
    let dir = examples();
    let session = dir.path().join("sessions/claude-code-session.jsonl");
    let text = std::fs::read_to_string(&session).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Lines 5-8 appended again, as a client that replays its history writes them.
    let replayed = format!("{text}{}\n", lines[4..8].join("\n"));
    std::fs::write(&session, replayed).unwrap();
    let n = lines.len();
    let checked = run(dir.path(), &["check", "sessions/claude-code-session.jsonl"]);
    assert_eq!(checked.status.code(), Some(1), "{}", stderr_of(&checked));
    let found = stdout_of(&checked);
    let block = format!(
        "sessions/claude-code-session.jsonl:{}-{}: 4 records replay lines 5-8 (same uuid): replayed history",
        n + 1,
        n + 4
    );
    assert_eq!(
        found.lines().collect::<Vec<_>>(),
        [block.as_str()],
        "{found}"
    );
    // The same block as repair names it; --json keeps each record's finding.
    let repaired = run(
        dir.path(),
        &["repair", "sessions/claude-code-session.jsonl"],
    );
    let repair = format!(
        "{}-{}: 4 records replay lines 5-8 (same uuid)",
        n + 1,
        n + 4
    );
    assert!(
        stdout_of(&repaired).contains(&repair),
        "{}",
        stdout_of(&repaired)
    );
    let json = run(
        dir.path(),
        &["check", "--json", "sessions/claude-code-session.jsonl"],
    );
    assert_eq!(
        json_of(&json)["files"][0]["findings"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn archive_show_summary_is_one_line_per_compaction() {
    let dir = examples();
    for _ in 0..2 {
        let out = run(
            dir.path(),
            &[
                "compact",
                "--in-place",
                "--archive",
                "--target-ratio",
                "0.5",
                "sessions/claude-code-session.jsonl",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    }
    let archive = "sessions/claude-code-session.ctxc-archive.json";
    let out = run(dir.path(), &["archive", "show", "--summary", archive]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].ends_with("2 compactions of claude-code-session.jsonl"),
        "{text}"
    );
    for (k, line) in lines[1..].iter().enumerate() {
        assert!(
            line.starts_with(&format!("compaction {}/2 ", k + 1)),
            "{line}"
        );
        assert!(line.contains(" claude-code: 2,392 → ") || k == 1, "{line}");
        assert!(
            line.contains(" ctxc tokens, ") && line.contains(" bytes"),
            "{line}"
        );
        assert!(line.ends_with("(triggers: target)"), "{line}");
    }
    // Outputs masked before any summary: every call stays.
    assert!(lines[1].contains("masked 4"), "{text}");
    // The full view is many lines more.
    let full = stdout_of(&run(dir.path(), &["archive", "show", archive]));
    assert!(full.lines().count() > 10 * lines.len(), "{full}");
}

#[test]
fn compact_short_help_shows_the_common_flags_and_long_help_all() {
    let short = ctxc().args(["compact", "-h"]).output().unwrap();
    let long = ctxc().args(["compact", "--help"]).output().unwrap();
    let (short, long) = (stdout_of(&short), stdout_of(&long));
    assert!(
        short.lines().count() <= 80,
        "{} lines:\n{short}",
        short.lines().count()
    );
    for flag in [
        "--target-ratio",
        "--dry-run",
        "--in-place",
        "--archive",
        "--out-dir",
    ] {
        assert!(short.contains(flag), "{flag} missing from -h");
    }
    for flag in [
        "--summary-model",
        "--keep-payloads",
        "--on-findings",
        "--trigger-ratio",
    ] {
        assert!(!short.contains(flag), "{flag} in -h");
        assert!(long.contains(flag), "{flag} missing from --help");
    }
    assert!(short.contains("(see more with '--help')"), "{short}");
    assert!(long.lines().count() > 2 * short.lines().count());
}

/// `stats -q` and `stats --json`'s first figure are one number, and the JSON says whose.
#[test]
fn stats_quiet_is_the_json_tokens_and_says_whose_count_it_is() {
    let dir = examples();
    for (session, source) in [
        ("sessions/claude-code-session.jsonl", "provider"),
        ("sessions/swe-agent.traj", "ctxc"),
    ] {
        let quiet = stdout_of(&run(dir.path(), &["stats", "-q", session]));
        let json = json_of(&run(dir.path(), &["stats", "--json", session]));
        let totals = &json["totals"];
        assert_eq!(quiet.trim(), totals["tokens"].to_string(), "{session}");
        assert_eq!(totals["tokensSource"], source, "{session}");
        let whose = match source {
            "provider" => &totals["calibratedContextTokens"],
            _ => &totals["contextTokens"],
        };
        assert_eq!(&totals["tokens"], whose, "{session}");
        assert_eq!(json["files"][0]["tokens"], totals["tokens"], "{session}");
    }
    // Over both: the provider's figure where there is one, ctxc's for the other file.
    let quiet = stdout_of(&run(dir.path(), &["stats", "-q", "sessions/"]));
    let json = json_of(&run(dir.path(), &["stats", "--json", "sessions/"]));
    let files: u64 = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(quiet.trim(), files.to_string());
    assert_eq!(json["totals"]["tokens"], files);
}

/// Ctrl-C in a long run: the files in progress finish, no other is started, the table and
/// the `--report` say what was done and which were not started, and the exit status is 130.
#[test]
fn ctrl_c_finishes_what_it_started_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    let session = std::fs::read(fixture("examples/swe-agent.traj")).unwrap();
    for i in 0..400 {
        std::fs::write(inputs.join(format!("s{i:03}.traj")), &session).unwrap();
    }
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxc"))
        .current_dir(dir.path())
        .args(["--jobs", "1", "compact", "-v", "--target-ratio", "0.5"])
        .args(["--out-dir", "out", "--report", "report.json", "in/"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once the first file is done (its log line is on stderr).
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("compacted trigger=target") {
        let mut line = String::new();
        assert!(
            std::io::BufRead::read_line(&mut stderr, &mut line).unwrap() > 0,
            "{said}"
        );
        said.push_str(&line);
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    std::io::Read::read_to_string(&mut stderr, &mut said).unwrap();
    let out = child.wait_with_output().unwrap();
    let table = stdout_of(&out);
    assert_eq!(out.status.code(), Some(130), "{said}\n{table}");
    assert!(
        said.contains("interrupted: finishing the files in progress"),
        "{said}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["interrupted"], true);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 400);
    let done: Vec<&str> = files
        .iter()
        .filter(|f| f["status"] == "compacted")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let not_started = files.iter().filter(|f| f["status"] == "skipped").count();
    assert!(!done.is_empty() && not_started > 0, "{report}");
    assert_eq!(done.len() + not_started, 400, "{report}");
    // Every file reported done has its whole output; no other output was written.
    let written = std::fs::read_dir(dir.path().join("out")).unwrap().count();
    assert_eq!(written, done.len());
    for path in done {
        let name = Path::new(path).file_name().unwrap();
        let output = dir.path().join("out").join(name);
        let output: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
        assert!(output.is_object(), "{path}");
    }
    let closing = format!(
        "interrupted: {} of 400 files done, {not_started} not started",
        400 - not_started
    );
    assert!(table.contains(&closing), "{table}");
}
