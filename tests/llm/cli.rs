//! The real binary with `--summarizer openai` against the loopback server: the summary the
//! model wrote lands in the output, the announcement comes first on stderr, the key travels
//! only in the Authorization header (never in argv, the report or logs), and usage is reported.

use crate::server::{Reply, Server};
use crate::{PLANTED_AWS, PLANTED_OPENAI};
use assert_cmd::Command;

const KEY: &str = "sk-test-SENTINEL-KEY-0123456789abcdef";

/// A task, three tool rounds holding secrets, then the current turn.
fn session() -> String {
    let mut messages = vec![
        serde_json::json!({"role": "system", "content": "You are a coding agent."}),
        serde_json::json!({"role": "user", "content": "Fix the failing test in src/lib.rs."}),
    ];
    for (i, output) in [
        format!("config: OPENAI_API_KEY={PLANTED_OPENAI}"),
        format!("aws_access_key_id = {PLANTED_AWS}"),
        "error[E0425]: cannot find value `x` in src/lib.rs".to_string(),
    ]
    .iter()
    .enumerate()
    {
        messages.push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("c{i}"), "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cat config && cargo test\"}"}}]}));
        messages.push(
            serde_json::json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": output}),
        );
    }
    messages
        .push(serde_json::json!({"role": "assistant", "content": "Fixed the typo in src/lib.rs."}));
    messages.push(
        serde_json::json!({"role": "user", "content": "Thanks, now run the tests once more."}),
    );
    messages.push(serde_json::json!({"role": "assistant", "content": "All tests pass."}));
    serde_json::to_string_pretty(&messages).unwrap()
}

fn compact(server: &Server, dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let input = dir.join("session.json");
    std::fs::write(&input, session()).unwrap();
    let mut cmd = Command::cargo_bin("ctxc").unwrap();
    cmd.env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env("CTXC_API_KEY", KEY)
        .env("XDG_CONFIG_HOME", dir.join("no-config"))
        .args([
            "compact",
            "--force",
            "--strategy",
            "full-summary",
            "--json",
            "-vv",
        ])
        .args(["--summarizer", "openai", "--summary-model", "tiny"])
        .args(["--base-url", &server.base_url()])
        .args(extra)
        .arg(&input);
    cmd.output().unwrap()
}

#[test]
fn the_model_writes_the_summary_and_the_key_stays_in_its_header() {
    let server = Server::start(|_, _| {
        Reply::openai("<summary>The user wants src/lib.rs fixed; done.</summary>")
    });
    let dir = tempfile::tempdir().unwrap();
    let out = compact(&server, dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let output = std::fs::read_to_string(dir.path().join("session.compact.json")).unwrap();
    assert!(
        output.contains("The user wants src/lib.rs fixed; done."),
        "{output}"
    );
    assert!(
        stderr.starts_with("ctxc: remote summarization: spans from 1 file"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(report["summarizer"], "openai");
    assert_eq!(file["llmCalls"], 1);
    assert_eq!(file["llmPromptTokens"], 120);
    assert_eq!(file["llmCompletionTokens"], 30);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    for text in [
        requests[0].body.as_str(),
        &stderr,
        &String::from_utf8_lossy(&out.stdout),
    ] {
        assert!(!text.contains(KEY), "the key leaked");
        assert!(
            !text.contains(PLANTED_OPENAI) && !text.contains(PLANTED_AWS),
            "a secret was sent"
        );
    }
}

#[test]
fn a_failing_endpoint_falls_back_to_extractive_and_says_so() {
    let server = Server::start(|_, _| {
        Reply::json(400, serde_json::json!({"error": {"message": "bad model"}}))
    });
    let dir = tempfile::tempdir().unwrap();
    let out = compact(&server, dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fallback = report["files"][0]["summaryFallbacks"][0].as_str().unwrap();
    assert!(
        fallback.contains("HTTP 400") && fallback.contains("used extractive"),
        "{fallback}"
    );
    assert!(report["totals"]["summarySuccessRate"].as_f64().unwrap() < 1.0);
    assert_eq!(server.requests().len(), 1, "400 is not retried");
    // With --on-summary-failure fail the file fails and nothing is written.
    let dir = tempfile::tempdir().unwrap();
    let out = compact(&server, dir.path(), &["--on-summary-failure", "fail"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!dir.path().join("session.compact.json").exists());
}

#[test]
fn a_dry_run_sends_nothing_and_says_what_it_would_send() {
    let server = Server::start(|_, _| Reply::openai("<summary>never asked</summary>"));
    let dir = tempfile::tempdir().unwrap();
    let out = compact(&server, dir.path(), &["--dry-run"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(server.requests().len(), 0, "a dry run made a request");
    assert!(
        stderr.contains("would be sent to") && stderr.contains("--dry-run sends nothing"),
        "{stderr}"
    );
    assert!(!dir.path().join("session.compact.json").exists());
}

#[test]
fn an_npm_token_is_not_sent() {
    const NPM: &str = "npm_PLANTEDabcdefghijklmnopqrstuvwxyz012";
    let server = Server::start(|_, _| Reply::openai("<summary>ok</summary>"));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("session.json");
    let text = session().replace(
        "cat config && cargo test",
        &format!("npm publish --token {NPM}"),
    );
    assert!(text.contains(NPM));
    std::fs::write(&input, text).unwrap();
    let out = Command::cargo_bin("ctxc")
        .unwrap()
        .env("CTXC_API_KEY", KEY)
        .env("XDG_CONFIG_HOME", dir.path().join("no-config"))
        .args(["compact", "-q", "--force", "--strategy", "full-summary"])
        .args(["--summarizer", "openai", "--summary-model", "tiny"])
        .args(["--base-url", &server.base_url(), "-o", "-"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = server.requests();
    assert!(!requests.is_empty());
    for r in requests {
        assert!(!r.body.contains(NPM), "the npm token was sent");
        assert!(r.body.contains("[REDACTED:npm-token]"), "{}", r.body);
    }
}

/// A summarizer that fails is said on stderr (even with -q) and in the table and markdown
/// reports, one line per cause over the whole run, not one per conversation.
#[test]
fn a_failing_summarizer_is_said_once_per_cause_on_stderr_and_in_the_report() {
    let server = Server::start(|_, _| {
        Reply::json(
            401,
            serde_json::json!({"error": {"message": "Incorrect API key provided"}}),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.json", "b.json"] {
        std::fs::write(dir.path().join(name), session()).unwrap();
    }
    let run = |extra: &[&str]| {
        let mut cmd = Command::cargo_bin("ctxc").unwrap();
        cmd.env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env("CTXC_API_KEY", KEY)
            .env("XDG_CONFIG_HOME", dir.path().join("no-config"))
            .args(["compact", "--force", "--force-overwrite"])
            .args(["--strategy", "full-summary"])
            .args(["--summarizer", "openai", "--summary-model", "tiny"])
            .args(["--base-url", &server.base_url()])
            .args(extra)
            .arg(dir.path().join("a.json"))
            .arg(dir.path().join("b.json"));
        cmd.output().unwrap()
    };
    let line = "summary requests failed (401 Unauthorized): extractive used for 2 conversations";
    for extra in [&[][..], &["-q"], &["--markdown"]] {
        let out = run(extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {stderr}");
        let said: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("summary requests failed"))
            .collect();
        assert_eq!(said, [format!("ctxc: {line}")], "{extra:?}: {stderr}");
        if extra == ["-q"] {
            assert_eq!(stdout, "", "-q prints no table");
        } else {
            assert!(
                stdout.lines().any(|l| l.contains(line)),
                "{extra:?}: {stdout}"
            );
        }
        assert!(
            !stderr.contains(KEY) && !stdout.contains(KEY),
            "the key leaked"
        );
    }
}
