//! The man pages and shell completions under `man/` and `completions/` are generated from the
//! clap definition; this test fails when they are stale. `CTXC_BLESS=1 cargo test` rewrites them.

use crate::root;
use clap_complete::Shell;
use std::path::Path;

fn rendered_man_pages() -> Vec<(String, Vec<u8>)> {
    let cmd = ctxc::cli::command();
    let mut pages = Vec::new();
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf).unwrap();
    pages.push(("ctxc.1".to_string(), buf));
    for sub in cmd.get_subcommands() {
        let name = format!("ctxc-{}", sub.get_name());
        let sub = sub.clone().name(name.clone());
        let mut buf = Vec::new();
        clap_mangen::Man::new(sub).render(&mut buf).unwrap();
        pages.push((format!("{name}.1"), buf));
    }
    pages
}

fn rendered_completions() -> Vec<(String, Vec<u8>)> {
    [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ]
    .into_iter()
    .map(|shell| {
        let mut cmd = ctxc::cli::command();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "ctxc", &mut buf);
        let name = match shell {
            Shell::Bash => "ctxc.bash".to_string(),
            Shell::Zsh => "_ctxc".to_string(),
            Shell::Fish => "ctxc.fish".to_string(),
            Shell::Elvish => "ctxc.elv".to_string(),
            _ => "_ctxc.ps1".to_string(),
        };
        (name, buf)
    })
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
