//! `ctxc sessions` and session references against a fake store: a temp HOME whose
//! `.claude/projects` and `.codex/sessions` hold copies of corpus sessions (subagent files
//! included) and of the Codex fixture, with the command run from a project directory.

use crate::{ctxc, fixture, shared, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

const BIG: &str = "8463c716-a2ea-4c14-9efa-87158ebd9f20";
const OTHER: &str = "258c7280-ae70-4798-800f-63464d01a85d";
const CODEX: &str = "0199a000-0000-7000-8000-000000000001";
const PI_V1: &str = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
const PI_V3: &str = "7c2f9a10-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
const GEMINI: &str = "745f759b-422d-42b6-b6dc-f1cfee757111";
const GEMINI_OLD: &str = "120af687-b4f1-456b-b5e3-f3d3ccddf8ef";
const QWEN: &str = "db931ca0-f829-4262-b2b8-996461ee586d";
const QWEN_LONG: &str = "1297d018-4b41-47b1-8dd6-7ab9b06b3e2f";
const TWINS: [&str; 2] = [
    "aaaabbbb-0001-4000-8000-000000000001",
    "aaaabbbb-0002-4000-8000-000000000002",
];

/// A fake machine: `home` with both clients' stores, `proj` the directory ctxc runs in.
struct Machine {
    _dir: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let proj = root.join("proj");
        std::fs::create_dir_all(&proj).unwrap();
        let projects = home.join(".claude/projects");
        let here = projects.join(claude_project_name(&proj));
        let spotter = "corpus/claude-code/spotter";
        copy(
            &shared(&format!("{spotter}/{BIG}.jsonl")),
            &here.join(format!("{BIG}.jsonl")),
        );
        copy_dir(&shared(&format!("{spotter}/{BIG}")), &here.join(BIG));
        copy(
            &shared(&format!("{spotter}/tool_heavy.jsonl")),
            &here.join("tool_heavy.jsonl"),
        );
        // Another project, named as Claude Code names the directory its records give.
        let gqc = projects.join("-home-USER-projects-spotter-worktrees-spotter-gqc");
        copy(
            &shared(&format!("{spotter}/{OTHER}.jsonl")),
            &gqc.join(format!("{OTHER}.jsonl")),
        );
        copy_dir(&shared(&format!("{spotter}/{OTHER}")), &gqc.join(OTHER));
        for twin in TWINS {
            let to = projects.join("-w-twins").join(format!("{twin}.jsonl"));
            copy(&shared(&format!("{spotter}/short.jsonl")), &to);
        }
        // A Codex rollout started in this project.
        let rollout = std::fs::read_to_string(fixture("codex/session.jsonl"))
            .unwrap()
            .replace("/work/demo", proj.to_str().unwrap());
        let day = home.join(".codex/sessions/2025/09/01");
        std::fs::create_dir_all(&day).unwrap();
        std::fs::write(
            day.join(format!("rollout-2025-09-01T10-00-00-{CODEX}.jsonl")),
            rollout,
        )
        .unwrap();
        Machine {
            _dir: dir,
            home,
            proj,
        }
    }

    /// `ctxc` run from the project directory of this machine.
    fn ctxc(&self) -> assert_cmd::Command {
        self.ctxc_in(&self.proj)
    }

    fn ctxc_in(&self, dir: &Path) -> assert_cmd::Command {
        let mut cmd = ctxc();
        cmd.env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("QWEN_HOME")
            .env_remove("QWEN_RUNTIME_DIR")
            .current_dir(dir);
        cmd
    }

    /// Adds two pi sessions started in this project to the machine's pi store, as pi names
    /// them: the real version 1 excerpt (moved into this project) and the version 3 fixture.
    /// Returns their files.
    fn add_pi(&self) -> [PathBuf; 2] {
        let cwd = self.proj.to_str().unwrap();
        let dir = self.home.join(".pi/agent/sessions").join(format!(
            "--{}--",
            cwd.trim_start_matches('/').replace('/', "-")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let v1 = std::fs::read_to_string(fixture("pi/v1-head.jsonl"))
            .unwrap()
            .replacen("/Users/badlogic/workspaces/pi-mono", cwd, 1);
        let v3 = std::fs::read_to_string(fixture("pi/session.jsonl"))
            .unwrap()
            .replacen("/home/dev/proj", cwd, 1);
        let files = [
            dir.join(format!("2025-11-20T23-33-50-805Z_{PI_V1}.jsonl")),
            dir.join(format!("2026-01-05T10-00-00-000Z_{PI_V3}.jsonl")),
        ];
        std::fs::write(&files[0], v1).unwrap();
        std::fs::write(&files[1], v3).unwrap();
        files
    }

    /// Adds the two recorded Gemini CLI sessions to the machine's Gemini CLI store, in a
    /// project directory named as the client's project registry names it, with the
    /// `.project_root` it writes there. Returns their files (JSON Lines, then the older JSON).
    fn add_gemini(&self) -> [PathBuf; 2] {
        let dir = self.home.join(".gemini/tmp/proj");
        std::fs::create_dir_all(dir.join("chats")).unwrap();
        std::fs::write(dir.join(".project_root"), self.proj.to_str().unwrap()).unwrap();
        let files = [
            dir.join("chats/session-2026-12-02T15-27-745f759b.jsonl"),
            dir.join("chats/session-2026-12-02T15-52-120af687.json"),
        ];
        copy(&fixture("gemini/resumed.jsonl"), &files[0]);
        copy(&fixture("gemini/legacy.json"), &files[1]);
        files
    }

    /// Adds the recorded Qwen Code sessions (compressed by `/compress`, and long) to the
    /// machine's Qwen Code store, moved into this project as the client names its directory.
    /// Returns their files.
    fn add_qwen(&self) -> [PathBuf; 2] {
        let cwd = self.proj.to_str().unwrap();
        let dir = self
            .home
            .join(".qwen/projects")
            .join(claude_project_name(&self.proj))
            .join("chats");
        std::fs::create_dir_all(&dir).unwrap();
        let files = [
            dir.join(format!("{QWEN}.jsonl")),
            dir.join(format!("{QWEN_LONG}.jsonl")),
        ];
        for (file, name) in files.iter().zip(["compressed", "long"]) {
            let text = std::fs::read_to_string(fixture(&format!("qwen/{name}.jsonl")))
                .unwrap()
                .replace("/tmp/qwen/proj", cwd);
            std::fs::write(file, text).unwrap();
        }
        files
    }

    fn session_file(&self, id: &str) -> PathBuf {
        self.home
            .join(".claude/projects")
            .join(claude_project_name(&self.proj))
            .join(format!("{id}.jsonl"))
    }
}

/// What Claude Code names the project directory of `dir`.
fn claude_project_name(dir: &Path) -> String {
    dir.to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Copies a file, writable as the client's own files are.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(to, std::fs::read(from).unwrap()).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(from).unwrap();
            copy(entry.path(), &to.join(rel));
        }
    }
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout_of(out), stderr(out)))
}

use crate::stderr_of as stderr;

fn ids(listing: &Value) -> Vec<String> {
    listing["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

fn entry<'a>(listing: &'a Value, id: &str) -> &'a Value {
    listing["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed"))
}

/// The context tokens `ctxc stats` counts for a file.
fn stats_tokens(m: &Machine, input: &str) -> u64 {
    stats_file(m, input)["contextTokens"].as_u64().unwrap()
}

/// The provider tokens `ctxc stats` calibrates for a file from the usage it records.
fn stats_calibrated_tokens(m: &Machine, input: &str) -> u64 {
    stats_file(m, input)["calibratedContextTokens"]
        .as_u64()
        .unwrap()
}

fn stats_file(m: &Machine, input: &str) -> Value {
    let out = m.ctxc().args(["stats", "--json", input]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    json(&out)["files"][0].clone()
}

#[test]
fn this_projects_sessions_are_listed_newest_first() {
    let m = Machine::new();
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = json(&out);
    assert_eq!(ids(&listing), [BIG, "tool_heavy", CODEX]);
    assert_eq!(listing["project"], m.proj.to_str().unwrap());
    let big = entry(&listing, BIG);
    assert_eq!(big["client"], "claude-code");
    assert_eq!(big["bytes"], 2_939_976);
    assert_eq!(big["lastActivity"], "2026-02-11T22:54:29Z");
    assert_eq!(big["subagents"].as_array().unwrap().len(), 2, "{big}");
    assert!(
        big["title"]
            .as_str()
            .unwrap()
            .starts_with("Work on bead spotter-fum."),
        "{big}"
    );
    let path = big["path"].as_str().unwrap();
    assert_eq!(Path::new(path), m.session_file(BIG));
    // The session records Claude's usage: the listing shows the calibrated figure.
    let tokens = big["contextTokens"].as_u64().unwrap();
    assert_eq!(big["calibrated"], true, "{big}");
    assert_eq!(tokens, stats_calibrated_tokens(&m, path));
    assert!(tokens > stats_tokens(&m, path));
    assert_eq!(
        big["contextWindow"], 200_000,
        "the session's model is a Claude model"
    );
    assert_eq!(
        big["windowShare"].as_f64().unwrap(),
        tokens as f64 / 200_000.0
    );
    let resume = format!("cd {} && claude --resume {BIG}", m.proj.display());
    assert_eq!(big["resume"], resume.as_str());
    let codex = entry(&listing, CODEX);
    assert_eq!(codex["client"], "codex");
    assert_eq!(codex["title"], "List the files and fix the typo in a.txt.");
    assert_eq!(codex["project"], m.proj.to_str().unwrap());
    assert_eq!(codex["resume"], format!("codex resume {CODEX}").as_str());

    let table = m.ctxc().arg("sessions").output().unwrap();
    assert!(table.status.success());
    let text = stdout_of(&table);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("ID") && lines[0].contains("CONTEXT"),
        "{text}"
    );
    let first_two = |line: &str| {
        line.split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(first_two(lines[1]), "8463c716 claude", "{text}");
    assert_eq!(first_two(lines[2]), "tool_heavy claude", "{text}");
    assert_eq!(first_two(lines[3]), "0199a000 codex", "{text}");
    assert!(text.contains("3 sessions of"), "{text}");
}

/// pi's sessions are listed beside Claude Code's and Codex's, with the title and resume
/// command pi's own picker and `--session` take; one compacted in place with an archive is
/// restored byte for byte.
#[test]
fn pi_sessions_are_listed_compacted_in_place_and_restored() {
    let m = Machine::new();
    let [v1, v3] = m.add_pi();
    let original = std::fs::read(&v1).unwrap();
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = json(&out);
    assert_eq!(ids(&listing), [BIG, "tool_heavy", PI_V3, PI_V1, CODEX]);
    let named = entry(&listing, PI_V3);
    assert_eq!(named["client"], "pi");
    assert_eq!(named["title"], "parser fix", "pi's session_info name");
    assert_eq!(named["project"], m.proj.to_str().unwrap());
    assert_eq!(named["lastActivity"], "2026-01-05T10:00:16Z");
    let real = entry(&listing, PI_V1);
    assert_eq!(real["title"], "/mode", "the first prompt");
    assert_eq!(real["bytes"], original.len());
    assert_eq!(
        real["calibrated"], true,
        "pi-ai's usage calibrates it: {real}"
    );
    assert_eq!(real["contextWindow"], 200_000, "a Claude model: {real}");
    let resume = format!("cd {} && pi --session {PI_V1}", m.proj.display());
    assert_eq!(real["resume"], resume.as_str());
    let table = stdout_of(&m.ctxc().arg("sessions").output().unwrap());
    let row = table
        .lines()
        .find(|l| l.starts_with("d703a1a9 "))
        .unwrap_or("");
    assert_eq!(row.split_whitespace().nth(1), Some("pi"), "{table}");
    assert!(table.contains("(pi)"), "the store is named: {table}");

    let out = m
        .ctxc()
        .args([
            "compact",
            "--in-place",
            "--archive",
            "--target-ratio",
            "0.25",
            // A summary, so pi's compaction entry is written (adaptive masks first).
            "--strategy",
            "sliding-window",
            "@d703",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("resume it with: {resume}")),
        "{}",
        stderr(&out)
    );
    let compacted = std::fs::read_to_string(&v1).unwrap();
    assert!(
        compacted.len() < original.len() / 2,
        "{} bytes",
        compacted.len()
    );
    assert!(
        compacted.contains("\"type\":\"compaction\""),
        "a compaction entry pi reads"
    );
    let check = m.ctxc().args(["check", "@d703"]).output().unwrap();
    assert!(check.status.success(), "{}", stdout_of(&check));
    let out = m.ctxc().args(["restore", "@d703"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&v1).unwrap(), original);
    assert!(v3.exists());
}

/// Gemini CLI's sessions (its JSON Lines and its older JSON files) are listed beside every
/// other client's, with the title its session browser shows and the resume command it takes;
/// each compacted in place with an archive is restored byte for byte.
#[test]
fn gemini_sessions_are_listed_compacted_in_place_and_restored() {
    let m = Machine::new();
    m.add_pi();
    let files = m.add_gemini();
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = json(&out);
    let mut clients: Vec<String> = listing["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["client"].as_str().unwrap().to_string())
        .collect();
    clients.sort();
    clients.dedup();
    assert_eq!(clients, ["claude-code", "codex", "gemini", "pi"]);
    let session = entry(&listing, GEMINI);
    assert_eq!(session["client"], "gemini");
    assert_eq!(
        session["title"],
        "Inspect this project and tell me what is in it. run: ls -la"
    );
    assert_eq!(session["project"], m.proj.to_str().unwrap());
    assert_eq!(session["lastActivity"], "2026-12-02T15:27:56Z");
    assert_eq!(
        entry(&listing, GEMINI_OLD)["title"],
        "What is in notes.txt? run: cat notes.txt"
    );
    let table = stdout_of(&m.ctxc().arg("sessions").output().unwrap());
    assert!(
        table.contains("(Gemini CLI)"),
        "the store is named: {table}"
    );

    for (file, id) in files.iter().zip([GEMINI, GEMINI_OLD]) {
        let original = std::fs::read(file).unwrap();
        let short = &id[..4];
        let resume = format!("cd {} && gemini --resume {id}", m.proj.display());
        assert_eq!(entry(&listing, id)["resume"], resume.as_str());
        let out = m
            .ctxc()
            .args([
                "compact",
                "--in-place",
                "--archive",
                "--drop-stored",
                "--force",
            ])
            .args(["--target-ratio", "0.25", &format!("@{short}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("resume it with: {resume}")),
            "{}",
            stderr(&out)
        );
        let compacted = std::fs::read(file).unwrap();
        // Smaller; not by half in bytes: outputs are masked and every call kept, and what
        // the client stores beside the messages stays.
        assert!(
            compacted.len() < original.len(),
            "{id}: {} bytes",
            compacted.len()
        );
        let check = m
            .ctxc()
            .args(["check", &format!("@{short}")])
            .output()
            .unwrap();
        assert!(check.status.success(), "{}", stdout_of(&check));
        let out = m
            .ctxc()
            .args(["restore", &format!("@{short}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            std::fs::read(file).unwrap() == original,
            "{id} restored byte for byte"
        );
    }
}

/// Qwen Code sessions are listed beside the four other clients' in one HOME, with the title
/// and resume hint the client gives them, and each compacted in place with an archive is
/// restored byte for byte.
#[test]
fn qwen_sessions_are_listed_compacted_in_place_and_restored() {
    let m = Machine::new();
    m.add_pi();
    m.add_gemini();
    let files = m.add_qwen();
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = json(&out);
    let mut clients: Vec<String> = listing["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["client"].as_str().unwrap().to_string())
        .collect();
    clients.sort();
    clients.dedup();
    assert_eq!(clients, ["claude-code", "codex", "gemini", "pi", "qwen"]);
    let session = entry(&listing, QWEN);
    assert_eq!(session["client"], "qwen");
    assert_eq!(
        session["title"],
        "Inspect this project and tell me what is in it. run: ls -la"
    );
    assert_eq!(session["project"], m.proj.to_str().unwrap());
    assert_eq!(session["lastActivity"], "2026-12-03T12:23:22Z");
    assert_eq!(
        entry(&listing, QWEN_LONG)["title"],
        "Read the long file for me. run: cat long.txt"
    );
    let table = stdout_of(&m.ctxc().arg("sessions").output().unwrap());
    assert!(table.contains("(Qwen Code)"), "the store is named: {table}");

    for (file, id) in files.iter().zip([QWEN, QWEN_LONG]) {
        let original = std::fs::read(file).unwrap();
        let short = &id[..4];
        let resume = format!("cd {} && qwen --resume {id}", m.proj.display());
        assert_eq!(entry(&listing, id)["resume"], resume.as_str());
        let out = m
            .ctxc()
            .args([
                "compact",
                "--in-place",
                "--archive",
                "--drop-stored",
                "--force",
            ])
            .args(["--target-ratio", "0.25", &format!("@{short}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("resume it with: {resume}")),
            "{}",
            stderr(&out)
        );
        let compacted = std::fs::read(file).unwrap();
        assert!(
            compacted.len() < original.len() * 3 / 4,
            "{id}: {} of {} bytes",
            compacted.len(),
            original.len()
        );
        let check = m
            .ctxc()
            .args(["check", &format!("@{short}")])
            .output()
            .unwrap();
        assert!(check.status.success(), "{}", stdout_of(&check));
        let out = m
            .ctxc()
            .args(["restore", &format!("@{short}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            std::fs::read(file).unwrap() == original,
            "{id} restored byte for byte"
        );
    }
}

#[test]
fn all_lists_every_project_with_ids_short_enough_to_type() {
    let m = Machine::new();
    let out = m
        .ctxc()
        .args(["sessions", "--all", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = json(&out);
    assert_eq!(listing["project"], Value::Null);
    let mut listed = ids(&listing);
    listed.sort();
    let mut expected = vec![BIG, OTHER, CODEX, "tool_heavy", TWINS[0], TWINS[1]];
    expected.sort();
    assert_eq!(
        listed, expected,
        "subagent files are part of their session, not sessions"
    );
    assert_eq!(entry(&listing, TWINS[0])["shortId"], "aaaabbbb-0001");
    assert_eq!(entry(&listing, OTHER)["shortId"], "258c7280");
    assert_eq!(
        entry(&listing, OTHER)["resume"],
        format!("cd /home/USER/projects/spotter-worktrees/spotter-gqc && claude --resume {OTHER}")
            .as_str()
    );
}

#[test]
fn the_clients_variables_move_their_stores() {
    let m = Machine::new();
    let config = m.home.join("elsewhere");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::rename(m.home.join(".claude"), config.join("claude")).unwrap();
    std::fs::rename(m.home.join(".codex"), config.join("codex")).unwrap();
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert!(ids(&json(&out)).is_empty(), "nothing left under HOME");
    let out = m
        .ctxc()
        .args(["sessions", "--json"])
        .env("CLAUDE_CONFIG_DIR", config.join("claude"))
        .env("CODEX_HOME", config.join("codex"))
        .output()
        .unwrap();
    assert_eq!(ids(&json(&out)), [BIG, "tool_heavy", CODEX]);
}

#[test]
fn a_session_reference_works_wherever_a_path_does() {
    let m = Machine::new();
    let big = m.session_file(BIG);
    for reference in ["@", "@latest", "@8463", &format!("@{BIG}"), "@8463C716"] {
        let out = m
            .ctxc()
            .args(["stats", "--json", reference])
            .output()
            .unwrap();
        assert!(out.status.success(), "{reference}: {}", stderr(&out));
        assert_eq!(
            Path::new(json(&out)["files"][0]["path"].as_str().unwrap()),
            big,
            "{reference}"
        );
    }
    let out = m
        .ctxc()
        .args(["check", "@0199", "@tool_h"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("checked 2 files: 2 valid"),
        "{}",
        stderr(&out)
    );
    // A file whose name starts with @ is named with a directory.
    copy(&fixture("codex/session.jsonl"), &m.proj.join("@mine.jsonl"));
    let out = m.ctxc().args(["check", "./@mine.jsonl"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn unknown_and_ambiguous_references_are_usage_errors() {
    let m = Machine::new();
    let fails = |cmd: &mut assert_cmd::Command, wanted: &[&str]| {
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(out.stdout.is_empty(), "{}", stdout_of(&out));
        for w in wanted {
            assert!(stderr(&out).contains(w), "{w} not in: {}", stderr(&out));
        }
    };
    fails(
        m.ctxc().args(["stats", "@aaaabbbb"]),
        &[
            "@aaaabbbb is ambiguous: 2 sessions match",
            TWINS[0],
            TWINS[1],
        ],
    );
    fails(
        m.ctxc().args(["compact", "--in-place", "@ffff"]),
        &["@ffff: no session id starts with 'ffff'"],
    );
    fails(
        m.ctxc().args(["check", "@a/b.jsonl"]),
        &["not a session reference", "./@a/b.jsonl"],
    );
    let empty = m.home.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    fails(
        m.ctxc_in(&empty).args(["stats", "@"]),
        &["no Claude Code, Codex, pi or Gemini CLI session of this directory's project"],
    );
}

#[test]
fn a_session_compacted_in_place_prints_how_to_resume_it_and_restores_exactly() {
    let m = Machine::new();
    let file = m.session_file(BIG);
    let original = std::fs::read(&file).unwrap();
    let tokens = stats_tokens(&m, "@8463");
    let out = m
        .ctxc()
        .args([
            "compact",
            "--in-place",
            "--drop-stored",
            "--archive",
            "--json",
            "@8463",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let resume = format!("cd {} && claude --resume {BIG}", m.proj.display());
    assert!(
        stderr(&out).contains(&format!("resume it with: {resume}")),
        "{}",
        stderr(&out)
    );
    let report = json(&out);
    let f = &report["files"][0];
    assert_eq!(f["resume"], resume.as_str());
    assert_eq!(f["bytesBefore"], original.len());
    let after = std::fs::metadata(&file).unwrap().len();
    assert_eq!(f["bytesAfter"], after);
    assert!(
        after * 100 < original.len() as u64 * 15,
        "{after} of {} bytes",
        original.len()
    );
    assert_eq!(
        stats_tokens(&m, "@8463"),
        tokens,
        "what the model is sent is unchanged"
    );
    let check = m.ctxc().args(["check", "@8463"]).output().unwrap();
    assert!(check.status.success(), "{}", stdout_of(&check));
    // The subagent files are left alone.
    assert_eq!(
        std::fs::read(
            file.with_extension("")
                .join("subagents/agent-a7be2f0.jsonl")
        )
        .unwrap(),
        std::fs::read(shared(&format!(
            "corpus/claude-code/spotter/{BIG}/subagents/agent-a7be2f0.jsonl"
        )))
        .unwrap()
    );
    let restored = m.proj.join("restored.jsonl");
    let out = m
        .ctxc()
        .args(["restore", "@8463", "-o", restored.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&restored).unwrap(), original);
    let show = m
        .ctxc()
        .args(["archive", "show", "@8463"])
        .output()
        .unwrap();
    assert!(show.status.success(), "{}", stderr(&show));
    assert!(
        stdout_of(&show).contains("drop-stored: "),
        "{}",
        stdout_of(&show)
    );

    let out = m
        .ctxc()
        .args(["compact", "--in-place", "@0199"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("resume it with: codex resume {CODEX}")),
        "{}",
        stderr(&out)
    );
}

/// `--drop-stored` drops the history above the compact boundary, where this session's first
/// prompt is, but keeps that prompt: it is what Claude Code and `ctxc sessions` title the
/// session with.
#[test]
fn dropping_stored_history_keeps_the_title() {
    let m = Machine::new();
    let title = || {
        let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        entry(&json(&out), BIG)["title"].clone()
    };
    let before = title();
    assert!(
        before
            .as_str()
            .unwrap()
            .starts_with("Work on bead spotter-fum."),
        "{before}"
    );
    let out = m
        .ctxc()
        .args(["compact", "-q", "--in-place", "--drop-stored", "@8463"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(title(), before);
    let text = std::fs::read_to_string(m.session_file(BIG)).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "user", "the prompt opens the file: {first}");
    assert_eq!(
        first["parentUuid"],
        Value::Null,
        "its dropped parent is unlinked"
    );
    let check = m.ctxc().args(["check", "@8463"]).output().unwrap();
    assert!(check.status.success(), "{}", stdout_of(&check));
}

/// `restore @ID` after `compact --in-place` is its undo: the original goes back over the
/// compacted file, which is kept beside it as NAME.jsonl.compacted (never over another file);
/// restoring again finds the original in place and writes nothing.
#[test]
fn restoring_a_session_compacted_in_place_undoes_it_keeping_the_compacted_file() {
    let m = Machine::new();
    let file = m.session_file(BIG);
    let original = std::fs::read(&file).unwrap();
    let compact = || {
        let out = m
            .ctxc()
            .args([
                "compact",
                "-q",
                "--in-place",
                "--drop-stored",
                "--archive",
                "@8463",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read(&file).unwrap()
    };
    let compacted = compact();
    let mut kept = file.clone().into_os_string();
    kept.push(".compacted");
    let kept = PathBuf::from(kept);
    // A file already there under the backup's name is never overwritten.
    std::fs::write(&kept, "something else").unwrap();
    let out = m.ctxc().args(["restore", "@8463"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(" exists: restoring over "),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&file).unwrap(), compacted);
    assert_eq!(std::fs::read(&kept).unwrap(), b"something else");
    std::fs::remove_file(&kept).unwrap();

    let out = m.ctxc().args(["restore", "@8463"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&file).unwrap(), original);
    assert_eq!(std::fs::read(&kept).unwrap(), compacted);
    let said = stderr(&out);
    assert!(
        said.contains(&format!("the compacted file is kept as {}", kept.display())),
        "{said}"
    );
    let out = m.ctxc().args(["restore", "@8463"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("nothing written"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&file).unwrap(), original);
    // The session is listed as before, and the backup is no session.
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert_eq!(ids(&json(&out)), [BIG, "tool_heavy", CODEX]);
    assert_eq!(compact(), compacted, "compacted again as the first time");
}

#[test]
fn a_compacted_copy_is_never_written_into_a_store() {
    let m = Machine::new();
    let dir = m.session_file(BIG).parent().unwrap().to_path_buf();
    let before = std::fs::read_dir(&dir).unwrap().count();
    let out = m
        .ctxc()
        .args(["compact", "--force", "@8463"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("use --in-place"), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before);
    let copy = m.proj.join("copy.jsonl");
    let out = m
        .ctxc()
        .args([
            "compact",
            "--drop-stored",
            "-o",
            copy.to_str().unwrap(),
            "@8463",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(copy.exists());
}

#[test]
fn a_damaged_session_is_named_and_the_others_still_listed() {
    let m = Machine::new();
    let broken = m.session_file("dddd0000-0000-4000-8000-000000000000");
    std::fs::write(&broken, "{\"type\":\"user\"}\nnot json\n").unwrap();
    let out = m.ctxc().args(["sessions", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let listing = json(&out);
    assert_eq!(ids(&listing).len(), 4);
    let damaged = entry(&listing, "dddd0000-0000-4000-8000-000000000000");
    assert_eq!(damaged["contextTokens"], Value::Null);
    let error = stderr(&out);
    assert!(
        error.contains(&format!("{}: line 2: invalid JSON", broken.display())),
        "{error}"
    );
}

/// A failed write of the listing (or of `config show`) is an output error, exit 1 as for every
/// other command, not the usage code 2.
#[test]
fn a_full_standard_output_exits_1() {
    let m = Machine::new();
    for args in [
        &["sessions"][..],
        &["sessions", "--json"],
        &["config", "show"],
        &["config", "show", "--json"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        // assert_cmd cannot hand the child a file for stdout: the same environment by hand.
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxc"));
        cmd.env("HOME", &m.home)
            .env("XDG_CONFIG_HOME", m.home.join("no-user-config"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .current_dir(&m.proj);
        for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("CTXC_")) {
            cmd.env_remove(name);
        }
        let out = cmd.args(args).stdout(full).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).trim_end(),
            "ctxc: writing to standard output: No space left on device (os error 28)",
            "{args:?}"
        );
    }
}

/// A session file over --max-input-bytes is named, unread, and the others still measured.
#[test]
fn a_session_over_the_limit_is_named_and_the_others_still_listed() {
    let m = Machine::new();
    let big = m.session_file(BIG);
    let out = m
        .ctxc()
        .args(["sessions", "--json", "--max-input-bytes", "1M"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let listing = json(&out);
    let size = std::fs::metadata(&big).unwrap().len();
    assert_eq!(
        entry(&listing, BIG)["error"],
        format!("larger than --max-input-bytes (1048576 bytes): {size} bytes, not read")
    );
    for id in ids(&listing).iter().filter(|id| *id != BIG) {
        assert!(entry(&listing, id)["contextTokens"].is_u64(), "{id}");
    }
    assert!(
        stderr(&out).contains(&format!("{}: larger than --max-input-bytes", big.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_session_under_an_odd_folder_name_compacted_in_place_still_says_how_to_resume_it() {
    // The report names the file escaped (a backslash doubled); the resume hint is looked up
    // by the real name.
    let m = Machine::new();
    let odd = m.home.join(".claude/projects").join("-w-odd\\dir");
    copy(
        &shared("corpus/claude-code/spotter/short.jsonl"),
        &odd.join("short.jsonl"),
    );
    let file = odd.join("short.jsonl");
    let out = m
        .ctxc()
        .args([
            "compact",
            "--in-place",
            "--force",
            "--target-ratio",
            "0.5",
            "--json",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    let resume = report["files"][0]["resume"].as_str().unwrap_or_default();
    assert!(resume.ends_with("claude --resume short"), "{report}");
}

#[test]
fn a_session_id_holding_a_newline_is_listed_escaped() {
    // The id is the client's file name: printed raw, it would forge a line of the table.
    let m = Machine::new();
    let odd = m.home.join(".claude/projects/-w-odd");
    copy(
        &shared("corpus/claude-code/spotter/short.jsonl"),
        &odd.join("evil\nid.jsonl"),
    );
    let out = m.ctxc().args(["sessions", "--all"]).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(listed.contains("evil\\nid"), "{listed}");
    assert!(!listed.lines().any(|l| l.starts_with("id ")), "{listed}");
}
