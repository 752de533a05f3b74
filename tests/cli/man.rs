//! The man pages and shell completions under `man/` and `completions/` are generated from the
//! clap definition; this test fails when they are stale. `CTXC_BLESS=1 cargo test` rewrites them.

use crate::{ctxc, root, stdout_of};
use std::path::Path;

fn rendered_man_pages() -> Vec<(String, Vec<u8>)> {
    ctxc::cli::man_pages()
}

fn rendered_completions() -> Vec<(String, Vec<u8>)> {
    ctxc::cli::SHELLS
        .into_iter()
        .map(|(shell, name)| (name.to_string(), ctxc::cli::completions(shell)))
        .collect()
}

fn compare_or_bless(dir: &Path, files: Vec<(String, Vec<u8>)>) {
    let bless = std::env::var_os("CTXC_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, content) in files {
        let path = dir.join(&name);
        if bless {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(&path, &content).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(content.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files (run `CTXC_BLESS=1 cargo test --test cli man`): {stale:?}"
    );
}

#[test]
fn man_pages_are_current() {
    compare_or_bless(&root().join("man"), rendered_man_pages());
}

#[test]
fn completions_are_current() {
    compare_or_bless(&root().join("completions"), rendered_completions());
}

/// `ctxc completions SHELL` and `ctxc man [COMMAND...]` print what `completions/` and `man/`
/// hold; `ctxc man --dir DIR` writes every page.
#[test]
fn completions_and_man_print_the_shipped_files() {
    for (shell, name) in ctxc::cli::SHELLS {
        let out = ctxc()
            .args(["completions", &shell.to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let shipped = std::fs::read(root().join("completions").join(name)).unwrap();
        assert!(
            out.stdout == shipped,
            "ctxc completions {shell} differs from {name}"
        );
    }
    for (args, page) in [
        (vec![], "ctxc.1"),
        (vec!["compact"], "ctxc-compact.1"),
        (vec!["report", "merge"], "ctxc-report-merge.1"),
    ] {
        let out = ctxc().arg("man").args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let shipped = std::fs::read(root().join("man").join(page)).unwrap();
        assert!(
            out.stdout == shipped,
            "ctxc man {args:?} differs from {page}"
        );
    }
    let out = ctxc().args(["man", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let out = ctxc()
        .args(["man", "-q", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut shipped: Vec<String> = rendered_man_pages().into_iter().map(|(n, _)| n).collect();
    shipped.sort();
    assert_eq!(written, shipped);
}

/// Every `ctxc-NAME(1)` a man page refers to (SUBCOMMANDS, SEE ALSO) is shipped in man/.
#[test]
fn every_man_page_referred_to_is_shipped() {
    let names = regex::Regex::new(r"ctxc\\-([a-z\\-]+)\\(1\\)").unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("man")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for name in names.captures_iter(&text) {
            let page = format!("ctxc-{}.1", name[1].replace("\\-", "-"));
            if !root().join("man").join(&page).exists() {
                missing.push(format!("{} refers to {page}", path.display()));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:?}");
    assert!(root().join("man/ctxc-report-merge.1").exists());
}

/// Strategy, format and encoding names complete in the shells, and `--strategy`'s help names
/// every strategy, drop-stored too.
#[test]
fn strategy_and_format_names_complete_in_the_shells() {
    let bash = std::fs::read_to_string(root().join("completions/ctxc.bash")).unwrap();
    let fish = std::fs::read_to_string(root().join("completions/ctxc.fish")).unwrap();
    let strategies = bash
        .lines()
        .find(|l| l.contains("compgen -W \"adaptive "))
        .expect("bash completes strategy names");
    let words: Vec<&str> = strategies.split('"').nth(1).unwrap().split(' ').collect();
    for name in ctxc::strategy::StrategyName::ALL.map(|s| s.name()) {
        assert!(
            words.contains(&name),
            "bash does not complete the strategy {name}"
        );
        assert!(
            fish.contains(&format!("{name}\\t")),
            "fish does not complete {name}"
        );
    }
    for name in ["claude-code", "sharegpt", "o200k_base", "anthropic"] {
        assert!(bash.contains(name), "bash does not complete {name}");
    }
    let help = stdout_of(&ctxc().args(["compact", "--help"]).output().unwrap());
    let strategy = &help[help.find("--strategy <").unwrap()..];
    let strategy = &strategy[..strategy.find("--target-tokens <").unwrap()];
    for name in ctxc::strategy::StrategyName::ALL.map(|s| s.name()) {
        assert!(
            strategy.contains(name),
            "--strategy's help misses {name}: {strategy}"
        );
    }
}

/// `compact --help` groups its options: -q, -v, -j and --color apart from the triggers; `-h`
/// (the common flags only) keeps the global ones apart too.
#[test]
fn compact_help_groups_global_options_apart_from_triggers() {
    let long = stdout_of(&ctxc().args(["compact", "--help"]).output().unwrap());
    let short = stdout_of(&ctxc().args(["compact", "-h"]).output().unwrap());
    // The text under `heading`, up to the next heading (a line ending in `:` at the margin).
    let section = |help: &str, heading: &str| {
        let start = help
            .find(&format!("\n{heading}:\n"))
            .unwrap_or_else(|| panic!("no {heading} in {help}"));
        let rest = &help[start + heading.len() + 3..];
        let end = rest
            .lines()
            .take_while(|l| l.is_empty() || l.starts_with(' '))
            .map(|l| l.len() + 1)
            .sum::<usize>();
        rest[..end.min(rest.len())].to_string()
    };
    let triggers = section(&long, "Triggers (0 switches one off)");
    assert!(
        triggers.contains("--trigger-ratio") && !triggers.contains("--quiet"),
        "{long}"
    );
    for help in [&long, &short] {
        let global = section(help, "Global options");
        for flag in [
            "-q, --quiet",
            "-v, --verbose",
            "-j, --jobs",
            "--color <WHEN>",
        ] {
            assert!(global.contains(flag), "{flag} not in {global}");
        }
    }
}

/// `--color` decides; without it (auto) NO_COLOR turns colour off, CLICOLOR_FORCE on, and a
/// pipe gets none.
#[test]
fn color_follows_the_flag_then_no_color_then_clicolor_force() {
    let coloured = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = ctxc();
        cmd.env_remove("CLICOLOR_FORCE").env_remove("CLICOLOR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.args(args).arg("compact").arg("-h").output().unwrap();
        assert!(out.status.success());
        out.stdout.contains(&0x1b)
    };
    assert!(!coloured(&[], &[]), "a pipe gets no colour");
    assert!(coloured(&["--color", "always"], &[]));
    assert!(coloured(&["--color=always"], &[("NO_COLOR", "1")]));
    assert!(!coloured(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    assert!(coloured(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!coloured(
        &[],
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]
    ));
    let out = ctxc()
        .args(["--color", "sometimes", "stats", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `config show` takes compact's flags, to preview what a setting resolves to, and says that
/// a transcript's own window applies when none is given.
#[test]
fn config_show_previews_compact_flags_and_notes_the_window() {
    let out = ctxc()
        .args([
            "config",
            "show",
            "--no-config",
            "--json",
            "--trigger-ratio",
            "0.7",
        ])
        .args(["--model", "gpt-4o"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let setting = |key: &str| {
        json["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .unwrap()
            .clone()
    };
    assert_eq!(setting("trigger_ratio")["value"], 0.7);
    assert_eq!(setting("trigger_ratio")["source"], "flag");
    assert_eq!(setting("context_window")["value"], 128_000);
    assert_eq!(setting("context_window")["source"], "model");
    assert_eq!(
        json["notes"],
        serde_json::json!([]),
        "a model gives the window"
    );

    let note = "each transcript's own window applies";
    let table = stdout_of(
        &ctxc()
            .args(["config", "show", "--no-config"])
            .output()
            .unwrap(),
    );
    assert!(table.contains(note), "{table}");
    let given = ctxc()
        .args(["config", "show", "--no-config", "--context-window", "1000"])
        .output()
        .unwrap();
    assert!(!stdout_of(&given).contains(note));
    let bad = ctxc()
        .args(["config", "show", "--trigger-ratoi", "1"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn ctxc_man_on_a_terminal_shows_the_page_through_man() {
    // A `man` that says how it was called stands in for the real one (and its pager).
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("man");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho \"man called: $1\"; grep -m1 '^.TH' \"$2\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let Some(shown) = crate::on_a_terminal("\"$CTXC\" man compact", Some(dir.path())) else {
        return;
    };
    assert!(shown.contains("man called: -l"), "{shown}");
    assert!(shown.contains(".TH"), "the page handed to man: {shown}");
    // Piped, the roff itself.
    let piped = ctxc().args(["man", "compact"]).output().unwrap();
    assert!(
        stdout_of(&piped).starts_with(".ie"),
        "{}",
        stdout_of(&piped)
    );
}
