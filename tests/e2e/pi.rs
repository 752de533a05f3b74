//! pi: the pi fixtures and their ctxc outputs resumed with `pi --session ID -p continue` (the
//! resume hint `ctxc sessions` prints), from the current project's session folder.
//!
//! Each session is placed in a throwaway `PI_CODING_AGENT_DIR` at
//! `sessions/--<cwd>--/<time>_<id>.jsonl`, its header's `cwd` set to the run's working
//! directory. pi is pointed at the stand-in by its own way of moving a built-in provider: a
//! `models.json` whose `anthropic` entry sets `baseUrl` (the fixtures' model is
//! `anthropic/claude-sonnet-4-5`), so the request is an Anthropic Messages stream. pi's
//! `--resume` picker is interactive only; the listing is checked with the function that picker
//! lists sessions with, `SessionManager.list` of the installed package, run by node.

use crate::claude::{blocks, dialogue, texts};
use crate::standin::StandIn;
use crate::{
    PROMPT, Problems, Sandbox, assert_all_resumed, clients, compacted_and_restored, ctxc_summaries,
    listed_unlike_the_original, log_run, repaired, resume_every_output_at_once, root, run_client,
    scrubbed, size, size_matches,
};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/pi").join(name)
}

/// A session file's header: its id and the working directory it names.
fn header(text: &str) -> (String, String) {
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "session", "not a pi session");
    let s = |k: &str| first[k].as_str().unwrap().to_string();
    (s("id"), s("cwd"))
}

/// The first user text of a session file, as pi's picker shows it when the session has no
/// name (pi skips nothing: a `/mode` prompt is a prompt).
fn first_prompt(text: &str) -> String {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "user")
        .flat_map(|e| texts(&e["message"]))
        .next()
        .expect("the session has a prompt")
}

/// The agent dir with `models.json` pointing the `anthropic` provider at the stand-in.
fn agent_dir(sandbox: &Sandbox, standin: &StandIn) -> PathBuf {
    let dir = sandbox.path("home/.pi/agent");
    let models = json!({"providers": {"anthropic": {"baseUrl": standin.url()}}});
    std::fs::write(dir.join("models.json"), models.to_string()).unwrap();
    let settings = json!({"quietStartup": true});
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    dir
}

/// Places sessions (text) in the sandbox's project folder, each header's cwd made the
/// sandbox's cwd; returns the folder.
fn place(sandbox: &Sandbox, agent: &Path, sessions: &[String]) -> PathBuf {
    let cwd = sandbox.path("cwd");
    let cwd = cwd.to_str().unwrap();
    let safe = format!(
        "--{}--",
        cwd.trim_start_matches('/').replace(['/', '\\', ':'], "-")
    );
    let dir = agent.join("sessions").join(safe);
    std::fs::create_dir_all(&dir).unwrap();
    for (i, text) in sessions.iter().enumerate() {
        let (id, from) = header(text);
        let text = crate::rewrite_cwd(text, &from, Path::new(cwd));
        let name = format!("2026-12-02T15-{i:02}-00-000Z_{id}.jsonl");
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

fn pi(sandbox: &Sandbox, agent: &Path, standin: &StandIn) -> Command {
    let mut cmd = scrubbed(&clients().unwrap().pi, sandbox, standin);
    cmd.env("PI_CODING_AGENT_DIR", agent)
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("PI_OFFLINE", "1")
        .env("ANTHROPIC_API_KEY", "e2e-not-a-key");
    cmd
}

/// Places `text`, resumes it by id with the prompt against a fresh stand-in and returns the
/// Messages request that carried the prompt.
fn resume(text: &str) -> Value {
    resume_and_read(text).0
}

/// Like [`resume`], also returning the session file as pi left it (its turn appended, an
/// older version migrated to the current one).
fn resume_and_read(text: &str) -> (Value, String) {
    let (id, _) = header(text);
    let standin = StandIn::start();
    let sandbox = Sandbox::new();
    let agent = agent_dir(&sandbox, &standin);
    let dir = place(&sandbox, &agent, &[text.to_string()]);
    let mut cmd = pi(&sandbox, &agent, &standin);
    cmd.args(["--session", &id, "-p", PROMPT]);
    let log = run_client(cmd, &format!("pi --session {id}"));
    let requests = standin.take();
    crate::assert_hermetic(&requests, &log);
    for (i, r) in requests.iter().enumerate() {
        crate::dump(&format!("pi-{id}-{}-{i}", text.len()), &r.json());
    }
    let request = requests
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/messages"))
        .map(|r| r.json())
        .find(|b| {
            dialogue(b)
                .last()
                .is_some_and(|m| texts(m).join("") == PROMPT)
        })
        .unwrap_or_else(|| {
            let seen: Vec<_> = requests.iter().map(|r| (&r.method, &r.path)).collect();
            panic!("pi sent no resume request (saw {seen:?})\n{log}")
        });
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "pi left {files:?}");
    (request, std::fs::read_to_string(&files[0]).unwrap())
}

/// The Messages API's pairing: every `tool_use` is answered by a `tool_result` in the next
/// message, and every `tool_result` answers a `tool_use` of the message before.
fn pairs(p: &mut Problems, messages: &[&Value]) {
    let ids = |m: Option<&&Value>, kind: &str, key: &str| -> HashSet<String> {
        m.map(|m| blocks(m, kind))
            .unwrap_or_default()
            .iter()
            .filter_map(|b| b[key].as_str().map(str::to_string))
            .collect()
    };
    for (i, m) in messages.iter().enumerate() {
        let answered = ids(messages.get(i + 1), "tool_result", "tool_use_id");
        for id in ids(Some(m), "tool_use", "id") {
            p.check(answered.contains(&id), || {
                format!("tool_use {id} is not answered in the next message")
            });
        }
        let asked = ids(i.checked_sub(1).map(|j| &messages[j]), "tool_use", "id");
        for id in ids(Some(m), "tool_result", "tool_use_id") {
            p.check(asked.contains(&id), || {
                format!("tool_result {id} does not follow its tool_use")
            });
        }
    }
}

pub fn check(
    request: &Value,
    baseline: &Value,
    original: &str,
    output: &str,
    token_ratio: f64,
) -> (Problems, f64) {
    let mut p = Problems::default();
    let messages = dialogue(request);
    let all_text: Vec<String> = messages.iter().flat_map(|m| texts(m)).collect();
    let carries = |needle: &str| all_text.iter().any(|t| t.contains(needle));
    // The task: the first prompt the original sends (pi's own compaction may have put the
    // file's first prompt into its summary, which is then sent first).
    let task = dialogue(baseline)
        .first()
        .map(|m| texts(m).join(""))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| first_prompt(original));
    p.check(carries(&task), || {
        format!("the task {task:.60}… is not in the request")
    });
    p.check(
        messages
            .last()
            .is_some_and(|m| m["role"] == "user" && texts(m).join("") == PROMPT),
        || "the latest prompt is not the last user message".into(),
    );
    for summary in ctxc_summaries(output) {
        p.check(carries(&summary), || {
            format!("the ctxc summary is not in the request: {summary:.80}…")
        });
    }
    p.check(
        messages.first().is_some_and(|m| m["role"] == "user"),
        || "the request does not start with a user message".into(),
    );
    pairs(&mut p, &messages);
    // pi answers a call whose result is missing itself (pi-ai's "No result provided" error):
    // a result the session does not hold was made up by the client.
    let stored: HashSet<String> = output
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["message"]["role"] == "toolResult")
        .filter_map(|e| e["message"]["toolCallId"].as_str().map(str::to_string))
        .collect();
    for m in &messages {
        for id in blocks(m, "tool_result")
            .iter()
            .filter_map(|b| b["tool_use_id"].as_str())
        {
            p.check(stored.contains(id), || {
                format!("the result of {id} is not in the session: the client made it up")
            });
        }
    }
    let conversation = |b: &Value| {
        let m = dialogue(b);
        size(&m[..m.len().saturating_sub(1)])
    };
    let ratio = conversation(request) as f64 / conversation(baseline) as f64;
    size_matches(&mut p, ratio, token_ratio);
    (p, ratio)
}

/// How pi's session picker lists `sessions`, in order: (name, first message) of each, from
/// `SessionManager.list` of the installed pi run by node over one project folder.
fn listed(sessions: &[String]) -> Vec<(Value, Value)> {
    let standin = StandIn::start();
    let sandbox = Sandbox::new();
    let agent = agent_dir(&sandbox, &standin);
    // One id each (the picker lists one session per file; the id is the only change made).
    let ids: Vec<String> = (0..sessions.len())
        .map(|i| format!("00000000-0000-4000-8000-{i:012}"))
        .collect();
    let renamed: Vec<String> = sessions
        .iter()
        .zip(&ids)
        .map(|(t, new)| t.replace(&header(t).0, new))
        .collect();
    let dir = place(&sandbox, &agent, &renamed);
    let pi_bin = clients().unwrap().pi.canonicalize().unwrap();
    // node_modules/@mariozechner/pi-coding-agent/dist/cli.js
    let index = pi_bin.parent().unwrap().join("index.js");
    let script = format!(
        "const {{SessionManager}} = await import({});\n\
         const list = await SessionManager.list({}, {});\n\
         console.log(JSON.stringify(list.map(s => [s.id, s.name ?? null, s.firstMessage ?? null])));",
        json!(format!("file://{}", index.display())),
        json!(sandbox.path("cwd")),
        json!(dir),
    );
    let mut cmd = scrubbed(Path::new("node"), &sandbox, &standin);
    cmd.env("PI_CODING_AGENT_DIR", &agent)
        .env("PI_OFFLINE", "1")
        .args(["--input-type=module", "-e", &script]);
    let log = run_client(cmd, "pi's SessionManager.list");
    crate::assert_hermetic(&standin.take(), &log);
    let out = log
        .lines()
        .find(|l| l.starts_with('['))
        .unwrap_or_else(|| panic!("no listing\n{log}"));
    let list: Vec<(String, Value, Value)> = serde_json::from_str(out).unwrap();
    ids.iter()
        .map(|id| {
            list.iter()
                .find(|(i, _, _)| i == id)
                .map_or((Value::Null, json!("(not listed)")), |(_, n, f)| {
                    (n.clone(), f.clone())
                })
        })
        .collect()
}

/// Every strategy at 0.5 and 0.25 over `fixture`, each output resumed and listed.
fn resumes_every_output(name: &str) {
    if clients().is_none() {
        return;
    }
    let source = fixture(name);
    let original = std::fs::read_to_string(&source).unwrap();
    let work = Sandbox::new();
    let mut failures = Vec::new();
    // How the picker lists the original and every output.
    let list = |outputs: &[(String, String)]| {
        let mut sessions = vec![original.clone()];
        sessions.extend(outputs.iter().map(|(_, text)| text.clone()));
        let titles = listed(&sessions);
        let labels = outputs.iter().map(|(label, _)| label.clone()).collect();
        (titles, labels)
    };
    let (runs, baseline, (titles, labels)) = resume_every_output_at_once(
        "pi",
        &source,
        &work.path("out"),
        &original,
        resume,
        list,
        check,
        &mut failures,
    );
    let (own, _) = check(&baseline, &baseline, &original, &original, 1.0);
    assert!(
        own.0.is_empty(),
        "the fixture itself resumes badly: {own:?}"
    );
    assert!(
        titles[0].1 != "(not listed)",
        "pi does not list the original"
    );
    let labels: Vec<String> = labels;
    failures.extend(listed_unlike_the_original("pi", &labels, &titles));
    assert_all_resumed(&failures, runs);
}

/// A real session of pi's author (version 1: one chain, migrated by pi on load).
#[test]
fn pi_resumes_every_output_of_a_real_session() {
    resumes_every_output("v1-head.jsonl");
}

/// A version 3 tree: an abandoned branch, a branch summary, a session name.
#[test]
fn pi_resumes_every_output_of_a_branched_session() {
    resumes_every_output("session.jsonl");
}

/// A session whose call was cut off (pi's own compaction before it), repaired, and a
/// session compacted in place then restored: both resume with the task, the prompt and every
/// call answered; the repaired one sends the result ctxc wrote for the call that never finished.
#[test]
fn pi_resumes_a_repaired_and_a_restored_session() {
    if clients().is_none() {
        return;
    }
    let damaged = std::fs::read_to_string(fixture("compacted.jsonl")).unwrap();
    let fixed = repaired(&fixture("compacted.jsonl"));
    let restored = compacted_and_restored(&fixture("v1-head.jsonl"));
    let (damaged_request, fixed_request, restored_request) = std::thread::scope(|s| {
        let a = s.spawn(|| resume(&damaged));
        let b = s.spawn(|| resume(&fixed));
        let c = s.spawn(|| resume(&restored));
        (a.join().unwrap(), b.join().unwrap(), c.join().unwrap())
    });
    for (what, request, baseline, text) in [
        ("repaired", &fixed_request, &damaged_request, &fixed),
        ("restored", &restored_request, &restored_request, &restored),
    ] {
        let (problems, ratio) = check(request, baseline, text, text, 1.0);
        log_run(&format!("pi, {what}"), 1.0, ratio, &problems);
        assert!(problems.0.is_empty(), "{what}: {problems:?}");
    }
    let call_answered = dialogue(&fixed_request)
        .iter()
        .flat_map(|m| blocks(m, "tool_result"))
        .any(|b| b["tool_use_id"] == "toolu_11");
    assert!(call_answered, "the cut-off call toolu_11 is not answered");
}

/// The checks see what a broken output would send: with a tool result deleted from the real
/// session, pi answers the call itself, and the check says so.
#[test]
fn pi_check_catches_a_result_the_client_made_up() {
    if clients().is_none() {
        return;
    }
    let original = std::fs::read_to_string(fixture("v1-head.jsonl")).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let cut = lines
        .iter()
        .rposition(|l| l.contains(r#""role":"toolResult""#))
        .unwrap();
    let broken: String = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != cut)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let request = resume(&broken);
    let (problems, _) = check(&request, &request, &original, &broken, 1.0);
    assert!(
        problems.0.iter().any(|p| p.contains("made it up")),
        "{problems:?}"
    );
}

/// The file pi left after resuming the real version 1 session (migrated to version 3, its turn
/// appended in pi's own current format) passes `ctxc check`, compacts, and the output resumes.
#[test]
fn ctxc_reads_what_pi_appends() {
    if clients().is_none() {
        return;
    }
    let original = std::fs::read_to_string(fixture("v1-head.jsonl")).unwrap();
    let (_, appended) = resume_and_read(&original);
    assert!(
        appended.lines().count() > original.lines().count()
            && appended.contains(crate::standin::ANSWER)
            && appended.contains(r#""parentId""#),
        "pi appended no turn, or did not migrate the session"
    );
    crate::compact_and_resume_appended("pi", &appended, "appended.jsonl", resume, check);
}
