//! A torn last line (a JSONL file whose last line is not JSON and has no newline: a client
//! stopped mid-write) is named by `check`, refused by `compact` with a hint, and with
//! `--drop-torn-tail` left out of the compaction, kept by the archive so that `restore` gives
//! the exact file back. And usage-only Claude Code records (usage exports) pass through.

use crate::{ctxc, fixture, restore_to, shared, stderr_of, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a client that crashed while appending its next record leaves after the last newline.
const FRAGMENT: &str = r#"{"parentUuid":"x","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Now I'll"#;

/// A copy of a corpus session with a torn record after its last line, in a temp dir.
fn torn_session(dir: &Path) -> (PathBuf, Vec<u8>) {
    let mut bytes = std::fs::read(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    assert_eq!(bytes.last(), Some(&b'\n'));
    bytes.extend_from_slice(FRAGMENT.as_bytes());
    let path = dir.join("s.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn lines_of(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count() + 1
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn check_names_a_torn_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bytes) = torn_session(dir.path());
    let out = ctxc().arg("check").arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let want = format!(
        "{}:{}: torn last line (no newline, not valid JSON): ",
        input.display(),
        lines_of(&bytes)
    );
    assert!(stdout_of(&out).contains(&want), "{}", stdout_of(&out));
}

#[test]
fn compact_refuses_a_torn_tail_with_the_hint() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = torn_session(dir.path());
    let output = dir.path().join("out.jsonl");
    let out = ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("torn last line"), "{err}");
    assert!(err.contains("--drop-torn-tail"), "{err}");
    assert!(!output.exists());
}

#[test]
fn drop_torn_tail_compacts_the_rest_and_the_archive_gives_the_line_back() {
    let dir = tempfile::tempdir().unwrap();
    let (input, original) = torn_session(dir.path());
    let output = dir.path().join("out.jsonl");
    let out = ctxc()
        .args(["compact", "--force", "--target-ratio", "0.5", "--json"])
        .args(["--drop-torn-tail", "--archive", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let file = &json_of(&out)["files"][0];
    assert_eq!(file["status"], "compacted");
    assert_eq!(file["bytesBefore"], original.len());
    let notes = file["notes"].to_string();
    assert!(notes.contains("torn last line"), "{notes}");
    assert!(notes.contains("the archive keeps it"), "{notes}");

    let compacted = std::fs::read_to_string(&output).unwrap();
    assert!(!compacted.contains(FRAGMENT));
    assert!(compacted.len() < original.len() - FRAGMENT.len());
    let checked = ctxc().arg("check").arg(&output).output().unwrap();
    assert_eq!(checked.status.code(), Some(0), "{}", stdout_of(&checked));

    let back = dir.path().join("back.jsonl");
    restore_to(&dir.path().join("out.ctxc-archive.json"), &back);
    let cmp = std::process::Command::new("cmp")
        .arg(&input)
        .arg(&back)
        .status()
        .unwrap();
    assert!(cmp.success(), "the restored file differs from the original");
    assert_eq!(std::fs::read(&back).unwrap(), original);
}

#[test]
fn without_an_archive_the_report_says_the_line_was_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = torn_session(dir.path());
    let output = dir.path().join("out.jsonl");
    let out = ctxc()
        .args(["compact", "--json", "--drop-torn-tail", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let file = &json_of(&out)["files"][0];
    let note = format!(
        "({} bytes, not valid JSON) dropped: not kept anywhere",
        FRAGMENT.len()
    );
    assert!(file["notes"].to_string().contains(&note), "{file}");
    // No trigger fired: the rest is the session as it was, up to its last newline.
    let session = std::fs::read(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    assert_eq!(std::fs::read(&output).unwrap(), session);
}

/// A bad line that ends with a newline, or one in the middle, is no torn write: an ordinary
/// syntax error, which --drop-torn-tail does not drop.
#[test]
fn other_bad_lines_stay_ordinary_errors() {
    let session =
        std::fs::read_to_string(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap();
    let last_line = lines_of(session.as_bytes());
    let (first, rest) = session.split_once('\n').unwrap();
    for (name, text, line) in [
        ("newline.jsonl", format!("{session}{FRAGMENT}\n"), last_line),
        ("middle.jsonl", format!("{first}\n{FRAGMENT}\n{rest}"), 2),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join(name);
        std::fs::write(&input, &text).unwrap();
        let checked = ctxc().arg("check").arg(&input).output().unwrap();
        let found = stdout_of(&checked);
        assert_eq!(checked.status.code(), Some(1), "{name}");
        assert!(
            found.contains(&format!(":{line}: invalid JSON")),
            "{name}: {found}"
        );
        assert!(!found.contains("torn"), "{name}: {found}");
        let out = ctxc()
            .args(["compact", "--drop-torn-tail", "-o"])
            .arg(dir.path().join("out.jsonl"))
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(stderr_of(&out).contains("invalid JSON"), "{name}");
        assert!(!dir.path().join("out.jsonl").exists(), "{name}");
    }
}

#[test]
fn usage_only_records_pass_through_byte_identical() {
    let input = fixture("claude-code/usage-only.jsonl");
    let checked = ctxc().arg("check").arg(&input).output().unwrap();
    assert_eq!(checked.status.code(), Some(0), "{}", stdout_of(&checked));
    let dir = tempfile::tempdir().unwrap();
    for (name, force) in [("plain.jsonl", &[][..]), ("forced.jsonl", &["--force"][..])] {
        let output = dir.path().join(name);
        let out = ctxc()
            .args(["compact", "--json"])
            .args(force)
            .arg("-o")
            .arg(&output)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        let file = &json_of(&out)["files"][0];
        assert_eq!(file["format"], "claude-code");
        assert_eq!(file["status"], "unchanged");
        assert_eq!(
            std::fs::read(&output).unwrap(),
            std::fs::read(&input).unwrap()
        );
    }
}
