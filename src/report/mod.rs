//! Reports in every output format: a table on a terminal, JSON, YAML and markdown.
//!
//! A command builds its report as serde data (for JSON and YAML, camelCase and stable, with a
//! `schemaVersion`) and as a [`Table`] (for the terminal and markdown). One file per format;
//! [`compact`] holds the data and table of `ctxc compact`'s report, which the library
//! ([`crate::api`]) and the resume manifest share with the command, so it lives here, below
//! `commands/`.

pub mod compact;
pub mod compact_table;
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

/// Which columns a table has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columns {
    /// What fits a 120-column terminal (with paths shortened there): one token figure, the
    /// one the trigger uses, and sizes as `2.9 MB`; the rest is in `-v` and `--json`.
    Narrow,
    /// Every column (both token counts, exact byte counts, the steps taken).
    Wide,
}

impl Columns {
    /// Markdown gets every column (a rendered page scrolls); a table fits a terminal.
    pub fn of(format: OutputFormat) -> Columns {
        match format {
            OutputFormat::Markdown => Columns::Wide,
            _ => Columns::Narrow,
        }
    }
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

/// The width a table printed on a terminal keeps to.
pub const TERMINAL_WIDTH: usize = 120;

/// The narrowest a path is shortened to, however wide the other columns are.
const MIN_PATH_WIDTH: usize = 24;

/// `table` as a terminal shows it: the paths in `column` shortened (see [`short_path`]) as far
/// as the other columns leave room for in [`TERMINAL_WIDTH`] (at most [`TERMINAL_PATH_WIDTH`],
/// at least 24 characters), and notes wider than that wrapped at spaces, continued indented.
/// Reports to files and pipes keep whole paths and one line per note.
pub fn fit_terminal(table: &mut Table, column: usize) {
    let home = std::env::var("HOME").ok();
    let max = path_room(table, column);
    for row in &mut table.rows {
        if let Some(cell) = row.get_mut(column) {
            *cell = short_path(cell, home.as_deref(), max);
        }
    }
    table.notes = table
        .notes
        .iter()
        .flat_map(|note| wrapped(note, TERMINAL_WIDTH))
        .collect();
}

/// What [`TERMINAL_WIDTH`] leaves for `column` once every other column has its widest cell.
fn path_room(table: &Table, column: usize) -> usize {
    let rows = std::iter::once(&table.headers)
        .chain(&table.rows)
        .chain(table.total.as_ref());
    let mut widths = vec![0; table.headers.len()];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let others: usize = widths
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != column)
        .map(|(_, w)| w + 2)
        .sum();
    TERMINAL_WIDTH
        .saturating_sub(others)
        .clamp(MIN_PATH_WIDTH, TERMINAL_PATH_WIDTH)
}

/// `line` broken at spaces into lines of at most `width` characters where it can be (a word
/// longer than that stays whole), the continuations indented by two spaces.
pub fn wrapped(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in line.split(' ') {
        let indent = if lines.is_empty() { 0 } else { 2 };
        let needed = current.chars().count() + 1 + word.chars().count();
        if !current.is_empty() && indent + needed > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    lines.push(current);
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { format!("  {l}") })
        .collect()
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

    #[test]
    fn a_long_note_wraps_at_spaces_within_the_width_and_keeps_every_word() {
        let note = "provider tokens: the next prompt as the provider would count it: the last reported prompt plus ratio × what came after it, fitted per file on its calls' usage";
        let lines = wrapped(note, 60);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.chars().count() <= 60), "{lines:?}");
        assert!(lines[1..].iter().all(|l| l.starts_with("  ")));
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words, note.split_whitespace().collect::<Vec<_>>());
        assert_eq!(wrapped("short", 60), ["short"]);
    }

    #[test]
    fn paths_get_what_the_other_columns_leave_of_the_terminal() {
        let long = "/data/runs/2026/december/batch-0042/sessions/claude/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
        let mut table = Table {
            headers: vec!["FILE".into(), "FIGURES".into()],
            numeric: vec![false, true],
            rows: vec![vec![long.into(), "x".repeat(80)]],
            total: None,
            notes: vec![],
        };
        fit_terminal(&mut table, 0);
        let width = table.rows[0][0].chars().count();
        assert!(width + 2 + 80 <= TERMINAL_WIDTH, "{}", table.rows[0][0]);
        assert!(width >= MIN_PATH_WIDTH);
    }
}
