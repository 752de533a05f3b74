//! `ctxc check` on the corpus, on broken fixtures and on malformed input.

use crate::{ctxc, fixture, shared, stdout_of};

#[test]
fn every_supported_corpus_folder_is_valid() {
    // claude-code-log's edge_cases.jsonl is damaged on purpose (misspelt keys, stray lines);
    // its findings are the only ones expected.
    let edge_cases = "claude-code/claude-code-log/edge_cases.jsonl";
    for dir in [
        "claude-code",
        "codex-rollout",
        "openai-chat",
        "swe-agent",
        "sharegpt",
        "openhands",
    ] {
        let out = ctxc()
            .arg("check")
            .arg(shared(&format!("corpus/{dir}")))
            .output()
            .unwrap();
        let text = stdout_of(&out);
        let unexpected: Vec<&str> = text.lines().filter(|l| !l.contains(edge_cases)).collect();
        assert!(unexpected.is_empty(), "{dir}: {text}");
        let expected_status = if dir == "claude-code" { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(expected_status), "{dir}: {text}");
    }
}

#[test]
fn broken_fixtures_give_their_finding_and_exit_1() {
    let cases = [
        (
            "openai-orphan-result.json",
            ":4: tool result for call 'call_missing' has no earlier tool call",
        ),
        (
            "openai-unanswered-call.json",
            ":3: tool call 'call_1' (read_file) is never answered, yet the conversation goes on",
        ),
        (
            "openai-role-order.json",
            ":3: a tool message must follow an assistant message with tool_calls",
        ),
        (
            "openai-truncated.jsonl",
            ":3: torn last line (no newline, not valid JSON): EOF while parsing a string (byte 116)",
        ),
        (
            "claude-code-repeated-uuid.jsonl",
            ":27: uuid '8565db80-925a-45e5-8912-159a151b6d24' appears again (first at line 5): the chain cannot be followed",
        ),
    ];
    for (file, expected) in cases {
        let path = fixture(&format!("broken/{file}"));
        let out = ctxc().arg("check").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{file}");
        let text = stdout_of(&out);
        let want = format!("{}{expected}", path.display());
        assert!(
            text.lines().any(|l| l == want),
            "{file}: expected {want:?} in\n{text}"
        );
    }
}

#[test]
fn one_bad_file_does_not_hide_the_others() {
    let out = ctxc()
        .arg("check")
        .arg("--json")
        .arg(fixture("broken/openai-truncated.jsonl"))
        .arg(shared("corpus/swe-agent/ctf__crypto__katy.traj"))
        .arg("no/such/file.json")
        .output()
        .unwrap();
    // A path that cannot be opened is an I/O error: 2, as ripgrep's.
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["totals"]["files"], 2);
    assert_eq!(report["totals"]["valid"], 1);
    assert_eq!(report["totals"]["unreadable"], 1);
    let files = report["files"].as_array().unwrap();
    let katy = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("katy.traj"))
        .unwrap();
    assert_eq!(katy["format"], "openai");
    assert_eq!(katy["valid"], true);
    let missing = files
        .iter()
        .find(|f| f["path"] == "no/such/file.json")
        .unwrap();
    assert_eq!(
        missing["findings"][0]["message"],
        "no such file or directory"
    );
}

#[test]
fn every_jsontestsuite_case_is_parsed_or_rejected_without_a_panic() {
    let dir = shared("jsontestsuite/test_parsing");
    let count = std::fs::read_dir(&dir).unwrap().count();
    assert!(count > 300, "JSONTestSuite not found at {}", dir.display());
    let out = ctxc()
        .args(["check", "--glob", "*"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // None of these is a transcript, so each must be named with a finding.
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(text.contains(&format!("/{name}")), "{name} has no finding");
    }
}

/// Writes `content` to a temp file and runs `ctxc check` on it.
fn check_bytes(name: &str, content: &[u8]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    let out = ctxc().args(["check", "-q"]).arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), stdout_of(&out))
}

#[test]
fn malformed_inputs_get_clear_errors() {
    let deep = format!("{}{}", "[".repeat(30_000), "]".repeat(30_000));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.json", b"".to_vec(), "empty file"),
        (
            "bad-utf8.jsonl",
            b"{\"role\": \"user\", \"content\": \"\xc3\x28\"}\n".to_vec(),
            ":1: invalid UTF-8 at byte 29",
        ),
        (
            "deep.json",
            deep.into_bytes(),
            "deep.json: cannot tell the format: the file is an array nested 30000 levels deep",
        ),
    ];
    for (name, content, want) in cases {
        let (code, text) = check_bytes(name, &content);
        assert_eq!(code, Some(1), "{name}: {text}");
        assert!(text.contains(want), "{name}: expected {want:?} in {text}");
    }
}

/// Valid JSON that serde_json refuses to build a value from, in content ctxc reads: the file
/// is read (U+FFFD counted in its place), not refused.
#[test]
fn hostile_values_in_content_are_read() {
    let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    let cases: Vec<(&str, String)> = vec![
        (
            "surrogate.jsonl",
            "{\"role\": \"user\", \"content\": \"\\ud800\"}\n".into(),
        ),
        (
            "huge.jsonl",
            "{\"role\": \"user\", \"content\": \"hi\", \"n\": 1e400}\n".into(),
        ),
        (
            "deep.json",
            format!("[{{\"role\": \"user\", \"content\": {deep}}}]"),
        ),
    ];
    for (name, content) in cases {
        let (code, text) = check_bytes(name, content.as_bytes());
        assert_eq!(code, Some(0), "{name}: {text}");
    }
}

#[test]
fn a_bom_is_tolerated() {
    let (code, text) = check_bytes(
        "bom.json",
        "\u{feff}[{\"role\": \"user\", \"content\": \"hi\"}]".as_bytes(),
    );
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn a_directory_given_as_a_file_and_a_100_mb_line_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let empty_dir = dir.path().join("empty");
    std::fs::create_dir(&empty_dir).unwrap();
    let big = dir.path().join("big.jsonl");
    let blob = "A".repeat(100 * 1024 * 1024);
    std::fs::write(
        &big,
        format!("{{\"role\": \"user\", \"content\": \"{blob}\"}}\n"),
    )
    .unwrap();
    let out = ctxc()
        .args(["check", "-q"])
        .arg(&empty_dir)
        .arg(&big)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    assert!(text.contains("no files matching"), "{text}");
    assert!(!text.contains("big.jsonl"), "the big file is valid: {text}");
}

#[test]
fn parent_uuid_cycles_and_self_loops_are_findings() {
    let record = |uuid: &str, parent: &str| {
        format!(
            r#"{{"type":"user","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","message":{{"role":"user","content":"m"}}}}"#
        )
    };
    let text = [
        record("a", "null"),
        record("b", "\"b\""),
        record("c", "\"e\""),
        record("d", "\"c\""),
        record("e", "\"d\""),
    ]
    .join("\n");
    let (code, out) = check_bytes("loops.jsonl", text.as_bytes());
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("loops.jsonl:2: parentUuid of 'b' names the record itself"),
        "{out}"
    );
    assert!(
        out.contains(
            "loops.jsonl:3: parentUuid chain loops: 'c' is its own ancestor through 3 records"
        ),
        "{out}"
    );
}

/// Real Claude Code files of other shapes: an export whose records carry no uuid/parentUuid,
/// minimal `{type, message}` records, usage-only records.
#[test]
fn other_claude_code_shapes_are_read() {
    let minimal = concat!(
        r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"usage":{"input_tokens":5,"output_tokens":2}}}"#,
        "\n"
    );
    let export = r#"{"loglines": [
  {"type": "user", "message": {"role": "user", "content": "hi"}},
  {"type": "assistant", "message": {"role": "assistant", "content": "ok", "usage": {"input_tokens": 3, "output_tokens": 1}}}
]}"#;
    for (name, text) in [("minimal.jsonl", minimal), ("export.json", export)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = ctxc()
            .args(["stats", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["files"][0]["format"], "claude-code", "{name}");
    }
}

#[test]
fn a_one_line_object_is_described_as_one() {
    let (code, out) = check_bytes("m.json", br#"{"messages": []}"#);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("m.json: cannot tell the format: the file is an object with keys [messages]"),
        "{out}"
    );
}

/// Content serde_json refuses passes through byte for byte: a compacted copy of an untouched
/// file is identical, and one compacted with --force keeps the hostile record as it was.
#[test]
fn hostile_values_pass_through_byte_for_byte() {
    let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    let hostile =
        format!(r#"{{"role": "user", "content": "odd \ud800 text", "n": 1e400, "extra": {deep}}}"#);
    let mut lines = vec![
        r#"{"role": "system", "content": "sys"}"#.to_string(),
        hostile.clone(),
    ];
    for i in 0..30 {
        lines.push(format!(
            r#"{{"role": "assistant", "content": "answer {i}"}}"#
        ));
        lines.push(format!(r#"{{"role": "user", "content": "question {i}"}}"#));
    }
    let text = lines.join("\n") + "\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.jsonl");
    std::fs::write(&path, &text).unwrap();
    let same = ctxc()
        .args(["compact", "-q", "-o", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert_eq!(stdout_of(&same), text);
    let forced = ctxc()
        .args(["compact", "-q", "--force", "-o", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        forced.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    let out = stdout_of(&forced);
    assert!(out.len() < text.len() && out.contains(&hostile), "{out}");
}

/// A device never ends and a file over --max-input-bytes is refused without being read, each
/// with its own error; the other inputs are still checked. (Before, `check /dev/zero` read
/// until memory ran out: 18 GB in 21 s.)
#[test]
fn devices_and_files_over_the_limit_are_refused_and_the_others_checked() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jsonl");
    std::fs::copy(fixture("codex/session.jsonl"), &big).unwrap();
    let size = std::fs::metadata(&big).unwrap().len();
    assert!(size > 2048);
    let out = ctxc()
        .args(["check", "--max-input-bytes", "2K", "/dev/zero"])
        .arg(&big)
        .arg(fixture("anthropic/request.json"))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    assert!(
        text.contains("/dev/zero: is a character device, not a transcript file"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "big.jsonl: larger than --max-input-bytes (2048 bytes): {size} bytes, not read"
        )),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("checked 3 files: 1 valid, 2 with findings"),
        "{stderr}"
    );
}

/// Standard input and a named pipe given on the command line are read, up to the limit.
#[test]
fn standard_input_and_named_pipes_are_read_up_to_the_limit() {
    let session = std::fs::read(fixture("codex/session.jsonl")).unwrap();
    let over = ctxc()
        .args(["check", "--max-input-bytes", "1K", "-"])
        .write_stdin(session.clone())
        .output()
        .unwrap();
    assert_eq!(over.status.code(), Some(1));
    assert!(
        stdout_of(&over)
            .contains("<stdin>: larger than --max-input-bytes (1024 bytes): the rest was not read"),
        "{}",
        stdout_of(&over)
    );
    let within = ctxc()
        .args(["check", "--max-input-bytes", "1M", "-"])
        .write_stdin(session.clone())
        .output()
        .unwrap();
    assert_eq!(within.status.code(), Some(0), "{}", stdout_of(&within));

    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("session.pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::write(pipe, session))
    };
    let out = ctxc().arg("check").arg(&pipe).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
    writer.join().unwrap().unwrap();
}

/// A file of NULs (what a crash can leave) is refused at its first byte, after reading a
/// mebibyte of it, by `check`, `repair`, `stats` and in-place runs alike: exit 1, the byte
/// named, the file left as it was, no panic.
#[test]
fn a_file_of_nuls_is_refused_at_its_first_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zeros.jsonl");
    std::fs::write(&path, vec![0u8; 4 << 20]).unwrap();
    let want = "invalid JSON at byte 0: a NUL byte (0x00) cannot start a JSON value";
    let in_place: &[&str] = &["repair", "--in-place"];
    let compact_in_place: &[&str] = &["compact", "--in-place", "--force"];
    for args in [
        &["check"][..],
        &["repair", "-o", "out.jsonl"],
        &["stats"],
        in_place,
        compact_in_place,
    ] {
        let out = ctxc()
            .current_dir(dir.path())
            .args(args)
            .arg("zeros.jsonl")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let said = format!(
            "{}{}",
            stdout_of(&out),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            said.contains(want) && said.contains("zeros.jsonl"),
            "{args:?}: {said}"
        );
        assert!(!said.contains("panicked"), "{said}");
    }
    assert!(!dir.path().join("out.jsonl").exists());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        vec![0u8; 4 << 20],
        "left as it was"
    );
}

/// A file name holding a newline cannot forge a line of ctxc's output: every path printed
/// (findings, errors, restore's messages) has its control characters escaped.
#[test]
fn control_characters_in_file_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let name = "s\nctxc: checked 9 files: 9 valid\x1b[2K.jsonl";
    std::fs::write(dir.path().join(name), "{\"broken\": \n").unwrap();
    let shown = r"s\nctxc: checked 9 files: 9 valid\u{1b}[2K.jsonl";
    let run = |args: &[&str]| {
        let out = ctxc().current_dir(dir.path()).args(args).output().unwrap();
        format!(
            "{}{}",
            stdout_of(&out),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    for said in [
        run(&["check", name]),
        run(&["check", "."]),
        run(&["restore", name]),
    ] {
        assert!(said.contains(shown), "{said}");
        assert!(
            !said.lines().any(|l| l.starts_with("ctxc: checked 9 files")),
            "a forged line: {said}"
        );
        assert!(!said.contains('\x1b'), "{said:?}");
    }
}
