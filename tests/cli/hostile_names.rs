//! A file name holding a newline and a terminal escape (issue 39, item 11) through every
//! command that names files: `stats`, `check`, `compact`, `repair`, `convert`, and their
//! errors. Whatever they print, on standard output or error, shows the name escaped: it never
//! starts a line of its own, and never sends the escape to the terminal.

use crate::damage::{Damage, damage};
use crate::{ctxc, fixture, shared};
use std::path::Path;

/// The name: its second line would read as ctxc's own, its escape would clear the line.
const NAME: &str = "s\nctxc: all good\x1b[2K.jsonl";
/// How ctxc prints [`NAME`].
const SHOWN: &str = r"s\nctxc: all good\u{1b}[2K.jsonl";
/// How ctxc prints the stem of [`NAME`] (outputs beside it keep it).
const STEM_SHOWN: &str = r"s\nctxc: all good\u{1b}[2K";

/// A real Claude Code session.
fn session() -> String {
    std::fs::read_to_string(shared("corpus/claude-code/spotter/tool_heavy.jsonl")).unwrap()
}

/// `ctxc ARGS` in `dir`: its exit code, and its standard output and error together.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = ctxc().current_dir(dir).args(args).output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), said)
}

/// `said` names `shown` and holds no line forged by a name, and no escape.
fn assert_escaped(said: &str, shown: &str) {
    assert!(said.contains(shown), "{shown} not in: {said}");
    assert!(
        !said.lines().any(|l| l.starts_with("ctxc: all good")),
        "a forged line: {said}"
    );
    assert!(!said.contains('\x1b'), "an escape sent: {said:?}");
}

/// A valid session under the name: each command's report and messages name it escaped, and
/// so do the outputs written beside it.
#[test]
fn a_hostile_file_name_is_escaped_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(NAME), session()).unwrap();
    // (`check` names only files with findings: the other tests give it some.)
    for args in [&["stats", NAME][..], &["stats", "."]] {
        let (code, said) = run(d, args);
        assert_eq!(code, Some(0), "{args:?}: {said}");
        assert_escaped(&said, SHOWN);
    }
    // Compacted beside itself: the log line and the output's name.
    let compact = ["compact", "-v", "--force", "--target-ratio", "0.5", NAME];
    let (code, said) = run(d, &compact);
    assert_eq!(code, Some(0), "{said}");
    assert_escaped(&said, SHOWN);
    // Again, onto an output that differs: the refusal names the output.
    let output = format!("{}.compact.jsonl", NAME.strip_suffix(".jsonl").unwrap());
    std::fs::write(d.join(&output), "{}\n").unwrap();
    let (code, said) = run(d, &compact);
    assert_eq!(code, Some(1), "{said}");
    assert_escaped(&said, &format!("{STEM_SHOWN}.compact.jsonl"));
    // An ATIF trajectory under such a name, converted beside itself: "NAME: 1 conversation
    // → NAME.openai.json".
    let atif = "s\nctxc: all good\x1b[2K.json";
    std::fs::copy(fixture("atif/rfc-example.json"), d.join(atif)).unwrap();
    let convert = ["convert", "--to", "openai", atif];
    let (code, said) = run(d, &convert);
    assert_eq!(code, Some(0), "{said}");
    assert_escaped(&said, &format!("{STEM_SHOWN}.openai.json"));
    // Again: the output is there, and the refusal names it.
    let (code, said) = run(d, &convert);
    assert_eq!(code, Some(1), "{said}");
    assert_escaped(&said, &format!("{STEM_SHOWN}.openai.json"));
}

/// A damaged session under the name: `repair`'s table names its output escaped.
#[test]
fn repair_names_a_hostile_input_and_its_output_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (damaged, _) = damage(&session(), Damage::DeleteToolResult);
    std::fs::write(d.join(NAME), damaged).unwrap();
    let (code, said) = run(d, &["check", NAME]);
    assert_eq!(code, Some(1), "{said}");
    assert_escaped(&said, SHOWN);
    let (code, said) = run(d, &["repair", NAME]);
    assert_eq!(code, Some(0), "{said}");
    assert_escaped(&said, &format!("{STEM_SHOWN}.repaired.jsonl"));
}

/// Errors name the hostile path escaped: a broken file, a missing one, an `--out-dir` that
/// is a file, a settings file that does not parse.
#[test]
fn errors_name_a_hostile_path_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(NAME), "{\"broken\": \n").unwrap();
    for args in [
        &["stats", NAME][..],
        &["check", NAME],
        &["compact", "--force", NAME],
        &["repair", NAME],
        &["convert", "--to", "atif", NAME],
    ] {
        let (code, said) = run(d, args);
        assert_ne!(code, Some(0), "{args:?}: {said}");
        assert_escaped(&said, SHOWN);
    }
    let missing = "gone\nctxc: all good\x1b[2K.jsonl";
    let (code, said) = run(d, &["stats", missing]);
    assert_eq!(code, Some(2), "{said}");
    assert_escaped(&said, r"gone\nctxc: all good\u{1b}[2K.jsonl");

    std::fs::write(d.join("ok.jsonl"), session()).unwrap();
    let (code, said) = run(d, &["compact", "--force", "--out-dir", NAME, "ok.jsonl"]);
    assert_ne!(code, Some(0), "{said}");
    assert_escaped(&said, SHOWN);

    let settings = "c\nctxc: all good\x1b[2K.yaml";
    std::fs::write(d.join(settings), "tokens: [\n").unwrap();
    let (code, said) = run(d, &["compact", "--config", settings, "ok.jsonl"]);
    assert_ne!(code, Some(0), "{said}");
    assert_escaped(&said, r"c\nctxc: all good\u{1b}[2K.yaml");
}

/// An in-place run resumed from its manifest knows a file with such a name as finished: the
/// manifest names inputs as reports do (escaped), and is matched against the same.
#[test]
fn a_resumed_in_place_run_finds_a_hostile_name_finished() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(NAME), session()).unwrap();
    let in_place = [
        "compact",
        "-v",
        "--force",
        "--target-ratio",
        "0.5",
        "--in-place",
        "--resume-from",
        "manifest.jsonl",
        NAME,
    ];
    let (code, said) = run(d, &in_place);
    assert_eq!(code, Some(0), "{said}");
    let compacted = std::fs::read(d.join(NAME)).unwrap();
    let (code, said) = run(d, &in_place);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("finished by an earlier run"), "{said}");
    assert_escaped(&said, SHOWN);
    assert_eq!(std::fs::read(d.join(NAME)).unwrap(), compacted);
}
