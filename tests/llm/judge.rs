//! `ctxc eval --judge` against the loopback server: the answering model is asked the probe
//! questions with the original and with the compacted context, the judge gets each question
//! with its reference answer and the answer given, the scores it wrote are the ones reported
//! (per dimension, compacted against the original), the cost is the usage the server
//! reported, a re-run reads every reply from the cache and sends nothing, and a judge reply
//! that holds no score is a reported skip, never a score.

use crate::PLANTED_OPENAI;
use crate::agent_run::agent_run_messages;
use crate::server::{Recorded, Reply, Server};
use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

const KEY: &str = "sk-test-SENTINEL-KEY-0123456789abcdef";

/// An OpenAI agent run: the task (with a secret in it), an early failing test, a decision,
/// 20 rounds of large reads, a last request. Truncation at 0.25 loses the early error.
fn agent_run() -> String {
    let task = format!(
        "Fix `parse_header` in /repo/http.py so headers over 8192 bytes are refused. Key: {PLANTED_OPENAI}"
    );
    serde_json::to_string_pretty(&agent_run_messages(&task)).unwrap()
}

/// The system and user messages of a Chat Completions or a Messages request.
fn messages(request: &Recorded) -> (String, String) {
    let body = request.json();
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    match body.get("system") {
        Some(system) => (text(system), text(&body["messages"][0]["content"])),
        None => (
            text(&body["messages"][0]["content"]),
            text(&body["messages"][1]["content"]),
        ),
    }
}

/// `lines` as a reply in the shape of the request's API.
fn in_shape(request: &Recorded, lines: &[String]) -> Reply {
    if request.path.ends_with("/messages") {
        Reply::anthropic(&lines.join("\n"))
    } else {
        Reply::openai(&lines.join("\n"))
    }
}

fn is_judging(request: &Recorded) -> bool {
    messages(request).0.contains("You grade answers")
}

/// Answers every question; an answer says which context it came from (the original holds
/// the early error, the compacted one does not).
fn answer(request: &Recorded) -> Reply {
    let user = messages(request).1;
    let questions = user.split("Questions:\n").nth(1).unwrap_or("");
    let from = if user.contains("AssertionError: 413") {
        "ORIGINAL"
    } else {
        "COMPACTED"
    };
    let lines: Vec<String> = questions
        .lines()
        .take_while(|l| !l.is_empty())
        .enumerate()
        .map(|(n, _)| format!("{}. {from} answer", n + 1))
        .collect();
    in_shape(request, &lines)
}

/// Scores every answer: 5s for answers from the original, 2s for the others.
fn score(request: &Recorded) -> Reply {
    let user = messages(request).1;
    let lines: Vec<String> = user
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Answer to grade: "))
        .enumerate()
        .map(|(n, a)| {
            let s = if a.contains("ORIGINAL") { 5 } else { 2 };
            format!("{}: {s} {s} {s} {s} {s} {s}", n + 1)
        })
        .collect();
    in_shape(request, &lines)
}

fn eval(server: &Server, dir: &Path, extra: &[&str]) -> std::process::Output {
    eval_with(server, dir, "openai", extra)
}

fn eval_with(server: &Server, dir: &Path, provider: &str, extra: &[&str]) -> std::process::Output {
    eval_command(server, dir, provider)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap()
}

/// `ctxc eval` of the agent run (written into `dir` the first time) with `provider` judging
/// against `server`.
fn eval_command(server: &Server, dir: &Path, provider: &str) -> Command {
    let input = dir.join("run.json");
    if !input.exists() {
        std::fs::write(&input, agent_run()).unwrap();
    }
    let mut command = Command::cargo_bin("ctxc").unwrap();
    command
        .current_dir(dir)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env("CTXC_API_KEY", KEY)
        .args([
            "eval",
            "run.json",
            "--strategy",
            "truncate",
            "--target-ratio",
            "0.25",
        ])
        .args(["--judge", provider, "--judge-model", "tiny"])
        .args(["--judge-base-url", &server.base_url()]);
    command
}

use crate::process::stderr_of as stderr;

#[test]
fn answers_are_judged_per_dimension_costed_and_cached() {
    let server = Server::start(|_, r| if is_judging(r) { score(r) } else { answer(r) });
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cache_arg = cache.to_str().unwrap();
    let out = eval(&server, dir.path(), &["--judge-cache", cache_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("will be sent to {}", server.base_url())),
        "{}",
        stderr(&out)
    );
    let requests = server.take();
    // The original answers and is judged once, the compacted context once per run.
    assert_eq!(requests.len(), 4);
    let (answering, judging): (Vec<&Recorded>, Vec<&Recorded>) =
        requests.iter().partition(|r| !is_judging(r));
    assert_eq!((answering.len(), judging.len()), (2, 2));
    for r in &requests {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.json()["model"], "tiny");
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert!(
            !r.body.contains(KEY) && !r.body.contains(PLANTED_OPENAI),
            "a secret was sent"
        );
    }
    // Twelve questions, three of each category, with the whole original and the compacted
    // context (the truncated one without the early error).
    let users: Vec<String> = answering.iter().map(|r| messages(r).1).collect();
    let original = users
        .iter()
        .find(|u| u.contains("AssertionError: 413"))
        .unwrap();
    let compacted = users
        .iter()
        .find(|u| !u.contains("AssertionError: 413"))
        .unwrap();
    for user in [original, compacted] {
        assert!(
            user.contains("What task did the user set at the start?"),
            "{user}"
        );
        assert!(user.contains("12. "), "{user}");
        assert!(!user.contains("13. "), "{user}");
    }
    assert!(original.contains("/repo/lib/part_00.py"));
    assert!(compacted.len() < original.len());
    // The judge sees each question, what the original says answers it, and the answer.
    let judged = messages(judging[0]).1;
    assert_eq!(judged.matches("Reference answer: ").count(), 12, "{judged}");
    assert!(judged.contains("Reference answer: `/repo/"), "{judged}");
    assert!(judged.contains("last read"), "{judged}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let judge = &report["judge"];
    assert_eq!(judge["model"], "tiny");
    assert_eq!(judge["calls"], 4);
    assert_eq!(judge["promptTokens"], 4 * 120);
    assert_eq!(judge["completionTokens"], 4 * 30);
    assert_eq!(judge["cachedReplies"], 0);
    let scores = &report["runs"][0]["judge"];
    assert_eq!(scores["original"]["answers"], 12);
    assert_eq!(scores["original"]["accuracy"], 60);
    assert_eq!(scores["original"]["instructionFollowing"], 60);
    assert_eq!(scores["compacted"]["answers"], 12);
    assert_eq!(scores["compacted"]["artifactTrail"], 24);
    assert_eq!(scores["skipped"], 0);
    assert_eq!(report["runs"][0]["files"][0]["judge"], *scores);

    // Again: every reply from the cache, nothing sent, nothing spent, the same scores.
    let again = eval(&server, dir.path(), &["--judge-cache", cache_arg]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(server.take().len(), 0, "a cached run sends nothing");
    let second: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(second["judge"]["calls"], 0);
    assert_eq!(second["judge"]["promptTokens"], 0);
    assert_eq!(second["judge"]["cachedReplies"], 4);
    assert_eq!(second["runs"][0]["judge"], *scores);

    // The table gives the means per dimension, compacted / original, and the cost.
    let table = eval_command(&server, dir.path(), "openai")
        .args(["--judge-cache", cache_arg])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    // The judge's own table follows its heading (the probe-kind table above also has
    // rows per run).
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("Judge "))
        .find(|l| l.starts_with("truncate"))
        .unwrap_or_else(|| panic!("no judge row:\n{text}"));
    assert!(row.contains("2.00 / 5.00"), "{row}");
    assert!(text.contains("artifact trail"), "{text}");
    assert!(text.contains("4 reply(ies) from the cache"), "{text}");
}

#[test]
fn a_reply_without_scores_is_a_reported_skip_not_a_score() {
    let server = Server::start(|_, r| {
        if is_judging(r) {
            Reply::openai("These answers all look good to me!")
        } else {
            answer(r)
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = eval(&server, dir.path(), &["--no-judge-cache"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("run.json: judge, original: unusable reply: no line of 6 integer scores"),
        "{err}"
    );
    assert!(err.contains("run.json: judge, compacted:"), "{err}");
    // Each judging request was asked again once, then given up.
    let requests = server.take();
    assert_eq!(requests.iter().filter(|r| is_judging(r)).count(), 4);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let scores = &report["runs"][0]["judge"];
    assert_eq!(scores["original"]["answers"], 0);
    assert_eq!(scores["compacted"]["answers"], 0);
    assert_eq!(scores["skipped"], 24);
    assert_eq!(report["judge"]["calls"], 6);
    // The probes are still checked.
    assert!(report["runs"][0]["probes"]["artifact"][1].as_u64().unwrap() > 0);
}

#[test]
fn the_anthropic_judge_speaks_messages_and_books_its_usage() {
    let server = Server::start(|_, r| if is_judging(r) { score(r) } else { answer(r) });
    let dir = tempfile::tempdir().unwrap();
    let out = eval_with(&server, dir.path(), "anthropic", &["--no-judge-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.take();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_eq!(r.path, "/v1/messages");
        assert_eq!(r.header("x-api-key"), Some(KEY));
        assert!(r.header("anthropic-version").is_some());
        assert_eq!(r.json()["model"], "tiny");
    }
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["judge"]["provider"], "anthropic");
    assert_eq!(report["judge"]["promptTokens"], 4 * 200);
    assert_eq!(report["judge"]["completionTokens"], 4 * 40);
    assert!(report["judge"].get("cache").is_none());
    let scores = &report["runs"][0]["judge"];
    assert_eq!(scores["original"]["continuity"], 60);
    assert_eq!(scores["compacted"]["continuity"], 24);
}
