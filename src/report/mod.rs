//! Reports in every output format: a table on a terminal, JSON, YAML and markdown.
//!
//! A command builds its report as serde data (for JSON and YAML, camelCase and stable, with a
//! `schemaVersion`) and as a [`Table`] (for the terminal and markdown). One file per format;
//! [`compact`] holds the data and table of `ctxc compact`'s report, which the library
//! ([`crate::api`]) and the resume manifest share with the command, so it lives here, below
//! `commands/`.

pub mod compact;
mod markdown;
mod terminal;

use serde::Serialize;

/// The output formats of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// An aligned table with thousands separators, for people.
    #[default]
    Table,
    /// Pretty JSON, camelCase fields, `schemaVersion`.
    Json,
    /// YAML with the same fields as JSON.
    Yaml,
    /// A GitHub-flavoured markdown table.
    Markdown,
}

/// Tabular view of a report: a header, rows, an optional total row, and notes printed below.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column titles.
    pub headers: Vec<String>,
    /// Which columns hold numbers (right-aligned).
    pub numeric: Vec<bool>,
    /// The rows, cells already formatted.
    pub rows: Vec<Vec<String>>,
    /// The total row, if any.
    pub total: Option<Vec<String>>,
    /// Lines printed after the table (breakdowns, notes).
    pub notes: Vec<String>,
}

/// Renders a report in `format`; `data` for JSON/YAML, `table` for the others.
pub fn render<T: Serialize>(
    format: OutputFormat,
    data: &T,
    table: &Table,
) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Json => serde_json::to_string_pretty(data)? + "\n",
        OutputFormat::Yaml => serde_yaml::to_string(data)?,
        OutputFormat::Table => terminal::render(table),
        OutputFormat::Markdown => markdown::render(table),
    })
}

/// The format a report file's extension names: `.json`, `.yaml`/`.yml`, `.md`/`.markdown`;
/// anything else a table.
pub fn format_of_path(path: &std::path::Path) -> OutputFormat {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "json" => OutputFormat::Json,
        "yaml" | "yml" => OutputFormat::Yaml,
        "md" | "markdown" => OutputFormat::Markdown,
        _ => OutputFormat::Table,
    }
}

/// How wide a path may be in a table printed on a terminal.
pub const TERMINAL_PATH_WIDTH: usize = 48;

/// `path` as a table on a terminal shows it: the home directory as `~`, and when still longer
/// than `max` characters, the middle directories as `…` and a long file name's middle too
/// (`~/.claude/projects/…/8463c716-….jsonl`). Reports to files and pipes keep whole paths.
pub fn short_path(path: &str, home: Option<&str>, max: usize) -> String {
    let path = match home.filter(|h| h.len() > 1) {
        Some(home)
            if path
                .strip_prefix(home)
                .is_some_and(|rest| rest.starts_with('/')) =>
        {
            format!("~{}", &path[home.len()..])
        }
        _ => path.to_string(),
    };
    let width = |s: &str| s.chars().count();
    if width(&path) <= max {
        return path;
    }
    let (dir, name) = match path.rfind('/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path.as_str()),
    };
    let name = short_name(name, max / 2);
    if dir.is_empty() {
        return name;
    }
    // Leading directories while they fit, then `…`.
    let mut kept = String::new();
    for part in dir.split('/') {
        let candidate = format!("{kept}{part}/");
        if width(&candidate) + width("…/") + width(&name) > max {
            break;
        }
        kept = candidate;
    }
    format!("{kept}…/{name}")
}

/// A file name of at most about `max` characters: its start, `…` and its extension.
fn short_name(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_string();
    }
    let ext = name.rfind('.').map_or("", |i| &name[i..]);
    let keep = max.saturating_sub(ext.chars().count() + 1).max(4);
    let start: String = name.chars().take(keep).collect();
    format!("{start}…{ext}")
}

/// Shortens the paths in `column` of `table` (see [`short_path`]).
pub fn shorten_paths(table: &mut Table, column: usize) {
    let home = std::env::var("HOME").ok();
    for row in &mut table.rows {
        if let Some(cell) = row.get_mut(column) {
            *cell = short_path(cell, home.as_deref(), TERMINAL_PATH_WIDTH);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shortened_in_the_middle() {
        let home = Some("/home/u");
        let long = "/home/u/.claude/projects/-home-u-src-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
        let short = short_path(long, home, 48);
        assert_eq!(short, "~/.claude/projects/…/8463c716-a2ea-4c1….jsonl");
        assert!(short.chars().count() <= 48);
        assert_eq!(short_path("/home/u/a.jsonl", home, 48), "~/a.jsonl");
        assert_eq!(
            short_path("/home/user/a.jsonl", home, 48),
            "/home/user/a.jsonl"
        );
        assert_eq!(short_path("runs/a.jsonl", home, 48), "runs/a.jsonl");
    }
}
