//! Qwen Code: the Qwen Code fixtures and their ctxc outputs resumed with `qwen --resume ID -p`
//! in the project directory (the resume hint `ctxc sessions` prints), and listed with the
//! client's own `SessionService.listSessions`, run by node (its `--resume` picker is
//! interactive only).
//!
//! Each session is placed in a throwaway home at `.qwen/projects/<cwd, every character but
//! letters and digits a ->/chats/<sessionId>.jsonl`, its `cwd` made the run's working
//! directory, and resumed with the settings the fixtures were recorded with (`--auth-type
//! openai --openai-base-url` at the stand-in's `/v1`, so the client speaks OpenAI chat
//! completions), telemetry, usage statistics, update checks and the managed memory's
//! extraction after each turn off.

use crate::standin::StandIn;
use crate::{
    PROMPT, Problems, RATIOS, STRATEGIES, Sandbox, assert_all_resumed, clients,
    compacted_and_restored, ctxc_summaries, listed_unlike_the_original, log_run, repaired,
    resume_every_output_at_once, root, run_client, scrubbed, size, size_matches,
};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The model name the client is given (the stand-in answers any).
const MODEL: &str = "qwen-standin";

fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/qwen").join(name)
}

/// A session file's id and the working directory it names (its first record's).
fn header(text: &str) -> (String, String) {
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let s = |k: &str| first[k].as_str().expect("a Qwen Code record").to_string();
    (s("sessionId"), s("cwd"))
}

/// The folder the client keeps `cwd`'s sessions in, under its `.qwen`.
fn chats(qwen: &Path, cwd: &Path) -> PathBuf {
    let name: String = cwd
        .to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    qwen.join("projects").join(name).join("chats")
}

/// A throwaway `~/.qwen` with its settings, holding `sessions` (each its cwd made the
/// sandbox's) in the sandbox cwd's chats folder; returns that folder.
fn place(sandbox: &Sandbox, sessions: &[String]) -> PathBuf {
    let qwen = sandbox.path("home/.qwen");
    let cwd = sandbox.path("cwd");
    let settings = json!({
        "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        // No memory extraction after the turn: a second request, not part of the resume.
        "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
    });
    std::fs::write(qwen.join("settings.json"), settings.to_string()).unwrap();
    let dir = chats(&qwen, &cwd);
    std::fs::create_dir_all(&dir).unwrap();
    for text in sessions {
        let (id, from) = header(text);
        let text = crate::rewrite_cwd(text, &from, &cwd);
        std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }
    dir
}

fn qwen(sandbox: &Sandbox, standin: &StandIn) -> Command {
    let mut cmd = scrubbed(&clients().unwrap().qwen, sandbox, standin);
    cmd.args(["--auth-type", "openai", "--openai-base-url"])
        .arg(format!("{}/v1", standin.url()))
        .args(["--openai-api-key", "e2e-not-a-key", "-m", MODEL]);
    cmd
}

/// Places `text`, resumes it by id with the prompt against a fresh stand-in and returns the
/// chat completions request that carried the prompt.
fn resume(text: &str) -> Value {
    let (id, _) = header(text);
    let standin = StandIn::start();
    let sandbox = Sandbox::new();
    place(&sandbox, &[text.to_string()]);
    let mut cmd = qwen(&sandbox, &standin);
    cmd.args(["--resume", &id, "-p", PROMPT]);
    let log = run_client(cmd, &format!("qwen --resume {id}"));
    let requests = standin.take();
    crate::assert_hermetic(&requests, &log);
    for (i, r) in requests.iter().enumerate() {
        crate::dump(&format!("qwen-{id}-{}-{i}", text.len()), &r.json());
    }
    requests
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| r.json())
        .filter(|b| {
            messages(b).last().is_some_and(|m| {
                m["role"] == "user" && texts(m).last().map(String::as_str) == Some(PROMPT)
            })
        })
        .max_by_key(|b| messages(b).len())
        .unwrap_or_else(|| {
            let seen: Vec<_> = requests.iter().map(|r| (&r.method, &r.path)).collect();
            panic!("qwen sent no resume request (saw {seen:?})\n{log}")
        })
}

/// The conversation: the request's messages without the system prompt.
fn messages(body: &Value) -> Vec<&Value> {
    body["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|m| m["role"] != "system")
        .collect()
}

/// A message's text parts (its content, a string or a list of parts).
fn texts(m: &Value) -> Vec<String> {
    match &m["content"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// Context the client adds itself (the date, the skills it offers): `<system-reminder>` parts.
fn added(text: &str) -> bool {
    text.starts_with("<system-reminder>")
}

/// The task: the first user text of a request that is not context the client added.
fn task(body: &Value) -> Option<String> {
    messages(body)
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| texts(m))
        .find(|t| !added(t))
}

/// Characters of the conversation as sent, less the client's own reminders and the prompt.
fn conversation(body: &Value) -> usize {
    let all = messages(body);
    let kept: Vec<Value> = all[..all.len().saturating_sub(1)]
        .iter()
        .map(|m| {
            let mut m = (*m).clone();
            if let Some(parts) = m["content"].as_array_mut() {
                parts.retain(|p| !p["text"].as_str().is_some_and(added));
            }
            m
        })
        .collect();
    size(&kept.iter().collect::<Vec<_>>())
}

/// The OpenAI pairing: an assistant message's `tool_calls` are answered, each by id, by the
/// `tool` messages right after it, none left out and none extra; and every answer is one the
/// session holds (the client answers a call whose result is missing itself).
fn pairs(p: &mut Problems, all: &[&Value], output: &str) {
    let stored: HashSet<String> = output
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .flat_map(|r| {
            r["message"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|part| part["functionResponse"]["id"].as_str().map(str::to_string))
        .collect();
    let mut open: Vec<String> = Vec::new();
    for (i, m) in all.iter().enumerate() {
        if m["role"] == "tool" {
            let id = m["tool_call_id"].as_str().unwrap_or_default().to_string();
            p.check(open.contains(&id), || {
                format!("message {i} answers {id}, which the calls before it do not make")
            });
            p.check(stored.contains(&id), || {
                format!("the result of {id} is not in the session: the client made it up")
            });
            open.retain(|c| *c != id);
            continue;
        }
        p.check(open.is_empty(), || {
            format!("calls {open:?} are not answered before message {i}")
        });
        open = m["tool_calls"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|c| c["id"].as_str().map(str::to_string))
            .collect();
        p.check(open.is_empty() || m["role"] == "assistant", || {
            format!("message {i} has calls but is not an assistant message")
        });
    }
    p.check(open.is_empty(), || {
        format!("calls {open:?} are never answered")
    });
}

pub fn check(
    request: &Value,
    baseline: &Value,
    _original: &str,
    output: &str,
    token_ratio: f64,
) -> (Problems, f64) {
    let mut p = Problems::default();
    let all = messages(request);
    let all_text: Vec<String> = all.iter().flat_map(|m| texts(m)).collect();
    let carries = |needle: &str| all_text.iter().any(|t| t.contains(needle));
    let wanted = task(baseline).expect("the original's request has a task");
    p.check(task(request).as_deref() == Some(wanted.as_str()), || {
        format!("the task {wanted:.60}… is not the first prompt sent")
    });
    p.check(
        all.last().is_some_and(|m| {
            m["role"] == "user" && texts(m).last().map(String::as_str) == Some(PROMPT)
        }),
        || "the latest prompt is not the last user message".into(),
    );
    for summary in ctxc_summaries(output) {
        p.check(carries(&summary), || {
            format!("the ctxc summary is not in the request: {summary:.80}…")
        });
    }
    p.check(all.first().is_some_and(|m| m["role"] == "user"), || {
        "the conversation does not start with a user message".into()
    });
    pairs(&mut p, &all, output);
    let ratio = conversation(request) as f64 / conversation(baseline) as f64;
    if token_ratio < 1.0 {
        p.check(ratio < 1.0, || {
            format!(
                "the request is {:.0}% of the original's: it did not shrink",
                ratio * 100.0
            )
        });
    }
    size_matches(&mut p, ratio, token_ratio);
    (p, ratio)
}

/// How the client's session list (`SessionService.listSessions` of the installed package, the
/// one its picker shows) names `sessions`, in order: each one's title (its custom title, else
/// its prompt), or `(not listed)`. They go in one chats folder, each under an id of its own
/// (the id is the only change made).
fn listed(sessions: &[String]) -> Vec<String> {
    let standin = StandIn::start();
    let sandbox = Sandbox::new();
    let ids: Vec<String> = (0..sessions.len())
        .map(|i| format!("00000000-0000-4000-8000-{i:012}"))
        .collect();
    let renamed: Vec<String> = sessions
        .iter()
        .zip(&ids)
        .map(|(t, new)| t.replace(&header(t).0, new))
        .collect();
    place(&sandbox, &renamed);
    // node_modules/@qwen-code/qwen-code/cli-entry.js; SessionService is in one of its chunks.
    let package = clients().unwrap().qwen.canonicalize().unwrap();
    let chunks = package.parent().unwrap().join("chunks");
    let script = format!(
        "const fs = await import('node:fs');\n\
         const dir = {};\n\
         const chunk = fs.readdirSync(dir).map((n) => dir + '/' + n).find((p) =>\n\
           p.endsWith('.js') && fs.readFileSync(p, 'utf8').includes('var SessionService = class'));\n\
         const core = await import('file://' + chunk);\n\
         const list = await new core.SessionService({}).listSessions({{ size: 100 }});\n\
         console.log(JSON.stringify((list.items ?? list.sessions ?? []).map((s) =>\n\
           [s.sessionId, s.customTitle ?? s.prompt ?? null])));",
        json!(chunks),
        json!(sandbox.path("cwd")),
    );
    let mut cmd = scrubbed(Path::new("node"), &sandbox, &standin);
    cmd.args(["--input-type=module", "-e", &script]);
    let log = run_client(cmd, "Qwen Code's SessionService.listSessions");
    crate::assert_hermetic(&standin.take(), &log);
    let out = log
        .lines()
        .find(|l| l.starts_with('['))
        .unwrap_or_else(|| panic!("no listing\n{log}"));
    let list: Vec<(String, Value)> = serde_json::from_str(out).unwrap();
    ids.iter()
        .map(|id| {
            list.iter().find(|(i, _)| i == id).map_or_else(
                || "(not listed)".to_string(),
                |(_, t)| t.as_str().unwrap_or("(untitled)").to_string(),
            )
        })
        .collect()
}

/// Every strategy at 0.5 and 0.25 over `fixture`, each output resumed and listed; the
/// original resumes with its task beginning `task_start`.
fn resumes_every_output(name: &str, task_start: &str) {
    if clients().is_none() {
        return;
    }
    let source = fixture(name);
    let original = std::fs::read_to_string(&source).unwrap();
    let work = Sandbox::new();
    let mut failures = Vec::new();
    let list = |outputs: &[(String, String)]| {
        let mut sessions = vec![original.clone()];
        sessions.extend(outputs.iter().map(|(_, text)| text.clone()));
        listed(&sessions)
    };
    let (runs, baseline, titles) = resume_every_output_at_once(
        "qwen",
        &source,
        &work.path("out"),
        &original,
        resume,
        list,
        check,
        &mut failures,
    );
    assert!(
        task(&baseline).is_some_and(|t| t.starts_with(task_start)),
        "the original resumes without its task: {:?}",
        task(&baseline)
    );
    let (own, _) = check(&baseline, &baseline, &original, &original, 1.0);
    assert!(
        own.0.is_empty(),
        "the fixture itself resumes badly: {own:?}"
    );
    assert!(
        titles[0] != "(not listed)",
        "Qwen Code does not list the original"
    );
    let labels = STRATEGIES
        .iter()
        .flat_map(|s| RATIOS.map(|r| format!("{s}@{r}")));
    failures.extend(listed_unlike_the_original("qwen", labels, &titles));
    assert_all_resumed(&failures, runs);
}

/// Three runs, each a prompt and a shell call.
#[test]
fn qwen_resumes_every_output_of_a_session() {
    resumes_every_output("resumed.jsonl", "What is in notes.txt");
}

/// Five runs with long tool outputs, no compression of the client's own.
#[test]
fn qwen_resumes_every_output_of_a_long_session() {
    resumes_every_output("long.jsonl", "Read the long file");
}

/// A session the client compressed itself (`/compress`: what is above its `chat_compression`
/// record is no longer sent, the client's `<state_snapshot>` is).
#[test]
fn qwen_resumes_every_output_of_a_compressed_session() {
    resumes_every_output("compressed.jsonl", "<state_snapshot>");
}

/// A session whose call was cut off, repaired, and a session compacted in place then
/// restored: both resume with the task, the prompt and every call answered by a result the
/// file holds (the damaged copy gets a result the client makes up).
#[test]
fn qwen_resumes_a_repaired_and_a_restored_session() {
    if clients().is_none() {
        return;
    }
    let damaged = std::fs::read_to_string(fixture("unanswered.jsonl")).unwrap();
    let fixed = repaired(&fixture("unanswered.jsonl"));
    let restored = compacted_and_restored(&fixture("long.jsonl"));
    let (damaged_request, fixed_request, restored_request) = std::thread::scope(|s| {
        let a = s.spawn(|| resume(&damaged));
        let b = s.spawn(|| resume(&fixed));
        let c = s.spawn(|| resume(&restored));
        (a.join().unwrap(), b.join().unwrap(), c.join().unwrap())
    });
    // The client mends the cut-off call itself, at send time, with a result the file does not
    // hold: the check says so.
    let (problems, _) = check(&damaged_request, &damaged_request, &damaged, &damaged, 1.0);
    assert!(
        problems.0.iter().any(|p| p.contains("made it up")),
        "the damaged copy resumes with every call answered from the file: {problems:?}"
    );
    for (what, request, text, task_start) in [
        ("repaired", &fixed_request, &fixed, "What is in notes.txt"),
        (
            "restored",
            &restored_request,
            &restored,
            "Read the long file",
        ),
    ] {
        let (problems, ratio) = check(request, request, text, text, 1.0);
        log_run(&format!("qwen, {what}"), 1.0, ratio, &problems);
        assert!(problems.0.is_empty(), "{what}: {problems:?}");
        assert!(
            task(request).is_some_and(|t| t.starts_with(task_start)),
            "{what}: the task is not sent"
        );
    }
}
