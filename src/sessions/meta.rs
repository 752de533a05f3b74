//! What a client shows about a session, read from its records: the title, the project
//! directory, and the model (for the context window).
//!
//! Claude Code titles a session with the name the user gave it (`custom-title` records), else
//! its generated summary (`summary` records), else the first prompt the user typed — not
//! command expansions, caveats, compaction summaries or tool results. Codex titles it with the
//! first `user_message` event that is not injected context. pi titles it with its latest
//! `session_info` name, else its first user message. Gemini CLI titles it with its `summary`
//! (metadata, or a `$set` of it), else its first user message the client would resume. Qwen
//! Code titles it with its latest `custom_title` record, else its first user prompt (a `user`
//! record without a subtype).

use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::Client;

/// What a session's records say about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// The title the client shows, on one line.
    pub title: Option<String>,
    /// The directory the session was started in.
    pub cwd: Option<String>,
    /// The model of the latest turn.
    pub model: Option<String>,
    /// The context window the client recorded (Codex `model_context_window`).
    pub context_window: Option<usize>,
}

/// Starts of user text that the client or harness wrote, not the user (besides text that
/// opens with a tag, such as `<system-reminder>` or `<task-notification>`).
const INJECTED_PREFIXES: [&str; 3] = [
    "Caveat:",
    "[Request interrupted",
    "# AGENTS.md instructions",
];

/// Reads the meta of a session whose file text is `text`; `project_key` is the name of its
/// Claude Code project directory.
pub fn read_meta(client: Client, text: &str, project_key: Option<&str>) -> Meta {
    let mut scan = Scan::default();
    if client == Client::Gemini {
        scan.gemini_file(text);
        return scan.finish(project_key);
    }
    for line in text.lines() {
        match client {
            Client::ClaudeCode => scan.claude_code(line),
            Client::Codex => scan.codex(line),
            Client::Pi => scan.pi(line),
            Client::Qwen => scan.qwen(line),
            // Read above, as a whole.
            Client::Gemini => {}
        }
    }
    scan.finish(project_key)
}

#[derive(Default)]
struct Scan {
    meta: Meta,
    custom_title: Option<String>,
    summary: Option<String>,
    first_prompt: Option<String>,
    /// Claude Code: every `cwd` recorded, in order of first appearance.
    cwds: Vec<String>,
}

impl Scan {
    fn claude_code(&mut self, line: &str) {
        let Ok(mut r) = serde_json::from_str::<ClaudeRecord>(line) else {
            return;
        };
        if let Some(cwd) = r
            .cwd
            .take()
            .filter(|c| !c.is_empty() && !self.cwds.contains(c))
        {
            self.cwds.push(cwd);
        }
        match r.kind.as_deref() {
            Some("custom-title") => self.custom_title = r.custom_title.or(self.custom_title.take()),
            Some("summary") => self.summary = r.summary.or(self.summary.take()),
            Some("assistant") => {
                if let Some(model) = r.message.and_then(|m| m.model) {
                    // `<synthetic>` marks messages Claude Code wrote itself.
                    if !model.starts_with('<') {
                        self.meta.model = Some(model);
                    }
                }
            }
            Some("user") if self.first_prompt.is_none() => self.first_prompt = typed_prompt(&r),
            _ => {}
        }
    }

    fn codex(&mut self, line: &str) {
        let Ok(r) = serde_json::from_str::<CodexRecord>(line) else {
            return;
        };
        let p = r.payload.unwrap_or_default();
        match r.kind.as_deref() {
            Some("session_meta") | Some("turn_context") if self.meta.cwd.is_none() => {
                self.meta.cwd = p.cwd;
            }
            _ => {}
        }
        if r.kind.as_deref() == Some("turn_context") {
            self.meta.model = p.model.or(self.meta.model.take());
        }
        if r.kind.as_deref() == Some("event_msg") {
            match p.kind.as_deref() {
                Some("user_message") if self.first_prompt.is_none() => {
                    self.first_prompt = p.message.as_deref().and_then(typed);
                }
                Some("token_count") => {
                    let window = p.info.and_then(|i| i.model_context_window);
                    self.meta.context_window = window.or(self.meta.context_window);
                }
                _ => {}
            }
        }
    }

    fn pi(&mut self, line: &str) {
        let Ok(r) = serde_json::from_str::<PiRecord>(line) else {
            return;
        };
        match r.kind.as_deref() {
            Some("session") if self.meta.cwd.is_none() => self.meta.cwd = r.cwd,
            Some("session_info") => self.custom_title = r.name.or(self.custom_title.take()),
            Some("model_change") => self.meta.model = r.model_id.or(self.meta.model.take()),
            Some("message") => {
                let Some(m) = r.message else {
                    return;
                };
                match m.role.as_deref() {
                    Some("assistant") => self.meta.model = m.model.or(self.meta.model.take()),
                    Some("user") if self.first_prompt.is_none() => {
                        self.first_prompt = m
                            .content
                            .and_then(|c| pi_text(&c))
                            .as_deref()
                            .and_then(typed);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// A Gemini CLI file: JSON lines, or one older whole-file record with `messages`.
    fn gemini_file(&mut self, text: &str) {
        let whole = text.trim_start().starts_with('{') && text.trim_end().lines().count() > 1;
        if let Some(record) = whole
            .then(|| serde_json::from_str::<serde_json::Value>(text).ok())
            .flatten()
            .filter(|r| r["messages"].is_array())
        {
            self.gemini(&record);
            for message in record["messages"].as_array().into_iter().flatten() {
                self.gemini(message);
            }
            return;
        }
        for line in text.lines() {
            if let Ok(record) = serde_json::from_str::<serde_json::Value>(line) {
                self.gemini(&record);
            }
        }
    }

    fn qwen(&mut self, line: &str) {
        let Ok(r) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        if self.meta.cwd.is_none() {
            self.meta.cwd = r["cwd"].as_str().map(str::to_string);
        }
        match (r["type"].as_str(), r["subtype"].as_str()) {
            (Some("assistant"), _) => {
                if let Some(model) = r["model"].as_str() {
                    self.meta.model = Some(model.to_string());
                }
                if let Some(window) = r["contextWindowSize"].as_u64() {
                    self.meta.context_window = Some(window as usize);
                }
            }
            (Some("system"), Some("custom_title")) => {
                if let Some(title) = r["systemPayload"]["customTitle"].as_str() {
                    self.custom_title = Some(title.to_string());
                }
            }
            (Some("user"), None) if self.first_prompt.is_none() => {
                let text = match r["systemPayload"]["displayText"].as_str() {
                    Some(shown) => shown.to_string(),
                    None => crate::transcript::qwen_user_text(&r),
                };
                let text = text.trim();
                if !text.is_empty() && !text.starts_with(crate::transcript::SUMMARY_MARKER) {
                    self.first_prompt = Some(text.to_string());
                }
            }
            _ => {}
        }
    }

    fn gemini(&mut self, r: &serde_json::Value) {
        let set = &r["$set"];
        for summary in [&r["summary"], &set["summary"]] {
            if let Some(s) = summary.as_str() {
                self.summary = Some(s.to_string());
            }
        }
        for message in set["messages"].as_array().into_iter().flatten() {
            self.gemini(message);
        }
        match r["type"].as_str() {
            Some("gemini") => {
                if let Some(model) = r["model"].as_str() {
                    self.meta.model = Some(model.to_string());
                }
            }
            Some("user") if self.first_prompt.is_none() => {
                let text = crate::transcript::gemini_user_text(&r["content"]);
                if !crate::transcript::gemini_ignored_user_text(&text) {
                    self.first_prompt = Some(text.trim().to_string());
                }
            }
            _ => {}
        }
    }

    fn finish(mut self, project_key: Option<&str>) -> Meta {
        if !self.cwds.is_empty() {
            self.meta.cwd = Some(project_cwd(self.cwds, project_key));
        }
        self.meta.title = self.custom_title.or(self.summary).or(self.first_prompt);
        self.meta.title = self.meta.title.as_deref().and_then(one_line);
        self.meta
    }
}

/// The prompt of a Claude Code record, if the user typed it: the first such record titles the
/// session (the client lists it under that prompt when nothing names it), so compaction keeps
/// it even when it is history the client no longer sends.
pub fn claude_code_prompt(record: &str) -> Option<String> {
    let r = serde_json::from_str::<ClaudeRecord>(record).ok()?;
    (r.kind.as_deref() == Some("user"))
        .then(|| typed_prompt(&r))
        .flatten()
}

/// The prompt of a Claude Code `user` record: not meta, a sidechain or a compaction summary.
fn typed_prompt(r: &ClaudeRecord) -> Option<String> {
    let typed = !r.is_meta && !r.is_sidechain && !r.is_compact_summary;
    r.message
        .as_ref()
        .and_then(|m| m.content)
        .filter(|_| typed)
        .and_then(prompt_text)
}

/// The text the user typed in a Claude Code `message.content`, if it is a prompt.
fn prompt_text(content: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Content {
        Text(String),
        Blocks(Vec<Block>),
    }
    #[derive(Deserialize)]
    struct Block {
        #[serde(rename = "type")]
        kind: Option<String>,
        text: Option<String>,
    }
    match serde_json::from_str::<Content>(content.get()).ok()? {
        Content::Text(text) => typed(&text),
        Content::Blocks(blocks) => {
            if blocks
                .iter()
                .any(|b| b.kind.as_deref() == Some("tool_result"))
            {
                return None;
            }
            blocks
                .into_iter()
                .filter(|b| b.kind.as_deref() == Some("text"))
                .find_map(|b| typed(b.text.as_deref()?))
        }
    }
}

/// `text`, unless the client or harness wrote it. A slash command reads as the user typed it
/// (`/review PR 12`), not as its expansion.
fn typed(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if let Some(command) = between(trimmed, "<command-name>", "</command-name>") {
        let args = between(trimmed, "<command-args>", "</command-args>").unwrap_or_default();
        return Some(format!("{command} {args}").trim().to_string());
    }
    let injected =
        INJECTED_PREFIXES.iter().any(|p| trimmed.starts_with(p)) || opens_with_tag(trimmed);
    (!injected && !trimmed.is_empty()).then(|| text.to_string())
}

/// The text between the first `open` and the next `close`.
fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(text[start..start + len].trim())
}

/// Whether `text` opens with a tag such as `<system-reminder>`: what harnesses wrap what
/// they inject in.
fn opens_with_tag(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('<') else {
        return false;
    };
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    name_len > 0 && rest[name_len..].starts_with(['>', ' '])
}

/// Titles are shown on one line: the first non-empty line, whitespace collapsed.
fn one_line(text: &str) -> Option<String> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    Some(line.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaudeRecord<'a> {
    #[serde(rename = "type")]
    kind: Option<String>,
    cwd: Option<String>,
    summary: Option<String>,
    custom_title: Option<String>,
    #[serde(default)]
    is_meta: bool,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(default)]
    is_compact_summary: bool,
    #[serde(borrow)]
    message: Option<ClaudeMessage<'a>>,
}

#[derive(Deserialize)]
struct ClaudeMessage<'a> {
    model: Option<String>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CodexRecord {
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<CodexPayload>,
}

#[derive(Deserialize, Default)]
struct CodexPayload {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    message: Option<String>,
    info: Option<CodexInfo>,
}

#[derive(Deserialize)]
struct CodexInfo {
    model_context_window: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PiRecord {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    cwd: Option<String>,
    name: Option<String>,
    model_id: Option<String>,
    message: Option<PiMessage>,
}

#[derive(Deserialize)]
struct PiMessage {
    role: Option<String>,
    model: Option<String>,
    content: Option<serde_json::Value>,
}

/// The text of a pi user message's content: a string, or its text blocks joined.
fn pi_text(content: &serde_json::Value) -> Option<String> {
    match content {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text")?.as_str())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// The first line of the file at `path` (a session's header record), read alone: listing
/// thousands of sessions must stay cheap.
fn first_line(path: &Path) -> Option<String> {
    let mut line = String::new();
    std::fs::File::open(path)
        .map(BufReader::new)
        .and_then(|mut r| r.read_line(&mut line))
        .ok()?;
    Some(line)
}

/// What a pi session's header (its first line) says: the session id and project.
pub(super) fn pi_header(path: &Path) -> FirstRecord {
    let Some(line) = first_line(path) else {
        return FirstRecord::default();
    };
    match serde_json::from_str::<PiRecord>(&line) {
        Ok(r) if r.kind.as_deref() == Some("session") => FirstRecord {
            id: r.id,
            cwd: r.cwd,
        },
        _ => FirstRecord::default(),
    }
}

/// The id and cwd of a Qwen Code session: its first record's `sessionId` and `cwd`.
pub(super) fn qwen_first_record(path: &Path) -> FirstRecord {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        session_id: Option<String>,
        cwd: Option<String>,
    }
    let Some(line) = first_line(path) else {
        return FirstRecord::default();
    };
    match serde_json::from_str::<Head>(&line) {
        Ok(h) => FirstRecord {
            id: h.session_id,
            cwd: h.cwd,
        },
        Err(_) => FirstRecord::default(),
    }
}

/// What listing a Gemini CLI session needs: its id, and whether it is a subagent's.
#[derive(Debug, Default)]
pub(super) struct GeminiHead {
    pub id: Option<String>,
    pub subagent: bool,
}

/// The metadata of a Gemini CLI session: the first line of a `.jsonl` file (only that is
/// read), or the whole record of an older `.json` one.
pub(super) fn gemini_head(path: &Path) -> GeminiHead {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        session_id: Option<String>,
        kind: Option<String>,
    }
    let text = if path.extension().is_some_and(|e| e == "json") {
        std::fs::read_to_string(path).ok()
    } else {
        first_line(path)
    };
    match text.as_deref().map(serde_json::from_str::<Head>) {
        Some(Ok(h)) => GeminiHead {
            id: h.session_id,
            subagent: h.kind.as_deref() == Some("subagent"),
        },
        _ => GeminiHead::default(),
    }
}

/// What a Codex rollout's first record (`session_meta`) says: the session id and project.
#[derive(Debug, Default)]
pub(super) struct FirstRecord {
    pub id: Option<String>,
    pub cwd: Option<String>,
}

/// Reads a Codex rollout's first line only: listing thousands of rollouts must stay cheap.
pub(super) fn codex_first_record(path: &Path) -> FirstRecord {
    let Some(line) = first_line(path) else {
        return FirstRecord::default();
    };
    let record: Option<CodexRecord> = serde_json::from_str(&line).ok();
    match record {
        Some(r) if r.kind.as_deref() == Some("session_meta") => {
            let p = r.payload.unwrap_or_default();
            FirstRecord {
                id: p.id,
                cwd: p.cwd,
            }
        }
        _ => FirstRecord::default(),
    }
}

/// The directory a Claude Code session was started in: of the directories its records name
/// (the user may `cd` during a session), the one its project directory is named after, else
/// the first.
pub fn claude_code_cwd(path: &Path, project_key: Option<&str>) -> Option<String> {
    #[derive(Deserialize)]
    struct Cwd {
        cwd: Option<String>,
    }
    let file = std::fs::File::open(path).ok()?;
    let mut cwds: Vec<String> = Vec::new();
    for line in BufReader::new(file).lines().map_while(Result::ok) {
        let cwd = serde_json::from_str::<Cwd>(&line).ok().and_then(|r| r.cwd);
        if let Some(cwd) = cwd.filter(|c| !c.is_empty() && !cwds.contains(c)) {
            cwds.push(cwd);
        }
    }
    (!cwds.is_empty()).then(|| project_cwd(cwds, project_key))
}

/// Of `cwds`, or the directories above them (the user may have gone down into a
/// subdirectory, and the records from before may be gone), the first the project directory
/// `project_key` is named after; else the current directory if it is; else the first of
/// `cwds`.
fn project_cwd(cwds: Vec<String>, project_key: Option<&str>) -> String {
    let named = |dir: &Path| {
        project_key.is_some_and(|key| super::project_dir_names(dir).iter().any(|n| n == key))
    };
    let recorded = cwds
        .iter()
        .find_map(|c| Path::new(c).ancestors().find(|dir| named(dir)))
        .map(Path::to_path_buf);
    let here = || std::env::current_dir().ok().filter(|dir| named(dir));
    recorded
        .or_else(here)
        .map(|dir| dir.to_string_lossy().into_owned())
        .unwrap_or_else(|| cwds[0].clone())
}
