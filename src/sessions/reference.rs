//! Session references: how every command names a stored session where it takes a path.
//!
//! An argument that starts with `@` is a reference, never a file name (a file whose name
//! starts with `@` is named `./@name`):
//! - `@` or `@latest`: the latest session of the current directory's project, of either client;
//! - `@ID`: the session with this id;
//! - `@PREFIX`: the one session whose id starts with PREFIX.
//!
//! An unknown or ambiguous reference is a usage error that says what it matched.

use super::{Session, Stores, find};
use crate::human::Shown;
use anyhow::{Result, anyhow, bail};
use std::path::{Path, PathBuf};

/// The character that starts a session reference.
pub const REFERENCE_PREFIX: char = '@';

/// Sessions an ambiguous reference lists.
const SHOWN: usize = 5;

/// A parsed session reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `@` or `@latest`.
    Latest,
    /// `@ID` or `@PREFIX`.
    Id(String),
}

impl Reference {
    /// The reference `arg` makes, `None` when it is a path, or an error when it starts like a
    /// reference but is none.
    pub fn parse(arg: &Path) -> Option<Result<Reference>> {
        let text = arg.to_str()?;
        let rest = text.strip_prefix(REFERENCE_PREFIX)?;
        if rest.is_empty() || rest == "latest" {
            return Some(Ok(Reference::Latest));
        }
        let id_like = rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        Some(if id_like {
            Ok(Reference::Id(rest.to_string()))
        } else {
            let text = crate::human::text(text);
            Err(anyhow!(
                "'{text}' is not a session reference (@ID, @PREFIX, or @ for the latest \
                 session here); a file whose name starts with @ is named ./{text}"
            ))
        })
    }
}

/// `args` with every session reference replaced by its session file. The stores are only
/// looked at when some argument is a reference.
pub fn resolve_all(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if !args.iter().any(|a| Reference::parse(a).is_some()) {
        return Ok(args.to_vec());
    }
    let stores = Stores::from_env();
    let cwd = std::env::current_dir()
        .map_err(|e| anyhow!("reading the current directory for a session reference: {e}"))?;
    let sessions = find(&stores)?;
    args.iter()
        .map(|arg| match Reference::parse(arg) {
            None => Ok(arg.clone()),
            Some(reference) => {
                let session = resolve(&reference?, &sessions, &cwd, &stores)?;
                Ok(session.path.clone())
            }
        })
        .collect()
}

/// The one session `reference` names among `sessions` (newest first), for a command run in
/// `cwd`.
pub fn resolve<'a>(
    reference: &Reference,
    sessions: &'a [Session],
    cwd: &Path,
    stores: &Stores,
) -> Result<&'a Session> {
    match reference {
        Reference::Latest => sessions.iter().find(|s| s.in_project(cwd)).ok_or_else(|| {
            anyhow!(
                "@: no Claude Code, Codex, pi or Gemini CLI session of this directory's project ({}) in {}; \
                 `ctxc sessions --all` lists every project's",
                cwd.shown(),
                stores.describe()
            )
        }),
        Reference::Id(text) => by_id(text, sessions, stores),
    }
}

fn by_id<'a>(text: &str, sessions: &'a [Session], stores: &Stores) -> Result<&'a Session> {
    let exact: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.id.eq_ignore_ascii_case(text))
        .collect();
    let matches = if exact.is_empty() {
        let prefix = text.to_ascii_lowercase();
        sessions
            .iter()
            .filter(|s| s.id.to_ascii_lowercase().starts_with(&prefix))
            .collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => bail!(
            "@{text}: no session id starts with '{text}' in {}; `ctxc sessions --all` lists them",
            stores.describe()
        ),
        many => {
            let shown: Vec<String> = many
                .iter()
                .take(SHOWN)
                .map(|s| {
                    format!(
                        "  {}  {}  {}  {}",
                        crate::human::text(&s.id),
                        s.client.name(),
                        s.last_activity,
                        s.path.shown()
                    )
                })
                .collect();
            let more = match many.len().saturating_sub(SHOWN) {
                0 => String::new(),
                n => format!("\n  ... and {n} more"),
            };
            bail!(
                "@{text} is ambiguous: {} sessions match; give more of the id:\n{}{more}",
                many.len(),
                shown.join("\n")
            )
        }
    }
}
