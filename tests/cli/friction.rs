//! What a newcomer met in a first hour (issue 26), each as a user sees it: a dry run that
//! predicts the real run's refusals, re-runs that are safe, errors that name the right source
//! and say what to do, each failure printed once, ripgrep's exit codes.

use crate::{ctxc, fixture, stderr_of, stdout_of};
use std::path::Path;

const TRAJ: &str = "examples/swe-agent.traj";

/// A temp dir holding a copy of the example trajectory as `t.traj`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(TRAJ), dir.path().join("t.traj")).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    ctxc().current_dir(dir).args(args).output().unwrap()
}

#[test]
fn a_dry_run_predicts_an_existing_output_and_a_directory_it_cannot_write() {
    let dir = workspace();
    std::fs::write(dir.path().join("t.compact.traj"), "keep me").unwrap();
    let dry = run(dir.path(), &["compact", "--force", "--dry-run", "t.traj"]);
    let real = run(dir.path(), &["compact", "--force", "t.traj"]);
    for out in [&dry, &real] {
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(out));
        assert!(
            stderr_of(out).contains("t.compact.traj exists and differs from this result"),
            "{}",
            stderr_of(out)
        );
    }
    std::fs::write(dir.path().join("plain"), "a file").unwrap();
    let dry = run(
        dir.path(),
        &[
            "compact",
            "--force",
            "--dry-run",
            "--out-dir",
            "plain/sub",
            "t.traj",
        ],
    );
    assert_eq!(dry.status.code(), Some(1), "{}", stderr_of(&dry));
    assert!(
        stderr_of(&dry).contains("plain is not a directory"),
        "{}",
        stderr_of(&dry)
    );
    assert_eq!(
        std::fs::read(dir.path().join("t.compact.traj")).unwrap(),
        b"keep me"
    );
}

#[test]
fn a_dry_run_in_place_predicts_a_backup_that_differs_and_a_lock_held() {
    let dir = workspace();
    let args = [
        "compact",
        "--force",
        "--in-place",
        "--backup=.bak",
        "--dry-run",
        "t.traj",
    ];
    let clean = run(dir.path(), &args);
    assert_eq!(clean.status.code(), Some(0), "{}", stderr_of(&clean));
    std::fs::write(dir.path().join("t.traj.bak"), "an older backup").unwrap();
    let out = run(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("the backup") && stderr_of(&out).contains("differs"),
        "{}",
        stderr_of(&out)
    );
    std::fs::remove_file(dir.path().join("t.traj.bak")).unwrap();
    // Another process holds the file's lock (flock(1), as another ctxc would).
    let holder = std::process::Command::new("flock")
        .arg(dir.path().join("t.traj"))
        .args(["sleep", "30"])
        .spawn();
    let Ok(mut holder) = holder else {
        eprintln!("flock(1) is not installed: the held-lock case is not run");
        return;
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = run(dir.path(), &args);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("holds the file's lock"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        std::fs::read(dir.path().join("t.traj")).unwrap(),
        std::fs::read(fixture(TRAJ)).unwrap()
    );
}

#[test]
fn running_the_same_command_again_is_safe() {
    let dir = workspace();
    let args = ["compact", "--force", "--target-ratio", "0.5", "t.traj"];
    let first = run(dir.path(), &args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let written = std::fs::read(dir.path().join("t.compact.traj")).unwrap();
    let again = run(dir.path(), &args);
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));
    assert!(
        stdout_of(&again).contains("was there already, byte for byte this result"),
        "{}",
        stdout_of(&again)
    );
    assert_eq!(
        std::fs::read(dir.path().join("t.compact.traj")).unwrap(),
        written
    );
    // A dry run of it says the same, naming the output.
    let dry = run(
        dir.path(),
        &[
            "compact",
            "--dry-run",
            "--force",
            "--target-ratio",
            "0.5",
            "t.traj",
        ],
    );
    assert_eq!(dry.status.code(), Some(0), "{}", stderr_of(&dry));
    assert!(
        stdout_of(&dry).contains("the output t.compact.traj was there already"),
        "{}",
        stdout_of(&dry)
    );
    // Other settings would write other bytes: refused, the output left as it was.
    let other = run(
        dir.path(),
        &["compact", "--force", "--target-ratio", "0.3", "t.traj"],
    );
    assert_eq!(other.status.code(), Some(1), "{}", stderr_of(&other));
    assert!(stderr_of(&other).contains("exists and differs"));
    assert_eq!(
        std::fs::read(dir.path().join("t.compact.traj")).unwrap(),
        written
    );
}

#[test]
fn a_bad_setting_names_where_it_came_from() {
    let dir = workspace();
    let out = run(dir.path(), &["compact", "--context-window", "0", "t.traj"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains(": --context-window") && !stderr_of(&out).contains("(from flag)"),
        "{}",
        stderr_of(&out)
    );
    let out = run(dir.path(), &["compact", "--model", "gpt-9000", "t.traj"]);
    assert!(stderr_of(&out).contains(": --model"), "{}", stderr_of(&out));
    let out = ctxc()
        .current_dir(dir.path())
        .env("CTXC_MODEL", "gpt-9000")
        .args(["compact", "t.traj"])
        .output()
        .unwrap();
    assert!(
        stderr_of(&out).contains("model (from env CTXC_MODEL)"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn errors_say_what_is_wrong_and_what_to_try() {
    let dir = workspace();
    std::fs::write(dir.path().join("plain"), "a file").unwrap();
    let out = run(dir.path(), &["compact", "--out-dir", "plain", "t.traj"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("--out-dir plain is not a directory"),
        "{}",
        stderr_of(&out)
    );
    // A transcript given to restore.
    let out = run(dir.path(), &["restore", "t.traj"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr_of(&out).contains("not a ctxc archive"),
        "{}",
        stderr_of(&out)
    );
    let session = fixture("examples/claude-code-session.jsonl");
    let out = ctxc().arg("restore").arg(&session).output().unwrap();
    assert!(
        stderr_of(&out).contains("is not a ctxc archive: it holds JSON lines"),
        "{}",
        stderr_of(&out)
    );
    // A format that cannot be told says what to try.
    std::fs::write(dir.path().join("x.json"), r#"{"a": [{"x": 1}]}"#).unwrap();
    let out = run(dir.path(), &["check", "x.json"]);
    assert!(
        stdout_of(&out).contains("--format") && stdout_of(&out).contains("--messages-path"),
        "{}",
        stdout_of(&out)
    );
    // A --messages-path that finds an array with no message in it does not "succeed".
    let out = run(dir.path(), &["stats", "--messages-path", "/a", "x.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("--messages-path /a matches 1 array but no message"),
        "{}",
        stderr_of(&out)
    );
    // A missing file is not a file "with findings".
    let out = run(dir.path(), &["check", "nope.json", "t.traj"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out)
            .contains("checked 1 file: 1 valid, 0 with findings; 1 file could not be read"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn a_dry_run_with_a_remote_summarizer_needs_no_api_key() {
    let dir = workspace();
    let out = ctxc()
        .current_dir(dir.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("CTXC_API_KEY")
        .args(["compact", "--force", "--dry-run", "--summarizer", "openai"])
        .args([
            "--summary-model",
            "gpt-4o-mini",
            "--strategy",
            "full-summary",
            "t.traj",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("needs an API key")
            && stderr_of(&out).contains("the real run needs it"),
        "{}",
        stderr_of(&out)
    );
    let real = ctxc()
        .current_dir(dir.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("CTXC_API_KEY")
        .args(["compact", "--force", "--summarizer", "openai"])
        .args([
            "--summary-model",
            "gpt-4o-mini",
            "--strategy",
            "full-summary",
            "t.traj",
        ])
        .output()
        .unwrap();
    assert_eq!(real.status.code(), Some(2), "{}", stderr_of(&real));
}

#[test]
fn each_failure_is_printed_once_and_unopened_inputs_exit_2() {
    let dir = workspace();
    std::fs::write(dir.path().join("bad.json"), "{\"messages\": [").unwrap();
    let out = run(dir.path(), &["compact", "--force", "t.traj", "bad.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(stderr.matches("bad.json:").count(), 1, "{stderr}");
    assert!(!stdout.contains("not valid JSON"), "{stdout}");
    assert!(stdout.contains("failed (parse)"), "{stdout}");
    // A mistyped path: one line on stderr, no table, exit 2 (an I/O error, as ripgrep).
    for command in ["compact", "stats"] {
        let out = run(dir.path(), &[command, "nope.traj"]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr_of(&out));
        assert_eq!(stdout_of(&out), "", "{command}");
        assert_eq!(
            stderr_of(&out).trim(),
            "ctxc: nope.traj: no such file or directory",
            "{command}"
        );
    }
}

#[test]
fn sessions_with_no_store_says_where_it_looked() {
    let home = tempfile::tempdir().unwrap();
    let out = ctxc()
        .current_dir(home.path())
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("QWEN_HOME")
        .env_remove("QWEN_RUNTIME_DIR")
        .arg("sessions")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains(
            "looked in: ~/.claude/projects (Claude Code: not there), ~/.codex/sessions (Codex: not there), ~/.pi/agent/sessions (pi: not there), ~/.gemini/tmp (Gemini CLI: not there), ~/.qwen/projects (Qwen Code: not there)"
        ),
        "{}",
        stdout_of(&out)
    );
}

#[test]
fn force_under_the_target_says_why_it_cut() {
    // katy.traj holds 7,718 tokens, far under the default target of 160,000.
    let file = crate::shared("corpus/swe-agent/ctf__crypto__katy.traj");
    let out = ctxc()
        .args(["compact", "--force", "--dry-run"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains(
            "under its target already (7,718 ≤ 160,000 tokens): force asked for a compaction"
        ),
        "{}",
        stdout_of(&out)
    );
    // The token trigger alone never says it: a target given is what it goes to.
    let out = ctxc()
        .args(["compact", "--force", "--dry-run", "--target-ratio", "0.5"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        !stdout_of(&out).contains("under its target already"),
        "{}",
        stdout_of(&out)
    );
    let help = ctxc().args(["compact", "--help"]).output().unwrap();
    assert!(stdout_of(&help).contains("A file already under its target still gets the"));
}

#[test]
fn figures_read_as_sentences_and_verbose_usage_is_the_figure_stats_shows() {
    let katy = crate::shared("corpus/swe-agent/ctf__crypto__katy.traj");
    let out = ctxc()
        .args(["compact", "--dry-run"])
        .arg(&katy)
        .output()
        .unwrap();
    let text = stdout_of(&out);
    assert!(
        text.contains("no trigger fired: 7,718 < 160,000 tokens, "),
        "{text}"
    );
    assert!(
        !text.contains(" 1 turns") && !text.contains(" 1 events"),
        "{text}"
    );
    let out = ctxc()
        .args(["stats"])
        .arg(fixture("codex/session.jsonl"))
        .output()
        .unwrap();
    assert!(
        stdout_of(&out).contains("calibrated on 1 call:"),
        "{}",
        stdout_of(&out)
    );
    // -v gives the provider's figure, as stats does, and says which it is.
    let session =
        crate::shared("corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl");
    let out = ctxc()
        .args(["compact", "-v", "--dry-run", "--force"])
        .arg(&session)
        .output()
        .unwrap();
    assert!(
        stderr_of(&out).contains("usage=66% of 200000 (provider)"),
        "{}",
        stderr_of(&out)
    );
    let stats = ctxc().arg("stats").arg(&session).output().unwrap();
    assert!(
        stdout_of(&stats).contains("132,743* (66%)"),
        "{}",
        stdout_of(&stats)
    );
}

#[test]
fn a_table_on_a_terminal_shortens_long_paths_and_a_pipe_keeps_them() {
    let home = tempfile::tempdir().unwrap();
    let deep = home
        .path()
        .join(".claude/projects/-home-someone-src-a-long-project-name");
    std::fs::create_dir_all(&deep).unwrap();
    let file = deep.join("8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl");
    std::fs::copy(fixture("examples/claude-code-session.jsonl"), &file).unwrap();
    let piped = ctxc().arg("stats").arg(&file).output().unwrap();
    assert!(stdout_of(&piped).contains(&file.display().to_string()));
    let Some(text) = in_a_terminal(home.path(), &format!("stats {}", file.display())) else {
        return;
    };
    let row = text.lines().find(|l| l.contains("8463c716")).unwrap();
    assert!(row.starts_with("~/.claude/…/8463c716-"), "{text}");
    assert!(row.contains("….jsonl "), "{text}");
    fits_120_columns(&text);
}

/// What a terminal shows while `ctxc ARGS` runs with `home` as HOME (script(1) gives it the
/// terminal; its typescript goes to a file in `home`); `None`, said, without script(1).
fn in_a_terminal(home: &std::path::Path, args: &str) -> Option<String> {
    let command = format!("{} {args}", assert_cmd::cargo::cargo_bin("ctxc").display());
    let Ok(out) = std::process::Command::new("script")
        .env("HOME", home)
        .args(["-qec", &command])
        .arg(home.join("typescript"))
        .output()
    else {
        eprintln!("script(1) is not installed: the terminal case is not run");
        return None;
    };
    Some(stdout_of(&out))
}

/// Every line after the progress bar's last redraw (a carriage-return-cleared line) fits.
fn fits_120_columns(typescript: &str) {
    let table = typescript.rsplit("\x1b[2K").next().unwrap();
    for line in table.lines() {
        assert!(line.chars().count() <= 120, "{} wide: {line}", line.len());
    }
}

/// The compact table on a terminal fits 120 columns: a long session path, every column.
#[test]
fn a_compact_table_on_a_terminal_fits_120_columns() {
    let home = tempfile::tempdir().unwrap();
    let deep = home
        .path()
        .join(".claude/projects/-home-someone-src-a-long-project-name");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(
        fixture("examples/claude-code-session.jsonl"),
        deep.join("8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture("examples/swe-agent.traj"),
        deep.join("swe-agent.traj"),
    )
    .unwrap();
    let Some(text) = in_a_terminal(
        home.path(),
        &format!("compact --dry-run --target-ratio 0.25 {}", deep.display()),
    ) else {
        return;
    };
    assert!(text.contains("KEPT% p c e u"), "{text}");
    assert!(
        text.contains("dry run: 2 of 2 files would be compacted"),
        "{text}"
    );
    fits_120_columns(&text);
}

/// The repair table and its lines on a terminal fit 120 columns too: a long session path,
/// its `NAME.repaired.EXT` output beside it.
#[test]
fn a_repair_table_on_a_terminal_fits_120_columns() {
    let home = tempfile::tempdir().unwrap();
    let deep = home
        .path()
        .join("src/a-long-project-name/for-the-repair-table/with/its/sessions/kept/here");
    std::fs::create_dir_all(&deep).unwrap();
    let session = deep.join("8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl");
    std::fs::copy(fixture("claude-code/unanswered-call.jsonl"), &session).unwrap();
    let Some(text) = in_a_terminal(home.path(), &format!("repair {}", session.display())) else {
        return;
    };
    assert!(text.contains("FILE") && text.contains("repaired"), "{text}");
    assert!(text.contains("~/src/"), "home is ~: {text}");
    assert!(
        session.with_extension("repaired.jsonl").exists(),
        "the repair was written: {text}"
    );
    fits_120_columns(&text);
}

#[test]
fn json_says_null_where_the_table_says_dash() {
    let dir = workspace();
    std::fs::write(dir.path().join("bad.json"), "{\"messages\": [").unwrap();
    let out = run(
        dir.path(),
        &[
            "compact",
            "--force",
            "--dry-run",
            "--json",
            "t.traj",
            "bad.json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schemaVersion"], 2);
    let file = |name: &str| {
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == name)
            .unwrap()
            .clone()
    };
    let bad = &file("bad.json");
    assert_eq!(bad["status"], "failed");
    for key in [
        "bytesBefore",
        "contextTokensAfter",
        "savedRatio",
        "retention",
    ] {
        assert!(bad[key].is_null(), "{key}: {bad}");
    }
    // A kind of fact with nothing to keep has no share: not 1.0 for 0 of 0.
    let good = &file("t.traj");
    assert_eq!(
        good["retentionCounts"]["errors"],
        serde_json::json!([0, 0]),
        "{good}"
    );
    assert!(good["retention"]["errors"].is_null(), "{good}");
    // Reports with nulls merge, and the merge keeps them.
    std::fs::write(dir.path().join("r.json"), &out.stdout).unwrap();
    let merged = run(dir.path(), &["report", "merge", "--json", "r.json"]);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr_of(&merged));
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    let merged_bad = merged["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "bad.json");
    assert!(merged_bad.unwrap()["bytesBefore"].is_null());
}

#[test]
fn config_show_fits_a_terminal_but_for_the_one_long_value() {
    let out = ctxc()
        .args(["config", "show", "--no-config"])
        .output()
        .unwrap();
    let table = stdout_of(&out);
    assert!(table.starts_with("KEY"), "{table}");
    let rows = table
        .lines()
        .take_while(|l| !l.is_empty() && !l.contains(": "));
    let wide: Vec<&str> = rows.filter(|l| l.chars().count() > 100).collect();
    // Only `selective`'s rules are long, and they no longer pad every other row.
    assert!(wide.iter().all(|l| l.starts_with("selective ")), "{wide:?}");
    assert!(
        table.contains("context_window                   default  200000"),
        "{table}"
    );
}

/// One large file's bar says what it is doing while it is compacted, and counts its bytes once
/// it is done, not once it is read (the bar sat at 2.9/2.9 MB, "ETA 0 seconds", meanwhile).
#[test]
fn one_large_files_bar_follows_the_work_not_the_read() {
    let session =
        crate::shared("corpus/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "{} compact --dry-run --force --target-ratio 0.25 {}",
        assert_cmd::cargo::cargo_bin("ctxc").display(),
        session.display()
    );
    let Ok(out) = std::process::Command::new("script")
        .args(["-qec", &command])
        .arg(dir.path().join("typescript"))
        .output()
    else {
        eprintln!("script(1) is not installed: the terminal case is not run");
        return;
    };
    let text = stdout_of(&out);
    let frames: Vec<&str> = text
        .split(['\r', '\n'])
        .filter(|f| f.contains(" files "))
        .collect();
    assert!(
        frames
            .iter()
            .any(|f| f.contains("0/1 files") && f.contains("compacting 8463c716-")),
        "{frames:#?}"
    );
    assert!(
        !frames
            .iter()
            .any(|f| f.contains("0/1 files") && f.contains("2.9/2.9 MB")),
        "{frames:#?}"
    );
}
