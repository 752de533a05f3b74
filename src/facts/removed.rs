//! Files a shell command removes (`rm`, `git rm`, `unlink`): a deletion the tool's name does
//! not tell ([`super::file_effect`] sees a shell call), for the summaries' index and
//! `ctxc eval`'s deleted-file probe.

use super::CallArgs;

/// The paths `call`'s command removes, as written, in order.
pub fn removed_paths(call: &CallArgs) -> Vec<String> {
    let Some(command) = call.command_text() else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    for step in command.split(['\n', ';', '&', '|']) {
        let mut words = step
            .split_whitespace()
            .skip_while(|w| *w == "sudo" || w.contains('=') && !w.starts_with('-'));
        let removes = match words.next() {
            Some("rm" | "unlink") => true,
            Some("git") => words.next() == Some("rm"),
            _ => false,
        };
        if removes {
            paths.extend(
                words
                    .filter(|w| !w.starts_with('-'))
                    .map(|w| w.trim_matches(['"', '\'']).to_string())
                    .filter(|w| !w.is_empty() && !w.contains(['*', '$', '>', '<'])),
            );
        }
    }
    paths
}

/// Whether two paths name the same file, one possibly relative (`/repo/a.py`, `a.py`).
pub fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_start_matches("./"), b.trim_start_matches("./"));
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long == short || long.ends_with(&format!("/{short}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(command: &str) -> CallArgs {
        CallArgs {
            name: "Bash".into(),
            args: json!({ "command": command }),
        }
    }

    #[test]
    fn rm_git_rm_and_unlink_name_what_they_remove() {
        assert_eq!(
            removed_paths(&bash(
                "cd /repo && rm -f notes.txt 'b.md'; git rm -q old.rs"
            )),
            ["notes.txt", "b.md", "old.rs"]
        );
        assert_eq!(removed_paths(&bash("unlink /tmp/x.sock")), ["/tmp/x.sock"]);
        assert!(removed_paths(&bash("cargo rm serde && echo rm x")).is_empty());
        assert!(removed_paths(&bash("rm -rf build/*")).is_empty());
        assert!(same_file("/repo/notes.txt", "./notes.txt"));
        assert!(!same_file("/repo/notes.txt", "otes.txt"));
    }
}
