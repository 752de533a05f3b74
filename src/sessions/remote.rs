//! Session stores kept in object storage: `CLAUDE_CONFIG_DIR` or `CODEX_HOME` given as a URL
//! (`s3://bucket/home/.claude`), as a pipeline that gathers its machines' sessions into a
//! bucket lays them out. The store is one listing, laid out as the client lays it on disk; a
//! session's path is its object's URL, which every command reads as it reads `s3://` inputs.
//!
//! A listing gives no record times, and reading every session's tail would be one request per
//! session: sessions are ordered by their object's last-modified time instead. A Codex
//! rollout's id is the UUID its name ends with and its project (its first record's `cwd`) is
//! not read, so `@` (the latest session of this directory's project) finds Claude Code
//! sessions in a bucket, and `@ID` both clients'.

use super::{Client, Session, id_at_end};
use crate::store::Url;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The Claude Code sessions below `root` (the `projects` prefix): `PROJECT/ID.jsonl`, with
/// their subagents at `PROJECT/ID/subagents/*.jsonl`.
pub fn claude_code_sessions(root: &Url, out: &mut Vec<Session>) -> Result<()> {
    let listed = listed(root)?;
    let mut subagents: BTreeMap<(String, String), Vec<(PathBuf, u64)>> = BTreeMap::new();
    let mut found = Vec::new();
    for (url, meta, modified) in listed {
        let Some(stem) = session_stem(&url) else {
            continue;
        };
        match url.below(root).split('/').collect::<Vec<_>>().as_slice() {
            [project, _] if !stem.starts_with("agent-") => {
                found.push((project.to_string(), stem, url, meta.size, modified));
            }
            [project, id, "subagents", _] => subagents
                .entry((project.to_string(), id.to_string()))
                .or_default()
                .push((PathBuf::from(url.to_string()), meta.size)),
            _ => {}
        }
    }
    for (project, id, url, bytes, modified) in found {
        out.push(Session {
            client: Client::ClaudeCode,
            subagents: subagents
                .remove(&(project.clone(), id.clone()))
                .unwrap_or_default(),
            id,
            path: PathBuf::from(url.to_string()),
            project_key: Some(project),
            bytes,
            last_activity: crate::time::rfc3339(modified),
        });
    }
    Ok(())
}

/// The Codex rollouts below `root` (the `sessions` prefix): `YYYY/MM/DD/rollout-*.jsonl`.
pub fn codex_sessions(root: &Url, out: &mut Vec<Session>) -> Result<()> {
    for (url, meta, modified) in listed(root)? {
        let Some(stem) = session_stem(&url) else {
            continue;
        };
        if !stem.starts_with("rollout-") || url.below(root).split('/').count() > 4 {
            continue;
        }
        out.push(Session {
            client: Client::Codex,
            id: id_at_end(&stem).unwrap_or_else(|| stem.clone()),
            path: PathBuf::from(url.to_string()),
            project_key: None,
            bytes: meta.size,
            subagents: Vec::new(),
            last_activity: crate::time::rfc3339(modified),
        });
    }
    Ok(())
}

/// The objects below `root`, after naming on standard error each session object the client
/// cannot address: passed over, as an unreadable local directory is, while the others are
/// listed.
fn listed(root: &Url) -> Result<Vec<(Url, crate::store::Meta, u64)>> {
    let listing = crate::store::listing(root)?;
    for url in listing.odd.iter().filter(|url| session_stem(url).is_some()) {
        let shown = crate::human::text(&url.to_string()).into_owned();
        eprintln!("ctxc: {shown}: {}", crate::store::odd_key(url));
    }
    Ok(listing.objects)
}

/// The stem of a `.jsonl` object that is not one of ctxc's own outputs.
fn session_stem(url: &Url) -> Option<String> {
    let name = url.file_name();
    let stem = name.strip_suffix(".jsonl")?;
    (!stem.is_empty() && !crate::outputs::is_ctxc_output_name(name)).then(|| stem.to_string())
}
