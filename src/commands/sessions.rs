//! `ctxc sessions`: the Claude Code, Codex and pi sessions of this directory's project (or of
//! every project), newest first — what the client shows (id, project, title, last activity)
//! beside what ctxc measures (bytes, context tokens, their share of the window).

use crate::ExitStatus;
use crate::calibrate::{self, Prior};
use crate::cli::SessionsArgs;
use crate::config::TokenSettings;
use crate::count::count_conversation;
use crate::discover::{self, Input};
use crate::human::thousands;
use crate::progress::Progress;
use crate::report::{self, OutputFormat, Table};
use crate::sessions::{self, Client, Session, Stores};
use crate::tokens::{TokenCounter, model_info};
use crate::transcript::{self, Format, ReadOptions};
use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Serialize;

/// The listing.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionsReport {
    /// Bumped when a field changes meaning or goes away.
    pub schema_version: u32,
    /// The project listed (the current directory), or `None` with `--all`.
    pub project: Option<String>,
    /// Where sessions were looked for.
    pub stores: StorePaths,
    /// How tokens were counted.
    pub tokenizer: TokenSettings,
    /// The sessions, newest first.
    pub sessions: Vec<SessionRow>,
}

/// The stores looked in.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StorePaths {
    /// Claude Code's projects directory.
    pub claude_code: Option<String>,
    /// Codex's sessions directory.
    pub codex: Option<String>,
    /// pi's sessions directory.
    pub pi: Option<String>,
    /// Gemini CLI's `tmp` directory.
    pub gemini: Option<String>,
    /// Qwen Code's `projects` directory.
    pub qwen: Option<String>,
}

/// One session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    /// The session id (what `claude --resume` and `codex resume` take).
    pub id: String,
    /// The shortest prefix of the id, of at least 8 characters, that no other session shares:
    /// `@PREFIX` names this session.
    pub short_id: String,
    /// `claude-code` or `codex`.
    pub client: Client,
    /// The session file.
    pub path: String,
    /// The directory the session was started in.
    pub project: Option<String>,
    /// The title the client shows.
    pub title: Option<String>,
    /// The newest record's time (UTC).
    pub last_activity: String,
    /// The session file's size.
    pub bytes: u64,
    /// Claude Code subagent files of the session.
    pub subagents: Vec<Subagent>,
    /// Tokens the model would be sent on resuming: the provider's count calibrated on the
    /// usage the session records when it records any, else ctxc's exact count.
    pub context_tokens: Option<usize>,
    /// Whether `contextTokens` is calibrated on recorded usage.
    pub calibrated: bool,
    /// The context window the share is of.
    pub context_window: usize,
    /// `contextTokens / contextWindow`.
    pub window_share: Option<f64>,
    /// The command that resumes the session.
    pub resume: String,
    /// Why the session could not be measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A subagent transcript of a session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subagent {
    /// The file.
    pub path: String,
    /// Its size.
    pub bytes: u64,
}

/// Characters of an id shown at least: as many as git shows of a commit hash.
const SHORT_ID: usize = 8;

/// Runs `ctxc sessions`.
pub fn run(args: &SessionsArgs, quiet: bool) -> Result<ExitStatus> {
    let tokens = TokenSettings::from_args(&args.tokens)?;
    let counter = tokens.counter()?;
    let window_given = args.tokens.context_window.is_some() || args.tokens.model.is_some();
    let stores = Stores::from_env();
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let all = sessions::find(&stores)?;
    let listed: Vec<&Session> = all
        .iter()
        .filter(|s| args.all || s.in_project(&cwd))
        .collect();
    let progress = Progress::new(listed.len(), quiet);
    let rows: Vec<SessionRow> = listed
        .par_iter()
        .map(|s| {
            let measure = Measure {
                counter: &counter,
                window: window_given.then_some(tokens.context_window),
                default_window: tokens.context_window,
                max_input_bytes: args.limit.max_input_bytes,
            };
            let row = measure.row(s, short_id(s, &all));
            progress.advance();
            row
        })
        .collect();
    progress.finish();
    for row in rows.iter().filter(|r| r.error.is_some()) {
        progress.warn(&format!(
            "{}: {}",
            crate::human::text(&row.path),
            row.error.as_deref().unwrap_or("")
        ));
    }
    let show =
        |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.to_string_lossy().into_owned());
    let report = SessionsReport {
        schema_version: 1,
        project: (!args.all).then(|| cwd.to_string_lossy().into_owned()),
        stores: StorePaths {
            claude_code: show(&stores.claude_code),
            codex: show(&stores.codex),
            pi: show(&stores.pi),
            gemini: show(&stores.gemini),
            qwen: show(&stores.qwen),
        },
        tokenizer: tokens,
        sessions: rows,
    };
    let format = if args.json {
        OutputFormat::Json
    } else {
        OutputFormat::Table
    };
    let text = report::render(format, &report, &table(&report))?;
    crate::output::write_stdout(text.as_bytes())?;
    Ok(if report.sessions.iter().any(|r| r.error.is_some()) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// How sessions are measured.
struct Measure<'a> {
    counter: &'a TokenCounter,
    /// The window the user chose, if any.
    window: Option<usize>,
    /// The window when neither the user nor the session names one.
    default_window: usize,
    /// The largest session file read.
    max_input_bytes: u64,
}

impl Measure<'_> {
    /// Reads and measures one session; a failure is recorded in the row.
    fn row(&self, s: &Session, short_id: String) -> SessionRow {
        // A session in a store in object storage is named by its object's URL.
        let input = match crate::store::Url::of_path(&s.path) {
            Some(Ok(url)) => Input::Remote(url),
            _ => Input::File(s.path.clone()),
        };
        let loaded =
            discover::load(&input, self.max_input_bytes).map_err(|e| locate(e.line, &e.message));
        let meta = loaded
            .as_ref()
            .map(|text| sessions::read_meta(s.client, text, s.project_key.as_deref()))
            .unwrap_or_default();
        let context_window = self
            .window
            .or(meta.context_window)
            .or_else(|| {
                meta.model
                    .as_deref()
                    .and_then(model_info)
                    .map(|m| m.context_window)
            })
            .unwrap_or(self.default_window);
        let tokens = loaded.and_then(|text| self.context_tokens(s.client, text));
        let (context_tokens, calibrated, error) = match tokens {
            Ok((n, calibrated)) => (Some(n), calibrated, None),
            Err(e) => (None, false, Some(e)),
        };
        SessionRow {
            id: s.id.clone(),
            short_id,
            client: s.client,
            path: s.path.to_string_lossy().into_owned(),
            resume: sessions::resume_command(s, meta.cwd.as_deref()),
            project: meta.cwd.or_else(|| s.project_key.clone()),
            title: meta.title,
            last_activity: s.last_activity.clone(),
            bytes: s.bytes,
            subagents: s
                .subagents
                .iter()
                .map(|(path, bytes)| Subagent {
                    path: path.to_string_lossy().into_owned(),
                    bytes: *bytes,
                })
                .collect(),
            context_tokens,
            calibrated,
            context_window,
            window_share: context_tokens.map(|n| n as f64 / context_window.max(1) as f64),
            error,
        }
    }

    /// What the model would be sent on resuming, and whether it is calibrated: the provider
    /// tokens fitted on the usage the session records (as `ctxc stats` reports them), else
    /// ctxc's exact count of the transcript.
    fn context_tokens(&self, client: Client, text: String) -> Result<(usize, bool), String> {
        let format = match client {
            Client::ClaudeCode => Format::ClaudeCode,
            Client::Codex => Format::Codex,
            Client::Pi => Format::Pi,
            Client::Gemini => Format::Gemini,
            Client::Qwen => Format::Qwen,
        };
        let opts = ReadOptions {
            format: Some(format),
            messages_path: None,
        };
        let t = transcript::read(text, &opts).map_err(|e| {
            let first = &e.findings[0];
            locate(first.line, &first.message)
        })?;
        let prior = Prior::for_transcript(t.format, None);
        let (mut total, mut calibrated) = (0, false);
        for conv in &t.conversations {
            let tokens = count_conversation(self.counter, conv);
            let counted = tokens.total();
            // Only a fit on recorded usage, never the default estimate.
            match calibrate::conversation(self.counter, conv, &tokens.items, tokens.preamble, prior)
                .filter(|c| !c.is_estimate())
            {
                Some(c) => {
                    total += c.predict(counted);
                    calibrated = true;
                }
                None => total += counted,
            }
        }
        Ok((total, calibrated))
    }
}

fn locate(line: usize, message: &str) -> String {
    if line == 0 {
        message.to_string()
    } else {
        format!("line {line}: {message}")
    }
}

/// The shortest prefix of `s`'s id, of at least [`SHORT_ID`] characters, that is the prefix
/// of no other session's id in `all`; the whole id when little more is left.
fn short_id(s: &Session, all: &[Session]) -> String {
    let id = s.id.as_str();
    if id.chars().count() <= SHORT_ID + 4 {
        return id.to_string();
    }
    let mut n = SHORT_ID;
    while n < id.len() {
        let prefix = &id[..n];
        let shared = all
            .iter()
            .any(|o| o.path != s.path && o.id.starts_with(prefix));
        if !shared || !id.is_char_boundary(n) {
            break;
        }
        n += 1;
    }
    id.get(..n).unwrap_or(id).to_string()
}

/// Longest title shown in the table (the JSON has it whole); it gives way, down to the
/// shortest, so that a row fits a terminal's 120 columns.
const TITLE_WIDTH: std::ops::RangeInclusive<usize> = 24..=48;
/// Longest project path shown in the table.
const PROJECT_WIDTH: usize = 40;

/// `text` cut to `width` characters, with `…` where it was cut (at the end, or at the start
/// for paths, whose end says most).
fn fit(text: &str, width: usize, keep_end: bool) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    if keep_end {
        let tail: String = text.chars().skip(n - (width - 1)).collect();
        format!("…{tail}")
    } else {
        let head: String = text.chars().take(width - 1).collect();
        format!("{head}…")
    }
}

/// `~` for the home directory at the start of a path, printed as [`crate::human::path`] does
/// (the JSON keeps the real name).
fn tilde(path: &str) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    let short = match path.strip_prefix(&home) {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => path.to_string(),
    };
    crate::human::text(&short).into_owned()
}

/// The title column (the 4th) cut to what the other columns leave of
/// [`crate::report::TERMINAL_WIDTH`], within [`TITLE_WIDTH`].
fn with_titles_fitted(mut rows: Vec<Vec<String>>, headers: &[String]) -> Vec<Vec<String>> {
    const TITLE: usize = 3;
    let width = |column: usize| {
        rows.iter()
            .map(|r| r[column].chars().count())
            .chain([headers[column].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let others: usize = (0..headers.len()).filter(|&c| c != TITLE).map(width).sum();
    let gaps = 2 * (headers.len() - 1);
    let room = crate::report::TERMINAL_WIDTH
        .saturating_sub(others + gaps)
        .clamp(*TITLE_WIDTH.start(), *TITLE_WIDTH.end());
    for row in &mut rows {
        row[TITLE] = fit(&row[TITLE], room, false);
    }
    rows
}

/// `2026-02-11T22:31:35Z` → `2026-02-11 22:31`.
fn minute(time: &str) -> String {
    time.get(..16).unwrap_or(time).replace('T', " ")
}

/// The listing as a table.
fn table(report: &SessionsReport) -> Table {
    let headers = [
        "ID",
        "CLIENT",
        "PROJECT",
        "TITLE",
        "ACTIVE (UTC)",
        "BYTES",
        "AGENTS",
        "CONTEXT",
        "WINDOW",
    ]
    .map(String::from)
    .to_vec();
    let numeric = vec![false, false, false, false, false, true, true, true, true];
    let rows = report
        .sessions
        .iter()
        .map(|r| {
            vec![
                // An id is the client's file name: escaped like a path.
                crate::human::text(&r.short_id).into_owned(),
                match r.client {
                    Client::ClaudeCode => "claude".into(),
                    Client::Codex => "codex".into(),
                    Client::Pi => "pi".into(),
                    Client::Gemini => "gemini".into(),
                    Client::Qwen => "qwen".into(),
                },
                fit(
                    &tilde(r.project.as_deref().unwrap_or("-")),
                    PROJECT_WIDTH,
                    true,
                ),
                // A title is the session's own text: escaped like a path (cut below).
                crate::human::text(r.title.as_deref().unwrap_or("-")).into_owned(),
                minute(&r.last_activity),
                crate::human::bytes(r.bytes),
                match r.subagents.len() {
                    0 => "-".into(),
                    n => n.to_string(),
                },
                r.context_tokens.map_or("-".into(), |n| {
                    let mark = if r.calibrated { "" } else { " (raw)" };
                    format!("{}{mark}", thousands(n as u64))
                }),
                r.window_share
                    .map_or("-".into(), |s| format!("{:.0}%", s * 100.0)),
            ]
        })
        .collect();
    let rows = with_titles_fitted(rows, &headers);
    let mut notes = vec![String::new()];
    notes.push(match &report.project {
        Some(dir) => format!(
            "{} {} of {}; --all lists every project's",
            report.sessions.len(),
            if report.sessions.len() == 1 {
                "session"
            } else {
                "sessions"
            },
            tilde(dir)
        ),
        None => format!(
            "{} {} in every project",
            report.sessions.len(),
            if report.sessions.len() == 1 {
                "session"
            } else {
                "sessions"
            }
        ),
    });
    // Where it looked, and which of those are not there (no sessions is then no surprise).
    // A store in object storage (`CLAUDE_CONFIG_DIR=s3://…`) is a prefix, never a folder:
    // its listing says what is there.
    let store = |dir: Option<&str>, client: &str| match dir {
        Some(dir) if crate::store::Url::of_path(std::path::Path::new(dir)).is_some() => {
            format!("{} ({client})", crate::human::text(dir))
        }
        Some(dir) if std::path::Path::new(dir).is_dir() => format!("{} ({client})", tilde(dir)),
        Some(dir) => format!("{} ({client}: not there)", tilde(dir)),
        None => format!("- ({client}: no home directory)"),
    };
    notes.push(format!(
        "looked in: {}, {}, {}, {}, {}",
        store(report.stores.claude_code.as_deref(), "Claude Code"),
        store(report.stores.codex.as_deref(), "Codex"),
        store(report.stores.pi.as_deref(), "pi"),
        store(report.stores.gemini.as_deref(), "Gemini CLI"),
        store(report.stores.qwen.as_deref(), "Qwen Code")
    ));
    notes.push(format!(
        "context: tokens the model is sent on resuming ({}; an estimate for Claude models)",
        report.tokenizer.encoding
    ));
    notes.push(
        "name a session as @ID, @PREFIX or @ (the latest here): ctxc compact --in-place --drop-stored @ID"
            .into(),
    );
    Table {
        headers,
        numeric,
        rows,
        total: None,
        notes,
    }
}
