//! Codex CLI: a Codex rollout and its ctxc outputs resumed with `codex exec resume`.
//!
//! The corpus holds no full Codex session (only single-record samples), so the rollout is made
//! from a real Claude Code session of the corpus: every prompt, answer, thinking block, tool
//! call and tool output becomes the Codex record that carries it, in the rollout format Codex
//! CLI writes (session_meta, turn_context, response_item, event_msg user_message).

use crate::standin::{COMPACTION, StandIn};
use crate::{
    PROMPT, Problems, RATIOS, STRATEGIES, Sandbox, assert_all_resumed, clients, compact, corpus,
    log_run, resume_every_output, rewrite_cwd, run_client, scrubbed, size, size_matches,
};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

const SOURCE: &str = "claude-code/spotter/tool_heavy.jsonl";
const SESSION_ID: &str = "0199a000-0000-7000-8000-00000000e2e1";
const CWD: &str = "/home/marco/projects/spotter";

/// The rollout made from the Claude Code session at `SOURCE`.
pub fn rollout() -> String {
    let text = std::fs::read_to_string(corpus(SOURCE)).unwrap();
    let mut out = Vec::new();
    let mut started = None;
    let mut last_response = None;
    for line in text.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let (Some(ts), Some(kind)) = (r["timestamp"].as_str(), r["type"].as_str()) else {
            continue;
        };
        if r["isSidechain"] == true || !(kind == "user" || kind == "assistant") {
            continue;
        }
        let record =
            |payload: Value| json!({"timestamp": ts, "type": "response_item", "payload": payload});
        if started.is_none() {
            started = Some(ts.to_string());
            out.push(json!({"timestamp": ts, "type": "session_meta", "payload": {
                "id": SESSION_ID, "timestamp": ts, "cwd": CWD, "originator": "codex_cli_rs",
                "cli_version": "0.40.0", "source": "cli", "model_provider": "openai"}}));
        }
        let content = &r["message"]["content"];
        let blocks: Vec<Value> = match content {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(b) => b.clone(),
            _ => continue,
        };
        for b in blocks {
            match (kind, b["type"].as_str().unwrap_or_default()) {
                ("user", "text") => {
                    let t = b["text"].as_str().unwrap_or_default();
                    out.push(json!({"timestamp": ts, "type": "turn_context", "payload": {
                        "cwd": CWD, "approval_policy": "on-request",
                        "sandbox_policy": {"type": "workspace-write"},
                        "model": "gpt-5-codex", "summary": "auto"}}));
                    out.push(record(json!({"type": "message", "role": "user",
                        "content": [{"type": "input_text", "text": t}]})));
                    out.push(json!({"timestamp": ts, "type": "event_msg", "payload": {
                        "type": "user_message", "message": t, "images": []}}));
                }
                ("user", "tool_result") => {
                    let output = match &b["content"] {
                        Value::String(s) => s.clone(),
                        Value::Array(parts) => parts
                            .iter()
                            .filter_map(|p| p["text"].as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    };
                    out.push(record(json!({"type": "function_call_output",
                        "call_id": b["tool_use_id"], "output": output})));
                }
                ("assistant", "text") => {
                    out.push(record(json!({"type": "message",
                    "role": "assistant", "content": [{"type": "output_text", "text": b["text"]}]})))
                }
                ("assistant", "thinking") => out.push(record(json!({"type": "reasoning",
                    "summary": [{"type": "summary_text", "text": b["thinking"]}],
                    "content": null}))),
                ("assistant", "tool_use") => out.push(record(json!({"type": "function_call",
                    "name": b["name"], "arguments": b["input"].to_string(), "call_id": b["id"]}))),
                _ => {}
            }
        }
        let response = r["message"]["id"].as_str().map(str::to_string);
        let usage = &r["message"]["usage"];
        if kind == "assistant" && usage.is_object() && response != last_response {
            // Codex records the usage of each response; it decides on compaction from it.
            last_response = response;
            let input = [
                "input_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ]
            .iter()
            .filter_map(|k| usage[k].as_u64())
            .sum::<u64>();
            let output = usage["output_tokens"].as_u64().unwrap_or(0);
            let tokens = json!({"input_tokens": input, "cached_input_tokens": 0,
                "output_tokens": output, "reasoning_output_tokens": 0,
                "total_tokens": input + output});
            out.push(json!({"timestamp": ts, "type": "event_msg", "payload": {
                "type": "token_count", "info": {"total_token_usage": tokens,
                "last_token_usage": tokens, "model_context_window": 272000}}}));
        }
    }
    out.iter().map(|r| format!("{r}\n")).collect()
}

/// Places `text` as the rollout under a fresh CODEX_HOME, resumes it against the stand-in and
/// returns the request that carried the prompt.
pub fn resume(text: &str, standin: &StandIn) -> Value {
    resume_with(text, standin, &[])
}

/// Like [`resume`], with more `-c` settings. When Codex compacts before the turn, the request
/// returned is the compaction request (the one carrying the session's history), after checking
/// that the turn which followed was sent the stand-in's compaction item.
pub fn resume_with(text: &str, standin: &StandIn, settings: &[&str]) -> Value {
    resume_and_read(text, standin, settings).0
}

/// Like [`resume_with`], also returning the rollout as the client left it: Codex appends the
/// resumed turn to it, in the format it writes today.
pub fn resume_and_read(text: &str, standin: &StandIn, settings: &[&str]) -> (Value, String) {
    let sandbox = Sandbox::new();
    let cwd = sandbox.path("cwd");
    let home = sandbox.path("codex");
    let dir = sandbox.path("codex/sessions/2026/01/19");
    let file = dir.join(format!("rollout-2026-01-19T08-00-00-{SESSION_ID}.jsonl"));
    std::fs::write(&file, rewrite_cwd(text, CWD, &cwd)).unwrap();
    let mut cmd = scrubbed(&clients().unwrap().codex, &sandbox, standin);
    cmd.env("CODEX_HOME", &home)
        .env("CODEX_API_KEY", "sk-e2e-not-a-key")
        .args(["exec", "resume", "--skip-git-repo-check"])
        // Codex will not switch providers on resume: point the built-in one at the stand-in.
        .args(["-c", &format!("openai_base_url=\"{}/v1\"", standin.url())])
        // No update check, no curated-plugins sync from GitHub, no metrics to ab.chatgpt.com.
        .args(["-c", "check_for_update_on_startup=false"])
        .args([
            "-c",
            "features.plugins=false",
            "-c",
            "analytics.enabled=false",
        ])
        .args(settings.iter().flat_map(|s| ["-c", s]))
        .args([SESSION_ID, PROMPT]);
    let log = run_client(cmd, "codex exec resume");
    let written = std::fs::read_to_string(&file).unwrap();
    let requests = standin.take();
    crate::assert_hermetic(&requests, &log);
    for (i, r) in requests.iter().enumerate() {
        crate::dump(&format!("codex-{}-{i}", text.len()), &r.json());
    }
    let bodies: Vec<Value> = requests
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/responses"))
        .map(|r| r.json())
        .collect();
    let turn = bodies
        .iter()
        .rev()
        .find(|b| !is_compaction(b) && user_texts(b).last().is_some_and(|t| t == PROMPT));
    if let Some(compaction) = bodies.iter().find(|b| is_compaction(b)) {
        let compacted = turn.is_some_and(|t| {
            input(t)
                .iter()
                .any(|i| i["type"] == "compaction" && i["encrypted_content"] == COMPACTION)
        });
        assert!(
            compacted,
            "after compacting, codex did not send the turn with the compaction item\n{log}"
        );
        return (compaction.clone(), written);
    }
    let request = turn.cloned().unwrap_or_else(|| {
        let seen: Vec<_> = requests.iter().map(|r| (&r.method, &r.path)).collect();
        panic!("codex sent no resume request (saw {seen:?})\n{log}")
    });
    (request, written)
}

/// Codex's compaction request: a Responses request whose input ends with this trigger.
fn is_compaction(body: &Value) -> bool {
    input(body)
        .last()
        .is_some_and(|i| i["type"] == "compaction_trigger")
}

fn input(body: &Value) -> &Vec<Value> {
    body["input"]
        .as_array()
        .expect("a Responses request has input")
}

fn item_texts(item: &Value) -> Vec<String> {
    item["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|p| p["text"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn user_texts(body: &Value) -> Vec<String> {
    input(body)
        .iter()
        .filter(|i| i["type"] == "message" && i["role"] == "user")
        .flat_map(item_texts)
        .collect()
}

/// The items of a request that come from the session: no developer messages, tool lists,
/// injected context blocks or the prompt.
pub fn conversation(body: &Value) -> Vec<&Value> {
    input(body)
        .iter()
        .filter(|i| {
            let ty = i["type"].as_str().unwrap_or_default();
            if ty != "message" {
                return ty != "additional_tools";
            }
            let text = item_texts(i).join("");
            i["role"] != "developer" && !text.starts_with('<') && text != PROMPT
        })
        .collect()
}

/// The size of what a request carries from `session`: its conversation, and the developer and
/// context messages the rollout itself holds (Codex re-sends those of earlier turns, and ctxc
/// counts them like any preserved message); the fresh ones Codex adds for this turn are not.
fn session_size(body: &Value, session: &str) -> usize {
    let joined = |item: &Value| item_texts(item).join("");
    let held: HashSet<String> = session
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "response_item" && r["payload"]["type"] == "message")
        .map(|r| joined(&r["payload"]))
        .collect();
    let mut items = conversation(body);
    items.extend(input(body).iter().filter(|i| {
        let text = joined(i);
        i["type"] == "message"
            && (i["role"] == "developer" || text.starts_with('<'))
            && held.contains(&text)
    }));
    size(&items)
}

/// The title Codex lists a session under, asked of Codex itself: `thread/list` of its
/// app-server (JSON-RPC over stdio) on a CODEX_HOME holding only this rollout.
pub fn listed_title(text: &str, standin: &StandIn) -> String {
    let sandbox = Sandbox::new();
    let dir = sandbox.path("codex/sessions/2026/01/19");
    std::fs::write(
        dir.join(format!("rollout-2026-01-19T08-00-00-{SESSION_ID}.jsonl")),
        text,
    )
    .unwrap();
    let mut cmd = scrubbed(&clients().unwrap().codex, &sandbox, standin);
    cmd.env("CODEX_HOME", sandbox.path("codex"))
        .args([
            "app-server",
            "-c",
            "features.plugins=false",
            "-c",
            "analytics.enabled=false",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start codex app-server");
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"clientInfo": {"name": "ctxc-e2e", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "thread/list", "params": {}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    let listed = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
        .find(|m| m["id"] == 2);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let listed = listed.expect("codex app-server answered thread/list");
    let thread = &listed["result"]["data"][0];
    thread["name"]
        .as_str()
        .or(thread["preview"].as_str())
        .unwrap_or_else(|| panic!("thread/list listed no title: {listed}"))
        .to_string()
}

/// The first user_message event: where Codex takes a session's title from.
pub fn title(text: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["type"] == "event_msg" && r["payload"]["type"] == "user_message")
        .and_then(|r| r["payload"]["message"].as_str().map(str::to_string))
}

fn call_id(item: &Value) -> &str {
    item["call_id"].as_str().unwrap_or_default()
}

pub fn check(
    request: &Value,
    baseline: &Value,
    original: &str,
    output: &str,
    token_ratio: f64,
) -> (Problems, f64) {
    let mut p = Problems::default();
    let items = conversation(request);
    let all_text: Vec<String> = input(request).iter().flat_map(item_texts).collect();
    let carries = |needle: &str| all_text.iter().any(|t| t.contains(needle));

    let task = title(original).expect("the rollout has a user_message");
    p.check(carries(&task), || {
        format!("the original task {task:?} is not in the request")
    });
    for line in output.lines().filter(|l| l.contains("[ctxc summary]")) {
        let record: Value = serde_json::from_str(line).unwrap();
        for summary in item_texts(&record["payload"]) {
            p.check(carries(&summary), || {
                format!("the ctxc summary is not in the request: {summary:.80}…")
            });
        }
    }

    p.check(
        items
            .first()
            .is_some_and(|i| i["type"] == "message" && i["role"] == "user"),
        || "the conversation does not start with a user message".into(),
    );
    // Every call is answered before the next message, every output follows its call.
    let mut open: Vec<&str> = Vec::new();
    let mut called: HashSet<&str> = HashSet::new();
    for item in &items {
        match item["type"].as_str().unwrap_or_default() {
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                open.push(call_id(item));
                called.insert(call_id(item));
            }
            "function_call_output" | "custom_tool_call_output" => {
                let id = call_id(item);
                p.check(called.contains(id), || {
                    format!("output {id} does not follow its call")
                });
                open.retain(|o| *o != id);
            }
            "message" => {
                for id in open.drain(..) {
                    p.check(false, || {
                        format!("call {id} is not answered before the next message")
                    });
                }
            }
            _ => {}
        }
    }
    for id in open {
        p.check(false, || format!("call {id} is never answered"));
    }

    // Outputs the session holds: Codex fills a missing one with an "aborted" placeholder.
    let stored: HashSet<String> = output
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| {
            r["payload"]["type"]
                .as_str()
                .is_some_and(|t| t.ends_with("_output"))
        })
        .map(|r| call_id(&r["payload"]).to_string())
        .collect();
    for item in items
        .iter()
        .filter(|i| i["type"].as_str().is_some_and(|t| t.ends_with("_output")))
    {
        let id = call_id(item);
        p.check(stored.contains(id), || {
            format!("the output of call {id} is not in the session: the client made it up")
        });
    }

    let ratio = session_size(request, output) as f64 / session_size(baseline, original) as f64;
    size_matches(&mut p, ratio, token_ratio);
    (p, ratio)
}

#[test]
fn codex_resumes_every_output() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = work.path("in").join("rollout.jsonl");
    let original = rollout();
    std::fs::write(&source, &original).unwrap();
    let baseline = resume(&original, &standin);
    let (own, _) = check(&baseline, &baseline, &original, &original, 1.0);
    assert!(
        own.0.is_empty(),
        "the rollout itself does not resume cleanly: {own:?}"
    );
    let mut failures = Vec::new();
    let runs = resume_every_output(
        "codex",
        &source,
        &work.path("out"),
        (&original, &baseline),
        |text| resume(text, &standin),
        check,
        &mut failures,
    );
    assert_all_resumed(&failures, runs);
}

/// What Codex writes today reads in ctxc: the rollout after a real `codex exec resume`, with
/// the turn Codex appended in its own current format, passes `ctxc check`, compacts, and the
/// output resumes cleanly in turn.
#[test]
fn ctxc_reads_what_codex_appends() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let original = rollout();
    let (_, appended) = resume_and_read(&original, &standin, &[]);
    assert!(
        appended.lines().count() > original.lines().count()
            && appended.contains(crate::standin::ANSWER),
        "Codex appended no turn to the rollout"
    );
    crate::compact_and_resume_appended(
        "codex",
        &appended,
        "rollout.jsonl",
        |text| resume(text, &standin),
        check,
    );
}

/// Codex compacts a long session before the turn (here forced by a tiny limit): the history it
/// sends to be compacted is the ctxc output, well formed, and the turn goes on with the one
/// compaction item the stand-in returned.
#[test]
fn codex_compacts_an_output_before_the_turn() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = work.path("in").join("rollout.jsonl");
    let original = rollout();
    std::fs::write(&source, &original).unwrap();
    let tiny = ["model_auto_compact_token_limit=1000"];
    let baseline = resume_with(&original, &standin, &tiny);
    assert!(
        is_compaction(&baseline),
        "codex did not compact before the turn"
    );
    let c = compact(&source, &work.path("out"), "sliding-window", 0.5);
    let output = std::fs::read_to_string(&c.output).unwrap();
    let request = resume_with(&output, &standin, &tiny);
    assert!(
        is_compaction(&request),
        "codex did not compact before the turn"
    );
    let (problems, ratio) = check(&request, &baseline, &original, &output, c.token_ratio);
    log_run("codex pre-turn compaction", c.token_ratio, ratio, &problems);
    assert!(problems.0.is_empty(), "{problems:?}");
}

/// The title Codex lists (`thread/list` of its app-server) survives compaction: ctxc keeps
/// the first `user_message` event.
#[test]
fn codex_title_is_unchanged() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = work.path("in").join("rollout.jsonl");
    let original = rollout();
    std::fs::write(&source, &original).unwrap();
    let before = listed_title(&original, &standin);
    assert_eq!(
        Some(&before),
        title(&original).as_ref(),
        "Codex's title is not the first prompt"
    );
    let mut changed = Vec::new();
    for strategy in STRATEGIES {
        for ratio in RATIOS {
            let c = compact(&source, &work.path("out"), strategy, ratio);
            let after = listed_title(&std::fs::read_to_string(&c.output).unwrap(), &standin);
            if after != before {
                changed.push(format!("{}: {after:?}", c.label));
            }
        }
    }
    assert!(
        changed.is_empty(),
        "Codex lists the original as {before:?}; the title changed in:\n{}",
        changed.join("\n")
    );
}

/// The checks catch a broken output: one function_call_output removed.
#[test]
fn codex_check_catches_a_missing_output() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = work.path("in").join("rollout.jsonl");
    let original = rollout();
    std::fs::write(&source, &original).unwrap();
    let baseline = resume(&original, &standin);
    let c = compact(&source, &work.path("out"), "observation-masking", 0.5);
    let good = std::fs::read_to_string(&c.output).unwrap();
    let mut lines: Vec<&str> = good.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains("\"type\":\"function_call_output\""))
        .expect("the output has a function_call_output");
    lines.remove(i);
    let broken = lines.join("\n") + "\n";
    let request = resume(&broken, &standin);
    let (problems, _) = check(&request, &baseline, &original, &broken, c.token_ratio);
    eprintln!("problems found in the broken output: {problems:#?}");
    assert!(
        problems.0.iter().any(|p| p.contains("call")),
        "a removed function_call_output went unnoticed: {problems:?}"
    );
}
