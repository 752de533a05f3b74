use super::meta::Meta;
use super::reference::{Reference, resolve};
use super::*;
use std::path::Path;

fn session(client: Client, id: &str, key: &str, last: &str) -> Session {
    Session {
        client,
        id: id.into(),
        path: PathBuf::from(format!("/store/{key}/{id}.jsonl")),
        project_key: Some(key.into()),
        bytes: 1,
        subagents: Vec::new(),
        last_activity: last.into(),
    }
}

/// Newest first, as `find` returns them.
fn sessions() -> Vec<Session> {
    vec![
        session(
            Client::Codex,
            "0199a000-0000-7000-8000-000000000001",
            "/w/other",
            "2026-03-01T00:00:00Z",
        ),
        session(
            Client::ClaudeCode,
            "aaaabbbb-0001-4000-8000-000000000001",
            "-w-proj",
            "2026-02-01T00:00:00Z",
        ),
        session(
            Client::ClaudeCode,
            "aaaabbbb-0002-4000-8000-000000000002",
            "-w-proj",
            "2026-01-01T00:00:00Z",
        ),
    ]
}

fn resolved(text: &str, cwd: &str) -> Result<String, String> {
    let all = sessions();
    let reference = Reference::parse(Path::new(text))
        .expect("a reference")
        .map_err(|e| e.to_string())?;
    resolve(&reference, &all, Path::new(cwd), &Stores::default())
        .map(|s| s.id.clone())
        .map_err(|e| e.to_string())
}

#[test]
fn references_name_one_session_or_say_why_not() {
    // The latest of this directory's project, whichever client.
    assert_eq!(
        resolved("@", "/w/proj").unwrap(),
        "aaaabbbb-0001-4000-8000-000000000001"
    );
    assert_eq!(
        resolved("@latest", "/w/other").unwrap(),
        "0199a000-0000-7000-8000-000000000001"
    );
    let none = resolved("@", "/w/empty").unwrap_err();
    assert!(
        none.contains("no Claude Code, Codex, pi or Gemini CLI session")
            && none.contains("/w/empty"),
        "{none}"
    );
    // A full id, a unique prefix, any case.
    assert_eq!(
        resolved("@aaaabbbb-0002-4000-8000-000000000002", "/").unwrap(),
        "aaaabbbb-0002-4000-8000-000000000002"
    );
    assert_eq!(
        resolved("@0199", "/").unwrap(),
        "0199a000-0000-7000-8000-000000000001"
    );
    assert_eq!(
        resolved("@AAAABBBB-0001", "/").unwrap(),
        "aaaabbbb-0001-4000-8000-000000000001"
    );
    let ambiguous = resolved("@aaaa", "/").unwrap_err();
    assert!(
        ambiguous.contains("ambiguous: 2 sessions match"),
        "{ambiguous}"
    );
    assert!(
        ambiguous.contains("aaaabbbb-0001-4000-8000-000000000001"),
        "{ambiguous}"
    );
    assert!(
        ambiguous.contains("aaaabbbb-0002-4000-8000-000000000002"),
        "{ambiguous}"
    );
    let unknown = resolved("@ffff", "/").unwrap_err();
    assert!(
        unknown.contains("no session id starts with 'ffff'"),
        "{unknown}"
    );
    let bad = resolved("@a/b.jsonl", "/").unwrap_err();
    assert!(
        bad.contains("not a session reference") && bad.contains("./@a/b.jsonl"),
        "{bad}"
    );
}

#[test]
fn only_arguments_starting_with_at_are_references() {
    for path in ["a.jsonl", "./@a.jsonl", "-", "dir/@x"] {
        assert!(Reference::parse(Path::new(path)).is_none(), "{path}");
    }
    assert_eq!(
        Reference::parse(Path::new("@0c1f")).unwrap().unwrap(),
        Reference::Id("0c1f".into())
    );
}

#[test]
fn claude_code_names_project_directories_after_their_path() {
    let [all, slash_dot] = project_dir_names(Path::new("/home/me/my_app.v2"));
    assert_eq!(all, "-home-me-my-app-v2");
    assert_eq!(slash_dot, "-home-me-my_app-v2");
    let claude = session(Client::ClaudeCode, "x", "-home-me-my_app-v2", "");
    assert!(claude.in_project(Path::new("/home/me/my_app.v2")));
    assert!(!claude.in_project(Path::new("/home/me/my_app")));
    let codex = session(Client::Codex, "y", "/home/me/app", "");
    assert!(codex.in_project(Path::new("/home/me/app")));
    assert!(!codex.in_project(Path::new("/home/me")));
}

#[test]
fn stores_follow_the_clients_variables() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    let home = Stores::from_vars(vars(&[("HOME", "/h")]));
    assert_eq!(home.claude_code.unwrap(), Path::new("/h/.claude/projects"));
    assert_eq!(home.codex.unwrap(), Path::new("/h/.codex/sessions"));
    let set = Stores::from_vars(vars(&[
        ("HOME", "/h"),
        ("CLAUDE_CONFIG_DIR", "/c"),
        ("CODEX_HOME", "/x"),
    ]));
    assert_eq!(set.claude_code.unwrap(), Path::new("/c/projects"));
    assert_eq!(set.codex.unwrap(), Path::new("/x/sessions"));
    assert_eq!(home.pi.unwrap(), Path::new("/h/.pi/agent/sessions"));
    // pi expands a leading `~` in PI_CODING_AGENT_DIR itself.
    let set = Stores::from_vars(vars(&[("HOME", "/h"), ("PI_CODING_AGENT_DIR", "/p")]));
    assert_eq!(set.pi.unwrap(), Path::new("/p/sessions"));
    let set = Stores::from_vars(vars(&[("HOME", "/h"), ("PI_CODING_AGENT_DIR", "~/pi")]));
    assert_eq!(set.pi.unwrap(), Path::new("/h/pi/sessions"));
    // Gemini CLI's GEMINI_CLI_HOME stands for the home directory, `.gemini` under it.
    assert_eq!(home.gemini.unwrap(), Path::new("/h/.gemini/tmp"));
    let set = Stores::from_vars(vars(&[("HOME", "/h"), ("GEMINI_CLI_HOME", "/g")]));
    assert_eq!(set.gemini.unwrap(), Path::new("/g/.gemini/tmp"));
    // Qwen Code: QWEN_RUNTIME_DIR, else QWEN_HOME, else ~/.qwen, `projects` under it.
    assert_eq!(home.qwen.unwrap(), Path::new("/h/.qwen/projects"));
    let set = Stores::from_vars(vars(&[("HOME", "/h"), ("QWEN_HOME", "/q")]));
    assert_eq!(set.qwen.unwrap(), Path::new("/q/projects"));
    let set = Stores::from_vars(vars(&[
        ("HOME", "/h"),
        ("QWEN_HOME", "/q"),
        ("QWEN_RUNTIME_DIR", "~/r"),
    ]));
    assert_eq!(set.qwen.unwrap(), Path::new("/h/r/projects"));
}

#[test]
fn gemini_sessions_are_found_in_their_project_and_subagents_are_not() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("proj");
    let chats = project.join("chats");
    std::fs::create_dir_all(chats.join("parent-id")).unwrap();
    std::fs::write(project.join(".project_root"), "/home/dev/proj").unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gemini");
    let text = std::fs::read_to_string(fixtures.join("resumed.jsonl")).unwrap();
    std::fs::write(chats.join("session-2026-12-02T15-27-745f759b.jsonl"), &text).unwrap();
    std::fs::copy(
        fixtures.join("legacy.json"),
        chats.join("session-2026-12-02T15-52-120af687.json"),
    )
    .unwrap();
    // A subagent's session (nested, and marked `kind: subagent`) and a file that is not one.
    let sub = text.replacen("\"kind\":\"main\"", "\"kind\":\"subagent\"", 1);
    std::fs::write(chats.join("session-2026-12-02T15-30-aaaaaaaa.jsonl"), &sub).unwrap();
    std::fs::write(chats.join("parent-id/bbbb.jsonl"), &text).unwrap();
    std::fs::write(chats.join("notes.jsonl"), &text).unwrap();
    let stores = Stores {
        gemini: Some(root.path().to_path_buf()),
        ..Stores::default()
    };
    let found = find(&stores).unwrap();
    let ids: Vec<&str> = found.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "120af687-b4f1-456b-b5e3-f3d3ccddf8ef",
            "745f759b-422d-42b6-b6dc-f1cfee757111"
        ]
    );
    let s = &found[1];
    assert_eq!(s.client, Client::Gemini);
    assert_eq!(s.project_key.as_deref(), Some("/home/dev/proj"));
    assert_eq!(s.last_activity, "2026-12-02T15:27:56Z");
    assert!(s.in_project(Path::new("/home/dev/proj")));
    assert_eq!(
        resume_command(s, None),
        "cd /home/dev/proj && gemini --resume 745f759b-422d-42b6-b6dc-f1cfee757111"
    );
    let m = read_meta(Client::Gemini, &text, None);
    assert_eq!(
        m.title.as_deref(),
        Some("Inspect this project and tell me what is in it. run: ls -la"),
        "the first prompt, not the session context"
    );
    assert_eq!(m.model.as_deref(), Some("gemini-2.5-flash"));
    let summarized = format!("{text}{{\"$set\":{{\"summary\":\"Listing the project\"}}}}\n");
    let m = read_meta(Client::Gemini, &summarized, None);
    assert_eq!(
        m.title.as_deref(),
        Some("Listing the project"),
        "its summary"
    );
    let legacy = std::fs::read_to_string(fixtures.join("legacy.json")).unwrap();
    let m = read_meta(Client::Gemini, &legacy, None);
    assert_eq!(
        m.title.as_deref(),
        Some("What is in notes.txt? run: cat notes.txt")
    );
}

#[test]
fn pi_sessions_are_found_by_their_header_and_resumed_in_their_project() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("--home-dev-proj--");
    std::fs::create_dir(&project).unwrap();
    let name = "2026-01-05T10-00-00-000Z_7c2f9a10-3b4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl";
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pi/session.jsonl"),
    )
    .unwrap();
    std::fs::write(project.join(name), &text).unwrap();
    let stores = Stores {
        pi: Some(root.path().to_path_buf()),
        ..Stores::default()
    };
    let found = find(&stores).unwrap();
    assert_eq!(found.len(), 1);
    let s = &found[0];
    assert_eq!(
        (s.client, s.id.as_str()),
        (Client::Pi, "7c2f9a10-3b4d-4e5f-8a9b-0c1d2e3f4a5b")
    );
    assert_eq!(s.project_key.as_deref(), Some("/home/dev/proj"));
    assert_eq!(s.last_activity, "2026-01-05T10:00:16Z");
    assert!(s.in_project(Path::new("/home/dev/proj")));
    assert_eq!(
        resume_command(s, None),
        "cd /home/dev/proj && pi --session 7c2f9a10-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
    );
    let m = read_meta(Client::Pi, &text, None);
    assert_eq!(
        m.title.as_deref(),
        Some("parser fix"),
        "the session_info name"
    );
    assert_eq!(m.model.as_deref(), Some("claude-sonnet-4-5"));
    let unnamed: String = text
        .lines()
        .filter(|l| !l.contains("session_info"))
        .collect::<Vec<_>>()
        .join("\n");
    let m = read_meta(Client::Pi, &unnamed, None);
    assert_eq!(
        m.title.as_deref(),
        Some("Fix the failing test in src/parser.rs")
    );
}

#[test]
fn times_and_ids_are_read_from_what_the_clients_write() {
    assert_eq!(
        normalize_time("2026-02-11T22:31:35.739Z").as_deref(),
        Some("2026-02-11T22:31:35Z")
    );
    assert_eq!(normalize_time("yesterday"), None);
    assert_eq!(
        id_at_end("rollout-2025-09-01T10-00-00-0199a000-0000-7000-8000-000000000001").as_deref(),
        Some("0199a000-0000-7000-8000-000000000001")
    );
    assert_eq!(id_at_end("rollout-short"), None);
}

#[test]
fn resume_commands_start_where_the_client_finds_the_session() {
    let claude = session(Client::ClaudeCode, "abc", "-w-my-proj", "");
    assert_eq!(
        resume_command(&claude, Some("/w/my proj")),
        "cd '/w/my proj' && claude --resume abc"
    );
    assert_eq!(
        resume_command(&claude, Some("/w/p")),
        "cd /w/p && claude --resume abc"
    );
    let codex = session(Client::Codex, "def", "/w", "");
    assert_eq!(resume_command(&codex, Some("/w")), "codex resume def");
}

fn claude_meta(lines: &[&str], key: Option<&str>) -> Meta {
    read_meta(Client::ClaudeCode, &lines.join("\n"), key)
}

#[test]
fn claude_code_titles_come_from_names_then_summaries_then_the_first_prompt() {
    let prompt = r#"{"type":"user","cwd":"/w/proj/sub","message":{"role":"user","content":"Fix the\n  login bug"}}"#;
    let meta_line =
        r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: injected"}}"#;
    let reminder = r#"{"type":"user","cwd":"/w/proj","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"}]}}"#;
    let answer = r#"{"type":"assistant","message":{"role":"assistant","model":"claude-sonnet-4-5-20250929","content":[]}}"#;
    let m = claude_meta(&[meta_line, reminder, prompt, answer], Some("-w-proj"));
    assert_eq!(m.title.as_deref(), Some("Fix the"));
    assert_eq!(m.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    // The recorded directory the project is named after, even when only a subdirectory is.
    assert_eq!(m.cwd.as_deref(), Some("/w/proj"));
    let sub_only = claude_meta(&[prompt], Some("-w-proj"));
    assert_eq!(sub_only.cwd.as_deref(), Some("/w/proj"));
    let summary = r#"{"type":"summary","summary":"Login bug fixed","leafUuid":"u1"}"#;
    let named = r#"{"type":"custom-title","customTitle":"auth work","sessionId":"s"}"#;
    let m = claude_meta(&[prompt, summary], None);
    assert_eq!(m.title.as_deref(), Some("Login bug fixed"));
    let m = claude_meta(&[named, prompt, summary], None);
    assert_eq!(m.title.as_deref(), Some("auth work"));
    let command = r#"{"type":"user","message":{"role":"user","content":"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 12</command-args>"}}"#;
    assert_eq!(
        claude_meta(&[command, prompt], None).title.as_deref(),
        Some("/review PR 12")
    );
}

#[test]
fn codex_titles_are_the_first_typed_user_message() {
    let lines = [
        r#"{"type":"session_meta","payload":{"id":"s1","cwd":"/w/demo"}}"#,
        r#"{"type":"turn_context","payload":{"cwd":"/w/demo","model":"gpt-5-codex"}}"#,
        r#"{"type":"event_msg","payload":{"type":"user_message","message":"<environment_context><cwd>/w</cwd></environment_context>"}}"#,
        r#"{"type":"event_msg","payload":{"type":"user_message","message":"List the files."}}"#,
        r#"{"type":"event_msg","payload":{"type":"token_count","info":{"model_context_window":272000}}}"#,
    ];
    let m = read_meta(Client::Codex, &lines.join("\n"), None);
    assert_eq!(m.title.as_deref(), Some("List the files."));
    assert_eq!(m.cwd.as_deref(), Some("/w/demo"));
    assert_eq!(m.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(m.context_window, Some(272_000));
}
