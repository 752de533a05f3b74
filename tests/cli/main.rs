//! End-to-end tests: the real `ctxc` binary on temp dirs, corpus copies and fixtures.
// Tests name the paths they made in assertion messages, for whoever reads a failure: raw
// `display()` is right there (clippy.toml forbids it in ctxc's own output).
#![allow(clippy::disallowed_methods)]

mod archive;
mod atif;
mod calibrate;
mod check;
mod ci;
mod compact;
mod convert_parquet;
mod deep;
mod docs;
mod eval;
mod first_hour;
mod fit;
mod fleet;
mod friction;
mod hostile_names;
mod inplace;
mod isolation;
mod layers;
mod llamafactory;
mod man;
mod openhands;
mod openhands_sdk;
mod parquet;
mod parquet_hostile;
mod parquet_sessions;
mod progress;
mod repair;
mod s3;
mod s3_faults;
mod s3_keys;
mod s3_profiles;
mod s3_proxy;
mod s3_stores;
mod sessions;
mod shapes;
mod stats;
mod text_actions;
mod torn;

#[path = "../common/agent_run.rs"]
mod agent_run;
#[path = "../common/damage.rs"]
mod damage;
#[path = "../common/paths.rs"]
mod paths;
#[path = "../common/process.rs"]
mod process;

pub use paths::{fixture, root, shared};
pub use process::{stderr_of, stdout_of};

use assert_cmd::Command;
use std::path::Path;

/// The `ctxc` binary under test, shielded from the machine's settings: no user settings
/// file, no `CTXC_*` variables but those a test sets.
pub fn ctxc() -> Command {
    let mut cmd = Command::cargo_bin("ctxc").unwrap();
    cmd.env_remove("NO_COLOR");
    cmd.env("XDG_CONFIG_HOME", root().join("target/no-user-config"));
    for (name, _) in std::env::vars() {
        if name.starts_with("CTXC_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// What a terminal shows while the shell runs `line` (the ctxc binary is `$CTXC`), with
/// `path` before `$PATH` when given; `None` when there is no `script` to make the terminal.
pub fn on_a_terminal(line: &str, path: Option<&std::path::Path>) -> Option<String> {
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", line, "/dev/null"])
        .env("CTXC", assert_cmd::cargo::cargo_bin("ctxc"))
        .env("XDG_CONFIG_HOME", root().join("target/no-user-config"))
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    if let Some(dir) = path {
        let rest = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{rest}", dir.to_string_lossy()));
    }
    match cmd.output() {
        Ok(out) => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Err(e) => {
            eprintln!("SKIPPED: no `script` to give ctxc a terminal ({e})");
            None
        }
    }
}

/// `ctxc restore ARCHIVE_OR_OUTPUT -o BACK`, which must succeed.
pub fn restore_to(from: &std::path::Path, back: &std::path::Path) {
    let out = ctxc()
        .arg("restore")
        .arg(from)
        .arg("-o")
        .arg(back)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// `compact` forced to half the context, as most tests run it (their flags and outputs follow).
pub const COMPACT_HALF: [&str; 4] = ["compact", "--force", "--target-ratio", "0.5"];

/// Every compaction strategy, by its CLI name.
pub const STRATEGIES: [&str; 13] = [
    "adaptive",
    "strip-payloads",
    "dedup",
    "trim-outputs",
    "trim-calls",
    "sliding-window",
    "importance",
    "key-events",
    "incremental",
    "selective",
    "observation-masking",
    "full-summary",
    "truncate",
];

/// `input` is read as `format`, passes `check`, and compacts (nothing being due) to its own
/// bytes; the output goes under `scratch`.
pub fn assert_read_as_clean_and_passed_through(input: &Path, format: &str, scratch: &Path) {
    let what = input.display();
    let out = ctxc()
        .args(["stats", "--json"])
        .arg(input)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["format"], format, "{what}");
    let out = ctxc().arg("check").arg(input).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stdout_of(&out));
    let output = scratch.join(input.file_name().unwrap());
    let out = ctxc()
        .args(["compact", "-q", "-o"])
        .arg(&output)
        .arg(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(input).unwrap()
    );
}

/// Whether `path` exists (for readable asserts).
pub fn exists(path: &Path) -> bool {
    path.exists()
}
