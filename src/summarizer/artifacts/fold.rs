//! How the artifact index is folded, and read back: paths sharing a directory as
//! `dir/{a.rs, b.rs}`, commands run one after another that share a long start as
//! `` `start`…: `rest1`, `rest2` ``. Both read back to whole paths and commands ([`unfold`]),
//! which is what the retention and eval checks look for: a model reads the folded forms as
//! what they stand for.

/// A command written in the index: its first line, whether it had more lines (` …`), how
/// often it ran (` ×N`) and, when it failed, its first error line (` → failed: line`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its first line.
    pub key: String,
    /// Whether it has more lines than its first.
    pub more: bool,
    /// Times run.
    pub times: usize,
    /// The first error line of its latest failed run (no backticks).
    pub failure: Option<String>,
}

/// What follows a failed command in the index, before its first error line.
const FAILED: &str = " → failed: ";

impl Command {
    /// The markers after it: ` …` when it had more lines, ` ×N` when it ran N > 1 times.
    fn markers(&self) -> String {
        let mut out = String::new();
        if self.more {
            out.push_str(" …");
        }
        if self.times > 1 {
            out.push_str(&format!(" ×{}", self.times));
        }
        if let Some(error) = &self.failure {
            out.push_str(FAILED);
            out.push_str(error);
        }
        out
    }
}

/// Paths written with each directory holding several once: `src/{a.rs, b.rs}, README.md`,
/// directories in the order first seen. A path whose name has `{`, `}` or `, ` is written
/// whole.
pub fn fold_paths(paths: &[&str]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for path in paths {
        let foldable = !path.contains(['{', '}']) && !path.contains(", ");
        let (dir, name) = match path.rfind('/') {
            Some(at) if foldable && at + 1 < path.len() => (&path[..=at], &path[at + 1..]),
            _ => ("", *path),
        };
        match groups
            .iter_mut()
            .find(|(d, _)| *d == dir && !dir.is_empty())
        {
            Some((_, names)) => names.push(name),
            None => groups.push((dir, vec![name])),
        }
    }
    let written: Vec<String> = groups
        .into_iter()
        .map(|(dir, names)| match names.as_slice() {
            [one] => format!("{dir}{one}"),
            _ => format!("{dir}{{{}}}", names.join(", ")),
        })
        .collect();
    written.join(", ")
}

/// The paths of a folded list, whole.
pub fn unfold_paths(list: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = list;
    while !rest.is_empty() {
        let (token, after) = next_token(rest);
        rest = after;
        match (token.find('{'), token.strip_suffix('}')) {
            (Some(open), Some(inner)) => {
                let dir = &token[..open];
                paths.extend(inner[open + 1..].split(", ").map(|n| format!("{dir}{n}")));
            }
            _ => paths.push(token.to_string()),
        }
    }
    paths
}

/// The first `, `-separated token of a folded list (braces kept together), and the rest.
fn next_token(list: &str) -> (&str, &str) {
    let mut depth = 0usize;
    for (at, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 && list[at..].starts_with(", ") => {
                return (&list[..at], &list[at + 2..]);
            }
            _ => {}
        }
    }
    (list, "")
}

/// The shortest root worth writing once as `$ROOT`.
const MIN_ROOT_CHARS: usize = 16;

/// The directory that most of `texts` (paths and commands) name files under, when writing
/// it once as `$ROOT` saves the most: named by three or more, at least [`MIN_ROOT_CHARS`]
/// long. None when a text holds `$ROOT` itself (it would read back wrong).
pub fn common_root(texts: &[&str]) -> Option<String> {
    if texts.iter().any(|t| t.contains("$ROOT")) {
        return None;
    }
    let mut candidates: Vec<&str> = Vec::new();
    for text in texts {
        for word in text.split([' ', '"', '\'', '=']) {
            let word = word.trim_end_matches('/');
            if !word.starts_with('/') {
                continue;
            }
            for (at, _) in word.match_indices('/').skip(1) {
                candidates.push(&word[..at]);
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    candidates
        .into_iter()
        .filter(|c| c.chars().count() >= MIN_ROOT_CHARS)
        .map(|c| (texts.iter().filter(|t| names_under(t, c)).count(), c))
        .filter(|(n, _)| *n >= 3)
        .max_by_key(|(n, c)| ((n - 1) * c.len(), c.len()))
        .map(|(_, c)| c.to_string())
}

/// Whether `text` names something under directory `root`.
fn names_under(text: &str, root: &str) -> bool {
    text.match_indices(root)
        .any(|(at, _)| text[at + root.len()..].starts_with('/'))
}

/// `text` with `root` written `$ROOT` wherever a path under it starts.
pub fn write_root(text: &str, root: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(root) {
        let after = &rest[at + root.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with('/') {
            out.push_str("$ROOT");
        } else {
            out.push_str(root);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The shortest shared start worth writing once: shorter ones save too little to be worth
/// the reader's effort.
const MIN_SHARED_CHARS: usize = 20;

/// Where a shared start may end: after a separator, so the rest reads as a word or value.
fn ends_at_boundary(text: &str) -> bool {
    text.ends_with([' ', '/', '?', '=', '&', ':', ',', '-', '_', '.'])
}

/// The longest start of `a` and `b` that ends at a boundary and leaves both something.
fn shared_start<'a>(a: &'a str, b: &str) -> &'a str {
    let mut end = 0;
    for ((at, x), y) in a.char_indices().zip(b.chars()) {
        if x != y {
            break;
        }
        end = at + x.len_utf8();
    }
    let mut start = &a[..end
        .min(a.len().saturating_sub(1))
        .min(b.len().saturating_sub(1))];
    while !(start.is_empty() || a.is_char_boundary(start.len()) && ends_at_boundary(start)) {
        start = &start[..start.len() - 1];
        while !a.is_char_boundary(start.len()) {
            start = &start[..start.len() - 1];
        }
    }
    start
}

/// The index lines of `commands`, in order: runs of commands sharing a start of at least
/// [`MIN_SHARED_CHARS`] written as one line.
pub fn fold_commands(commands: &[&Command]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut at = 0;
    while at < commands.len() {
        let mut start = commands[at].key.as_str();
        let mut end = at + 1;
        while end < commands.len() {
            let shared = shared_start(start, &commands[end].key);
            if shared.chars().count() < MIN_SHARED_CHARS {
                break;
            }
            start = shared;
            end += 1;
        }
        let run = &commands[at..end];
        if let [one] = run {
            lines.push(format!("`{}`{}", one.key, one.markers()));
        } else {
            let rests: Vec<String> = run
                .iter()
                .map(|c| format!("`{}`{}", &c.key[start.len()..], c.markers()))
                .collect();
            lines.push(format!("`{start}`…: {}", rests.join(", ")));
        }
        at = end;
    }
    lines
}

/// The commands of one index line, whole.
pub fn unfold_commands(line: &str) -> Vec<Command> {
    let (start, rests) = match line.split_once("`…: `") {
        Some((start, rests)) => (start.strip_prefix('`').unwrap_or(start), rests),
        None => ("", line.strip_prefix('`').unwrap_or(line)),
    };
    rests
        .split(", `")
        .filter_map(|piece| {
            // The error line after a failed command holds no backtick: the command's quote
            // ends at the last one before it.
            let (piece, failure) = match piece.split_once(FAILED) {
                Some((piece, error)) if !error.contains('`') => (piece, Some(error.to_string())),
                _ => (piece, None),
            };
            let (body, markers) = piece.rsplit_once('`')?;
            let times = markers
                .split_once('×')
                .and_then(|(_, n)| n.trim().parse().ok())
                .unwrap_or(1);
            Some(Command {
                key: format!("{start}{body}"),
                more: markers.contains('…'),
                times,
                failure,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(key: &str, more: bool, times: usize) -> Command {
        Command {
            key: key.into(),
            more,
            times,
            failure: None,
        }
    }

    #[test]
    fn paths_fold_by_directory_and_read_back() {
        let folded = fold_paths(&["src/a.rs", "README.md", "src/b.rs", "odd/{x}.rs"]);
        assert_eq!(folded, "src/{a.rs, b.rs}, README.md, odd/{x}.rs");
        assert_eq!(
            unfold_paths(&folded),
            ["src/a.rs", "src/b.rs", "README.md", "odd/{x}.rs"]
        );
    }

    #[test]
    fn a_root_most_entries_share_is_written_once() {
        let texts = [
            "/home/me/work/app/src/a.rs",
            "/home/me/work/app/src/b.rs",
            "ls /home/me/work/app/test",
            "cat /etc/hosts",
        ];
        assert_eq!(common_root(&texts).as_deref(), Some("/home/me/work/app"));
        assert_eq!(
            write_root(
                "ls /home/me/work/app/test /home/me/work/apps",
                "/home/me/work/app"
            ),
            "ls $ROOT/test /home/me/work/apps"
        );
        assert_eq!(common_root(&texts[2..]), None);
    }

    #[test]
    fn commands_in_a_row_sharing_a_long_start_fold_and_read_back() {
        let commands = [
            command(
                "curl -s http://localhost:8000/cgi-bin/file.pl?a.txt",
                false,
                1,
            ),
            command(
                "curl -s http://localhost:8000/cgi-bin/file.pl?/etc/passwd",
                false,
                2,
            ),
            command("curl -s http://localhost:8000/cgi-bin/forms.pl", true, 1),
            Command {
                failure: Some("error[E0425]: cannot find value 'x' in this scope".into()),
                ..command("cargo test", false, 3)
            },
            command("git status", false, 1),
        ];
        let refs: Vec<&Command> = commands.iter().collect();
        let lines = fold_commands(&refs);
        assert_eq!(
            lines,
            [
                "`curl -s http://localhost:8000/cgi-bin/`…: `file.pl?a.txt`, `file.pl?/etc/passwd` ×2, `forms.pl` …",
                "`cargo test` ×3 → failed: error[E0425]: cannot find value 'x' in this scope",
                "`git status`"
            ]
        );
        let back: Vec<Command> = lines.iter().flat_map(|l| unfold_commands(l)).collect();
        assert_eq!(back, commands);
    }
}
