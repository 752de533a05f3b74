//! Where the agent clients keep their sessions, and how ctxc finds one.
//!
//! Claude Code keeps them under `$CLAUDE_CONFIG_DIR/projects` (default `~/.claude/projects`):
//! one directory per project, named after the directory Claude Code was started in with every
//! character but letters and digits turned into `-` (older versions turned only `/` and `.`),
//! holding `<sessionId>.jsonl` and the session's subagents in
//! `<sessionId>/subagents/agent-*.jsonl`. Codex keeps them under `$CODEX_HOME/sessions`
//! (default `~/.codex/sessions`) as `YYYY/MM/DD/rollout-<time>-<id>.jsonl`, the project in the
//! first record's `cwd`. pi keeps them under `$PI_CODING_AGENT_DIR/sessions` (default
//! `~/.pi/agent/sessions`) as `--<cwd with / turned into ->--/<time>_<uuid>.jsonl`, the id and
//! project in the first record (the `session` header). Gemini CLI keeps them under
//! `$GEMINI_CLI_HOME/.gemini/tmp` (default `~/.gemini/tmp`) as
//! `<project>/chats/session-<time>-<id8>.jsonl` (`.json` in older versions), the id in the
//! first record and the project directory in `<project>/.project_root`. Qwen Code keeps them
//! under `$QWEN_RUNTIME_DIR/projects` (else `$QWEN_HOME/projects`, default `~/.qwen/projects`)
//! as `<cwd with every character but letters and digits turned into ->/chats/<sessionId>.jsonl`,
//! the id and project in the first record.
//!
//! Finding sessions lists files and reads only what ordering them needs (the last record's
//! time; a Codex file's first record). What the client shows about a session — its title and
//! project — is read by [`meta`]; [`reference`] turns `@ID` into a session for every command.
//! Either store may be in object storage (the variable given as a URL): see [`remote`].

mod meta;
mod reference;
mod remote;

pub use meta::{claude_code_cwd, claude_code_prompt, read_meta};
pub use reference::resolve_all;

use crate::human::Shown;
use crate::store::Url;
use anyhow::{Context, Result};
use serde::Serialize;
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The agent client a session belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    /// Claude Code.
    ClaudeCode,
    /// OpenAI Codex CLI.
    Codex,
    /// The pi coding agent (`@mariozechner/pi-coding-agent`).
    Pi,
    /// Gemini CLI (`@google/gemini-cli`).
    Gemini,
    /// Qwen Code (`@qwen-code/qwen-code`).
    Qwen,
}

impl Client {
    /// The name in listings (the transcript format's name).
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::Pi => "pi",
            Client::Gemini => "gemini",
            Client::Qwen => "qwen",
        }
    }
}

/// The session stores of this machine; a store that does not exist holds no sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stores {
    /// Claude Code's `projects` directory.
    pub claude_code: Option<PathBuf>,
    /// Codex's `sessions` directory.
    pub codex: Option<PathBuf>,
    /// pi's `sessions` directory (on this machine only: pi reads no object storage).
    pub pi: Option<PathBuf>,
    /// Gemini CLI's `tmp` directory (on this machine only).
    pub gemini: Option<PathBuf>,
    /// Qwen Code's `projects` directory (on this machine only).
    pub qwen: Option<PathBuf>,
}

impl Stores {
    /// The stores the environment names (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
    /// `PI_CODING_AGENT_DIR`, `GEMINI_CLI_HOME`, `QWEN_RUNTIME_DIR`, `QWEN_HOME`, `HOME`).
    pub fn from_env() -> Stores {
        Stores::from_vars(|name| std::env::var_os(name))
    }

    /// The stores the variables `var` gives name.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Stores {
        let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = set("HOME").or_else(dirs::home_dir);
        let claude = set("CLAUDE_CONFIG_DIR").or_else(|| home.as_ref().map(|h| h.join(".claude")));
        let codex = set("CODEX_HOME").or_else(|| home.as_ref().map(|h| h.join(".codex")));
        let pi = match set("PI_CODING_AGENT_DIR") {
            Some(dir) => Some(expand_tilde(dir, home.as_deref())),
            None => home.as_ref().map(|h| h.join(".pi").join("agent")),
        };
        // Gemini CLI's `homedir()`: GEMINI_CLI_HOME stands for the home directory.
        let gemini = set("GEMINI_CLI_HOME").or_else(|| home.clone());
        // Qwen Code's runtime base: QWEN_RUNTIME_DIR, else its global dir (QWEN_HOME, ~/.qwen).
        let qwen = set("QWEN_RUNTIME_DIR")
            .or_else(|| set("QWEN_HOME"))
            .map(|d| expand_tilde(d, home.as_deref()))
            .or_else(|| home.as_ref().map(|h| h.join(".qwen")));
        Stores {
            claude_code: claude.map(|d| d.join("projects")),
            codex: codex.map(|d| d.join("sessions")),
            pi: pi.map(|d| d.join("sessions")),
            gemini: gemini.map(|d| d.join(".gemini").join("tmp")),
            qwen: qwen.map(|d| d.join("projects")),
        }
    }

    /// The stores, named for messages.
    pub fn describe(&self) -> String {
        let name = |p: &Option<PathBuf>| p.as_ref().map_or("-".into(), |p| p.shown());
        format!(
            "{} (Claude Code), {} (Codex), {} (pi), {} (Gemini CLI) and {} (Qwen Code)",
            name(&self.claude_code),
            name(&self.codex),
            name(&self.pi),
            name(&self.gemini),
            name(&self.qwen)
        )
    }

    /// The stores that are directories on this machine (not in object storage).
    pub fn local(&self) -> Stores {
        let local = |p: &Option<PathBuf>| p.clone().filter(|p| Url::of_path(p).is_none());
        Stores {
            claude_code: local(&self.claude_code),
            codex: local(&self.codex),
            pi: local(&self.pi),
            gemini: local(&self.gemini),
            qwen: local(&self.qwen),
        }
    }

    /// Whether the object at `url` lies inside one of the stores kept in object storage.
    pub fn contains_object(&self, url: &Url) -> bool {
        [&self.claude_code, &self.codex]
            .into_iter()
            .flatten()
            .filter_map(|root| Url::of_path(root)?.ok())
            .any(|root| {
                let root = root.as_prefix();
                (root.scheme, &root.bucket) == (url.scheme, &url.bucket)
                    && url.key.starts_with(&root.key)
            })
    }

    /// Whether `path` lies inside one of the stores (compared after resolving links).
    pub fn contains(&self, path: &Path) -> bool {
        let Ok(real) = path.canonicalize() else {
            return false;
        };
        [
            &self.claude_code,
            &self.codex,
            &self.pi,
            &self.gemini,
            &self.qwen,
        ]
        .into_iter()
        .flatten()
        .filter_map(|root| root.canonicalize().ok())
        .any(|root| real.starts_with(root))
    }
}

/// One session file in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Whose session it is.
    pub client: Client,
    /// The session id, as the client's resume command takes it.
    pub id: String,
    /// The session file.
    pub path: PathBuf,
    /// Claude Code: the project directory's name in the store. Codex: the recorded `cwd`.
    pub project_key: Option<String>,
    /// The file's size.
    pub bytes: u64,
    /// Claude Code subagent files of the session, with their sizes.
    pub subagents: Vec<(PathBuf, u64)>,
    /// When the session was last active: the newest record's time, else the file's
    /// modification time, as `YYYY-MM-DDTHH:MM:SSZ` (so it sorts as text).
    pub last_activity: String,
}

impl Session {
    /// Whether the session belongs to the project of directory `dir`.
    pub fn in_project(&self, dir: &Path) -> bool {
        let Some(key) = &self.project_key else {
            return false;
        };
        match self.client {
            Client::ClaudeCode => project_dir_names(dir).contains(key),
            Client::Codex | Client::Pi | Client::Gemini | Client::Qwen => Path::new(key) == dir,
        }
    }
}

/// The names Claude Code may have given the project directory of `dir`: every character but
/// ASCII letters and digits turned into `-` (current versions), or only `/` and `.` (older).
pub fn project_dir_names(dir: &Path) -> [String; 2] {
    let text = dir.to_string_lossy();
    let all: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let slash_dot = text.replace(['/', '.'], "-");
    [all, slash_dot]
}

/// Every session in `stores`, newest first (ties by path). Unreadable directories are passed
/// over: a listing shows what it can. A store in object storage that cannot be listed is an
/// error: it was named on purpose, and its sessions missing would go unexplained.
pub fn find(stores: &Stores) -> Result<Vec<Session>> {
    let mut sessions = Vec::new();
    if let Some(root) = &stores.claude_code {
        match Url::of_path(root) {
            Some(url) => remote::claude_code_sessions(&url?, &mut sessions)
                .context("listing Claude Code's session store")?,
            None => claude_code_sessions(root, &mut sessions),
        }
    }
    if let Some(root) = &stores.codex {
        match Url::of_path(root) {
            Some(url) => remote::codex_sessions(&url?, &mut sessions)
                .context("listing Codex's session store")?,
            None => codex_sessions(root, &mut sessions),
        }
    }
    if let Some(root) = stores.pi.as_ref().filter(|r| Url::of_path(r).is_none()) {
        pi_sessions(root, &mut sessions);
    }
    if let Some(root) = stores.gemini.as_ref().filter(|r| Url::of_path(r).is_none()) {
        gemini_sessions(root, &mut sessions);
    }
    if let Some(root) = stores.qwen.as_ref().filter(|r| Url::of_path(r).is_none()) {
        qwen_sessions(root, &mut sessions);
    }
    sessions.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(sessions)
}

fn claude_code_sessions(root: &Path, out: &mut Vec<Session>) {
    for project in read_dir_sorted(root).into_iter().filter(|p| p.is_dir()) {
        let key = project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        for path in read_dir_sorted(&project) {
            let Some(id) = session_file_stem(&path) else {
                continue;
            };
            // Old versions kept subagent transcripts beside the sessions as `agent-*.jsonl`.
            if id.starts_with("agent-") {
                continue;
            }
            let subagents = read_dir_sorted(&project.join(&id).join("subagents"))
                .into_iter()
                .filter(|p| session_file_stem(p).is_some())
                .map(|p| {
                    let bytes = file_len(&p);
                    (p, bytes)
                })
                .collect();
            out.push(Session {
                client: Client::ClaudeCode,
                id,
                bytes: file_len(&path),
                last_activity: last_activity(&path),
                project_key: key.clone(),
                subagents,
                path,
            });
        }
    }
}

fn codex_sessions(root: &Path, out: &mut Vec<Session>) {
    let files = walkdir::WalkDir::new(root)
        .max_depth(4)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path);
    for path in files {
        let Some(stem) = session_file_stem(&path) else {
            continue;
        };
        if !stem.starts_with("rollout-") {
            continue;
        }
        let first = meta::codex_first_record(&path);
        let id = first
            .id
            .or_else(|| id_at_end(&stem))
            .unwrap_or_else(|| stem.clone());
        out.push(Session {
            client: Client::Codex,
            id,
            bytes: file_len(&path),
            last_activity: last_activity(&path),
            project_key: first.cwd,
            subagents: Vec::new(),
            path,
        });
    }
}

/// pi's sessions: `<project>/<time>_<uuid>.jsonl`, the id and cwd in the header line.
fn pi_sessions(root: &Path, out: &mut Vec<Session>) {
    for project in read_dir_sorted(root).into_iter().filter(|p| p.is_dir()) {
        for path in read_dir_sorted(&project) {
            let Some(stem) = session_file_stem(&path) else {
                continue;
            };
            let header = meta::pi_header(&path);
            let Some(id) = header.id.or_else(|| id_at_end(&stem)) else {
                continue;
            };
            out.push(Session {
                client: Client::Pi,
                id,
                bytes: file_len(&path),
                last_activity: last_activity(&path),
                project_key: header.cwd,
                subagents: Vec::new(),
                path,
            });
        }
    }
}

/// Gemini CLI's sessions: `<project>/chats/session-*.jsonl` (or `.json`), as its session
/// browser lists them; subagent sessions (under `chats/<parent>/`, or `kind` `subagent`) are
/// not listed, as the client does not list them.
fn gemini_sessions(root: &Path, out: &mut Vec<Session>) {
    for project in read_dir_sorted(root).into_iter().filter(|p| p.is_dir()) {
        let cwd = std::fs::read_to_string(project.join(".project_root"))
            .ok()
            .map(|text| text.trim_end_matches(['\n', '\r']).to_string())
            .filter(|text| !text.is_empty());
        for path in read_dir_sorted(&project.join("chats")) {
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let is_session = name.starts_with("session-")
                && (name.ends_with(".jsonl") || name.ends_with(".json"))
                && path.is_file()
                && !crate::outputs::is_ctxc_output(&path);
            if !is_session {
                continue;
            }
            let head = meta::gemini_head(&path);
            let Some(id) = head.id.filter(|_| !head.subagent) else {
                continue;
            };
            out.push(Session {
                client: Client::Gemini,
                id,
                bytes: file_len(&path),
                last_activity: last_activity(&path),
                project_key: cwd.clone(),
                subagents: Vec::new(),
                path,
            });
        }
    }
}

/// Qwen Code's sessions: `<project>/chats/<sessionId>.jsonl` (its `SESSION_FILE_PATTERN`: 32
/// to 36 hex digits and dashes), the id and cwd in the first record, as its session list reads
/// them; archived sessions (`chats/archived/`) are not listed, as `--resume` does not find them.
fn qwen_sessions(root: &Path, out: &mut Vec<Session>) {
    for project in read_dir_sorted(root).into_iter().filter(|p| p.is_dir()) {
        for path in read_dir_sorted(&project.join("chats")) {
            let Some(stem) = session_file_stem(&path) else {
                continue;
            };
            let pattern = (32..=36).contains(&stem.len())
                && stem.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
            if !pattern {
                continue;
            }
            let head = meta::qwen_first_record(&path);
            let Some(id) = head.id else {
                continue;
            };
            out.push(Session {
                client: Client::Qwen,
                id,
                bytes: file_len(&path),
                last_activity: last_activity(&path),
                project_key: head.cwd,
                subagents: Vec::new(),
                path,
            });
        }
    }
}

/// `~` and `~/...` as pi expands them in `PI_CODING_AGENT_DIR`.
fn expand_tilde(dir: PathBuf, home: Option<&Path>) -> PathBuf {
    let Some(home) = home else {
        return dir;
    };
    match dir.to_str() {
        Some("~") => home.to_path_buf(),
        Some(text) if text.starts_with("~/") => home.join(&text[2..]),
        _ => dir,
    }
}

/// The stem of a `.jsonl` file that is not one of ctxc's own outputs.
fn session_file_stem(path: &Path) -> Option<String> {
    let is_jsonl = path.extension().is_some_and(|e| e == "jsonl") && path.is_file();
    if !is_jsonl || crate::outputs::is_ctxc_output(path) {
        return None;
    }
    Some(path.file_stem()?.to_string_lossy().into_owned())
}

/// The UUID a Codex rollout's file name ends with.
fn id_at_end(stem: &str) -> Option<String> {
    let start = stem.len().checked_sub(36)?;
    let tail = stem.get(start..)?;
    let is_uuid = tail.len() == 36
        && tail.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    is_uuid.then(|| tail.to_string())
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Bytes read from a file's end to find its newest record's time: a little first (listing
/// a thousand sessions must stay cheap), more when the last records are long.
const TAIL_BYTES: [u64; 2] = [16 * 1024, 256 * 1024];

/// The newest record's `timestamp` among the file's last records, else its modification time.
/// Only the tail is read: sessions run to hundreds of megabytes.
pub fn last_activity(path: &Path) -> String {
    let found = TAIL_BYTES.iter().find_map(|&n| tail_timestamp(path, n));
    found.unwrap_or_else(|| {
        let secs = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        crate::time::rfc3339(secs)
    })
}

fn tail_timestamp(path: &Path, tail: u64) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Stamped {
        timestamp: Option<String>,
    }
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(tail);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if start > 0 && !lines.is_empty() {
        // The first line was cut by the seek.
        lines.remove(0);
    }
    lines.iter().rev().find_map(|line| {
        let stamped: Stamped = serde_json::from_str(line).ok()?;
        normalize_time(&stamped.timestamp?)
    })
}

/// `2026-02-11T22:31:35.739Z` → `2026-02-11T22:31:35Z`; anything else is not a time.
pub fn normalize_time(text: &str) -> Option<String> {
    let head = text.get(..19)?;
    let shape = head.char_indices().all(|(i, c)| match i {
        4 | 7 => c == '-',
        10 => c == 'T',
        13 | 16 => c == ':',
        _ => c.is_ascii_digit(),
    });
    shape.then(|| format!("{head}Z"))
}

/// The session stored at `path`, if `path` is a session file in one of `stores` (compared
/// after resolving links, so any spelling of the path is recognised).
pub fn locate(path: &Path, stores: &Stores) -> Option<Session> {
    if !stores.contains(path) {
        return None;
    }
    let real = path.canonicalize().ok()?;
    find(&stores.local())
        .ok()?
        .into_iter()
        .find(|s| s.path.canonicalize().ok().as_deref() == Some(real.as_path()))
}

/// The command that resumes the session stored at `path`, if it is one: what ctxc prints
/// after compacting a session in place.
pub fn resume_command_of(path: &Path) -> Option<String> {
    let session = locate(path, &Stores::from_env())?;
    let cwd = match session.client {
        Client::ClaudeCode => claude_code_cwd(&session.path, session.project_key.as_deref()),
        Client::Codex | Client::Pi | Client::Gemini | Client::Qwen => None,
    };
    Some(resume_command(&session, cwd.as_deref()))
}

/// The command that resumes `session` in its client; Claude Code finds a session through its
/// project, so its command starts in the project's directory (`cwd`, when known). So does
/// pi's: `pi --session ID` looks in the current project first, and offers to fork a session
/// it finds in another.
pub fn resume_command(session: &Session, cwd: Option<&str>) -> String {
    match (session.client, cwd) {
        (Client::ClaudeCode, Some(dir)) => {
            format!("cd {} && claude --resume {}", shell_quote(dir), session.id)
        }
        (Client::ClaudeCode, None) => format!("claude --resume {}", session.id),
        (Client::Codex, _) => format!("codex resume {}", session.id),
        (Client::Pi, _) => match cwd.or(session.project_key.as_deref()) {
            Some(dir) => format!("cd {} && pi --session {}", shell_quote(dir), session.id),
            None => format!("pi --session {}", session.id),
        },
        // `--resume` looks in the current project's chats only.
        (Client::Gemini, _) => match cwd.or(session.project_key.as_deref()) {
            Some(dir) => format!("cd {} && gemini --resume {}", shell_quote(dir), session.id),
            None => format!("gemini --resume {}", session.id),
        },
        // Likewise `qwen --resume ID`: the current project's chats only.
        (Client::Qwen, _) => match cwd.or(session.project_key.as_deref()) {
            Some(dir) => format!("cd {} && qwen --resume {}", shell_quote(dir), session.id),
            None => format!("qwen --resume {}", session.id),
        },
    }
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests;
