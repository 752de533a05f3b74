//! What `--help` and the man pages say beyond the flags: each command's EXAMPLES and the EXIT
//! STATUS every command shares. `-h` stays short (the flags' first lines only, and for a
//! command with many flags the common ones only); `--help` and `man` add these, as ripgrep's
//! and git's pages do.

use clap_mangen::roff::{Roff, bold, roman};

/// The examples of the command at `path` (`["compact"]`, `["report", "merge"]`; `[]` for
/// ctxc itself): a command line and what it does.
pub fn examples(path: &[&str]) -> &'static [(&'static str, &'static str)] {
    match path {
        [] => &[
            (
                "ctxc sessions",
                "list this project's Claude Code, Codex and pi sessions",
            ),
            (
                "ctxc compact --in-place --archive @8463",
                "compact a session where its client keeps it, keeping what was removed",
            ),
            (
                "ctxc stats transcripts/",
                "how many tokens each transcript sends",
            ),
        ],
        ["sessions"] => &[
            (
                "ctxc sessions",
                "this directory's project's sessions, newest first",
            ),
            (
                "ctxc sessions --all --json",
                "every project's, as JSON (full ids, paths, resume commands)",
            ),
        ],
        ["stats"] => &[
            (
                "ctxc stats session.jsonl",
                "context tokens by role, kind and tool; triggers that fire",
            ),
            (
                "ctxc stats --json transcripts/",
                "the same for a folder, as JSON",
            ),
            ("ctxc stats @", "this directory's latest session"),
        ],
        ["check"] => &[
            (
                "ctxc check transcripts/",
                "parsing, call/result pairing, role order and chain links",
            ),
            (
                "ctxc check --json @8463",
                "the findings of one session, as JSON",
            ),
        ],
        ["compact"] => &[
            (
                "ctxc compact session.jsonl",
                "writes session.compact.jsonl beside it, if a trigger fires",
            ),
            (
                "ctxc compact --target-ratio 0.5 --out-dir out/ transcripts/",
                "every transcript to about half its tokens, into out/",
            ),
            (
                "ctxc compact --in-place --archive --drop-stored @8463",
                "a session in its client's store; `ctxc restore @8463` gives the original back",
            ),
            (
                "ctxc compact --dry-run --target-ratio 0.25 --json transcripts/",
                "what would be saved, writing nothing",
            ),
        ],
        ["repair"] => &[
            (
                "ctxc repair session.jsonl",
                "writes session.repaired.jsonl, naming every repair",
            ),
            (
                "ctxc repair --in-place @8463",
                "fix a session that no longer resumes, where it lies",
            ),
        ],
        ["restore"] => &[
            (
                "ctxc restore @8463 -o original.jsonl",
                "the session as it was before an in-place compaction with --archive",
            ),
            (
                "ctxc restore out/session.ctxc-archive.json",
                "from an archive file",
            ),
        ],
        ["archive"] | ["archive", "show"] => &[(
            "ctxc archive show out/session.ctxc-archive.json",
            "what each compaction dropped or summarized",
        )],
        ["convert"] => &[
            (
                "ctxc convert --to atif run.json -o run.atif.json",
                "an OpenAI chat run as ATIF",
            ),
            (
                "ctxc convert --to openai trajectory.json",
                "an ATIF trajectory as OpenAI messages",
            ),
        ],
        ["fit"] => &[
            (
                "ctxc fit runs/ --max-len 8192 --tokenizer-file qwen3/tokenizer.json -o train.jsonl",
                "samples of 8192 Qwen3 tokens, template from qwen3/tokenizer_config.json",
            ),
            (
                "ctxc fit session.jsonl --max-len 4096 --policy one --dry-run -v",
                "one sample per trajectory, reported and not written",
            ),
        ],
        ["eval"] => &[(
            "ctxc eval --target-ratio 0.5,0.25 transcripts/",
            "what each strategy keeps verbatim, in the summary only, or loses",
        )],
        ["report"] | ["report", "merge"] => &[(
            "ctxc report merge shard-*.json --json",
            "one report from the shards of a job matrix",
        )],
        ["config"] | ["config", "show"] => &[(
            "ctxc config show",
            "the settings compact would use, and where each comes from",
        )],
        ["completions"] => &[(
            "ctxc completions zsh",
            "the zsh completion script (see the README for where it goes)",
        )],
        ["man"] => &[
            ("ctxc man compact", "this page for compact"),
            (
                "ctxc man --dir ~/.local/share/man/man1",
                "every page, for `man ctxc-compact`",
            ),
        ],
        _ => &[],
    }
}

/// What every command's exit status means.
pub const EXIT_STATUS: [(u8, &str); 4] = [
    (0, "everything went well"),
    (
        1,
        "some input failed or has findings; the others were processed and written",
    ),
    (
        2,
        "a usage, configuration or I/O error: nothing was processed",
    ),
    (
        130,
        "interrupted (Ctrl-C): compact finishes the files in progress, reports them and starts no other",
    ),
];

/// The `--help` text after the flags: EXAMPLES (where the command has any) and EXIT STATUS.
fn after_long_help(path: &[&str]) -> String {
    let mut text = String::new();
    let examples = examples(path);
    if !examples.is_empty() {
        text.push_str("Examples:\n");
        for (line, what) in examples {
            text.push_str(&format!("  {line}\n      {what}\n"));
        }
        text.push('\n');
    }
    text.push_str("Exit status:\n");
    for (code, what) in EXIT_STATUS {
        text.push_str(&format!("  {code}  {what}\n"));
    }
    text
}

/// `cmd` and its subcommands with their EXAMPLES and EXIT STATUS under `--help` (not `-h`).
pub fn with_examples(cmd: clap::Command) -> clap::Command {
    with_examples_at(cmd, &mut Vec::new())
}

fn with_examples_at(mut cmd: clap::Command, path: &mut Vec<String>) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .filter(|n| n != "help")
        .collect();
    for name in names {
        path.push(name.clone());
        cmd = cmd.mut_subcommand(&name, |sub| with_examples_at(sub, path));
        path.pop();
    }
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    if let Some(keep) = short_help_flags(&path) {
        cmd = short_help(cmd, keep);
    }
    cmd.after_long_help(after_long_help(&path))
}

/// The flags `-h` shows for a command with too many to read at a glance (`compact` has 80):
/// what a first run needs. `--help` and the man pages show every flag.
fn short_help_flags(path: &[&str]) -> Option<&'static [&'static str]> {
    match path {
        ["compact"] => Some(&[
            "target-ratio",
            "target-tokens",
            "strategy",
            "force",
            "dry-run",
            "output",
            "out-dir",
            "in-place",
            "archive",
            "backup",
            "model",
            "json",
            "report",
            "help",
        ]),
        _ => None,
    }
}

/// `cmd` with every flag but `keep` (and the positional arguments) hidden from `-h`, each left
/// where it is (so `--help` and the man page keep their order of sections).
fn short_help(cmd: clap::Command, keep: &[&str]) -> clap::Command {
    cmd.mut_args(|a| {
        let kept = a.is_positional() || a.get_long().is_some_and(|long| keep.contains(&long));
        a.hide_short_help(!kept)
    })
}

/// The man page of `cmd`, named `name` (`ctxc-report-merge`): clap_mangen's page, then
/// EXAMPLES and EXIT STATUS as man pages have them (not as clap_mangen's EXTRA section).
pub fn man_page(cmd: &clap::Command, name: &str, path: &[&str]) -> Vec<u8> {
    // A page shows every flag with its help: what `-h` hides (see `short_help`) too.
    let plain = cmd
        .clone()
        .name(name.to_string())
        .after_help(None::<&str>)
        .after_long_help(None::<&str>)
        .mut_args(|a| a.hide_short_help(false));
    let mut buf = Vec::new();
    clap_mangen::Man::new(plain)
        .render(&mut buf)
        .expect("rendering to memory cannot fail");
    let mut roff = Roff::default();
    let examples = examples(path);
    if !examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        for (line, what) in examples {
            roff.control("TP", []);
            roff.text([bold(*line)]);
            roff.text([roman(*what)]);
        }
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in EXIT_STATUS {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(what)]);
    }
    let mut sections = Vec::new();
    roff.to_writer(&mut sections).expect("in memory");
    // Every roff document starts with the same two-line apostrophe preamble: the page has it.
    let preamble = sections
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1)
        .map_or(0, |(i, _)| i + 1);
    buf.extend_from_slice(&sections[preamble..]);
    buf
}
