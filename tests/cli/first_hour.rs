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
