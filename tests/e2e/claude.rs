//! Claude Code: corpus sessions and their ctxc outputs resumed with `claude -p --resume`.

use crate::standin::StandIn;
use crate::{
    PROMPT, Problems, Sandbox, assert_all_resumed, clients, compact, corpus, resume_every_output,
    rewrite_cwd, run_client, scrubbed, size, size_matches,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Real Claude Code sessions from the corpus.
const SESSIONS: [&str; 2] = [
    "claude-code/spotter/tool_heavy.jsonl",
    "claude-code/spotter/short.jsonl",
];

/// A session file's records. A line that is not JSON (a damaged copy's torn or garbage line)
/// is no record.
pub fn records(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn field<'a>(records: &'a [Value], key: &str) -> &'a str {
    records
        .iter()
        .find_map(|r| r[key].as_str())
        .unwrap_or_else(|| panic!("no record has {key}"))
}

/// Places `text` as session `id` under a fresh CLAUDE_CONFIG_DIR, resumes it against the
/// stand-in and returns the request that carried the prompt.
pub fn resume(text: &str, standin: &StandIn) -> Value {
    resume_and_read(text, standin).0
}

/// Like [`resume`], also returning the session file as the client left it: Claude Code
/// appends the resumed turn to it, in the format it writes today.
pub fn resume_and_read(text: &str, standin: &StandIn) -> (Value, String) {
    let recs = records(text);
    let id = field(&recs, "sessionId").to_string();
    let original_cwd = field(&recs, "cwd").to_string();
    let sandbox = Sandbox::new();
    let cwd = sandbox.path("cwd");
    let config = sandbox.path("config");
    // Claude Code keeps a project's sessions under its cwd with every non-alphanumeric
    // character replaced by '-'.
    let project: String = cwd
        .to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = config.join("projects").join(project);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{id}.jsonl")),
        rewrite_cwd(text, &original_cwd, &cwd),
    )
    .unwrap();

    let mut cmd = scrubbed(&clients().unwrap().claude, &sandbox, standin);
    cmd.env("CLAUDE_CONFIG_DIR", &config)
        .env("ANTHROPIC_BASE_URL", standin.url())
        .env("ANTHROPIC_API_KEY", "sk-ant-e2e-not-a-key")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .args(["-p", "--resume", &id, "--disallowedTools", "Bash,WebFetch"])
        .args(["--", PROMPT]);
    let log = run_client(cmd, &format!("claude --resume {id}"));
    let written = std::fs::read_to_string(dir.join(format!("{id}.jsonl"))).unwrap();
    let requests = standin.take();
    crate::assert_hermetic(&requests, &log);
    for (i, r) in requests.iter().enumerate() {
        crate::dump(&format!("claude-{id}-{}-{i}", text.len()), &r.json());
    }
    let request = requests
        .iter()
        .filter(|r| r.method == "POST" && r.path.split('?').next().unwrap().ends_with("/messages"))
        .map(|r| r.json())
        .filter(|body| body["stream"] == true && last_user_text(body).contains(PROMPT))
        .max_by_key(|body| body["messages"].as_array().map_or(0, Vec::len))
        .unwrap_or_else(|| {
            let seen: Vec<_> = requests.iter().map(|r| (&r.method, &r.path)).collect();
            panic!("claude sent no resume request (saw {seen:?})\n{log}")
        });
    (request, written)
}

fn last_user_text(body: &Value) -> String {
    dialogue(body)
        .last()
        .filter(|m| m["role"] == "user")
        .map(|m| texts(m).join("\n"))
        .unwrap_or_default()
}

/// The user and assistant messages of a request. Claude Code 2.1 also sends `system` messages
/// of its own (environment notes) when a session holds no assistant message yet; they are not
/// from the session, and the API orders only user and assistant turns.
pub fn dialogue(body: &Value) -> Vec<&Value> {
    body["messages"]
        .as_array()
        .map(|m| m.iter().filter(|m| m["role"] != "system").collect())
        .unwrap_or_default()
}

/// The text of a message's string content or text blocks.
pub fn texts(message: &Value) -> Vec<String> {
    match &message["content"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

pub fn blocks<'a>(message: &'a Value, kind: &str) -> Vec<&'a Value> {
    message["content"]
        .as_array()
        .map(|b| b.iter().filter(|b| b["type"] == kind).collect())
        .unwrap_or_default()
}

/// The part of a request that comes from the session: every block but the client's own
/// reminders and the prompt.
fn conversation_size(request: &Value) -> usize {
    let mut parts = Vec::new();
    for m in dialogue(request) {
        match &m["content"] {
            Value::Array(bs) => parts.extend(bs.iter().filter(|b| {
                let t = b["text"].as_str().unwrap_or_default();
                !(t.starts_with("<system-reminder>") || t == PROMPT)
            })),
            content => parts.push(content),
        }
    }
    size(&parts)
}

/// The title Claude Code lists a session under: a custom title, else a summary record, else
/// the first prompt the user typed (not meta, a command, a compact summary or a tool result).
pub fn title(text: &str) -> Option<String> {
    let recs = records(text);
    let last = |ty: &str, key: &str| {
        recs.iter()
            .rev()
            .find(|r| r["type"] == ty)
            .and_then(|r| r[key].as_str().map(str::to_string))
    };
    last("custom-title", "customTitle")
        .or_else(|| last("summary", "summary"))
        .or_else(|| {
            recs.iter()
                .filter(|r| r["type"] == "user")
                .filter(|r| {
                    r["isMeta"] != true && r["isCompactSummary"] != true && r["isSidechain"] != true
                })
                .filter_map(|r| texts(&r["message"]).into_iter().next())
                .find(|t| !t.starts_with('<') && !t.starts_with("[Request interrupted"))
        })
}

/// The user and assistant records of the main chain after the last compact boundary: what
/// the model sees.
fn live(text: &str) -> Vec<Value> {
    let mut recs = records(text);
    let start = recs
        .iter()
        .rposition(|r| r["subtype"] == "compact_boundary")
        .unwrap_or(0);
    recs.drain(..start);
    recs.retain(|r| {
        let sent =
            r["type"] == "user" || r["type"] == "assistant" || r["subtype"] == "local_command";
        // Claude Code 2.1 keeps some records for the transcript only (a background task's
        // notification, delivered to the model as a system reminder instead).
        sent && r["isSidechain"] != true && r["queueTranscriptOnly"] != true
    });
    recs
}

/// The texts a record puts in front of the model (a local command's output is sent as user
/// text).
fn record_texts(record: &Value) -> Vec<String> {
    match record["content"].as_str() {
        Some(text) if record["subtype"] == "local_command" => vec![text.to_string()],
        _ => texts(&record["message"]),
    }
}

/// Every `[ctxc summary]` text in a session file.
fn summaries(text: &str) -> Vec<String> {
    records(text)
        .iter()
        .flat_map(|r| texts(&r["message"]))
        .filter(|t| t.starts_with("[ctxc summary]"))
        .collect()
}

/// The checks of one resumed request (see the module doc of main.rs).
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

    let task = title(original).expect("the original has a first prompt");
    p.check(carries(&task), || {
        format!("the original task {task:?} is not in the request")
    });
    for summary in summaries(output) {
        p.check(carries(&summary), || {
            format!("the ctxc summary is not in the request: {:.80}…", summary)
        });
    }

    p.check(
        messages.first().is_some_and(|m| m["role"] == "user"),
        || "the request does not start with a user message".into(),
    );
    for pair in messages.windows(2) {
        p.check(pair[0]["role"] != pair[1]["role"], || {
            format!("two {} messages in a row", pair[0]["role"])
        });
    }

    // Tool results the session holds: anything else in the request was made up by the client
    // (Claude Code fills a missing result with a placeholder rather than fail).
    let stored: HashSet<String> = records(output)
        .iter()
        .flat_map(|r| blocks(&r["message"], "tool_result"))
        .filter_map(|b| b["tool_use_id"].as_str().map(str::to_string))
        .collect();
    // Everything of the session's live chain reaches the model: a client silently drops a
    // call whose result is missing, and records cut off by a broken parentUuid link.
    let sent: HashSet<&str> = messages
        .iter()
        .flat_map(|m| blocks(m, "tool_use"))
        .filter_map(|b| b["id"].as_str())
        .collect();
    let mut in_session: HashMap<String, usize> = HashMap::new();
    for record in live(output) {
        for call in blocks(&record["message"], "tool_use") {
            let id = call["id"].as_str().unwrap_or_default();
            p.check(sent.contains(id), || {
                format!("tool_use {id} of the session is not in the request")
            });
        }
        for text in record_texts(&record) {
            *in_session.entry(text.trim().to_string()).or_default() += 1;
        }
    }
    // Counted, not just found: two identical prompts are two messages.
    for (text, n) in in_session.iter().filter(|(t, _)| !t.is_empty()) {
        let sent = all_text.iter().filter(|t| t.trim() == text).count();
        p.check(sent >= *n, || {
            format!("a text the session has {n} times is sent {sent} times: {text:.60}…")
        });
    }
    for (i, m) in messages.iter().enumerate() {
        let answered: HashSet<&str> = messages
            .get(i + 1)
            .map(|n| blocks(n, "tool_result"))
            .unwrap_or_default()
            .iter()
            .filter_map(|b| b["tool_use_id"].as_str())
            .collect();
        for call in blocks(m, "tool_use") {
            let id = call["id"].as_str().unwrap_or_default();
            p.check(answered.contains(id), || {
                format!("tool_use {id} is not answered in the next message")
            });
            p.check(stored.contains(id), || {
                format!("the result of tool_use {id} is not in the session: the client made it up")
            });
        }
        let asked: HashSet<&str> = i
            .checked_sub(1)
            .map(|j| blocks(messages[j], "tool_use"))
            .unwrap_or_default()
            .iter()
            .filter_map(|b| b["id"].as_str())
            .collect();
        for result in blocks(m, "tool_result") {
            let id = result["tool_use_id"].as_str().unwrap_or_default();
            p.check(asked.contains(id), || {
                format!("tool_result {id} does not follow its tool_use")
            });
        }
    }

    let ratio = conversation_size(request) as f64 / conversation_size(baseline) as f64;
    size_matches(&mut p, ratio, token_ratio);
    p.check(title(output) == title(original), || {
        format!(
            "title changed: {:?} -> {:?}",
            title(original),
            title(output)
        )
    });
    (p, ratio)
}

#[test]
fn claude_code_resumes_every_output() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let work = Sandbox::new();
    let mut failures = Vec::new();
    let mut runs = 0;
    for rel in SESSIONS {
        let source = corpus(rel);
        let original = std::fs::read_to_string(&source).unwrap();
        let baseline = resume(&original, &standin);
        let (own, _) = check(&baseline, &baseline, &original, &original, 1.0);
        assert!(
            own.0.is_empty(),
            "{rel} itself does not resume cleanly: {own:?}"
        );
        let dir = work.path(Path::new(rel).file_stem().unwrap().to_str().unwrap());
        runs += resume_every_output(
            &format!("claude {rel}"),
            &source,
            &dir,
            (&original, &baseline),
            |text| resume(text, &standin),
            check,
            &mut failures,
        );
    }
    assert_all_resumed(&failures, runs);
}

/// A real session whose old responses think: `trim-outputs` drops their thinking records whole
/// (a signed block cannot be edited) and re-links the chain. Claude Code resumes the output,
/// and every thinking block it sends is one the output kept (the corpus redacts signatures, so
/// blocks are told apart by their text).
#[test]
fn claude_code_resumes_an_output_without_old_thinking() {
    if clients().is_none() {
        return;
    }
    const THOUGHTFUL: &str = "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl";
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = corpus(THOUGHTFUL);
    let original = std::fs::read_to_string(&source).unwrap();
    let baseline = resume(&original, &standin);
    let c = compact(&source, work.dir.path(), "trim-outputs", 0.5);
    let output = std::fs::read_to_string(&c.output).unwrap();
    let thoughts = |text: &str| -> HashSet<String> {
        live(text)
            .iter()
            .flat_map(|r| blocks(&r["message"], "thinking"))
            .filter_map(|b| b["thinking"].as_str().map(str::to_string))
            .collect()
    };
    let (before, after) = (thoughts(&original), thoughts(&output));
    assert!(
        after.len() < before.len() && after.is_subset(&before),
        "thinking kept: {} of {}",
        after.len(),
        before.len()
    );
    let request = resume(&output, &standin);
    let (problems, ratio) = check(&request, &baseline, &original, &output, c.token_ratio);
    crate::log_run(
        "claude without old thinking",
        c.token_ratio,
        ratio,
        &problems,
    );
    assert!(problems.0.is_empty(), "{problems:?}");
    for message in dialogue(&request) {
        for block in blocks(message, "thinking") {
            let thought = block["thinking"].as_str().unwrap_or_default();
            assert!(
                after.contains(thought),
                "a thinking block sent is not one the output kept"
            );
        }
    }
}

/// `trim-calls` cuts the bodies of old Write and Edit calls inside their `input` objects:
/// Claude Code resumes the output and sends the model those calls, cut, as `tool_use` blocks
/// that every result still answers.
#[test]
fn claude_code_resumes_an_output_with_trimmed_calls() {
    if clients().is_none() {
        return;
    }
    const SESSION: &str = "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl";
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = corpus(SESSION);
    let original = std::fs::read_to_string(&source).unwrap();
    let baseline = resume(&original, &standin);
    let c = compact(&source, work.dir.path(), "trim-calls", 0.25);
    let output = std::fs::read_to_string(&c.output).unwrap();
    let request = resume(&output, &standin);
    let (problems, ratio) = check(&request, &baseline, &original, &output, c.token_ratio);
    crate::log_run("claude with trimmed calls", c.token_ratio, ratio, &problems);
    assert!(problems.0.is_empty(), "{problems:?}");
    let cut = dialogue(&request)
        .iter()
        .flat_map(|m| blocks(m, "tool_use"))
        .filter(|b| b["input"].is_object() && b["input"].to_string().contains("cut from this call"))
        .count();
    assert!(cut > 0, "no trimmed call was sent");
}

/// What Claude Code writes today reads in ctxc: a corpus session the real client resumed, with
/// the turn it appended in its own current format, passes `ctxc check`, compacts, and the
/// output resumes cleanly in turn.
#[test]
fn ctxc_reads_what_claude_code_appends() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let original = std::fs::read_to_string(corpus(SESSIONS[0])).unwrap();
    let (_, appended) = resume_and_read(&original, &standin);
    assert!(
        records(&appended).len() > records(&original).len()
            && appended.contains(crate::standin::ANSWER),
        "Claude Code appended no turn to the session"
    );
    crate::compact_and_resume_appended(
        "claude",
        &appended,
        "resumed.jsonl",
        |text| resume(text, &standin),
        check,
    );
}

/// The checks catch a broken output: one tool_result removed, one parentUuid pointing nowhere,
/// each alone and both together.
#[test]
fn claude_code_check_catches_a_broken_output() {
    if clients().is_none() {
        return;
    }
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = corpus(SESSIONS[0]);
    let original = std::fs::read_to_string(&source).unwrap();
    let baseline = resume(&original, &standin);
    let c = compact(&source, work.dir.path(), "observation-masking", 0.5);
    let good = std::fs::read_to_string(&c.output).unwrap();
    let cases = [
        ("one tool_result removed", vec![Damage::DropToolResult]),
        (
            "one parentUuid pointing nowhere",
            vec![Damage::DanglingParent],
        ),
        ("both", vec![Damage::DanglingParent, Damage::DropToolResult]),
    ];
    for (what, damages) in cases {
        let broken = damages
            .into_iter()
            .fold(good.clone(), |text, d| break_output(&text, d));
        let request = resume(&broken, &standin);
        let (problems, _) = check(&request, &baseline, &original, &broken, c.token_ratio);
        eprintln!("{what}: {problems:#?}");
        assert!(!problems.0.is_empty(), "{what} went unnoticed");
    }
}

pub enum Damage {
    /// Remove the first user record holding a tool_result.
    DropToolResult,
    /// Point the parentUuid of a record in the middle of the chain at a uuid that does not exist.
    DanglingParent,
}

pub fn break_output(text: &str, damage: Damage) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let chained: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            lines[i].contains("\"parentUuid\":\"") && lines[i].contains("\"type\":\"user\"")
        })
        .collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match damage {
        Damage::DropToolResult => {
            let i = (0..lines.len())
                .find(|&i| lines[i].contains("\"type\":\"tool_result\""))
                .expect("the output has a tool_result");
            out.remove(i);
        }
        Damage::DanglingParent => {
            let i = chained[chained.len() / 2];
            let mut record: Value = serde_json::from_str(lines[i]).unwrap();
            record["parentUuid"] = "00000000-0000-4000-8000-000000000000".into();
            out[i] = record.to_string();
        }
    }
    out.join("\n") + "\n"
}

/// `--drop-stored` on a session that Claude Code compacted itself: the history above its
/// boundary is gone, but the first prompt, which titles the session, is kept. Claude Code
/// resumes the output sending exactly what it sends for the original, and the title holds.
#[test]
fn claude_code_resumes_a_session_without_its_stored_history_under_its_title() {
    if clients().is_none() {
        return;
    }
    const COMPACTED: &str = "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
    let standin = StandIn::start();
    let work = Sandbox::new();
    let source = corpus(COMPACTED);
    let original = std::fs::read_to_string(&source).unwrap();
    let output = work.dir.path().join("dropped.jsonl");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxc"))
        .env("XDG_CONFIG_HOME", work.path("no-user-config"))
        .args(["compact", "-q", "--no-config", "--drop-stored"])
        .arg(&source)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run ctxc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let output = std::fs::read_to_string(&output).unwrap();
    assert!(
        output.len() * 5 < original.len(),
        "the stored history is gone"
    );
    let baseline = resume(&original, &standin);
    let request = resume(&output, &standin);
    // All but the new prompt, whose reminders name each resume's own sandbox.
    let (sent, before) = (dialogue(&request), dialogue(&baseline));
    assert_eq!(
        sent.len(),
        before.len(),
        "as many messages as for the original"
    );
    let n = sent.len() - 1;
    assert!(
        sent[..n] == before[..n],
        "Claude Code sends what it sends for the original"
    );
    assert_eq!(title(&output), title(&original));
}
