//! The artifact index every extractive summary carries: each file the span touched with its
//! actions in order (`created, modified ×3, read, deleted`), and each distinct command run
//! with how often and, when it failed, its first error line — the trail that compaction
//! summaries lose most (Factory's probe study found every system weakest on it).
//!
//! It is folded to save tokens ([`fold`]): files with the same actions are grouped (their
//! state first: changed, created, deleted, read) and, within that, by directory, a directory
//! holding several written once as `dir/{a.rs, b.rs}`; a command run again is counted
//! (`×3`), not repeated, and commands run in a row that share a long start write it once. When the budget cannot hold it all, entries are
//! dropped by rank — those a later turn touched again outrank those touched once, recent
//! outranks old — and the index says how many were left out; it is never simply cut.
//! [`unfold`] reads the folded paths and commands back, for the retention and eval checks: a
//! model reads `src/{a.rs, b.rs}` as `src/a.rs` and `src/b.rs`.

mod fold;

use crate::facts::Effect;
use crate::tokens::TokenCounter;
use fold::{Command, fold_commands, fold_paths, unfold_commands, unfold_paths};
use std::collections::{HashMap, HashSet};

/// The index's title for files; [`unfold`] looks for it.
pub const FILES_TITLE: &str = "Files touched, actions in order:";
/// The title of ctxc's index before it listed every action: read back the same way.
pub const OLD_FILES_TITLE: &str = "Files touched, by last action:";

/// Whether `line` is the files title of this ctxc or an earlier one.
pub fn is_files_title(line: &str) -> bool {
    line == FILES_TITLE || line == OLD_FILES_TITLE
}

/// Most runs of actions written for one file: the first and the latest are kept.
const MAX_RUNS: usize = 5;

/// Longest error line written beside a failed command.
const MAX_FAILURE_CHARS: usize = 160;
/// The title for commands.
pub const COMMANDS_TITLE: &str =
    "Commands run, oldest first (×N: N runs; `x`…: `a`, `b` ran xa, xb):";

/// How the index line naming the shared root starts: `$ROOT = /home/me/project`.
pub const ROOT_PREFIX: &str = "$ROOT = ";

/// Entries past the first that does not fit tried in the room it left.
const FILL_TRIES: usize = 16;

/// Actions in the order they are written (changes first: what the agent did matters most).
const ACTIONS: [Effect; 5] = [
    Effect::Modify,
    Effect::Create,
    Effect::Delete,
    Effect::Read,
    Effect::None,
];

/// Files and commands of a span, with what the ranking needs.
#[derive(Debug, Default, Clone)]
pub struct ArtifactIndex {
    files: Vec<Entry>,
    commands: Vec<Entry>,
    by_path: HashMap<String, usize>,
    by_command: HashMap<String, usize>,
    /// Order of the latest touch.
    clock: usize,
}

/// One file or command.
#[derive(Debug, Clone)]
struct Entry {
    /// The path, or the command's first line.
    text: String,
    effect: Effect,
    /// For a command: whether it has more lines than its first.
    more: bool,
    /// Times touched (files) or run (commands).
    count: usize,
    /// When last touched ([`ArtifactIndex::clock`]).
    last: usize,
    /// For a file: its actions in order, a run of the same one counted.
    runs: Vec<(Effect, usize)>,
    /// For a command: the first error line of its latest failed run.
    failure: Option<String>,
}

impl Entry {
    /// A file's actions as written: `created, modified ×3, read`; a file only named says
    /// `named` unless something was done to it; over [`MAX_RUNS`] runs, the first and the
    /// latest around `…`.
    fn actions(&self) -> String {
        let done: Vec<&(Effect, usize)> = self
            .runs
            .iter()
            .filter(|(e, _)| *e != Effect::None)
            .collect();
        let runs: Vec<&(Effect, usize)> = if done.is_empty() {
            self.runs.iter().take(1).collect()
        } else {
            done
        };
        let word = |(effect, n): &(Effect, usize)| match n {
            1 => effect.verb().to_string(),
            n => format!("{} ×{n}", effect.verb()),
        };
        if runs.len() <= MAX_RUNS {
            return runs.iter().map(|r| word(r)).collect::<Vec<_>>().join(", ");
        }
        let mut words: Vec<String> = runs[..2].iter().map(|r| word(r)).collect();
        words.push("…".into());
        words.extend(runs[runs.len() - (MAX_RUNS - 2)..].iter().map(|r| word(r)));
        words.join(", ")
    }
}

/// The effects of a written action list (`created, modified ×3`), each as often as it ran;
/// a word that is no action (`…`) is skipped.
fn read_actions(list: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for word in list.split(", ") {
        let (verb, times) = match word.split_once(" ×") {
            Some((verb, n)) => (verb, n.trim().parse().unwrap_or(1)),
            None => (word, 1),
        };
        if let Some(effect) = ACTIONS.into_iter().find(|e| e.verb() == verb) {
            effects.extend(std::iter::repeat_n(effect, times));
        }
    }
    effects
}

/// The state a list of actions leaves a file in: its last change, else its last action (a
/// read after an edit does not undo it).
fn state_of(effects: &[Effect]) -> Option<Effect> {
    effects
        .iter()
        .rev()
        .find(|e| e.changes())
        .or(effects.last())
        .copied()
}

impl ArtifactIndex {
    /// Notes that a call did `effect` to `path`. A read after a change does not replace it:
    /// the change is the file's state.
    pub fn file(&mut self, path: &str, effect: Effect) {
        self.clock += 1;
        let clock = self.clock;
        match self.by_path.get(path) {
            Some(&i) => {
                let entry = &mut self.files[i];
                if !entry.effect.changes() || effect.changes() {
                    entry.effect = effect;
                }
                entry.count += 1;
                entry.last = clock;
                match entry.runs.last_mut() {
                    Some((last, n)) if *last == effect => *n += 1,
                    _ => entry.runs.push((effect, 1)),
                }
            }
            None => {
                self.by_path.insert(path.to_string(), self.files.len());
                self.files.push(Entry {
                    text: path.to_string(),
                    effect,
                    more: false,
                    count: 1,
                    last: clock,
                    runs: vec![(effect, 1)],
                    failure: None,
                });
            }
        }
    }

    /// Notes that a command whose first line is `key` (`more`: it has other lines) ran
    /// `times` times.
    pub fn command(&mut self, key: &str, more: bool, times: usize) {
        self.clock += 1;
        let clock = self.clock;
        match self.by_command.get(key) {
            Some(&i) => {
                self.commands[i].count += times;
                self.commands[i].last = clock;
            }
            None => {
                self.by_command.insert(key.to_string(), self.commands.len());
                self.commands.push(Entry {
                    text: key.to_string(),
                    effect: Effect::None,
                    more,
                    count: times,
                    last: clock,
                    runs: Vec::new(),
                    failure: None,
                });
            }
        }
    }

    /// Notes that the latest run of the command whose first line is `key` failed, its first
    /// error line `error` (a command not noted is left alone).
    pub fn command_failed(&mut self, key: &str, error: &str) {
        if let Some(&i) = self.by_command.get(key) {
            // Backticks would end the command's quote when the index is read back.
            let line = crate::facts::clip(&error.replace('`', "'"), MAX_FAILURE_CHARS);
            self.commands[i].failure = Some(line);
        }
    }

    /// Whether nothing was touched.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.commands.is_empty()
    }

    /// Merges the index lines of an earlier summary (`line` under `title`, without `- `),
    /// older than anything noted after.
    pub fn merge_line(&mut self, title: &str, line: &str) {
        if line.starts_with('(') && line.ends_with("not shown)") {
            return;
        }
        if is_files_title(title) {
            let Some((actions, paths)) = line.split_once(": ") else {
                return;
            };
            let mut effects = read_actions(actions);
            if effects.is_empty() {
                effects.push(Effect::None);
            }
            for path in unfold_paths(paths) {
                for &effect in &effects {
                    self.file(&path, effect);
                }
            }
        } else if title == COMMANDS_TITLE {
            for command in unfold_commands(line) {
                self.command(&command.key, command.more, command.times);
                if let Some(error) = &command.failure {
                    self.command_failed(&command.key, error);
                }
            }
        }
    }

    /// The index in at most `budget` tokens: whole when it fits, else its best-ranked
    /// entries and a line saying how many were left out. Empty when not even one entry fits.
    pub fn render(&self, budget: usize, counter: &TokenCounter) -> String {
        let whole = self.render_kept(&|_| true, 0, 0);
        if counter.count(&whole) <= budget {
            return whole;
        }
        // Every entry ranked: touched again first, then the most recent.
        let mut ranked: Vec<(bool, usize, usize, bool)> = Vec::new();
        for (list, entries) in [(true, &self.files), (false, &self.commands)] {
            for (i, e) in entries.iter().enumerate() {
                ranked.push((e.count > 1, e.last, i, list));
            }
        }
        ranked.sort_by_key(|&(again, last, _, _)| std::cmp::Reverse((again, last)));
        let keys: Vec<(bool, usize)> = ranked.iter().map(|&(_, _, i, list)| (list, i)).collect();
        let text_of = |kept: &[(bool, usize)]| {
            let kept: HashSet<(bool, usize)> = kept.iter().copied().collect();
            let files_out = self.files.len() - kept.iter().filter(|(l, _)| *l).count();
            let commands_out = self.commands.len() - kept.iter().filter(|(l, _)| !*l).count();
            self.render_kept(&|key| kept.contains(&key), files_out, commands_out)
        };
        // The most entries that fit, by bisection: the text grows with the entries kept.
        let (mut low, mut high) = (0, ranked.len());
        while low < high {
            let mid = (low + high).div_ceil(2);
            if counter.count(&text_of(&keys[..mid])) <= budget {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        if low == 0 {
            return String::new();
        }
        // What the next entry left over may still hold a shorter one further down (a file
        // where a long command did not fit).
        let mut kept = keys[..low].to_vec();
        for &key in keys[low..].iter().take(FILL_TRIES) {
            kept.push(key);
            if counter.count(&text_of(&kept)) > budget {
                kept.pop();
            }
        }
        text_of(&kept)
    }

    /// The index with the entries `kept` says (`(is_file, index)`), and a line for those
    /// left out.
    fn render_kept(
        &self,
        kept: &dyn Fn((bool, usize)) -> bool,
        files_out: usize,
        commands_out: usize,
    ) -> String {
        let mut out = String::new();
        let files: Vec<(usize, &Entry)> = self
            .files
            .iter()
            .enumerate()
            .filter(|(i, _)| kept((true, *i)))
            .collect();
        let texts: Vec<&str> = files
            .iter()
            .map(|(_, e)| e.text.as_str())
            .chain(
                (0..self.commands.len())
                    .filter(|&i| kept((false, i)))
                    .map(|i| self.commands[i].text.as_str()),
            )
            .collect();
        let root = fold::common_root(&texts);
        let rooted = |text: &str| match &root {
            Some(root) => fold::write_root(text, root),
            None => text.to_string(),
        };
        if let Some(root) = &root {
            out.push_str(&format!("{ROOT_PREFIX}{root}\n"));
        }
        if !files.is_empty() {
            out.push_str(FILES_TITLE);
            // One line per list of actions, in the order first seen, by the state it leaves.
            for state in ACTIONS {
                let mut lines: Vec<(String, Vec<String>)> = Vec::new();
                for (_, e) in files.iter().filter(|(_, e)| e.effect == state) {
                    let actions = e.actions();
                    match lines.iter_mut().find(|(a, _)| *a == actions) {
                        Some((_, paths)) => paths.push(rooted(&e.text)),
                        None => lines.push((actions, vec![rooted(&e.text)])),
                    }
                }
                for (actions, paths) in lines {
                    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                    out.push_str(&format!("\n- {actions}: {}", fold_paths(&paths)));
                }
            }
        }
        let commands: Vec<Command> = self
            .commands
            .iter()
            .enumerate()
            .filter(|(i, _)| kept((false, *i)))
            .map(|(_, e)| Command {
                key: rooted(&e.text),
                more: e.more,
                times: e.count,
                failure: e.failure.as_deref().map(rooted),
            })
            .collect();
        if !commands.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(COMMANDS_TITLE);
            for line in fold_commands(&commands.iter().collect::<Vec<_>>()) {
                out.push_str("\n- ");
                out.push_str(&line);
            }
        }
        if files_out + commands_out > 0 {
            out.push_str(&format!(
                "\n- ({files_out} files and {commands_out} commands, touched once and earliest, not shown)"
            ));
        }
        out
    }
}

/// Every path and command the artifact indexes in `text` fold, written whole.
pub fn unfold(text: &str) -> Vec<String> {
    let text = expand_roots(text);
    let text = text.as_ref();
    let mut unfolded = Vec::new();
    for title in [FILES_TITLE, OLD_FILES_TITLE, COMMANDS_TITLE] {
        // memmem, not `match_indices`: retention unfolds the whole compacted conversation,
        // and the two-way search took 2% of compacting the tau-bench file.
        for at in memchr::memmem::find_iter(text.as_bytes(), title) {
            let lines = text[at + title.len()..].lines().skip(1);
            for line in lines.map_while(|l| l.strip_prefix("- ")) {
                if title == COMMANDS_TITLE {
                    unfolded.extend(unfold_commands(line).into_iter().map(|c| c.key));
                } else if let Some((_, list)) = line.split_once(": ") {
                    unfolded.extend(unfold_paths(list));
                }
            }
        }
    }
    unfolded
}

/// `text` without its artifact indexes: each index's title and the `- ` entries under it,
/// and the `$ROOT = ` lines, left out. What is left is what the model is sent verbatim: a
/// file's name in an index is not the edit made to it (`ctxc eval`'s verbatim check).
pub fn without_indexes(text: &str) -> std::borrow::Cow<'_, str> {
    let has = |title: &str| memchr::memmem::find(text.as_bytes(), title.as_bytes()).is_some();
    if !has(FILES_TITLE) && !has(OLD_FILES_TITLE) && !has(COMMANDS_TITLE) && !has(ROOT_PREFIX) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_index = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if is_files_title(bare) || bare == COMMANDS_TITLE {
            in_index = true;
            continue;
        }
        if in_index && bare.starts_with("- ") {
            continue;
        }
        in_index = false;
        if bare.starts_with(ROOT_PREFIX) {
            continue;
        }
        out.push_str(line);
    }
    std::borrow::Cow::Owned(out)
}

/// Every file the artifact indexes in `text` list, with the state their actions leave it in
/// (the last change, else the last action), in the order written: what a model reading the
/// summary knows was done to each file.
pub fn indexed_actions(text: &str) -> Vec<(String, Effect)> {
    if !text.contains(FILES_TITLE) && !text.contains(OLD_FILES_TITLE) {
        return Vec::new();
    }
    let text = expand_roots(text);
    let mut found = Vec::new();
    for title in [FILES_TITLE, OLD_FILES_TITLE] {
        for (at, _) in text.match_indices(title) {
            let lines = text[at + title.len()..].lines().skip(1);
            for line in lines.map_while(|l| l.strip_prefix("- ")) {
                let Some((actions, list)) = line.split_once(": ") else {
                    continue;
                };
                if let Some(effect) = state_of(&read_actions(actions)) {
                    found.extend(unfold_paths(list).into_iter().map(|p| (p, effect)));
                }
            }
        }
    }
    found
}

/// `text` with the shared root of every artifact index written out (`$ROOT/src/a.rs` read as
/// `/home/me/project/src/a.rs`) and the root lines left out.
pub fn expand_roots(text: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memmem::find(text.as_bytes(), ROOT_PREFIX.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut root: Option<&str> = None;
    for line in text.lines() {
        if let Some(found) = line.strip_prefix(ROOT_PREFIX) {
            root = Some(found.trim_end());
            continue;
        }
        let in_index = is_files_title(line) || line == COMMANDS_TITLE || line.starts_with("- ");
        match root.filter(|_| in_index) {
            Some(root) => out.push_str(&line.replace("$ROOT", root)),
            None => {
                root = None;
                out.push_str(line);
            }
        }
        out.push('\n');
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    fn index() -> ArtifactIndex {
        let mut index = ArtifactIndex::default();
        index.file("src/a.rs", Effect::Read);
        index.file("src/b.rs", Effect::Modify);
        index.file("src/a.rs", Effect::Modify);
        index.file("src/a.rs", Effect::Read);
        index.file("README.md", Effect::Read);
        index.file("/repo/tests/x_test.py", Effect::Create);
        index.command("cargo test", false, 1);
        index.command("git status", false, 1);
        index.command("cargo test", false, 1);
        index
    }

    #[test]
    fn files_are_folded_by_last_action_and_directory_and_commands_counted() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let text = index().render(1000, &counter);
        assert_eq!(
            text,
            format!(
                "{FILES_TITLE}\n- read, modified, read: src/a.rs\n- modified: src/b.rs\n- created: /repo/tests/x_test.py\n- read: README.md\n{COMMANDS_TITLE}\n- `cargo test` ×2\n- `git status`"
            )
        );
        assert_eq!(
            unfold(&format!("intro\n{text}")),
            [
                "src/a.rs",
                "src/b.rs",
                "/repo/tests/x_test.py",
                "README.md",
                "cargo test",
                "git status"
            ]
        );
    }

    #[test]
    fn each_file_lists_its_actions_in_order_and_a_failed_command_its_error() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let mut index = ArtifactIndex::default();
        index.file("app/new.py", Effect::Create);
        for _ in 0..3 {
            index.file("app/new.py", Effect::Modify);
        }
        index.file("app/new.py", Effect::Read);
        index.file("app/new.py", Effect::Delete);
        index.file("app/old.py", Effect::Modify);
        index.file("app/seen.py", Effect::None);
        index.file("app/seen.py", Effect::Read);
        index.command("pytest -x", false, 1);
        index.command_failed("pytest -x", "E   ImportError: no `new` module");
        index.command("pytest -x", false, 1);
        let text = index.render(1000, &counter);
        assert_eq!(
            text,
            format!(
                "{FILES_TITLE}\n- modified: app/old.py\n- created, modified ×3, read, deleted: app/new.py\n- read: app/seen.py\n{COMMANDS_TITLE}\n- `pytest -x` ×2 → failed: E   ImportError: no 'new' module"
            )
        );
        // Read back: the state each file is in, the command whole, the same index again.
        let states: Vec<(String, &str)> = indexed_actions(&text)
            .into_iter()
            .map(|(p, e)| (p, e.verb()))
            .collect();
        assert_eq!(
            states,
            [
                ("app/old.py".to_string(), "modified"),
                ("app/new.py".to_string(), "deleted"),
                ("app/seen.py".to_string(), "read")
            ]
        );
        assert!(unfold(&text).contains(&"pytest -x".to_string()));
        let mut merged = ArtifactIndex::default();
        let mut title = "";
        for line in text.lines() {
            match line.strip_prefix("- ") {
                Some(entry) => merged.merge_line(title, entry),
                None => {
                    title = if is_files_title(line) {
                        FILES_TITLE
                    } else {
                        COMMANDS_TITLE
                    }
                }
            }
        }
        assert_eq!(merged.render(1000, &counter), text);
        // A long history keeps its first and latest runs.
        let mut busy = ArtifactIndex::default();
        busy.file("a.rs", Effect::Create);
        for _ in 0..4 {
            busy.file("a.rs", Effect::Read);
            busy.file("a.rs", Effect::Modify);
        }
        assert_eq!(
            busy.render(1000, &counter),
            format!("{FILES_TITLE}\n- created, read, …, modified, read, modified: a.rs")
        );
        // An index of an earlier ctxc, by last action, still reads back.
        let old = format!("{OLD_FILES_TITLE}\n- deleted: x.py");
        assert_eq!(
            indexed_actions(&old),
            [("x.py".to_string(), Effect::Delete)]
        );
        assert_eq!(without_indexes(&old), "");
    }

    #[test]
    fn indexed_files_are_read_back_with_their_last_action() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let text = index().render(1000, &counter);
        let found: Vec<(String, &str)> = indexed_actions(&format!("intro\n{text}"))
            .into_iter()
            .map(|(p, e)| (p, e.verb()))
            .collect();
        assert_eq!(
            found,
            [
                ("src/a.rs".to_string(), "modified"),
                ("src/b.rs".to_string(), "modified"),
                ("/repo/tests/x_test.py".to_string(), "created"),
                ("README.md".to_string(), "read"),
            ]
        );
        assert!(indexed_actions("no index here").is_empty());
    }

    #[test]
    fn a_short_budget_drops_the_earliest_entries_touched_once_and_counts_them() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let mut index = index();
        for k in 0..200 {
            index.file(&format!("docs/page_{k:03}.md"), Effect::Read);
        }
        let whole = index.render(100_000, &counter);
        let short = index.render(200, &counter);
        assert!(counter.count(&short) <= 200, "{short}");
        let kept = unfold(&short);
        // Touched twice, so kept: src/a.rs and `cargo test`; the newest reads next.
        assert!(kept.contains(&"src/a.rs".to_string()), "{short}");
        assert!(short.contains("`cargo test` ×2"), "{short}");
        assert!(kept.contains(&"docs/page_199.md".to_string()), "{short}");
        assert!(!kept.contains(&"docs/page_000.md".to_string()), "{short}");
        let files_kept = kept.iter().filter(|p| p.contains('.')).count();
        let left_out = 204 - files_kept;
        assert!(
            short.contains(&format!("({left_out} files and 1 commands")),
            "{short}"
        );
        assert_eq!(unfold(&whole).len(), 204 + 2);
    }

    #[test]
    fn without_indexes_leaves_out_titles_entries_and_roots_only() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let text = format!(
            "intro: ran `cargo test`\n$ROOT = /repo\n{}\nafter\n- a list item stays",
            index().render(1000, &counter)
        );
        let left = without_indexes(&text);
        assert_eq!(left, "intro: ran `cargo test`\nafter\n- a list item stays");
        assert!(matches!(
            without_indexes("plain"),
            std::borrow::Cow::Borrowed("plain")
        ));
    }

    #[test]
    fn an_index_read_back_is_the_same_index() {
        let counter = TokenCounter::new(Encoding::O200kBase).unwrap();
        let text = index().render(1000, &counter);
        let mut merged = ArtifactIndex::default();
        let mut title = "";
        for line in text.lines() {
            match line.strip_prefix("- ") {
                Some(entry) => merged.merge_line(title, entry),
                None => {
                    title = if line == FILES_TITLE {
                        FILES_TITLE
                    } else {
                        COMMANDS_TITLE
                    }
                }
            }
        }
        assert_eq!(merged.render(1000, &counter), text);
    }
}
