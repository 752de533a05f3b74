//! Gemini CLI: the Gemini fixtures and their ctxc outputs resumed with `gemini --resume ID -p`
//! (the resume hint `ctxc sessions` prints), and listed with `gemini --list-sessions`.
//!
//! Each session is placed in a throwaway `GEMINI_CLI_HOME` at `.gemini/tmp/proj/chats/`, the
//! project registered for the run's working directory as the client registers one
//! (`projects.json`, `.project_root`), with the settings the fixtures were recorded with
//! (`security.auth.selectedType: "gemini-api-key"`, `GOOGLE_GEMINI_BASE_URL` at the stand-in),
//! session cleanup, update checks and usage statistics off.

use crate::standin::StandIn;
use crate::{
    PROMPT, Problems, RATIOS, STRATEGIES, Sandbox, assert_all_resumed, clients,
    compacted_and_restored, ctxc_summaries, listed_unlike_the_original, log_run, repaired,
    resume_every_output_at_once, root, run_client, scrubbed, size, size_matches,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The fixtures (`fixtures/gemini/`, README there): file, session id, and how its task begins.
const RESUMED: (&str, &str, &str) = (
    "session-2026-12-02T15-27-745f759b.jsonl",
    "745f759b-422d-42b6-b6dc-f1cfee757111",
    "Inspect this project",
);
const LEGACY: (&str, &str, &str) = (
    "session-2026-12-02T15-52-120af687.json",
    "120af687-b4f1-456b-b5e3-f3d3ccddf8ef",
    "What is in notes.txt",
);

fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/gemini").join(name)
}

/// A throwaway home whose project `proj` is the sandbox's cwd, holding `sessions` (file name,
/// text) in its chats folder; returns the home.
fn place(sandbox: &Sandbox, sessions: &[(String, String)]) -> PathBuf {
    let home = sandbox.path("home");
    let cwd = sandbox.path("cwd");
    let gemini = sandbox.path("home/.gemini");
    let settings = json!({
        "general": {"sessionRetention": {"enabled": false}, "disableAutoUpdate": true,
                    "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
    });
    std::fs::write(gemini.join("settings.json"), settings.to_string()).unwrap();
    let projects = json!({"projects": {cwd.to_str().unwrap(): "proj"}});
    std::fs::write(gemini.join("projects.json"), projects.to_string()).unwrap();
    std::fs::write(
        sandbox.path("home/.gemini/tmp/proj").join(".project_root"),
        cwd.to_str().unwrap(),
    )
    .unwrap();
    let chats = sandbox.path("home/.gemini/tmp/proj/chats");
    for (name, text) in sessions {
        std::fs::write(chats.join(name), text).unwrap();
    }
    home
}

fn gemini(sandbox: &Sandbox, home: &Path, standin: &StandIn) -> std::process::Command {
    let mut cmd = scrubbed(&clients().unwrap().gemini, sandbox, standin);
    // One node process, not a launcher that starts the CLI again with a larger heap.
    cmd.env("GEMINI_CLI_HOME", home)
        .env("GEMINI_CLI_NO_RELAUNCH", "1")
        .env("GEMINI_API_KEY", "e2e-not-a-key")
        .env("GOOGLE_GEMINI_BASE_URL", standin.url());
    cmd
}

/// Places `text` as session `id` (file `name`), resumes it with the prompt against a fresh
/// stand-in and returns the `streamGenerateContent` request that carried the prompt.
fn resume(text: &str, (name, id): (&str, &str)) -> Value {
    resume_and_read(text, (name, id)).0
}

/// Like [`resume`], also returning the session file as the client left it (its turn appended
/// in the client's own current format).
fn resume_and_read(text: &str, (name, id): (&str, &str)) -> (Value, String) {
    let standin = StandIn::start();
    let sandbox = Sandbox::new();
    let home = place(&sandbox, &[(name.to_string(), text.to_string())]);
    let mut cmd = gemini(&sandbox, &home, &standin);
    cmd.args(["-m", "gemini-2.5-flash", "--resume", id, "-p", PROMPT]);
    let log = run_client(cmd, &format!("gemini --resume {id}"));
    let requests = standin.take();
    crate::assert_hermetic(&requests, &log);
    for (i, r) in requests.iter().enumerate() {
        crate::dump(&format!("gemini-{id}-{}-{i}", text.len()), &r.json());
    }
    let request = requests
        .iter()
        .filter(|r| r.method == "POST" && r.path.contains(":streamGenerateContent"))
        .map(|r| r.json())
        .filter(|b| {
            contents(b)
                .last()
                .is_some_and(|c| texts(c).join("") == PROMPT)
        })
        .max_by_key(|b| contents(b).len())
        .unwrap_or_else(|| {
            let seen: Vec<_> = requests.iter().map(|r| (&r.method, &r.path)).collect();
            panic!("gemini sent no resume request (saw {seen:?})\n{log}")
        });
    let left = home.join(".gemini/tmp/proj/chats").join(name);
    (request, std::fs::read_to_string(left).unwrap())
}

fn contents(body: &Value) -> &[Value] {
    body["contents"].as_array().map_or(&[], Vec::as_slice)
}

fn parts(content: &Value) -> &[Value] {
    content["parts"].as_array().map_or(&[], Vec::as_slice)
}

fn texts(content: &Value) -> Vec<String> {
    parts(content)
        .iter()
        .filter_map(|p| p["text"].as_str().map(str::to_string))
        .collect()
}

/// The task: the first user text of a request that is not context the client added.
fn task(body: &Value) -> Option<String> {
    contents(body)
        .iter()
        .filter(|c| c["role"] == "user")
        .flat_map(texts)
        .find(|t| !t.starts_with('<'))
}

/// A call or an answer: (name, id), the id empty where the part has none.
fn key(part: &Value) -> (String, String) {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (s(&part["name"]), s(&part["id"]))
}

pub fn check(
    request: &Value,
    baseline: &Value,
    _original: &str,
    output: &str,
    token_ratio: f64,
) -> (Problems, f64) {
    let mut p = Problems::default();
    let all = contents(request);
    let all_text: Vec<String> = all.iter().flat_map(texts).collect();
    let carries = |needle: &str| all_text.iter().any(|t| t.contains(needle));
    let wanted = task(baseline).expect("the original's request has a task");
    p.check(task(request).as_deref() == Some(wanted.as_str()), || {
        format!("the task {wanted:.60}… is not the first prompt sent")
    });
    p.check(
        all.last()
            .is_some_and(|c| c["role"] == "user" && texts(c).join("") == PROMPT),
        || "the latest prompt is not the last user turn".into(),
    );
    for summary in ctxc_summaries(output) {
        p.check(carries(&summary), || {
            format!("the ctxc summary is not in the request: {summary:.80}…")
        });
    }
    p.check(all.first().is_some_and(|c| c["role"] == "user"), || {
        "the conversation does not start with a user turn".into()
    });
    // The Gemini API's pairing: a model turn's functionCall parts are answered by name (and id
    // where given) by the functionResponse parts of the user turn right after it, none left
    // out and none extra. Gemini CLI 0.61.0 sends each answer twice when it resumes its own
    // unedited JSONL file (once from the `<id>_response` turn it rebuilt from the call's
    // `result`, once from the user message it recorded with the same `functionResponse`), so a
    // second answer to the same call counts once.
    let mut open: Vec<(String, String)> = Vec::new();
    for (i, c) in all.iter().enumerate() {
        let calls: Vec<_> = parts(c)
            .iter()
            .filter(|x| x["functionCall"].is_object())
            .map(|x| key(&x["functionCall"]))
            .collect();
        let mut seen = Vec::new();
        let answers: Vec<_> = parts(c)
            .iter()
            .filter(|x| x["functionResponse"].is_object())
            .map(|x| key(&x["functionResponse"]))
            .filter(|k| {
                let first = !seen.contains(k);
                seen.push(k.clone());
                first
            })
            .collect();
        if !answers.is_empty() || !open.is_empty() {
            let mut expected = std::mem::take(&mut open);
            let mut got = answers.clone();
            expected.sort();
            got.sort();
            p.check(c["role"] == "user" && expected == got, || {
                format!("turn {i} answers {got:?}, the calls before it were {expected:?}")
            });
        }
        p.check(calls.is_empty() || c["role"] == "model", || {
            format!("turn {i} has calls but is not a model turn")
        });
        open = calls;
    }
    p.check(open.is_empty(), || {
        format!("calls {open:?} are never answered")
    });
    let conversation = |b: &Value| {
        let c = contents(b);
        size(&c[..c.len().saturating_sub(1)].iter().collect::<Vec<_>>())
    };
    let ratio = conversation(request) as f64 / conversation(baseline) as f64;
    size_matches(&mut p, ratio, token_ratio);
    (p, ratio)
}

/// The titles `gemini --list-sessions` lists for `sessions` (text, file extension), in order.
/// They go in one chats folder, each under an id of its own (the client lists one session per
/// id; the id is the only change made, and no title comes from it).
fn listed_titles(sessions: &[(String, &str)], id: &str) -> Vec<String> {
    let standin = StandIn::start();
    let sandbox = Sandbox::new();
    let ids: Vec<String> = (0..sessions.len())
        .map(|i| format!("00000000-0000-4000-8000-{i:012}"))
        .collect();
    let files: Vec<(String, String)> = sessions
        .iter()
        .zip(&ids)
        .enumerate()
        .map(|(i, ((text, ext), new))| {
            let name = format!("session-2026-12-02T15-{i:02}-{}.{ext}", &new[..8]);
            (name, text.replace(id, new))
        })
        .collect();
    let home = place(&sandbox, &files);
    let mut cmd = gemini(&sandbox, &home, &standin);
    cmd.arg("--list-sessions");
    let log = run_client(cmd, "gemini --list-sessions");
    crate::assert_hermetic(&standin.take(), &log);
    // `  1. TITLE (16 hours ago) [ID]`
    let listed: HashMap<&str, &str> = log
        .lines()
        .filter_map(|l| {
            let (head, id) = l.trim_end().strip_suffix(']')?.rsplit_once(" [")?;
            let (_, title) = head.trim_start().split_once(". ")?;
            Some((id, title.rsplit_once(" (").map_or(title, |t| t.0)))
        })
        .collect();
    ids.iter()
        .map(|i| {
            listed
                .get(i.as_str())
                .unwrap_or(&"(not listed)")
                .to_string()
        })
        .collect()
}

/// Every strategy at 0.5 and 0.25 over `fixture`, each output resumed and listed.
fn resumes_every_output((name, id, task_start): (&str, &str, &str)) {
    if clients().is_none() {
        return;
    }
    let source = fixture(match name.ends_with(".json") {
        true => "legacy.json",
        false => "resumed.jsonl",
    });
    let original = std::fs::read_to_string(&source).unwrap();
    let ext = source.extension().unwrap().to_str().unwrap();
    let work = Sandbox::new();
    let mut failures = Vec::new();
    // The titles the client lists, for the original and every output.
    let list = |outputs: &[(String, String)]| {
        let mut sessions = vec![(original.clone(), ext)];
        sessions.extend(outputs.iter().map(|(_, text)| (text.clone(), ext)));
        listed_titles(&sessions, id)
    };
    let (runs, baseline, titles) = resume_every_output_at_once(
        "gemini",
        &source,
        &work.path("out"),
        &original,
        |text| resume(text, (name, id)),
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
        titles[0].starts_with(task_start),
        "gemini lists the original as {:?}",
        titles[0]
    );
    let labels = STRATEGIES
        .iter()
        .flat_map(|s| RATIOS.map(|r| format!("{s}@{r}")));
    failures.extend(listed_unlike_the_original("gemini", labels, &titles));
    assert_all_resumed(&failures, runs);
}

#[test]
fn gemini_resumes_every_output_of_a_jsonl_session() {
    resumes_every_output(RESUMED);
}

#[test]
fn gemini_resumes_every_output_of_a_legacy_json_session() {
    resumes_every_output(LEGACY);
}

/// A session whose call was cut off, repaired, and a session compacted in place then
/// restored: both resume with the task, the prompt and every call answered; the repaired one
/// sends the client's own cancelled-call result for the call that never finished.
#[test]
fn gemini_resumes_a_repaired_and_a_restored_session() {
    if clients().is_none() {
        return;
    }
    let (name, id, task_start) = RESUMED;
    let damaged = std::fs::read_to_string(fixture("unanswered.jsonl")).unwrap();
    let fixed = repaired(&fixture("unanswered.jsonl"));
    let restored = compacted_and_restored(&fixture("resumed.jsonl"));
    let (damaged_request, fixed_request, restored_request) = std::thread::scope(|s| {
        let a = s.spawn(|| resume(&damaged, (name, id)));
        let b = s.spawn(|| resume(&fixed, (name, id)));
        let c = s.spawn(|| resume(&restored, (name, id)));
        (a.join().unwrap(), b.join().unwrap(), c.join().unwrap())
    });
    // The client does not mend the cut-off call itself: it sends it unanswered.
    let (problems, _) = check(&damaged_request, &damaged_request, &damaged, &damaged, 1.0);
    assert!(
        problems
            .0
            .iter()
            .any(|p| p.contains("the calls before it were")),
        "the damaged copy resumes with every call answered: {problems:?}"
    );
    for (what, request, text) in [
        ("repaired", &fixed_request, &fixed),
        ("restored", &restored_request, &restored),
    ] {
        let (problems, ratio) = check(request, request, text, text, 1.0);
        log_run(&format!("gemini, {what}"), 1.0, ratio, &problems);
        assert!(problems.0.is_empty(), "{what}: {problems:?}");
        assert!(
            task(request).is_some_and(|t| t.starts_with(task_start)),
            "{what}: the task is not sent"
        );
    }
    assert!(
        fixed_request
            .to_string()
            .contains("[Operation Cancelled] Reason: Operation cancelled by user"),
        "the cut-off call is not answered with the client's cancelled-call result"
    );
}

/// The file Gemini CLI left after resuming the JSONL session (its turn appended in the
/// client's own current format) passes `ctxc check`, compacts, and the output resumes.
#[test]
fn ctxc_reads_what_gemini_appends() {
    if clients().is_none() {
        return;
    }
    let (name, id, _) = RESUMED;
    let original = std::fs::read_to_string(fixture("resumed.jsonl")).unwrap();
    let (_, appended) = resume_and_read(&original, (name, id));
    assert!(
        appended.len() > original.len() && appended.contains(crate::standin::ANSWER),
        "Gemini CLI appended no turn to the session"
    );
    crate::compact_and_resume_appended(
        "gemini",
        &appended,
        "appended.jsonl",
        |text| resume(text, (name, id)),
        check,
    );
}
