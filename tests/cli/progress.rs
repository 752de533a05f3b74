//! The progress bar a terminal sees on stderr: files done, the rate (megabytes and files per
//! second) and an ETA. The command runs under `script`, which gives it a pseudo-terminal.

use crate::shared;

/// What a terminal shows while `ctxc ARGS` runs (its stdout sent to /dev/null), or `None`
/// when `script` is not installed.
fn on_a_terminal(args: &str) -> Option<String> {
    crate::on_a_terminal(&format!("\"$CTXC\" {args} >/dev/null"), None)
}

#[test]
fn progress_on_a_terminal_shows_a_rate_and_an_eta() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "tool_heavy.jsonl",
        "short.jsonl",
        "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
    ] {
        let from = shared(&format!("corpus/claude-code/spotter/{name}"));
        std::fs::copy(from, dir.path().join(name)).unwrap();
    }
    let d = dir.path().display();
    let Some(shown) = on_a_terminal(&format!("compact --force --dry-run --json {d}")) else {
        return;
    };
    assert!(shown.contains("/3 files"), "{shown}");
    for part in [" MB, ", " MB/s, ", " files/s, ETA "] {
        assert!(shown.contains(part), "no {part:?} in {shown}");
    }
    let shown = on_a_terminal(&format!("stats --json {d}")).unwrap();
    assert!(shown.contains("/3 files"), "{shown}");
    assert!(shown.contains(" files/s, ETA "), "{shown}");
}
