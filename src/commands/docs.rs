//! `ctxc completions SHELL` and `ctxc man`: what `completions/` and `man/` hold, generated from
//! the clap definition of the binary that runs (so they never lag behind an installed ctxc).

use crate::ExitStatus;
use crate::human::Shown;
use anyhow::{Context, Result, bail};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Prints the completion script of `shell`.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitStatus> {
    crate::output::write_stdout(&crate::cli::completions(shell))?;
    Ok(ExitStatus::Success)
}

/// Prints the man page of `command` (empty: ctxc's own), or writes every page into `dir`.
pub fn man(command: &[String], dir: Option<&Path>, quiet: bool) -> Result<ExitStatus> {
    let pages = crate::cli::man_pages();
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.shown()))?;
        for (name, page) in &pages {
            let path = dir.join(name);
            std::fs::write(&path, page).with_context(|| format!("writing {}", path.shown()))?;
        }
        if !quiet {
            eprintln!("ctxc: wrote {} man pages to {}", pages.len(), dir.shown());
        }
        return Ok(ExitStatus::Success);
    }
    let name = std::iter::once("ctxc")
        .chain(command.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("-");
    let Some((_, page)) = pages.iter().find(|(file, _)| *file == format!("{name}.1")) else {
        let names: Vec<&str> = pages
            .iter()
            .filter_map(|(file, _)| file.strip_suffix(".1")?.strip_prefix("ctxc-"))
            .collect();
        bail!(
            "no man page for `ctxc {}`: the commands are {}",
            command.join(" "),
            names.join(", ").replace('-', " ")
        );
    };
    // A person at a terminal gets the page as `man` shows it; a pipe gets the roff.
    if std::io::stdout().is_terminal() && shown_by_man(page) {
        return Ok(ExitStatus::Success);
    }
    crate::output::write_stdout(page)?;
    Ok(ExitStatus::Success)
}

/// Shows `page` with `man -l` (through its pager); false when there is no `man` to run, so
/// the caller prints the roff instead.
fn shown_by_man(page: &[u8]) -> bool {
    let Ok(mut file) = tempfile::Builder::new().suffix(".1").tempfile() else {
        return false;
    };
    if file.write_all(page).and_then(|()| file.flush()).is_err() {
        return false;
    }
    std::process::Command::new("man")
        .arg("-l")
        .arg(file.path())
        .status()
        .is_ok_and(|s| s.success())
}
